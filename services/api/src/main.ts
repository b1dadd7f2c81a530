import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { createLogger } from '@feedback/logging';
import { readConfigOrExit, runService } from '@feedback/service-runtime';
import { runApiCluster } from './cluster/api-cluster.js';
import { readApiConfig } from './config.js';
import { startApi } from './service.js';

const { config, describe } = readConfigOrExit('api', () => readApiConfig());
const processes = config.processes === 0 ? availableParallelism() : config.processes;
if (processes > 1 && cluster.isPrimary) {
  const logger = createLogger({ service: 'api', level: config.logLevel });
  logger.info('starting', { configuration: describe() });
  await runApiCluster({ processes, metricsPort: config.metricsPort, logger });
} else {
  await runService({ name: 'api', readConfig: () => readApiConfig(), start: startApi });
}

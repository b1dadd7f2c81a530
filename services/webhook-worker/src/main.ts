import { createLogger } from '@feedback/logging';
import { readWorkerConfig } from './config.js';
import { startWorker } from './service.js';

const { config, describe } = readWorkerConfig();
const logger = createLogger({ service: 'webhook-worker', level: config.logLevel });
logger.info('starting', { configuration: describe() });
const service = await startWorker(config, logger);
service.lifecycle.exitOnSignals(service.shutdownSteps);
logger.info('ready', { healthPort: config.healthPort });

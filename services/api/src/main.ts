import { createLogger } from '@feedback/logging';
import { readApiConfig } from './config.js';
import { startApi } from './service.js';

const { config, describe } = readApiConfig();
const logger = createLogger({ service: 'api', level: config.logLevel });
logger.info('starting', { configuration: describe() });
const service = await startApi(config, logger);
service.lifecycle.exitOnSignals(service.shutdownSteps);
logger.info('ready', { url: service.url });

import { createLogger } from '@feedback/logging';
import { readAuthorityConfig } from './config.js';
import { startAuthority } from './service.js';

const { config, describe } = readAuthorityConfig();
const logger = createLogger({ service: 'authority', level: config.logLevel });
logger.info('starting', { configuration: describe() });
const service = await startAuthority(config, logger);
service.lifecycle.exitOnSignals(service.shutdownSteps);
logger.info('ready', { healthPort: config.healthPort });

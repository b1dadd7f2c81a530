import { runService } from '@feedback/service-runtime';
import { readApiConfig } from './config.js';
import { startApi } from './service.js';

await runService({ name: 'api', readConfig: () => readApiConfig(), start: startApi });

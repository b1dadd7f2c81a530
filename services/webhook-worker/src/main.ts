import { runService } from '@feedback/service-runtime';
import { readWorkerConfig } from './config.js';
import { startWorker } from './service.js';

await runService({ name: 'webhook-worker', readConfig: () => readWorkerConfig(), start: startWorker });

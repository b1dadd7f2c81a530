import { runService } from '@feedback/service-runtime';
import { readAuthorityConfig } from './config.js';
import { startAuthority } from './service.js';

await runService({ name: 'authority', readConfig: () => readAuthorityConfig(), start: startAuthority });

// Writes packages/api-client/src/generated/api-v1.ts from the OpenAPI document the api builds.
//   pnpm exec tsc -b services/api && pnpm --filter @feedback/api-client generate
import { mkdirSync, writeFileSync } from 'node:fs';
import { generateApiClientTypes } from './api-client-types.mjs';

const { buildOpenApiDocument } = await import('../../../services/api/dist/openapi/build-openapi-document.js');
const target = new URL('../src/generated/api-v1.ts', import.meta.url);
mkdirSync(new URL('.', target), { recursive: true });
writeFileSync(target, await generateApiClientTypes(buildOpenApiDocument({ publicBaseUrl: 'https://api.feedback.example' })));
console.log(`wrote ${target.pathname}`);

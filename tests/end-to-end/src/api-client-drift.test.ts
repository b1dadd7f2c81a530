import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATIONS } from '@feedback/api-client';
import { generateApiClientTypes } from '../../../packages/api-client/scripts/api-client-types.mjs';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

// The client's types and operation table against the document the running api publishes.
let system: RunningSystem;
let document: { paths: Record<string, Record<string, { operationId: string }>> };

beforeAll(async () => {
  system = await startSystem();
  document = (await (await fetch(`${system.api.url}/api/v1/openapi.json`)).json()) as typeof document;
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('@feedback/api-client and the published OpenAPI document', () => {
  it('has the types generated from the document, unchanged', async () => {
    const committed = readFileSync(new URL('../../../packages/api-client/src/generated/api-v1.ts', import.meta.url), 'utf8');
    const fresh = await generateApiClientTypes(document);
    // On failure: pnpm exec tsc -b services/api && pnpm --filter @feedback/api-client generate
    expect({ upToDate: committed === fresh }).toEqual({ upToDate: true });
  });

  it('has a method for every /api/v1 operation, and none for an operation that is gone', () => {
    const documented = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json')
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => `${operation.operationId} ${method} ${path}`))
      .sort();
    const covered = Object.values(OPERATIONS)
      .map((operation) => `${operation.operationId} ${operation.method} ${operation.path}`)
      .sort();
    expect(covered).toEqual(documented);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { surfaceTypes } from '../../../packages/api-client/scripts/api-client-types.mjs';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let credentials: { secretKey: string; publicKey: string; token: string };

beforeAll(async () => {
  system = await startSystem();
  const owner = await signUpTeam(system.api.url, 'pro');
  const app = await createApp(system.api.url, owner.token);
  await call(system.api.url, 'PATCH', `/dashboard/v1/apps/${app.appId}/api-key`, { token: owner.token, body: { full_access: true } });
  credentials = { secretKey: app.secretKey, publicKey: app.publicKey, token: owner.token };
}, 60_000);

afterAll(async () => {
  await system?.stop();
});

describe('the served OpenAPI document', () => {
  it('describes only operations the server really has', async () => {
    const document = (await (await fetch(`${system.api.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, unknown>> }>>;
    };
    const checked: string[] = [];
    for (const [template, methods] of Object.entries(document.paths)) {
      // Ids that exist nowhere: the route must answer, and say the record is missing.
      const path = template.replace('{memberId}', randomUUID()).replace(/\{[a-zA-Z]+\}/g, '999999');
      for (const [method, operation] of Object.entries(methods)) {
        const scheme = Object.keys(operation.security?.[0] ?? {})[0];
        const bearer = scheme === 'secretKey' ? credentials.secretKey : scheme === 'publicKey' ? credentials.publicKey : scheme === 'memberSession' ? credentials.token : undefined;
        if (template.endsWith('/revoke') || template.endsWith('/rotate')) continue; // would change the key used here
        if (template.endsWith('/sign-out')) continue; // would end the session used here
        const answer = await call(system.api.url, method.toUpperCase(), path, {
          token: bearer,
          body: ['post', 'patch'].includes(method) ? {} : undefined,
        });
        const unrouted = answer.status === 405 || String(answer.body['message'] ?? '').startsWith('No route');
        expect({ operation: `${method} ${template}`, unrouted }).toEqual({ operation: `${method} ${template}`, unrouted: false });
        checked.push(`${method} ${template}`);
      }
    }
    expect(checked.length).toBeGreaterThan(30);
  });

  it("gives a client generated from it, as the dashboard page's is, a type for every dashboard answer and none unknown", async () => {
    const document = await (await fetch(`${system.api.url}/api/v1/openapi.json`)).json();
    const types = await surfaceTypes(document, '/dashboard/v1/');
    expect(types).toContain('renewSession: {');
    // A body openapi-typescript could not type, or an object it could only index: each an `unknown`.
    const unknownBodies = types.split('\n').filter((line) => /: unknown;/.test(line) && !/^\s*\[name: string\]: unknown;$/.test(line));
    expect(unknownBodies).toEqual([]);
    expect(types).not.toMatch(/Record<string, unknown>|"application\/json": unknown/);
  });
});

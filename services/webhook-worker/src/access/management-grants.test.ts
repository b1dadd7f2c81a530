import { describe, expect, it } from '@jest/globals';
import { AuthorityKeys } from '@feedback/authority-keys';
import type { RpcHandlers } from '@feedback/messaging';
import { requiringGrants } from './management-grants.js';

/** Keys that must not be needed: a request without an owner is decided before any grant is read. */
const noKeys = new AuthorityKeys(async () => Promise.reject(new Error('no keys in this test')));

describe('requiringGrants', () => {
  const handlers = { 'webhook-worker.someNewCommand': async () => ({ done: true }) } as unknown as RpcHandlers;
  const guarded = requiringGrants(noKeys, handlers) as Record<string, (request: unknown, call: unknown) => Promise<unknown>>;

  it('refuses a request without an owner, whatever its method: every caller of the worker holds a grant', async () => {
    await expect(guarded['webhook-worker.someNewCommand']!({ team_id: 't' }, {})).rejects.toMatchObject({ code: 'grant_invalid' });
  });
});

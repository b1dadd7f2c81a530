import { describe, expect, it } from '@jest/globals';
import { AuthorityKeys } from '@feedback/authority-keys';
import type { RpcHandlers } from '@feedback/messaging';
import { requiringGrants } from './management-grants.js';

/** Keys that must not be needed: a request without an owner is decided before any grant is read. */
const noKeys = new AuthorityKeys(async () => Promise.reject(new Error('no keys in this test')));

describe('requiringGrants', () => {
  const handlers = { 'webhook-worker.countTeamEndpoints': async () => ({ count: 1 }), 'webhook-worker.someNewCommand': async () => ({ done: true }) } as unknown as RpcHandlers;
  const guarded = requiringGrants(noKeys, handlers, ['webhook-worker.countTeamEndpoints']) as Record<string, (request: unknown, call: unknown) => Promise<unknown>>;

  it('refuses a request without an owner to a method not named as one that goes without', async () => {
    await expect(guarded['webhook-worker.someNewCommand']!({}, {})).rejects.toMatchObject({ code: 'grant_invalid' });
  });

  it('answers a method named as one that goes without an owner', async () => {
    await expect(guarded['webhook-worker.countTeamEndpoints']!({ team_id: 't' }, {})).resolves.toEqual({ count: 1 });
  });
});

import { describe, expect, it } from '@jest/globals';
import { authorityHotRpcMethods } from './authority-hot-rpc.js';
import { authorityRpcMethods } from './authority-rpc.js';
import { rpcMethods } from './rpc.js';
import { webhookWorkerRpcMethods } from './webhook-worker-rpc.js';

describe('rpc method tables', () => {
  it('hold each method in the table of the service its name sends it to', () => {
    for (const method of Object.keys(authorityHotRpcMethods)) expect(method).toMatch(/^authority\./);
    for (const method of Object.keys(authorityRpcMethods)) expect(method).toMatch(/^authority\./);
    for (const method of Object.keys(webhookWorkerRpcMethods)) expect(method).toMatch(/^webhook-worker\./);
  });

  it("hold the authority's hot-lane calls, and only those, in its hot table", () => {
    for (const definition of Object.values(authorityHotRpcMethods)) expect(definition.lane).toBe('hot');
    for (const definition of Object.values(authorityRpcMethods)) expect('lane' in definition).toBe(false);
  });

  it('join into one table that loses no method', () => {
    const count = [authorityHotRpcMethods, authorityRpcMethods, webhookWorkerRpcMethods].reduce((sum, table) => sum + Object.keys(table).length, 0);
    expect(Object.keys(rpcMethods)).toHaveLength(count);
  });
});

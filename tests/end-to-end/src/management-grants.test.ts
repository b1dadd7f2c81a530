import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger } from '@feedback/logging';
import { Broker, RpcClient, topologyNames } from '@feedback/messaging';
import winston from 'winston';
import { createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let broker: Broker;
/** A caller with the api's own broker login: what a foothold in the api has. */
let asApi: RpcClient;

beforeAll(async () => {
  system = await startSystem();
  const silent = createLogger({ service: 'test', transports: [new winston.transports.Console({ silent: true })] });
  broker = Broker.connect({ url: system.amqpUrls.api, connectionName: 'foothold', logger: silent });
  await broker.waitUntilConnected(5000);
  asApi = new RpcClient(broker, silent, { names: topologyNames(system.namespace), timeoutMs: 5000 });
});

afterAll(async () => {
  await asApi.close();
  await broker.close();
  await system.stop();
});

const endpoint = { name: 'Mine now', url: 'https://localhost:9/hooks', events: ['ticket.created' as const] };

describe('webhook management grants', () => {
  it("refuses an endpoint command that names a team and app without the authority's grant for them", async () => {
    const victim = await signUpTeam(system.api.url);
    const { appId } = await createApp(system.api.url, victim.token);
    const owner = { team_id: victim.teamId, app_id: appId, plan: 'pro' as const, plan_version: 2 };
    await expect(asApi.call('webhook-worker.createEndpoint', { owner: { ...owner, grant: 'forged' }, ...endpoint })).rejects.toMatchObject({ code: 'grant_invalid' });
    await expect(asApi.call('webhook-worker.listEndpoints', { owner: { ...owner, grant: 'forged' } })).rejects.toMatchObject({ code: 'grant_invalid' });
  });

  it("refuses a grant for one app on a command for another: an attacker's own grant opens no other team's app", async () => {
    const attacker = await signUpTeam(system.api.url);
    const own = await createApp(system.api.url, attacker.token);
    const victim = await signUpTeam(system.api.url);
    const target = await createApp(system.api.url, victim.token);
    const granted = await asApi.call('authority.authorizeWebhookManagement', { session: attacker.token, app_id: own.appId });
    const forged = { team_id: victim.teamId, app_id: target.appId, plan: 'pro' as const, plan_version: granted.plan_version, grant: granted.grant };
    await expect(asApi.call('webhook-worker.createEndpoint', { owner: forged, ...endpoint })).rejects.toMatchObject({ code: 'grant_invalid' });
    // The same grant, for the app it names, is taken.
    const genuine = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
    await expect(asApi.call('webhook-worker.listEndpoints', { owner: genuine })).resolves.toMatchObject({ items: [] });
  });

  it("refuses a Send test whose ping would carry another app's public key", async () => {
    const member = await signUpTeam(system.api.url);
    const { appId } = await createApp(system.api.url, member.token);
    const other = await createApp(system.api.url, member.token, 'Other');
    const granted = await asApi.call('authority.authorizeWebhookManagement', { session: member.token, app_id: appId });
    const owner = { team_id: granted.team_id, app_id: granted.app.id, plan: granted.plan, plan_version: granted.plan_version, grant: granted.grant };
    const request = { owner, endpoint_id: '00000000-0000-4000-8000-000000000000', public_key: other.publicKey, member_name: 'x' };
    await expect(asApi.call('webhook-worker.sendTest', request)).rejects.toMatchObject({ code: 'grant_invalid' });
  });
});

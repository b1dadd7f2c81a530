import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HttpsReceiver, eventually, testCertificates } from '@feedback/test-support';
import { parse } from 'yaml';
import { call, createApp, signUpTeam } from './dashboard.js';
import { startSystem } from './system.js';
import type { RunningSystem } from './system.js';

let system: RunningSystem;
let token: string;
let appId: number;
let publicKey: string;
let secretKey: string;
const receivers: HttpsReceiver[] = [];
const url = () => system.api.url;

beforeAll(async () => {
  system = await startSystem();
  ({ token } = await signUpTeam(url(), 'pro'));
  ({ appId, publicKey, secretKey } = await createApp(url(), token, 'Metrics app'));
  await call(url(), 'PATCH', `/dashboard/v1/apps/${appId}/api-key`, { token, body: { full_access: true } });
}, 60_000);

afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
  await system?.stop();
});

async function scrape(metricsUrl: string): Promise<string> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of one series, found by its name and every label given; undefined when absent. */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([label, value]) => line.includes(`${label}="${value}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

const workerMetricsUrl = () => `http://127.0.0.1:${(system.worker.healthServer.address() as AddressInfo).port}/metrics`;

describe('metrics', () => {
  it('the worker counts attempts by outcome and kind, and how deliveries settle', async () => {
    const healthy = await HttpsReceiver.start(testCertificates().trusted);
    const failing = await HttpsReceiver.start(testCertificates().trusted);
    receivers.push(healthy, failing);
    failing.answer = () => ({ status: 500 });
    for (const [name, target] of [['healthy', healthy], ['failing', failing]] as const) {
      const created = await call(url(), 'POST', `/dashboard/v1/apps/${appId}/webhooks`, { token, body: { name, url: target.url(), events: ['suggestion.created'] } });
      expect(created.status).toBe(201);
    }
    expect((await call(url(), 'POST', '/widget/v1/suggestions', { key: publicKey, body: { title: 'Counted', user: { external_id: 'u-1' } } })).status).toBe(201);

    // Six attempts to the failing endpoint (the schedule is milliseconds here), one to the healthy one.
    const text = await eventually(async () => {
      const scraped = await scrape(workerMetricsUrl());
      // Abandoned, and the message of its last retry acknowledged (which follows).
      const settled = (valueOf(scraped, 'feedback_webhook_deliveries_settled_total', { status: 'abandoned' }) ?? 0) >= 1;
      return settled && /feedback_messages_handled_total\{queue="[^"]*webhooks\.deliver",outcome="ack",service="webhook-worker"\} 5\n/.test(scraped) ? scraped : undefined;
    }, { what: 'the failing delivery abandoned' });
    expect(valueOf(text, 'feedback_webhook_attempts_total', { outcome: 'delivered', kind: 'first' })).toBe(1);
    expect(valueOf(text, 'feedback_webhook_attempts_total', { outcome: 'failed', kind: 'first' })).toBe(1);
    expect(valueOf(text, 'feedback_webhook_attempts_total', { outcome: 'failed', kind: 'retry' })).toBe(5);
    expect(valueOf(text, 'feedback_webhook_deliveries_settled_total', { status: 'delivered' })).toBe(1);
    expect(valueOf(text, 'feedback_webhook_events_total', { outcome: 'new' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(text, 'feedback_webhook_attempt_duration_seconds_count', { outcome: 'failed' })).toBe(6);
    expect(valueOf(text, 'feedback_webhook_attempts_in_flight')).toBe(0);
    // From the event to the healthy endpoint's answer: one observation, well under the test's own time.
    expect(valueOf(text, 'feedback_webhook_event_to_delivery_seconds_count')).toBe(1);
    expect(valueOf(text, 'feedback_webhook_event_to_delivery_seconds_bucket', { le: '10' })).toBe(1);
    // Its RPC, both ways: the endpoints created, and the authority's public keys that verified their grants.
    expect(valueOf(text, 'feedback_rpc_served_duration_seconds_count', { method: 'webhook-worker.createEndpoint', outcome: 'ok' })).toBe(2);
    expect(valueOf(text, 'feedback_rpc_call_duration_seconds_count', { method: 'authority.getSessionKeys', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    // Its consumers: the event, the team's move to Pro, and the five retries that came back through the deliver queue, acknowledged.
    expect(text).toMatch(/feedback_messages_handled_total\{queue="[^"]*webhook-worker\.domain-events",outcome="ack",service="webhook-worker"\} 1\n/);
    expect(text).toMatch(/feedback_messages_handled_total\{queue="[^"]*webhook-worker\.plan-changes",outcome="ack",service="webhook-worker"\} 1\n/);
    expect(text).toMatch(/feedback_messages_handled_total\{queue="[^"]*webhooks\.deliver",outcome="ack",service="webhook-worker"\} 5\n/);
    // Series at 0 from the start, so an alert on an increase sees the first one (here no delivery
    // was withheld and no message rejected).
    expect(text).toMatch(/feedback_webhook_deliveries_settled_total\{status="withheld",service="webhook-worker"\} 0\n/);
    expect(text).toMatch(/feedback_messages_handled_total\{queue="[^"]*webhooks\.deliver",outcome="reject",service="webhook-worker"\} 0\n/);
    // The process itself, labelled with the service.
    expect(valueOf(text, 'process_cpu_seconds_total', { service: 'webhook-worker' })).toBeGreaterThan(0);
  });

  it('the api times requests by route pattern on its internal port, counts published events and reads the outbox backlog; the public port serves no metrics', async () => {
    const publishedBefore = valueOf(await scrape(system.api.metricsUrl), 'feedback_outbox_events_published_total') ?? 0;
    const created = await call(url(), 'POST', '/api/v1/suggestions', { key: secretKey, body: { title: 'Timed', author: { external_id: 'u-2' } } });
    expect(created.status).toBe(201);
    expect((await call(url(), 'GET', '/api/v1/privacy/users/metrics-user-2', { key: secretKey })).status).toBe(200);
    const text = await eventually(async () => {
      const scraped = await scrape(system.api.metricsUrl);
      return (valueOf(scraped, 'feedback_outbox_events_published_total') ?? 0) > publishedBefore ? scraped : undefined;
    }, { what: 'the event published' });
    expect(valueOf(text, 'feedback_http_request_duration_seconds_count', { surface: 'api', route: '/suggestions', method: 'POST', status: '201' })).toBe(1);
    // The pattern, not the path as sent: one series however many users are looked up.
    expect(valueOf(text, 'feedback_http_request_duration_seconds_count', { surface: 'api', route: '/privacy/users/:externalId', method: 'GET', status: '200' })).toBe(1);
    expect(text).not.toContain('metrics-user-2');
    expect(valueOf(text, 'feedback_outbox_unpublished_events')).toBeDefined();
    expect(valueOf(text, 'feedback_outbox_oldest_unpublished_age_seconds')).toBeDefined();
    expect((await fetch(`${url()}/metrics`)).status).toBe(404);
    // The key was verified by the authority once: a call from the api, answered there.
    expect(valueOf(text, 'feedback_rpc_call_duration_seconds_count', { method: 'authority.verifySecretKey', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    const authority = await scrape(`http://127.0.0.1:${(system.authority.healthServer.address() as AddressInfo).port}/metrics`);
    expect(valueOf(authority, 'feedback_rpc_served_duration_seconds_count', { method: 'authority.verifySecretKey', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(authority, 'process_cpu_seconds_total', { service: 'authority' })).toBeGreaterThan(0);
  });
  it('shows each service\'s dependencies as its readiness sees them, so a worker cut off from the broker can be alerted on', async () => {
    const dependency = async (name: string) => valueOf(await scrape(workerMetricsUrl()), 'feedback_dependency_up', { service: 'webhook-worker', dependency: name });
    expect(await dependency('broker')).toBe(1);
    expect(await dependency('database')).toBe(1);
    system.brokerProxy.interrupt();
    try {
      await eventually(async () => ((await dependency('broker')) === 0 ? true : undefined), { what: 'the broker shown down', timeoutMs: 15_000 });
      expect(await dependency('database')).toBe(1);
    } finally {
      system.brokerProxy.restore();
    }
    await eventually(async () => ((await dependency('broker')) === 1 ? true : undefined), { what: 'the broker shown up again', timeoutMs: 30_000 });
    expect(valueOf(await scrape(system.api.metricsUrl), 'feedback_dependency_up', { service: 'api', dependency: 'database' })).toBe(1);
  }, 60_000);

  it('every metric the alerting rules in infra/ use is one a service serves', async () => {
    const rules = parse(readFileSync(new URL('../../../infra/prometheus/alerts.yaml', import.meta.url), 'utf8')) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string; labels: { severity: string } }> }>;
    };
    const all = rules.groups.flatMap((group) => group.rules);
    expect(all.length).toBeGreaterThan(0);
    for (const rule of all) expect(rule).toMatchObject({ alert: expect.any(String), expr: expect.any(String), labels: { severity: expect.stringMatching(/^(page|ticket)$/) } });
    const served = (
      await Promise.all([
        scrape(system.api.metricsUrl),
        scrape(workerMetricsUrl()),
        scrape(`http://127.0.0.1:${(system.authority.healthServer.address() as AddressInfo).port}/metrics`),
      ])
    ).join('\n');
    const used = new Set(all.flatMap((rule) => rule.expr.match(/feedback_[a-z_]+/g) ?? []).map((name) => name.replace(/_(bucket|count|sum)$/, '')));
    expect(used.size).toBeGreaterThan(5);
    for (const name of used) expect({ name, served: served.includes(`# TYPE ${name} `) }).toEqual({ name, served: true });
  });
});

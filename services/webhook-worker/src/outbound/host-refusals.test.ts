import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';
import { EndpointUrlPolicy } from './endpoint-url-policy.js';
import { hostRefusalReporter } from './host-refusals.js';

afterEach(() => {
  jest.useRealTimers();
});

function reporter() {
  const registry = new Registry();
  const warnings: Array<Record<string, unknown>> = [];
  const logger = { warn: (_message: string, meta: Record<string, unknown>) => warnings.push(meta) } as unknown as Logger;
  const counts = async () =>
    Object.fromEntries(((await registry.getSingleMetric('feedback_webhook_hosts_refused_total')!.get()).values).map((value) => [`${value.labels['when']} ${value.labels['reason']}`, value.value]));
  return { report: hostRefusalReporter(registry, logger), warnings, counts };
}

describe('the reasons endpoint hosts were refused', () => {
  it('are counted every time, and logged once a minute per host and reason', async () => {
    jest.useFakeTimers({ now: new Date('2026-11-24T09:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] });
    const { report, warnings, counts } = reporter();
    const connect = report('connect');
    for (let n = 0; n < 3; n += 1) connect('gone.example.com', 'ENOTFOUND');
    connect('gone.example.com', 'ETIMEOUT');
    connect('other.example.com', 'ENOTFOUND');
    report('save')('inside.example.com', 'not_public');
    expect(warnings).toEqual([
      { when: 'connect', host: 'gone.example.com', reason: 'ENOTFOUND' },
      { when: 'connect', host: 'gone.example.com', reason: 'ETIMEOUT' },
      { when: 'connect', host: 'other.example.com', reason: 'ENOTFOUND' },
      { when: 'save', host: 'inside.example.com', reason: 'not_public' },
    ]);
    jest.setSystemTime(new Date('2026-11-24T09:01:00Z'));
    connect('gone.example.com', 'ENOTFOUND');
    expect(warnings).toHaveLength(5);
    expect(await counts()).toEqual({ 'connect ENOTFOUND': 5, 'connect ETIMEOUT': 1, 'save not_public': 1 });
  });

  it('are told by the save-time check, which answers the member the same whatever the reason', async () => {
    const told: Array<[string, string]> = [];
    const failing = Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
    const broken = new EndpointUrlPolicy([], async () => Promise.reject(failing), (host, reason) => told.push([host, reason]));
    const inside = new EndpointUrlPolicy([], async () => ['10.0.0.7'], (host, reason) => told.push([host, reason]));
    const answers = await Promise.all([broken.check('https://a.example.com/hook'), inside.check('https://b.example.com/hook')].map((check) => check.catch((error: Error) => error.message)));
    expect(answers[0]).toMatch(/^The host a\.example\.com does not resolve to a public address/);
    expect(answers[1]).toBe(answers[0]!.replace('a.example.com', 'b.example.com'));
    expect(told.sort()).toEqual([
      ['a.example.com', 'ESERVFAIL'],
      ['b.example.com', 'not_public'],
    ]);
  });
});

import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Logger } from '@feedback/logging';

/** How often one host refused for one reason is logged again. */
const LOGGED_AGAIN_AFTER_MS = 60_000;
/** Hosts remembered for that; past this many, the memory starts again. */
const HOSTS_REMEMBERED = 10_000;

export type HostRefused = (host: string, reason: string) => void;

/**
 * Where the real reason an endpoint's host was refused goes: the dashboard and the delivery
 * history say "does not resolve to a public address" either way (address-policy.ts), so that a
 * team cannot learn which names exist on the service's network, but an operator must tell a
 * customer's dead domain from this worker's own DNS failing. Counted every time; logged once a
 * minute per host and reason, since a dead domain is tried again at every retry of every event.
 */
export function hostRefusalReporter(registry: Registry, logger: Logger): (when: 'save' | 'connect') => HostRefused {
  const refused = new Counter({
    name: 'feedback_webhook_hosts_refused_total',
    help: "Endpoint hosts refused, when saved or at a connection, because their name resolved to a non-public address (reason not_public) or did not resolve (the resolver's code: ENOTFOUND, ETIMEOUT, ESERVFAIL, ...)",
    labelNames: ['when', 'reason'],
    registers: [registry],
  });
  const lastLogged = new Map<string, number>();
  return (when) => (host, reason) => {
    refused.inc({ when, reason });
    const key = `${when} ${reason} ${host}`;
    const now = Date.now();
    if (now - (lastLogged.get(key) ?? -Infinity) < LOGGED_AGAIN_AFTER_MS) return;
    if (lastLogged.size >= HOSTS_REMEMBERED) lastLogged.clear();
    lastLogged.set(key, now);
    logger.warn('endpoint host refused: it did not resolve to a public address (logged once a minute per host and reason)', { when, host, reason });
  };
}

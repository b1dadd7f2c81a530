import type { Metric, Registry } from 'prom-client';

/**
 * The metric of this name in the registry, made by `make` the first time: a service's consumers,
 * RPC servers and clients share one series set per registry (registering a name twice throws).
 */
export function metricOnce<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

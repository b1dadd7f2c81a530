export { READINESS_CHECK_TIME_LIMIT_MS, healthRouter, brokerAndDatabaseChecks, registerReadinessMetric } from './health.js';
export type { CheckStatus, ReadinessCheck } from './health.js';
export { DEFAULT_SHUTDOWN_GRACE_MS, Lifecycle, startHealthServer, closeServer } from './lifecycle.js';
export type { ShutdownStep } from './lifecycle.js';
export { runService, readConfigOrExit, EXIT_CONFIG } from './run-service.js';
export type { RunnableService } from './run-service.js';
export { DEFAULT_PRUNE_INTERVAL_MS, PeriodicTask, retentionPruning } from './periodic-task.js';
export type { PeriodicTaskOptions, RetentionPrune } from './periodic-task.js';
export { createMetricsRegistry, metricsRouter } from './metrics.js';

export { DashboardError, DashboardSession, dashboardCall } from './dashboard-session.js';
export type { SessionOptions } from './dashboard-session.js';
export { forward } from './forward.js';
export type { LocalAnswer } from './forward.js';
export { listen } from './listen.js';
export type { ListenOptions, Listener } from './listen.js';
export { TRIGGERABLE_EVENTS, trigger } from './trigger.js';
export type { TriggerableEvent } from './trigger.js';

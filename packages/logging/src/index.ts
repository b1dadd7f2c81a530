export { createLogger } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { redactText, redactValue, REDACTED } from './redact.js';
export { logLine } from './log-line.js';

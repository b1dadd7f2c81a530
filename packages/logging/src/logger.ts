import winston from 'winston';
import { redactValue } from './redact.js';

export type Logger = winston.Logger;

export interface LoggerOptions {
  /** Name of the service, on every line. */
  service: string;
  /** Minimum level. Default: "info". */
  level?: string;
  /** Where lines go. Default: one JSON line per entry on stdout. */
  transports?: winston.transport[];
}

// Winston keeps level and message under symbols as well; redaction must keep them intact.
const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    const redacted = redactValue({ [key]: info[key] }) as Record<string, unknown>;
    info[key] = redacted[key];
  }
  return info;
});

/** A structured JSON logger. Use `logger.child({ requestId })` to tag every line of a request. */
export function createLogger(options: LoggerOptions): Logger {
  return winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service: options.service },
    format: winston.format.combine(
      winston.format.errors({ stack: true }),
      winston.format.timestamp(),
      redactSecrets(),
      winston.format.json(),
    ),
    transports: options.transports ?? [new winston.transports.Console()],
  });
}

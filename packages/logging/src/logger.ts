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
  // Winston runs the logger's formats before its transports look at the level, so a line below
  // the level would still be redacted and serialised; this drops it first, for the hot paths that
  // log every delivery or request.
  const belowLevel = winston.format((info) => (logger.isLevelEnabled(info.level) ? info : false));
  const logger: Logger = winston.createLogger({
    level: options.level ?? 'info',
    defaultMeta: { service: options.service },
    format: winston.format.combine(
      belowLevel(),
      winston.format.errors({ stack: true }),
      winston.format.timestamp(),
      redactSecrets(),
      winston.format.json(),
    ),
    transports: options.transports ?? [new winston.transports.Console()],
  });
  return logger;
}

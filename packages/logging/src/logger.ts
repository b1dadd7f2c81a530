import winston from 'winston';
import { BatchedStdout } from './batched-stdout.js';
import { redactField } from './redact.js';

export type Logger = winston.Logger;

export interface LoggerOptions {
  /** Name of the service, on every line. */
  service: string;
  /** Minimum level. Default: "info". */
  level?: string;
  /** Where lines go. Default: one JSON line per entry on stdout, those of one event-loop turn written together. */
  transports?: winston.transport[];
}

// Winston keeps level and message under symbols as well; redaction must keep them intact.
const redactSecrets = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level') continue;
    info[key] = redactField(key, info[key]);
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
    transports: options.transports ?? [new BatchedStdout()],
  });
  skipBelowLevel(logger);
  return logger;
}

/**
 * Even a line below the level costs winston an entry object and a pass through its stream before
 * the format above drops it, which showed in the worker's allocations per delivery
 * (docs/decisions.md, "Lines below the log level cost nothing"). These wrappers return first. `this` is the logger or one of its children, which
 * inherit the level (and these wrappers) from it.
 */
function skipBelowLevel(logger: Logger): void {
  const severity = logger.levels;
  const enabled = (self: Logger, level: unknown) =>
    typeof level !== 'string' || (severity[level] ?? Infinity) <= (severity[self.level] ?? -Infinity);
  const methods = logger as unknown as Record<string, (...args: unknown[]) => Logger>;
  for (const name of [...Object.keys(severity), 'log']) {
    const write = methods[name]!;
    // logger.log(level, message, meta) is checked on its first argument; logger.log(entry) passes.
    const levelOf = name === 'log' ? (args: unknown[]) => args[0] : () => name;
    methods[name] = function (this: Logger, ...args: unknown[]) {
      return enabled(this, levelOf(args)) ? write.apply(this, args) : this;
    };
  }
}

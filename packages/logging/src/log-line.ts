import { BatchedStdout } from './batched-stdout.js';
import type { Logger } from './logger.js';
import { redactField } from './redact.js';

type Field = string | number | boolean | null;

/** The keys of a line in the order winston's JSON writes them (sorted), kept per set of keys. */
const orders = new Map<string, string[]>();

function orderOf(keys: string[]): string[] {
  const signature = keys.join(',');
  let order = orders.get(signature);
  if (order === undefined) {
    order = [...keys].sort();
    // Lines come in a few shapes; anything past that is sorted each time.
    if (orders.size < 100) orders.set(signature, order);
  }
  return order;
}

/**
 * Logs one line of flat fields, as `logger.log(level, message, fields)` writes it: the logger's
 * default fields (its service), these, level, message and time, each redacted, keys in order.
 * On the default transport alone the line is made here and handed to it, without winston's
 * stream and formats, which cost more than the rest of a cheap request; anywhere else it goes
 * through winston. For lines logged on every request.
 */
export function logLine(logger: Logger, level: string, message: string, fields: Record<string, Field>): void {
  if (!logger.isLevelEnabled(level)) return;
  const [transport, ...others] = logger.transports;
  if (!(transport instanceof BatchedStdout) || others.length > 0 || transport.level !== undefined || transport.format !== undefined) {
    logger.log(level, message, fields);
    return;
  }
  const entry: Record<string, unknown> = { ...(logger.defaultMeta as Record<string, unknown> | undefined), ...fields, level, message, timestamp: new Date().toISOString() };
  // Filled in key order, so that JSON.stringify writes them so without a replacer.
  const line: Record<string, unknown> = {};
  for (const key of orderOf(Object.keys(entry))) line[key] = key === 'level' ? entry[key] : redactField(key, entry[key]);
  transport.writeLine(JSON.stringify(line));
}

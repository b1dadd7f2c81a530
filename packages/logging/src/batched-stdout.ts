import winston from 'winston';

/** Where winston's formats leave the finished line (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');

/** winston-transport's class, which winston exports as `Transport` (its types do not say so). */
type TransportStream = winston.Logger['transports'][number];
const Transport = (winston as unknown as { Transport: new () => TransportStream }).Transport;

/** Every transport not closed, written out as the process exits. */
const open = new Set<BatchedStdout>();
// On a file or a pipe, stdout writes at once even in an exit listener, where nothing asynchronous runs.
const flushAll = (): void => {
  for (const transport of open) transport.close();
};

/**
 * Log lines to stdout, written together once per turn of the event loop: one write for every
 * line logged meanwhile, where winston's Console makes one per line (and a timer per line for its
 * `logged` event). Under load an api instance logs a line per request, so this takes most of
 * those writes away. Lines still waiting when the process exits are written then.
 */
export class BatchedStdout extends Transport {
  private lines: string[] = [];
  private scheduled = false;
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = `${this.lines.join('\n')}\n`;
    this.lines = [];
    process.stdout.write(text);
  };

  constructor() {
    super();
    if (open.size === 0) process.once('exit', flushAll);
    open.add(this);
  }

  override log(info: Record<string | symbol, unknown>, callback: () => void): void {
    this.writeLine(info[MESSAGE] as string);
    callback();
  }

  /** A finished line, without its line break. */
  writeLine(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  override close(): void {
    this.flush();
    open.delete(this);
    if (open.size === 0) process.off('exit', flushAll);
  }
}


import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Writable } from 'node:stream';
import winston from 'winston';
import { BatchedStdout } from './batched-stdout.js';
import { createLogger, logLine } from './index.js';

/** What the default transport writes to stdout, once its turn of the event loop has passed. */
async function stdoutOf(log: () => void): Promise<string[]> {
  const written: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    log();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    write.mockRestore();
  }
  return written;
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('logLine', () => {
  it('writes the line winston writes for the same fields, keys in the same order, redacted alike, on stdout in one write', async () => {
    const logger = createLogger({ service: 'api' });
    const fields = { requestId: 'sk_live_notakeybutredacted', method: 'GET', route: '/api/v1/suggestions', status: 200, durationMs: 1.5, token: 'hidden' };
    const written = await stdoutOf(() => {
      logLine(logger, 'info', 'request', fields);
      logger.info('request', fields);
    });
    expect(written).toHaveLength(1);
    const [fast, slow] = written[0]!.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(Object.keys(fast!)).toEqual(Object.keys(slow!));
    expect({ ...fast, timestamp: undefined }).toEqual({ ...slow, timestamp: undefined });
    expect(fast).toMatchObject({ service: 'api', level: 'info', requestId: 'sk_live_[redacted]', token: '[redacted]' });
  });

  it('writes nothing below the level', async () => {
    const logger = createLogger({ service: 'api', level: 'warn' });
    expect(await stdoutOf(() => logLine(logger, 'info', 'request', { status: 200 }))).toEqual([]);
  });

  it('goes through winston on any other transport', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ service: 'api', transports: [new winston.transports.Stream({ stream })] });
    logLine(logger, 'info', 'request', { status: 201 });
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ service: 'api', level: 'info', message: 'request', status: 201 });
  });

  it('writes the lines still waiting when the transport closes', () => {
    const transport = new BatchedStdout();
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    transport.writeLine('{"a":1}');
    transport.close();
    expect(write).toHaveBeenCalledWith('{"a":1}\n');
  });
});

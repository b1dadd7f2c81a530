import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import winston from 'winston';
import { createLogger } from './index.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ service: 'test', transports: [new winston.transports.Stream({ stream })] });
  return { logger, lines };
}

describe('createLogger', () => {
  it('writes one JSON line with the service name and the child context', () => {
    const { logger, lines } = capture();
    logger.child({ requestId: 'req-1' }).info('hello', { route: '/x' });
    const entry = JSON.parse(lines[0] ?? '{}');
    expect(entry).toMatchObject({ level: 'info', message: 'hello', service: 'test', requestId: 'req-1', route: '/x' });
  });

  it('writes a line at or above its level, by method or by log(level), in children too, and nothing below it', () => {
    const { logger, lines } = capture();
    const child = logger.child({ requestId: 'req-2' });
    logger.debug('hidden');
    child.debug('hidden');
    logger.log('debug', 'hidden');
    child.info('shown by the child');
    logger.log('warn', 'shown by log');
    logger.log({ level: 'debug', message: 'hidden as an entry' });
    logger.level = 'debug';
    child.debug('shown once the level is lowered');
    expect(lines.map((line) => JSON.parse(line).message)).toEqual(['shown by the child', 'shown by log', 'shown once the level is lowered']);
  });

  it('redacts secret keys, signing secrets and hashes wherever they appear', () => {
    const { logger, lines } = capture();
    const key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dcAbCdEf';
    const hash = 'a'.repeat(64);
    logger.warn(`rejected ${key}`, {
      headers: { authorization: `Bearer ${key}` },
      nested: { note: `secret whsec_abcDEF123 and ${hash}` },
      signingSecret: 'whatever',
    });
    const line = lines.join('');
    expect(line).not.toContain(key);
    expect(line).not.toContain('whsec_abcDEF123');
    expect(line).not.toContain(hash);
    expect(line).not.toContain('whatever');
    expect(line).toContain('sk_live_[redacted]');
  });

  it('redacts a member session token, in a field named session and in any text', () => {
    const { logger, lines } = capture();
    const token = 'eyJhbGciOiJFZERTQSIsImtpZCI6IjEyIn0.eyJzdWIiOiJtZW1iZXIiLCJzaWQiOiJzIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    logger.warn(`refused ${token}`, { request: { session: 'not-a-jwt-but-still-hidden', app_id: 7 }, note: `sent ${token} again` });
    const line = lines.join('');
    expect(line).not.toContain(token);
    expect(line).not.toContain('not-a-jwt-but-still-hidden');
    expect(line).toContain('[redacted-jwt]');
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ request: { session: '[redacted]', app_id: 7 } });
  });

  it('redacts secrets inside logged errors', () => {
    const { logger, lines } = capture();
    logger.error('failed', { error: new Error('bad key sk_live_abcdefabcdef') });
    expect(lines.join('')).not.toContain('sk_live_abcdefabcdef');
  });

  it('keeps what says why an error happened: its code, its cause, the errors of an AggregateError, Prisma\'s meta; secrets and row values in them left out', () => {
    const { logger, lines } = capture();
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
    // How Node reports a connect to a name with several addresses, all refused: no message of its own.
    const everyAddress = Object.assign(new AggregateError([refused, new Error('connect ETIMEDOUT 10.0.0.6:5432')], ''), { code: 'ECONNREFUSED' });
    const prisma = Object.assign(new Error('Invalid invocation', { cause: everyAddress }), {
      code: 'P2010',
      meta: {
        driverAdapterError: Object.assign(new Error('postgres'), {
          cause: { kind: 'DatabaseNotReachable', originalMessage: 'with sk_live_abcdefabcdef', detail: 'Failing row contains (eve@example.com).', hint: 'eve again' },
        }),
        password: 'hunter2',
      },
    });
    logger.error('request failed', { error: prisma });
    const { error } = JSON.parse(lines[0] ?? '{}') as { error: Record<string, unknown> };
    expect(error).toMatchObject({
      name: 'Error',
      code: 'P2010',
      meta: { driverAdapterError: { message: 'postgres', cause: { kind: 'DatabaseNotReachable', originalMessage: 'with sk_live_[redacted]' } }, password: '[redacted]' },
      cause: {
        name: 'AggregateError',
        code: 'ECONNREFUSED',
        errors: [
          { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.5:5432' },
          { message: 'connect ETIMEDOUT 10.0.0.6:5432' },
        ],
      },
    });
    expect(lines.join('')).not.toContain('hunter2');
    // pg's detail and hint quote row values: not kept.
    expect(lines.join('')).not.toContain('eve@example.com');
    expect(lines.join('')).not.toContain('eve again');
  });
});

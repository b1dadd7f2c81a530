import { describe, expect, it } from '@jest/globals';
import { decodeKeysetCursor, encodeKeysetCursor } from './index.js';

const isText = (id: unknown): id is string => typeof id === 'string';
const at = new Date('2026-11-24T05:30:00.123Z');
const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('keyset cursors', () => {
  it('give back the position they were made from, for the same tag', () => {
    const cursor = encodeKeysetCursor('endpoints:7', at, 'a1');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeKeysetCursor(cursor, 'endpoints:7', isText)).toEqual({ at, id: 'a1' });
  });

  it('are refused for another tag, another kind of id, or anything they could not have been', () => {
    const cursor = encodeKeysetCursor('endpoints:7', at, 'a1');
    expect(decodeKeysetCursor(cursor, 'endpoints:8', isText)).toBeUndefined();
    expect(decodeKeysetCursor(cursor, 'endpoints:7', (id: unknown): id is number => typeof id === 'number')).toBeUndefined();
    for (const made of [
      'not base64 at all!',
      forged(null),
      forged(42),
      forged(['endpoints:7', at.toISOString(), 'a1']),
      forged({ o: 'endpoints:7', t: '2026-11-24', i: 'a1' }),
      forged({ o: 'endpoints:7', t: '0000-01-01T00:00:00.000Z', i: 'a1' }),
      forged({ o: 'endpoints:7', t: '2026-13-45T00:00:00.000Z', i: 'a1' }),
      forged({ o: 'endpoints:7', t: at.toISOString() }),
    ]) {
      expect({ made, position: decodeKeysetCursor(made, 'endpoints:7', isText) }).toEqual({ made, position: undefined });
    }
  });
});

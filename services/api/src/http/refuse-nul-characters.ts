import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

const pointerToken = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Where in `value` a string or an object key holds U+0000, as a JSON Pointer; undefined when none
 * does. Walked with a list rather than recursion: a body may nest deeper than the call stack.
 */
export function nulCharacterAt(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; pointer: string }> = [{ value, pointer: '' }];
  while (pending.length > 0) {
    const { value: item, pointer } = pending.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\0')) return pointer || '/';
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const childPointer = `${pointer}/${pointerToken(key)}`;
        if (key.includes('\0')) return childPointer;
        pending.push({ value: child, pointer: childPointer });
      }
    }
  }
  return undefined;
}

/**
 * Refuses a body or query holding the character U+0000, in a value or a key, naming where:
 * PostgreSQL text and jsonb cannot store it, and the write would fail as our error (500) instead
 * of the client's.
 */
export const refuseNulCharacters: RequestHandler = (request, _response, next) => {
  const field = nulCharacterAt(request.body) ?? nulCharacterAt(request.query);
  if (field === undefined) return next();
  next(new ApiError('validation_failed', `The request holds the character U+0000 at ${field}, which text cannot contain.`, { field }));
};

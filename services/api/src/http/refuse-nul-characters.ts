import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

/** Where in `value` a string holds U+0000, as a JSON Pointer; undefined when none does. */
export function nulCharacterAt(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? pointer || '/' : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nulCharacterAt(item, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Refuses a body or query holding the character U+0000, naming where: PostgreSQL text and jsonb
 * cannot store it, and the write would fail as our error (500) instead of the client's.
 */
export const refuseNulCharacters: RequestHandler = (request, _response, next) => {
  const field = nulCharacterAt(request.body) ?? nulCharacterAt(request.query);
  if (field === undefined) return next();
  next(new ApiError('validation_failed', `The request holds the character U+0000 at ${field}, which text cannot contain.`, { field }));
};

import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ApiError } from './api-error.js';

/**
 * Text PostgreSQL cannot store, in `text` or `jsonb`: U+0000, and a lone UTF-16 surrogate, which
 * JSON can carry (`"\ud800"`) but is not Unicode. Stored, the first fails the write (a 500) and
 * the second fails it in jsonb or is silently replaced by U+FFFD in text.
 */
const LONE_SURROGATE = /\p{Cs}/u;

function faultIn(text: string): string | undefined {
  if (text.includes('\0')) return 'the character U+0000';
  if (LONE_SURROGATE.test(text)) return 'a lone UTF-16 surrogate';
  return undefined;
}

const pointerToken = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

interface Unstorable {
  /** A JSON Pointer into the value. */
  field: string;
  fault: string;
}

/**
 * Where in `value` a string or an object key holds text that cannot be stored, as a JSON Pointer;
 * undefined when none does. Walked with a list rather than recursion: a body may nest deeper than
 * the call stack.
 */
export function unstorableTextAt(value: unknown): Unstorable | undefined {
  const pending: Array<{ value: unknown; pointer: string }> = [{ value, pointer: '' }];
  while (pending.length > 0) {
    const { value: item, pointer } = pending.pop()!;
    if (typeof item === 'string') {
      const fault = faultIn(item);
      if (fault) return { field: pointer || '/', fault };
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const childPointer = `${pointer}/${pointerToken(key)}`;
        const fault = faultIn(key);
        if (fault) return { field: childPointer, fault };
        pending.push({ value: child, pointer: childPointer });
      }
    }
  }
  return undefined;
}

const decodesAsText = (raw: string) => {
  try {
    decodeURIComponent(raw);
    return true;
  } catch {
    return false;
  }
};

/**
 * The first query parameter, as a JSON Pointer into the query, whose name or value is not
 * percent-encoded UTF-8 (`%ED%A0%80`, a surrogate so encoded, is not). Read from the raw query:
 * the query parser would have replaced those bytes with U+FFFD.
 */
export function undecodableQueryParameter(url: string): string | undefined {
  const start = url.indexOf('?');
  if (start === -1) return undefined;
  for (const pair of url.slice(start + 1).split('&')) {
    const equals = pair.indexOf('=');
    const name = (equals === -1 ? pair : pair.slice(0, equals)).replaceAll('+', ' ');
    const value = equals === -1 ? '' : pair.slice(equals + 1).replaceAll('+', ' ');
    if (!decodesAsText(name)) return `/${pointerToken(name)}`;
    if (!decodesAsText(value)) return `/${pointerToken(decodeURIComponent(name))}`;
  }
  return undefined;
}

function unstorableIn(request: Request): ApiError | undefined {
  const inBody = unstorableTextAt(request.body);
  if (inBody) return refusal(`at ${inBody.field}`, inBody.field, inBody.fault);
  const undecodable = undecodableQueryParameter(request.originalUrl);
  if (undecodable) return refusal(`in the query parameter ${undecodable.slice(1)}`, undecodable, 'bytes that are not UTF-8');
  const inQuery = unstorableTextAt(request.query);
  if (inQuery) return refusal(`in the query parameter ${inQuery.field.slice(1)}`, inQuery.field, inQuery.fault);
  // Known here on /api/v1, where each route reads its body; elsewhere the ids in paths are numbers
  // and uuids, which such text never matches.
  for (const [name, value] of Object.entries(request.params ?? {})) {
    const fault = typeof value === 'string' ? faultIn(value) : undefined;
    if (fault) return refusal(`in the path parameter ${name}`, name, fault);
  }
  return undefined;
}

const refusal = (where: string, field: string, fault: string) =>
  new ApiError('validation_failed', `The request holds ${fault} ${where}, which text cannot contain.`, { field });

/**
 * Refuses a request whose body, query or path parameters hold text that cannot be stored, in a
 * value or a key, naming where. Checked before any schema, so the answer names the text at fault
 * whatever else the request got wrong.
 */
export const refuseUnstorableText: RequestHandler = (request, _response, next) => {
  next(unstorableIn(request));
};

/**
 * Names the path parameter the router could not decode (a surrogate, or other bytes, that are not
 * percent-encoded UTF-8), by the route templates of the OpenAPI document. The router refuses it
 * before any route runs, without saying which parameter.
 */
export function namePathParameterNotText(templates: string[]): ErrorRequestHandler {
  const routes = templates.map((template) => template.split('/'));
  return (error, request, _response, next) => {
    if (!(error instanceof URIError) || (error as { status?: number }).status !== 400) return next(error);
    const segments = request.originalUrl.split('?')[0]!.replace(/(.)\/$/, '$1').split('/');
    for (const route of routes) {
      if (route.length !== segments.length) continue;
      const matches = route.every((part, index) => part.startsWith('{') || part.toLowerCase() === segments[index]!.toLowerCase());
      const at = route.findIndex((part, index) => part.startsWith('{') && !decodesAsText(segments[index]!));
      if (matches && at !== -1) {
        const name = route[at]!.slice(1, -1);
        return next(new ApiError('validation_failed', `The path parameter ${name} is not percent-encoded UTF-8 text.`, { field: name }));
      }
    }
    next(error);
  };
}

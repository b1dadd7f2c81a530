import express from 'express';
import type { RequestHandler } from 'express';
import { refuseNulCharacters } from './refuse-nul-characters.js';
import { requireJsonBody } from './require-json-body.js';

/**
 * Reads a JSON body (at most 256 KB) and refuses one sent as another type, or a body or query
 * holding U+0000. Mounted only once the caller is known (and on /api/v1 once its scope is
 * checked): a revoked key gets its 401, and a key without the scope its 403, whatever the request
 * carried, and the body of a request that is refused anyway is never parsed.
 */
export const readJsonBody: RequestHandler[] = [express.json({ limit: '256kb' }), requireJsonBody, refuseNulCharacters];

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router } from 'express';
import type { RequestHandler } from 'express';
import type { Logger } from '@feedback/logging';
import { ApiError } from './api-error.js';

/**
 * The dashboard page's own files may run, and nothing else: no inline script or style, no other
 * origin. It reaches the system only through /dashboard/v1 on this origin.
 */
export const DASHBOARD_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const pageHeaders: RequestHandler = (_request, response, next) => {
  response.set('Content-Security-Policy', DASHBOARD_CONTENT_SECURITY_POLICY);
  response.set('Referrer-Policy', 'same-origin');
  next();
};

/** Addresses of the page: /dashboard and below, except the API at /dashboard/v1. */
const PAGE_PATH = /^\/dashboard(?!\/v1(?:\/|$))(?:\/.*)?$/;

/**
 * Serves the built dashboard (apps/dashboard/dist) at /dashboard, and its documentation pages at
 * /docs. Every address below /dashboard that is not a file is a page of the app: it gets
 * index.html, and the app's router shows the page or says it does not exist. /dashboard/v1 is the
 * API and never falls through to a page.
 */
export function dashboardPages(directory: string, logger: Logger): Router {
  const router = Router();
  const indexFile = join(directory, 'index.html');
  if (!existsSync(indexFile)) {
    logger.warn('the dashboard is not built: /dashboard answers 404 until `pnpm build` has run', { directory });
    return router;
  }
  router.get('/', (_request, response) => response.redirect(302, '/dashboard/'));
  router.use(PAGE_PATH, pageHeaders);
  // Vite names built assets by their content: they never change, so browsers keep them.
  router.use('/dashboard/assets', express.static(join(directory, 'assets'), { immutable: true, maxAge: '365d', index: false }), (_request, _response, next) =>
    next(new ApiError('not_found', 'No such file.')),
  );
  router.get(PAGE_PATH, (_request, response) => {
    // The page itself is read again on every visit, so a new build reaches browsers at once.
    response.set('Cache-Control', 'no-cache');
    response.sendFile(indexFile);
  });
  router.use('/docs', pageHeaders);
  router.get('/docs', (_request, response) => response.redirect(302, '/docs/api-keys'));
  router.get('/docs/api-keys', (_request, response) => {
    response.set('Cache-Control', 'no-cache');
    response.sendFile(join(directory, 'docs', 'api-keys.html'));
  });
  return router;
}

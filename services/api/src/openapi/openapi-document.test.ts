import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { Router } from 'express';
import { routesOf } from '../http/method-not-allowed.js';
import { apiV1Router } from '../routes/api-v1/api-v1-router.js';
import { dashboardRouter } from '../routes/dashboard-v1/dashboard-router.js';
import type { RouteContext } from '../routes/route-context.js';
import { widgetRouter } from '../routes/widget-v1/widget-router.js';
import { buildOpenApiDocument } from './openapi-document.js';

const document = buildOpenApiDocument({ publicBaseUrl: 'https://api.feedback-platform.io' });
const paths = document.paths as Record<string, Record<string, { security?: unknown[] } | undefined> | undefined>;

/** Every (method, path) a router and the routers it uses answer, paths as OpenAPI writes them. */
function mountedOperations(prefix: string, router: Router): string[] {
  const operations = [...routesOf(router)].flatMap(([path, methods]) =>
    methods.map((method) => `${method.toLowerCase()} ${prefix}${path.replace(/:(\w+)/g, '{$1}')}`),
  );
  for (const layer of router.stack as Array<{ route?: unknown; handle: { stack?: unknown } }>) {
    if (!layer.route && Array.isArray(layer.handle.stack)) operations.push(...mountedOperations(prefix, layer.handle as unknown as Router));
  }
  return operations;
}

describe('the OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules, without a warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('describes every operation the server mounts, and no other', () => {
    // Building the routers calls nothing; the context is only held for requests.
    const context = { rpc: { call: () => Promise.reject(new Error('not called')) }, dashboardTimeoutMs: 1000 } as unknown as RouteContext;
    const mounted = [
      ...mountedOperations('/api/v1', apiV1Router(context, [(_request, _response, next) => next()])),
      ...mountedOperations('/widget/v1', widgetRouter(context)),
      ...mountedOperations('/dashboard/v1', dashboardRouter(context)),
    ];
    const described = Object.entries(paths)
      .filter(([path]) => path !== '/api/v1/openapi.json')
      .flatMap(([path, methods]) => Object.keys(methods ?? {}).map((method) => `${method} ${path}`));
    expect(mounted.length).toBeGreaterThan(30);
    expect([...new Set(mounted)].sort()).toEqual(described.sort());
  });

  it('declares the three security schemes, and the public routes need none', () => {
    expect(Object.keys(document.components.securitySchemes)).toEqual(['secretKey', 'publicKey', 'memberSession']);
    expect(paths['/api/v1/openapi.json']?.['get']?.security).toEqual([]);
    expect(paths['/dashboard/v1/sign-in']?.['post']?.security).toEqual([]);
  });

  it('names the required scope of every /api/v1 operation', () => {
    const operations = Object.entries(paths).filter(([path]) => path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json');
    expect(operations.length).toBeGreaterThanOrEqual(4);
    for (const [, methods] of operations) {
      for (const operation of Object.values(methods ?? {})) expect((operation as Record<string, unknown>)['x-required-scope']).toMatch(/^[a-z]+:(read|write)$/);
    }
  });

  it('never describes a session field in a request body: the acting member comes from the session token sent', () => {
    for (const [path, methods] of Object.entries(paths).filter(([path]) => path.startsWith('/dashboard/v1/'))) {
      for (const [method, operation] of Object.entries(methods ?? {})) {
        expect({ path, method, session: JSON.stringify((operation as { requestBody?: unknown }).requestBody ?? {}).includes('"session"') }).toEqual({ path, method, session: false });
      }
    }
  });
});

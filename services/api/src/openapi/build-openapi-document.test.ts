import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { Router } from 'express';
import { ERROR_STATUS } from '../http/api-error.js';
import { apiV1Router } from '../routes/api-v1/api-v1-router.js';
import { dashboardRouter } from '../routes/dashboard-v1/dashboard-router.js';
import type { RouteContext } from '../routes/route-context.js';
import { widgetRouter } from '../routes/widget-v1/widget-router.js';
import { buildOpenApiDocument } from './build-openapi-document.js';

const document = buildOpenApiDocument({ publicBaseUrl: 'https://api.feedback-platform.io' });
const paths = document.paths as Record<string, Record<string, { security?: unknown[] } | undefined> | undefined>;

/** A route as Express keeps it in a router's stack (a `use` of another router has none). */
interface RouteLayer {
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: unknown };
}

/** Every (method, path) a router and the routers it uses answer, paths as OpenAPI writes them; `all` for a 405. */
function mountedOperations(prefix: string, router: Router): string[] {
  const operations: string[] = [];
  for (const layer of router.stack as RouteLayer[]) {
    if (layer.route) {
      const path = `${prefix}${layer.route.path.replace(/:(\w+)/g, '{$1}')}`;
      operations.push(...Object.keys(layer.route.methods).map((method) => `${method === '_all' ? 'all' : method} ${path}`));
    } else if (Array.isArray(layer.handle.stack)) operations.push(...mountedOperations(prefix, layer.handle as unknown as Router));
  }
  return operations;
}

describe('the OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules, without a warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    // But one: the `listen` WebSocket succeeds with its upgrade, 101, never with a 2xx.
    const listenUpgrade = 'warn operation-2xx-response: Operation must have at least one `2XX` response. at #/paths/~1dashboard~1v1~1apps~1{appId}~1webhooks~1listen/get/responses';
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([listenUpgrade]);
  });

  // The routers and the document are built from the same route definitions; this checks that
  // building them reads every definition, and that each path answers other methods with 405.
  it('describes every operation the routers mount, and no other, and each path answers any other method', () => {
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
    expect(mounted).toEqual(expect.arrayContaining([
      'get /dashboard/v1/session',
      'post /dashboard/v1/session/renew',
      'post /dashboard/v1/sign-out',
      'get /dashboard/v1/apps/{appId}/suggestions/{suggestionId}',
      'get /dashboard/v1/apps/{appId}/suggestions/{suggestionId}/comments',
      'get /dashboard/v1/apps/{appId}/tickets/{ticketId}',
      'get /dashboard/v1/apps/{appId}/tickets/{ticketId}/messages',
    ]));
    const answered = mounted.filter((operation) => !operation.startsWith('all '));
    expect([...new Set(answered)].sort()).toEqual(described.sort());
    const refusedOthers = new Set(mounted.filter((operation) => operation.startsWith('all ')).map((operation) => operation.slice(4)));
    expect(Object.keys(paths).filter((path) => path !== '/api/v1/openapi.json' && !refusedOthers.has(path))).toEqual([]);
  });

  /** Every /dashboard/v1 operation, with its responses. */
  const dashboardOperations = () =>
    Object.entries(paths)
      .filter(([path]) => path.startsWith('/dashboard/v1/'))
      .flatMap(([path, methods]) =>
        Object.entries(methods ?? {}).map(([method, operation]) => ({
          operation: `${method} ${path}`,
          responses: (operation as { responses: Record<string, { content?: { 'application/json'?: { schema?: Record<string, unknown> } } }> }).responses,
        })),
      );

  it('gives every /dashboard/v1 operation one success answer, its body described unless it is 204', () => {
    const operations = dashboardOperations();
    expect(operations.length).toBeGreaterThan(35);
    for (const { operation, responses } of operations) {
      // The `listen` WebSocket's success is its upgrade.
      const successes = Object.entries(responses).filter(([status]) => status.startsWith('2') || status === '101');
      const described = successes.map(([status, response]) => {
        const schema = response.content?.['application/json']?.schema;
        return { status, described: status === '204' || status === '101' ? schema === undefined : schema !== undefined && ['$ref', 'properties'].some((key) => key in schema) };
      });
      expect({ operation, described }).toEqual({ operation, described: [{ status: expect.any(String), described: true }] });
    }
  });

  it('names the codes of every /dashboard/v1 error answer, each a code answered with that status', () => {
    for (const { operation, responses } of dashboardOperations()) {
      for (const [status, response] of Object.entries(responses).filter(([code]) => !code.startsWith('2') && code !== '101')) {
        const schema = response.content?.['application/json']?.schema as { properties?: { error?: { enum?: string[] } } } | undefined;
        const codes = schema?.properties?.error?.enum ?? [];
        const misplaced = codes.filter((code) => String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]) !== status);
        expect({ operation, status, named: codes.length > 0, misplaced }).toEqual({ operation, status, named: true, misplaced: [] });
      }
    }
  });

  it('tells a member route its 401 invalid_session, and only the routes that need a role their 403 insufficient_role', () => {
    const codesOf = (path: string, method: string, status: string) =>
      (paths[path]?.[method] as { responses: Record<string, { content: { 'application/json': { schema: { properties: { error: { enum: string[] } } } } } }> } | undefined)
        ?.responses[status]?.content['application/json'].schema.properties.error.enum;
    expect(codesOf('/dashboard/v1/session/renew', 'post', '401')).toEqual(['invalid_session']);
    expect(codesOf('/dashboard/v1/sign-in', 'post', '401')).toEqual(['invalid_credentials']);
    expect(codesOf('/dashboard/v1/apps/{appId}/suggestions/{suggestionId}', 'get', '403')).toBeUndefined();
    expect(codesOf('/dashboard/v1/apps/{appId}/api-key/rotate', 'post', '403')).toEqual(['insufficient_role']);
    expect(codesOf('/dashboard/v1/apps/{appId}/api-key/rotate', 'post', '409')).toBeUndefined();
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

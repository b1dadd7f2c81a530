import { describe, expect, it } from '@jest/globals';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { DASHBOARD_ROUTES } from '../routes/dashboard-v1/dashboard-routes.js';
import { buildOpenApiDocument } from './openapi-document.js';

const document = buildOpenApiDocument({ publicBaseUrl: 'https://api.feedback-platform.io' });
const paths = document.paths as Record<string, Record<string, { security?: unknown[] } | undefined> | undefined>;

describe('the OpenAPI document', () => {
  it('passes the Redocly linter with its recommended rules, without a warning', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`)).toEqual([]);
  });

  it('describes every dashboard route the server mounts', () => {
    for (const route of DASHBOARD_ROUTES) {
      const path = `/dashboard/v1${route.path.replace(/:(\w+)/g, '{$1}')}`;
      expect(paths[path]?.[route.method]).toBeDefined();
    }
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

  it('never describes an actor field in a request body: the acting member comes from the session', () => {
    expect(JSON.stringify(paths['/dashboard/v1/apps/{appId}/api-key'])).not.toContain('"actor"');
  });
});

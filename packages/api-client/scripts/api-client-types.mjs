// The client's types, generated from the api's OpenAPI document: shared by the generation script
// and the drift test, so both produce the same text from the same document.
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = `// Generated from the api's OpenAPI document (/api/v1 operations) by
// packages/api-client/scripts/generate-types.mjs. Do not edit: run \`pnpm --filter @feedback/api-client generate\`.
/* eslint-disable */
`;

/** Keeps only the /api/v1 operations (the client's surface) and every schema. */
export function restSurfaceOf(document) {
  const paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith('/api/v1/') && path !== '/api/v1/openapi.json'));
  return { ...document, paths };
}

export async function generateApiClientTypes(document) {
  const ast = await openapiTS(restSurfaceOf(document), { exportType: false, alphabetize: true });
  return HEADER + astToString(ast);
}

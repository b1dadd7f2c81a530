// The client's types, generated from the api's OpenAPI document: shared by the generation script
// and the drift test, so both produce the same text from the same document. The end-to-end tests
// also generate the dashboard's, as the dashboard page's client is generated.
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = `// Generated from the api's OpenAPI document (/api/v1 operations) by
// packages/api-client/scripts/generate-types.mjs. Do not edit: run \`pnpm --filter @feedback/api-client generate\`.
/* eslint-disable */
`;

/** Keeps the operations under `prefix` (never the document's own path) and every schema. */
function surfaceOf(document, prefix) {
  const paths = Object.fromEntries(Object.entries(document.paths).filter(([path]) => path.startsWith(prefix) && path !== '/api/v1/openapi.json'));
  return { ...document, paths };
}

/** Keeps only the /api/v1 operations (the client's surface) and every schema. */
export function restSurfaceOf(document) {
  return surfaceOf(document, '/api/v1/');
}

export async function generateApiClientTypes(document) {
  const ast = await openapiTS(restSurfaceOf(document), { exportType: false, alphabetize: true });
  return HEADER + astToString(ast);
}

/** The types openapi-typescript gives the operations under `prefix`, as a client of that surface (the dashboard page's) is generated. */
export async function surfaceTypes(document, prefix) {
  return astToString(await openapiTS(surfaceOf(document, prefix), { exportType: false, alphabetize: true }));
}

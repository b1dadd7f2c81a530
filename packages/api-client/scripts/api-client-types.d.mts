/** Keeps only the /api/v1 operations (the client's surface) and every schema. */
export function restSurfaceOf(document: { paths: Record<string, unknown> }): unknown;
/** The text of src/generated/api-v1.ts for this OpenAPI document. */
export function generateApiClientTypes(document: unknown): Promise<string>;
/** The types openapi-typescript gives the operations under `prefix`, as a client of that surface (the dashboard page's) is generated. */
export function surfaceTypes(document: unknown, prefix: string): Promise<string>;

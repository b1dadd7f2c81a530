export { runMigrations, MigrationError } from './migrations.js';
export type { MigrationOptions } from './migrations.js';
export { createPool, createPrismaAdapter } from './prisma-adapter.js';
export { DEFAULT_POOL_SIZE, databasePoolSizeVariable } from './pool-size.js';
export type { PoolOptions } from './prisma-adapter.js';
export { deleteInBatches } from './delete-in-batches.js';
export { isDatabaseUnavailable, isTransactionConflict, postgresErrorCode, retryOnConflict } from './conflicts.js';
export { decodeKeysetCursor, encodeKeysetCursor } from './keyset-cursor.js';
export type { KeysetPosition } from './keyset-cursor.js';

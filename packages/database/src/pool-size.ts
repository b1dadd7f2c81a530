import { integer } from '@feedback/config';

/** Connections a service's pool keeps at most, unless told otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/** `DATABASE_POOL_SIZE`, read the same way by every service. */
export const databasePoolSizeVariable = integer({
  env: 'DATABASE_POOL_SIZE',
  description: "connections this process keeps to PostgreSQL at most; mind the server's max_connections across every replica",
  default: DEFAULT_POOL_SIZE,
  min: 1,
  max: 200,
});

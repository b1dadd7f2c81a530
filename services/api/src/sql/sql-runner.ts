import type pg from 'pg';
import type { Prisma } from '../database.js';

/**
 * A statement the hot paths run as plain SQL. Its name makes pg prepare it once per connection
 * and then run it by name: no parse or plan per request.
 */
export interface Statement {
  name: string;
  text: string;
}

/**
 * Where a statement runs: straight on the pool (one statement, its own transaction), or inside a
 * Prisma transaction when the caller holds one (an Idempotency-Key's claim, a dashboard action).
 * Statements run through either return only text and integer columns, which both read alike.
 */
export interface SqlRunner {
  rows<R>(statement: Statement, values: readonly unknown[]): Promise<R[]>;
  /** Whether each statement is its own transaction, so that one may carry several requests' writes. */
  readonly gathers: boolean;
}

/** Each statement on a pooled connection of its own, committed on its own. */
export function poolRunner(pool: pg.Pool): SqlRunner {
  return {
    gathers: true,
    async rows<R>(statement: Statement, values: readonly unknown[]) {
      const result = await pool.query({ name: statement.name, text: statement.text, values: values as unknown[] });
      return result.rows as R[];
    },
  };
}

/** Each statement inside the caller's Prisma transaction. */
export function transactionRunner(tx: Prisma.TransactionClient): SqlRunner {
  return {
    gathers: false,
    rows: <R>(statement: Statement, values: readonly unknown[]) => tx.$queryRawUnsafe<R[]>(statement.text, ...values),
  };
}

/** A runner as given, or one on the Prisma transaction given instead. */
export function runnerOf(where: SqlRunner | Prisma.TransactionClient): SqlRunner {
  return 'rows' in where && typeof where.rows === 'function' ? (where as SqlRunner) : transactionRunner(where as Prisma.TransactionClient);
}

/** SQL of a `timestamptz(3)` as `Date.toISOString` writes it, for JSON built by PostgreSQL. */
export const isoTime = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

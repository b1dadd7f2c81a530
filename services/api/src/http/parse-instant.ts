import { ApiError } from './api-error.js';

/** 0001-01-01T00:00:00Z: PostgreSQL has no year zero. */
export const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00Z');

/**
 * A `date-time` query parameter as a Date. The schema's format admits text that names no instant
 * JavaScript can hold (a leap second such as 23:59:60, an offset of hours only), which would reach
 * the database as Invalid Date, and year 0000, which PostgreSQL has not got (there is no year
 * zero); they are refused here, naming the parameter.
 */
export function parseInstant(value: string, parameter: string): Date {
  const instant = new Date(value);
  if (Number.isNaN(instant.getTime()) || instant.getTime() < EARLIEST_INSTANT || instant.getUTCFullYear() > 9999) {
    throw new ApiError('validation_failed', `${parameter} is not an instant we can read: use an ISO 8601 time such as 2024-06-30T23:59:59Z.`, {
      field: `/${parameter}`,
    });
  }
  return instant;
}

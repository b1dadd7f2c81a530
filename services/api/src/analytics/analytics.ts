import { SUGGESTION_STATUSES, TICKET_STATUSES, defineContract } from '@feedback/contracts';
import type { PrismaClient } from '../database.js';
import { ApiError } from '../http/api-error.js';
import { EARLIEST_INSTANT, parseInstant } from '../http/parse-instant.js';

export const analyticsQueryContract = defineContract('analytics-query', {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { type: 'string', format: 'date-time', description: 'Start of the period, inclusive. Default: 30 days before `to`.' },
    to: { type: 'string', format: 'date-time', description: 'End of the period, exclusive. Default: now.' },
  },
} as const);

const byStatus = (statuses: readonly string[]) =>
  ({ type: 'object', required: statuses, additionalProperties: false, properties: Object.fromEntries(statuses.map((status) => [status, { type: 'integer' }])) }) as const;

/** The answer of GET /api/v1/analytics. */
export const analyticsResultSchema = {
  type: 'object',
  required: ['period', 'suggestions', 'tickets', 'survey_responses'],
  additionalProperties: false,
  properties: {
    period: {
      type: 'object',
      required: ['from', 'to'],
      additionalProperties: false,
      properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
    },
    suggestions: {
      type: 'object',
      required: ['created', 'by_status'],
      additionalProperties: false,
      properties: { created: { type: 'integer' }, by_status: byStatus(SUGGESTION_STATUSES) },
    },
    tickets: {
      type: 'object',
      required: ['created', 'by_status'],
      additionalProperties: false,
      properties: { created: { type: 'integer' }, by_status: byStatus(TICKET_STATUSES) },
    },
    survey_responses: {
      type: 'object',
      required: ['count', 'scored', 'average_score', 'nps'],
      additionalProperties: false,
      properties: {
        count: { type: 'integer' },
        scored: { type: 'integer', description: 'Responses with a score.' },
        average_score: { type: ['number', 'null'] },
        nps: { type: ['integer', 'null'], description: 'Net Promoter Score, -100 to 100: % of 9-10 minus % of 0-6.' },
      },
    },
  },
};

const MAX_PERIOD_DAYS = 366;

function zeroes<const S extends readonly string[]>(statuses: S): Record<S[number], number> {
  return Object.fromEntries(statuses.map((status) => [status, 0])) as Record<S[number], number>;
}

/**
 * Counts for one app over a period: suggestions and tickets created in it, by their current
 * status; survey responses in it, their average score and Net Promoter Score (scores 0 to 10).
 */
export async function analyticsFor(prisma: PrismaClient, appId: number, query: unknown) {
  const parsed = analyticsQueryContract.parse(query);
  const to = parsed.to ? parseInstant(parsed.to, 'to') : new Date();
  // Thirty days before `to`, but not before the first year PostgreSQL holds (there is no year zero).
  const from = parsed.from ? parseInstant(parsed.from, 'from') : new Date(Math.max(to.getTime() - 30 * 86_400_000, EARLIEST_INSTANT));
  if (from >= to) throw new ApiError('validation_failed', '`from` must be before `to`.', { field: '/from' });
  if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * 86_400_000) {
    throw new ApiError('validation_failed', `The period may be at most ${MAX_PERIOD_DAYS} days.`, { field: '/from' });
  }
  const inPeriod = { appId, createdAt: { gte: from, lt: to } };
  const [suggestions, tickets, surveys, promoters, detractors] = await Promise.all([
    prisma.suggestion.groupBy({ by: ['status'], where: inPeriod, _count: { _all: true } }),
    prisma.ticket.groupBy({ by: ['status'], where: inPeriod, _count: { _all: true } }),
    prisma.surveyResponse.aggregate({ where: inPeriod, _count: { _all: true, score: true }, _avg: { score: true } }),
    prisma.surveyResponse.count({ where: { ...inPeriod, score: { gte: 9 } } }),
    prisma.surveyResponse.count({ where: { ...inPeriod, score: { lte: 6 } } }),
  ]);
  const suggestionsByStatus = zeroes(SUGGESTION_STATUSES);
  for (const group of suggestions) suggestionsByStatus[group.status] = group._count._all;
  const ticketsByStatus = zeroes(TICKET_STATUSES);
  for (const group of tickets) ticketsByStatus[group.status] = group._count._all;
  const scored = surveys._count.score;
  return {
    period: { from: from.toISOString(), to: to.toISOString() },
    suggestions: { created: suggestions.reduce((sum, group) => sum + group._count._all, 0), by_status: suggestionsByStatus },
    tickets: { created: tickets.reduce((sum, group) => sum + group._count._all, 0), by_status: ticketsByStatus },
    survey_responses: {
      count: surveys._count._all,
      scored: scored,
      average_score: surveys._avg.score === null ? null : Math.round(surveys._avg.score * 100) / 100,
      nps: scored === 0 ? null : Math.round(((promoters - detractors) / scored) * 100),
    },
  };
}

import { Router } from 'express';
import { idParameter } from '../../openapi/openapi-parts.js';
import type { Actor } from '../../product/actor.js';
import {
  recordId,
  widgetCommentRequest,
  widgetReplyRequest,
  widgetSuggestionRequest,
  widgetSurveyResponseRequest,
  widgetTicketRequest,
} from '../../product/request-schemas.js';
import { commentOnSuggestion, createSuggestion } from '../../suggestions/suggestion-commands.js';
import { submitSurveyResponse } from '../../surveys/survey-commands.js';
import { addTicketMessage, openTicket } from '../../tickets/ticket-commands.js';
import type { RouteContext } from '../route-context.js';
import { mountRoutes } from '../route-definition.js';
import type { RouteDefinition } from '../route-definition.js';
import { widgetRoute } from './widget-route.js';

const endUser = (user: { external_id: string; name?: string | null }): Actor => ({ type: 'app_user', externalId: user.external_id, name: user.name ?? null });

/**
 * /widget/v1: what an end user does from the app's widget, authenticated by the app's public
 * key; the user names themselves with the customer's `external_id`. Every action is one
 * transaction that writes its event to the outbox.
 */
export const WIDGET_ROUTES: readonly RouteDefinition<RouteContext>[] = [
  widgetRoute({
    path: '/suggestions',
    operationId: 'widgetCreateSuggestion',
    summary: 'An end user submits a suggestion.',
    body: widgetSuggestionRequest,
    result: 'Suggestion',
    work: (tx, app, input) => createSuggestion(tx, app, { title: input.title, body: input.body ?? null, author: input.user }),
  }),
  widgetRoute({
    path: '/suggestions/:suggestionId/comments',
    operationId: 'widgetComment',
    summary: 'An end user comments on a suggestion.',
    body: widgetCommentRequest,
    result: 'Comment',
    parameters: [idParameter('suggestionId')],
    work: (tx, app, input, request) => commentOnSuggestion(tx, app, recordId(request.params['suggestionId']), input.body, endUser(input.user)),
  }),
  widgetRoute({
    path: '/tickets',
    operationId: 'widgetOpenTicket',
    summary: 'An end user opens a ticket.',
    body: widgetTicketRequest,
    result: 'Ticket',
    work: (tx, app, input) => openTicket(tx, app, { subject: input.subject, body: input.body, author: input.user }),
  }),
  widgetRoute({
    path: '/tickets/:ticketId/replies',
    operationId: 'widgetReply',
    summary: 'An end user replies to their own ticket (reopens it if pending or solved).',
    body: widgetReplyRequest,
    result: 'TicketMessage',
    parameters: [idParameter('ticketId')],
    work: (tx, app, input, request) =>
      addTicketMessage(tx, app, recordId(request.params['ticketId']), { body: input.body, visibility: 'public' }, endUser(input.user)),
  }),
  widgetRoute({
    path: '/survey-responses',
    operationId: 'widgetSurveyResponse',
    summary: 'An end user answers a survey.',
    body: widgetSurveyResponseRequest,
    result: 'SurveyResponse',
    work: (tx, app, input) => submitSurveyResponse(tx, app, input),
  }),
];

/** Every /widget/v1 route, behind the surface's limit, public key check and body read. */
export function widgetRouter(context: RouteContext): Router {
  const router = Router();
  mountRoutes(router, WIDGET_ROUTES, context);
  return router;
}

import type { Request } from 'express';
import { PAGE_LIMIT } from '@feedback/contracts';
import { idParameter, json, listQueryTypes, pageOf, ref } from '../../../openapi/openapi-parts.js';
import { sendJson } from '../../../pagination/json-page.js';
import { listQueryContract, parseListQuery } from '../../../pagination/list-query.js';
import { threadPage } from '../../../pagination/page-parameters.js';
import type { Actor } from '../../../product/actor.js';
import { memberCommentRequest, recordId, suggestionStatusRequest, ticketMessageRequest, ticketStatusRequest } from '../../../product/request-schemas.js';
import { boardCommentSchema, boardMessageSchema, suggestionDetailSchema, threadPageSchema, ticketDetailSchema } from '../../../product/view-schemas.js';
import { listSuggestions } from '../../../suggestions/list-suggestions.js';
import { changeSuggestionStatus, commentOnSuggestion } from '../../../suggestions/suggestion-commands.js';
import { commentsTag, suggestionComments, suggestionDetail } from '../../../suggestions/suggestion-detail.js';
import { listTickets } from '../../../tickets/list-tickets.js';
import { addTicketMessage, changeTicketStatus } from '../../../tickets/ticket-commands.js';
import { messagesTag, ticketDetail, ticketMessages } from '../../../tickets/ticket-detail.js';
import { productAction } from '../../product-action.js';
import type { RouteContext } from '../../route-context.js';
import type { RouteDefinition } from '../../route-definition.js';
import { boardRoute } from './board-route.js';

const memberOf = (request: Request): Actor => ({ type: 'member', memberId: request.member!.member_id, name: request.member!.name });
const appOf = (request: Request) => request.boardApp!;
const appParameter = idParameter('appId');
// The paging of a suggestion's comments and a ticket's messages.
const threadParameters = [
  { name: 'cursor', in: 'query', required: false, description: "The previous page's `next_cursor`.", schema: { type: 'string' } },
  { name: 'limit', in: 'query', required: false, description: 'Items per page.', schema: { type: 'integer', minimum: 1, maximum: PAGE_LIMIT.max, default: PAGE_LIMIT.default } },
];

/**
 * What team members do with feedback from the dashboard (any role): read the board, a suggestion
 * with its comments and a ticket with its messages; move suggestions on the board, comment, reply
 * to tickets publicly or add internal notes, change ticket status. The app must belong to the
 * member's team (asked of the authority first, on every route).
 */
export const BOARD_ROUTES: readonly RouteDefinition<RouteContext>[] = [
  boardRoute({
    method: 'get',
    path: '/apps/:appId/suggestions',
    operationId: 'boardSuggestions',
    summary: "The app's suggestions (same paging as the REST API).",
    success: { '200': { description: 'One page.', content: json(pageOf('Suggestion')) } },
    codes: ['not_found', 'invalid_cursor'],
    parameters: [appParameter],
    query: listQueryContract,
    queryTypes: listQueryTypes,
    handler: (context) => async (request, response) => {
      const app = appOf(request);
      sendJson(response, await listSuggestions(context.sql, app.id, parseListQuery(request.query, { records: 'suggestions', appId: app.id })));
    },
  }),
  boardRoute({
    method: 'get',
    path: '/apps/:appId/tickets',
    operationId: 'inboxTickets',
    summary: "The app's tickets (same paging as the REST API).",
    success: { '200': { description: 'One page.', content: json(pageOf('Ticket')) } },
    codes: ['not_found', 'invalid_cursor'],
    parameters: [appParameter],
    query: listQueryContract,
    queryTypes: listQueryTypes,
    handler: (context) => async (request, response) => {
      const app = appOf(request);
      response.json(await listTickets(context.prisma, app.id, parseListQuery(request.query, { records: 'tickets', appId: app.id })));
    },
  }),
  boardRoute({
    method: 'get',
    path: '/apps/:appId/suggestions/:suggestionId',
    operationId: 'getSuggestion',
    summary: 'One suggestion, as the board lists it, with the statuses it may move to now.',
    success: { '200': { description: 'The suggestion.', content: json(suggestionDetailSchema) } },
    codes: ['not_found'],
    parameters: [appParameter, idParameter('suggestionId')],
    handler: (context) => async (request, response) => {
      response.json(await suggestionDetail(context.prisma, appOf(request).id, recordId(request.params['suggestionId'])));
    },
  }),
  boardRoute({
    method: 'get',
    path: '/apps/:appId/suggestions/:suggestionId/comments',
    operationId: 'listComments',
    summary: "The suggestion's comments, oldest first, each with its author: a member or an end user.",
    success: { '200': { description: 'One page.', content: json(threadPageSchema(boardCommentSchema)) } },
    codes: ['not_found', 'invalid_cursor'],
    parameters: [appParameter, idParameter('suggestionId'), ...threadParameters],
    handler: (context) => async (request, response) => {
      const app = appOf(request);
      const suggestionId = recordId(request.params['suggestionId']);
      response.json(await suggestionComments(context.prisma, app.id, suggestionId, threadPage(request.query, commentsTag(app.id, suggestionId))));
    },
  }),
  boardRoute({
    method: 'get',
    path: '/apps/:appId/tickets/:ticketId',
    operationId: 'getTicket',
    summary: 'One ticket, as the board lists it, with the statuses it may move to now.',
    success: { '200': { description: 'The ticket.', content: json(ticketDetailSchema) } },
    codes: ['not_found'],
    parameters: [appParameter, idParameter('ticketId')],
    handler: (context) => async (request, response) => {
      response.json(await ticketDetail(context.prisma, appOf(request).id, recordId(request.params['ticketId'])));
    },
  }),
  boardRoute({
    method: 'get',
    path: '/apps/:appId/tickets/:ticketId/messages',
    operationId: 'listMessages',
    summary: "The ticket's messages, public replies and internal notes, oldest first, each with its sender.",
    success: { '200': { description: 'One page.', content: json(threadPageSchema(boardMessageSchema)) } },
    codes: ['not_found', 'invalid_cursor'],
    parameters: [appParameter, idParameter('ticketId'), ...threadParameters],
    handler: (context) => async (request, response) => {
      const app = appOf(request);
      const ticketId = recordId(request.params['ticketId']);
      response.json(await ticketMessages(context.prisma, app.id, ticketId, threadPage(request.query, messagesTag(app.id, ticketId))));
    },
  }),
  boardRoute({
    method: 'patch',
    path: '/apps/:appId/suggestions/:suggestionId',
    operationId: 'changeSuggestionStatus',
    summary: 'Moves a suggestion on the board; emits suggestion.status_changed.',
    success: { '200': { description: 'The suggestion.', content: json(ref('Suggestion')) } },
    codes: ['not_found', 'invalid_transition'],
    parameters: [appParameter, idParameter('suggestionId')],
    body: suggestionStatusRequest,
    handler: (context) => productAction(context, appOf, 200, (tx, app, input, request) =>
      changeSuggestionStatus(tx, app, recordId(request.params['suggestionId']), input.status, memberOf(request)),
    ),
  }),
  boardRoute({
    method: 'post',
    path: '/apps/:appId/suggestions/:suggestionId/comments',
    operationId: 'commentAsMember',
    summary: 'Comments on a suggestion as the team; emits suggestion.commented.',
    success: { '201': { description: 'The comment.', content: json(ref('Comment')) } },
    codes: ['not_found'],
    parameters: [appParameter, idParameter('suggestionId')],
    body: memberCommentRequest,
    handler: (context) => productAction(context, appOf, 201, (tx, app, input, request) =>
      commentOnSuggestion(tx, app, recordId(request.params['suggestionId']), input.body, memberOf(request)),
    ),
  }),
  boardRoute({
    method: 'patch',
    path: '/apps/:appId/tickets/:ticketId',
    operationId: 'changeTicketStatus',
    summary: "Changes a ticket's status; emits ticket.status_changed.",
    success: { '200': { description: 'The ticket.', content: json(ref('Ticket')) } },
    codes: ['not_found', 'invalid_transition'],
    parameters: [appParameter, idParameter('ticketId')],
    body: ticketStatusRequest,
    handler: (context) => productAction(context, appOf, 200, (tx, app, input, request) =>
      changeTicketStatus(tx, app, recordId(request.params['ticketId']), input.status, memberOf(request)),
    ),
  }),
  boardRoute({
    method: 'post',
    path: '/apps/:appId/tickets/:ticketId/messages',
    operationId: 'replyOrNote',
    summary: 'A public reply (emits ticket.replied, sender_type agent) or an internal note (no event).',
    success: { '201': { description: 'The message.', content: json(ref('TicketMessage')) } },
    codes: ['not_found', 'ticket_closed'],
    parameters: [appParameter, idParameter('ticketId')],
    body: ticketMessageRequest,
    handler: (context) => productAction(context, appOf, 201, (tx, app, input, request) =>
      addTicketMessage(tx, app, recordId(request.params['ticketId']), input, memberOf(request)),
    ),
  }),
];

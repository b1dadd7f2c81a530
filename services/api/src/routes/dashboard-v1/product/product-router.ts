import { Router } from 'express';
import type { Request } from 'express';
import { answerOtherMethods } from '../../../http/method-not-allowed.js';
import { parseListQuery } from '../../../pagination/list-query.js';
import { threadPage } from '../../../pagination/page-parameters.js';
import type { Actor, AppRef } from '../../../product/actor.js';
import { memberCommentRequest, recordId, suggestionStatusRequest, ticketMessageRequest, ticketStatusRequest } from '../../../product/request-schemas.js';
import { listSuggestions } from '../../../suggestions/list-suggestions.js';
import { changeSuggestionStatus, commentOnSuggestion } from '../../../suggestions/suggestion-commands.js';
import { commentsTag, suggestionComments, suggestionDetail } from '../../../suggestions/suggestion-detail.js';
import { listTickets } from '../../../tickets/list-tickets.js';
import { addTicketMessage, changeTicketStatus } from '../../../tickets/ticket-commands.js';
import { messagesTag, ticketDetail, ticketMessages } from '../../../tickets/ticket-detail.js';
import type { RouteContext } from '../../route-context.js';
import { productAction } from '../../product-action.js';

const memberOf = (request: Request): Actor => ({ type: 'member', memberId: request.member!.member_id, name: request.member!.name });

/**
 * What team members do with feedback from the dashboard (any role): read the board, a suggestion
 * with its comments and a ticket with its messages; move suggestions on the board, comment, reply
 * to tickets publicly or add internal notes, change ticket status. The app must belong to the
 * member's team (asked of the authority first, on every route).
 */
export function productRouter(context: RouteContext): Router {
  const router = Router();
  const appOf = async (request: Request): Promise<AppRef> => {
    const app = await context.rpc.call(
      'authority.getApp',
      { app_id: recordId(request.params['appId']), session: request.member!.token },
      { timeoutMs: context.dashboardTimeoutMs },
    );
    return { id: app.id, public_key: app.public_key };
  };
  const act = (status: number, work: Parameters<typeof productAction>[3]) => productAction(context, appOf, status, work);

  router.get('/apps/:appId/suggestions', async (request, response) => {
    const app = await appOf(request);
    response.json(await listSuggestions(context.prisma, app.id, parseListQuery(request.query, { records: 'suggestions', appId: app.id })));
  });
  router.get('/apps/:appId/tickets', async (request, response) => {
    const app = await appOf(request);
    response.json(await listTickets(context.prisma, app.id, parseListQuery(request.query, { records: 'tickets', appId: app.id })));
  });
  router.get('/apps/:appId/suggestions/:suggestionId', async (request, response) => {
    const app = await appOf(request);
    response.json(await suggestionDetail(context.prisma, app.id, recordId(request.params['suggestionId'])));
  });
  router.get('/apps/:appId/suggestions/:suggestionId/comments', async (request, response) => {
    const app = await appOf(request);
    const suggestionId = recordId(request.params['suggestionId']);
    response.json(await suggestionComments(context.prisma, app.id, suggestionId, threadPage(request.query, commentsTag(app.id, suggestionId))));
  });
  router.get('/apps/:appId/tickets/:ticketId', async (request, response) => {
    const app = await appOf(request);
    response.json(await ticketDetail(context.prisma, app.id, recordId(request.params['ticketId'])));
  });
  router.get('/apps/:appId/tickets/:ticketId/messages', async (request, response) => {
    const app = await appOf(request);
    const ticketId = recordId(request.params['ticketId']);
    response.json(await ticketMessages(context.prisma, app.id, ticketId, threadPage(request.query, messagesTag(app.id, ticketId))));
  });
  router.patch('/apps/:appId/suggestions/:suggestionId', act(200, (tx, app, request) =>
    changeSuggestionStatus(tx, app, recordId(request.params['suggestionId']), suggestionStatusRequest.parse(request.body).status, memberOf(request)),
  ));
  router.post('/apps/:appId/suggestions/:suggestionId/comments', act(201, (tx, app, request) =>
    commentOnSuggestion(tx, app, recordId(request.params['suggestionId']), memberCommentRequest.parse(request.body).body, memberOf(request)),
  ));
  router.patch('/apps/:appId/tickets/:ticketId', act(200, (tx, app, request) =>
    changeTicketStatus(tx, app, recordId(request.params['ticketId']), ticketStatusRequest.parse(request.body).status, memberOf(request)),
  ));
  router.post('/apps/:appId/tickets/:ticketId/messages', act(201, (tx, app, request) =>
    addTicketMessage(tx, app, recordId(request.params['ticketId']), ticketMessageRequest.parse(request.body), memberOf(request)),
  ));
  answerOtherMethods(router);
  return router;
}

import { Router } from 'express';
import type { Request } from 'express';
import { answerOtherMethods } from '../../../http/method-not-allowed.js';
import { parseListQuery } from '../../../pagination/list-query.js';
import type { Actor, AppRef } from '../../../product/actor.js';
import { memberCommentRequest, recordId, suggestionStatusRequest, ticketMessageRequest, ticketStatusRequest } from '../../../product/request-schemas.js';
import { listSuggestions } from '../../../suggestions/list-suggestions.js';
import { changeSuggestionStatus, commentOnSuggestion } from '../../../suggestions/suggestion-commands.js';
import { listTickets } from '../../../tickets/list-tickets.js';
import { addTicketMessage, changeTicketStatus } from '../../../tickets/ticket-commands.js';
import type { RouteContext } from '../../route-context.js';
import { productAction } from '../../product-action.js';

const memberOf = (request: Request): Actor => ({ type: 'member', memberId: request.member!.member_id, name: request.member!.name });

/**
 * What team members do with feedback from the dashboard (any role): move suggestions on the
 * board, comment, reply to tickets publicly or add internal notes, change ticket status. The app
 * must belong to the member's team (asked of the authority).
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

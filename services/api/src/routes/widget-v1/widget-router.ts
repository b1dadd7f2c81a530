import { Router } from 'express';
import { methodNotAllowed } from '../../http/method-not-allowed.js';
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
import { productAction } from '../product-action.js';

const endUser = (user: { external_id: string; name?: string | null }): Actor => ({ type: 'app_user', externalId: user.external_id, name: user.name ?? null });

/**
 * /widget/v1: what an end user does from the app's widget, authenticated by the app's public
 * key; the user names themselves with the customer's `external_id`. Every action is one
 * transaction that writes its event to the outbox.
 */
export function widgetRouter(context: RouteContext): Router {
  const router = Router();
  const act = (status: number, work: Parameters<typeof productAction>[3]) => productAction(context, (request) => request.widgetApp!.app, status, work);

  router.post('/suggestions', act(201, (tx, app, request) => {
    const input = widgetSuggestionRequest.parse(request.body);
    return createSuggestion(tx, app, { title: input.title, body: input.body ?? null, author: input.user });
  }));
  router.post('/suggestions/:suggestionId/comments', act(201, (tx, app, request) => {
    const input = widgetCommentRequest.parse(request.body);
    return commentOnSuggestion(tx, app, recordId(request.params['suggestionId']), input.body, endUser(input.user));
  }));
  router.post('/tickets', act(201, (tx, app, request) => {
    const input = widgetTicketRequest.parse(request.body);
    return openTicket(tx, app, { subject: input.subject, body: input.body, author: input.user });
  }));
  router.post('/tickets/:ticketId/replies', act(201, (tx, app, request) => {
    const input = widgetReplyRequest.parse(request.body);
    return addTicketMessage(tx, app, recordId(request.params['ticketId']), { body: input.body, visibility: 'public' }, endUser(input.user));
  }));
  router.post('/survey-responses', act(201, (tx, app, request) => {
    const input = widgetSurveyResponseRequest.parse(request.body);
    return submitSurveyResponse(tx, app, input);
  }));
  for (const path of ['/suggestions', '/suggestions/:suggestionId/comments', '/tickets', '/tickets/:ticketId/replies', '/survey-responses']) {
    router.all(path, methodNotAllowed(['POST']));
  }
  return router;
}

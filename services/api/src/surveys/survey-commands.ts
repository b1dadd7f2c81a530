import type { Prisma } from '../database.js';
import { writeEvent } from '../outbox/write-event.js';
import { senderOf } from '../product/actor.js';
import type { AppRef } from '../product/actor.js';

/**
 * Records a survey response. The respondent is always the sender, so `author` and `sender`
 * match; the event keeps the legacy `app_user_id` beside `author` (specification 2.6 rule 3).
 */
export async function submitSurveyResponse(
  tx: Prisma.TransactionClient,
  app: AppRef,
  input: { survey_id: string; score?: number | null; answers?: Record<string, string | number | boolean | null>; user: { external_id: string; name?: string | null } },
) {
  const author = { external_id: input.user.external_id, name: input.user.name ?? null };
  const response = await tx.surveyResponse.create({
    data: {
      appId: app.id,
      surveyId: input.survey_id,
      score: input.score ?? null,
      answers: input.answers ?? {},
      respondentExternalId: author.external_id,
      respondentName: author.name,
    },
  });
  const view = {
    id: response.id,
    survey_id: response.surveyId,
    score: response.score,
    answers: response.answers as Record<string, string | number | boolean | null>,
    created_at: response.createdAt.toISOString(),
  };
  await writeEvent(tx, {
    event: 'survey.response.created',
    app,
    created_at: response.createdAt,
    data: {
      response: view,
      app_user_id: author.external_id,
      author,
      sender: senderOf({ type: 'app_user', externalId: author.external_id, name: author.name }),
    },
  });
  return view;
}

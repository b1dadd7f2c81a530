CREATE TYPE "SuggestionStatus" AS ENUM ('open', 'under_review', 'planned', 'in_progress', 'completed', 'declined');
CREATE TYPE "TicketStatus" AS ENUM ('open', 'pending', 'solved', 'closed');
CREATE TYPE "MessageVisibility" AS ENUM ('public', 'internal');
CREATE TYPE "SenderType" AS ENUM ('agent', 'app_user');

ALTER TABLE "suggestions" ALTER COLUMN "status" DROP DEFAULT;
ALTER TABLE "suggestions" ALTER COLUMN "status" TYPE "SuggestionStatus" USING "status"::"SuggestionStatus";
ALTER TABLE "suggestions" ALTER COLUMN "status" SET DEFAULT 'open';
ALTER TABLE "suggestions" ADD COLUMN "comment_count" INTEGER NOT NULL DEFAULT 0;
DROP INDEX "suggestions_app_id_created_at_idx";
CREATE INDEX "suggestions_app_id_created_at_id_idx" ON "suggestions"("app_id", "created_at", "id");
CREATE INDEX "suggestions_app_id_updated_at_id_idx" ON "suggestions"("app_id", "updated_at", "id");
CREATE INDEX "suggestions_app_id_author_external_id_idx" ON "suggestions"("app_id", "author_external_id");

CREATE TABLE "suggestion_comments" (
  "id" SERIAL NOT NULL,
  "suggestion_id" INTEGER NOT NULL,
  "app_id" INTEGER NOT NULL,
  "body" TEXT NOT NULL,
  "author_type" "SenderType" NOT NULL,
  "member_id" UUID,
  "author_external_id" TEXT,
  "author_name" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "suggestion_comments_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "suggestion_comments_suggestion_id_fkey" FOREIGN KEY ("suggestion_id") REFERENCES "suggestions"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "suggestion_comments_suggestion_id_idx" ON "suggestion_comments"("suggestion_id");
CREATE INDEX "suggestion_comments_app_id_author_external_id_idx" ON "suggestion_comments"("app_id", "author_external_id");

CREATE TABLE "tickets" (
  "id" SERIAL NOT NULL,
  "app_id" INTEGER NOT NULL,
  "number" INTEGER NOT NULL,
  "subject" TEXT NOT NULL,
  "status" "TicketStatus" NOT NULL DEFAULT 'open',
  "author_external_id" TEXT NOT NULL,
  "author_name" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "tickets_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "tickets_app_id_number_key" ON "tickets"("app_id", "number");
CREATE INDEX "tickets_app_id_created_at_id_idx" ON "tickets"("app_id", "created_at", "id");
CREATE INDEX "tickets_app_id_updated_at_id_idx" ON "tickets"("app_id", "updated_at", "id");
CREATE INDEX "tickets_app_id_author_external_id_idx" ON "tickets"("app_id", "author_external_id");

CREATE TABLE "ticket_messages" (
  "id" SERIAL NOT NULL,
  "ticket_id" INTEGER NOT NULL,
  "app_id" INTEGER NOT NULL,
  "body" TEXT NOT NULL,
  "visibility" "MessageVisibility" NOT NULL,
  "sender_type" "SenderType" NOT NULL,
  "member_id" UUID,
  "sender_external_id" TEXT,
  "sender_name" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "ticket_messages_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "ticket_messages_ticket_id_fkey" FOREIGN KEY ("ticket_id") REFERENCES "tickets"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "ticket_messages_ticket_id_idx" ON "ticket_messages"("ticket_id");
CREATE INDEX "ticket_messages_app_id_sender_external_id_idx" ON "ticket_messages"("app_id", "sender_external_id");

CREATE TABLE "app_counters" (
  "app_id" INTEGER NOT NULL,
  "last_ticket_number" INTEGER NOT NULL,
  CONSTRAINT "app_counters_pkey" PRIMARY KEY ("app_id")
);

CREATE TABLE "survey_responses" (
  "id" SERIAL NOT NULL,
  "app_id" INTEGER NOT NULL,
  "survey_id" TEXT NOT NULL,
  "score" INTEGER,
  "answers" JSONB NOT NULL,
  "respondent_external_id" TEXT NOT NULL,
  "respondent_name" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "survey_responses_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "survey_responses_app_id_created_at_idx" ON "survey_responses"("app_id", "created_at");
CREATE INDEX "survey_responses_app_id_respondent_external_id_idx" ON "survey_responses"("app_id", "respondent_external_id");

CREATE TABLE "idempotency_records" (
  "app_id" INTEGER NOT NULL,
  "key" TEXT NOT NULL,
  "request_hash" TEXT NOT NULL,
  "response_status" INTEGER,
  "response_body" JSONB,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("app_id", "key")
);

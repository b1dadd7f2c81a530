CREATE TABLE "suggestions" (
  "id" SERIAL NOT NULL,
  "app_id" INTEGER NOT NULL,
  "title" TEXT NOT NULL,
  "body" TEXT,
  "status" TEXT NOT NULL DEFAULT 'open',
  "author_external_id" TEXT NOT NULL,
  "author_name" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "suggestions_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "suggestions_app_id_created_at_idx" ON "suggestions"("app_id", "created_at");

CREATE TABLE "outbox_events" (
  "position" BIGSERIAL NOT NULL,
  "event_id" UUID NOT NULL,
  "event_type" TEXT NOT NULL,
  "payload" JSONB NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "published_at" TIMESTAMPTZ(3),
  CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("position")
);
CREATE UNIQUE INDEX "outbox_events_event_id_key" ON "outbox_events"("event_id");
-- The relay only ever looks for what is not yet published.
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("position") WHERE "published_at" IS NULL;

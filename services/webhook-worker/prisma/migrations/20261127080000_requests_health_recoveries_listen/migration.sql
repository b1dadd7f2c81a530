-- What was sent: each attempt keeps the URL it went to and its request headers, signature
-- included. The body is the delivery's stored envelope, the same bytes on every attempt.
ALTER TABLE "delivery_attempts" ADD COLUMN "request_url" TEXT, ADD COLUMN "request_headers" JSONB;

-- A delivery to a paused endpoint is recorded, held, and sent by a Recover once it resumes.
ALTER TYPE "DeliveryStatus" ADD VALUE IF NOT EXISTS 'held';

-- An endpoint's health, written by each worker a few times a minute, not per attempt; its pause;
-- and whether it is a `listen` session's, which has no URL and ends when the tool disconnects.
ALTER TABLE "webhook_endpoints"
  ADD COLUMN "last_success_at" TIMESTAMPTZ(3),
  ADD COLUMN "failing_since" TIMESTAMPTZ(3),
  ADD COLUMN "paused_at" TIMESTAMPTZ(3),
  ADD COLUMN "paused_reason" TEXT,
  ADD COLUMN "paused_by" TEXT,
  ADD COLUMN "listen_session" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "ended_at" TIMESTAMPTZ(3);
-- The pause check reads failing endpoints only.
CREATE INDEX "webhook_endpoints_failing_idx" ON "webhook_endpoints"("failing_since") WHERE "failing_since" IS NOT NULL AND "paused_at" IS NULL;

-- Attempts and successes per endpoint and hour: the success rate over the last day.
CREATE TABLE "endpoint_attempt_counts" (
  "endpoint_id" UUID NOT NULL REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
  "hour" TIMESTAMPTZ(3) NOT NULL,
  "attempts" INTEGER NOT NULL,
  "succeeded" INTEGER NOT NULL,
  PRIMARY KEY ("endpoint_id", "hour")
);

-- Pauses, resumes and recoveries, for the team: kept after the endpoint is deleted.
CREATE TABLE "endpoint_audit_entries" (
  "id" UUID NOT NULL PRIMARY KEY,
  "app_id" INTEGER NOT NULL,
  "endpoint_id" UUID NOT NULL,
  "endpoint_name" TEXT NOT NULL,
  "action" TEXT NOT NULL,
  "actor_name" TEXT,
  "detail" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "endpoint_audit_entries_app_idx" ON "endpoint_audit_entries"("app_id", "created_at");

-- A Recover: which deliveries it redelivers, chosen when it starts, and how far it has got.
CREATE TABLE "recoveries" (
  "id" UUID NOT NULL PRIMARY KEY,
  "endpoint_id" UUID NOT NULL REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE,
  "app_id" INTEGER NOT NULL,
  "since" TIMESTAMPTZ(3) NOT NULL,
  "until" TIMESTAMPTZ(3),
  "statuses" TEXT[] NOT NULL,
  -- Empty: every event.
  "events" TEXT[] NOT NULL DEFAULT '{}',
  "state" TEXT NOT NULL DEFAULT 'running',
  "total" INTEGER NOT NULL,
  "delivered" INTEGER NOT NULL DEFAULT 0,
  "failed" INTEGER NOT NULL DEFAULT 0,
  "skipped" INTEGER NOT NULL DEFAULT 0,
  "started_by" TEXT NOT NULL,
  "lease_owner" UUID,
  "lease_until" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "ended_at" TIMESTAMPTZ(3)
);
-- At most one runs per endpoint.
CREATE UNIQUE INDEX "recoveries_one_running_idx" ON "recoveries"("endpoint_id") WHERE "state" = 'running';
CREATE INDEX "recoveries_endpoint_idx" ON "recoveries"("endpoint_id", "created_at");

CREATE TABLE "recovery_items" (
  "recovery_id" UUID NOT NULL REFERENCES "recoveries"("id") ON DELETE CASCADE,
  "delivery_id" UUID NOT NULL,
  "position" INTEGER NOT NULL,
  -- waiting, sent (its attempt queued), delivered, failed, skipped
  "state" TEXT NOT NULL DEFAULT 'waiting',
  "attempt" INTEGER,
  PRIMARY KEY ("recovery_id", "position")
);
CREATE INDEX "recovery_items_open_idx" ON "recovery_items"("recovery_id", "state", "position") WHERE "state" IN ('waiting', 'sent');

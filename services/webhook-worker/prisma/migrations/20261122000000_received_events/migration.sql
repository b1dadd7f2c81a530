CREATE TABLE "received_events" (
  "event_id" UUID NOT NULL,
  "event_type" TEXT NOT NULL,
  "app_id" INTEGER NOT NULL,
  "occurred_at" TIMESTAMPTZ(3) NOT NULL,
  "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "received_events_pkey" PRIMARY KEY ("event_id")
);

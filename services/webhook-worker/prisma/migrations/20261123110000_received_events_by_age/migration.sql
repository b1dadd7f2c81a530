-- Received events are deleted once past the delivery history's retention, oldest first. Fan-out
-- waits while the index is built; where the table already holds many events, build it first
-- without stopping it (CREATE INDEX CONCURRENTLY with this name) and this finds it.
CREATE INDEX IF NOT EXISTS "received_events_received_at_idx" ON "received_events"("received_at");

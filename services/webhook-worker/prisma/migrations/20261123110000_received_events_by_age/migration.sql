-- Received events are deleted once past the delivery history's retention, oldest first.
CREATE INDEX "received_events_received_at_idx" ON "received_events"("received_at");

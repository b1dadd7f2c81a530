-- Idempotency keys are deleted once past their retention, oldest first. Writes to the table wait
-- while the index is built; where it already holds many keys, build it first without stopping
-- them (CREATE INDEX CONCURRENTLY with this name) and this finds it.
CREATE INDEX IF NOT EXISTS "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");

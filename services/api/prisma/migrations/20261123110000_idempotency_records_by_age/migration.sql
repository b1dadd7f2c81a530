-- Idempotency keys are deleted once past their retention, oldest first.
CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");

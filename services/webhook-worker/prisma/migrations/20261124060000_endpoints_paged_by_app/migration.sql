-- The endpoint list is paged oldest first within an app: one index walks a page in order, and
-- still serves fan-out's lookup of an app's endpoints by its first column.
CREATE INDEX "webhook_endpoints_app_id_created_at_id_idx" ON "webhook_endpoints"("app_id", "created_at", "id");
DROP INDEX "webhook_endpoints_app_id_idx";

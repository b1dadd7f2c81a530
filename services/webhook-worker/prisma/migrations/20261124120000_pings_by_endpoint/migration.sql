-- Send test counts the endpoint's test deliveries still in progress. Without an index of its own
-- that count read every delivery of the endpoint's history (30 days of it) on each press; this
-- one holds test deliveries only, a handful per endpoint, and costs other deliveries nothing but
-- its condition (event_type never changes, so their updates stay on their page). Fan-out waits
-- while it is built; where the table already holds much history, build it first without stopping
-- it (CREATE INDEX CONCURRENTLY with this name) and this finds it.
CREATE INDEX IF NOT EXISTS "deliveries_pings_by_endpoint_idx" ON "deliveries"("endpoint_id") WHERE "event_type" = 'webhook.ping';

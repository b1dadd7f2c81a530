-- Request limits shared by every api instance (rate-limiter-flexible's PostgreSQL store, in the
-- layout it expects): one row per limit and key (a client address, an account, a public key), its
-- points used and when its window ends, in milliseconds since the epoch. Rows past their window
-- are deleted every ten minutes.
CREATE TABLE IF NOT EXISTS "rate_limits" (
  "key" varchar(255) PRIMARY KEY,
  "points" integer NOT NULL DEFAULT 0,
  "expire" bigint
);
CREATE INDEX IF NOT EXISTS "rate_limits_expire_idx" ON "rate_limits"("expire");

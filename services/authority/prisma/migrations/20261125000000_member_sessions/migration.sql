-- A member's sign-in, named by its tokens: sign-out ends it for every api instance at once.
CREATE TABLE "member_sessions" (
  "id" UUID NOT NULL,
  "member_id" UUID NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "latest_end_at" TIMESTAMPTZ(3) NOT NULL,
  "ended_at" TIMESTAMPTZ(3),
  CONSTRAINT "member_sessions_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "member_sessions_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- A member's removal deletes their sessions through this index.
CREATE INDEX "member_sessions_member_id_idx" ON "member_sessions"("member_id");
-- Pruning takes what has expired, ended sessions included (their expires_at is when they ended).
CREATE INDEX "member_sessions_expires_at_idx" ON "member_sessions"("expires_at");

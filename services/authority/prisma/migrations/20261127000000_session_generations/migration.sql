-- Refresh-token rotation: only a token of the current generation renews its session.
-- Sessions signed in before this keep working: their tokens name no generation and count as 0.
ALTER TABLE "member_sessions" ADD COLUMN "generation" INTEGER NOT NULL DEFAULT 0;
-- When the current generation replaced the one before: that one still renews for a short grace.
ALTER TABLE "member_sessions" ADD COLUMN "renewed_at" TIMESTAMPTZ(3);

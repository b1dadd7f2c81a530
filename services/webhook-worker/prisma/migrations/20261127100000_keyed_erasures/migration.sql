-- Erasures name users by a keyed hash from now on. Those recorded before keep their plain SHA-256,
-- marked unkeyed, until the history's retention prunes them.
ALTER TABLE "privacy_erasures" ADD COLUMN "keyed" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "privacy_erasures" ALTER COLUMN "keyed" SET DEFAULT true;
CREATE INDEX "privacy_erasures_unkeyed_idx" ON "privacy_erasures" ("app_id") WHERE NOT "keyed";
CREATE INDEX "privacy_erasures_erased_at_idx" ON "privacy_erasures" ("erased_at");

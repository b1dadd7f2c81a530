-- An erased user's suggestions keep no author id: the placeholder "[erased]" could equal one of a
-- customer's own user ids, and receivers would try to notify it.
ALTER TABLE "suggestions" ALTER COLUMN "author_external_id" DROP NOT NULL;
-- Suggestions erased before: the placeholder with no name is what erasure wrote.
UPDATE "suggestions" SET "author_external_id" = NULL WHERE "author_external_id" = '[erased]' AND "author_name" IS NULL;

-- Each plan change counts a version; the worker keeps the highest it heard.
-- A team's first plan is version 1, and needs no publishing: the worker takes it from grants.
ALTER TABLE "teams" ADD COLUMN "plan_version" INTEGER NOT NULL DEFAULT 1;
-- The highest version published as team.plan_changed; a lower one is published again.
ALTER TABLE "teams" ADD COLUMN "plan_published_version" INTEGER NOT NULL DEFAULT 1;

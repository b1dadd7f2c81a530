-- Each team's plan as the authority last published it (team.plan_changed), with its version:
-- an older change arriving late never overwrites a newer one.
CREATE TABLE "team_plans" (
  "team_id" UUID NOT NULL PRIMARY KEY,
  "plan" TEXT NOT NULL,
  "version" INTEGER NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);

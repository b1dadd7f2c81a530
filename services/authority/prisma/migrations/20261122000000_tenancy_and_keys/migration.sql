CREATE TYPE "Plan" AS ENUM ('free', 'starter', 'pro');
CREATE TYPE "KeyStatus" AS ENUM ('active', 'revoked');

CREATE TABLE "teams" (
  "id" UUID NOT NULL,
  "name" TEXT NOT NULL,
  "plan" "Plan" NOT NULL DEFAULT 'free',
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "teams_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "apps" (
  "id" SERIAL NOT NULL,
  "team_id" UUID NOT NULL,
  "name" TEXT NOT NULL,
  "public_key" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "apps_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "apps_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "apps_public_key_key" ON "apps"("public_key");
CREATE INDEX "apps_team_id_idx" ON "apps"("team_id");

CREATE TABLE "api_keys" (
  "id" UUID NOT NULL,
  "app_id" INTEGER NOT NULL,
  "key_hash" TEXT NOT NULL,
  "display_prefix" TEXT NOT NULL,
  "scopes" TEXT[],
  "full_access" BOOLEAN NOT NULL DEFAULT false,
  "status" "KeyStatus" NOT NULL DEFAULT 'active',
  "last_used_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "rotated_at" TIMESTAMPTZ(3),
  CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "api_keys_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "api_keys_app_id_key" ON "api_keys"("app_id");
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

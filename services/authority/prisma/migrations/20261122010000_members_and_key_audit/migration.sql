CREATE TYPE "Role" AS ENUM ('owner', 'admin', 'member');
CREATE TYPE "KeyAction" AS ENUM ('created', 'scopes_granted', 'scopes_removed', 'full_access_granted', 'full_access_removed', 'revoked', 'restored', 'rotated');

CREATE TABLE "members" (
  "id" UUID NOT NULL,
  "team_id" UUID NOT NULL,
  "email" TEXT NOT NULL,
  "name" TEXT NOT NULL,
  "password_hash" TEXT NOT NULL,
  "role" "Role" NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "members_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "members_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "members_email_key" ON "members"("email");
CREATE INDEX "members_team_id_idx" ON "members"("team_id");

CREATE TABLE "key_audit_entries" (
  "id" UUID NOT NULL,
  "app_id" INTEGER NOT NULL,
  "member_id" UUID,
  "actor_name" TEXT,
  "action" "KeyAction" NOT NULL,
  "scopes" TEXT[],
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "key_audit_entries_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "key_audit_entries_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "members"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE INDEX "key_audit_entries_app_id_created_at_idx" ON "key_audit_entries"("app_id", "created_at");

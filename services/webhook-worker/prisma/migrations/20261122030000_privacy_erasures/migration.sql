CREATE TABLE "privacy_erasures" (
  "app_id" INTEGER NOT NULL,
  "user_hash" TEXT NOT NULL,
  "erased_at" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "privacy_erasures_pkey" PRIMARY KEY ("app_id", "user_hash")
);

CREATE TABLE "api_instances" (
  "id" UUID NOT NULL,
  "lease_until" TIMESTAMPTZ(3) NOT NULL,
  CONSTRAINT "api_instances_pkey" PRIMARY KEY ("id")
);

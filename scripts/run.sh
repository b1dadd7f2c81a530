#!/usr/bin/env bash
# Installs what is needed, builds, and starts all three services against PostgreSQL and RabbitMQ
# on their default local ports (override with DATABASE_URL and AMQP_URL). Ctrl-C stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
exec node scripts/start-all.mjs

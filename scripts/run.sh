#!/usr/bin/env bash
# Installs what is needed, builds, and starts all three services against PostgreSQL and RabbitMQ
# on their default local ports (override with DATABASE_URL and AMQP_URL). Ctrl-C stops them.
# API_PROCESSES=2 (or 0, one per core) runs the api as that many processes on one port.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm build
exec node scripts/start-all.mjs

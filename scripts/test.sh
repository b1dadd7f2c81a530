#!/usr/bin/env bash
# Installs what is needed, then lints, type-checks and runs every test against real PostgreSQL
# and RabbitMQ (TEST_POSTGRES_URL / TEST_AMQP_URL, else local default ports, else testcontainers).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-pnpm.sh
pnpm install --frozen-lockfile
pnpm test

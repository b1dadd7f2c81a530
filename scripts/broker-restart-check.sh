#!/usr/bin/env bash
# Shows that the running services survive a real RabbitMQ restart: stops the broker application,
# waits, starts it again, then checks that all three have reconnected. Run it beside `scripts/run.sh`.
# Meanwhile the api stays ready, serving keys it has cached, with its broker check "degraded".
# (The test suite proves the same through a proxy that cuts the connections, without touching the
# shared broker: tests/end-to-end/src/broker-outage.test.ts.)
set -euo pipefail
api=${API_URL:-http://127.0.0.1:3000}
authority=${AUTHORITY_HEALTH_URL:-http://127.0.0.1:3001}
worker=${WORKER_HEALTH_URL:-http://127.0.0.1:3002}
status() { curl -s -o /dev/null -w '%{http_code}' "$1/health/ready" || true; }
broker() { curl -s "$1/health/ready" | sed -n 's/.*"broker":"\([a-z]*\)".*/\1/p'; }

echo "before: api=$(status "$api") authority=$(status "$authority") worker=$(status "$worker")"
rabbitmqctl -q stop_app
sleep "${OUTAGE_SECONDS:-5}"
echo "during: api=$(status "$api") (broker $(broker "$api")) authority=$(status "$authority") worker=$(status "$worker")"
rabbitmqctl -q start_app
for _ in $(seq 1 60); do
  if [ "$(broker "$api")" = up ] && [ "$(broker "$authority")" = up ] && [ "$(broker "$worker")" = up ] \
    && [ "$(status "$api")" = 200 ] && [ "$(status "$authority")" = 200 ] && [ "$(status "$worker")" = 200 ]; then
    echo "after:  api=200 authority=200 worker=200 — every service reconnected"
    exit 0
  fi
  sleep 1
done
echo "after:  api=$(status "$api") authority=$(status "$authority") worker=$(status "$worker") — not all ready" >&2
exit 1

#!/usr/bin/env bash
# Run once per virtual host on RabbitMQ 4.0 or later, where rabbitmqctl reaches the broker:
#
#   bash infra/rabbitmq/no-delivery-limit.sh [vhost (default /)] [BROKER_NAMESPACE (default none)]
#
# From 4.0 a quorum queue drops a message once it has been delivered 20 times, unless a policy or
# the queue says otherwise. The services put a message whose handler failed back on its queue, once
# a second, while a dependency (PostgreSQL, usually) is away: an outage of about 20 seconds would
# drop every domain event and first attempt waiting at the head of the queues. (From 4.3 a nack no
# longer counts toward the limit; a consumer lost with the message in hand still does.) This policy gives
# the services' queues no delivery limit, as on 3.x, where there is none; a message that keeps
# failing is logged as an error instead (the MessagesKeepFailing alert). A queue takes one policy,
# the highest priority's: fold this definition into any policy of yours that matches these queues.
# On 3.x there is nothing to do, and the script says so.
set -euo pipefail
vhost=${1:-/}
namespace=${2:-}

version=$(rabbitmq-diagnostics -q server_version)
if [[ ! $version =~ ^[0-9]+\. ]]; then
  echo "could not read the broker's version (got '$version'); nothing changed" >&2
  exit 1
fi
if (( ${version%%.*} < 4 )); then
  echo "RabbitMQ $version: quorum queues have no delivery limit by default; nothing to do"
  exit 0
fi
# The namespace, if any, as a literal in the pattern (dots and other special characters escaped).
prefix=$(printf '%s' "$namespace" | sed 's/[][\.*^$()+?{}|]/\\&/g')
rabbitmqctl set_policy --vhost "$vhost" --apply-to quorum_queues --priority 0 \
  feedback-no-delivery-limit "^${prefix}(webhook-worker|authority|webhooks)\\." '{"delivery-limit": -1}'

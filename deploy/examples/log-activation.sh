#!/bin/sh
# A tiny agent for the process executor: reads the activation JSON from stdin, appends one line
# per activation to $ROTA_EXAMPLE_LOG (default ./data/activations.log) and prints a JSON result.
log="${ROTA_EXAMPLE_LOG:-./data/activations.log}"
mkdir -p "$(dirname "$log")"
activation=$(cat)
count=$(printf '%s' "$activation" | grep -o '"notificationId"' | wc -l)
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $ROTA_AGENT_ID $ROTA_ACTIVATION_KIND attempt=$ROTA_ATTEMPT notifications=$count" >> "$log"
printf '{"handledBy": "log-activation.sh", "notifications": %s}\n' "$count"

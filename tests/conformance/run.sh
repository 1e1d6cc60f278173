#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios against Herald's upstream side:
# a fresh Herald (release build, SQLite in a temp dir) takes the client's seat, driven by
# herald_client.py. Needs tests/peers/install.sh (Node 22 and the conformance package).
#   tests/conformance/run.sh [SCENARIO...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(elicitation-sep1034-client-defaults sep-2322-client-request-state)

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/herald"
work=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

export HERALD_DATABASE_URL="sqlite://$work/herald.db" HERALD_LOG_FORMAT=json HERALD_LISTEN=127.0.0.1:0
password="conformance passphrase 42"
echo "$password" | "$bin" bootstrap --org acme --org-name Acme --email conformance@example.com --password-stdin >/dev/null
: >"$work/herald.log"
"$bin" >"$work/herald.log" 2>&1 &
pid=$!
{ timeout 60 tail -n +1 -f "$work/herald.log" || true; } | grep -m1 -q '"herald is serving"' || { cat "$work/herald.log"; exit 1; }
base="http://$(grep -m1 '"herald is serving"' "$work/herald.log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["listen"])')"
jar="$work/cookies"
curl -sS --fail-with-body -c "$jar" -H 'content-type: application/json' \
  -d "{\"email\":\"conformance@example.com\",\"password\":\"$password\"}" "$base/api/v1/auth/login" >/dev/null
token=$(curl -sS --fail-with-body -b "$jar" -H 'content-type: application/json' -d '{"name":"conformance"}' \
  "$base/api/v1/orgs/acme/tokens" | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
export HERALD_URL="$base" HERALD_TOKEN="$token"

passed=0 failed=0
for scenario in "${scenarios[@]}"; do
  if CONFORMANCE_RESULTS="$work/results-$scenario" "$root/tests/peers/run-conformance.sh" "$scenario" \
      "python3 $root/tests/conformance/herald_client.py"; then
    echo "conformance $scenario: passed"; passed=$((passed + 1))
  else
    echo "conformance $scenario: FAILED"; failed=$((failed + 1))
    tail -n 40 "$work/herald.log" | cut -c1-400
  fi
done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

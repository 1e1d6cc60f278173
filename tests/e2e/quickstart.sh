#!/usr/bin/env bash
# The README quickstart, as a newcomer would do it: `cargo run --release` in a
# fresh directory, open the setup link, sign in, register a server, create an
# API token and use it. Fails on the first step that does not behave.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
log="$work/herald.log"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

cargo build --release --quiet --manifest-path "$root/Cargo.toml"
bin="${CARGO_TARGET_DIR:-$root/target}/release/herald"

# Port 0 lets the OS pick a free port; the log says which one. The log exists
# before tail looks for it.
: >"$log"
(cd "$work" && HERALD_LISTEN=127.0.0.1:0 HERALD_LOG_FORMAT=json exec "$bin" >"$log" 2>&1) &
pid=$!
# Wait for the line that says it is serving; tail ends by SIGPIPE once grep has
# it, or after 60 s, when grep fails for want of it.
{ timeout 60 tail -n +1 -f "$log" || true; } | grep -m1 -q '"herald is serving"' || {
  echo "herald did not start:"; cat "$log"; exit 1; }
base="http://$(grep -m1 '"herald is serving"' "$log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["listen"])')"
token=$(grep -m1 -o 'setup#token=[A-Za-z0-9_-]*' "$log" | cut -d= -f2)
[ -n "$token" ] || { echo "no setup link in the log"; cat "$log"; exit 1; }
[ -f "$work/data/herald.db" ] || { echo "no SQLite database under ./data"; exit 1; }

jar="$work/cookies"
json() { curl -sS --fail-with-body -H 'content-type: application/json' -b "$jar" -c "$jar" "$@"; }

json -X POST "$base/api/v1/setup" -d "{\"token\":\"$token\",\"org_slug\":\"acme\",\"org_name\":\"Acme\",\"email\":\"ada@example.com\",\"name\":\"Ada\",\"password\":\"correct horse battery staple\"}" >/dev/null
rm -f "$jar"
json -X POST "$base/api/v1/auth/login" -d '{"email":"ada@example.com","password":"correct horse battery staple"}' | grep -q '"role":"owner"'
json -X POST "$base/api/v1/orgs/acme/servers" -d '{"slug":"docs","name":"Docs","url":"https://docs.example/mcp","headers":{"Authorization":"Bearer upstream-secret"}}' | grep -q '"header_names":\["authorization"\]'
secret=$(json -X POST "$base/api/v1/orgs/acme/tokens" -d '{"name":"laptop"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["secret"])')
curl -sS --fail-with-body -H "authorization: Bearer $secret" "$base/api/v1/orgs/acme/servers" | grep -q '"slug":"docs"'
if grep -q 'upstream-secret' "$log" || grep -q "$secret" "$log"; then
  echo "a secret reached the log"; exit 1
fi
echo "quickstart: 1 passed, 0 failed"

#!/usr/bin/env bash
# Herald's dashboard in a real browser: Debian's chromium driven by
# playwright-core, the tests run by Node's own test runner.
#
# Builds the release binary, starts `herald serve --demo` in a fresh temporary
# directory on a free port, and runs tests/browser/*.test.mjs against it with
# the demo account and agent token. Always stops Herald at the end. Safe to
# rerun. Prints `browser: N passed, M failed` and exits non-zero on a failure.
#
#   HERALD_SCREENSHOTS=dir   where the docs' screenshots go (default docs/screenshots;
#                            empty: take none)
#   HERALD_TEST_PATTERN=re   run only the tests whose name matches
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/herald-browser.XXXXXX")
pid=""
peer_pids=()
cleanup() {
  for p in "${peer_pids[@]}" $pid; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
# A failure before the tests run still ends with the summary line.
fail() { echo "$*"; echo "browser: 0 passed, 1 failed"; exit 1; }

[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium is missing (apt-get install chromium)"

# playwright-core only (it never downloads a browser); reinstall when the lock file changed.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
lock_sum=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$here/node_modules/.herald-lock-sum" 2>/dev/null)" != "$lock_sum" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error) || fail "npm ci failed"
  echo "$lock_sum" >"$here/node_modules/.herald-lock-sum"
fi

[ -x "$root/tests/peers/node/node_modules/.bin/node" ] || fail "the peer servers are missing: run tests/peers/install.sh"

cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p herald-gateway -p herald-demo-server ||
  fail "cargo build --release failed"
bin="${CARGO_TARGET_DIR:-$root/target}/release/herald"
case "$bin" in /*) ;; *) bin="$root/$bin" ;; esac

# Port 0: the OS picks a free port, and the log says which. Instructions go to
# stdout, the JSON log to stderr.
out="$work/stdout.txt"
log="$work/herald.log"
# The files exist before tail looks for them (the background shell may not have
# opened them yet).
: >"$out"; : >"$log"
(cd "$work" && HERALD_LISTEN=127.0.0.1:0 HERALD_LOG_FORMAT=json exec "$bin" serve --demo >>"$out" 2>>"$log") &
pid=$!
# Wait for the line that says it is serving: tail ends once grep has it (and
# closed the pipe), when Herald exits, or after 60 s, when grep fails for want of it.
{ timeout 60 tail -n +1 -f --pid="$pid" "$log" || true; } | grep -m1 -q '"herald is serving"' ||
  fail "herald did not start: $(cat "$out" "$log")"
listen=$(grep -m1 '"herald is serving"' "$log" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).listen))')
# The demo's instructions are printed before Herald reports serving.
account=$(grep -m1 '^ *Account: ' "$out" || true)
export HERALD_URL="http://$listen"
export HERALD_EMAIL=$(sed -E 's/^ *Account: +([^ ]+) \/ .*/\1/' <<<"$account")
export HERALD_PASSWORD=$(sed -E 's/^ *Account: +[^ ]+ \/ ([^ ]+) .*/\1/' <<<"$account")
export HERALD_TOKEN=$(grep -m1 -o 'Agent token: *hrl_[0-9A-Za-z]*' "$out" | grep -o 'hrl_.*' || true)
mcp_url=$(grep -m1 -o 'MCP URL: *[^ ]*' "$out" | sed -E 's/MCP URL: *//' || true)
if [ -z "$account" ] || [ -z "$HERALD_TOKEN" ] || [ "$mcp_url" != "$HERALD_URL/mcp/demo/demo" ]; then
  fail "unexpected demo instructions: $(cat "$out")"
fi
export HERALD_BIN="$bin"
export HERALD_SCREENSHOTS="${HERALD_SCREENSHOTS-$root/docs/screenshots}"

# The suite asks the demo server more questions a minute than the default
# per-user cap (6) allows: raise the caps for this throwaway instance.
curl -sS --fail-with-body -o /dev/null -X PUT "$HERALD_URL/api/v1/orgs/demo/policy" \
  -H "authorization: Bearer $HERALD_TOKEN" -H 'content-type: application/json' \
  -d '{"rate_caps":{"per_user_server_per_minute":1000,"per_server_per_hour":10000,"per_org_per_hour":10000,"max_pending_per_user":100}}' ||
  fail "could not raise the demo org's rate caps"

# Two more servers in the demo org: a legacy-only demo server (only a legacy
# upstream session can withdraw a question) and the reference server-everything
# (the every-variant form). Each prints `READY <address or port>` once it listens.
start_peer() { # name, command...; sets $ready to what follows READY
  local name=$1; shift
  : >"$work/$name.out"
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  peer_pids+=($!)
  { timeout 60 tail -n +1 -f --pid=$! "$work/$name.out" || true; } | grep -m1 -q '^READY ' ||
    fail "$name did not start: $(cat "$work/$name.err")"
  ready=$(grep -m1 '^READY ' "$work/$name.out" | awk '{ print $2 }')
}
register() { # slug, name, url
  curl -sS --fail-with-body -o /dev/null -X POST "$HERALD_URL/api/v1/orgs/demo/servers" \
    -H "authorization: Bearer $HERALD_TOKEN" -H 'content-type: application/json' \
    -d "{\"slug\":\"$1\",\"name\":\"$2\",\"url\":\"$3\"}" || fail "could not register $1"
}
start_peer legacy-demo "$(dirname "$bin")/herald-demo-server" --legacy-only --listen 127.0.0.1:0
register legacy "Legacy Demo" "http://$ready/mcp"
start_peer everything bash "$root/tests/peers/run-everything.sh" 0
register everything "Everything" "http://127.0.0.1:$ready/mcp"
export HERALD_LEGACY_SERVER=legacy HERALD_EVERYTHING_SERVER=everything

# One file at a time, in name order: the files share the demo account's inbox,
# and the last one cuts the demo server off. Every test bounds its own waits;
# the runner's timeouts are a backstop.
# The spec report is kept to read its totals (a file reporter would lose its
# tail to --test-force-exit).
report="$work/report.txt"
status=0
(cd "$root" && timeout 900 node --test --test-concurrency=1 --test-timeout=120000 --test-force-exit \
  ${HERALD_TEST_PATTERN:+--test-name-pattern="$HERALD_TEST_PATTERN"} --test-reporter=spec \
  tests/browser/*.test.mjs) 2>&1 | tee "$report" || status=$?

total() { awk -v k="$1" 'NF == 3 && $2 == k && $3 ~ /^[0-9]+$/ { n = $3 } END { print n }' "$report"; }
passed=$(total pass); failed=$(total fail); cancelled=$(total cancelled)
passed=${passed:-0}
failed=$((${failed:-0} + ${cancelled:-0}))
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1
  echo "the test runner exited with status $status; Herald's log:"; tail -n 50 "$log"
elif [ "$failed" -ne 0 ]; then
  echo "Herald's log (last 50 lines):"; tail -n 50 "$log"
fi
echo "browser: $passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]

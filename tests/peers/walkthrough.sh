#!/usr/bin/env bash
# Replays, with curl, the wire exchanges documented in tests/peers/README.md against freshly
# started peers, and (re)writes the server-everything fixtures in tests/peers/fixtures/.
#
#   tests/peers/walkthrough.sh [python|everything|all] [--no-fixtures]
#
# Starts each peer on a free 127.0.0.1 port, prints every request (headers + body) and every
# response (status line, headers, body) verbatim, then stops the peer.  Bounded: each curl has
# a time limit and each peer is killed on exit.  Run ./install.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
which_peer="${1:-all}"
write_fixtures=1
[ "${2:-}" = "--no-fixtures" ] && write_fixtures=0
fixtures="$here/fixtures"
work="$(mktemp -d)"
pids=()
cleanup() {
  local p i
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null || continue
    for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

start_peer() { # name cmd... ; sets PORT
  local name="$1"; shift
  "$@" >"$work/$name.out" 2>"$work/$name.err" &
  pids+=("$!")
  local i
  for i in $(seq 1 100); do
    PORT="$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$work/$name.out" | head -1)"
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "peer $name did not print READY within 10 s" >&2; cat "$work/$name.err" >&2; exit 1
}

# show_req HEADER... -- BODY   (prints the request as sent)
show_req() {
  local method="$1"; shift
  echo "> $method /mcp HTTP/1.1"
  while [ "$1" != "--" ]; do echo "> $1"; shift; done
  shift
  [ -n "${1:-}" ] && { echo ">"; echo "> $1"; }
  echo
}

# post NAME BODY HEADER...  -> synchronous POST, prints request and full response
post() {
  local name="$1" body="$2"; shift 2
  local args=() h
  for h in "$@"; do args+=(-H "$h"); done
  show_req POST "$@" -- "$body"
  curl -sS -i -N -m 10 "$URL" "${args[@]}" -d "$body" | tr -d '\r' | tee "$work/$name.resp" | sed 's/^/< /'
  echo
}

# post_bg NAME BODY HEADER...  -> streaming POST in the background (output in $work/NAME.resp)
post_bg() {
  local name="$1" body="$2"; shift 2
  local args=() h
  for h in "$@"; do args+=(-H "$h"); done
  show_req POST "$@" -- "$body"
  (curl -sS -i -N -m 30 "$URL" "${args[@]}" -d "$body" >"$work/$name.raw" 2>&1 || true; touch "$work/$name.done") &
}
wait_for() { # NAME PATTERN
  local i
  for i in $(seq 1 100); do
    grep -q "$2" "$work/$1.raw" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for $2 in $1" >&2; cat "$work/$1.raw" >&2; exit 1
}
wait_done() { local i; for i in $(seq 1 150); do [ -f "$work/$1.done" ] && return 0; sleep 0.1; done; }
show_stream() { tr -d '\r' <"$work/$1.raw" | sed 's/^/< /'; echo; }
sse_json() { tr -d '\r' <"$work/$1.raw" | sed -n 's/^data: \({.*\)$/\1/p' | sed -n "${2}p"; }
header() { tr -d '\r' <"$work/$1" | sed -n "s/^$2: //Ip" | head -1; }

ACCEPT='Accept: application/json, text/event-stream'
CT='Content-Type: application/json'

# ============================================================================ python peer
python_walkthrough() {
  start_peer python "$here/run-elicit-server.sh" 0
  URL="http://127.0.0.1:$PORT/mcp"
  local HOST="Host: 127.0.0.1:$PORT"
  echo "################ Python peer (mcp 2.3.0) on $URL"
  echo
  echo "======== (a) legacy 2025-11-25: initialize"
  post init '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"curl","version":"0"}}}' \
    "$HOST" "$CT" "$ACCEPT"
  local SID; SID="$(header init.resp mcp-session-id)"
  local S=("$HOST" "$CT" "$ACCEPT" "Mcp-Session-Id: $SID" "MCP-Protocol-Version: 2025-11-25")
  echo "======== notifications/initialized"
  post initialized '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${S[@]}"
  echo "======== tools/list"
  post list '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' "${S[@]}"
  echo "======== tools/call confirm_deploy (stream stays open, carries elicitation/create)"
  post_bg call3 '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm_deploy","arguments":{"service":"billing"}}}' "${S[@]}"
  wait_for call3 'elicitation/create'
  local EID; EID="$(sse_json call3 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  echo "======== answer elicitation id $EID with a separate POST"
  post answer3 "{\"jsonrpc\":\"2.0\",\"id\":$EID,\"result\":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}" "${S[@]}"
  wait_done call3
  echo "======== the tools/call stream, complete"
  show_stream call3
  if [ "$write_fixtures" = 1 ]; then
    mkdir -p "$fixtures"
    sse_json call3 1 >"$fixtures/python-confirm-deploy-elicitation.json"
  fi

  echo "======== tools/call book_table on the legacy session (resolver pushes elicitation/create)"
  post_bg call4 '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"book_table","arguments":{"restaurant":"Chez Herald"}}}' "${S[@]}"
  wait_for call4 'elicitation/create'
  EID="$(sse_json call4 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  echo "======== answer elicitation id $EID"
  post answer4 "{\"jsonrpc\":\"2.0\",\"id\":$EID,\"result\":{\"action\":\"accept\",\"content\":{\"party_size\":4,\"date\":\"2026-12-24\",\"seating\":\"outdoor\",\"high_chair\":false,\"notes\":\"\"}}}" "${S[@]}"
  wait_done call4
  echo "======== the tools/call stream, complete"
  show_stream call4

  echo "======== tools/call slow_elicit {timeout_seconds: 2}, never answered"
  post_bg call5 '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow_elicit","arguments":{"timeout_seconds":2}}}' "${S[@]}"
  wait_done call5
  show_stream call5

  local META='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"0"}}'
  local M=("$HOST" "$CT" "$ACCEPT" "MCP-Protocol-Version: 2026-07-28")
  echo "======== (b) modern 2026-07-28: server/discover"
  post discover "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$META}}" "${M[@]}" "Mcp-Method: server/discover"
  echo "======== tools/call book_table, round 1"
  post mcall1 "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"book_table\",\"arguments\":{\"restaurant\":\"Chez Herald\"},$META}}" \
    "${M[@]}" "Mcp-Method: tools/call" "Mcp-Name: book_table"
  local BODY RS KEY
  BODY="$(sed -n '/^{/p' "$work/mcall1.resp")"
  [ "$write_fixtures" = 1 ] && printf '%s\n' "$BODY" >"$fixtures/python-book-table-input-required.json"
  RS="$(printf '%s' "$BODY" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["requestState"])')"
  KEY="$(printf '%s' "$BODY" | python3 -c 'import json,sys; print(next(iter(json.load(sys.stdin)["result"]["inputRequests"])))')"
  echo "======== tools/call book_table, round 2: new id, inputResponses[$KEY], requestState echoed byte for byte"
  post mcall2 "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{\"name\":\"book_table\",\"arguments\":{\"restaurant\":\"Chez Herald\"},\"inputResponses\":{\"$KEY\":{\"action\":\"accept\",\"content\":{\"party_size\":4,\"date\":\"2026-12-24\",\"seating\":\"outdoor\",\"high_chair\":false,\"notes\":\"window\"}}},\"requestState\":\"$RS\",$META}}" \
    "${M[@]}" "Mcp-Method: tools/call" "Mcp-Name: book_table"
  [ "$write_fixtures" = 1 ] && sed -n '/^{/p' "$work/mcall2.resp" >"$fixtures/python-book-table-complete.json"
  return 0
}

# ============================================================================ server-everything
everything_walkthrough() {
  start_peer everything "$here/run-everything.sh" 0
  URL="http://127.0.0.1:$PORT/mcp"
  local HOST="Host: 127.0.0.1:$PORT"
  echo "################ server-everything 2026.8.31 on $URL"
  echo
  echo "======== initialize (2025-11-25, elicitation form+url)"
  post init '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"curl","version":"0"}}}' \
    "$HOST" "$CT" "$ACCEPT"
  local SID; SID="$(header init.resp mcp-session-id)"
  local S=("$HOST" "$CT" "$ACCEPT" "Mcp-Session-Id: $SID" "MCP-Protocol-Version: 2025-11-25")
  echo "======== notifications/initialized"
  post initialized '{"jsonrpc":"2.0","method":"notifications/initialized"}' "${S[@]}"
  echo "======== tools/list (names only)"
  show_req POST "${S[@]}" -- '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
  local hargs=() h; for h in "${S[@]}"; do hargs+=(-H "$h"); done
  curl -sS -m 10 "$URL" "${hargs[@]}" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | tr -d '\r' \
    | sed -n 's/^data: \({.*\)$/\1/p' | python3 -c 'import json,sys; print("< tools:", [t["name"] for t in json.load(sys.stdin)["result"]["tools"]])'
  echo

  echo "======== tools/call trigger-elicitation-request"
  post_bg form '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"trigger-elicitation-request","arguments":{}}}' "${S[@]}"
  wait_for form 'elicitation/create'
  show_stream form
  local EID; EID="$(sse_json form 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  local ANS="{\"jsonrpc\":\"2.0\",\"id\":$EID,\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada Lovelace\",\"check\":true,\"firstLine\":\"It was a dark and stormy night.\",\"email\":\"ada@example.com\",\"homepage\":\"https://example.com/ada\",\"birthdate\":\"1815-12-10\",\"integer\":42,\"number\":3.14,\"untitledSingleSelectEnum\":\"Monica\",\"untitledMultipleSelectEnum\":[\"Guitar\"],\"titledSingleSelectEnum\":\"hero-1\",\"titledMultipleSelectEnum\":[\"fish-1\"],\"legacyTitledEnum\":\"pet-1\"}}}"
  post formans "$ANS" "${S[@]}"
  wait_done form
  echo "======== the tools/call stream, complete"
  show_stream form
  if [ "$write_fixtures" = 1 ]; then
    mkdir -p "$fixtures"
    sse_json form 1 >"$fixtures/everything-form.json"
    printf '%s\n' "$ANS" >"$fixtures/everything-form-response.json"
    sse_json form 2 >"$fixtures/everything-form-result.json"
  fi

  echo "======== tools/call trigger-url-elicitation (request path)"
  post_bg url '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com/authorize?state=abc"}}}' "${S[@]}"
  wait_for url 'elicitation/create'
  EID="$(sse_json url 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  echo "======== answer URL elicitation id $EID (accept = the user agreed to open it)"
  post urlans "{\"jsonrpc\":\"2.0\",\"id\":$EID,\"result\":{\"action\":\"accept\"}}" "${S[@]}"
  wait_done url
  echo "======== the tools/call stream, complete"
  show_stream url
  if [ "$write_fixtures" = 1 ]; then
    sse_json url 1 >"$fixtures/everything-url.json"
    sse_json url 2 >"$fixtures/everything-url-result.json"
  fi

  echo "======== tools/call trigger-url-elicitation {errorPath: true} -> -32042"
  post urlerr '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com/authorize?state=abc","errorPath":true}}}' "${S[@]}"
  echo "======== retry with the same arguments -> request path (elicitation/create), answered decline"
  post_bg urlretry '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"trigger-url-elicitation","arguments":{"url":"https://example.com/authorize?state=abc","errorPath":true}}}' "${S[@]}"
  wait_for urlretry 'elicitation/create'
  EID="$(sse_json urlretry 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  echo "======== answer URL elicitation id $EID"
  post urlretryans "{\"jsonrpc\":\"2.0\",\"id\":$EID,\"result\":{\"action\":\"decline\"}}" "${S[@]}"
  wait_done urlretry
  echo "======== the tools/call stream, complete"
  show_stream urlretry
  if [ "$write_fixtures" = 1 ]; then
    sed -n 's/^< data: \({.*\)$/\1/p; s/^data: \({.*\)$/\1/p' "$work/urlerr.resp" | head -1 >"$fixtures/everything-url-error.json"
    sse_json urlretry 1 >"$fixtures/everything-url-retry.json"
  fi
}

case "$which_peer" in
  python) python_walkthrough ;;
  everything) everything_walkthrough ;;
  all) python_walkthrough; everything_walkthrough ;;
  *) echo "usage: $0 [python|everything|all] [--no-fixtures]" >&2; exit 2 ;;
esac

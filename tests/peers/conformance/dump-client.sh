#!/usr/bin/env bash
# Trivial "client under test" for @modelcontextprotocol/conformance: it only reports how it was
# invoked (the harness appends the scenario server URL as the last argument and sets
# MCP_CONFORMANCE_* variables), probes the URL once, and exits.  Every check then FAILs, which is
# expected: this proves the harness starts and how a real client (Herald) gets its URL.
url="${!#}"
echo "argv: $*"
echo "url: $url"
env | grep '^MCP_CONFORMANCE' | sort
# One probe so the scenario server logs a request (modern servers answer server/discover).
curl -sS -m 5 -X POST "$url" -H 'Content-Type: application/json' \
  -H 'Accept: application/json, text/event-stream' \
  -d '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}' || true
echo

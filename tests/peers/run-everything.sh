#!/usr/bin/env bash
# Starts @modelcontextprotocol/server-everything@2026.8.31 (Streamable HTTP, legacy protocol only)
# from the local install under the Node 22 runtime from tests/peers/node, bound to 127.0.0.1.
#
#   tests/peers/run-everything.sh PORT      (PORT 0 = pick a free port)
#
# Endpoint: http://127.0.0.1:PORT/mcp.  Readiness: a line `READY <port>` on stdout (printed by
# node/loopback.cjs once the socket listens); the server itself also logs
# "MCP Streamable HTTP Server listening on port N" on stderr.  Its own request log
# ("Received MCP POST request", ...) also goes to stdout.  Run ./install.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 1 ] || { echo "usage: $0 PORT" >&2; exit 2; }
node22="$here/node/node_modules/.bin/node"
[ -x "$node22" ] || { echo "run-everything.sh: $node22 missing; run tests/peers/install.sh" >&2; exit 1; }
export PORT="$1" HERALD_PEER_READY=1
exec "$node22" --require "$here/node/loopback.cjs" \
  "$here/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp

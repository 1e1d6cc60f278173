#!/usr/bin/env bash
# Runs one @modelcontextprotocol/conformance client scenario under the Node 22 from tests/peers/node.
#
#   tests/peers/run-conformance.sh SCENARIO 'CLIENT COMMAND' [extra conformance flags...]
#
# e.g. tests/peers/run-conformance.sh sep-2322-client-request-state \
#        "python3 tests/peers/conformance/reference_client.py"
#
# The harness starts a scenario server on an ephemeral port (all interfaces, URL
# http://localhost:PORT/mcp), runs `CLIENT COMMAND <url>` through a shell with
# MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_PROTOCOL_VERSION set, then scores what the server saw.
# The command string is split on single spaces (no quoting), so wrap complex commands in a script.
# Results go to $CONFORMANCE_RESULTS (default: a fresh temp dir, printed).  Exit 0 = all checks passed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 SCENARIO 'CLIENT COMMAND' [conformance flags...]" >&2; exit 2; }
node22="$here/node/node_modules/.bin/node"
[ -x "$node22" ] || { echo "run-conformance.sh: $node22 missing; run tests/peers/install.sh" >&2; exit 1; }
scenario="$1" command="$2"; shift 2
out="${CONFORMANCE_RESULTS:-$(mktemp -d -t herald-conformance.XXXXXX)}"
echo "results: $out" >&2
NO_COLOR=1 exec "$node22" "$here/node/node_modules/@modelcontextprotocol/conformance/dist/index.js" client \
  --command "$command" --scenario "$scenario" --timeout "${CONFORMANCE_TIMEOUT_MS:-30000}" -o "$out" "$@"

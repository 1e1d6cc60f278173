#!/usr/bin/env bash
# Starts the Python eliciting peer (mcp 2.3.0) on http://127.0.0.1:PORT/mcp.
#
#   tests/peers/run-elicit-server.sh PORT [--log-level debug]   (PORT 0 = pick a free port)
#
# Readiness: exactly `READY <port>` on stdout.  Logs go to stderr.  Run ./install.sh first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 1 ] || { echo "usage: $0 PORT [--log-level LEVEL]" >&2; exit 2; }
py="$here/.venv/bin/python"
[ -x "$py" ] || { echo "run-elicit-server.sh: $py missing; run tests/peers/install.sh" >&2; exit 1; }
port="$1"; shift
exec "$py" -u "$here/python/elicit_server.py" --port "$port" "$@"

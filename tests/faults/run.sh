#!/usr/bin/env bash
# The fault suite: hostile load against a real `herald` (release build), with
# bounded counts, asserting that /readyz answers within a second throughout,
# that memory stays under a stated bound, and that no record is left
# inconsistent. See faults.py for the scenarios and how to add one.
#
#   tests/faults/run.sh [scenario …]                    # SQLite
#   HERALD_FAULTS_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres tests/faults/run.sh
#   HERALD_BIN=path/to/herald tests/faults/run.sh        # skip the build
#
# Ends with `faults (DB): N passed, M failed`; exits non-zero on a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${HERALD_BIN:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p herald-gateway
  HERALD_BIN="${CARGO_TARGET_DIR:-$root/target}/release/herald"
  case "$HERALD_BIN" in /*) ;; *) HERALD_BIN="$root/$HERALD_BIN" ;; esac
fi
# The idle-connection flood needs a few thousand sockets on each side.
ulimit -n "$(ulimit -Hn)"
HERALD_BIN="$HERALD_BIN" exec python3 "$root/tests/faults/faults.py" "$@"

#!/usr/bin/env bash
# The compatibility matrix (tests/compat/README.md): agents of both protocol eras, built on the
# official SDKs, call upstream servers of every kind, directly and through Herald; a bot answers
# the questions as the person; every message Herald sends an agent is checked against the
# agent era's schema. Prints the matrix and exits non-zero if any cell breaks the rule.
#
#   tests/compat/run.sh [--db sqlite|postgres] [--filter REGEX] [--jobs N] [--write-docs]
#
#   --db postgres   a fresh database on 127.0.0.1:5432 (user postgres), dropped afterwards
#   --filter REGEX  only the cells whose id matches, e.g. 'python-sdk-202607~py~push'
#   --write-docs    rewrite the "Compatibility matrix" section of docs/api.md from this run
#
# Builds Herald (debug) and the rmcp peer, installs the peers (tests/peers/install.sh), and
# writes tests/compat/out/report.json; the logs of Herald, the peers and the agents stay in
# tests/compat/out/work-<db>/ until the next run. Safe to rerun.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
db=sqlite
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db=$2; shift 2 ;;
    --filter) extra+=(--filter "$2"); shift 2 ;;
    --jobs) extra+=(--jobs "$2"); shift 2 ;;
    --write-docs) extra+=(--write-docs "$root/docs/api.md"); shift ;;
    *) echo "usage: $0 [--db sqlite|postgres] [--filter REGEX] [--jobs N] [--write-docs]" >&2; exit 2 ;;
  esac
done
case "$db" in sqlite|postgres) ;; *) echo "--db must be sqlite or postgres" >&2; exit 2 ;; esac

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
case "$CARGO_TARGET_DIR" in /*) ;; *) CARGO_TARGET_DIR="$root/$CARGO_TARGET_DIR" ;; esac
echo "compat: building herald and the rmcp peer (debug)"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p herald-gateway --bin herald
cargo build --quiet --manifest-path "$root/Cargo.toml" -p herald-compat-rmcp-peer
bash "$root/tests/peers/install.sh"

# A signal still runs the EXIT trap below (which drops the PostgreSQL database).
trap 'exit 143' TERM
trap 'exit 130' INT
database_url=""
if [ "$db" = postgres ]; then
  pg_isready -q -h 127.0.0.1 -p 5432 || { echo "compat: PostgreSQL is not running on 127.0.0.1:5432" >&2; exit 1; }
  # The herald_test_ prefix lets .ci/run sweep a database an interrupted run left behind.
  name="herald_test_compat_$(date +%s)_$$"
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $name"
  trap 'psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $name WITH (FORCE)" || true' EXIT
  database_url="postgres://postgres@127.0.0.1:5432/$name"
fi

"$root/tests/peers/.venv/bin/python" "$here/harness/run.py" \
  --herald-bin "$CARGO_TARGET_DIR/debug/herald" --rmcp-peer "$CARGO_TARGET_DIR/debug/compat-rmcp-peer" \
  --db-label "$db" ${database_url:+--database-url "$database_url"} --out "$here/out" "${extra[@]}"

#!/usr/bin/env bash
# Herald's benchmark suite, one command:
#
#   tests/bench/run.sh            the full suite (several minutes); the tables of docs/performance.md
#   tests/bench/run.sh --smoke    tiny counts, both databases: proves every flow works (CI)
#
# Builds herald and herald-bench in release (CARGO_TARGET_DIR as for every
# other script), checks that PostgreSQL is up on 127.0.0.1:5432, runs the
# credential-ask detector's benchmark and then the load driver, which prints
# a table and writes target/bench/results.json. Any further arguments go to
# herald-bench (`--help` lists them). Fails only on a broken flow, never on a
# number.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac

pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not answering on 127.0.0.1:5432"; exit 1; }

cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p herald-gateway -p herald-bench

# Ten thousand suspended calls and a thousand websockets need about 16,000
# descriptors in Herald and as many in the driver; herald inherits this limit.
ulimit -n "$(ulimit -Hn)"

mkdir -p "$target/bench"
detector="$target/bench/detector.txt"
cargo bench --quiet --manifest-path "$root/Cargo.toml" -p herald-policy --bench detector >"$detector"

exec "$target/release/herald-bench" --detector "$detector" "$@"

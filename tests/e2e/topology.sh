#!/usr/bin/env bash
# deploy/compose.yaml's topology as plain processes (no container engine here):
# a private PostgreSQL cluster made for this run, two `herald` replicas, HAProxy
# with deploy/haproxy/haproxy.cfg, and the demo MCP server upstream. topology.py
# drives the real flow through the load balancer, then the faults: kill -9 of
# the replica holding a suspended call, PostgreSQL restarted under load, SIGTERM.
#
#   tests/e2e/topology.sh            # builds the binaries (debug) unless given:
#   HERALD_BIN=… HERALD_DEMO_BIN=… tests/e2e/topology.sh
#   HERALD_TOPOLOGY_KEEP=1 tests/e2e/topology.sh     # keep the temp dir and its logs
#
# Needs haproxy (Debian's package) and PostgreSQL's server binaries under
# /usr/lib/postgresql/*/bin. Cleans up every process and its temp dir on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

command -v haproxy >/dev/null || { echo "topology.sh: haproxy is missing (apt-get install haproxy)"; exit 1; }
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
[ -x "$pgbin/initdb" ] || { echo "topology.sh: no PostgreSQL server binaries under /usr/lib/postgresql"; exit 1; }

if [ -z "${HERALD_BIN:-}" ] || [ -z "${HERALD_DEMO_BIN:-}" ]; then
  cargo build --quiet --manifest-path "$root/Cargo.toml" -p herald-gateway -p herald-demo-server --bins
  target="${CARGO_TARGET_DIR:-$root/target}/debug"
  HERALD_BIN="${HERALD_BIN:-$target/herald}"
  HERALD_DEMO_BIN="${HERALD_DEMO_BIN:-$target/herald-demo-server}"
fi

work=$(mktemp -d -t herald-topology.XXXXXX)
# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  as_pg=(runuser -u postgres --)
  chmod 755 "$work"
fi
pgdata="$work/pgdata"
pg_ctl="${as_pg[*]} $pgbin/pg_ctl -D $pgdata"

cleanup() {
  local status=$?
  for pidfile in "$work"/*.pid; do
    [ -e "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    # Each child runs in its own session: end the group it leads.
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  done
  [ -d "$pgdata" ] && $pg_ctl stop -m immediate >/dev/null 2>&1 || true
  if [ "$status" != 0 ]; then
    for log in "$work"/*.log; do
      [ -e "$log" ] || continue
      echo "--- last lines of $(basename "$log")"
      tail -n 15 "$log"
    done
  fi
  if [ -n "${HERALD_TOPOLOGY_KEEP:-}" ]; then echo "kept $work (logs)"; else rm -rf "$work"; fi
}
trap cleanup EXIT

pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
install -d -m 700 "$pgdata" "$work/pgrun"
[ "$(id -u)" = 0 ] && chown postgres: "$pgdata" "$work/pgrun"
"${as_pg[@]}" "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust --no-sync >"$work/initdb.log" 2>&1
cat >>"$pgdata/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pgport
unix_socket_directories = '$work/pgrun'
fsync = off
CONF
: >"$work/postgres.log"
[ "$(id -u)" = 0 ] && chown postgres: "$work/postgres.log"
$pg_ctl start -w -l "$work/postgres.log" >/dev/null
"$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres herald

WORK="$work" ROOT="$root" HERALD_BIN="$HERALD_BIN" HERALD_DEMO_BIN="$HERALD_DEMO_BIN" \
  PG_URL="postgres://postgres@127.0.0.1:$pgport/herald" PG_CTL="$pg_ctl" \
  python3 "$root/tests/e2e/topology.py"

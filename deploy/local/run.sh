#!/usr/bin/env bash
# Runs the topology of deploy/compose.yaml on one machine from installed binaries:
# a replicated PostgreSQL (a pg_auto_failover monitor and two nodes, a primary and its
# synchronous standby, each run by its pg_autoctl keeper; docs/database.md), three
# nats-server processes clustered with JetStream, and three `finledger serve` instances
# with production settings on the two-host database URL, all on 127.0.0.1. It prints
# the instances' base URLs and keeps running until SIGINT or SIGTERM, when it stops the
# instances, then NATS, then the nodes and the monitor. Should it be killed outright,
# its children get SIGTERM (SIGINT for pg_autoctl) from the kernel.
#
# Usage: deploy/local/run.sh [-p BASE_PORT] DIR
#
# DIR keeps everything: the monitor's and each node's PostgreSQL cluster
# (DIR/pg/monitor, DIR/pg/node-1, DIR/pg/node-2; pg_autoctl's configuration and state
# in DIR/pg/.config and DIR/pg/.local, its sockets in DIR/pg/sock), each NATS server's store and
# configuration (DIR/nats-N), each instance's data folder (DIR/finledger-N), the logs
# (DIR/logs), a pid file per process (DIR/NAME.pid) and the generated secrets
# (DIR/secrets.env). Run it again on the same DIR and it starts where it stopped.
#
# Ports, from BASE_PORT (default 15400):
#   BASE          PostgreSQL node 1     BASE+4       PostgreSQL node 2
#   BASE+5        the pg_auto_failover monitor
#   BASE+1..3     NATS clients          BASE+11..13  NATS cluster routes
#   BASE+21..23   NATS monitoring       BASE+31..33  the Finledger instances
#   BASE+41..43   the instances' metrics and profiles (FINLEDGER_ADMIN_ADDR)
#
# Environment:
#   FINLEDGER_BIN        the finledger binary (default: finledger on PATH)
#   NATS_SERVER          the nats-server binary, 2.10 or newer (default: on PATH)
#   FINLEDGER_PG_BINDIR  where initdb and postgres live (default: found as the service does)
#   PG_AUTOCTL           the pg_autoctl binary (default: on PATH, or in FINLEDGER_PG_BINDIR;
#                        Debian's package postgresql-15-auto-failover)
#   FINLEDGER_SECRET_KEY, FINLEDGER_SESSION_HS256_SECRET
#                        used when set; otherwise generated once into DIR/secrets.env
#   FINLEDGER_DEPLOYMENT the deployment's name on NATS (default: local)
#   Any other FINLEDGER_* setting reaches every instance as it is.
#
# As root, PostgreSQL and pg_autoctl run as the postgres user (or nobody), who must be
# able to enter every parent folder of DIR.
set -euo pipefail

usage() {
  sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

base_port=15400
while getopts "p:h" opt; do
  case "$opt" in
    p) base_port=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
[[ $base_port =~ ^[0-9]+$ ]] && [ "$base_port" -ge 1024 ] && [ "$base_port" -le 65500 ] || {
  echo "run.sh: BASE_PORT must be a number from 1024 to 65500" >&2
  exit 2
}
mkdir -p "$1"
dir=$(cd "$1" && pwd)

die() {
  echo "run.sh: $*" >&2
  exit 1
}

finledger=${FINLEDGER_BIN:-$(command -v finledger || true)}
[ -n "$finledger" ] && [ -x "$finledger" ] || die "no finledger binary: put it on PATH or set FINLEDGER_BIN (make build makes bin/finledger)"
nats=${NATS_SERVER:-$(command -v nats-server || true)}
[ -n "$nats" ] && [ -x "$nats" ] || die "no nats-server binary: put it on PATH or set NATS_SERVER"
# The script changes folders; the binaries are named by absolute paths.
finledger=$(readlink -f "$finledger")
nats=$(readlink -f "$nats")
command -v curl >/dev/null || die "curl is needed to wait for the servers"
command -v setpriv >/dev/null || die "setpriv (util-linux) is needed"

# The service keeps its stream's owner in stream metadata, which NATS has kept since 2.10.
nats_version=$("$nats" --version | sed -n 's/.*v\([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1 \2/p')
read -r nats_major nats_minor <<<"$nats_version"
if [ -z "${nats_major:-}" ] || [ "$nats_major" -lt 2 ] || { [ "$nats_major" -eq 2 ] && [ "$nats_minor" -lt 10 ]; }; then
  die "$nats is $("$nats" --version); the service needs nats-server 2.10 or newer (set NATS_SERVER; \`go build github.com/nats-io/nats-server/v2\` in the repository builds the version the service is built against)"
fi

pg_bindir() {
  if [ -n "${FINLEDGER_PG_BINDIR:-}" ]; then
    echo "$FINLEDGER_PG_BINDIR"
    return
  fi
  if command -v pg_config >/dev/null && [ -x "$(pg_config --bindir)/initdb" ]; then
    pg_config --bindir
    return
  fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
    [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && { echo "$d"; return; }
  done
  if command -v initdb >/dev/null; then
    dirname "$(readlink -f "$(command -v initdb)")"
    return
  fi
  die "PostgreSQL server binaries (initdb, postgres) not found; set FINLEDGER_PG_BINDIR"
}
pgbin=$(pg_bindir)
for b in initdb postgres pg_ctl pg_isready psql; do
  [ -x "$pgbin/$b" ] || die "$pgbin has no $b (FINLEDGER_PG_BINDIR)"
done
autoctl=${PG_AUTOCTL:-$(command -v pg_autoctl || true)}
[ -n "$autoctl" ] || [ ! -x "$pgbin/pg_autoctl" ] || autoctl=$pgbin/pg_autoctl
[ -n "$autoctl" ] && [ -x "$autoctl" ] ||
  die "no pg_autoctl (pg_auto_failover): apt-get install postgresql-15-auto-failover (for another PostgreSQL, postgresql-N-auto-failover), or set PG_AUTOCTL"
autoctl=$(readlink -f "$autoctl")
# PostgreSQL's sockets are in DIR/pg/sock, whose path must fit a socket's name.
[ ${#dir} -le 80 ] || die "DIR's path is longer than 80 characters, too long for PostgreSQL's sockets in it"

# PostgreSQL refuses to run as root: it then runs as postgres, or nobody.
as_pg=()
pg_user=$(id -un)
if [ "$(id -u)" -eq 0 ]; then
  if id postgres >/dev/null 2>&1; then pg_user=postgres; else pg_user=nobody; fi
  as_pg=(--reuid="$(id -u "$pg_user")" --regid="$(id -g "$pg_user")" --clear-groups)
  p=$dir
  while [ "$p" != / ]; do
    p=$(dirname "$p")
    setpriv "${as_pg[@]}" -- test -x "$p" ||
      die "PostgreSQL runs as $pg_user, who cannot enter $p; choose a DIR elsewhere (under /var/tmp, say) or chmod o+x $p"
  done
fi

# Secrets: the caller's, else those kept in DIR/secrets.env, else new ones kept there.
secrets=$dir/secrets.env
if [ -f "$secrets" ]; then
  # shellcheck disable=SC1090
  kept_key=$(. "$secrets" && echo "$FINLEDGER_SECRET_KEY")
  kept_session=$(. "$secrets" && echo "$FINLEDGER_SESSION_HS256_SECRET")
else
  kept_key=$(od -An -vtx1 -N32 /dev/urandom | tr -d ' \n')
  kept_session=$(od -An -vtx1 -N24 /dev/urandom | tr -d ' \n')
  (umask 077 && printf 'FINLEDGER_SECRET_KEY=%s\nFINLEDGER_SESSION_HS256_SECRET=%s\n' "$kept_key" "$kept_session" >"$secrets")
fi
export FINLEDGER_SECRET_KEY=${FINLEDGER_SECRET_KEY:-$kept_key}
export FINLEDGER_SESSION_HS256_SECRET=${FINLEDGER_SESSION_HS256_SECRET:-$kept_session}

mkdir -p "$dir/logs"
names=() pids=()

# start NAME STOPSIGNAL CMD...: runs CMD in the background with its output in
# DIR/logs/NAME.log and its pid in DIR/NAME.pid; the kernel sends it STOPSIGNAL should
# this script die without stopping it.
start() {
  local name=$1 sig=$2
  shift 2
  setpriv --pdeathsig "$sig" -- "$@" >>"$dir/logs/$name.log" 2>&1 &
  names+=("$name")
  pids+=("$!")
  echo "$!" >"$dir/$name.pid"
}

alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop_one I: sends process I its stop signal and waits up to 30 s, then kills it.
stop_one() {
  local name=${names[$1]} pid=${pids[$1]} sig=TERM
  case $name in pg-*) sig=INT ;; esac # pg_autoctl: a fast shutdown
  if alive "$pid"; then
    kill -s "$sig" "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 300; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      echo "run.sh: $name (pid $pid) did not stop in 30 s; killing it" >&2
      kill -s KILL "$pid" 2>/dev/null || true
    fi
  fi
  wait "$pid" 2>/dev/null || true
  rm -f "$dir/$name.pid"
}

stopping=0
stop_all() {
  [ "$stopping" -eq 0 ] || return 0
  stopping=1
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    stop_one "$i"
  done
}
trap 'echo "stopping" >&2; stop_all; exit 0' INT TERM
trap stop_all EXIT

# wait_for NAME CHECK...: waits up to 90 s for CHECK to succeed while NAME runs.
wait_for() {
  local name=$1 i pid=
  shift
  for i in "${!names[@]}"; do [ "${names[$i]}" = "$name" ] && pid=${pids[$i]}; done
  for ((i = 0; i < 900; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    alive "$pid" || die "$name exited while starting; the end of $dir/logs/$name.log:
$(tail -n 30 "$dir/logs/$name.log")"
    sleep 0.1
  done
  die "$name not ready after 90 s; the end of $dir/logs/$name.log:
$(tail -n 30 "$dir/logs/$name.log")"
}

# PostgreSQL: a pg_auto_failover monitor and a formation of two nodes, as the failover
# drill runs them (internal/testkit/pgfailover): trust and no TLS, since everything is
# on 127.0.0.1; the formation's settings for two nodes (number_sync_standbys 0, which
# with the one standby still makes the primary wait for it at each commit, both nodes in
# the replication quorum and candidates at the same priority). The first time, node 1
# becomes the primary and node 2 its standby by a base backup; after that each keeper
# carries on from its state, whichever node the monitor made the primary.
node_ports=("$base_port" "$((base_port + 4))")
monitor_port=$((base_port + 5))
sock=$dir/pg/sock
mkdir -p "$dir/pg/monitor" "$dir/pg/node-1" "$dir/pg/node-2" "$dir/pg/run" "$sock"
if [ "$(id -u)" -eq 0 ]; then chown -R "$pg_user" "$dir/pg"; fi
as_autoctl=(setpriv "${as_pg[@]}" -- env HOME="$dir/pg" XDG_CONFIG_HOME="$dir/pg/.config" XDG_DATA_HOME="$dir/pg/.local/share"
  XDG_RUNTIME_DIR="$dir/pg/run" PGHOST="$sock" PGUSER=finledger LC_ALL=C)

# initialise NAME: the cluster of DIR/pg/NAME/data, its superuser finledger, its sockets
# in DIR/pg/sock (pg_autoctl reaches its server through them).
initialise() {
  local data=$dir/pg/$1/data
  [ -f "$data/PG_VERSION" ] && return
  rm -rf "$data.initdb"
  (cd "$dir/pg" && setpriv "${as_pg[@]}" -- env HOME="$dir/pg" LC_ALL=C "$pgbin/initdb" -D "$data.initdb" \
    -U finledger --auth=trust --encoding=UTF8 --locale=C --no-sync >"$dir/logs/initdb-$1.log" 2>&1) ||
    die "initdb failed; see $dir/logs/initdb-$1.log"
  printf "unix_socket_directories = '%s'\nmax_connections = 200\n" "$sock" >>"$data.initdb/postgresql.auto.conf"
  mv "$data.initdb" "$data"
}

# created NAME: whether pg_autoctl has made NAME: its configuration exists, in
# DIR/pg/.config/pg_autoctl under the data folder's path (resolved, should DIR's have
# symbolic links).
created() {
  [ -n "$(find "$dir/pg/.config/pg_autoctl" -path "*/pg/$1/data/pg_autoctl.cfg" 2>/dev/null | head -n 1)" ]
}

monitor_sql() {
  "$pgbin/psql" -X -q -tA -h 127.0.0.1 -p "$monitor_port" -U finledger -d pg_auto_failover -v ON_ERROR_STOP=1 -c "$1"
}

cd "$dir/pg"
if created monitor; then
  start pg-monitor INT "${as_autoctl[@]}" "$autoctl" run --pgdata "$dir/pg/monitor/data"
else
  initialise monitor
  start pg-monitor INT "${as_autoctl[@]}" "$autoctl" create monitor --pgctl "$pgbin/pg_ctl" \
    --pgdata "$dir/pg/monitor/data" --pgport "$monitor_port" --hostname 127.0.0.1 \
    --auth trust --no-ssl --run
fi
wait_for pg-monitor monitor_sql "SELECT 1 FROM pgautofailover.formation"

# node N: runs node N's keeper, making the node the first time.
node() {
  local n=$1 port=${node_ports[$1 - 1]}
  if created "node-$n"; then
    start "pg-node-$n" INT "${as_autoctl[@]}" "$autoctl" run --pgdata "$dir/pg/node-$n/data"
    return
  fi
  if [ "$n" -eq 1 ]; then initialise node-1; fi # node 2 is a base backup of node 1
  start "pg-node-$n" INT "${as_autoctl[@]}" "$autoctl" create postgres --pgctl "$pgbin/pg_ctl" \
    --pgdata "$dir/pg/node-$n/data" --pgport "$port" --listen 127.0.0.1 --hostname 127.0.0.1 \
    --name "node-$n" --username finledger --dbname finledger --auth trust --no-ssl \
    --monitor "postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable" \
    --replication-quorum true --candidate-priority 50 --run
}

# node_single N: whether node N alone is the primary, as the monitor has assigned it.
node_single() {
  [ "$(monitor_sql "SELECT count(*) FROM pgautofailover.node WHERE nodename = 'node-$1' AND reportedstate::text = 'single' AND goalstate::text = 'single'")" = 1 ]
}

# formation_ready: one node the primary and the other its standby, both as assigned.
# Meanwhile it asks the primary for a checkpoint: a base backup starts from one.
formation_ready() {
  local state
  state=$(monitor_sql "SELECT string_agg(reportedstate::text || '/' || goalstate::text, ' ' ORDER BY reportedstate::text) FROM pgautofailover.node") || return 1
  [ "$state" = "primary/primary secondary/secondary" ] && return 0
  "$pgbin/psql" -X -q -d "$db_url" -c CHECKPOINT >/dev/null 2>&1 || true
  return 1
}

db_hosts="127.0.0.1:${node_ports[0]},127.0.0.1:${node_ports[1]}"
db_url="postgres://finledger@$db_hosts/finledger?sslmode=disable&target_session_attrs=read-write"
if created node-1 && created node-2; then
  node 1
  node 2
else
  # The first time, node 1 registers alone and becomes the primary (state single).
  node 1
  wait_for pg-node-1 node_single 1
  node 2
fi
cd "$dir"
wait_for pg-node-2 formation_ready
wait_for pg-node-1 "$pgbin/psql" -X -q -d "$db_url" -c "SELECT 1"

# NATS: three servers, each routed to the other two, JetStream on every one.
routes=""
nats_urls=""
for n in 1 2 3; do
  routes+="${routes:+, }\"nats-route://127.0.0.1:$((base_port + 10 + n))\""
  nats_urls+="${nats_urls:+,}nats://127.0.0.1:$((base_port + n))"
done
for n in 1 2 3; do
  mkdir -p "$dir/nats-$n/store"
  cat >"$dir/nats-$n/nats.conf" <<EOF
# Written by deploy/local/run.sh: node $n of 3, the shape of deploy/nats/nats.conf.
server_name: "n$n"
listen: "127.0.0.1:$((base_port + n))"
http: "127.0.0.1:$((base_port + 20 + n))"
jetstream {
  store_dir: "$dir/nats-$n/store"
}
cluster {
  name: "finledger-local"
  listen: "127.0.0.1:$((base_port + 10 + n))"
  routes: [$routes]
}
EOF
  start "nats-$n" TERM "$nats" -c "$dir/nats-$n/nats.conf"
done
for n in 1 2 3; do
  # /healthz is 200 once the server is current with the cluster's JetStream leader.
  wait_for "nats-$n" curl -sf "http://127.0.0.1:$((base_port + 20 + n))/healthz"
done

# The instances. Migrations run under an advisory lock, so they start together.
for n in 1 2 3; do
  mkdir -p "$dir/finledger-$n"
  start "finledger-$n" TERM env \
    FINLEDGER_ENV=production \
    FINLEDGER_DATABASE_URL="$db_url&application_name=finledger-$n" \
    FINLEDGER_HTTP_ADDR="127.0.0.1:$((base_port + 30 + n))" \
    FINLEDGER_ADMIN_ADDR="127.0.0.1:$((base_port + 40 + n))" \
    FINLEDGER_DATA_DIR="$dir/finledger-$n" \
    FINLEDGER_NATS_URL="$nats_urls" \
    FINLEDGER_NATS_REPLICAS=3 \
    FINLEDGER_DEPLOYMENT="${FINLEDGER_DEPLOYMENT:-local}" \
    FINLEDGER_WEBHOOK_ALLOW_PRIVATE="${FINLEDGER_WEBHOOK_ALLOW_PRIVATE:-true}" \
    "$finledger" serve
done
for n in 1 2 3; do
  wait_for "finledger-$n" curl -sf "http://127.0.0.1:$((base_port + 30 + n))/readyz"
done

cat <<EOF
finledger local cluster ready in $dir
  postgres     $db_url
               (pids: monitor $(cat "$dir/pg-monitor.pid"), node-1 $(cat "$dir/pg-node-1.pid"), node-2 $(cat "$dir/pg-node-2.pid"))
  nats         $nats_urls  (pids $(cat "$dir/nats-1.pid") $(cat "$dir/nats-2.pid") $(cat "$dir/nats-3.pid"))
  finledger-1  http://127.0.0.1:$((base_port + 31))  (pid $(cat "$dir/finledger-1.pid"))
  finledger-2  http://127.0.0.1:$((base_port + 32))  (pid $(cat "$dir/finledger-2.pid"))
  finledger-3  http://127.0.0.1:$((base_port + 33))  (pid $(cat "$dir/finledger-3.pid"))
  metrics      http://127.0.0.1:$((base_port + 41))/metrics .. $((base_port + 43))
A session token: set -a; . $secrets; set +a; $finledger token --sub me --email me@example.com
Logs are in $dir/logs. Ctrl-C stops everything.
EOF

# Until a signal: a process stopped on purpose (kill \$(cat DIR/nats-2.pid)) is not
# restarted, and the rest keep running.
while :; do
  wait || true
  alive_any=0
  for pid in "${pids[@]}"; do alive "$pid" && alive_any=1; done
  [ "$alive_any" -eq 1 ] || { echo "run.sh: every process has exited" >&2; exit 1; }
  sleep 1
done

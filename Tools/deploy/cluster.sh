# Sourced by Tools/deploy/nginx-check and Tools/deploy/replicas-check: `cloudgen serve` replicas on
# one data folder and, by default, a throwaway PostgreSQL 15 cluster as their shared index.
# The sourcing script sets `me` (its name, for messages), `work` (the work dir) and `keep` (1 keeps
# the work dir), then calls cluster_trap once. Afterwards:
#   start_cluster             initdb + start in $work/pg as the postgres user; sets $index (a URL)
#   stop_cluster / restart_cluster   pg_ctl stop -m fast / start again (same port, same data dir)
#   start_replica R PORT DIR [ARGS...]   `cloudgen serve` in the background, its output in
#                             $work/replica-R.out and .log; waits healthy; sets replica_pid[R]
#   wait_healthy NAME PID URL LOG   GET URL/healthz until it answers (exits the script if not)
#   free_port                 a port nothing listens on now
#   stop_all PID...           SIGTERM, then SIGKILL for those still running 30 s later
# Every process started here is stopped, and the cluster removed, when the script exits.
pids=()
replica_pid=()
cluster=""
pg=/usr/lib/postgresql/15/bin

# SIGTERM, then up to 30 s for each to finish its requests in flight: a process stuck in one
# (seen: an upload hanging on the index after a PostgreSQL restart) is killed, not waited for forever.
stop_all() {
    local pid i
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "$me: process $pid still running 30 s after SIGTERM: killed" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
}
cluster_finish() {
    stop_all "${pids[@]}"
    [ -z "$cluster" ] || as_postgres "$pg/pg_ctl" -D "$cluster" -w stop -m immediate >/dev/null 2>&1 || true
    if ((keep)); then echo "$me: work dir $work kept" >&2; else rm -rf "$work"; fi
}
cluster_trap() { trap cluster_finish EXIT; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits for GET URL/healthz; a process that exits meanwhile fails the check at once.
wait_healthy() {
    local name=$1 pid=$2 url=$3 log=$4 i
    for ((i = 0; i < 300; i++)); do
        kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; echo "$me: $name exited" >&2; exit 1; }
        curl -fsS -o /dev/null "$url/healthz" 2>/dev/null && return 0
        sleep 0.1
    done
    tail -n 20 "$log" >&2
    echo "$me: $name did not answer $url/healthz within 30 s" >&2
    exit 1
}

# PostgreSQL refuses to run as root: the cluster is the postgres user's, in a folder of its own.
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
start_cluster() {
    [ -x "$pg/initdb" ] || { echo "$me: $pg/initdb is missing: install postgresql-15 (Tools/bootstrap does)" >&2; exit 2; }
    cluster="$work/pg"
    # The postgres user must pass through the work dir (mktemp makes it the caller's alone).
    chmod o+x "$work"
    mkdir "$cluster"
    [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$cluster"
    chmod 700 "$cluster"
    as_postgres "$pg/initdb" -A trust -U postgres -E UTF8 --no-sync -D "$cluster" >"$work/initdb.log"
    pgport=$(free_port)
    restart_cluster
    as_postgres "$pg/psql" -h 127.0.0.1 -p "$pgport" -U postgres -q -c "CREATE DATABASE cloudgen"
    index="postgresql://postgres@127.0.0.1:$pgport/cloudgen?sslmode=disable"
}
restart_cluster() {
    as_postgres "$pg/pg_ctl" -D "$cluster" -l "$cluster/log" -w \
        -o "-p $pgport -k $cluster -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
}
stop_cluster() { as_postgres "$pg/pg_ctl" -D "$cluster" -w stop -m fast >/dev/null; }

start_replica() {
    local r=$1 port=$2 folder=$3
    shift 3
    "$cloudgen" serve --port "$port" --data "$folder" "$@" >"$work/replica-$r.out" 2>>"$work/replica-$r.log" &
    pids+=($!)
    replica_pid[r]=$!
    wait_healthy "replica $r" "$!" "http://127.0.0.1:$port" "$work/replica-$r.log"
}

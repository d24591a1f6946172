#!/usr/bin/env bash
# One cell of an innodb-lab report, reproduced with two mariadbd binaries,
# sysbench and this directory alone (no innodb-lab, no cargo, no client
# program): for each repetition, each side on a fresh server (datadir under
# /dev/shm, a unix socket only), the tables loaded, the warm-up, then the
# measured run between two reads of the pool's counters. It prints each
# run's hit ratio, each side's median beside the report's, the difference,
# and its own wall time. cell.env holds what was measured and how.
#
#   ./run.sh MARIADBD_OF_THE_FIRST_SIDE MARIADBD_OF_THE_SECOND [REPETITIONS]
#
# A mariadbd of a build tree (build/sql/mariadbd) is bootstrapped by the
# tree's scripts/mariadb-install-db, a packaged one (/usr/sbin/mariadbd) by
# the package's. Run as root, the servers run as $REPRO_USER (default
# mysql). $REPRO_DIR (default /dev/shm) holds the datadirs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$here/cell.env"
if [ $# -lt 2 ]; then
    echo "usage: $0 MARIADBD_OF_${SIDE_A} MARIADBD_OF_${SIDE_B} [REPETITIONS]" >&2
    exit 2
fi
bins=("$1" "$2")
sides=("$SIDE_A" "$SIDE_B")
reps=${3:-1}
for b in "${bins[@]}"; do
    [ -x "$b" ] || { echo "error: $b is not an executable mariadbd" >&2; exit 2; }
done
command -v sysbench >/dev/null || { echo "error: sysbench is not installed" >&2; exit 2; }
started=$(date +%s)
work=$(mktemp -d "${REPRO_DIR:-/dev/shm}/repro.XXXXXX")
user=
if [ "$(id -u)" = 0 ]; then
    user=${REPRO_USER:-mysql}
fi
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# how to bootstrap the datadir of mariadbd $1: sets install_db,
# install_args and the my.cnf lines that locate its messages
locate() {
    local bin_dir build_dir prefix src_dir
    bin_dir=$(cd "$(dirname "$1")" && pwd)
    build_dir=$(dirname "$bin_dir")
    location=()
    if [ -f "$build_dir/CMakeCache.txt" ]; then
        src_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build_dir/CMakeCache.txt")
        install_db=$build_dir/scripts/mariadb-install-db
        install_args=("--srcdir=$src_dir" "--builddir=$build_dir")
        location=("lc_messages_dir=$build_dir/sql/share" "character_sets_dir=$src_dir/sql/share/charsets")
    else
        prefix=$(dirname "$bin_dir")
        install_db=$prefix/bin/mariadb-install-db
        install_args=("--basedir=$prefix")
    fi
    [ -x "$install_db" ] || { echo "error: no $install_db beside $1" >&2; exit 2; }
}

# the counters of the server on socket $1, as "read_requests reads"
counters() {
    sysbench "$here/lab.lua" --db-driver=mysql --mysql-socket="$1" --mysql-user=root \
        --mysql-db=mysql status |
        awk '/^Innodb_buffer_pool_read_requests /{q=$2} /^Innodb_buffer_pool_reads /{r=$2} END{print q, r}'
}

# a script of this directory (lua/x.lua), or a sysbench built-in by name
script() {
    case $1 in
        *.lua) echo "$here/$1" ;;
        *) echo "$1" ;;
    esac
}

# runs the command after $1 with its output in the log $1; on failure
# the log's tail, and the script stops
phase() {
    local log=$1
    shift
    if ! "$@" >"$log" 2>&1; then
        tail -20 "$log" >&2
        echo "error: failed: $*" >&2
        exit 1
    fi
}

# one run of side $1 (0 or 1), repetition $2: prints its result line
one_run() {
    local side=${sides[$1]} bin=${bins[$1]} dir sock before after
    dir=$work/$side-$2
    sock=$dir/s.sock
    mkdir -p "$dir/data" "$dir/tmp"
    locate "$bin"
    {
        cat "$here/$side.cnf"
        echo "datadir=$dir/data"
        echo "innodb_data_home_dir=$dir/data"
        echo "innodb_log_group_home_dir=$dir/data"
        echo "tmpdir=$dir/tmp"
        echo "socket=$sock"
        echo "pid_file=$dir/mariadbd.pid"
        echo "log_error=$dir/error.log"
        echo "log_bin=$dir/bl"
        echo "skip_networking=1"
        for l in "${location[@]}"; do echo "$l"; done
        if [ -n "$user" ]; then echo "user=$user"; fi
    } >"$dir/my.cnf"
    if [ -n "$user" ]; then chown -R "$user" "$work"; fi
    "$install_db" --defaults-file="$dir/my.cnf" "${install_args[@]}" --datadir="$dir/data" \
        --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve \
        ${user:+--user=$user} >"$dir/bootstrap.log" 2>&1 ||
        { tail -20 "$dir/bootstrap.log" >&2; echo "error: bootstrap of $side failed" >&2; exit 1; }
    "$bin" --defaults-file="$dir/my.cnf" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 240); do
        [ -S "$sock" ] && break
        kill -0 "$pid" 2>/dev/null || { tail -20 "$dir/error.log" >&2; echo "error: $side did not start" >&2; exit 1; }
        sleep 0.5
    done
    [ -S "$sock" ] || { echo "error: $side did not open $sock in 120 s" >&2; exit 1; }
    local sb=(sysbench --db-driver=mysql --mysql-socket="$sock" --mysql-user=root)
    phase "$dir/createdb.log" "${sb[@]}" "$here/lab.lua" --mysql-db=mysql createdb
    # shellcheck disable=SC2086
    phase "$dir/prepare.log" "${sb[@]}" "$(script "$PREPARE_SCRIPT")" --mysql-db=sbtest $PREPARE_OPTIONS prepare
    if [ "$ARM_SECONDS" -gt 0 ]; then
        # shellcheck disable=SC2086
        phase "$dir/arm.log" "${sb[@]}" oltp_read_write --mysql-db=sbtest $ARM_OPTIONS --time="$ARM_SECONDS" --events=0 run
    fi
    phase "$dir/idle.log" "${sb[@]}" "$here/lab.lua" --mysql-db=mysql idle
    # shellcheck disable=SC2086
    phase "$dir/warm-up.log" "${sb[@]}" "$(script "$RUN_SCRIPT")" --mysql-db=sbtest $RUN_OPTIONS --time="$WARMUP_SECONDS" --events=0 run
    before=$(counters "$sock")
    # shellcheck disable=SC2086
    phase "$dir/measured.log" "${sb[@]}" "$(script "$RUN_SCRIPT")" --mysql-db=sbtest $RUN_OPTIONS --time="$MEASURE_SECONDS" --events=0 run
    after=$(counters "$sock")
    kill -TERM "$pid"
    wait "$pid" || true
    pid=
    echo "$before $after" | awk -v side="$side" -v rep="$2" \
        -v qps="$(sed -n 's/.*queries: *[0-9]* *(\([0-9.]*\) per sec.*/\1/p' "$dir/measured.log")" \
        '{q=$3-$1; r=$4-$2; printf "run %s rep %d: hit ratio %.2f%% (%d pages read of %d read requests), %s queries a second\n", side, rep, 100*(1-r/q), r, q, qps}'
    rm -rf "$dir"
}

echo "reproducing $REPORT: $CELL, $SIDE_A against $SIDE_B, $reps repetition(s)"
results=$work/results
: >"$results"
for rep in $(seq 1 "$reps"); do
    for i in 0 1; do
        # not in a pipe: the server's pid stays in this shell for the trap
        one_run "$i" "$rep" >>"$results"
        tail -1 "$results"
    done
done
median() {
    grep "^run $1 " "$results" | sed 's/.*hit ratio \([0-9.]*\)%.*/\1/' | sort -n |
        awk '{v[NR]=$1} END{if (NR%2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'
}
a=$(median "$SIDE_A")
b=$(median "$SIDE_B")
printf "median %s: %.2f%% (the report: %s%%)\n" "$SIDE_A" "$a" "$REPORT_A"
printf "median %s: %.2f%% (the report: %s%%)\n" "$SIDE_B" "$b" "$REPORT_B"
awk -v a="$a" -v b="$b" -v ra="$REPORT_A" -v rb="$REPORT_B" -v sa="$SIDE_B" -v sb="$SIDE_A" \
    'BEGIN{printf "difference %s less %s: %+.2f points (the report: %+.2f)\n", sa, sb, b-a, rb-ra}'
echo "wall time: $(( $(date +%s) - started )) s"

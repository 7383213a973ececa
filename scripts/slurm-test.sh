#!/bin/bash
# Tests `mulino tb plan --format slurm` on a real single-node Slurm cluster
# (started here by hand, as root, without systemd; see docs/databases.md,
# "Building on a cluster").
#
#   scripts/slurm-test.sh            # MULINO=path/to/mulino PIECES=6 KEEP=1 optional
#
# 1. a reference build in one process (`tb build --pieces N`);
# 2. the same build as Slurm jobs (`tb plan --format slurm`), compared byte for byte;
# 3. a kill test: a few pairs' files deleted, the script run again, one job
#    with dependents killed with SIGKILL while it runs, the script run again
#    (it cancels the jobs left waiting and resubmits what is missing), compared again;
# 4. the checks of the pairs up to 4-4 as jobs (`tb plan --check`): only they are
#    submitted, each leaves its notes, and a second run submits nothing.
# Prints a PASS line with the timings; exits nonzero on any failure.
set -euo pipefail

PIECES=${PIECES:-6}
QUEUE_TIMEOUT=${QUEUE_TIMEOUT:-900}   # seconds a queue may take to empty
cd "$(dirname "$0")/.."
ROOT=$PWD
MULINO=${MULINO:-target/release/mulino}

log() { echo "slurm-test: $*" >&2; }
die() { echo "slurm-test: FAIL: $*" >&2; exit 1; }
now() { date +%s; }
T0=$(now)

# --- packages ---------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
   ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm and munge"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmd slurmctld slurm-client munge
fi
[ "$(id -u)" = 0 ] || die "run as root (the daemons run as root here)"

# --- the binary ---------------------------------------------------------------
if [ ! -x "$MULINO" ]; then
    log "building $MULINO"
    cargo build --release
fi
[ -x "$MULINO" ] || die "no binary at $MULINO"
MULINO=$(readlink -f "$MULINO")

T=$(mktemp -d /tmp/slurm-test.XXXXXX)
S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$T/work"

# --- the cluster --------------------------------------------------------------
PIDS=()        # daemons this script started, stopped on exit
MUNGE_PID=
alive() { ps -p "$1" -o stat= 2>/dev/null | grep -qv '^Z'; }
cleanup() {
    local rc=$?
    if [ -n "${PREFIX:-}" ] && command -v squeue >/dev/null; then
        squeue -h -o '%i %j' 2>/dev/null | awk -v p="$PREFIX" 'index($2, p"-")==1 {print $1}' |
            xargs -r scancel 2>/dev/null || true
    fi
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ -n "${KEEP:-}" ] || [ "$rc" != 0 ]; then
        log "files kept in $T"
    else
        rm -rf "$T"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# munge: a key readable by munge only, then munged unless it runs already.
if [ ! -s /etc/munge/munge.key ]; then
    log "creating /etc/munge/munge.key"
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
    chown munge:munge /etc/munge/munge.key
    chmod 400 /etc/munge/munge.key
fi
if ! munge -n >/dev/null 2>&1; then   # (not pgrep: a stopped munged may stay a zombie)
    mkdir -p /run/munge && chown munge:munge /run/munge
    su -s /bin/sh munge -c /usr/sbin/munged
    for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
    MUNGE_PID=$(cat /run/munge/munged.pid 2>/dev/null || pgrep -x -u munge munged)
    PIDS+=("$MUNGE_PID")
fi
munge -n | unmunge >/dev/null || die "munge does not work"

# (zombies do not count: this machine's init may leave stopped daemons unreaped)
running() { ps -C "$1" -o pid=,stat= | awk '$2 !~ /^Z/ {print $1}'; }
[ -z "$(running slurmctld)" ] || die "a slurmctld runs already (pid $(running slurmctld)); stop it first"
[ -z "$(running slurmd)" ] || die "a slurmd runs already (pid $(running slurmd)); stop it first"

HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ {print int($2 / 1024)}' /proc/meminfo)
[ "$MEM" -gt 20000 ] && MEM=20000
export SLURM_CONF=$S/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=local
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SchedulerParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
MinJobAge=600
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=main Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
/usr/sbin/slurmctld -D -i >"$S/slurmctld.out" 2>&1 &
PIDS+=($!)
sleep 1
/usr/sbin/slurmd -D >"$S/slurmd.out" 2>&1 &
PIDS+=($!)
T_UP=$(now)
until sinfo -h -o '%T' 2>/dev/null | grep -qx idle; do
    if [ $(( $(now) - T_UP )) -gt 60 ]; then
        sinfo 2>&1 || true
        tail -n 20 "$S"/*.log "$S"/*.out 2>/dev/null || true
        die "the node is not idle after 60 s"
    fi
    for pid in "${PIDS[@]}"; do alive "$pid" || { tail -n 20 "$S"/*.log "$S"/*.out || true; die "a daemon (pid $pid) died"; }; done
    sleep 1
done
log "cluster up: $(sinfo -h -o '%P %D %T %c cpus %m MB')"
T_CLUSTER=$(( $(now) - T0 ))

# --- helpers ------------------------------------------------------------------
OPTS=(--pieces "$PIECES")
# This plan's jobs in the queue: "id name state reason".
our_jobs() { squeue -h -o '%i %j %T %r' | awk -v p="$PREFIX" 'index($2, p"-")==1'; }
dump_queue() {
    echo "--- squeue" >&2; squeue -o '%.8i %.30j %.10T %.8M %r' >&2 || true
    for f in "$T"/work/slurm-*.out; do [ -e "$f" ] || continue; echo "--- $f" >&2; tail -n 5 "$f" >&2; done
}
# Waits until none of this plan's jobs is in the queue except those the test
# function $1 lets stay (by default: none).
wait_queue() {
    local what=$1 keep=${2:-}
    local start left
    start=$(now)
    while :; do
        left=$(our_jobs)
        [ -n "$keep" ] && left=$(echo "$left" | awk '$4 != "DependencyNeverSatisfied"')
        [ -z "$left" ] && break
        if [ $(( $(now) - start )) -gt "$QUEUE_TIMEOUT" ]; then
            dump_queue
            die "$what: the queue did not empty within $QUEUE_TIMEOUT s"
        fi
        sleep 2
    done
}
run_plan() {
    # Without USER, as under su -c or in a bare container.
    (cd "$T/work" && env -u USER bash "$T/plan.sh") >"$T/submit.$1.txt" 2>&1 || { cat "$T/submit.$1.txt" >&2; die "plan.sh ($1) failed"; }
    log "plan.sh ($1): $(wc -l <"$T/submit.$1.txt") jobs submitted: $(awk '{printf "%s ", $1}' "$T/submit.$1.txt")"
}
# The database files of a folder, without the checked list, locks and temporary files.
db_files() { (cd "$1" && find . -maxdepth 1 -type f ! -name '.mulino-checked*' ! -name '*.lock' ! -name '*tmp*' -printf '%f\n' | sort); }
compare() {
    local what=$1
    diff <(db_files "$T/ref") <(db_files "$T/shared") >&2 || die "$what: not the same files in ref and shared"
    local n=0 f
    while read -r f; do
        cmp "$T/ref/$f" "$T/shared/$f" || die "$what: $f differs"
        n=$((n + 1))
    done < <(db_files "$T/ref")
    [ "$n" -gt 0 ] || die "$what: no files"
    log "$what: $n files equal byte for byte"
}
failed_jobs() {
    # A job that failed says so in its output; sacct is not there (no accounting).
    grep -l -i -E 'error|panicked' "$T"/work/slurm-*.out 2>/dev/null || true
}

# --- 1. the reference -------------------------------------------------------------
s=$(now)
"$MULINO" tb build "${OPTS[@]}" --dir "$T/ref" >"$T/ref.log" 2>&1 || { tail "$T/ref.log" >&2; die "reference build failed"; }
T_REF=$(( $(now) - s ))
log "reference: $(db_files "$T/ref" | wc -l) files in ${T_REF} s"

# --- 2. the same build on Slurm -------------------------------------------------
"$MULINO" tb plan "${OPTS[@]}" --dir "$T/shared" --format slurm >"$T/plan.sh"
PREFIX=$(sed -n 's/^PREFIX=//p' "$T/plan.sh")
[ -n "$PREFIX" ] || die "no PREFIX in plan.sh"
NJOBS=$(grep -c '^if ! done_all' "$T/plan.sh")
s=$(now)
run_plan first
wait_queue "slurm build"
T_SLURM=$(( $(now) - s ))
[ -z "$(failed_jobs)" ] || { dump_queue; log "jobs that failed: $(failed_jobs)"; }
compare "slurm build"

# --- 3. the kill test -----------------------------------------------------------
# The largest pair (no dependents) and the one before it, which 6-6 waits for:
# the second is killed, so its dependent waits as DependencyNeverSatisfied.
LAST=$PIECES-$PIECES
VICTIM=$PIECES-$((PIECES - 1))
for p in "$LAST" "$VICTIM" "$((PIECES - 1))-$PIECES"; do rm -f "$T/shared/mulino-$p".* "$T/shared/mulino-$p"-n*; done
s=$(now)
run_plan kill
grep -q "^moving-$VICTIM " "$T/submit.kill.txt" || die "moving-$VICTIM was not resubmitted"
start=$(now)
until our_jobs | awk -v n="$PREFIX-moving-$VICTIM" '$2 == n && $3 == "RUNNING"' | grep -q .; do
    [ $(( $(now) - start )) -gt "$QUEUE_TIMEOUT" ] && { dump_queue; die "moving-$VICTIM never ran"; }
    sleep 0.5
done
# The job runs; its process may take a moment to start.
start=$(now)
until pgrep -f -- "--job moving-$VICTIM " >/dev/null; do
    [ $(( $(now) - start )) -gt 30 ] && { dump_queue; die "no process of moving-$VICTIM"; }
    sleep 0.2
done
sleep 3   # let it write something
log "killing moving-$VICTIM (pid $(pgrep -f -- "--job moving-$VICTIM " | tr '\n' ' '))"
pkill -9 -f -- "--job moving-$VICTIM "
wait_queue "after the kill" keep-never-satisfied
WAITING=$(our_jobs | awk '{print $2}' | sed "s/^$PREFIX-//" | tr '\n' ' ')
log "left waiting as DependencyNeverSatisfied: ${WAITING:-none}"
[ -n "$WAITING" ] || die "no job was left waiting on the killed one (did the kill hit?)"
TMP_AFTER_KILL=$(cd "$T/shared" && find . -maxdepth 1 -name '*tmp*' -printf '%f ' )
[ ! -e "$T/shared/mulino-$VICTIM.tb" ] || log "note: mulino-$VICTIM.tb exists after the kill"
run_plan rerun
wait_queue "rerun after the kill"
T_KILL=$(( $(now) - s ))
[ -z "$(our_jobs)" ] || die "jobs left in the queue"
compare "after the kill"
TMP_LEFT=$(cd "$T/shared" && find . -maxdepth 1 -name '*tmp*' -printf '%f ' )
log "temporary files after the kill: ${TMP_AFTER_KILL:-none}; at the end: ${TMP_LEFT:-none}"
RESUB=$(wc -l <"$T/submit.rerun.txt")

# --- 4. checks as jobs -----------------------------------------------------------
# The plan of the pairs up to 4-4 with its checks, over the folder built above:
# the builds are done, so only the checks are submitted; each leaves its notes,
# and the script run again submits nothing.
"$MULINO" tb plan --pieces 4 --check --dir "$T/shared" --format slurm >"$T/plan.sh"
PREFIX=$(sed -n 's/^PREFIX=//p' "$T/plan.sh")
s=$(now)
run_plan checks
grep -q '^moving-' "$T/submit.checks.txt" && die "a finished build was submitted again"
NCHECKS=$(grep -c '^check-moving-' "$T/submit.checks.txt" || true)
[ "$NCHECKS" = 3 ] || die "$NCHECKS checks submitted, not 3"
wait_queue "checks"
for f in 3-3 4-3 3-4 4-4; do
    [ -e "$T/shared/mulino-$f.tb.verified" ] && [ -e "$T/shared/mulino-$f.dtz.verified" ] ||
        { dump_queue; die "no note that mulino-$f passed its check"; }
done
run_plan checks-again
[ ! -s "$T/submit.checks-again.txt" ] || die "checks done were submitted again"
T_CHECKS=$(( $(now) - s ))

T_ALL=$(( $(now) - T0 ))
echo "PASS: slurm-test --pieces $PIECES: $NJOBS jobs; cluster up ${T_CLUSTER} s, reference ${T_REF} s, slurm build ${T_SLURM} s, kill test ${T_KILL} s (rerun submitted $RESUB jobs), checks ${T_CHECKS} s ($NCHECKS jobs), total ${T_ALL} s"

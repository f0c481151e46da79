#!/usr/bin/env bash
# A two-node Slurm test cluster on this one machine, for mlb's Slurm tests:
# two slurmd (nodes n1 and n2, both on localhost, distinct ports), one
# slurmctld and munged, started without systemd. Run as root.
#
#   scripts/setup-slurm.sh         # install (apt, first use) and start; idempotent
#   scripts/setup-slurm.sh stop    # stop the daemons it started, by pid
#   scripts/setup-slurm.sh status  # exit 0 when the cluster answers with both nodes idle
#
# Everything lives in ${MLB_SLURM_DIR:-/run/mlb-slurm}: slurm.conf, state,
# spools, logs and pid files. The cluster's srun and slurmd load a stand-in
# of pyxis (scripts/slurm/pyxis-standin.c, built here; it registers pyxis's
# options when MLB_PYXIS_STANDIN=1 and logs what each task was asked into
# pyxis-standin.log, running no container). Clients find the cluster through
#   export SLURM_CONF=${MLB_SLURM_DIR:-/run/mlb-slurm}/slurm.conf
# (the tests read the same variable MLB_SLURM_DIR).
set -euo pipefail

dir=${MLB_SLURM_DIR:-/run/mlb-slurm}
conf=$dir/slurm.conf
export SLURM_CONF=$conf
timeout=${SLURM_SETUP_TIMEOUT:-60}

say() { echo "setup-slurm: $*"; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

answers() {
    [ -f "$conf" ] || return 1
    local idle
    idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 ~ /^(idle|mix|alloc|comp)$/ {print $1}' | sort -u | wc -l)
    [ "$idle" = 2 ]
}

stop() {
    for name in slurmd-n1 slurmd-n2 slurmctld munged; do
        local pidfile=$dir/$name.pid
        if pid_alive "$pidfile"; then
            kill "$(cat "$pidfile")" 2>/dev/null || true
            for _ in $(seq 50); do pid_alive "$pidfile" || break; sleep 0.1; done
            pid_alive "$pidfile" && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
            say "stopped $name"
        fi
        rm -f "$pidfile"
    done
}

case "${1:-start}" in
    stop) stop; exit 0 ;;
    status) answers; exit $? ;;
    start) ;;
    *) echo "usage: $0 [start|stop|status]" >&2; exit 2 ;;
esac

# A running cluster is kept when it was started by this version of the
# script (its pyxis stand-in loaded); one started by an older one is restarted.
if answers && grep -q '^PlugStackConfig=' "$conf" && [ -f "$dir/pyxis-standin.so" ]; then
    say "the cluster is running (SLURM_CONF=$conf)"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "setup-slurm: the test cluster is not running and this script needs root to install or start it" >&2
    exit 1
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 \
    || [ ! -f /usr/include/slurm/spank.h ] || ! command -v cc >/dev/null 2>&1; then
    say "installing slurm-wlm, munge, libslurm-dev and a C compiler with apt"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q slurm-wlm munge libslurm-dev gcc libc6-dev
fi

# A fresh cluster: stop what an earlier start left, new state.
stop
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool-n1" "$dir/spool-n2" "$dir/munge"
chmod 0700 "$dir/munge"

# munge: its own key, socket and pid file under $dir (no system service needed).
key=$dir/munge/munge.key
dd if=/dev/urandom of="$key" bs=1024 count=1 status=none
chmod 0400 "$key"
socket=$dir/munge/munge.socket
munged --force --key-file="$key" --socket="$socket" --pid-file="$dir/munged.pid" \
    --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"

# The pyxis stand-in, loaded by srun and slurmd through plugstack.conf.
cc -O2 -Wall -shared -fPIC -o "$dir/pyxis-standin.so" "$(dirname "$0")/slurm/pyxis-standin.c"
echo "optional $dir/pyxis-standin.so log=$dir/pyxis-standin.log" >"$dir/plugstack.conf"

cpus=$(( $(nproc) >= 2 ? 2 : 1 ))
memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 4 ))
cat >"$conf" <<EOF
# mlb's two-node test cluster on one machine (scripts/setup-slurm.sh).
ClusterName=mlbtest
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
ReturnToService=2
MpiDefault=none
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmdSpoolDir=$dir/spool-%n
StateSaveLocation=$dir/state
SlurmctldLogFile=$dir/ctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
KillWait=5
InactiveLimit=0
MessageTimeout=20
PlugStackConfig=$dir/plugstack.conf
NodeName=n1 NodeHostname=localhost Port=17001 CPUs=$cpus RealMemory=$memory_mb
NodeName=n2 NodeHostname=localhost Port=17002 CPUs=$cpus RealMemory=$memory_mb
PartitionName=main Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -f "$conf" -i
slurmd -f "$conf" -N n1
slurmd -f "$conf" -N n2

for _ in $(seq "$timeout"); do
    if answers; then
        say "the cluster is running: nodes n1 n2 (SLURM_CONF=$conf)"
        exit 0
    fi
    sleep 1
done
echo "setup-slurm: the cluster did not come up within ${timeout}s; logs in $dir" >&2
tail -n 20 "$dir/ctld.log" "$dir"/slurmd-*.log >&2 || true
exit 1

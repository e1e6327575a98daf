#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on localhost, for the `slurm` tests and for trying
# workflow/profiles/slurm before spending a real cluster's hours (docs/cluster.md).
#
#   tests/slurm/local_cluster.sh start DIR   # writes DIR/etc/slurm.conf, starts the daemons
#   eval "$(tests/slurm/local_cluster.sh start DIR)"   # the same, and sets SLURM_CONF and PATH
#   export SLURM_CONF=DIR/etc/slurm.conf PATH=DIR/bin:$PATH   # what that eval sets
#   tests/slurm/local_cluster.sh stop DIR    # cancels its jobs, stops exactly DIR's daemons
#
# Everything lives in DIR: munge key and socket, slurm.conf, gres.conf, state, spool, logs,
# and the pid of each daemon (DIR/pids/*.pid, recorded from `$!`, the daemons run in the
# foreground). Ports are picked free at start, so clusters of several users can coexist on
# one machine. No accounting daemon (slurmdbd): `sacct` is disabled, as on many small sites.
#
# Partitions are named `cpu` (default) and `gpu`, the names of workflow/profiles/slurm, so the
# profile runs unchanged. The node has one generic `gpu` GRES (gres.conf below): a job asking
# `--gpus=1` is scheduled on it as on a real GPU node, and runs on CPU.
# The node advertises 64 GB (SlurmdParameters=config_overrides) so that the rules' own requests
# (32 GB for the GPU rules) are schedulable; without cgroups nothing enforces the limits.
#
# Needs slurm-wlm and munge (Debian: `apt-get install -y slurm-wlm munge`); run as root, as
# CI does (slurmd starts job steps as the submitting user).
set -euo pipefail

usage() { echo "usage: $0 start|stop|status DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
conf=$dir/etc/slurm.conf

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND until it succeeds
  local limit=$1 what=$2; shift 2
  for ((i = 0; i < limit * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  echo "local_cluster: $what did not come up within ${limit}s; logs in $dir/log" >&2
  tail -n 20 "$dir"/log/*.log >&2 || true
  return 1
}

start() {
  for exe in munged slurmctld slurmd sbatch; do
    command -v "$exe" >/dev/null || { echo "local_cluster: $exe not found (apt-get install -y slurm-wlm munge)" >&2; exit 1; }
  done
  if [[ -e $dir/pids ]] && compgen -G "$dir/pids/*.pid" >/dev/null; then
    echo "local_cluster: $dir already has daemons recorded; run '$0 stop $dir' first" >&2; exit 1
  fi
  # munged insists that every directory above its socket is searchable by all (0755).
  chmod 755 "$dir"
  mkdir -p "$dir"/{etc,munge,state,spool,log,pids}
  chmod 755 "$dir/munge"
  local host user hw ctld_port slurmd_port
  host=$(hostname -s)
  user=$(id -un)
  # The node's CPU layout as slurmd itself detects it ("CPUs=2 Boards=1 SocketsPerBoard=1 ...").
  hw=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
  ctld_port=$(free_port)
  slurmd_port=$(free_port)
  while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done

  # munge: a fresh key for this cluster only.
  head -c 1024 /dev/urandom >"$dir/munge/munge.key"
  chmod 400 "$dir/munge/munge.key"

  cat >"$conf" <<CONF
# Written by tests/slurm/local_cluster.sh: a single-node cluster on localhost.
ClusterName=evalsci-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/state/slurmctld.pid
SlurmdPidFile=$dir/spool/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: processes are tracked by their parent pids, nothing is confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
GresTypes=gpu
# Finished jobs stay visible to squeue for MinJobAge seconds: the slurm executor polls with
# squeue when sacct is disabled, and needs MinJobAge >= 3x its first status-check delay.
MinJobAge=300
# scancel/timeout: SIGTERM, then SIGKILL after KillWait seconds.
KillWait=5
ReturnToService=2
SlurmdParameters=config_overrides
SchedulerParameters=sched_interval=2
NodeName=$host NodeAddr=127.0.0.1 $hw RealMemory=64000 Gres=gpu:1 State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
CONF
  # One GPU by count. Slurm 22.05 drops a GPU without a device file ("Removing file-less GPU"),
  # so it names /dev/null: nothing confines devices here (task/none), the job just runs on CPU.
  cat >"$dir/etc/gres.conf" <<CONF
AutoDetect=off
NodeName=$host Name=gpu Count=1 File=/dev/null
CONF
  export SLURM_CONF=$conf

  # Inside a job, snakemake-executor-plugin-slurm-jobstep (0.6.1) drops every SLURM_* variable,
  # SLURM_CONF included, before its `srun`; srun then looks for /etc/slurm/slurm.conf and dies
  # ("Could not establish a configuration source"). Any site whose config lives elsewhere hits
  # this; here an srun on PATH puts SLURM_CONF back.
  mkdir -p "$dir/bin"
  cat >"$dir/bin/srun" <<SH
#!/bin/sh
export SLURM_CONF="\${SLURM_CONF:-$conf}"
exec $(command -v srun) "\$@"
SH
  chmod 755 "$dir/bin/srun"

  munged --foreground --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" \
    --seed-file="$dir/munge/munged.seed" --force </dev/null >>"$dir/log/munged.out" 2>&1 &
  echo $! >"$dir/pids/munged.pid"
  wait_for 10 munged test -S "$dir/munge/munge.socket" || { stop; exit 1; }

  slurmctld -D -i -f "$conf" </dev/null >>"$dir/log/slurmctld.out" 2>&1 &
  echo $! >"$dir/pids/slurmctld.pid"
  wait_for 30 slurmctld bash -c "scontrol ping | grep -q UP" || { stop; exit 1; }

  slurmd -D -f "$conf" </dev/null >>"$dir/log/slurmd.out" 2>&1 &
  echo $! >"$dir/pids/slurmd.pid"
  wait_for 60 "the node" bash -c "sinfo -h -N -o %T | grep -qx idle" || { stop; exit 1; }
  echo "local_cluster: up in $dir (pids $(cat "$dir"/pids/*.pid | tr '\n' ' '))" >&2
  echo "export SLURM_CONF=$conf PATH=$dir/bin:\$PATH"
}

stop() {
  [[ -d $dir/pids ]] || { echo "local_cluster: nothing recorded in $dir/pids" >&2; return 0; }
  export SLURM_CONF=$conf
  # The jobs first: their slurmstepd processes outlive slurmd otherwise. The cluster is this
  # directory's own, so every job on it is ours.
  if [[ -f $dir/pids/slurmctld.pid ]] && kill -0 "$(cat "$dir/pids/slurmctld.pid")" 2>/dev/null; then
    scancel --full --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      [[ -z $(squeue -h -t running,completing,pending -o %i 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
  local name pid
  for name in slurmd slurmctld munged; do
    [[ -f $dir/pids/$name.pid ]] || continue
    pid=$(cat "$dir/pids/$name.pid")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid"
      for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    fi
    rm -f "$dir/pids/$name.pid"
  done
  echo "local_cluster: stopped the daemons of $dir" >&2
}

status() {
  local name pid
  for name in munged slurmctld slurmd; do
    pid=$(cat "$dir/pids/$name.pid" 2>/dev/null || echo -)
    if [[ $pid != - ]] && kill -0 "$pid" 2>/dev/null; then echo "$name $pid running"; else echo "$name $pid stopped"; fi
  done
}

case $cmd in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac

# A single-node Slurm for the tests, sourced by tests/t_cluster.sh: slurmctld and slurmd from Debian's packages,
# every file under one folder ($SLURM_DIR), on the loopback address (the host's name need not resolve),
# non-default ports, no munge (auth/none), no systemd, and NGPU fake
# GPUs as gres whose devices are symbolic links to /dev/null (Slurm sets CUDA_VISIBLE_DEVICES from them).
# slurm_start FOLDER NGPU starts it and waits until the node is idle; slurm_stop stops both daemons by their
# pids (the caller traps EXIT to it, so that they stop whatever happens).
slurm_start() {
    SLURM_DIR=$1
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool" "$SLURM_DIR/dev"
    host=$(hostname -s)
    i=0
    while [ $i -lt "$2" ]; do ln -sf /dev/null "$SLURM_DIR/dev/nvidia$i"; i=$((i + 1)); done
    # Ports that differ from a real Slurm's (6817, 6818), and from one test run to the next.
    port=$((20000 + $$ % 20000))
    cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=gpushimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
GresTypes=gpu
SchedulerParameters=defer_batch=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=4 Gres=gpu:$2 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
    echo "NodeName=$host Name=gpu File=$SLURM_DIR/dev/nvidia[0-$(($2 - 1))]" >"$SLURM_DIR/gres.conf"
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    setsid slurmctld -D -i >"$SLURM_DIR/slurmctld.out" 2>&1 &
    SLURM_CTLD=$!
    setsid slurmd -D >"$SLURM_DIR/slurmd.out" 2>&1 &
    SLURM_D=$!
    i=0
    until sinfo -h -o %T 2>/dev/null | grep -q '^idle'; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "tests/cluster/slurm.sh: the node did not come up in 20 s; logs in $SLURM_DIR" >&2
            return 1
        fi
        sleep 0.2
    done
}

slurm_stop() {
    for p in ${SLURM_D:-} ${SLURM_CTLD:-}; do
        kill "$p" 2>/dev/null
    done
    # Killed daemons show as zombies a while: wait until /proc no longer lists them as running.
    for p in ${SLURM_D:-} ${SLURM_CTLD:-}; do
        i=0
        while [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null && kill -9 "$p" 2>/dev/null
    done
    SLURM_D= SLURM_CTLD=
}

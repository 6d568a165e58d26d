# Parallel jobs under real launchers: a single-node Slurm with 4 fake GPUs (tests/cluster/slurm.sh), srun with
# and without --gpus-per-task=1, OpenMPI's mpirun inside an sbatch allocation, MPICH's mpiexec, and the merged
# report (gpushim-report over every rank's log, gpushim-run --report).  Each rank runs tests/py/ranks.py under
# gpushim-run against the stand-in with every call forced to the GPU; its line must equal the same rank's
# without the shim, and its log must name the GPU the wrapper chose.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/cluster/slurm.sh"
PYV=$ROOT/build/venv-np2/bin/python
RUN=$ROOT/scripts/gpushim-run
have "Slurm (slurmctld, slurmd, srun)" sh -c "command -v slurmctld && command -v slurmd && command -v srun" &&
    have "OpenMPI (mpirun.openmpi)" command -v mpirun.openmpi && have "MPICH (mpiexec.hydra)" command -v mpiexec.hydra ||
    { finish; exit; }
trap slurm_stop EXIT
if ! slurm_start "$W/slurm" 4; then
    bad "a single-node Slurm comes up ($(tail -3 "$W/slurm/slurmctld.log" "$W/slurm/slurmd.log" 2>&1))"
    finish
    exit
fi
ok "a single-node Slurm with 4 fake GPUs comes up"

# What each rank prints without the shim.
# (rank and checksums: the last field is the seconds taken)
# (mpirun forwards the ranks' output as it comes: a line may run into another's, so lines are cut at "rank ")
same_results() {
    tr '\n' ' ' <"$1" | sed 's/ *rank /\nrank /g' | grep '^rank' | cut -d' ' -f1-4 | sort | cmp -s - $W/ref.out
}
for r in 0 1 2 3; do SLURM_PROCID=$r $PYV tests/py/ranks.py; done | cut -d' ' -f1-4 >$W/ref.out
unset CUDA_VISIBLE_DEVICES GPUSHIM_LOG GPUSHIM_OFFLOAD
export GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_WARMUP=off GS_STANDIN_REPORT=$REPORT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_oob_tcp_if_include=lo \
    OMPI_MCA_btl_tcp_if_include=lo

# header CASE RANK FIELD: the field of the rank's log header.
header() { $PY -c "import json,sys; print(json.loads(open(sys.argv[1]).readline()).get(sys.argv[2]))" \
    "$W/$1.$2.log" "$3"; }
# gpu CASE RANK: the PCI address of the GPU that the rank's log says came up.
gpu() { sed -n 's/.*"event":"gpu".*"pci":"\([^"]*\)".*/\1/p' "$W/$1.$2.log"; }

# job CASE "VISIBLE..." LAUNCHER...: runs ranks.py under gpushim-run in 4 ranks started by the launcher; checks
# the ranks' lines against ref.out, that each rank's log shows the CUDA_VISIBLE_DEVICES given (one word per
# rank, in rank order) and its calls on the GPU, how many distinct GPUs the ranks used, and that the merged
# report holds every rank's calls.
job() {
    name=$1 want=$2 gpus=$3
    shift 3
    standin_reset
    "$@" $RUN --offload always --log "$W/$name.%r.log" $PYV tests/py/ranks.py >$W/$name.out 2>$W/$name.err
    check "$name: 4 ranks ran, each as without the shim" same_results $W/$name.out
    got= used=
    for r in 0 1 2 3; do
        got="$got $(header $name $r cuda_visible_devices)"
        used="$used $(gpu $name $r)"
    done
    check "$name: each rank saw its GPU (CUDA_VISIBLE_DEVICES$got, expected $want)" test "$got" = " $want"
    check "$name: the ranks' logs name $gpus distinct GPUs (PCI$used)" \
        test "$(echo $used | tr ' ' '\n' | sort -u | wc -l)" = "$gpus"
    $PY scripts/gpushim-report --json $W/$name.*.log >$W/$name.json 2>&1
    check "$name: the merged report has ranks 0 to 3, each with calls on the GPU" $PY -c "
import json, sys
r = json.load(open('$W/$name.json'))
ranks = sorted(p['rank'] for p in r['processes'] if p['totals']['gpu_calls'] > 0)
n = sum(p['totals']['calls'] for p in r['processes'])
sys.exit(not (ranks == ['0', '1', '2', '3'] and n == r['totals']['calls'] > 0 and len(r['nodes']) == 1))"
}

# Slurm gives each task the whole allocation's 4 GPUs: the wrapper binds rank i to GPU i by SLURM_LOCALID.
job srun "0 1 2 3" 4 srun -n4 --gres=gpu:4
check "srun: no rank was told it shares a GPU" sh -c "! grep -q 'shares GPU' $W/srun.err"
# --gpus-per-task=1: each task has one GPU of its own already, which the wrapper keeps.
job srun-gpt "0 1 2 3" 4 srun -n4 --gpus-per-task=1
check "srun-gpt: no rank was told it shares a GPU" sh -c "! grep -q 'shares GPU' $W/srun-gpt.err"

# OpenMPI's mpirun inside an sbatch allocation: every rank sees SLURM_LOCALID=0, and the launcher's own local
# rank must win.  The job's script writes the merged report with gpushim-run --report (the last rank to exit).
cat >$W/mpirun.sbatch <<JOB
#!/bin/sh
mpirun.openmpi -np 4 $RUN --offload always --log $W/mpirun.%r.log --report $W/mpirun.report \
    $PYV $ROOT/tests/py/ranks.py
JOB
standin_reset
id=$(sbatch --parsable -n4 --gres=gpu:4 -o $W/mpirun.out -e $W/mpirun.err $W/mpirun.sbatch)
i=0
while [ -n "$(squeue -h -j "$id" 2>/dev/null)" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "mpirun in sbatch: 4 ranks ran, each as without the shim" same_results $W/mpirun.out
got=
for r in 0 1 2 3; do got="$got $(header mpirun $r cuda_visible_devices)/$(header mpirun $r local_rank)"; done
check "mpirun in sbatch: rank i on GPU i by OMPI_COMM_WORLD_LOCAL_RANK, not SLURM_LOCALID (got$got)" \
    test "$got" = " 0/0 1/1 2/2 3/3"
check "mpirun in sbatch: gpushim-run --report wrote the job's report, every rank in it" \
    sh -c "[ \$(grep -cE '^ +[0-3] ' $W/mpirun.report) = 4 ] && grep -q 'wrote the report of 4 logs' $W/mpirun.err"

# MPICH's mpiexec (hydra) outside Slurm, 4 ranks on 2 GPUs: ranks 2 and 3 share and are told so; the report
# flags all four.
export CUDA_VISIBLE_DEVICES=0,1
job mpich "0 1 0 1" 2 mpiexec.hydra -n 4
unset CUDA_VISIBLE_DEVICES
check "mpich: ranks 2 and 3 were told they share a GPU, with the advice to run MPS" \
    sh -c "[ \$(grep -c 'shares GPU .* MPS' $W/mpich.err) = 2 ]"
check "mpich: the report flags the 4 ranks that shared their GPUs" \
    sh -c "$PY scripts/gpushim-report $W/mpich.*.log | grep -q '^4 ranks shared a GPU'"
$PY scripts/gpushim-report --html $W/mpich.html $W/mpich.*.log >/dev/null 2>&1
check "mpich: the HTML page has a row and a timeline lane per rank, and the sharing notice" $PY -c "
import re, sys
page = open('$W/mpich.html').read()
table = page.split('id=\"ranks-table\"')[1].split('</table>')[0]
lanes = sorted(set(re.findall(r'\"label\": \"(rank [0-9])', page)))
sys.exit(not (table.count('<tr><td') == 4 and 'id=\"shared\"' in page and lanes == ['rank 0', 'rank 1', 'rank 2', 'rank 3']))"

# The launchers themselves stay out: a program started under a launcher's name neither logs nor uses the GPU.
cp $T/blas_all_plain $W/numactl
standin_reset
GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/launcher.log LD_PRELOAD=$LIB $W/numactl $W/launcher.bin >/dev/null
check "a launcher (numactl) under the shim writes no log and never brings up CUDA" \
    sh -c "[ ! -e $W/launcher.log ] && [ ! -e $REPORT ]"
GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/plain.log LD_PRELOAD=$LIB $T/blas_all_plain $W/plain.bin >/dev/null
check "the same program under its own name logs and uses the GPU" \
    sh -c "[ -s $W/plain.log ] && [ $(standin h2d_copies) -gt 0 ]"
trap - EXIT
slurm_stop
finish

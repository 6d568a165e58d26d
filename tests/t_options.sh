# Environment variables, policy files, the log, the summary and gpushim-run, as a user meets them.
. "$(dirname "$0")/lib.sh"
P=$T/blas_all_plain
$P $W/ref.bin >/dev/null

# run NAME VAR=VALUE...: runs the spelling program under the shim (auto policy unless set); $log, $err.
run() {
    name=$1
    shift
    log=$W/$name.log err=$W/$name.err
    shim GPUSHIM_LOG=$log "$@" $P $W/$name.bin >/dev/null 2>$err
    check "$name: results equal" $T/blas_cmp $W/ref.bin $W/$name.bin
}

run bad-offload GPUSHIM_OFFLOAD=sometimes
check "bad-offload: one line naming the variable, the value and the choices" \
    test "$(cat $err)" = "gpushim: GPUSHIM_OFFLOAD='sometimes' is not valid: use auto, always or never; using the default"
check "bad-offload: the default (auto) applies" test "$(count $log -- "why=below threshold")" -gt 7000

run threshold GPUSHIM_MIN_FLOPS_DGEMM=0
check "GPUSHIM_MIN_FLOPS_DGEMM=0: dgemm on the GPU, nothing else" \
    sh -c "[ $(count $log -- where=gpu routine=dgemm) -gt 0 ] && [ $(count $log -- where=gpu) = $(count $log -- where=gpu routine=dgemm) ]"
run all-low GPUSHIM_MIN_FLOPS=0
check "GPUSHIM_MIN_FLOPS=0: every call with work on the GPU" \
    test "$(count $log -- where=gpu)" = "$(count $log -- "why=above threshold")"
run all-high GPUSHIM_MIN_FLOPS=inf GPUSHIM_OFFLOAD=auto
check "GPUSHIM_MIN_FLOPS=inf: nothing on the GPU" test "$(count $log -- where=gpu)" = 0

printf '# my policy\nzgemm min_flops=0\n*trsm   min_flops=0  # all precisions\n' >$W/my.policy
run policy GPUSHIM_POLICY=$W/my.policy
check "GPUSHIM_POLICY: zgemm and the trsm routines on the GPU, nothing else" \
    test "$(count $log -- where=gpu)" = "$(($(count $log -- where=gpu routine=zgemm) + $(count $log -- where=gpu routine=*trsm)))"
check "GPUSHIM_POLICY: no message for a good file" test ! -s $err
run policy-env GPUSHIM_POLICY=$W/my.policy GPUSHIM_MIN_FLOPS_ZGEMM=inf
check "GPUSHIM_MIN_FLOPS_ZGEMM overrides the policy file" test "$(count $log -- where=gpu routine=zgemm)" = 0

printf 'dgemm min_flops=1e3\ndgemm min_flop=5\n' >$W/bad.policy
run bad-policy GPUSHIM_POLICY=$W/bad.policy
check "bad policy line: reported with file and line" \
    test "$(cat $err)" = "gpushim: $W/bad.policy:2: unknown key 'min_flop' (known: min_flops, cpu_gflops, cpu_us, cpu_gbps, threads, gpu_gflops, link_gbps, registered_gbps, register_gbps, check_gbps, latency_us, setup_us, bringup_us, first_us, serial, history)"
printf 'dgemm min_flops=1e3\ndgemm min_flop=5\n*trsm min_flops=lots\nzgemm\n' >$W/bad3.policy
run bad-policy-lines GPUSHIM_POLICY=$W/bad3.policy
check "a policy file with three bad lines: each reported, with its line" sh -c "
    [ \$(wc -l <$err) = 3 ] && grep -q '^gpushim: $W/bad3.policy:2: ' $err && grep -q '^gpushim: $W/bad3.policy:3: ' $err &&
    grep -q \"^gpushim: $W/bad3.policy:4: 'zgemm' has no KEY=VALUE\" $err"
# Another file named by mistake: one line naming it and its first line, and the built-in policy applies.
awk 'BEGIN { for (i = 0; i < 80; i++) printf "user%d:x:%d:%d::/home/user%d:/bin/sh\n", i, i, i, i }' >$W/passwd
run not-policy GPUSHIM_POLICY=$W/passwd
check "not a policy file: one line with its name and first line" test "$(cat $err)" = \
    "gpushim: GPUSHIM_POLICY: $W/passwd:1: 'user0:x:0:0::/home/user0:/bin/sh': not a gpushim policy file; using the built-in policy"
check "not a policy file: the built-in policy applies" test "$(count $log -- "why=below threshold")" -gt 7000
# The cap on messages never hides the notice about the GPU.
awk 'BEGIN { for (i = 0; i < 80; i++) print "dgemm min_flops=bad" }' >$W/many.policy
run many-bad GPUSHIM_POLICY=$W/many.policy GPUSHIM_OFFLOAD=always GPUSHIM_CUDA_LIBDIR=$W/none
check "the GPU notice after the cap: 64 messages, the suppression line, then the notice" sh -c "
    [ \$(wc -l <$err) = 66 ] && sed -n 65p $err | grep -qx 'gpushim: further messages suppressed' &&
    sed -n 66p $err | grep -q '^gpushim: no usable GPU: no CUDA libraries'"
run no-policy GPUSHIM_POLICY=$W/missing.policy
check "missing policy file: reported by name" \
    test "$(cat $err)" = "gpushim: GPUSHIM_POLICY: cannot open '$W/missing.policy': No such file or directory; using the built-in policy"
run bad-threshold GPUSHIM_MIN_FLOPS_DGEMM=lots
check "bad threshold: reported" grep -q "^gpushim: GPUSHIM_MIN_FLOPS_DGEMM='lots' is not valid" $err

# The log: valid JSON lines, a header, the fields the format promises, %p.
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/log.%p $P $W/log.bin >/dev/null
set -- $W/log.[0-9]*
check "GPUSHIM_LOG: %p becomes the process id" test -f "$1"
check "GPUSHIM_LOG: every line valid, header first" $PY tests/logq.py check "$1"
head -n 3 "$1" | tail -n 1 >$W/record
check "GPUSHIM_LOG: a record has every documented field" \
    $PY -c "import json,sys; r=json.load(open('$W/record')); sys.exit(len(set('t routine symbol dtype m n k opts flops where why seconds bytes_h2d bytes_d2h tid'.split()) - set(r)))"
host=$($PY -c 'import socket; print(socket.gethostname())')
shim GPUSHIM_OFFLOAD=never GPUSHIM_LOG=$W/rank.%h.%r.%j.%% SLURM_PROCID=3 SLURM_JOB_ID=77 OMPI_COMM_WORLD_RANK= \
    $P $W/rank.bin >/dev/null
check "GPUSHIM_LOG: %h, %r and %j become the host, the rank and the job id; the header names them" \
    $PY -c "import json,sys; r=json.loads(open(sys.argv[1]).readline())
sys.exit(not (r['host'] == sys.argv[2] and r['rank'] == '3' and r['job'] == '77'))" "$W/rank.$host.3.77.%" "$host"
shim GPUSHIM_OFFLOAD=never GPUSHIM_LOG=$W/norank.%r.%j env -u SLURM_PROCID -u SLURM_JOB_ID -u PMI_RANK -u PMIX_RANK \
    -u OMPI_COMM_WORLD_RANK -u MV2_COMM_WORLD_RANK -u PBS_JOBID -u LSB_JOBID -u JOB_ID $P $W/rank.bin >/dev/null
check "GPUSHIM_LOG: without a parallel job, %r is 0 and %j is nojob" test -s $W/norank.0.nojob
run bad-log GPUSHIM_LOG=$W/no/such/dir/log
check "unwritable log: reported once, program runs" \
    test "$(cat $err)" = "gpushim: GPUSHIM_LOG: cannot open '$W/no/such/dir/log': No such file or directory; no log is written"

# The summary agrees with the log.
shim GPUSHIM_OFFLOAD=always GPUSHIM_SUMMARY=1 GPUSHIM_LOG=$W/sum.log $P $W/sum.bin >/dev/null 2>$W/sum.err
check "summary: printed at exit" grep -q "^gpushim: summary for pid" $W/sum.err
check "summary: dgemm's calls and GPU calls agree with the log" \
    test "$(awk '$2 == "dgemm" {print $3 "/" $4}' $W/sum.err)" = \
    "$(count $W/sum.log -- routine=dgemm)/$(count $W/sum.log -- routine=dgemm where=gpu)"

# gpushim-run
check "gpushim-run --help" sh -c "scripts/gpushim-run --help | grep -q '^usage: gpushim-run'"
scripts/gpushim-run --offload sometimes true 2>$W/run.err
check "gpushim-run: a bad option value is named" \
    sh -c "[ $? = 2 ] && grep -q 'gpushim-run: --offload sometimes: use auto, always or never' $W/run.err"
GPUSHIM_CUDA_LIBDIR=$SI scripts/gpushim-run --offload always --log $W/run.log --sites native --quiet -- $P $W/run.bin \
    >/dev/null
check "gpushim-run: runs the program under the shim with its options" \
    sh -c "$T/blas_cmp $W/ref.bin $W/run.bin >/dev/null && [ $(count $W/run.log -- where=gpu) -gt 7000 ] &&
        head -n 1 $W/run.log | grep -q '\"sites\":\"native\"'"
# gpushim-run's GPU per rank: the launcher's local rank (before Slurm's) modulo the GPUs the rank sees, from
# CUDA_VISIBLE_DEVICES or nvidia-smi; a rank given one GPU keeps it; sharing is said; the options force either.
gpu_of() { env "$@" scripts/gpushim-run sh -c 'echo "${CUDA_VISIBLE_DEVICES-unset}"' 2>>$W/bind.err; }
mkdir -p $W/bin
printf '#!/bin/sh\nfor i in 0 1 2; do echo "GPU $i: NVIDIA H200 (UUID: GPU-$i)"; done\n' >$W/bin/nvidia-smi
chmod +x $W/bin/nvidia-smi
check "gpushim-run: rank 2 of OpenMPI inside an allocation (SLURM_LOCALID=0) gets the third of 4 GPUs" \
    test "$(gpu_of CUDA_VISIBLE_DEVICES=4,5,6,7 OMPI_COMM_WORLD_LOCAL_RANK=2 SLURM_LOCALID=0)" = 6
check "gpushim-run: MPICH's MPI_LOCALRANKID, GPUs named by UUID" \
    test "$(gpu_of CUDA_VISIBLE_DEVICES=GPU-a,GPU-b MPI_LOCALRANKID=1)" = GPU-b
check "gpushim-run: no CUDA_VISIBLE_DEVICES: the GPUs nvidia-smi lists (Slurm's rank 4 of 3 GPUs: the second)" \
    test "$(gpu_of PATH=$W/bin:$PATH SLURM_LOCALID=4)" = 1
check "gpushim-run: ranks beyond the GPUs share one, and the notice says which and suggests MPS" \
    grep -q '^gpushim-run: local rank 4 (SLURM_LOCALID) shares GPU 1 with local rank 1: 3 GPUs for more ranks; run' \
        $W/bind.err
: >$W/bind.err
own=$(gpu_of CUDA_VISIBLE_DEVICES=3 SLURM_LOCALID=2 SLURMD_TRES_BIND=gpu:per_task:1)
check "gpushim-run: a rank given its own GPU (srun --gpus-per-task=1) keeps it, and is not told it shares" \
    sh -c "[ $own = 3 ] && [ ! -s $W/bind.err ]"
one=$(gpu_of CUDA_VISIBLE_DEVICES=0 MPI_LOCALRANKID=2)
check "gpushim-run: ranks after the first on a node of one GPU are told they share it" \
    sh -c "[ $one = 0 ] &&
        grep -q 'local rank 2 (MPI_LOCALRANKID) shares GPU 0 with local rank 0: 1 GPU for more ranks' $W/bind.err"
check "gpushim-run: no launcher, nothing changed" test "$(gpu_of CUDA_VISIBLE_DEVICES=0,1)" = 0,1
check "gpushim-run --no-gpu-binding leaves CUDA_VISIBLE_DEVICES as it is" \
    test "$(CUDA_VISIBLE_DEVICES=0,1 SLURM_LOCALID=1 scripts/gpushim-run --no-gpu-binding sh -c 'echo $CUDA_VISIBLE_DEVICES')" \
        = 0,1
scripts/gpushim-run --gpu-per-rank true 2>$W/force.err
check "gpushim-run --gpu-per-rank without a launcher: exit status 2, names the variables it looked for" \
    sh -c "[ $? = 2 ] && grep -q 'gpushim-run: --gpu-per-rank: no local rank (OMPI_COMM_WORLD_LOCAL_RANK, ' $W/force.err"
check "gpushim-run: PBS's task number (pbsdsh) as the local rank" \
    test "$(gpu_of CUDA_VISIBLE_DEVICES=0,1 PBS_VNODENUM=3)" = 1
check "gpushim-run: GPUSHIM_QUIET=1 silences the sharing notice, GPUSHIM_QUIET=0 does not" \
    sh -c "[ -z \"\$(CUDA_VISIBLE_DEVICES=0,1 SLURM_LOCALID=2 GPUSHIM_QUIET=1 scripts/gpushim-run true 2>&1)\" ] &&
        CUDA_VISIBLE_DEVICES=0,1 SLURM_LOCALID=2 GPUSHIM_QUIET=0 scripts/gpushim-run true 2>&1 | grep -q shares"
GPUSHIM_LOG= scripts/gpushim-run --report $W/r.txt true 2>$W/report.err
check "gpushim-run --report without a log per rank: exit status 2, says what to give" \
    sh -c "[ $? = 2 ] && grep -q 'give each rank a log of its own with --log NAME' $W/report.err"
# --report: the wrapper outlives the command, keeps its input and exit status, and the one rank writes the report.
echo input | GPUSHIM_CUDA_LIBDIR=$SI scripts/gpushim-run --log $W/one.%p.log --report $W/one.txt sh -c 'cat; exit 3' \
    >$W/one.out 2>$W/one.err
check "gpushim-run --report: the command's input and exit status pass through" \
    sh -c "[ $? = 3 ] && grep -qx input $W/one.out && grep -q 'no log matches' $W/one.err"
GPUSHIM_CUDA_LIBDIR=$SI scripts/gpushim-run --offload always --log $W/one.%p.log --report $W/one.html $P $W/one.bin \
    >/dev/null 2>$W/one.err
check "gpushim-run --report FILE.html: one process is the whole job, the page is written" \
    sh -c "[ $? = 0 ] && grep -q 'id=\"timeline\"' $W/one.html && grep -q 'wrote the report of 1 log to' $W/one.err"
scripts/gpushim-run /usr/bin/srun -n 4 true 2>$W/launcher.err
check "gpushim-run before a launcher says that it belongs after it" \
    grep -q '^gpushim-run: srun starts the ranks: put gpushim-run after it (srun ... gpushim-run COMMAND)' $W/launcher.err
finish

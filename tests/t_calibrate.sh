# gpushim-calibrate against the CUDA stand-in, at the small sizes (GPUSHIM_CALIBRATE_SIZES=small): a calibration
# writes a policy file that the library reads without a message and as written, with every key on every routine
# measured; --no-gpu and no usable GPU write the CPU's keys alone; a calibration that fails or is interrupted
# half-way leaves the file it would have replaced as it was, and nothing else; usage errors say what is wrong.
. "$(dirname "$0")/lib.sh"
CAL="$PY $ROOT/scripts/gpushim-calibrate"
export GPUSHIM_CALIBRATE_SIZES=small
keys() { $PY "$ROOT/tests/py/calibrated.py" "$@"; }
# calibrate NAME [VAR=VALUE...] COMMAND...: runs COMMAND with the stand-in as the CUDA libraries; its output in
# $W/NAME.out and $W/NAME.err, its exit status in $rc.
calibrate() {
    name=$1
    shift
    env GPUSHIM_CUDA_LIBDIR="$SI" GS_STANDIN_REPORT="$REPORT" "$@" >$W/$name.out 2>$W/$name.err
    rc=$?
}
# alone DIR FILE: DIR holds FILE and nothing else (no temporary file left behind).
alone() { test "$(ls -A "$1")" = "$2"; }
# unchanged: the policy file that the failed calibrations would have replaced is as it was, and alone.
unchanged() { cmp -s $W/keep/policy $W/keep.orig && alone $W/keep policy; }

# A whole calibration.
standin_reset
start=$(date +%s)
calibrate full $CAL -o $W/full/policy
echo "    (a calibration against the stand-in took $(($(date +%s) - start)) s)"
check "calibration: exit status 0" test $rc = 0
check "calibration: prints where it wrote and the line that puts it to use" \
    grep -qx "    export GPUSHIM_POLICY=$W/full/policy" $W/full.out
check "calibration: a progress line per case" sh -c "grep -q '^gpushim-calibrate: cpu dgemm n=16: ' $W/full.err &&
    grep -q '^gpushim-calibrate: gpu zher2k n=128: .* MB copied$' $W/full.err &&
    grep -q '^gpushim-calibrate: reg fftw_execute n=2097152: ' $W/full.err"
shim GPUSHIM_POLICY=$W/full/policy GPUSHIM_OFFLOAD=never GPUSHIM_LOG=$W/full.log $T/blas_all_plain $W/full.bin \
    >/dev/null 2>$W/full.read
check "calibration: the library reads the file without a message" test ! -s $W/full.read
check "calibration: every key on every routine measured, above 0 and finite, and read as written" \
    keys $W/full/policy gpu $W/full.log
check "calibration: the file names the GPU, the CPU library and its threads" sh -c "
    grep -q '^# GPU: CUDA device, device 0' $W/full/policy &&
    grep -q '^# CPU: .*CPU library: libopenblas.so.0 (dgemm_, 32-bit integers) on [0-9]* threads' $W/full/policy"
check "calibration: the registration worker's operands were registered" test "$(standin registers)" -gt 0
check "calibration: its folder holds the file alone" alone $W/full policy

# The CPU alone: --no-gpu (with --no-fft, to $XDG_CONFIG_HOME/gpushim/policy, quietly), or no usable GPU.
standin_reset
calibrate cpu XDG_CONFIG_HOME=$W/xdg $CAL --no-gpu --no-fft --quiet
check "--no-gpu: exit status 0, the file in \$XDG_CONFIG_HOME/gpushim" \
    sh -c "[ $rc = 0 ] && [ -s $W/xdg/gpushim/policy ]"
check "--no-gpu: --quiet prints no line on stderr" test ! -s $W/cpu.err
check "--no-gpu --no-fft: the CPU's keys alone, no FFTW routine" keys $W/xdg/gpushim/policy cpu,nofft
check "--no-gpu: the file says so" grep -qx '# GPU: not measured (--no-gpu): CPU keys only.' $W/xdg/gpushim/policy
check "--no-gpu: no GPU worker ran" test ! -s $REPORT
calibrate nodev GPUSHIM_CUDA_LIBDIR=$W/none $CAL -o $W/nodev.policy
check "no usable GPU: exit status 0" test $rc = 0
check "no usable GPU: the CPU's keys alone" keys $W/nodev.policy cpu
check "no usable GPU: the reason, in the file and on stderr" sh -c "
    grep -q '^# GPU: none usable (no usable GPU: no CUDA libraries in GPUSHIM_CUDA_LIBDIR=$W/none' $W/nodev.policy &&
    grep -q '^gpushim-calibrate: GPU none usable (no usable GPU: no CUDA libraries' $W/nodev.err"

# Failing half-way, in the CPU worker or in the GPU worker, and interrupted (Ctrl-C, kill): the old file stays.
mkdir -p $W/keep
printf '# the file from before\ndgemm min_flops=1e9\n' >$W/keep/policy
cp $W/keep/policy $W/keep.orig
for how in cpu:20 gpu:30; do
    calibrate fail GPUSHIM_CALIBRATE_FAIL_AFTER=$how $CAL -o $W/keep/policy
    check "failing half-way ($how): exit status 1" test $rc = 1
    check "failing half-way ($how): says which worker and that nothing was written" \
        grep -qx "gpushim-calibrate: the ${how%:*} worker failed with exit status 3; no policy file written" $W/fail.err
    check "failing half-way ($how): the old file byte for byte, nothing beside it" unchanged
done
mkdir -p $W/tmp
for sig in INT TERM; do
    # A shell's background job ignores SIGINT; the command that Ctrl-C would reach does not.
    TMPDIR=$W/tmp GPUSHIM_CUDA_LIBDIR=$SI $PY -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' $CAL -o $W/keep/policy >$W/sig.out 2>$W/sig.err &
    pid=$!
    i=0
    while ! grep -q '^gpushim-calibrate: gpu ' $W/sig.err && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    kill -$sig $pid
    wait $pid
    rc=$?
    check "SIG$sig while the GPU worker runs: exit status 1, says so" \
        sh -c "[ $rc = 1 ] && grep -qx 'gpushim-calibrate: interrupted; no policy file written' $W/sig.err"
    check "SIG$sig: the old file byte for byte, nothing beside it" unchanged
    check "SIG$sig: no worker left running, its temporary folder removed" \
        sh -c "! ps -eo args | grep -v grep | grep -qF -- '--result $W/tmp/' && [ -z \"\$(ls -A $W/tmp)\" ]"
done

# Usage and errors.
$CAL --help >$W/help.out 2>&1
check "--help: the usage and every option, exit status 0" sh -c "[ $? = 0 ] &&
    grep -q '^usage: gpushim-calibrate' $W/help.out && grep -q -- '--no-gpu' $W/help.out &&
    grep -q -- '--output FILE' $W/help.out"
$CAL --frobnicate >$W/bad.out 2>$W/bad.err
check "a bad option: exit status 2, named, with the usage" sh -c "[ $? = 2 ] && [ ! -s $W/bad.out ] &&
    grep -q '^usage: gpushim-calibrate' $W/bad.err && grep -q 'unrecognized arguments: --frobnicate' $W/bad.err"
calibrate noblas $CAL --blas $W/libnone.so -o $W/noblas.policy
check "a CPU library that does not load: exit status 1, named, nothing written" sh -c "[ $rc = 1 ] &&
    grep -q '^gpushim-calibrate: cpu worker: cannot load the CPU library: $W/libnone.so' $W/noblas.err &&
    grep -q 'no policy file written' $W/noblas.err && [ ! -e $W/noblas.policy ]"
calibrate nolib $CAL --lib $W/libgpushim.so -o $W/nolib.policy
check "no libgpushim.so: exit status 1, named" sh -c "[ $rc = 1 ] &&
    grep -qx 'gpushim-calibrate: cannot find the library $W/libgpushim.so (build it with make, or give --lib PATH); \
no policy file written' $W/nolib.err"
calibrate sizes GPUSHIM_CALIBRATE_SIZES=huge $CAL -o $W/sizes.policy
check "a bad GPUSHIM_CALIBRATE_SIZES: exit status 1, named" sh -c "[ $rc = 1 ] &&
    grep -q 'GPUSHIM_CALIBRATE_SIZES=huge: use full or small' $W/sizes.err"
finish

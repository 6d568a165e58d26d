# No GPU, no driver, no CUDA libraries: every call runs on the CPU with the CPU's results, and at most one
# notice line is printed (none with GPUSHIM_QUIET=1).
. "$(dirname "$0")/lib.sh"
P=$T/blas_all_plain
$P $W/ref.bin >/dev/null

# nogpu NAME PATTERN VAR=VALUE...: forced offload under the given conditions.
nogpu() {
    name=$1 pattern=$2
    shift 2
    env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$name.log GS_STANDIN_REPORT=$REPORT "$@" \
        $P $W/$name.bin >/dev/null 2>$W/$name.err
    check "$name: results equal" $T/blas_cmp $W/ref.bin $W/$name.bin
    check "$name: exactly one notice line, naming the cause" \
        sh -c "[ \$(wc -l <$W/$name.err) = 1 ] && grep -qE '^gpushim: no usable GPU \\(.*$pattern' $W/$name.err"
    check "$name: every call on the CPU" test "$(count $W/$name.log -- where=gpu)" = 0
    check "$name: the reason is in the log" test "$(count $W/$name.log -- "why=no usable GPU*")" -gt 7000
}
nogpu no-libraries "cannot load $W/none/libcudart.so.1[23]" GPUSHIM_CUDA_LIBDIR=$W/none
nogpu no-device "no CUDA-capable device" GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_DEVICES=0
nogpu no-driver "driver version is insufficient" GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_NODRIVER=1
nogpu bad-device "GPUSHIM_DEVICE=3, but there are only 1 devices" GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_DEVICE=3
mkdir -p $W/rt-only && cp "$SI/libcudart.so.13" $W/rt-only/ && nogpu no-cublas \
    "cannot load $W/rt-only/libcublas.so.13" GPUSHIM_CUDA_LIBDIR=$W/rt-only
# Whatever this machine has (CI: the CUDA toolkit's libraries, or none, and no driver).
nogpu system "" GPUSHIM_CUDA_LIBDIR=

env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_QUIET=1 GPUSHIM_CUDA_LIBDIR=$W/none $P $W/quiet.bin \
    >/dev/null 2>$W/quiet.err
check "GPUSHIM_QUIET=1: no notice at all" test ! -s $W/quiet.err
check "GPUSHIM_QUIET=1: results equal" $T/blas_cmp $W/ref.bin $W/quiet.bin
finish

# No GPU, no driver, a driver too old, no device visible, no CUDA libraries: every call runs on the CPU with
# the CPU's results, and at most one notice line is printed (none with GPUSHIM_QUIET=1), which says what was
# found in the user's terms; the log's event and every call's reason carry the same words.
. "$(dirname "$0")/lib.sh"
P=$T/blas_all_plain
$P $W/ref.bin >/dev/null

# nogpu NAME PATTERN VAR=VALUE...: forced offload under the given conditions; PATTERN (an extended regular
# expression) must follow "gpushim: no usable GPU: " in the one notice line.
nogpu() {
    name=$1 pattern=$2
    shift 2
    env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$name.log GS_STANDIN_REPORT=$REPORT "$@" \
        $P $W/$name.bin >/dev/null 2>$W/$name.err
    check "$name: results equal" $T/blas_cmp $W/ref.bin $W/$name.bin
    check "$name: exactly one notice line" test "$(wc -l <$W/$name.err)" = 1
    check "$name: the notice names the cause" grep -qE "^gpushim: no usable GPU: $pattern" $W/$name.err
    check "$name: every call on the CPU" test "$(count $W/$name.log -- where=gpu)" = 0
    notice=$(sed 's/^gpushim: //; s/; running everything on the CPU$//' $W/$name.err)
    check "$name: the log's event carries the notice's words" \
        grep -qF "\"event\":\"gpu_off\",\"what\":\"$notice\"" $W/$name.log
    check "$name: and so does every call's reason" test "$(count $W/$name.log -- "why=$notice")" -gt 7000
}
nogpu no-libraries "no CUDA libraries in GPUSHIM_CUDA_LIBDIR=$W/none: libcudart.so.13 and libcudart.so.12 not found" \
    GPUSHIM_CUDA_LIBDIR=$W/none
nogpu no-device "no GPU found: the NVIDIA driver \(CUDA 13.0\) sees no device" \
    GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_DEVICES=0
nogpu none-visible "no GPU visible: CUDA_VISIBLE_DEVICES='-1' hides every device" \
    GPUSHIM_CUDA_LIBDIR=$SI CUDA_VISIBLE_DEVICES=-1
nogpu no-driver "no NVIDIA driver \(libcuda.so.1 not found; CUDA 13.0 runtime found\)" \
    GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_DRIVER=0
nogpu old-driver "the NVIDIA driver is too old: it supports CUDA 12.2, and libcudart.so.13 is CUDA 13.0; CUDA 12's \
libraries work with this driver .*: install them, or upgrade the driver" GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_DRIVER=12020
nogpu older-driver "the NVIDIA driver is too old: it supports CUDA 11.4, and libcudart.so.12 is CUDA 12.8; upgrade \
the driver" GPUSHIM_CUDA_LIBDIR=$ROOT/build/standin12 GS_STANDIN_DRIVER=11040
nogpu bad-device "GPUSHIM_DEVICE=3, but there are only 1 devices" GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_DEVICE=3
mkdir -p $W/rt-only && cp "$SI/libcudart.so.13" $W/rt-only/ && nogpu no-cublas \
    "cannot load $W/rt-only/libcublas.so.13" GPUSHIM_CUDA_LIBDIR=$W/rt-only

# The real CUDA 13 runtime of the toolkit: on this machine without a driver, and with an old driver's libcuda.so.1
# (tests/standin/driver.c), which it refuses.
CUDART=${CUDA_HOME:-/usr/local/cuda}/lib64/libcudart.so.13
if [ -f "$CUDART" ] && ! ldconfig -p | grep -q 'libcuda\.so\.1 '; then
    mkdir -p $W/real && ln -sf "$CUDART" $W/real/
    nogpu real-no-driver "no NVIDIA driver \(libcuda.so.1 not found; CUDA 13.[0-9] runtime found\)" GPUSHIM_CUDA_LIBDIR=$W/real
    nogpu real-old-driver "the NVIDIA driver is too old: it supports CUDA 12.2, and libcudart.so.13 is CUDA 13.[0-9]; " \
        GPUSHIM_CUDA_LIBDIR=$W/real LD_LIBRARY_PATH=$ROOT/build/olddriver
elif [ -n "${CI:-}" ]; then
    bad "CI has the CUDA toolkit's runtime and no driver: expected $CUDART and no libcuda.so.1"
fi
# Whatever this machine has (CI: the CUDA toolkit's libraries, or none, and no driver).
nogpu system "" GPUSHIM_CUDA_LIBDIR=

# A driver that refuses CUDA 13 but takes CUDA 12: the CUDA 12 libraries are used, and the log says which.
mkdir -p $W/both && ln -sf $SI/*.so.* $ROOT/build/standin12/*.so.* $W/both/
env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/both.log GPUSHIM_CUDA_LIBDIR=$W/both \
    GS_STANDIN_DRIVER=12020 $P $W/both.bin >/dev/null 2>$W/both.err
check "older runtime: results equal" $T/blas_cmp $W/ref.bin $W/both.bin
check "older runtime: no notice" test ! -s $W/both.err
check "older runtime: calls on the GPU" test "$(count $W/both.log -- where=gpu)" -gt 1000
check "older runtime: the log names CUDA 12's runtime and the driver" grep -q \
    '"event":"gpu","what":"CUDA device, device 0, PCI 0000:01:00.0, [0-9]* MiB, CUDA runtime 12.8, driver CUDA 12.2; up in [0-9]* ms"' \
    $W/both.log

env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_QUIET=1 GPUSHIM_CUDA_LIBDIR=$W/none $P $W/quiet.bin \
    >/dev/null 2>$W/quiet.err
check "GPUSHIM_QUIET=1: no notice at all" test ! -s $W/quiet.err
check "GPUSHIM_QUIET=1: results equal" $T/blas_cmp $W/ref.bin $W/quiet.bin
finish

# Sharing the device with the program's own GPU work (src/dispatch/yield.c): tests/progs/share.c, linked to the
# stand-in's runtime as a framework is to CUDA's, makes device 1 current, lets the shim cache its operands there
# (GPUSHIM_DEVICE=1), and then asks for 95% of the device; the shim gives back what it holds, the program's
# current device and last error stay its own, and the calls made while the program holds the memory run on the
# CPU.  Then the same with the allocation made as a statically linked runtime makes it (CuPy's, XLA's):
# cuMemAlloc from the driver's cuGetProcAddress, found by dlsym in libcuda.so.1 (build/tests/fakecuda's).
# Last, with GPUSHIM_DEVICES=0,1, products split across both devices: device 1, the shim's second, gives way too.
# Each of the stand-in's devices has GS_STANDIN_MEM bytes of its own.
. "$(dirname "$0")/lib.sh"
P=$T/share
export LD_LIBRARY_PATH=$SI:$T/fakecuda GS_STANDIN_MEM=$((64 << 20)) GS_STANDIN_DEVICES=2 GPUSHIM_DEVICE=1
$P $W/ref.bin 700 >$W/ref.txt
check "without the shim: the program's 95% allocation succeeds" grep -qx "malloc 95% ok" $W/ref.txt

for mode in always auto driver; do
    standin_reset
    offload=$mode how=
    [ $mode = driver ] && offload=always how=driver
    shim GPUSHIM_OFFLOAD=$offload GPUSHIM_LOG=$W/$mode.log $P $W/$mode.bin 700 $how >$W/$mode.txt 2>$W/$mode.err
    check "$mode: results equal to the CPU library's" $T/blas_cmp $W/ref.bin $W/$mode.bin
    check "$mode: no bad pointer, nothing left queued" test "$(standin violations)/$(standin unfinished)" = 0/0
    check "$mode: the program's current device is still the one it set" grep -qx "device 1" $W/$mode.txt
    check "$mode: no notice on stderr" test ! -s $W/$mode.err
done

# Under always, the first three products run on the GPU and their operands stay cached: the free memory the
# program sees is then less than it asks for, so its allocation succeeds only because the shim gave way.
for mode in always driver; do
    free=$(sed -n 's/^free before \([0-9]*\) of \([0-9]*\)$/\1/p' $W/$mode.txt)
    total=$(sed -n 's/^free before \([0-9]*\) of \([0-9]*\)$/\2/p' $W/$mode.txt)
    check "$mode: the shim held device memory before the allocation ($free of $total free)" \
        test "${free:-0}" -lt $((${total:-0} / 20 * 19))
    check "$mode: the program's 95% allocation succeeds" grep -qx "malloc 95% ok" $W/$mode.txt
    check "$mode: one yield event in the log, with the bytes given back" \
        test "$(grep -c '"event":"yield".*"bytes":"[1-9][0-9]*"' $W/$mode.log)" = 1
    check "$mode: the product made while the program holds the memory ran on the CPU, the others on the GPU" \
        test "$(count $W/$mode.log -- where=cpu)/$(count $W/$mode.log -- where=gpu)" = 1/4
done
check "always: the program's last error is clean after it" grep -qx "last error clean" $W/always.txt

# Split products (128 x 8192, 4096 columns a device), the shim's devices 0 and 1, the program's device 1.
$P $W/wide-ref.bin 8192 wide >/dev/null
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_DEVICES=0,1 GPUSHIM_LOG=$W/wide.log $P $W/wide.bin 8192 wide >$W/wide.txt \
    2>$W/wide.err
check "wide, GPUSHIM_DEVICES=0,1: results equal to the CPU library's" $T/blas_cmp $W/wide-ref.bin $W/wide.bin
free=$(sed -n 's/^free before \([0-9]*\) of \([0-9]*\)$/\1/p' $W/wide.txt)
total=$(sed -n 's/^free before \([0-9]*\) of \([0-9]*\)$/\2/p' $W/wide.txt)
check "wide: the shim held memory on device 1, its second ($free of $total free)" \
    test "${free:-0}" -lt $((${total:-0} / 20 * 19))
check "wide: the program's 95% allocation on device 1 succeeds, a yield logged, no bad pointer" sh -c \
    "grep -qx 'malloc 95% ok' $W/wide.txt && [ $(grep -c '"event":"yield".*"bytes":"[1-9]' $W/wide.log) = 1 ] &&
     [ $(standin violations) = 0 ]"
check "wide: the products before and after split across both devices, logged so" \
    test "$(count $W/wide.log -- where=gpu devices=2)" = 4
finish

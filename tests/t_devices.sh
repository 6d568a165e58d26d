# Several devices in one process (GPUSHIM_DEVICES, issue 25), on the stand-in pretending to be 2 and 4 devices,
# which accepts each allocation, stream, cuBLAS handle and cuFFT plan only with its own device current: GEMMs
# split by columns and by rows, TRSM and TRMM by B's columns or rows, SYRK and HERK by C's columns
# (tests/progs/devices.c), and batched FFTs by their transforms (tests/progs/fft_split.c) equal the CPU
# library's, each listed device gets its part, and
# a device left unlisted none; GPUSHIM_DEVICE alone, or GPUSHIM_DEVICES=0, is the one device of before;
# a failure in a part finishes the call on the CPU with the same results; bad values give one clear line.
. "$(dirname "$0")/lib.sh"

$T/devices $W/ref.bin
$T/devices $W/gemm.bin gemm
$T/devices $W/again.bin again
# run NAME DEVICES-PRESENT [VAR=VALUE...]: the program $PROG forced onto the GPU, in its mode $MODE (devices's:
# none, every call; gemm, the GEMMs alone; again), compared with the same mode without the shim; its results, log
# and stderr in $W.
PROG=devices MODE=
run() {
    name=$1 present=$2
    shift 2
    standin_reset
    rm -f $W/$name.log
    shim GPUSHIM_OFFLOAD=always GS_STANDIN_DEVICES=$present GPUSHIM_LOG=$W/$name.log "$@" $T/$PROG $W/$name.bin \
        $MODE 2>$W/$name.err
}
same() { $T/blas_cmp $W/${MODE:-ref}.bin $W/$1.bin >$W/$1.cmp 2>&1; }
# used [KIND]: the stand-in's library calls (KIND blas, the default) or cuFFT executes (fft) by device 0/1/2/3,
# then its violations (one process's report).
used() {
    echo "$(sed -n "s/.* ${1:-blas}_by_dev=\([0-9/]*\) .*/\1/p" "$REPORT" | head -n 1)/$(standin violations)"
}
# split NAME BY-DEVICE/VIOLATIONS: the run's results equal, its calls by device as given.
split() { same $1 && [ "$(used)" = $2 ]; }

run one 2
check "2 devices, GPUSHIM_DEVICES unset: results equal, every call on device 0 (by device/violations: $(used))" \
    split one 90/0/0/0/0
run zero 2 GPUSHIM_DEVICES=0
check "GPUSHIM_DEVICES=0: the same as unset ($(used))" split zero 90/0/0/0/0
run two 2 GPUSHIM_DEVICES=0,1
check "GPUSHIM_DEVICES=0,1: results equal, split between both ($(used))" split two 81/80/0/0/0
check "GPUSHIM_DEVICES=0,1: every call logged on the GPU, the bring-up names 1 more device" \
    sh -c "[ $(count $W/two.log -- where=gpu) = 35 ] && grep -q 'and 1 more devices for large Level-3 calls' $W/two.log"
run four 4 GPUSHIM_DEVICES=all
# (4099 columns make two parts of at least 2048, 6151 rows three, SYRK's n = 4097 two: device 3 has nothing to do)
check "GPUSHIM_DEVICES=all, 4 devices: results equal, parts on devices 0 to 2 ($(used))" split four 73/72/30/0/0
run order 4 GPUSHIM_DEVICES=3,1
check "GPUSHIM_DEVICES=3,1: results equal, the parts on devices 3 and 1 only ($(used))" split order 0/80/0/81/0

# Operands used again, changed in place between calls (tests/progs/devices.c's again): the residency cache keeps
# A (every part's) and each part's block of B on each device, and uses none after it changed.  Hits by round:
# one device 0 0 2 1 1 (A and B; B after A changed; A after B changed); two devices each of those on both,
# but B's second part after it changed: 0 0 4 2 3.
hits() { $PY - "$1" <<'PYEOF'
import json, sys
print(" ".join(str(r["cache_hits"]) for r in map(json.loads, open(sys.argv[1])) if r.get("routine") == "dgemm"))
PYEOF
}
again_ok() { same again-run && [ "$(hits $W/again-run.log)" = "$1" ] &&
    [ "$(standin violations)" = 0 ]; }
MODE=again
for d in 0 0,1; do
    run again-run 2 GPUSHIM_DEVICES=$d
    want="0 0 2 1 1"
    [ $d = 0,1 ] && want="0 0 4 2 3"
    check "GPUSHIM_DEVICES=$d, operands cached and changed in place: results equal, cache hits by round $want" \
        again_ok "$want"
done
MODE=

# A part that fails: the whole call is done again by the CPU library (C untouched when beta != 0), and logged;
# a failure on another device than slot 0's ends the splitting, with a notice.
failed_once() { same fault && [ "$(count $W/fault.log -- where=cpu 'why=gpu error*device slot*')" = 1 ] &&
    [ "$(standin violations)" = 0 ]; }
for f in cudaMemcpy2DAsync:40 cublasDgemm_v2_64:5 cudaStreamSynchronize:4 cublasDtrsm_v2_64:2 cublasDsyrk_v2_64:2 \
    cublasZherk_v2_64:4; do
    run fault 2 GPUSHIM_DEVICES=0,1 GS_STANDIN_FAIL=$f
    check "GPUSHIM_DEVICES=0,1, $f fails: results equal, one call on the CPU saying why, no violation" failed_once
done

# Bad values: one line naming the variable, and the program's results as before, on one device (the GEMMs).
MODE=gemm
one_line() { same bad && [ "$(grep -c "GPUSHIM_DEVICES='$1' is not valid" $W/bad.err)" = 1 ] &&
    [ "$(grep -c . $W/bad.err)" = 1 ] && [ "$(used)" = 74/0/0/0/0 ]; }
for v in 0,0 abc -1 0,,1 1, '' 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16; do
    run bad 2 "GPUSHIM_DEVICES=$v"
    check "GPUSHIM_DEVICES='$v': one line naming it, results equal, one device" one_line "$v"
done
run missing 2 GPUSHIM_DEVICES=0,5
check "GPUSHIM_DEVICES=0,5 with 2 devices: a line says device 5 is not used; results equal on device 0" \
    sh -c "grep -q 'GPUSHIM_DEVICES lists device 5, but there are only 2 devices' $W/missing.err"
check "GPUSHIM_DEVICES=0,5 with 2 devices: results equal, every call on device 0" split missing 74/0/0/0/0
run none 2 GPUSHIM_DEVICES=4,5
check "GPUSHIM_DEVICES=4,5 with 2 devices: everything on the CPU, the notice names the variable" \
    sh -c "grep -q 'GPUSHIM_DEVICES: none of its devices exists' $W/none.err &&
           [ $(count $W/none.log -- where=gpu) = 0 ]"
check "GPUSHIM_DEVICES=4,5 with 2 devices: results equal" same none

# Batched FFTs (tests/progs/fft_split.c): 7 plans that split, 2 that must not (interleaved transforms, and 100
# transforms of 6.4 MB in all); every part's input at least 16 MiB, so 1030 transforms of 64 KiB make 4 parts
# on 4 devices, 520 of 64 KiB and 1030 of 32 KiB (single precision) 2.
# (its reference replaces devices's, whose checks are done)
PROG=fft_split MODE=
$T/$PROG $W/ref.bin
# fft_split NAME BY-DEVICE/VIOLATIONS DEVICES CALLS: results equal, executes by device as given, CALLS logged with
# the field devices DEVICES ("None": absent).
fft_split() { same $1 && [ "$(used fft)" = $2 ] && [ "$(count $W/$1.log -- where=gpu devices=$3)" = $4 ]; }
# On one device an execute out of place whose input is at least 32 MiB runs in parts of at least 16 MiB, copies
# each way overlapping (cuda_fft.c's pipeline): c2c out of place and 2-d c2c in 4, r2c out of place and the
# single-precision c2c in 2; the one with padding left alone reads its output, and runs whole.  So 17 executes.
run fone 2
check "FFTs, 2 devices, GPUSHIM_DEVICES unset: results equal, every execute on device 0, 4 in parts ($(used fft))" \
    fft_split fone 17/0/0/0/0 None 9
# A part of the pipeline that fails, once earlier parts' results have come back: the whole execute is done again
# by FFTW.  Z2Z's 3rd execute is the third of the c2c's 4 parts; D2Z's 2nd the r2c's last part; copy 8 the upload
# of a later part of the c2c, after the first part's download was queued.
failed_one() { same fault && [ "$(count $W/fault.log -- where=cpu 'why=gpu error*')" = 1 ] &&
    [ "$(standin violations)" = 0 ]; }
for f in cufftExecZ2Z:3 cufftExecD2Z:2 cudaMemcpy2DAsync:8; do
    run fault 2 GS_STANDIN_FAIL=$f
    check "FFTs on one device, $f fails: results equal, one execute on the CPU saying why" failed_one
done
run ftwo 2 GPUSHIM_DEVICES=0,1
check "FFTs, GPUSHIM_DEVICES=0,1: results equal, 7 split between both devices, logged so ($(used fft))" \
    fft_split ftwo 9/7/0/0/0 2 7
run ffour 4 GPUSHIM_DEVICES=all
check "FFTs, GPUSHIM_DEVICES=all, 4 devices: results equal, 3 in 4 parts, 4 in 2 ($(used fft))" \
    fft_split ffour 9/7/3/3/0 4 3

# A part that fails: the whole execute is done again by FFTW, and logged.  Z2Z's 3rd and 4th executes are the
# parts of the complex transform in place, whose parts write nothing before both have computed; D2Z's 1st or
# 2nd, a part of the r2c out of place; C2C's 2nd, a part of the single-precision one; the first copy, a part's
# upload.
for f in cufftExecZ2Z:3 cufftExecZ2Z:4 cufftExecD2Z:2 cufftExecC2C:2 cudaMemcpy2DAsync:1; do
    run fault 2 GPUSHIM_DEVICES=0,1 GS_STANDIN_FAIL=$f
    check "FFTs, GPUSHIM_DEVICES=0,1, $f fails: results equal, one execute on the CPU saying why" failed_once
done
finish

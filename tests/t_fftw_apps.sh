# FFTW's users under the shim: pyFFTW (Debian's, on the system FFTW, and PyPI's wheel, on the FFTW it bundles),
# GNU Octave, and a Fortran program on FFTW's legacy dfftw_/sfftw_ interface.  Each runs without the shim, under
# it and under it with GPUSHIM_OFFLOAD=always (the stand-in's cuFFT); every result is checked against a direct
# DFT, numpy.fft or the run without the shim, and the log must show each execute with its plan's shape.
. "$(dirname "$0")/lib.sh"

# fftw LOG [KEY=VALUE...]: FFTW execute records of LOG matching every KEY=VALUE.
fftw() {
    l=$1
    shift
    count $l -- 'routine=fftw*' "$@"
}
# gpu_all NAME LOG N: with offload=always, all N FFTW executes ran on the (stand-in) GPU.
gpu_all() {
    check "$1: all $3 executes ran on the GPU ($(fftw $2 where=gpu) did; on the CPU: $($PY tests/logq.py values why \
        $2 -- 'routine=fftw*' where=cpu | tr '\n' ',' | sed 's/,$//'))" test "$(fftw $2 where=gpu)" = "$3"
}
have "the CUDA stand-in's cuFFT ($SI/libcufft.so.12, make tests)" test -f $SI/libcufft.so.12

# ---- pyFFTW ----------------------------------------------------------------------------------------------
# pyfftw_case NAME PYTHON: tests/py/fftw_pyfftw.py plain, under the shim, and forced onto the GPU.
pyfftw_case() {
    name=$1 py=$2
    have "$name: pyFFTW" $py -c 'import pyfftw' || return 0
    $py tests/py/fftw_pyfftw.py >$W/$name.plain.out 2>&1
    check "$name plain: every result agrees with numpy.fft ($(tail -n 1 $W/$name.plain.out))" \
        grep -q ': all agree$' $W/$name.plain.out
    n=$(sed -n 's/^executes //p' $W/$name.plain.out)
    n=${n:-none}
    wisdom=$(grep '^wisdom double' $W/$name.plain.out | sed 's/.*, //')
    for mode in auto always; do
        standin_reset
        shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$name.$mode.log $py tests/py/fftw_pyfftw.py >$W/$name.$mode.out \
            2>$W/$name.$mode.err
        check "$name, $mode: every result agrees with numpy.fft" grep -q ': all agree$' $W/$name.$mode.out
        check "$name, $mode: nothing on stderr" test ! -s $W/$name.$mode.err
        check "$name, $mode: the log is valid" sh -c "$PY tests/logq.py check $W/$name.$mode.log >/dev/null"
        check "$name, $mode: every execute logged ($n)" test "$(fftw $W/$name.$mode.log)" = "$n"
        check "$name, $mode: the plans are made by the FFTW that makes them without the shim ($wisdom)" \
            grep -qx "wisdom double: [1-9][0-9]* entries, $wisdom" $W/$name.$mode.out
        check "$name, $mode: no stand-in violation" test "$(standin violations)" = 0
    done
    l=$W/$name.auto.log
    for r in fftw_execute_dft fftw_execute_dft_r2c fftw_execute_dft_c2r; do
        for p in fftw fftwf; do
            rr=$p${r#fftw}
            check "$name: $rr logged" test "$(count $l -- routine=$rr symbol=$rr)" -gt 0
        done
    done
    check "$name: shapes: fftn 12x10x8 (F and B), 8 rows of 96, irfftn 12x10x8 a c2r, in both precisions" sh -c "
        [ $(fftw $l n=960 b=1 kind=dft 'shape=[[]12, 10, 8]') = 4 ] &&
        [ $(fftw $l n=96 b=8 kind=dft 'shape=[[]96]' opts=F) = 2 ] &&
        [ $(fftw $l n=960 kind=c2r 'shape=[[]12, 10, 8]' opts=B) = 2 ]"
    check "$name: an FFTW object called 5 times, new arrays twice: 5 executes of its plan, both precisions" \
        test "$(fftw $l n=360 b=1 'shape=[[]20, 18]')" = 10
    check "$name: every execute's site is the script's own line" \
        test "$(fftw $l 'site=fftw_pyfftw.py:*')" = "$n"
    # pyFFTW's extension module is its callers' native site (its function, or an offset where it is stripped, as
    # Debian's is): FFTW's own libraries are walked past, not it.
    check "$name: the native site of pyFFTW's executes is pyFFTW's extension module" \
        test "$(fftw $l 'native=pyfftw.cpython-*.so[:+]*')" = "$n"
    gpu_all "$name, always" $W/$name.always.log "$n"
    check "$name, always: the stand-in's cuFFT ran each execute the log puts on the GPU" \
        test "$(fftw $W/$name.always.log where=gpu)" = "$(standin fft_execs)"
}

pyfftw_case debian /usr/bin/python3
pyfftw_case pypi $ROOT/build/venv-np2/bin/python
# The wheel's FFTW is its own, under renamed files (libfftw3-<hash>.so) that its extension module loads
# RTLD_LOCAL; the shim's interposed names still catch the calls (the checks above) and its real-symbol search
# finds the bundled FFTW.  With another FFTW loaded first, as another extension module may, pyFFTW's plans must
# still come from its own FFTW: without the shim they do.
if [ -f $W/pypi.plain.out ]; then
    check "pypi plain: its FFTW is the bundled one, under renamed files" sh -c "
        grep -q '^fftw libraries: .*/pyfftw.libs/libfftw3-' $W/pypi.plain.out &&
        ! grep -q '^fftw libraries: .*/libfftw3\.so' $W/pypi.plain.out"
    other=/usr/lib/x86_64-linux-gnu/libfftw3.so.3
    $ROOT/build/venv-np2/bin/python tests/py/fftw_pyfftw.py --other $other >$W/other.plain.out 2>&1
    shim GPUSHIM_LOG=$W/other.log $ROOT/build/venv-np2/bin/python tests/py/fftw_pyfftw.py --other $other \
        >$W/other.shim.out 2>&1
    check "pypi, Debian's FFTW loaded first: plain, pyFFTW plans with its own ($(grep '^wisdom double' $W/other.plain.out))" \
        grep -qx "wisdom double: [1-9][0-9]* entries, $wisdom" $W/other.plain.out
    check "pypi, Debian's FFTW loaded first: under the shim too ($(grep '^wisdom double' $W/other.shim.out))" \
        grep -qx "wisdom double: [1-9][0-9]* entries, $wisdom" $W/other.shim.out
fi

# ---- GNU Octave ------------------------------------------------------------------------------------------
# One Octave per mode: tests/octave/fftw_octave.m checks each result against a direct DFT and, under the
# shim, against the run without it.
octave_run() {
    out=$1
    shift
    "$@" octave-cli --no-gui --norc --no-history -q --eval "addpath('$ROOT/tests/octave'); fftw_octave($out)"
}
if have "GNU Octave (octave-cli)" command -v octave-cli; then
    octave_run "'$W/oct.plain.bin'" >$W/oct.plain.out 2>&1
    check "octave plain: every result agrees with a direct DFT ($(tail -n 1 $W/oct.plain.out))" \
        grep -q ': all agree$' $W/oct.plain.out
    n=$(sed -n 's/^fft calls //p' $W/oct.plain.out)
    n=${n:-none}
    for mode in auto always; do
        standin_reset
        octave_run "'$W/oct.$mode.bin', '$W/oct.plain.bin'" shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/oct.$mode.log \
            >$W/oct.$mode.out 2>$W/oct.$mode.err
        check "octave, $mode: every result agrees with a direct DFT and with the run without the shim" sh -c "
            grep -q ': all agree$' $W/oct.$mode.out && [ $(grep -c 'against the run without the shim' $W/oct.$mode.out) = $n ]"
        check "octave, $mode: nothing on stderr" test ! -s $W/oct.$mode.err
        check "octave, $mode: every fft call's execute logged ($n)" test "$(fftw $W/oct.$mode.log)" = "$n"
        check "octave, $mode: no stand-in violation" test "$(standin violations)" = 0
    done
    l=$W/oct.auto.log
    for r in fftw_execute_dft fftwf_execute_dft fftw_execute_dft_r2c fftwf_execute_dft_r2c; do
        check "octave: $r logged" test "$(count $l -- routine=$r)" -gt 0
    done
    check "octave: shapes, outermost first: fftn 12x10x8 is [8, 10, 12] (F and B); fft2 of real 24x20 an r2c [20, 24]" sh -c "
        [ $(fftw $l kind=dft 'shape=[[]8, 10, 12]') = 4 ] && [ $(fftw $l kind=r2c 'shape=[[]20, 24]') = 2 ]"
    check "octave: fft of 48x10 by columns and of 10x48 by rows: 48 points, 10 transforms" \
        test "$(fftw $l n=48 b=10 kind=dft)" = 4
    check "octave: every execute's native site is liboctave's FFTW class" \
        test "$(fftw $l 'native=liboctave.so.*:octave::fftw::*')" = "$n"
    gpu_all "octave, always" $W/oct.always.log "$n"
fi

# ---- Fortran: dfftw_ and sfftw_ --------------------------------------------------------------------------
# FFTW's Fortran wrappers (api/f77funcs.h) plan through the C planners, by name, but execute the plan
# themselves: in Debian's libfftw3 dfftw_plan_dft_3d_ calls fftw_plan_dft_3d through the PLT (so the shim
# records the plan), while dfftw_execute_dft_ jumps to the plan's apply function and never calls
# fftw_execute_dft.  Its executes reach the shim only when the shim interposes the dfftw_/sfftw_ executes too:
# the checks on their records below expect that.
F=$T/fft_fortran
if have "the Fortran test program ($F: gfortran, make tests)" test -x $F; then
    lib=$(ldd $F | awk '/libfftw3\.so/ {print $3}')
    # calls FUNCTION: the call and jump targets in FUNCTION's code in $lib.
    calls() { objdump -d --no-show-raw-insn $lib | awk -v f="<$1@@Base>:" '$2 == f {p = 1} p && /^$/ {exit} p' |
        grep -E '	(call|jmp) ' | sed 's/.*<//; s/>.*//; s/.*	jmp  *\*.*/indirect/'; }
    calls dfftw_plan_dft_3d_ >$W/f.plan
    calls dfftw_execute_dft_ >$W/f.exec
    check "$lib: dfftw_plan_dft_3d_ calls fftw_plan_dft_3d through the PLT ($(tr '\n' ' ' <$W/f.plan))" \
        grep -qx 'fftw_plan_dft_3d@plt' $W/f.plan
    check "$lib: dfftw_execute_dft_ calls no fftw_execute* ($(tr '\n' ' ' <$W/f.exec))" \
        sh -c "[ -s $W/f.exec ] && ! grep -q '^fftw_execute' $W/f.exec"
    $F >$W/f.plain.out 2>&1
    check "fortran plain: every result agrees with a direct DFT" grep -q ': all agree$' $W/f.plain.out
    for mode in auto always; do
        standin_reset
        shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/f.$mode.log $F >$W/f.$mode.out 2>$W/f.$mode.err
        check "fortran, $mode: every result agrees with a direct DFT" grep -q ': all agree$' $W/f.$mode.out
        check "fortran, $mode: nothing on stderr" test ! -s $W/f.$mode.err
        check "fortran, $mode: no stand-in violation" test "$(standin violations)" = 0
    done
    l=$W/f.auto.log
    check "fortran: a dfftw_ plan is known to the shim: its execute through fftw_execute has its shape [4, 5, 6]" \
        test "$(count $l -- routine=fftw_execute symbol=fftw_execute n=120 kind=dft 'shape=[[]4, 5, 6]' opts=F)" = 1
    # fortran_entry SYMBOL ROUTINE KIND OPTS COUNT: the Fortran entry SYMBOL logged COUNT times as ROUTINE, with
    # the plan's kind, shape (outermost first: Fortran's 6x5x4 is [4, 5, 6]) and direction.
    fortran_entry() {
        check "fortran: $1 logged as $2, $3 [4, 5, 6] $4, $5 times" \
            test "$(count $l -- symbol=$1 routine=$2 kind=$3 'shape=[[]4, 5, 6]' opts=$4)" = $5
    }
    fortran_entry dfftw_execute_dft_ fftw_execute_dft dft F 2
    fortran_entry dfftw_execute_dft_ fftw_execute_dft dft B 1
    fortran_entry dfftw_execute_ fftw_execute dft F 1
    fortran_entry sfftw_execute_dft_ fftwf_execute_dft dft F 1
    fortran_entry dfftw_execute_dft_r2c_ fftw_execute_dft_r2c r2c F 1
    fortran_entry dfftw_execute_dft_c2r_ fftw_execute_dft_c2r c2r B 1
    fortran_entry sfftw_execute_dft_r2c_ fftwf_execute_dft_r2c r2c F 1
    check "fortran: every execute logged (9), from the program (native fft_fortran:MAIN__)" sh -c "
        [ $(fftw $l) = 9 ] && [ $(fftw $l native=fft_fortran:MAIN__) = 9 ]"
    gpu_all "fortran, always" $W/f.always.log 9
fi
finish

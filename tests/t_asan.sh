# A memory-error net under the whole suite (issue 46): AddressSanitizer's build of the library and of the stand-in's
# libraries (make asan, build/asan) preloaded behind ASan's runtime into the suite's C programs (every routine in
# every spelling, invalid arguments, guard bands around every output (those of the Python layer's C entries,
# gpushim_linalg and gpushim_fft, too), threads, fork and nested fork, the residency cache's hazards, host
# registration's, exits and destructors, several devices, sharing the device, nested and inner calls, constructors,
# RTLD_LOCAL, the background bring-up, FFTW's planners, a sample of random plans and FFTW's Fortran interface) and
# into NumPy, SciPy, pyFFTW and scikit-learn scripts (numpy.linalg, scipy.linalg, numpy.fft and scipy.fft through the
# Python layer among them), each run twice: every call forced onto the GPU path (GPUSHIM_OFFLOAD=always) and by the
# default policy, every setting left as a user leaves it.
# The other tests see a wrong result; this one sees a read or write past a buffer, a use after free or a double
# free in the library that happens to leave the results right.  ASan checks the library's accesses to the
# program's heap and to its own, and the stand-in's copies into and out of its "device" memory, which is the
# host's; the stand-in checks every device range it is handed against its allocations (its violations).  Each
# run must exit 0, without a report (halt_on_error, exit status 23, the report in $W/NAME.MODE.asan.PID),
# without a violation, with the results of the run without the shim.  The programs are not instrumented:
# ASan's runtime, first in LD_PRELOAD, replaces malloc and free for the whole process, so host registration
# turns itself off, as under any malloc preloaded ahead of the shim (src/memory/hostreg.c,
# gs_reg_hooks_first).  Prints the runs, calls and reports at the end.
. "$(dirname "$0")/lib.sh"
# GS_ASAN: another ASan build's folder (one with a bug planted, to see the checks fail).
AS=${GS_ASAN:-$ROOT/build/asan}
have "the AddressSanitizer build (make asan)" test -f $AS/libgpushim.so -a -f $AS/standin/libcudart.so.13 ||
    { finish; exit; }
# The runtime the build was linked with.
RT=$(ldd $AS/libgpushim.so | awk '$1 ~ /^libasan/ {print $3}')
VPY=$ROOT/build/venv-np2/bin/python
have "NumPy, SciPy and scikit-learn in build/venv-np2" $VPY -c 'import numpy, scipy, sklearn' || { finish; exit; }
# Stop at the first report with exit status 23, each process's reports in a file of its own.  Leaks are checked
# in the C programs, whose every allocation is freed or still reachable at exit; CPython leaves objects
# unreachable at its exit by design, so not in Python.  ASan's interceptor of __tls_get_addr stays off: GCC 12's
# runtime takes some blocks of dynamic TLS for glibc 2.19's layout and gives the leak check a range that is
# not mapped, which crashes it ("Tracer caught signal 11"; google/sanitizers#1322); static TLS is still scanned.
ASAN_BASE="halt_on_error=1:abort_on_error=0:exitcode=23:intercept_tls_get_addr=0"

runs=0 progs=0 reports=0 calls=0 leaks=1 limit=300
# args DIR EXT ARG...: prints the arguments one a line, each '@' made $W/$name.EXT (the run's results file) and
# SIDIR in one made DIR (the stand-in's folder, which a program linked to the CUDA runtime loads it from).
args() {
    dir=$1 ext=$2
    shift 2
    for a; do
        [ "$a" = @ ] && a=$W/$name.$ext
        case $a in *SIDIR*) a=${a%%SIDIR*}$dir${a#*SIDIR} ;; esac
        printf '%s\n' "$a"
    done
}
# ref NAME EXT VAR=VALUE... PROGRAM ARGS...: the program without the shim, its results in $W/NAME.ref.EXT, its
# stdout in $W/NAME.ref.out.
ref() {
    name=$1.ref ext=$2
    shift 2
    args $SI $ext "$@" >$W/$name.args
    # (split at newlines alone, and not globbed: an argument may hold spaces)
    # shellcheck disable=SC2046
    (IFS='
'; set -f; exec env $(cat $W/$name.args)) >$W/$name.out 2>$W/$name.err
}
# asan NAME MODE EXT VAR=VALUE... PROGRAM ARGS...: the program under the ASan build, forced (MODE forced: every
# call on the GPU path, the GPU brought up in the first) or by default (MODE default: every setting gpushim's
# default), its results in $W/NAME.MODE.EXT, stdout in .out, stderr in .err, offload log in .PID.log (a forked
# child's too), ASan's reports in $W/NAME.MODE.asan.PID; sets $rc (124: still running after $limit seconds).
asan() {
    name=$1.$2 ext=$3 mode=$2
    shift 3
    rm -f $W/$name.*
    standin_reset
    { [ $mode = default ] || printf '%s\n' GPUSHIM_OFFLOAD=always GPUSHIM_WARMUP=off; args $AS/standin $ext "$@"; } \
        >$W/$name.args
    # shellcheck disable=SC2046
    (IFS='
'; set -f; exec timeout $limit env LD_PRELOAD="$RT:$AS/libgpushim.so" GPUSHIM_CUDA_LIBDIR=$AS/standin \
        GS_STANDIN_REPORT=$REPORT GPUSHIM_LOG=$W/$name.%p.log \
        ASAN_OPTIONS="$ASAN_BASE:detect_leaks=$leaks:log_path=$W/$name.asan" $(cat $W/$name.args)) \
        >$W/$name.out 2>$W/$name.err
    rc=$?
}
# tally NAME MODE: adds the run, its calls and ASan's reports (in its files or on stderr) to the figures; sets
# $n, the reports, and $c, the calls.
tally() {
    r=$W/$1.$2
    n=$(cat $r.asan.* $r.err 2>/dev/null |
        grep -cE 'ERROR: [A-Za-z]+Sanitizer|Sanitizer has encountered a fatal error')
    c=$(cat $r.*.log 2>/dev/null | $PY "$ROOT/tests/logq.py" count /dev/stdin)
    runs=$((runs + 1)) reports=$((reports + n)) calls=$((calls + ${c:-0}))
}
# clean NAME MODE: the run exited 0, ASan reported nothing, the stand-in saw no bad pointer; tallied.
clean() {
    tally $1 $2
    r=$W/$1.$2
    check "$1, $2: exit status 0 ($rc), no report from ASan ($n$(cat $r.asan.* $r.err 2>/dev/null |
        sed -n 's/^SUMMARY: AddressSanitizer: \(.*\)/: \1/p' | head -n 1)), no bad pointer, $c calls" \
        test "$rc/$n/$(standin violations)" = 0/0/0
}
# same HOW NAME MODE [REF]: the run's results are the reference's (REF's, NAME's unless given).  HOW: bin, every
# results file (a forked child's too) within blas_cmp's tolerance; npz, tests/py/compare.py's; out, stdout byte
# for byte; near, stdout's numbers within 1e-8 relative, the other words equal.
same() {
    r=$W/$2.$3 f=$W/${4:-$2}.ref
    case $1 in
    bin)
        for x in $f.bin*; do
            [ -f $x ] && $T/blas_cmp $x $r${x#$f} >>$r.cmp 2>&1 || return 1
        done ;;
    npz) $VPY tests/py/compare.py $f.npz $r.npz >$r.cmp 2>&1 ;;
    out) [ -s $f.out ] && cmp -s $f.out $r.out ;;
    near)
        [ -s $f.out ] && awk 'NR == FNR { w[NR] = $0; next }
            { n = split(w[FNR], a); if (n != NF) bad = 1
              for (i = 1; i <= NF; i++)
                  if ($i != a[i]) { if ($i !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) { bad = 1; continue }
                      d = $i - a[i]; m = a[i] < 0 ? -a[i] : a[i]; if ((d < 0 ? -d : d) > 1e-8 * m + 1e-12) bad = 1 } }
            END { exit bad || FNR != length(w) }' $f.out $r.out ;;
    esac
}
# prog NAME HOW VAR=VALUE... PROGRAM ARGS...: the program without the shim, then forced and by default under
# ASan, each run clean and its results the same by HOW (as same's, or self: the program checks its own results,
# its exit status says).
prog() {
    prg=$1 how=$2 progs=$((progs + 1))
    shift 2
    ext=bin
    [ $how = npz ] && ext=npz
    [ $how = self ] || ref $prg $ext "$@"
    for mode in forced default; do
        asan $prg $mode $ext "$@"
        clean $prg $mode
        [ $how = self ] || check "$prg, $mode: results equal to the run without the shim" same $how $prg $mode
    done
}

# ---- the C programs ---------------------------------------------------------------------------------------------
for s in plain ilp64 scipy scipy64; do prog blas_all_$s bin $T/blas_all_$s @; done
prog blas_invalid bin $T/blas_all_plain --invalid @
# Guard bands around every output (tests/t_bounds.sh), the program's own check, its exit status: the GPU path's
# bounds forced, the CPU library's (which take whole workspaces) by default.
for s in plain ilp64 scipy scipy64 split; do
    progs=$((progs + 1))
    for mode in forced default; do
        bounds=cpu
        [ $mode = forced ] && bounds=
        if [ $s = split ]; then
            asan bounds_$s $mode bin GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1 $T/bounds_plain $bounds split
        else
            asan bounds_$s $mode bin $T/bounds_$s $bounds blas lapack fft large
        fi
        clean bounds_$s $mode
    done
done
# The Python layer's C entries, gpushim_linalg and gpushim_fft, called directly between guard bands (the program's
# own check, as in tests/t_bounds.sh): forced, every call on the GPU path; by default, each too small for the
# policy and declined, which must write nothing.
progs=$((progs + 1))
for mode in forced default; do
    asan bounds_arrays $mode bin $T/bounds_arrays linalg fft
    clean bounds_arrays $mode
done
prog little bin $T/little @
# (no leak check: reuse keeps its last buffers to the end, where tests/t_hostreg.sh counts their registrations)
leaks=0
prog reuse bin $T/reuse @
leaks=1
prog threads bin $T/threads @
prog copies self $T/copies
prog fork bin $T/fork @
prog hazards bin $T/hazards @
# (OpenBLAS on one thread, as in tests/t_races.sh: a child forked while its threads are busy may wait forever.
# No forks: GCC 12's ASan allocator has no fork handlers, so a child forked while one of the 16 busy threads holds
# one of its locks inherits it held and hangs in its next malloc of that size or in the leak check at its exit,
# with ASan's runtime alone as with the shim.  tests/t_races.sh forks from the busy threads without ASan, and the
# fork programs here fork under ASan from a quiet process.)
prog stress bin OPENBLAS_NUM_THREADS=1 $T/stress @ 16 200
prog exit_blas bin LD_LIBRARY_PATH=SIDIR $T/exit_blas @
# (no leak check: after the program's cudaDeviceReset the stand-in keeps its pinned blocks allocated but
# unreadable, as the real reset unmaps them, and the leak check's scan of the heap would fault on them)
leaks=0
prog exit_reset bin LD_LIBRARY_PATH=SIDIR $T/exit_blas @ --reset
leaks=1
prog devices bin GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1 $T/devices @
prog share bin LD_LIBRARY_PATH=SIDIR:$T/fakecuda GS_STANDIN_MEM=$((64 << 20)) GS_STANDIN_DEVICES=2 \
    GPUSHIM_DEVICE=1 $T/share @ 700
prog nested bin $T/nested @
prog inner bin $T/inner @
prog ctor bin $T/ctor_main @
prog rtld_local bin $T/rtld_local_main $T/librtld_user.so @
prog warmup near GPUSHIM_WARMUP=lazy GPUSHIM_MIN_FLOPS=0 GS_STANDIN_UP_MS=50 $T/warmup 14 5
prog warmup_fork near GPUSHIM_WARMUP=lazy GPUSHIM_MIN_FLOPS=0 GS_STANDIN_UP_MS=50 $T/warmup 4 5 fork
# The bring-up's thread ending as the program forks: a fork waits for the thread to have gone, not only for
# its work to be done (src/dispatch/warmup.c, gs_warm_join_locked), or the child inherits the locks the thread
# holds on its way out, in its thread-local destructors and its allocator's cache; ASan's allocator has no fork
# handlers, and the child hung in its first free (7 runs of 24 did, 3 at a time on 2 cores).  12 runs, 3 at a
# time, each stand-in reporting to a file of its own.
limit=60
for rd in 1 2 3 4; do
    for k in 1 2 3; do
        (asan fork_end$rd$k default bin GS_STANDIN_REPORT=$W/fork_end$rd$k.report GPUSHIM_MIN_FLOPS=0 \
            GS_STANDIN_UP_MS=50 $T/warmup 4 5 fork
        echo $rc >$W/fork_end$rd$k.rc) &
    done
    wait
done
limit=300 ended=0
for rd in 1 2 3 4; do
    for k in 1 2 3; do
        tally fork_end$rd$k default
        [ "$(cat $W/fork_end$rd$k.rc)/$n/$(REPORT=$W/fork_end$rd$k.report standin violations)" = 0/0/0 ] &&
            same near fork_end$rd$k default warmup_fork && ended=$((ended + 1))
    done
done
check "the bring-up's thread ending as the program forks: 12 of 12 runs exit 0, no report from ASan, no bad \
pointer, results equal ($ended)" test $ended = 12
prog sites near $T/sites_main
prog runs self $T/runs
prog fft_plans out $T/fft_plans
prog fft_diff self $T/fft_diff 1 500
prog fft_other out $T/fft_other
prog fft_steps near $T/fft_steps 8 2 16
prog fft_fresh near $T/fft_fresh 2
prog fft_twin near $T/fft_twin 2 8
prog fft_split bin GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1 $T/fft_split @
prog fft_fortran self $T/fft_fortran
# FFTW_MEASURE plans deferred (planners.c), and measured at an execute on the CPU when every cuFFT execute fails:
# the measuring's copy of the execute's arrays, and its putting back.
prog fft_defer near $T/fft_defer 64 4
prog fft_defer_cpu near GS_STANDIN_FAIL=cufftExecD2Z,cufftExecZ2D $T/fft_defer 64 4

# ---- NumPy, SciPy and scikit-learn ------------------------------------------------------------------------------
leaks=0
prog numpy_blas npz $VPY tests/py/blas_numpy.py @
prog numpy_lapack npz $VPY tests/py/lapack_numpy.py @ 200
prog lapack_more npz $VPY tests/py/lapack_more.py @
prog svdvals npz $VPY tests/py/svdvals.py @ 1024
prog pyfftw self $VPY tests/py/fftw_pyfftw.py
# The Python layer, its scripts' own checks against the original functions: numpy.linalg's and scipy.linalg's
# wrapped functions (gpushim_linalg), numpy.fft's and scipy.fft's transforms (gpushim_fft).
prog pylayer self PYTHONPATH=$ROOT/scripts/python $VPY tests/py/pylayer.py
prog pyfft self PYTHONPATH=$ROOT/scripts/python $VPY tests/py/pyfft.py 49 300
prog sklearn npz $VPY tests/py/sklearn_models.py @ 2000 300

echo "t_asan: $runs runs of $progs programs, $calls calls, $reports reports from ASan"
finish

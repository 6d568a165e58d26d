# Load and races (issue 24): 16 threads calling BLAS, LAPACK and FFTW at once on shared and private operands
# (tests/progs/stress.c), under the shim with the stand-in, under ThreadSanitizer (the TSan build of the library
# and the stand-in, make tsan) and under helgrind; thread 0 forking a child and a grandchild while the others are
# busy; and BLAS from an atexit handler, from other libraries' destructors and after the program's own
# cudaDeviceReset (tests/progs/exit_blas.c).  Every run's results must equal those without the shim, and no report
# of TSan or helgrind may stay unexplained.  CI runs a sample; GS_SWEEP=full (make check-races) 16 threads x 10^4
# calls each.
. "$(dirname "$0")/lib.sh"
TS=$ROOT/build/tsan
if [ "${GS_SWEEP:-}" = full ]; then
    calls=10000 hg_calls=200 every=500 timeout=1800
else
    calls=500 hg_calls=20 every=50 timeout=120
fi
# HG_CALLS: calls per thread under helgrind instead (16 x 200 took 71 s here; 16 x 10^4 about an hour).
hg_calls=${HG_CALLS:-$hg_calls}
# OpenBLAS on one thread per call: with 16 callers, its own thread pool serialises them (a 16 x 500 run takes
# 300 times as long), and its threads are not the library under test.
export OPENBLAS_NUM_THREADS=1
have "valgrind" valgrind --version || { finish; exit; }

# same REF RUN RC: the run exited 0 and its results equal the reference's.
same() { [ "$3" = 0 ] && $T/blas_cmp $W/$1 $W/$2 >$W/$2.cmp 2>&1; }
# forks ERR N: stress says N forks, none failed (each child checked its products and its grandchild's).
forks() { grep -q "^stress: $2 forks, 0 failed$" $1; }

# ---- many threads under the shim, the stand-in as the GPU -----------------------------------------------------
$T/stress $W/ref.bin 16 $calls
for mode in always auto; do
    standin_reset
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$mode.log timeout $timeout $T/stress $W/$mode.bin 16 $calls
    check "16 threads x $calls calls, $mode: results equal" same ref.bin $mode.bin $?
    check "16 threads x $calls calls, $mode: every call logged once, no bad pointer" \
        test "$(count $W/$mode.log)/$(standin violations)" = $((16 * calls))/0
done
check "16 threads, always: every call on the GPU" test "$(count $W/always.log -- where=gpu)" = $((16 * calls))
# The background bring-up (eager) racing with the 16 callers, which run on the CPU until it is done.
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_WARMUP=eager timeout $timeout $T/stress $W/eager.bin 16 $calls
check "16 threads, always, bring-up in the background: results equal" same ref.bin eager.bin $?
check "16 threads, always, bring-up in the background: no bad pointer" test "$(standin violations)" = 0

# ---- fork and nested fork from a busy thread --------------------------------------------------------------------
n=$((calls / every))
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fork.%p.log timeout $timeout $T/stress $W/fork.bin 16 $calls \
    --fork $every 2>$W/fork.err
check "fork: the parent's results equal, no hang" same ref.bin fork.bin $?
check "fork: $n children and grandchildren of a busy thread exited 0, their products right" forks $W/fork.err $n
check "fork: children and grandchildren on the CPU (2 calls each), no CUDA call from them" \
    test "$(count $W/fork.*.log -- "why=no gpu in a forked child")/$(standin violations)" = $((4 * n))/0

# ---- ThreadSanitizer ------------------------------------------------------------------------------------------
# tsan NAME VAR=VALUE... PROGRAM ARGS...: a run of the TSan build, its reports in $W/NAME.tsan.PID; sets $rc.
# The guard library goes first (tests/progs/tsan_guard.c says why).  Call sites off: libunwind, which the native
# ones use, locks a mutex in its thread-exit destructor after TSan has finished the thread, which crashes TSan
# (helgrind, below, runs them).
tsan() {
    name=$1
    shift
    # (timeout first: the TSan build preloaded into a program not instrumented fails as TSan starts)
    timeout $timeout env LD_PRELOAD="$T/libtsan_guard.so $TS/libgpushim.so" GPUSHIM_CUDA_LIBDIR=$TS/standin \
        GS_STANDIN_REPORT=$REPORT GPUSHIM_WARMUP=off GPUSHIM_SITES=off \
        TSAN_OPTIONS="log_path=$W/$name.tsan exitcode=0" "$@"
    rc=$?
}
# syms FILE: the names FILE defines for the dynamic linker.
syms() { nm -D --defined-only "$1" | awk '{print $NF}' | sed 's/@.*//' | sort -u; }
syms $LIB >$W/lib.syms
syms "$(ldd $T/stress | awk '/libc.so.6/ {print $3}')" >$W/libc.syms
syms $T/libtsan_guard.so >$W/guard.syms
missing=$(comm -12 $W/lib.syms $W/libc.syms | comm -23 - $W/guard.syms | tr '\n' ' ')
check "TSan: the guard covers every C library function that gpushim interposes (${missing:-none missing})" \
    test -z "$missing"
# reports NAME: ThreadSanitizer's reports of the runs NAME.
reports() { cat $W/$1.tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true; }
tsan_runs=0 tsan_reports=0
for run in always auto eager fork; do
    standin_reset
    case $run in
    always | auto)
        tsan $run GPUSHIM_OFFLOAD=$run GPUSHIM_LOG=$W/t_$run.log $TS/tests/stress $W/t_$run.bin 16 $calls ;;
    eager) tsan $run GPUSHIM_OFFLOAD=always GPUSHIM_WARMUP=eager $TS/tests/stress $W/t_$run.bin 16 $calls ;;
    fork) tsan $run GPUSHIM_OFFLOAD=always $TS/tests/stress $W/t_$run.bin 16 $calls --fork $every 2>$W/t_fork.err ;;
    esac
    tsan_runs=$((tsan_runs + 1)) tsan_reports=$((tsan_reports + $(reports $run)))
    check "TSan, 16 threads x $calls calls, $run: results equal" same ref.bin t_$run.bin $rc
    check "TSan, $run: no bad pointer" test "$(standin violations)" = 0
    check "TSan, $run: no report ($(cat $W/$run.tsan.* 2>/dev/null | grep -m 3 '^SUMMARY' | tr '\n' ' '))" \
        test "$(reports $run)" = 0
done
check "TSan, always: every call on the GPU" test "$(count $W/t_always.log -- where=gpu)" = $((16 * calls))
check "TSan, fork: $n children and grandchildren exited 0" forks $W/t_fork.err $n

# ---- helgrind --------------------------------------------------------------------------------------------------
# Helgrind sees every access, the CPU libraries' and the stand-in's too, but not C11 atomics, pthread_once, or
# that a forked child has one thread: explain() gives each report in gpushim's code its explanation, or
# "unexplained"; third parties' own are suppressed in tests/races.supp, with the reasons.
# explain MAIN LOG...: a line per report: EXPLANATION | TITLE | first frame of the access | of the earlier one.
# MAIN is the log of the process that valgrind started (the others are forked children's).
explain() {
    main=$1
    shift
    awk -v main="$main" -v srcs="$(find "$ROOT/src" "$ROOT/include" -name '*.[ch]' -o -name '*.inc' | tr '\n' ' ')" '
    BEGIN { n = split(srcs, p, " "); for (i = 1; i <= n; i++) { b = p[i]; sub(/.*\//, "", b); path[b] = p[i] } }
    # Line k of source file f ("" when it is not one of gpushim'"'"'s).
    function src(f, k,   l, i) {
        if (!(f in path)) return ""
        if (!((f, k) in text)) { i = 0; while ((getline l < path[f]) > 0) text[f, ++i] = l; close(path[f]) }
        return text[f, k]
    }
    # Whether frame fr ("fn (file:line)") is a C11 atomic operation of gpushim: its line, or the line before
    # when the statement began there.
    function atomic(fr,   m, f, k) {
        if (!match(fr, /\([^():]+:[0-9]+\)$/)) return 0
        m = substr(fr, RSTART + 1, RLENGTH - 2); f = m; sub(/:.*/, "", f); k = m; sub(/.*:/, "", k)
        return src(f, k) ~ /atomic_/ || (src(f, k - 1) ~ /atomic_/ && src(f, k - 1) !~ /;[ \t]*$/)
    }
    function flush(   why, child) {
        child = file != main
        if (title != "" && nframes) {
            if (child && hook) why = "a forked child: its fork handlers reset what the parent threads used"
            else if (child && (title ~ /still holds/ || (title ~ /lock order/ && prefork)))
                why = "a forked child: its fork handlers re-initialise locks that the prepare handlers took"
            else if (once) why = "ordered by pthread_once"
            else if (title ~ /data race/ && atomic(top1) && atomic(top2)) why = "C11 atomic operations"
            else why = "unexplained"
            print why " | " title " | " top1 " | " top2
        }
        title = top1 = top2 = ""; side = 1; nframes = hook = once = prefork = inlock = 0
    }
    FNR == 1 { flush() }
    { sub(/^==[0-9]+== ?/, "") }
    /^----------------+$|^---Thread-Announcement/ { flush(); skip = $0 ~ /Announcement/; next }
    skip { next }
    # (where a lock held was first taken: not the access)
    /^ *Lock at 0x[0-9A-F]+ was first observed/ { inlock = 1; next }
    title == "" && /[A-Za-z]/ && !/^ / { title = $0; file = FILENAME; inlock = 0; next }
    /^This conflicts with/ { side = 2; inlock = 0; next }
    /^ +(at|by) 0x/ && title != "" && !inlock {
        nframes++; fr = $0; sub(/^ +(at|by) 0x[0-9A-F]+: /, "", fr)
        if (fr ~ /gs_atfork_child|__run_postfork_handlers/ && side == 1) hook = 1
        if (fr ~ /pthread_once/) once = 1
        if (fr ~ /__run_prefork_handlers/) prefork = 1
        if (fr ~ /vgpreload_helgrind/) next # (the wrappers of memset and the like in helgrind)
        if (side == 1 && top1 == "") top1 = fr
        if (side == 2 && top2 == "") top2 = fr
    }
    END { flush() }' "$@"
}
# helgrind NAME ARGS...: stress under helgrind with the shim; its logs $W/NAME.hg.PID; sets $rc and $main.
helgrind() {
    name=$1
    shift
    shim GPUSHIM_OFFLOAD=always timeout $((timeout * 5 + hg_calls)) valgrind --tool=helgrind \
        --suppressions=$ROOT/tests/races.supp --log-file=$W/$name.hg.%p $T/stress "$@"
    rc=$?
    # (the log of the process whose parent has no log)
    main=
    for l in $W/$name.hg.*; do
        parent=$(sed -n 's/^==[0-9]*== Parent PID: //p' $l)
        [ -e $W/$name.hg.$parent ] || main=$l
    done
}
$T/stress $W/hg.ref 16 $hg_calls
standin_reset
helgrind hg $W/hg.bin 16 $hg_calls --fork $((hg_calls / 2)) 2>$W/hg.err
explain $main $W/hg.hg.* >$W/hg.why
check "helgrind, 16 threads x $hg_calls calls and 2 forks: results equal" same hg.ref hg.bin $rc
check "helgrind: no bad pointer" test "$(standin violations)" = 0
hg_reports=$(wc -l <$W/hg.why) hg_left=$(grep -c '^unexplained' $W/hg.why)
why=$(cut -d'|' -f1 $W/hg.why | sort | uniq -c | sed 's/^ *//; s/ *$//' | tr '\n' ';')
check "helgrind: $hg_reports reports, $hg_left unexplained ($why) $(grep -m 3 '^unexplained' $W/hg.why)" \
    sh -c "[ -s $main ] && [ $hg_left = 0 ]"
check "helgrind: 2 children and grandchildren exited 0" forks $W/hg.err 2

# ---- the ends of a program's life -----------------------------------------------------------------------------
# main's calls, then with --reset the program's own cudaDeviceReset and calls after it, an atexit handler's, then
# the destructors' of a library linked and of one opened at the end of main.
for run in always auto always_reset; do
    mode=${run%_reset} flag=
    [ $run = always_reset ] && flag=--reset
    $T/exit_blas $W/exit_$run.ref $flag
    standin_reset
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/exit_$run.log timeout 60 $T/exit_blas $W/exit_$run.bin $flag \
        2>$W/exit_$run.err
    check "exit, $run: exit 0, results of main, atexit and both destructors equal" same exit_$run.ref exit_$run.bin $?
    check "exit, $run: the stand-in saw no stale or bad pointer ($(grep -m 1 VIOLATION $W/exit_$run.err))" \
        test "$(standin violations)" = 0
done
check "exit, always: main's calls and the atexit handler's on the GPU" \
    test "$(count $W/exit_always.log -- where=gpu)" -ge 4
standin_reset
tsan exit GPUSHIM_OFFLOAD=always $TS/tests/exit_blas $W/t_exit.bin --reset 2>$W/t_exit.err
tsan_runs=$((tsan_runs + 1)) tsan_reports=$((tsan_reports + $(reports exit)))
check "TSan, exit after a reset: results equal" same exit_always_reset.ref t_exit.bin $rc
check "TSan, exit after a reset: no stale or bad pointer" test "$(standin violations)" = 0
check "TSan, exit after a reset: no report" test "$(reports exit)" = 0
echo "t_races: 16 threads x $calls calls; TSan: $tsan_runs runs, $tsan_reports reports; helgrind: 16 x $hg_calls," \
    "$hg_reports reports, $hg_left unexplained; forks: $n a run"
finish

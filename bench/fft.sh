#!/bin/bash
# The FFT benchmark, one command on the GPU machine (bench/fft.sh from anywhere): FFTW's C API from a C program
# (build/bench/fft, from bench/fft.c) with the system's FFTW on 16 threads, with cuFFTW preloaded, with gpushim
# preloaded (arrays from malloc and from fftw_malloc, default policy and GPUSHIM_OFFLOAD=always), and the same
# transforms from CuPy with plain copies (bench/fft_cupy.py), side by side in one run: large transforms, a
# time-stepping loop (forward, multiply on the CPU, backward) and small sizes.  Writes bench/results/fft.jsonl
# (raw), fft.md (tables) and fft.svg (bars), and prints fft.md.  --quick: tiny sizes, one timed run each, into
# build/bench/fft-quick/ (a test of the pipeline, on a machine without a GPU too: under a minute).
#
# Knobs (environment variables; defaults in brackets):
#   PYTHON [python3]        the interpreter for the report and for CuPy (which needs NumPy and CuPy)
#   LARGE [c2c:512x512x512 c2c:16777216 c2c:8192x8192 r2c:512x512x512 c2r:512x512x512 many:4096x4096
#          tr:8192x4096 tr:128x256x512]   (tr: the output transposed, which no cuFFT layout expresses)
#   STEPS [step:256x256x256:10 step:512x512x512:10]   (D:S, S timed steps after one warm-up step)
#   SMALL [small:64 small:1024 small:16384 small:262144 small:32x32x32 small:64x64x64 small:128x128x128]
#   PRECISIONS [d s]        of LARGE and SMALL (d: fftw_, s: fftwf_); STEP_PRECISIONS [d]
#   LARGE_MODES [fftw cufftw gpushim gpushim-fftwmalloc cupy gpushim-always]
#   STEP_MODES [fftw cufftw gpushim gpushim-fftwmalloc gpushim-nocache]
#   SMALL_MODES [fftw cufftw gpushim gpushim-always]
#       fftw: the system's FFTW; fftw-fftwmalloc: the same with arrays from fftw_malloc; cufftw: LD_PRELOAD
#       $CUDA_HOME/lib64/libcufftw.so; gpushim: LD_PRELOAD=$GPUSHIM_LIB, default policy; gpushim-fftwmalloc:
#       arrays from fftw_malloc; gpushim-always: GPUSHIM_OFFLOAD=always; gpushim-nocache: GPUSHIM_CACHE=0
#       GPUSHIM_REGISTERED=0 (what the residency cache and registered memory buy); cupy: bench/fft_cupy.py
#       (LARGE only).  fftw runs first: its outputs are the reference the others are checked against.
#   REPEAT [3]              timed executes per large case, after one warm-up; the best is reported
#   SMALL_S [0.1]           seconds per timed batch of a small case (REPEAT batches; time per execute)
#   PLAN [measure]          FFTW_MEASURE (or estimate) for every FFTW plan, under TIMELIMIT [5] seconds of
#                           planning per plan, the wisdom kept in build/bench/fft-run/ between runs (a first run on
#                           a machine spends a minute or two more planning; WISDOM=0 keeps none)
#   THREADS [online CPUs]   FFTW's threads (plan_with_nthreads), and the step loop's multiply
#   DEADLINE_S [480]        start nothing after this many seconds, and stop a run at it: the report is still
#                           written.  With the defaults a run is estimated at 5 to 7 minutes on the H200 machine
#   CUDA_HOME [/usr/local/cuda]   GPUSHIM_LIB [build/libgpushim.so]   NO_GPU [0]: skip cufftw and cupy
#   RESULTS [bench/results] where fft.jsonl, fft.md, fft.svg and the gpushim logs go   COMMIT [git's]
# Exit status 1 when a result failed its check (the report says which), 0 otherwise.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
QUICK=0
[ "${1:-}" = --quick ] && QUICK=1 && shift
[ $# = 0 ] || { echo "usage: bench/fft.sh [--quick]   (knobs: see the head of bench/fft.sh)" >&2; exit 2; }
BB=build/bench
if [ $QUICK = 1 ]; then
    LARGE=${LARGE:-c2c:32x32x32 c2c:65536 c2c:256x256 r2c:32x32x32 c2r:32x32x32 many:64x1024 tr:64x32 tr:8x16x32}
    STEPS=${STEPS:-step:32x32x32:3}
    SMALL=${SMALL:-small:64 small:1024 small:16x16x16}
    REPEAT=${REPEAT:-1} SMALL_S=${SMALL_S:-0.01} TIMELIMIT=${TIMELIMIT:-1}
    R=${RESULTS:-$BB/fft-quick}
    W=$BB/fft-quick
else
    R=${RESULTS:-bench/results}
    W=$BB/fft-run
fi
LARGE_ALL="c2c:512x512x512 c2c:16777216 c2c:8192x8192 r2c:512x512x512 c2r:512x512x512 many:4096x4096"
LARGE=${LARGE:-$LARGE_ALL tr:8192x4096 tr:128x256x512}
STEPS=${STEPS-step:256x256x256:10 step:512x512x512:10}
SMALL=${SMALL-small:64 small:1024 small:16384 small:262144 small:32x32x32 small:64x64x64 small:128x128x128}
PRECISIONS=${PRECISIONS:-d s}
STEP_PRECISIONS=${STEP_PRECISIONS:-d}
LARGE_MODES=${LARGE_MODES-fftw cufftw gpushim gpushim-fftwmalloc cupy gpushim-always}
STEP_MODES=${STEP_MODES-fftw cufftw gpushim gpushim-fftwmalloc gpushim-nocache}
SMALL_MODES=${SMALL_MODES-fftw cufftw gpushim gpushim-always}
REPEAT=${REPEAT:-3}
SMALL_S=${SMALL_S:-0.1}
PLAN=${PLAN:-measure}
TIMELIMIT=${TIMELIMIT:-5}
THREADS=${THREADS:-$(nproc)}
DEADLINE_S=${DEADLINE_S:-480}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
GPUSHIM_LIB=${GPUSHIM_LIB:-$ROOT/build/libgpushim.so}
mkdir -p "$R" "$W/ref"
R=$(cd "$R" && pwd)
RAW=$R/fft.jsonl
PROG=$BB/fft
SECONDS=0

say() { printf '[%4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'bench/fft.sh: %s\n' "$*" >&2; exit 1; }
prec_flag() { echo "$1" | tr -d ' '; }

# ---- checks and the program ------------------------------------------------------------------------------
command -v "$PY" >/dev/null || die "PYTHON=$PY not found"
case $PLAN in measure|estimate) ;; *) die "PLAN: '$PLAN' is not measure or estimate" ;; esac
for p in $PRECISIONS $STEP_PRECISIONS; do case $p in d|s) ;; *) die "precision '$p' is not d or s" ;; esac; done
for m in $LARGE_MODES $STEP_MODES $SMALL_MODES; do
    case $m in fftw|fftw-fftwmalloc|cufftw|gpushim|gpushim-fftwmalloc|gpushim-always|gpushim-nocache|cupy) ;;
        *) die "unknown mode '$m'" ;; esac
done
case " $STEP_MODES $SMALL_MODES " in *" cupy "*) die "cupy runs the LARGE cases only" ;; esac
if [ ! -x $PROG ] || [ bench/fft.c -nt $PROG ] || [ bench/pool.h -nt $PROG ] ||
    [ bench/settle.h -nt $PROG ]; then
    say "building $PROG"
    make --no-print-directory $PROG >&2 || [ -x $PROG ] || die "could not build $PROG"
fi
missing=$(ldd $PROG | awk '/not found/ {print $1}' | tr '\n' ' ')
[ -z "$missing" ] || die "$PROG: libraries not found: $missing(put them on LD_LIBRARY_PATH)"

detect_gpu
CUFFTW=$CUDA_HOME/lib64/libcufftw.so

# ---- the raw file: what ran where -------------------------------------------------------------------------
: >"$RAW"
if [ -z "${COMMIT:-}" ]; then
    COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || COMMIT="$COMMIT+dirty"
fi
export LARGE STEPS SMALL PRECISIONS STEP_PRECISIONS LARGE_MODES STEP_MODES SMALL_MODES REPEAT SMALL_S PLAN \
    TIMELIMIT THREADS QUICK
GPU_NAME=$GPU_NAME COMMIT=$COMMIT "$PY" - >>"$RAW" <<'PY'
import json, os, platform, time
env = os.environ
knobs = {k: env.get(k) for k in ("LARGE", "STEPS", "SMALL", "PRECISIONS", "STEP_PRECISIONS", "LARGE_MODES",
                                 "STEP_MODES", "SMALL_MODES", "REPEAT", "SMALL_S", "PLAN", "TIMELIMIT", "THREADS",
                                 "GPUSHIM_POLICY", "GPUSHIM_MIN_FLOPS")}
print(json.dumps({"meta": {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(),
                           "cpus": os.cpu_count(), "gpu": env.get("GPU_NAME") or "none", "commit": env["COMMIT"],
                           "python": platform.python_version(), "quick": env["QUICK"] == "1", "knobs": knobs}}))
PY

# A JSON line saying that a mode will not run, and why; the report turns it into n/a cells.
declare -A SKIP=()
unavailable() {
    [ -n "${SKIP[$1]:-}" ] && return
    say "skipping $1: $2"
    SKIP[$1]=1
    printf '{"mode":"%s","unavailable":"%s"}\n' "$1" "$2" >>"$RAW"
}
for m in $LARGE_MODES $STEP_MODES $SMALL_MODES; do
    case $m in
        gpushim*) [ -f "$GPUSHIM_LIB" ] || unavailable "$m" "no $GPUSHIM_LIB (make lib)" ;;
        cufftw) if [ "$HAVE_GPU" = 0 ]; then unavailable "$m" "no GPU"
                elif [ ! -f "$CUFFTW" ]; then unavailable "$m" "no $CUFFTW"; fi ;;
        cupy) if [ "$HAVE_GPU" = 0 ]; then unavailable "$m" "no GPU"
              elif ! "$PY" -c 'import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0' 2>/dev/null; then
                  unavailable "$m" "CuPy does not import with $PY"; fi ;;
    esac
done
[ "$HAVE_GPU" = 1 ] || say "no GPU: the gpushim modes run on the CPU (the shim says so once per process)"

# ---- the runs ---------------------------------------------------------------------------------------------
WISDOM_ARGS=()
[ "${WISDOM:-1}" = 0 ] || WISDOM_ARGS=(--wisdom "$ROOT/$W/wisdom-$(hostname)")
# fftw's outputs are the reference: a run that has fftw starts from none (an earlier run's would be stale).
case " $LARGE_MODES $STEP_MODES $SMALL_MODES " in *" fftw "*) rm -f "$W"/ref/*.ref ;; esac

# run_group GROUP MODE PRECS CASE...: one process for the cases of a group in one mode, its JSON lines into
# $RAW as they come (a process stopped at the deadline keeps its cases).  PROBE=1: a gpushim run of the small
# cases under the log, three executes each (where they ran), its lines marked as a probe.
run_group() {
    local group=$1 mode=$2 precs=$3 probe=${PROBE:-0}
    shift 3
    local -a env=(env -u LD_PRELOAD -u GPUSHIM_OFFLOAD -u GPUSHIM_LOG -u GPUSHIM_CACHE -u GPUSHIM_REGISTERED)
    local -a args=(--mode "$mode" --prec "$precs" --repeat "$REPEAT" --threads "$THREADS" --plan "$PLAN"
                   --timelimit "$TIMELIMIT" --small-s "$SMALL_S" --ref "$ROOT/$W/ref")
    local log=$R/fft-$mode-$group.log
    case $mode in
        fftw*) args+=("${WISDOM_ARGS[@]}") ;;
        cufftw) env+=(LD_PRELOAD="$CUFFTW" LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
                args+=(--flags cufftw) ;;
        gpushim*) env+=(LD_PRELOAD="$GPUSHIM_LIB") args+=("${WISDOM_ARGS[@]}") ;;
    esac
    [ "$mode" = fftw ] && args+=(--save-ref)
    case $mode in *-fftwmalloc) args+=(--alloc fftw) ;; esac
    [ "$mode" = gpushim-always ] && env+=(GPUSHIM_OFFLOAD=always)
    [ "$mode" = gpushim-nocache ] && env+=(GPUSHIM_CACHE=0 GPUSHIM_REGISTERED=0)
    # The small cases' timed run has no log: writing it would cost more than a small transform.
    if [ "${mode%%-*}" = gpushim ] && { [ "$group" != small ] || [ "$probe" = 1 ]; }; then
        rm -f "$log"
        env+=(GPUSHIM_LOG="$log") args+=(--log "$log")
    fi
    [ "$probe" = 1 ] && args+=(--probe)
    local -a cmd=("$ROOT/$PROG" "${args[@]}" "$@")
    [ "$mode" = cupy ] && cmd=("$PY" bench/fft_cupy.py --prec "$precs" --repeat "$REPEAT" --ref "$ROOT/$W/ref" "$@")
    local left=$((DEADLINE_S - SECONDS)) t0=$SECONDS rc=0
    if [ $left -le 0 ]; then
        say "deadline: not running $group $mode"
        printf '{"mode":"%s","group":"%s","not_run":"%s"}\n' "$mode" "$group" \
            "not run: the deadline (DEADLINE_S=$DEADLINE_S s) had passed" >>"$RAW"
        return
    fi
    say "$group $mode$([ "$probe" = 1 ] && echo ' (probe, logged)') ..."
    timeout --kill-after=10 $left "${env[@]}" "${cmd[@]}" >>"$RAW" || rc=$?
    if [ $rc != 0 ]; then
        local why="exit status $rc"
        [ $rc = 124 ] && why="stopped at the deadline (DEADLINE_S=$DEADLINE_S s)"
        say "$group $mode: $why"
        printf '{"mode":"%s","group":"%s","failed":"%s"}\n' "$mode" "$group" "$why" >>"$RAW"
    fi
    say "$group $mode done in $((SECONDS - t0)) s"
}

# fftw first, for the reference; the rest in the order given.
ordered() { for m in "$@"; do [ "$m" = fftw ] && echo fftw; done; for m in "$@"; do [ "$m" = fftw ] || echo "$m"; done; }
# The case lists split into words on purpose (kind:dims, no blanks inside).
# shellcheck disable=SC2086
{
    for m in $(ordered $LARGE_MODES); do
        { [ -z "${SKIP[$m]:-}" ] && [ -n "$LARGE" ]; } || continue
        # cuFFTW dies on a transposing guru64 plan (exit status 139 on the H200, 7d6b5d8): those run apart.
        others=$(printf '%s\n' $LARGE | grep -v '^tr:' || true) trs=$(printf '%s\n' $LARGE | grep '^tr:' || true)
        if [ "$m" = cufftw ] && [ -n "$trs" ]; then
            [ -z "$others" ] || run_group large "$m" "$(prec_flag "$PRECISIONS")" $others
            run_group large "$m" "$(prec_flag "$PRECISIONS")" $trs
        else
            run_group large "$m" "$(prec_flag "$PRECISIONS")" $LARGE
        fi
    done
    for m in $(ordered $STEP_MODES); do
        [ -n "${SKIP[$m]:-}" ] || [ -z "$STEPS" ] || run_group step "$m" "$(prec_flag "$STEP_PRECISIONS")" $STEPS
    done
    for m in $(ordered $SMALL_MODES); do
        [ -n "${SKIP[$m]:-}" ] || [ -z "$SMALL" ] || {
            run_group small "$m" "$(prec_flag "$PRECISIONS")" $SMALL
            [ "${m%%-*}" != gpushim ] || PROBE=1 run_group small "$m" "$(prec_flag "$PRECISIONS")" $SMALL
        }
    done
}
printf '{"meta_end":{"elapsed_s":%d}}\n' $SECONDS >>"$RAW"
say "all runs done; writing the report"
"$PY" bench/fft_report.py "$RAW"

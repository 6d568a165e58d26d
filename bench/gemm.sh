#!/bin/bash
# The GEMM benchmark, one command on the GPU machine (bench/gemm.sh from anywhere): s, d, c and z GEMM, square
# and non-square, from a C program (CPU library, gpushim auto and forced, NVBLAS, NVBLAS with autopin) and from
# NumPy (CPU, gpushim auto and forced, CuPy with plain copies), side by side in one run.  Writes
# bench/results/gemm.jsonl (raw), gemm.md (tables, targets) and gemm.svg (plot), and prints gemm.md.
#
# Knobs (environment variables; defaults in brackets):
#   PYTHON [python3]            the interpreter with NumPy, SciPy (whose OpenBLAS the C program uses) and CuPy
#   PRECISIONS [d s c z]        SIZES [256 512 1024 2048 4096 8192 16384]
#   SHAPES [65536x256x256 65536x1024x1024 8192x8192x64 8192x8192x512 1024x1024x65536]   MxNxK, a is m x k:
#                               tall-skinny twice, k small twice, k large: shapes where copies weigh more than in
#                               a square product
#   MODES [all nine]            e.g. "c:cpu c:gpushim-auto numpy:cupy"; tools c and numpy; modes cpu,
#                               gpushim-auto, gpushim-forced, nvblas, nvblas-autopin (c only), cupy (numpy only)
#   REPEAT [5]                  timed runs per case at most, after one warm-up run (and under gpushim the
#                               bring-up it started: bench/settle.h)
#   BUDGET_S [0.5]              stop a case's timed runs once they have used more than this (at least one run)
#   CPU_MAX_N [s=8192 d=8192 c=4096 z=4096]   the cpu modes skip cases with m n k above N^3 (a number alone
#                               applies to every precision); NVBLAS_MAX_N [s=8192 d=16384 c=8192 z=8192] the same
#                               for the nvblas modes.  With these the whole run is estimated at about 6 to 8
#                               minutes on the H200 machine (CPU DGEMM at n = 16384 alone would add a minute)
#   DEADLINE_S [540]            start nothing after this many seconds, and stop a run at it: the report is
#                               still written, with what was measured
#   APPEND [0]                  1: keep bench/results/gemm.jsonl and add to it (later results of a case win),
#                               for example to run PRECISIONS="d s" and then PRECISIONS="c z"
#   GSBENCH_OPENBLAS [SciPy's]  the CPU library: SciPy's bundled LP64 OpenBLAS, found through PYTHON
#   CUDA_HOME [/usr/local/cuda] for lib64/libnvblas.so      GPUSHIM_LIB [build/libgpushim.so]
#   NO_GPU [0]                  1: treat the machine as having no GPU (skip nvblas and cupy)
#   RESULTS [bench/results]     where gemm.jsonl, gemm.md, gemm.svg and the gpushim logs go
#   COMMIT [git's]              the commit to name in the report
# Exit status 1 when a result failed its spot check (the report says which), 0 otherwise.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
ROOT=$(pwd)
PRECISIONS=${PRECISIONS:-d s c z}
SIZES=${SIZES:-256 512 1024 2048 4096 8192 16384}
SHAPES=${SHAPES-65536x256x256 65536x1024x1024 8192x8192x64 8192x8192x512 1024x1024x65536}
ALL_MODES="c:cpu c:gpushim-auto c:gpushim-forced c:nvblas c:nvblas-autopin"
ALL_MODES+=" numpy:cpu numpy:gpushim-auto numpy:gpushim-forced numpy:cupy"
MODES=${MODES:-$ALL_MODES}
REPEAT=${REPEAT:-5}
BUDGET_S=${BUDGET_S:-0.5}
CPU_MAX_N=${CPU_MAX_N:-s=8192 d=8192 c=4096 z=4096}
NVBLAS_MAX_N=${NVBLAS_MAX_N:-s=8192 d=16384 c=8192 z=8192}
DEADLINE_S=${DEADLINE_S:-540}
APPEND=${APPEND:-0}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
GPUSHIM_LIB=${GPUSHIM_LIB:-$ROOT/build/libgpushim.so}
CC=${CC:-gcc}
R=${RESULTS:-bench/results}
BB=build/bench
mkdir -p "$R" $BB
R=$(cd "$R" && pwd)
RAW=$R/gemm.jsonl
SECONDS=0

say() { printf '[%4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'bench/gemm.sh: %s\n' "$*" >&2; exit 1; }

# The limit for one precision out of "s=8192 d=16384 ..." or a single number; 0 (none) when not listed.
max_n() {
    local spec=$1 p=$2 item
    case $spec in *=*) ;; *) echo "$spec"; return ;; esac
    for item in $spec; do
        [ "${item%%=*}" = "$p" ] && { echo "${item#*=}"; return; }
    done
    echo 0
}

# A JSON line saying that one (tool, mode) will not run, and why; the report turns it into n/a cells.
unavailable() {
    say "skipping $1:$2: $3"
    SKIP[$1:$2]=1
    printf '{"tool":"%s","mode":"%s","unavailable":"%s"}\n' "$1" "$2" "$3" >>"$RAW"
}

# ---- what this machine has -------------------------------------------------------------------------------
command -v "$PY" >/dev/null || die "PYTHON=$PY not found"
"$PY" -c 'import numpy, scipy' 2>/dev/null || die "$PY cannot import numpy and scipy"
for p in $PRECISIONS; do case $p in s|d|c|z) ;; *) die "PRECISIONS: '$p' is not s, d, c or z" ;; esac; done
for c in $SIZES $SHAPES; do [[ $c =~ ^[0-9]+(x[0-9]+x[0-9]+)?$ ]] || die "bad size or shape '$c' (N or MxNxK)"; done
for tm in $MODES; do
    case $tm in
        c:cpu|c:gpushim-auto|c:gpushim-forced|c:nvblas|c:nvblas-autopin) ;;
        numpy:cpu|numpy:gpushim-auto|numpy:gpushim-forced|numpy:cupy) ;;
        *) die "MODES: unknown '$tm'" ;;
    esac
done
if [ -z "${GSBENCH_OPENBLAS:-}" ]; then
    GSBENCH_OPENBLAS=$("$PY" -c '
import glob, os, scipy
libs = os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)), "scipy.libs")
print((sorted(glob.glob(os.path.join(libs, "libscipy_openblas-*.so"))) or [""])[0])')
    [ -n "$GSBENCH_OPENBLAS" ] || die "no libscipy_openblas-*.so in SciPy's scipy.libs: set GSBENCH_OPENBLAS"
fi
[ -f "$GSBENCH_OPENBLAS" ] || die "GSBENCH_OPENBLAS=$GSBENCH_OPENBLAS does not exist"
export GSBENCH_OPENBLAS

detect_gpu
NVBLAS=$CUDA_HOME/lib64/libnvblas.so
HAVE_CUPY=0
[ "$HAVE_GPU" = 1 ] && "$PY" -c 'import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0' 2>/dev/null &&
    HAVE_CUPY=1

# ---- build the C program and its CPU library (here, with this machine's compiler) -------------------------
ADAPTER=$ROOT/$BB/libgsbench_blas.so
if [ ! -f "$ADAPTER" ] || [ bench/blas_adapter.c -nt "$ADAPTER" ]; then
    say "building $BB/libgsbench_blas.so"
    $CC -O2 -std=c11 -Wall -Wextra -fPIC -fvisibility=hidden -shared -Wl,-soname,libgsbench_blas.so \
        -o "$ADAPTER" bench/blas_adapter.c -ldl -lpthread
fi
if [ ! -x $BB/gemm_c ] || [ bench/gemm_c.c -nt $BB/gemm_c ] || [ bench/pool.h -nt $BB/gemm_c ] ||
    [ bench/settle.h -nt $BB/gemm_c ] ||
    [ "$ADAPTER" -nt $BB/gemm_c ]; then
    say "building $BB/gemm_c"
    $CC -O2 -std=c11 -Wall -Wextra -o $BB/gemm_c bench/gemm_c.c -L$BB -lgsbench_blas -Wl,-rpath,"\$ORIGIN" -lm
fi

# ---- the runs ---------------------------------------------------------------------------------------------
[ "$APPEND" = 1 ] || : >"$RAW"
# COMMIT may be given, for a copy of the tree whose .git is not the source's.
if [ -z "${COMMIT:-}" ]; then
    COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || COMMIT="$COMMIT+dirty"
fi
export PRECISIONS SIZES SHAPES MODES REPEAT BUDGET_S CPU_MAX_N NVBLAS_MAX_N
GPU_NAME=$GPU_NAME COMMIT=$COMMIT "$PY" - >>"$RAW" <<'PY'
import json, os, platform, time, numpy, scipy
env = os.environ
knobs = {k: env.get(k) for k in ("PRECISIONS", "SIZES", "SHAPES", "MODES", "REPEAT", "BUDGET_S", "CPU_MAX_N",
                                 "NVBLAS_MAX_N", "GSBENCH_OPENBLAS", "GPUSHIM_POLICY", "GPUSHIM_MIN_FLOPS",
                                 "OPENBLAS_NUM_THREADS")}
print(json.dumps({"meta": {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(),
                           "cpus": os.cpu_count(), "gpu": env.get("GPU_NAME") or "none", "commit": env["COMMIT"],
                           "python": platform.python_version(), "numpy": numpy.__version__,
                           "scipy": scipy.__version__, "knobs": knobs}}))
PY

declare -A SKIP=()
for tm in $MODES; do
    tool=${tm%%:*} mode=${tm#*:}
    case $mode in
        gpushim-*) [ -f "$GPUSHIM_LIB" ] || unavailable "$tool" "$mode" "no $GPUSHIM_LIB (make lib)" ;;
        nvblas*) if [ "$HAVE_GPU" = 0 ]; then unavailable "$tool" "$mode" "no GPU"
                 elif [ ! -f "$NVBLAS" ]; then unavailable "$tool" "$mode" "no $NVBLAS"; fi ;;
        cupy) if [ "$HAVE_GPU" = 0 ]; then unavailable "$tool" "$mode" "no GPU"
              elif [ $HAVE_CUPY = 0 ]; then unavailable "$tool" "$mode" "CuPy does not import"; fi ;;
    esac
done
[ "$HAVE_GPU" = 1 ] || say "no GPU: the gpushim modes run on the CPU (the shim says so once per process)"

# NVBLAS's configuration: the CPU library is our adapter; logging to a file of its own.
printf 'NVBLAS_LOGFILE %s\nNVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\n' "$R/gemm-nvblas.log" "$ADAPTER" \
    >$BB/nvblas.conf
{ cat $BB/nvblas.conf; echo NVBLAS_AUTOPIN_MEM_ENABLED; } >$BB/nvblas-autopin.conf

# Runs one (tool, mode, precision) over every size and shape in one process, so start-up (CUDA's included)
# is paid once; its JSON lines go to $RAW as they come, so a process stopped at the deadline keeps its cases.
run_one() {
    local tool=$1 mode=$2 p=$3 limit=0 log=
    local -a env=(env -u LD_PRELOAD -u GPUSHIM_OFFLOAD -u GPUSHIM_LOG) cmd
    case $mode in
        cpu) limit=$(max_n "$CPU_MAX_N" "$p") ;;
        gpushim-*)
            log=$R/gemm-$tool-$mode-$p.log
            rm -f "$log"
            env+=(LD_PRELOAD="$GPUSHIM_LIB" GPUSHIM_LOG="$log")
            [ "$mode" = gpushim-auto ] || env+=(GPUSHIM_OFFLOAD=always) ;;
        nvblas*)
            limit=$(max_n "$NVBLAS_MAX_N" "$p")
            env+=(LD_PRELOAD="$NVBLAS" NVBLAS_CONFIG_FILE="$ROOT/$BB/$mode.conf"
                  LD_LIBRARY_PATH="$CUDA_HOME/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
    esac
    if [ "$tool" = c ]; then cmd=("$BB/gemm_c"); else cmd=("$PY" bench/gemm_numpy.py); fi
    # SIZES and SHAPES split into words on purpose (checked above: digits and x only)
    # shellcheck disable=SC2206
    cmd+=(--dtype "$p" --mode "$mode" --repeat "$REPEAT" --budget "$BUDGET_S" --max-n "$limit" $SIZES $SHAPES)
    local left=$((DEADLINE_S - SECONDS)) t0=$SECONDS rc=0
    if [ $left -le 0 ]; then
        say "deadline: not running $tool $mode $p"
        printf '{"tool":"%s","mode":"%s","dtype":"%s","not_run":"%s"}\n' "$tool" "$mode" "$p" \
            "not run, the deadline (DEADLINE_S=$DEADLINE_S s) had passed" >>"$RAW"
        return
    fi
    say "$p  $tool $mode ..."
    timeout --kill-after=10 $left "${env[@]}" "${cmd[@]}" >>"$RAW" || rc=$?
    if [ $rc != 0 ]; then
        local why="exit status $rc"
        [ $rc = 124 ] && why="stopped at the deadline (DEADLINE_S=$DEADLINE_S s)"
        say "$p  $tool $mode: $why"
        printf '{"tool":"%s","mode":"%s","dtype":"%s","failed":"%s"}\n' "$tool" "$mode" "$p" "$why" >>"$RAW"
    fi
    say "$p  $tool $mode done in $((SECONDS - t0)) s"
}

for p in $PRECISIONS; do
    for tm in $MODES; do
        tool=${tm%%:*} mode=${tm#*:}
        [ -n "${SKIP[$tm]:-}" ] || run_one "$tool" "$mode" "$p"
    done
done
printf '{"meta_end":{"elapsed_s":%d}}\n' $SECONDS >>"$RAW"
say "all runs done; writing the report"
"$PY" bench/gemm_report.py "$RAW"

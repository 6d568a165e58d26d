#!/bin/bash
# Issue 20's one command ("never slower than the CPU, from the first call"): the default policy against the CPU
# alone and against every call forced onto the GPU, side by side in one run, in three kinds of case:
#   first  the first call in a fresh process (bench/first_call.py), each case and mode a process of its own,
#          modes alternating, REPEAT rounds, the best round kept; and the whole process's wall time
#   loop   the moderate loop (bench/loop.py): X of 256 MB used again, a new W in every iteration; new W
#          arrays and one W updated in place; also the default policy with GPUSHIM_CACHE=0
#   gemm l3 lapack cache fft dgemm   bench/gemm.sh, l3.sh, lapack.sh, cache.sh, fft.sh and run.sh's DGEMM,
#          reduced, each in its CPU, gpushim default and gpushim forced modes, each gpushim run with its log
# The sub-benchmarks time their calls after a warm-up and, under gpushim, after the bring-up that the warm-up
# started in the background (bench/settle.h, settle.py: gpushim_gpu_wait), as a forced run times its own after
# the bring-up that its warm-up waited for: steady state against steady state.  The first part times the rest.
# Then bench/policy_report.py writes bench/results/policy.md (a table per part, the targets' summary, the cost
# model's predictions against the measured times from every gpushim log of the run) and prints it.
#
# usage: bench/policy.sh          run the PARTS, then the report
#        bench/policy.sh report   the report alone, from the results there are (two PARTS runs make one report)
# Knobs (environment variables; defaults in brackets):
#   PARTS [first loop gemm l3 lapack cache fft dgemm]   on the H200 one command has 10 minutes: run them as
#                       PARTS="first loop gemm l3 dgemm" and PARTS="lapack cache fft" (estimated at 5 and 6.5
#                       minutes there from the figures in bench/RESULTS.md), then `bench/policy.sh report`
#                       over both (the second run keeps the first's results when they are in RESULTS)
#   REPEAT [2]          rounds of the first and loop cases
#   DEADLINE_S [540]    start nothing after this many seconds (the sub-benchmarks get what is left as their
#                       own DEADLINE_S where they take one); KILL_S [DEADLINE_S + 30]: stop any process then
#   APPEND [1]          keep the results of the parts not run now (a part run again replaces its own); 0: start anew
#   RESULTS [bench/results]   policy.md, policy.jsonl (raw) and policy/PART/ (each part's files and logs)
#   COMMIT [git's]      the commit to name in the report      NO_GPU [0]   PYTHON [python3]   GPUSHIM_LIB
#   FIRST_CASES [matmul:1024 matmul:2048 matmul:4096 matmul:8192 eigh:2048 eigh:6000 solve:2048 solve:6000
#                solve64:2048 solve64:6000 svd:2048 svd:4096]   OP:N, as bench/first_call.py takes them
#   LOOP_ARGS [none]    bench/loop.py's options (--rows R --cols C --k K --iter I)   LOOP_VARIANTS [new inplace]
#   GEMM_SIZES [512 1024 2048 4096 8192]  GEMM_SHAPES [65536x256x256 8192x8192x64]  GEMM_PRECISIONS [d s c z]
#   GEMM_REPEAT [5]  GEMM_BUDGET_S [0.5]  GEMM_CPU_MAX_N [s=8192 d=8192 c=4096 z=4096]   (bench/gemm.sh's)
#   L3_SIZES [256 512 1024 2048]  L3_PRECISIONS [sdcz]  L3_ROUNDS [3] (bench/l3.sh's ROUNDS)
#   LAPACK_CASES [solve inv cholesky eigh qr svd lstsq]  LAPACK_SIZES [1024 2048 4096]  LAPACK_REPEAT [2]
#   CACHE_BENCHES [products power chain ridge fresh]  CACHE_SHRINK [1] (divides bench/cache.py's sizes)
#   CACHE_REPEAT [2]    the CPU run's repeats (bench/cache.sh's own default is 1; its gpushim runs make 2)
#   CACHE_ROUNDS [2]    bench/cache.sh's ROUNDS: its CPU, default and forced runs alternating
#   FFT_LARGE [c2c:512x512x512 c2c:16777216 r2c:512x512x512 many:4096x4096 tr:8192x4096]
#   FFT_STEPS [step:256x256x256:10]  FFT_SMALL [small:1024 small:16384 small:262144 small:32x32x32]
#   FFT_PRECISIONS [d s]  FFT_REPEAT [3]  FFT_SMALL_S [0.1]  FFT_TIMELIMIT [2]   (bench/fft.sh's knobs)
#   DGEMM_SIZES [1024 2048 4096 8192]
# A quick try of the whole pipeline without a GPU (2 cores, a few minutes; forced runs fall back to the CPU):
#   NO_GPU=1 RESULTS=/tmp/pol FIRST_CASES="matmul:256 eigh:256 solve:256 solve64:256" LOOP_ARGS="--rows 2048
#   --cols 256 --iter 5" GEMM_SIZES="64 256" GEMM_SHAPES=4096x64x64 L3_SIZES="64 128" LAPACK_SIZES="128 256"
#   CACHE_SHRINK=16 FFT_LARGE=c2c:64x64x64 FFT_STEPS=step:32x32x32:3 FFT_SMALL=small:1024 DGEMM_SIZES="128 256"
#   bench/policy.sh
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
R=$(cd "$R" && pwd)
RAW=$R/policy.jsonl
report() { "$PY" bench/policy_report.py "$R"; }
case $# in
    0) ;;
    1) [ "$1" = report ] || { echo "usage: bench/policy.sh [report]" >&2; exit 2; }
       [ -f "$RAW" ] || { echo "bench/policy.sh: no $RAW to report on" >&2; exit 1; }
       report; exit ;;
    *) echo "usage: bench/policy.sh [report]" >&2; exit 2 ;;
esac

ALL_PARTS="first loop gemm l3 lapack cache fft dgemm"
PARTS=${PARTS:-$ALL_PARTS}
REPEAT=${REPEAT:-2}
DEADLINE_S=${DEADLINE_S:-540}
KILL_S=${KILL_S:-$((DEADLINE_S + 30))}
APPEND=${APPEND:-1}
FIRST_CASES=${FIRST_CASES:-matmul:1024 matmul:2048 matmul:4096 matmul:8192 eigh:2048 eigh:6000 solve:2048 solve:6000 \
solve64:2048 solve64:6000 svd:2048 svd:4096}
LOOP_ARGS=${LOOP_ARGS:-}
LOOP_VARIANTS=${LOOP_VARIANTS:-new inplace}
GEMM_SIZES=${GEMM_SIZES:-512 1024 2048 4096 8192}
GEMM_SHAPES=${GEMM_SHAPES-65536x256x256 8192x8192x64}
GEMM_PRECISIONS=${GEMM_PRECISIONS:-d s c z}
GEMM_REPEAT=${GEMM_REPEAT:-5}
GEMM_BUDGET_S=${GEMM_BUDGET_S:-0.5}
GEMM_CPU_MAX_N=${GEMM_CPU_MAX_N:-s=8192 d=8192 c=4096 z=4096}
L3_SIZES=${L3_SIZES:-256 512 1024 2048}
L3_PRECISIONS=${L3_PRECISIONS:-sdcz}
L3_ROUNDS=${L3_ROUNDS:-3}
LAPACK_CASES=${LAPACK_CASES:-solve inv cholesky eigh qr svd lstsq}
LAPACK_SIZES=${LAPACK_SIZES:-1024 2048 4096}
LAPACK_REPEAT=${LAPACK_REPEAT:-2}
CACHE_BENCHES=${CACHE_BENCHES:-products power chain ridge fresh}
CACHE_SHRINK=${CACHE_SHRINK:-1}
CACHE_REPEAT=${CACHE_REPEAT:-2}
CACHE_ROUNDS=${CACHE_ROUNDS:-2}
FFT_LARGE=${FFT_LARGE-c2c:512x512x512 c2c:16777216 r2c:512x512x512 many:4096x4096 tr:8192x4096}
FFT_STEPS=${FFT_STEPS-step:256x256x256:10}
FFT_SMALL=${FFT_SMALL-small:1024 small:16384 small:262144 small:32x32x32}
FFT_PRECISIONS=${FFT_PRECISIONS:-d s}
FFT_REPEAT=${FFT_REPEAT:-3}
FFT_SMALL_S=${FFT_SMALL_S:-0.1}
FFT_TIMELIMIT=${FFT_TIMELIMIT:-2}
DGEMM_SIZES=${DGEMM_SIZES:-1024 2048 4096 8192}
SECONDS=0

say() { printf '[%4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'bench/policy.sh: %s\n' "$*" >&2; exit 1; }

for p in $PARTS; do case " $ALL_PARTS " in *" $p "*) ;; *) die "PARTS: unknown part '$p' ($ALL_PARTS)" ;; esac; done
command -v "$PY" >/dev/null || die "PYTHON=$PY not found"
"$PY" -c 'import numpy, scipy' 2>/dev/null || die "$PY cannot import numpy and scipy"
[ -f "$LIB" ] || die "no $LIB (make lib)"
detect_gpu
[ "$HAVE_GPU" = 1 ] || say "no GPU: the gpushim modes run on the CPU (the shim says so once per process)"
if [ -z "${COMMIT:-}" ]; then
    COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    [ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || COMMIT="$COMMIT+dirty"
fi
RUN_ID=$(date +%Y%m%dT%H%M%S)-$$

# ---- the raw file: the lines of the parts run now replace their earlier ones -------------------------------
touch "$RAW"
if [ "$APPEND" = 0 ]; then
    : >"$RAW"
    rm -rf "$R/policy"
fi
for p in $PARTS; do
    rm -rf "${R:?}/policy/$p"
    mkdir -p "$R/policy/$p"
done
# The knobs, recorded in the run's meta line.
KNOBS="PARTS REPEAT DEADLINE_S KILL_S APPEND FIRST_CASES LOOP_ARGS LOOP_VARIANTS GEMM_SIZES GEMM_SHAPES
    GEMM_PRECISIONS GEMM_REPEAT GEMM_BUDGET_S GEMM_CPU_MAX_N L3_SIZES L3_PRECISIONS L3_ROUNDS LAPACK_CASES
    LAPACK_SIZES LAPACK_REPEAT CACHE_BENCHES CACHE_SHRINK CACHE_REPEAT CACHE_ROUNDS FFT_LARGE FFT_STEPS FFT_SMALL
    FFT_PRECISIONS FFT_REPEAT FFT_SMALL_S FFT_TIMELIMIT DGEMM_SIZES GPUSHIM_POLICY GPUSHIM_MIN_FLOPS
    GPUSHIM_CUDA_LIBDIR"
# shellcheck disable=SC2086,SC2163
export $KNOBS
# Drops the lines of the parts run now and the meta lines no other line refers to; adds this run's meta line.
KNOBS=$KNOBS RUN_ID=$RUN_ID GPU_NAME=$GPU_NAME COMMIT=$COMMIT "$PY" - "$RAW" <<'PY'
import json, os, platform, sys, time, numpy, scipy
env, path = os.environ, sys.argv[1]
recs = []
for line in open(path):
    try:
        recs.append(json.loads(line))
    except ValueError:
        pass
recs = [r for r in recs if r.get("part") not in env["PARTS"].split()]
used = {r.get("run_id") for r in recs if r.get("part") != "meta"}
recs = [r for r in recs if r.get("part") != "meta" or r.get("run_id") in used]
meta = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "host": platform.node(), "cpus": os.cpu_count(),
        "gpu": env.get("GPU_NAME") or "none", "commit": env["COMMIT"], "python": platform.python_version(),
        "numpy": numpy.__version__, "scipy": scipy.__version__,
        "knobs": {k: env.get(k) for k in env["KNOBS"].split()}}
recs.append({"part": "meta", "run_id": env["RUN_ID"], "meta": meta})
with open(path, "w") as f:
    f.writelines(json.dumps(r) + "\n" for r in recs)
PY

# emit PART JSON-FIELDS...: one line of the raw file, tagged with its part and this run.
emit() {
    local part=$1
    shift
    printf '{"part": "%s", "run_id": "%s", %s}\n' "$part" "$RUN_ID" "$*" >>"$RAW"
}
left() { echo $((DEADLINE_S - SECONDS)); }
# The environment of every measured process: nothing of gpushim's from the caller, nothing of the knobs
# that the sub-benchmarks read under the same names.
BASE=(env -u LD_PRELOAD -u GPUSHIM_OFFLOAD -u GPUSHIM_LOG -u GPUSHIM_CACHE -u REPEAT -u SIZES -u SHAPES
      -u PRECISIONS -u MODES -u RUNS -u BENCHES -u APPEND -u DEADLINE_S -u LARGE -u STEPS -u SMALL -u BIG
      -u FRESH_ONLY)
# mode_env MODE LOG: sets MODE_ENV to the environment of a mode (cpu, default, forced, nocache), its log at LOG.
mode_env() {
    MODE_ENV=()
    case $1 in
        default) MODE_ENV=(LD_PRELOAD="$LIB" GPUSHIM_LOG="$2") ;;
        forced) MODE_ENV=(LD_PRELOAD="$LIB" GPUSHIM_LOG="$2" GPUSHIM_OFFLOAD=always) ;;
        nocache) MODE_ENV=(LD_PRELOAD="$LIB" GPUSHIM_LOG="$2" GPUSHIM_CACHE=0) ;;
    esac
}
# rotate K WORD...: the words starting from the K-th (mod their number), so that no mode always goes first.
rotate() {
    local k=$1
    shift
    local -a w=("$@")
    local i
    for ((i = 0; i < ${#w[@]}; i++)); do echo "${w[$(((i + k) % ${#w[@]}))]}"; done
}

# one PART MODE ROUND NAME FIELDS COMMAND...: runs COMMAND in a fresh process in MODE and appends its JSON line
# with its wall time, the mode, the round and the log, or a line saying why it gave none.
one() {
    local part=$1 mode=$2 round=$3 name=$4 fields=$5
    shift 5
    local rel=policy/$part/$name-$mode-$round.log out rc=0 t0 t1 wall
    [ "$mode" = cpu ] && rel=
    [ -z "$rel" ] || rm -f "$R/$rel"
    mode_env "$mode" "$R/$rel"
    local -a cmd=("${BASE[@]}" "${MODE_ENV[@]}" "$@")
    if [ "$(left)" -le 0 ]; then
        emit "$part" "\"mode\": \"$mode\", \"round\": $round, $fields, \"not_run\": \"the deadline had passed\""
        return
    fi
    t0=$(date +%s.%N)
    out=$(timeout --kill-after=5 $((KILL_S - SECONDS)) "${cmd[@]}" 2>>"$R/policy/$part/stderr.txt") || rc=$?
    t1=$(date +%s.%N)
    wall=$(awk "BEGIN {printf \"%.4f\", $t1 - $t0}")
    local head="\"mode\": \"$mode\", \"round\": $round, \"wall_s\": $wall, \"rc\": $rc"
    case $out in
        "{"*"}") out=${out#\{} && emit "$part" "$head, \"log\": \"$rel\", ${out%\}}" ;;
        *) emit "$part" "$head, $fields, \"failed\": \"exit status $rc\"" ;;
    esac
    say "$part $name $mode round $round: $wall s in all$([ $rc = 0 ] || echo ", exit status $rc")"
}

part_first() {
    local r c i=0 mode op n
    for r in $(seq "$REPEAT"); do
        for c in $FIRST_CASES; do
            op=${c%%:*} n=${c#*:}
            i=$((i + 1))
            for mode in $(rotate $i cpu default forced); do
                one first "$mode" "$r" "$op-$n" "\"op\": \"$op\", \"n\": $n" "$PY" bench/first_call.py "$op" "$n"
            done
        done
    done
}

part_loop() {
    local r v i=0 mode flag
    for r in $(seq "$REPEAT"); do
        for v in $LOOP_VARIANTS; do
            flag=
            [ "$v" = inplace ] && flag=--inplace
            i=$((i + 1))
            for mode in $(rotate $i cpu default forced nocache); do
                # LOOP_ARGS and flag split into options on purpose
                # shellcheck disable=SC2086
                one loop "$mode" "$r" "loop-$v" "\"variant\": \"$v\"" "$PY" bench/loop.py $LOOP_ARGS $flag
            done
        done
    done
}

# sub PART COMMAND...: a sub-benchmark with its results in policy/PART/, its output in policy/PART/output.txt.
sub() {
    local part=$1 rc=0
    shift
    timeout --kill-after=10 $((KILL_S - SECONDS)) "${BASE[@]}" RESULTS="$R/policy/$part" COMMIT="$COMMIT" "$@" \
        >"$R/policy/$part/output.txt" 2>&1 || rc=$?
    [ $rc = 0 ] || { say "$part: exit status $rc; the end of its output:"; tail -n 5 "$R/policy/$part/output.txt" >&2; }
    return $rc
}

part_gemm() {
    sub gemm PRECISIONS="$GEMM_PRECISIONS" SIZES="$GEMM_SIZES" SHAPES="$GEMM_SHAPES" REPEAT="$GEMM_REPEAT" \
        MODES="c:cpu c:gpushim-auto c:gpushim-forced numpy:cpu numpy:gpushim-auto numpy:gpushim-forced" \
        BUDGET_S="$GEMM_BUDGET_S" CPU_MAX_N="$GEMM_CPU_MAX_N" DEADLINE_S="$(left)" APPEND=0 bench/gemm.sh
}
part_l3() {
    sub l3 SIZES="$L3_SIZES" PRECISIONS="$L3_PRECISIONS" ROUNDS="$L3_ROUNDS" FORCED_LOG="$R/policy/l3/l3-forced.log" \
        bench/l3.sh
}
part_lapack() {
    # LAPACK_CASES split into case names on purpose
    # shellcheck disable=SC2086
    sub lapack LOG=1 RUNS="cpu gpushim forced" SIZES="$LAPACK_SIZES" REPEAT="$LAPACK_REPEAT" bench/lapack.sh $LAPACK_CASES
}
part_cache() {
    sub cache RUNS="cpu gpushim forced" BENCHES="$CACHE_BENCHES" FRESH_ROUNDS=0 SHRINK="$CACHE_SHRINK" \
        CPU_REPEAT="$CACHE_REPEAT" ROUNDS="$CACHE_ROUNDS" bench/cache.sh
}
part_fft() {
    local m="fftw gpushim gpushim-always"
    sub fft LARGE="$FFT_LARGE" STEPS="$FFT_STEPS" SMALL="$FFT_SMALL" PRECISIONS="$FFT_PRECISIONS" \
        STEP_PRECISIONS=d LARGE_MODES="$m" STEP_MODES="$m" SMALL_MODES="$m" REPEAT="$FFT_REPEAT" \
        SMALL_S="$FFT_SMALL_S" TIMELIMIT="$FFT_TIMELIMIT" DEADLINE_S="$(left)" bench/fft.sh
}
part_dgemm() {
    sub dgemm SIZES="$DGEMM_SIZES" OVERHEAD=0 bench/run.sh
}

# ---- the parts, in the order given -------------------------------------------------------------------------
for p in $PARTS; do
    if [ "$(left)" -le 0 ]; then
        say "deadline: not running $p"
        emit "$p" "\"part_end\": {\"not_run\": \"the deadline (DEADLINE_S=$DEADLINE_S s) had passed\"}"
        continue
    fi
    t0=$SECONDS rc=0
    say "$p ..."
    "part_$p" || rc=$?
    emit "$p" "\"part_end\": {\"elapsed_s\": $((SECONDS - t0)), \"rc\": $rc}"
    say "$p done in $((SECONDS - t0)) s (exit status $rc)"
done
say "all parts done in $SECONDS s; writing the report"
report

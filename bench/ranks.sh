#!/bin/sh
# A parallel job on one GPU, side by side in one run: RANKS ranks (default 4) of tests/py/ranks.py N (default
# 4096: four products and a solve per rank) started by MPICH's mpiexec, each with its share of the cores, as
# the CPU library alone, under gpushim-run with the ranks time-sliced on the GPU, under gpushim-run with an MPS
# server, and as CuPy (copies included) under MPS.  Prints a markdown table: the job's wall time from launch to
# the last rank's exit, the slowest rank's seconds in its work (after Python's start and imports), whether
# every rank's results equal the CPU's, and the share of the products and solves on the GPU.  Logs, outputs and
# the merged reports go to OUT (default build/bench-ranks).
# usage: bench/ranks.sh [N] [RANKS]   (MPIEXEC: the launcher, default build/gpu/hydra/mpiexec.hydra, else the
#   mpiexec.hydra on PATH; PYTHON: default python3)
set -eu
cd "$(dirname "$0")/.."
N=${1:-4096}
R=${2:-4}
OUT=${OUT:-build/bench-ranks}
PY=${PYTHON:-python3}
H=$(pwd)/build/gpu/hydra
MPIEXEC=${MPIEXEC:-$([ -x $H/mpiexec.hydra ] && echo $H/mpiexec.hydra || echo mpiexec.hydra)}
export PATH=$(dirname "$(command -v "$MPIEXEC")"):$PATH
export OPENBLAS_NUM_THREADS=$(($(nproc) / R > 0 ? $(nproc) / R : 1))
mkdir -p "$OUT"
rm -f "$OUT"/*.log

mps_on() {
    export CUDA_MPS_PIPE_DIRECTORY=/tmp/gpushim-mps-bench CUDA_MPS_LOG_DIRECTORY=/tmp/gpushim-mps-bench/log
    mkdir -p $CUDA_MPS_LOG_DIRECTORY
    nvidia-cuda-mps-control -d
}
mps_off() {
    echo quit | nvidia-cuda-mps-control
    unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
    sleep 1
}

# job NAME COMMAND...: the job's wall time, then a table row.
job() {
    name=$1
    shift
    t0=$(date +%s.%N)
    if ! "$MPIEXEC" -n "$R" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; then
        echo "| $name | failed: $(tail -n 1 "$OUT/$name.err") | - | - | - |"
        return 0
    fi
    t1=$(date +%s.%N)
    wall=$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}')
    slow=$(awk '{print $5}' "$OUT/$name.out" | sort -g | tail -n 1)
    same=no
    cut -d' ' -f1-4 "$OUT/$name.out" | sort | cmp -s - "$OUT/cpu.ref" && same=yes
    share=-
    if ls "$OUT"/$name.*.log >/dev/null 2>&1; then
        share=$($PY tests/logq.py count "$OUT"/$name.*.log -- where=gpu 'routine=d[sg][ye][rs]*')/$($PY \
            tests/logq.py count "$OUT"/$name.*.log -- 'routine=d[sg][ye][rs]*')
        $PY scripts/gpushim-report "$OUT"/$name.*.log >"$OUT/$name.report"
    fi
    echo "| $name | $wall | $slow | $same | $share |"
}

echo "$R ranks of tests/py/ranks.py $N, $OPENBLAS_NUM_THREADS OpenBLAS threads each, one GPU"
echo "($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1); $(date -u +%F))"
echo
echo "| job | wall s | slowest rank's work s | results equal the CPU's | dsyrk+dgesv on the GPU |"
echo "| --- | --- | --- | --- | --- |"
"$MPIEXEC" -n "$R" $PY tests/py/ranks.py "$N" | cut -d' ' -f1-4 | sort >"$OUT/cpu.ref"
job cpu $PY tests/py/ranks.py "$N"
job gpushim scripts/gpushim-run --quiet --log "$OUT/gpushim.%r.log" $PY tests/py/ranks.py "$N"
mps_on
job gpushim-mps scripts/gpushim-run --quiet --log "$OUT/gpushim-mps.%r.log" $PY tests/py/ranks.py "$N"
job cupy-mps $PY tests/py/ranks.py "$N" --cupy
mps_off

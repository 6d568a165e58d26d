# Shared by the benchmark scripts (sourced): the paths, run LABEL COMMAND..., which appends COMMAND's JSON
# lines to the file $J, each tagged with the run's label, line by line (a run stopped early keeps what it
# measured), and detect_gpu.  RESULTS=DIR puts the results elsewhere; GPUSHIM_LIB=PATH runs another build of
# the library.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
R=${RESULTS:-bench/results}
LIB=${GPUSHIM_LIB:-$(pwd)/build/libgpushim.so}
mkdir -p "$R"
run() {
    label=$1
    shift
    "$@" | sed -u "s/^{/{\"run\": \"$label\", /" >>"$J"
}
# Sets HAVE_GPU=1 and GPU_NAME to the first GPU's name when nvidia-smi lists one, else HAVE_GPU=0 and
# GPU_NAME empty; NO_GPU=1 says no without asking.
detect_gpu() {
    if [ "${NO_GPU:-0}" != 1 ] && command -v nvidia-smi >/dev/null &&
        GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1) &&
        [ -n "$GPU_NAME" ]; then
        HAVE_GPU=1
    else
        HAVE_GPU=0 GPU_NAME=
    fi
}

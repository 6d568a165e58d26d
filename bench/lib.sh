# Shared by the benchmark scripts (sourced): the paths, and run LABEL COMMAND..., which appends COMMAND's JSON
# lines to the file $J, each tagged with the run's label, line by line (a run stopped early keeps what it
# measured).  RESULTS=DIR puts the results elsewhere; GPUSHIM_LIB=PATH runs another build of the library.
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

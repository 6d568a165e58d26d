# Shared by the preload tests (tests/t_*.sh): paths, the shim with the CUDA stand-in, and PASS/FAIL records.
# Each test file sources this, runs its checks and ends with `finish`.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
# GS_LIB: another build of the library to preload (make coverage's build/cov/libgpushim.so).
LIB=${GS_LIB:-$ROOT/build/libgpushim.so}
T=$ROOT/build/tests
SI=$ROOT/build/standin
PY=${PYTHON:-python3}
W=$(mktemp -d "${TMPDIR:-/tmp}/gpushim-$(basename "$0" .sh).XXXXXX")
# The stand-in's report, and a process-wide log directory, per test file.
REPORT=$W/standin.report
passed=0
failed=0

ok() { echo "PASS $(basename "$0" .sh): $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $(basename "$0" .sh): $*"; failed=$((failed + 1)); }
# check DESCRIPTION COMMAND...: PASS when the command succeeds.
check() {
    d=$1
    shift
    if "$@"; then ok "$d"; else bad "$d"; fi
}
finish() {
    echo "$(basename "$0" .sh): $passed passed, $failed failed"
    [ "$failed" = 0 ] && rm -rf "$W"
    [ "$failed" = 0 ]
}

# shim [VAR=VALUE...] COMMAND...: runs COMMAND under the shim, with the stand-in as the CUDA libraries.  The GPU
# comes up in the first call that wants it (GPUSHIM_WARMUP=off), so that where each call runs does not depend
# on when a background bring-up ends; tests/t_warmup.sh tests the background modes.
shim() { env LD_PRELOAD="$LIB" GPUSHIM_CUDA_LIBDIR="$SI" GS_STANDIN_REPORT="$REPORT" GPUSHIM_WARMUP=off "$@"; }
# Log queries (tests/logq.py).
count() { $PY "$ROOT/tests/logq.py" count "$@"; }
logsum() { $PY "$ROOT/tests/logq.py" sum "$@"; }
# standin FIELD: the field summed over every process the stand-in reported, then clears the report.
standin() {
    if [ -f "$REPORT" ]; then
        sed -n "s/.* $1=\([0-9]*\).*/\1/p" "$REPORT" | awk '{s += $1} END {print s + 0}'
    else
        echo 0
    fi
}
standin_reset() { rm -f "$REPORT"; }
# lines FILE PATTERN: number of lines of FILE matching the extended regular expression PATTERN.
lines() { grep -cE "$2" "$1" || true; }
# have DESCRIPTION COMMAND...: a prerequisite that tests/deps.sh installs; missing, it fails (never a skip).
have() {
    d=$1
    shift
    if "$@" >/dev/null 2>&1; then return 0; fi
    bad "$d is missing: sh tests/deps.sh test installs it"
    return 1
}

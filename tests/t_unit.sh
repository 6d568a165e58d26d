# Check unit tests of the library's modules.
. "$(dirname "$0")/lib.sh"
check "unit tests" sh -c "$T/unit >$W/unit.out 2>&1 || { cat $W/unit.out; exit 1; }"
finish

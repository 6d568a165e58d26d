# Check unit tests of the library's modules, and the CUDA stand-in's own test (deferred streams, events,
# pinned memory, seeded reordering: what lets the stand-in catch a missing dependency between streams).
. "$(dirname "$0")/lib.sh"
check "unit tests" sh -c "$T/unit >$W/unit.out 2>&1 || { cat $W/unit.out; exit 1; }"
check "stand-in self-test" sh -c "TMPDIR=$W $SI/selftest >$W/selftest.out 2>&1 || { cat $W/selftest.out; exit 1; }"
finish

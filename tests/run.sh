#!/bin/sh
# Runs every test that needs no GPU (make check): the unit tests, then each tests/t_*.sh, each followed by its
# time.  Exit status 1 if any failed.
cd "$(dirname "$0")/.."
status=0
for t in tests/t_*.sh; do
    echo "== $t"
    start=$(date +%s)
    sh "$t" || status=1
    echo "-- $t: $(($(date +%s) - start)) s"
done
[ $status = 0 ] && echo "all tests passed" || echo "some tests FAILED"
exit $status

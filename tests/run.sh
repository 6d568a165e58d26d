#!/bin/sh
# Runs every test that needs no GPU (make check): the unit tests, then each tests/t_*.sh.  Exit status 1 if
# any failed.
cd "$(dirname "$0")/.."
status=0
for t in tests/t_*.sh; do
    echo "== $t"
    sh "$t" || status=1
done
[ $status = 0 ] && echo "all tests passed" || echo "some tests FAILED"
exit $status

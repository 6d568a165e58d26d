# A debugger steps into an entry point's template: gdb, breaking on dgemm_ in a program under the shim, stops
# in the template that build/entries.txt names for it, and `next` shows that template's own lines.
. "$(dirname "$0")/lib.sh"

check "gdb is installed (tests/deps.sh test)" sh -c "command -v gdb >/dev/null"
where=$(awk '$1 == "dgemm_" {print $NF}' build/entries.txt)
inc=${where%:*}
# The shim goes into the program only (set environment), not into gdb; its breakpoint resolves once the
# libraries are loaded (pending).
timeout 120 gdb -batch -nx -ex 'set startup-with-shell off' -ex 'set breakpoint pending on' \
    -ex "set environment LD_PRELOAD=$LIB" -ex "set environment GPUSHIM_CUDA_LIBDIR=$SI" \
    -ex 'break dgemm_' -ex run -ex next -ex next -ex kill --args $T/blas_all_plain $W/out.bin >$W/gdb.out 2>&1
check "the breakpoint on dgemm_ stops in its template ($where)" \
    grep -q "Breakpoint [0-9.]*, dgemm_ (.*) at $inc:[0-9]*$" $W/gdb.out
# Each source line gdb printed (LINE<tab>TEXT) is that line of the template.
awk -F '\t' -v inc="$inc" '/^[0-9]+\t/ { l = ""
    for (i = 1; i <= $1 && (getline l <inc) > 0; i++) ;
    close(inc)
    print (l == $2 ? "same" : "other") }' $W/gdb.out >$W/lines
check "break and next show 3 lines of the template ($(grep -c same $W/lines) of $(wc -l <$W/lines))" \
    test "$(grep -c same $W/lines)" = 3 -a "$(wc -l <$W/lines)" = 3
finish

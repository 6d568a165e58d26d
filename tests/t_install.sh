# make install PREFIX=..., the installed wrapper, and the man pages: they render without warnings and name
# every environment variable the code reads.
. "$(dirname "$0")/lib.sh"
make -s install PREFIX=$W/prefix >$W/install.out 2>&1
check "make install" test $? = 0
for f in lib/libgpushim.so include/gpushim.h bin/gpushim-run share/man/man7/gpushim.7 share/man/man1/gpushim-run.1 \
    share/gpushim/default.policy; do
    check "installed $f" test -f $W/prefix/$f
done
$T/blas_all_plain $W/ref.bin >/dev/null
GPUSHIM_CUDA_LIBDIR=$SI $W/prefix/bin/gpushim-run --offload always --log $W/inst.log -- $T/blas_all_plain $W/inst.bin \
    >/dev/null
check "the installed gpushim-run preloads the installed library" \
    sh -c "$T/blas_cmp $W/ref.bin $W/inst.bin >/dev/null && [ $(count $W/inst.log -- where=gpu) -gt 7000 ] &&
        grep -q 'lib=\"$W/prefix/lib/libgpushim.so\"' $W/prefix/bin/gpushim-run"
make -s uninstall PREFIX=$W/prefix >/dev/null 2>&1
check "make uninstall removes what install put there" test -z "$(find $W/prefix -type f)"

for m in man/*.[17]; do
    MANWIDTH=80 man --warnings -E UTF-8 -l "$m" >/dev/null 2>$W/man.err
    check "$m renders without warnings" test ! -s $W/man.err
done
for v in $(grep -ohE '"GPUSHIM_[A-Z_]+' src/*.c | tr -d '"' | sort -u); do
    check "$v is documented in gpushim(7)" grep -q "${v%_}" man/gpushim.7
done
for s in scripts/gpushim-*; do
    check "$s has a man page" test -f "man/$(basename $s).1"
done
finish

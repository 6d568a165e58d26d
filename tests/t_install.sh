# make install PREFIX=..., the installed scripts, make uninstall.  (tests/t_man.sh checks the man pages.)
. "$(dirname "$0")/lib.sh"
make -s install PREFIX=$W/prefix >$W/install.out 2>&1
check "make install" test $? = 0
for f in lib/libgpushim.so include/gpushim.h bin/gpushim-run bin/gpushim-report bin/gpushim-calibrate \
    share/man/man7/gpushim.7 share/man/man5/gpushim-policy.5 share/man/man1/gpushim-run.1 \
    share/man/man1/gpushim-report.1 share/man/man1/gpushim-calibrate.1 share/gpushim/default.policy \
    share/gpushim/modulefiles/lua/gpushim/0.1.0.lua share/gpushim/modulefiles/tcl/gpushim/0.1.0; do
    check "installed $f" test -f $W/prefix/$f
done
$T/blas_all_plain $W/ref.bin >/dev/null
GPUSHIM_CUDA_LIBDIR=$SI $W/prefix/bin/gpushim-run --offload always --log $W/inst.log -- $T/blas_all_plain $W/inst.bin \
    >/dev/null
check "the installed gpushim-run preloads the installed library" \
    sh -c "$T/blas_cmp $W/ref.bin $W/inst.bin >/dev/null && [ $(count $W/inst.log -- where=gpu) -gt 7000 ] &&
        grep -q 'lib=\"$W/prefix/lib/libgpushim.so\"' $W/prefix/bin/gpushim-run"
check "the installed gpushim-report reads the installed library's log" \
    sh -c "$W/prefix/bin/gpushim-report --top 200 $W/inst.log | grep -q '^dgemm '"
$W/prefix/bin/gpushim-calibrate --help >$W/cal-help.out 2>&1
check "the installed gpushim-calibrate --help runs" \
    sh -c "[ $? = 0 ] && grep -q '^usage: gpushim-calibrate' $W/cal-help.out"
GPUSHIM_CALIBRATE_SIZES=small $W/prefix/bin/gpushim-calibrate --no-gpu --quiet -o $W/cal/policy >/dev/null 2>&1
check "the installed gpushim-calibrate preloads the installed library" \
    sh -c "[ $? = 0 ] && [ -s $W/cal/policy ] && grep -q '^LIBDIR = \"$W/prefix/lib\"' $W/prefix/bin/gpushim-calibrate"
# The environment-module files, under Lmod: loading puts the installed scripts and pages first, sets no
# GPUSHIM_ variable and preloads nothing; unloading gives the environment back.
for kind in lua tcl; do
    env -i HOME="$HOME" PATH=/usr/bin:/bin bash -c ". /usr/share/lmod/lmod/init/bash
        module use $W/prefix/share/gpushim/modulefiles/$kind && module load gpushim || exit 1
        echo \"run=\$(command -v gpushim-run) page=\$(man -w gpushim-run) set=\$(env | grep -c '^GPUSHIM_\\|^LD_PRELOAD')\"
        module unload gpushim && echo \"after=\$(command -v gpushim-run || echo none) manpath=\${MANPATH-unset}\"" \
        >$W/module-$kind.out 2>&1
    check "the $kind module file loads and unloads under Lmod" sh -c "grep -qx 'run=$W/prefix/bin/gpushim-run \
page=$W/prefix/share/man/man1/gpushim-run.1 set=0' $W/module-$kind.out && grep -qx 'after=none manpath=unset' \
$W/module-$kind.out"
done
make -s uninstall PREFIX=$W/prefix >/dev/null 2>&1
check "make uninstall removes what install put there" test -z "$(find $W/prefix -type f)"
finish

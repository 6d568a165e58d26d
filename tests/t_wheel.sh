# The Python package: the wheel `pip wheel .` builds (its files, its tag, auditwheel's verdict), installed into
# fresh virtual environments with PyPI's NumPy 2.x and SciPy, and NumPy 1.26; in each, a script through
# `python -m gpushim` and through `import gpushim` first, against the same without the shim, every call in the
# log, against the stand-in with every call forced onto the GPU; the console scripts; NumPy imported first; and
# (NumPy 2.x) a notebook run by nbclient in an IPython kernel, with the %%gpushim magic.
. "$(dirname "$0")/lib.sh"
VER=$(sed -n 's/^#define GS_VERSION "\(.*\)"/\1/p' src/core/gs.h)
WHL=gpushim-$VER-py3-none-manylinux_2_35_x86_64.whl
# PyPI's packages, pinned as tests/deps.sh pins build/venv-np2's and build/venv-np1's.
NP2="numpy==2.4.6 scipy==1.17.1"
NP1="numpy==1.26.4"
TOOLS="auditwheel==6.8.2 nbclient==0.11.0 ipykernel==7.4.0 nbformat==5.11.1"

$ROOT/build/venv-np2/bin/pip wheel -q --no-deps -w $W/dist . >$W/wheel.out 2>&1
check "pip wheel . builds $WHL" test -f $W/dist/$WHL
$PY - $W/dist/$WHL >$W/files.out <<'PY'
import sys, zipfile
print("\n".join(sorted(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if ".dist-info/" not in n)))
PY
printf '%s\n' gpushim/__init__.py gpushim/__main__.py gpushim/_child.py gpushim/_fft.py gpushim/_linalg.py \
    gpushim/_magic.py gpushim/_paths.py gpushim/_version.py gpushim/libgpushim.so gpushim/scripts/gpushim-calibrate \
    gpushim/scripts/gpushim-report gpushim/scripts/gpushim-run gpushim.pth gpushim_cli.py gpushim_hook.py |
    sort >$W/files.want
check "the wheel holds the package, the library and the scripts, nothing else" cmp -s $W/files.want $W/files.out

# venv NAME PACKAGES...: a fresh virtual environment with the wheel and these packages from PyPI.
venv() {
    d=$W/$1
    shift
    python3 -m venv $d && $d/bin/pip install -q --disable-pip-version-check $W/dist/$WHL "$@" >$W/pip.out 2>&1
}
venv v2 $NP2 $TOOLS
check "the wheel installs with NumPy 2.x, SciPy and the tools (pip.out)" test -x $W/v2/bin/gpushim-run
$W/v2/bin/auditwheel show $W/dist/$WHL >$W/audit.out 2>&1
check "auditwheel: the wheel is consistent with manylinux_2_35_x86_64 and needs no library outside the C library" \
    sh -c "grep -q 'consistent with' $W/audit.out && grep -q '\"manylinux_2_35_x86_64\"' $W/audit.out &&
        ! grep -qi 'external shared libraries' $W/audit.out"

export GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_WARMUP=off GS_STANDIN_REPORT=$REPORT
cat >$W/script.py <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(7)
a, b = rng.standard_normal((200, 200)), rng.standard_normal((200, 3))
c = a @ a.T + 200 * np.eye(200)
print("%.10e %.10e" % (np.abs(c).sum(), np.abs(np.linalg.solve(c, b)).sum()))
PY
printf 'import gpushim\nexec(open("%s").read())\n' $W/script.py >$W/first.py

# entry NAME VENV: the script without the shim, through python -m gpushim and through import gpushim first.
entry() {
    v=$W/$2
    (cd $W && env -u GPUSHIM_CUDA_LIBDIR $v/bin/python script.py >$1.ref)
    (cd $W && GPUSHIM_LOG=$W/$1.m.log $v/bin/python -m gpushim --offload always script.py >$1.m.out 2>$1.m.err)
    check "$1: python -m gpushim: results as without the shim, the product and the solve on the GPU" \
        sh -c "cmp -s $W/$1.ref $W/$1.m.out && [ ! -s $W/$1.m.err ] &&
            [ $(count $W/$1.m.log -- where=gpu 'routine=dsyrk') = 1 ] && [ $(count $W/$1.m.log -- where=gpu 'routine=dgesv') = 1 ]"
    check "$1: python -m gpushim: the solve through the Python layer (the wheel's gpushim.pth)" \
        test "$(count $W/$1.m.log -- where=gpu symbol=numpy.linalg.solve)" = 1
    (cd $W && GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$1.i.log $v/bin/python first.py >$1.i.out 2>$1.i.err)
    check "$1: import gpushim first: results as without the shim, the product and the solve on the GPU" \
        sh -c "cmp -s $W/$1.ref $W/$1.i.out && [ ! -s $W/$1.i.err ] &&
            [ $(count $W/$1.i.log -- where=gpu 'routine=dsyrk') = 1 ] && [ $(count $W/$1.i.log -- where=gpu 'routine=dgesv') = 1 ]"
}
entry numpy2 v2
venv v1 $NP1
entry numpy126 v1

$W/v2/bin/python -c 'import numpy, gpushim; print(gpushim.loaded())' >$W/late.out 2>$W/late.err
check "NumPy imported before gpushim: not loaded, and a warning says to restart and import gpushim first" \
    sh -c "grep -qx False $W/late.out && grep -q 'numpy was imported before gpushim.*restart the interpreter' $W/late.err"
cp $W/script.py $W/rankmod.py
(cd $W && GPUSHIM_LOG=$W/mod.log $W/v2/bin/python -m gpushim --offload always -m rankmod >mod.out 2>&1)
check "python -m gpushim -m MODULE: the module runs under the shim" \
    sh -c "cmp -s $W/numpy2.ref $W/mod.out && [ $(count $W/mod.log -- where=gpu routine=dgesv) = 1 ]"
(cd $W && GPUSHIM_OFFLOAD=always $W/v2/bin/python -c 'import gpushim, numpy as np
a = np.ones((200, 200)); b = a @ a; gpushim.report(); print("log", gpushim.log_path())' >$W/session.out 2>&1)
session=$(sed -n 's/^log //p' $W/session.out)
check "import gpushim: report() gives the session's tables, and the session's log is gone at exit" \
    sh -c "grep -q '^dgemm ' $W/session.out && [ -n '$session' ] && [ ! -e '$session' ]"
$W/v2/bin/python -m gpushim --offload always --log $W/c.log -c 'import numpy as np, sys; a = np.ones((99, 99))
print(sys.argv[1:], (a @ a).sum())' x y >$W/c.out 2>&1
check "python -m gpushim -c CODE ARGS: the code runs under the shim with its arguments" \
    sh -c "grep -qx \"\['x', 'y'\] 970299.0\" $W/c.out && [ $(count $W/c.log -- where=gpu routine=dgemm) = 1 ]"
$W/v2/bin/gpushim-run --offload always --summary $W/v2/bin/python $W/script.py >$W/run.out 2>$W/run.err
check "the console script gpushim-run preloads the wheel's library" \
    sh -c "cmp -s $W/numpy2.ref $W/run.out && grep -q '^gpushim: dgesv  *1  *1 ' $W/run.err"
$W/v2/bin/gpushim-report $W/numpy2.m.log >$W/report.out 2>&1
check "the console script gpushim-report reads the log" grep -q '^dgesv ' $W/report.out

GPUSHIM_OFFLOAD=always $W/v2/bin/python tests/py/notebook.py $W/nb.out >$W/nb.err 2>&1
check "a notebook (nbclient, IPython kernel): import gpushim first, %%gpushim prints the cell's product on the GPU, \
summary() the solve by its Python name" \
    sh -c "grep -qx 'loaded True' $W/nb.out && grep -q '^product ' $W/nb.out &&
        sed -n '/the cell.s calls/,/^----/p' $W/nb.out | grep -q '^gpushim: dgemm  *1  *1 ' &&
        grep -q '^gpushim: numpy.linalg.solve  *1  *1 ' $W/nb.out"
finish

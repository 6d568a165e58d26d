# Native call sites name the function that made the call, or, when no symbol of the object holds it (a
# static function of a stripped object), the object and the offset: never a neighbouring function.  A program
# and a library of our own (tests/progs/sites_*.c), as built, stripped and replaced on disk; R, whose BLAS and
# LAPACK callers are static functions of a stripped libR.so; Octave, whose callers are liboctave's exported
# functions.
. "$(dirname "$0")/lib.sh"
q() { $PY - "$@"; } # a Python check: exits 0 when it holds

# The functions of an object as nm lists them, and the checks on a log's native sites.
cat >$W/sites.py <<'PY'
import json, os, re, subprocess


def functions(path, dynamic):
    """{name: (start, size)} of the defined functions of path's .dynsym (dynamic) or .symtab, names
    demangled and cut at their parameters as gpushim writes them."""
    out = subprocess.run(["nm", "-C", "-S", "--defined-only"] + (["-D"] if dynamic else []) + [path],
                         capture_output=True, text=True).stdout
    funcs = {}
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) ([TtWwi]) (.*)", line)
        if m:
            funcs[m[4].split("(")[0]] = (int(m[1], 16), int(m[2], 16))
    return funcs


def calls(log):
    return [r for r in map(json.loads, open(log)) if "routine" in r]


def find(base, roots):
    for root in roots:
        for d, _, files in os.walk(root, followlinks=True):
            if base in files:
                return os.path.join(d, base)


def site_errors(log, roots):
    """What is wrong with each native site of log: an offset inside an exported function of its object, or
    a name that is no function of it; objects looked up by base name under roots."""
    errors, seen = [], set()
    for r in calls(log):
        site = r["native"]
        if site in seen:
            continue
        seen.add(site)
        m = re.fullmatch(r"(.+)\+0x([0-9a-f]+)", site) or re.fullmatch(r"([^:]+):(.+)", site)
        path = m and find(m[1], roots)
        if not path:
            errors.append(f"{site}: no such object under {roots}")
        elif "+0x" in site:
            a = int(m[2], 16)
            inside = [f for f, (v, s) in functions(path, True).items() if v <= a < v + s]
            if inside:
                errors.append(f"{site}: inside the exported {inside}")
        elif m[2] not in functions(path, False) and m[2] not in functions(path, True):
            errors.append(f"{site}: {m[2]} is no function of {path}")
    return errors
PY

# ---- a program and a library of our own ---------------------------------------------------------------
# main_static (8 x 8) in the program, sites_static (16 x 16) and sites_exported (24 x 24) in libsites.so.
mkdir -p $W/stripped
cp $T/sites_main $T/libsites.so $W/stripped/
strip --strip-all $W/stripped/sites_main $W/stripped/libsites.so
shim GPUSHIM_LOG=$W/built.log $T/sites_main >$W/built.out
shim GPUSHIM_LOG=$W/stripped.log $W/stripped/sites_main >$W/stripped.out
check "the program and the library run under the shim, stripped or not, with the same result" sh -c "
    [ -s $W/built.out ] && cmp -s $W/built.out $W/stripped.out"
check "as built: each call names its function, static or exported" sh -c "
    [ $(count $W/built.log -- routine=dgemm m=8 native=sites_main:main_static) = 1 ] &&
    [ $(count $W/built.log -- routine=dgemm m=16 native=libsites.so:sites_static) = 1 ] &&
    [ $(count $W/built.log -- routine=dgemm m=24 native=libsites.so:sites_exported) = 1 ]"
check "the stripped copies keep no .symtab, and sites_static follows the exported sites_before" \
    q $W/sites.py $T/libsites.so $W/stripped/sites_main $W/stripped/libsites.so <<'PY'
import subprocess, sys
exec(open(sys.argv[1]).read())
for f in sys.argv[3:]:
    assert ".symtab" not in subprocess.run(["readelf", "-S", f], capture_output=True, text=True).stdout, f
start = functions(sys.argv[2], False)["sites_static"][0]
exported = functions(sys.argv[2], True)
assert "sites_static" not in exported
# the nearest exported symbol before sites_static: the name the old look-up gave
assert max((v, f) for f, (v, s) in exported.items() if v <= start)[1] == "sites_before", exported
PY
check "stripped: the static functions' calls are object+offset, the offset inside the function (nm -S)" \
    q $W/sites.py $W/stripped.log $T/sites_main $T/libsites.so <<'PY'
import re, sys
exec(open(sys.argv[1]).read())
want = {8: ("sites_main", sys.argv[3], "main_static"), 16: ("libsites.so", sys.argv[4], "sites_static")}
for r in calls(sys.argv[2]):
    if r["m"] in want:
        base, path, fn = want[r["m"]]
        m = re.fullmatch(re.escape(base) + r"\+0x([0-9a-f]+)", r["native"])
        start, size = functions(path, False)[fn]
        assert m and start < int(m[1], 16) <= start + size, (r["native"], fn, hex(start), hex(size))
        del want[r["m"]]
assert not want, want
PY
check "stripped: the exported function is still named, and no call names a neighbour" sh -c "
    [ $(count $W/stripped.log -- routine=dgemm m=24 native=libsites.so:sites_exported) = 1 ] &&
    [ $(count $W/built.log $W/stripped.log -- 'native=*sites_before*') = 0 ]"
# Replaced on disk while a process runs it (a package upgrade): the new file's symbols are not the loaded
# object's (its build ID differs; its sites_pad covers the old sites_static and sites_exported), so the names
# come from the loader's exported symbols, checked by their sizes.
mkdir -p $W/replaced
cp $T/libsites.so $W/replaced/
cp $T/libsites_replaced.so $W/replaced/new.so
shim GPUSHIM_LOG=$W/replaced.log $PY -c '
import ctypes, os, sys
lib = ctypes.CDLL(sys.argv[1] + "/libsites.so")
os.replace(sys.argv[1] + "/new.so", sys.argv[1] + "/libsites.so")
lib.sites_run()' $W/replaced
values() { $PY "$ROOT/tests/logq.py" values "$@"; }
check "replaced on disk: the new file is not read: object+offset as stripped, the exported named" sh -c "
    [ '$(values native $W/replaced.log -- m=16)' = '$(values native $W/stripped.log -- m=16)' ] &&
    [ $(count $W/replaced.log -- routine=dgemm m=24 native=libsites.so:sites_exported) = 1 ]"

# ---- R: %*%, solve, chol, eigen and svd, called from static functions of a stripped libR.so -------------
cat >$W/calls.R <<'EOF'
set.seed(1)
a <- matrix(rnorm(200 * 200), 200)
b <- a %*% a; x <- solve(a, b); ch <- chol(crossprod(a)); e <- eigen(crossprod(a)); s <- svd(a)
EOF
shim GPUSHIM_LOG=$W/r.log Rscript $W/calls.R
check "R: the calls of %*%, solve, chol and svd are logged (dgemm, dgesv, dpotrf, dgesdd)" sh -c "
    [ $(count $W/r.log -- routine=dgemm) -gt 0 ] && [ $(count $W/r.log -- routine=dgesv) -gt 0 ] &&
    [ $(count $W/r.log -- routine=dpotrf) -gt 0 ] && [ $(count $W/r.log -- routine=dgesdd) -gt 0 ]"
check "R: no site names libR.so's exported functions before the callers (do_Rprof, Rf_DropDims)" \
    test "$(count $W/r.log -- 'native=*do_Rprof*') $(count $W/r.log -- 'native=*Rf_DropDims*')" = "0 0"
check "R: every native site is a function of its object, or an offset outside its exported functions" \
    q $W/sites.py $W/r.log "$(Rscript -e 'cat(R.home())')" <<'PY'
import sys
exec(open(sys.argv[1]).read())
errors = site_errors(sys.argv[2], [sys.argv[3]])
assert not errors, errors
PY

# ---- Octave: the same calls, from liboctave's exported functions ----------------------------------------
# Octave 7 prints "error: ignoring const execution_exception& while preparing to exit" at exit when it cannot
# write its history file (~/.local/share/octave/history without the folder), with or without the shim: -H,
# and the line is not counted if it comes all the same.
cat >$W/calls.m <<'EOF'
a = rand(200); b = a*a; x = a\b; c = chol(a'*a); e = eig(a'*a); [u,s,v] = svd(a);
EOF
shim GPUSHIM_LOG=$W/octave.log octave-cli -q -H $W/calls.m >$W/octave.err 2>&1
echo "exit status $?" >>$W/octave.err
octlib=$(octave-cli -q -H --eval 'disp(__octave_config_info__("octlibdir"))')
octave_exit='error: ignoring const execution_exception& while preparing to exit'
check "Octave: exits with status 0 under the shim, printing nothing" \
    test "$(grep -vxF "$octave_exit" $W/octave.err)" = "exit status 0"
check "Octave: dgemm from xgemm, dgetrf from Matrix::fsolve, dpotrf from chol<Matrix>::init" sh -c "
    [ $(count $W/octave.log -- routine=dgemm 'native=liboctave.so*:xgemm') = 1 ] &&
    [ $(count $W/octave.log -- routine=dgetrf 'native=liboctave.so*:Matrix::fsolve') = 1 ] &&
    [ $(count $W/octave.log -- routine=dpotrf 'native=liboctave.so*:*chol<Matrix>::init') = 1 ]"
check "Octave: dsyev from EIG::symmetric_init, dgesvd from svd<Matrix>::gesvd" sh -c "
    [ $(count $W/octave.log -- routine=dsyev 'native=liboctave.so*:EIG::symmetric_init') -gt 0 ] &&
    [ $(count $W/octave.log -- routine=dgesvd 'native=liboctave.so*:*svd<Matrix>::gesvd') -gt 0 ]"
check "Octave: every native site is a function of its object, or an offset outside its exported functions" \
    q $W/sites.py $W/octave.log "$octlib" <<'PY'
import sys
exec(open(sys.argv[1]).read())
errors = site_errors(sys.argv[2], [sys.argv[3]])
assert not errors, errors
PY
finish

#!/bin/sh
# Packs the CPU libraries that the test programs are linked against into build/gpu/libs.tar.xz, for the GPU
# machine, which has none of them: Debian's OpenBLAS (plain spelling), NumPy 1.26's OpenBLAS (64_ spelling)
# Debian's reference BLAS (the nested-call test) and Debian's LAPACK test programs.  The scipy_ spellings come from the NumPy and SciPy
# installed there (tests/gpu/run.sh).
set -eu
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/reference" build/gpu
d=/usr/lib/x86_64-linux-gnu
cp -L $d/libopenblas.so.0 $d/libgfortran.so.5 $d/libquadmath.so.0 "$tmp/"
cp -L $d/blas/libblas.so.3 "$tmp/reference/"
cp -r build/venv-np1/lib/python3*/site-packages/numpy.libs "$tmp/"
# Debian's LAPACK test programs, their inputs and the libraries they load (liblapack-test).
mkdir -p "$tmp/lapack-test/lib"
cp $d/lapack/xlintst[sdcz] $d/lapack/xeigtst[sdcz] $d/lapack/*.in "$tmp/lapack-test/"
ldd $d/lapack/xlintstd | awk '$3 ~ /^\// {print $3}' | grep -vE '/lib(c|m|gcc_s)\.so' |
    xargs -I{} cp -L {} "$tmp/lapack-test/lib/"
tar cJf build/gpu/libs.tar.xz -C "$tmp" .
# The AddressSanitizer build (make asan) and the runtime it was linked with, which the GPU machine may not have,
# for tests/gpu/run.sh with GS_LIB.
mkdir -p build/gpu/asan
cp build/asan/libgpushim.so build/gpu/asan/
cp -L "$(ldd build/asan/libgpushim.so | awk '$1 ~ /^libasan/ {print $3}')" build/gpu/
# The wheel, for the group wheel.
rm -rf build/gpu/wheel
build/venv-np2/bin/pip wheel -q --no-deps -w build/gpu/wheel .
# MPICH's launcher for the group ranks (the GPU machine has none): mpiexec.hydra and its proxy from PyPI's mpich
# wheel, which need only the C library.
pip download -q --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 -d "$tmp/whl" "mpich==5.0.2"
python3 -m zipfile -e "$tmp"/whl/mpich-*.whl "$tmp/mpich"
mkdir -p build/gpu/hydra
for f in mpiexec.hydra hydra_pmi_proxy; do
    install -m 755 "$tmp"/mpich/mpich-*.data/data/bin/$f build/gpu/hydra/
done
ls -la build/gpu/libs.tar.xz

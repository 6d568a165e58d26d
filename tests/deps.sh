#!/bin/sh
# Installs what the build, the tests (`tests/deps.sh test`) or the demo (`tests/deps.sh demo`) need:
# Debian or Ubuntu packages that are missing, and Python virtual environments in build/ with pinned PyPI
# packages.  Safe to run again: it installs only what is missing.  `tests/deps.sh list demo|test` prints the
# packages only; `tests/deps.sh headers` the packages whose headers the build needs and $CC cannot find (make
# names them before it compiles).  The CUDA toolkit's headers are a prerequisite (README.md); the demo's list holds the package
# of every other header the library includes (tests/t_deps.sh checks it).
set -eu
mode=${1:-test}
cd "$(dirname "$0")/.."

demo_pkgs="build-essential python3 python3-venv libunwind-dev libfftw3-dev"
test_pkgs="$demo_pkgs pkg-config check libopenblas-dev libblas3 liblapack3 \
python3-numpy python3-scipy man-db groff-base liblapack-test chromium r-base-core octave gdb \
python3-pyfftw gfortran slurmctld slurmd slurm-client openmpi-bin mpich lmod gcovr valgrind"
# The headers the library includes from packages, each with its package (GS_BUILD_HEADERS replaces the list:
# tests/t_deps.sh).
build_headers=${GS_BUILD_HEADERS:-"libunwind.h:libunwind-dev fftw3.h:libfftw3-dev"}
usage="usage: tests/deps.sh test|demo, tests/deps.sh list test|demo|headers, or tests/deps.sh headers"
case $mode in
demo) pkgs=$demo_pkgs ;;
test) pkgs=$test_pkgs ;;
list)
    case ${2:-} in
    demo) echo $demo_pkgs ;;
    test) echo $test_pkgs ;;
    headers) for h in $build_headers; do echo "${h#*:}"; done ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
    exit 0 ;;
headers)
    for h in $build_headers; do
        echo "#include <${h%%:*}>" | ${CC:-cc} -E -x c - >/dev/null 2>&1 || printf '%s ' "${h#*:}"
    done
    exit 0 ;;
*) echo "$usage" >&2; exit 2 ;;
esac

missing=
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "tests/deps.sh: installing Debian packages:$missing"
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# venv DIR PACKAGE==VERSION ...: a virtual environment that holds at least these packages.  The file
# .gpushim-deps in it lists what this script installed, one package a line.
venv() {
    dir=$1
    shift
    [ -x "$dir/bin/python" ] || ${PYTHON:-python3} -m venv "$dir"
    need=
    for p in "$@"; do
        grep -qxF "$p" "$dir/.gpushim-deps" 2>/dev/null || need="$need $p"
    done
    [ -n "$need" ] || return 0
    echo "tests/deps.sh: installing into $dir:$need"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: $need
    for p in $need; do echo "$p" >>"$dir/.gpushim-deps"; done
}

mkdir -p build
# NumPy 2.x and SciPy from PyPI call the scipy_ spellings; the scipy-openblas wheels give the C tests the
# same spellings to link against.
venv build/venv-np2 numpy==2.4.6
[ "$mode" = test ] && venv build/venv-np2 scipy==1.17.1 scipy-openblas32==0.3.34.481.3 scipy-openblas64==0.3.34.481.3 \
    pytest==8.4.2 hypothesis==6.140.2
# PyPI's pyFFTW wheel bundles its own FFTW under renamed files (tests/t_fftw_apps.sh).
[ "$mode" = test ] && venv build/venv-np2 pyfftw==0.15.1
# scikit-learn's models as users fit them, under the AddressSanitizer build (tests/t_asan.sh).
[ "$mode" = test ] && venv build/venv-np2 scikit-learn==1.9.1
# The corpus of real programs (bench/apps, tests/t_apps.sh): statsmodels and PySCF besides.
[ "$mode" = test ] && venv build/venv-np2 statsmodels==0.15.0 pyscf==2.14.0
# NumPy 1.26's wheel bundles an ILP64 OpenBLAS with the 64_ suffix (dgemm_64_, cblas_dgemm64_).
[ "$mode" = test ] && venv build/venv-np1 numpy==1.26.4 pytest==8.4.2 hypothesis==6.140.2
exit 0

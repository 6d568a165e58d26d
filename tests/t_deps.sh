# The demo's package list is complete: every system header that the library's sources include (as the build
# saw them: the .d files under build/obj) comes from a package in `tests/deps.sh list demo`, from the C library or the compiler
# (which build-essential brings), or from the CUDA toolkit, a prerequisite.  `make check` installs its own
# packages first, so only this test notices a header whose package the demo forgets.
. "$(dirname "$0")/lib.sh"
CUDA=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")

# needs DIR: what the headers named by the .d files under DIR come from, one a line: a package's name, or "no package: PATH"
# for a header that no package installed; the CUDA toolkit's and the project's own are left out.
needs() {
    find "$1" -name '*.d' -exec sed 's/\\$//' {} + | tr ' ' '\n' | sed 's/:$//' | grep '^/' | sort -u | xargs readlink -f |
        grep -v -e "^$CUDA/" -e "^$ROOT/" | sort -u >$W/headers
    xargs dpkg -S <$W/headers 2>/dev/null >$W/owners || true
    sed 's/: .*//; s/:[a-z0-9]*//g; s/, /\n/g' $W/owners | sort -u
    sed 's/.*: //' $W/owners | sort -u | comm -23 $W/headers - | sed 's/^/no package: /'
}
# missing NEEDS PACKAGES: the lines of NEEDS that PACKAGES, the C library, the compiler and CUDA do not cover.
missing() {
    echo "$1" | while read -r p; do
        case $p in
        "" | libc6-dev | linux-libc-dev | libgcc-*-dev) ;; # the C library's and the compiler's
        cuda-* | libcu*-dev | nvidia-cuda-*) ;;             # the CUDA toolkit, from packages
        *) case " $2 " in *" $p "*) ;; *) echo "$p" ;; esac ;;
        esac
    done
}
demo=$(tests/deps.sh list demo)
lib=$(needs build/obj)
check "the build saw the system headers ($(wc -l <$W/headers))" test "$(wc -l <$W/headers)" -gt 50
m=$(missing "$lib" "$demo")
check "every system header's package is in the demo's list (missing: ${m:-none})" test -z "$m"
check "without libunwind-dev in the list, the check names it" \
    test "$(missing "$lib" "$(echo "$demo" | sed 's/libunwind-dev//')")" = libunwind-dev
# make checks the packages' headers before it compiles, and names the missing packages.
m=$(missing "$lib" "")
check "make checks the headers of every package the build needs ($(echo ${m:-none}))" \
    test "$(echo $m | tr ' ' '\n' | sort)" = "$(tests/deps.sh list headers | sort)"
GS_BUILD_HEADERS="stdio.h:libc6-dev gs_none.h:gs-none-dev" make -s B=$W/b $W/b/.build-headers 2>$W/headers.err
rc=$?
check "a header missing: make names its package and how to install it, and stops" \
    test "$rc/$(grep -c 'needs the packages gs-none-dev, which are not installed: apt-get install gs-none-dev' \
        $W/headers.err)" = 2/1
mkdir -p $W/obj && touch $W/gs_header.h
printf 'x.o: /usr/include/stdio.h \\\n /usr/include/x86_64-linux-gnu/libunwind.h %s\n' $W/gs_header.h >$W/obj/x.d
check "a header that no package installed is named" \
    test "$(missing "$(needs $W/obj)" "$demo")" = "no package: $W/gs_header.h"
finish

#!/bin/sh
# Packs Debian's R and GNU Octave, as installed here by tests/deps.sh, for the GPU machine, which has neither:
# build/gpu/r.tar.xz and build/gpu/octave.tar.xz (make gpu-pack-apps), each a relocatable tree that
# bench/apps/packs.sh unpacks into /tmp and puts on PATH, for tests/gpu/run.sh's group apps and the corpus (R
# through R_HOME, Octave through OCTAVE_HOME).  Each holds the libraries its program loads at start, OpenBLAS
# among them, but the C library's own and the C++ and GCC runtimes (the GPU machine's are newer).  Each is a
# call's whole load with build/libgpushim.so: together they pass the size a device call may carry.
set -eu
cd "$(dirname "$0")/../.."
command -v Rscript >/dev/null && command -v octave-cli >/dev/null ||
    { echo "$0: R or GNU Octave is not installed: run tests/deps.sh test first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p build/gpu

# libs DEST FILE...: the shared libraries FILEs load, copied into DEST under their sonames.
libs() {
    dest=$1
    shift
    mkdir -p "$dest"
    for f in "$@"; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
        grep -vE '/lib(c|m|pthread|dl|rt|resolv|util|gcc_s|stdc\+\+)\.so' |
        grep -v '/octave/' | xargs -I{} cp -L {} "$dest/"
}

# R: R_HOME with its configuration (a link to /etc/R in Debian's tree) and the base packages R starts with,
# without their manuals.
r=$tmp/r
cp -rL /usr/lib/R "$r"
rm -rf "$r/site-library" "$r/library"/*/doc "$r/library"/*/html "$r/library"/*/help "$r/library/tcltk"
cp -rL /usr/share/R/share "$r/share"
libs "$r/deps" "$r/bin/exec/R" "$r/lib/libR.so" \
    $(for p in stats utils grDevices graphics methods; do echo "$r/library/$p/libs/$p.so"; done)
rm -f "$r/deps/libR.so"
tar cf - -C "$r" . | xz -T0 -6 >build/gpu/r.tar.xz

# Octave: OCTAVE_HOME's bin, share/octave (the m-files, without the manuals and tests) and lib (the
# interpreter's libraries, links kept, and its .oct files).
o=$tmp/octave
v=$(octave-cli --no-gui --norc -q --eval 'disp(OCTAVE_VERSION)' 2>/dev/null)
ol=lib/x86_64-linux-gnu/octave
mkdir -p "$o/bin" "$o/share/octave" "$o/$ol"
cp -L /usr/bin/octave-cli "$o/bin/"
cp -rL /usr/share/octave/$v "$o/share/octave/"
rm -rf "$o/share/octave/$v/doc" "$o/share/octave/$v/locale" "$o/share/octave/$v/etc/tests" \
    "$o/share/octave/$v/etc/doc-cache"
cp -a /usr/$ol/$v "$o/$ol/"
rm -f "$o/$ol/$v"/liboctgui*
libs "$o/deps" "$o/bin/octave-cli"
tar cf - -C "$o" . | xz -T0 -6 >build/gpu/octave.tar.xz
ls -la build/gpu/r.tar.xz build/gpu/octave.tar.xz

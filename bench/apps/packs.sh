# R and GNU Octave for bench/apps/run.py on a machine that has neither (the lent GPU machines): sourced,
# `. bench/apps/packs.sh`, it unpacks the packs that `make gpu-pack-apps` made (build/gpu/r.tar.xz,
# build/gpu/octave.tar.xz; each has the OpenBLAS it loads, so both sides of a run use the same CPU library) into
# $APPS_PACKS (default /tmp/gpushim-apps) and puts Rscript and octave-cli on PATH: wrappers that run the packed
# programs with the variables they need, the pack's libraries ahead of the caller's LD_LIBRARY_PATH.  A pack that
# is not there is left out.  tests/gpu/run.sh's group apps uses it too.
APPS_PACKS=${APPS_PACKS:-/tmp/gpushim-apps}
mkdir -p "$APPS_PACKS/bin"
if [ -f build/gpu/r.tar.xz ]; then
    mkdir -p "$APPS_PACKS/r" && tar xJf build/gpu/r.tar.xz -C "$APPS_PACKS/r"
    cat > "$APPS_PACKS/bin/Rscript" <<W
#!/bin/sh
p=$APPS_PACKS/r f=\$1
shift
exec env R_HOME=\$p R_SHARE_DIR=\$p/share R_INCLUDE_DIR=\$p/include R_DOC_DIR=\$p/doc \\
    LD_LIBRARY_PATH=\$p/deps:\$p/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} \\
    \$p/bin/exec/R --vanilla --no-echo --file="\$f" --args "\$@"
W
    chmod +x "$APPS_PACKS/bin/Rscript"
fi
if [ -f build/gpu/octave.tar.xz ]; then
    mkdir -p "$APPS_PACKS/octave" && tar xJf build/gpu/octave.tar.xz -C "$APPS_PACKS/octave"
    apps_ol=$APPS_PACKS/octave/lib/x86_64-linux-gnu/octave  # its one folder, the version's, found once here
    apps_ol=$apps_ol/$(ls "$apps_ol" | head -n 1)
    cat > "$APPS_PACKS/bin/octave-cli" <<W
#!/bin/sh
p=$APPS_PACKS/octave
exec env OCTAVE_HOME=\$p LD_LIBRARY_PATH=\$p/deps:$apps_ol\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} \\
    \$p/bin/octave-cli --no-gui --norc --no-history "\$@"
W
    chmod +x "$APPS_PACKS/bin/octave-cli"
fi
PATH=$APPS_PACKS/bin:$PATH
export PATH

# The man pages: one for gpushim(7) and one for each script in scripts/; every environment variable the code
# reads and every routine of the routine table appears in them; each renders without warnings; and each
# script's options in its --help are in its page.
. "$(dirname "$0")/lib.sh"
for s in scripts/gpushim-*; do
    check "$s has a man page" test -f man/$(basename $s).1
done
for p in man/*.[1-8]; do
    man --warnings -l $p >/dev/null 2>$W/warn
    check "$p renders without warnings" test ! -s $W/warn
    sed 's/^/    /' $W/warn
    name=$(basename $p | sed 's/\.[1-8]$//' | tr a-z A-Z) section=${p##*.}
    version=$(sed -n 's/^#define GS_VERSION "\(.*\)"/\1/p' src/core/gs.h)
    check "$p's header: $name($section), gpushim $version, \"gpushim manual\"" \
        grep -qE "^\.TH $name $section [0-9-]+ \"gpushim $version\" \"gpushim manual\"\$" $p
done
cat man/*.[1-8] | sed 's/\\-/-/g; s/\\f[BIRP]//g' >$W/pages
# The variables: string literals of the library that name one (capitals with an underscore: GPUSHIM_LOG,
# SLURM_PROCID, ...), the per-routine prefix GPUSHIM_MIN_FLOPS_, and the scripts' GPUSHIM_ names.
{ grep -hoE '"[A-Z][A-Z0-9]*_[A-Z0-9_]+(%s)?"' src/*/*.c src/*/*/*.c | tr -d '"' | sed 's/%s$//'
  grep -hoE 'GPUSHIM_[A-Z0-9_]*[A-Z0-9]' scripts/*; } | sort -u >$W/vars
missing=$(while read -r v; do grep -qwF -- "$v" $W/pages || echo "$v"; done <$W/vars | tr '\n' ' ')
check "every environment variable the code reads is in the man pages ($(wc -l <$W/vars) names; missing: ${missing:-none})" \
    test -z "$missing"
sed -n 's/^GS_ROUTINE([A-Z0-9]*, *[a-z0-9]*, *[SDCZ], *\([a-z0-9_]*\),.*/\1/p' src/core/routines.def >$W/routines
missing=$(while read -r r; do grep -qw -- "$r" $W/pages || echo "$r"; done <$W/routines | tr '\n' ' ')
check "every routine of the table is in gpushim(7) ($(wc -l <$W/routines) routines; missing: ${missing:-none})" \
    test -z "$missing"
for s in scripts/gpushim-*; do
    opts=$($s --help | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u)
    missing=$(for o in $opts; do grep -qF -- "$o" $W/pages || echo "$o"; done | tr '\n' ' ')
    check "$s: every option of --help is in its page (missing: ${missing:-none})" test -z "$missing"
done
finish

# What the library exports, its list of entry points (build/entries.txt), what it links, and that it loads where
# there is no CUDA.
. "$(dirname "$0")/lib.sh"

# Every symbol of the routine table in every spelling (the table expanded into build/gpushim.map), the
# gpushim_ API, and nothing else.
tr -s ' ;\t' '\n\n\n' <build/gpushim.map | grep -E '^[A-Za-z_0-9]+$' | grep -v '^global$\|^local$' | sort >$W/want
API="gpushim_version gpushim_gpu_wait gpushim_log_flush gpushim_log_path gpushim_linalg gpushim_linalg_min_order
    gpushim_fft gpushim_fft_min_points gpushim_original_begin gpushim_original_end"
printf '%s\n' $API >>$W/want
sort -o $W/want $W/want
nm -D --defined-only "$LIB" | awk '{print $3}' | sort >$W/have
check "exports are exactly the table's symbols ($(wc -l <$W/want) names) and the API" cmp -s $W/want $W/have ||
    diff $W/want $W/have | head
check "every routine has all its spellings" \
    sh -c "[ $(grep -c '^scipy_cblas_dgemm64_$' $W/have) = 1 ] && [ $(grep -c '^zher2k_64_$' $W/have) = 1 ]"

# build/entries.txt, the readers' list: every symbol of the table once, each naming the line of a template
# where a definition of GS_SYM starts: its operation's (src/families/*/OP.inc) or the one that file includes.
awk '{print $1}' build/entries.txt | sort >$W/entries
printf '#include "core/gs_table.h"\n#define H(f) f\nGS_MEMORY_HOOKS(H) GS_EXIT_HOOKS(H) GS_CUDA_ALLOC_HOOKS(H) GS_FFTW_PLANNERS(H) '"$API"'\n' | cc -E -P -Isrc -x c - |
    tr -s ' ' '\n' | grep . >$W/not_table
grep -vxF -f $W/not_table $W/want >$W/table
check "build/entries.txt lists every symbol of the table once ($(wc -l <$W/entries) lines)" cmp -s $W/table $W/entries
bad_lines=$(awk '{split($NF, w, ":"); l = ""
    for (i = 1; i <= w[2] && (getline l <w[1]) > 0; i++) ;
    close(w[1])
    own = w[1]; sub(/[^\/]*$/, $6 ".inc", own); shared = (own == w[1])
    while (!shared && (getline x <own) > 0)
        shared = x == "#include \"" substr(w[1], 5) "\""
    close(own)
    if (w[1] !~ /^src\/families\/[a-z]+\/[a-z0-9]+\.inc$/ || i <= w[2] || l !~ /^GS_EXPORT [^(]* GS_SYM\(/ || !shared)
        print $1}' build/entries.txt | head -3 | tr '\n' ' ')
check "each entry is defined in its operation's template where the list says (wrong: ${bad_lines:-none})" \
    test -z "$bad_lines"

# No link-time CUDA dependency.
readelf -d "$LIB" | grep NEEDED >$W/needed
check "no CUDA library among the NEEDED entries" sh -c "! grep -qi 'cu' $W/needed"

# A program that calls no BLAS, with the shim and no CUDA at all: runs, prints nothing.
env LD_PRELOAD="$LIB" GPUSHIM_CUDA_LIBDIR=$W/nothing-here /bin/true 2>$W/true.err
check "loads into a program without CUDA, silently" test ! -s $W/true.err
finish

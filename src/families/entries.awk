# Writes the entry points and their list (Makefile).
# -v out=c: reads the preprocessed entries.txt.in on standard input, a token a line, and writes
#   build/entry_points.c, which defines each exported symbol's parameters (glue_blas.h) and includes its
#   operation's template, src/families/<family>/<op>.inc.
# -v out=txt: reads build/entry_points.c, then its preprocessed text (line markers kept) on standard input,
#   and writes build/entries.txt: a line per symbol with the file and line where its definition starts, as
#   the compiler (and so a debugger) sees it.
out == "c" && NR == 1 {
    print "/* Every exported entry point: for each symbol of the routine table (src/core/routines.def), its"
    print " * parameters and its operation's template.  Written by src/families/entries.awk (Makefile). */"
    print "#include \"families/lapack/glue_lapack.h\""
    print "#include \"families/fftw/glue_fftw.h\""
}
out == "c" && /^GS_T_(OP|ROUTINE|ENTRY)$/ { kind = $0; k = 0; next }
out == "c" && $0 != "" {
    t[++k] = $0
    if (kind == "GS_T_OP" && k == 2)
        family[t[1]] = tolower(t[2])
    else if (kind == "GS_T_ROUTINE" && k == 2)
        op[t[1]] = t[2]
    else if (kind == "GS_T_ENTRY" && k == 5)
        entry(t[1], t[2], t[3], t[4], t[5])
}
# entry SYMBOL ID PRECISION CONVENTION BITS
function entry(sym, id, p, conv, bits,    o) {
    o = op[id]
    if (!(o in family)) {
        printf "entries.awk: %s: routine %s has no operation with a family (GS_OP)\n", sym, id >"/dev/stderr"
        exit 1
    }
    printf "\n/* %s: %s %s %s %s %s */\n", sym, id, o, p, conv, bits
    printf "#define GS_SYM %s\n#define GS_PREC %s\n#define GS_BITS %s\n", sym, p, bits
    printf "#define GS_%s\n#define GS_CONV_NAME %s\n", conv, conv
    printf "#include \"families/%s/%s.inc\"\n", family[o], o
    printf "#undef GS_SYM\n#undef GS_PREC\n#undef GS_BITS\n#undef GS_%s\n#undef GS_CONV_NAME\n", conv
}

# build/entry_points.c: the symbols in order, from the comment that opens each one's lines.
out == "txt" && FILENAME != "-" && /^\/\* [a-z_0-9]+: [A-Z0-9_]+ / {
    sub(/:$/, "", $2)
    sym[++n] = $2
    info[$2] = sprintf("%-26s %-9s %s %-5s %s-bit  %-7s", $2, tolower($3), $5, $6, $7, $4)
    next
}
# The preprocessed text: a line marker (# LINE "FILE" FLAGS) sets the next line's place.
out == "txt" && FILENAME == "-" && /^# [0-9]+ "/ {
    line = $2
    file = substr($3, 2, length($3) - 2)
    next
}
out == "txt" && FILENAME == "-" {
    mark = "visibility(\"default\")))"
    i = index($0, mark)
    if (i) {
        d = substr($0, i + length(mark))
        d = substr(d, 1, index(d, "(") - 1)
        sub(/ +$/, "", d)
        m = split(d, w, /[ *]+/)
        if (w[m] in info)
            where[w[m]] = file ":" line
    }
    line++
}
END {
    for (i = 1; i <= n; i++)
        printf "%s template %s\n", info[sym[i]], (sym[i] in where) ? where[sym[i]] : "?"
}

# Writes build/entries.txt (Makefile): reads routines.def (each routine's operation), the glue headers (where
# each operation's template GS_GLUE_<op> is defined) and, last, the preprocessed entries.txt.in on standard
# input, a token a line: GS_ENTRY symbol ID precision convention bits.
FILENAME ~ /routines\.def$/ && /^GS_ROUTINE\(/ {
    split(substr($0, 12), f, /[ ,)]+/)
    op[f[1]] = f[2]
    next
}
FILENAME ~ /glue_.*\.h$/ && $1 == "#define" && $2 ~ /^GS_GLUE_[a-z0-9]+\(/ {
    where[substr($2, 9, index($2, "(") - 9)] = FILENAME ":" FNR
    next
}
# an operation that shares another's template: #define GS_GLUE_hemm GS_GLUE_symm
FILENAME ~ /glue_.*\.h$/ && $1 == "#define" && $2 ~ /^GS_GLUE_[a-z0-9]+$/ && $3 ~ /^GS_GLUE_[a-z0-9]+$/ {
    alias[substr($2, 9)] = substr($3, 9)
    next
}
FILENAME == "-" {
    if ($0 == "GS_ENTRY") { k = 0; next }
    t[++k] = $0
    if (k == 5) {
        o = op[t[2]]
        if (o in alias)
            o = alias[o]
        printf "%-26s %-8s %s %-5s %s-bit  template GS_GLUE_%s, %s\n", t[1], tolower(t[2]), t[3], t[4], t[5], o,
            (o in where) ? where[o] : "?"
    }
}

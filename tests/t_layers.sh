# The library's layers (issue 18): in the module graph of build/obj's objects a module uses only modules of
# its own folder or of lower ones, and no cycle (tests/depgraph.py); no source over 500 lines, no function over
# 80 (tests/srcsize.py).  Both checkers are shown to fail on tiny examples, compiled here, that break a rule.
. "$(dirname "$0")/lib.sh"
CC=${CC:-cc}

# The library's objects, one per source of src/ (a stale object of a removed source is no module).
objs=$(find src -name '*.c' | sort | sed 's|^src/\(.*\)\.c$|build/obj/\1.o|')
missing=$(for o in $objs; do [ -f "$o" ] || echo "$o"; done)
check "every source of src/ has its object in build/obj (make tests)" test -z "$missing"

# shows COMMAND...: the command succeeds; otherwise its lines other than the graph's edges are printed.
shows() {
    "$@" >$W/out 2>&1 && return 0
    grep -vE '^[^ ]+ -> [^ ]+: ' $W/out
    return 1
}
# fails_with PATTERN COMMAND...: the command exits 1 and prints a line matching the extended regex PATTERN.
fails_with() {
    p=$1
    shift
    "$@" >$W/out 2>&1
    s=$?
    [ $s = 1 ] && grep -qE "$p" $W/out && return 0
    echo "exit status $s, wanted 1 and a line matching: $p"
    cat $W/out
    return 1
}

check "the module graph: no layer violation, no cycle" shows tests/depgraph.py --root build/obj $objs
check "the sources: no file over 500 lines, no function over 80" shows tests/srcsize.py src

# obj DIR/FOLDER/NAME SOURCE: compiles SOURCE into DIR/FOLDER/NAME.o.
obj() {
    mkdir -p "$(dirname "$W/$1")"
    printf '%s\n' "$2" >"$W/$1.c"
    $CC -c -o "$W/$1.o" "$W/$1.c"
}
obj up/core/init 'void t_log_open(void); void t_init(void) { t_log_open(); }'
obj up/log/log 'void t_log_open(void) {}'
check "depgraph fails on a call from core to log: a layer violation" fails_with \
    '^layer violation: core/init \(core\) -> log/log \(log\): t_log_open$' \
    tests/depgraph.py --root $W/up $W/up/core/init.o $W/up/log/log.o
obj down/core/msg 'void t_msg(void) {}'
obj down/log/log 'void t_msg(void); void t_log(void) { t_msg(); }'
check "depgraph passes a call from log to core" shows \
    tests/depgraph.py --root $W/down $W/down/core/msg.o $W/down/log/log.o
obj cyc/log/a 'void t_b(void); void t_a(void) { t_b(); }'
obj cyc/log/b 'void t_a(void); void t_b(void) { t_a(); }'
check "depgraph fails on a cycle inside one folder" fails_with '^cycle among 2 modules \(log/a, log/b\)' \
    tests/depgraph.py --root $W/cyc $W/cyc/log/a.o $W/cyc/log/b.o
obj hook/core/init 'void free(void *); void t_init(void *p) { free(p); }'
obj hook/memory/hostreg 'void free(void *p) { (void)p; }'
check "depgraph: a call to free, which memory/hostreg interposes, is a call to the C library's" shows \
    tests/depgraph.py --root $W/hook $W/hook/core/init.o $W/hook/memory/hostreg.o
obj odd/misc/a 'void t_a(void) {}'
check "depgraph fails on a folder that is no layer" fails_with '^unknown layer: misc/a' \
    tests/depgraph.py --root $W/odd $W/odd/misc/a.o

# body N: N lines of a function's body, each with a brace in a string and one in a comment (none to count).
body() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) print "    s = \"}\"; /* { */" }'; }
mkdir -p $W/src/core
{ printf 'const char *f80(void)\n{\n    const char *s;\n'; body 75; printf '    return s;\n}\n'; } >$W/src/core/fits.c
check "srcsize passes a function of 80 lines" shows tests/srcsize.py $W/src
{ printf '/* 81 */\nstatic int\nf81(void) {\n    const char *s;\n'; body 76; printf '    return s;\n}\n'; } \
    >$W/src/core/long.c
check "srcsize fails on a function of 81 lines, naming its first line" \
    fails_with "^$W/src/core/long.c:2: function f81 of 81 lines, over 80$" tests/srcsize.py $W/src
rm $W/src/core/long.c
awk 'BEGIN { for (i = 0; i < 501; i++) print "int v" i ";" }' >$W/src/core/big.h
check "srcsize fails on a file of 501 lines" fails_with "^$W/src/core/big.h:501: 501 lines, over 500$" \
    tests/srcsize.py $W/src
finish

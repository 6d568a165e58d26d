#!/bin/sh
# make coverage (issue 24): the unit tests and make check's suite run against the gcov build of the library in
# DIR (build/cov, made by make coverage), then the full fault sweep (GS_SWEEP=full), each phase summarised
# with gcovr into bench/results/coverage.md: line and branch coverage per folder of src/, and every checked
# CUDA call (GS_TRY, GS_CUDA, GS_SOL, GS_FFT, and the direct calls of gs_cuda_error) whose failure branch no
# test took.  `tests/coverage.sh --report DIR` writes the report again from the counts that a run kept in DIR.
# Exit status 1 when a check of the suite or of the sweep failed (the report is written all the same), 2 when
# something it needs is missing.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
usage="usage: tests/coverage.sh [--report] [DIR]"
mode=run
case ${1:-} in --report) mode=report; shift ;; -*) echo "$usage" >&2; exit 2 ;; esac
cov=${1:-build/cov}
out=bench/results/coverage.md
notes_title='## Unreached failure branches, and why'

for t in gcovr gcov python3; do
    command -v $t >/dev/null ||
        { echo "coverage.sh: $t is missing: sh tests/deps.sh test installs it" >&2; exit 2; }
done
for f in $cov/libgpushim.so $cov/tests/unit; do
    [ -e $f ] || { echo "coverage.sh: no $f (make coverage builds it)" >&2; exit 2; }
done
# Sources changed since the library was built: their line numbers are no longer the counts' (others edit in
# the same tree).
newer() {
    find src -type f \( -name '*.[ch]' -o -name '*.inc' -o -name '*.def' -o -name '*.in' \) -newer $cov/libgpushim.so |
        sort | tr '\n' ' '
}
if [ $mode = report ]; then
    for f in sites run.txt ci.gcov ci.summary.json full.gcov full.summary.json suite.log sweep.log; do
        [ -s $cov/$f ] || { echo "coverage.sh: no $cov/$f: run tests/coverage.sh $cov first" >&2; exit 2; }
    done
elif [ -n "$(newer)" ]; then
    echo "coverage.sh: changed since $cov/libgpushim.so was built: $(newer)(make coverage builds it again)" >&2
    exit 2
fi
w=$(mktemp -d "${TMPDIR:-/tmp}/gpushim-coverage.XXXXXX")
trap 'rm -rf "$w"' EXIT

# The checked calls, "FILE LINE KIND NAME", into DIR/sites at the start of a run: a GS_TRY's name argument
# (the function's for GS_CUDA, GS_SOL and GS_FFT), and the calls that handle a failure themselves and call
# gs_cuda_error directly.  Each macro puts its whole expansion on the line of its name, GS_TRY's last call
# being gs_cuda_error (src/cuda/cudalib.h); the direct calls are one to a line.
sites() {
    grep -rnE '\b(GS_TRY|GS_CUDA|GS_SOL|GS_FFT)\(' src --include='*.c' --include='*.inc' | grep -v '#define' |
        sed -E 's/^([^:]*):([0-9]+):.*\b(GS_[A-Z]+)\([^,]*, *([^,]*).*/\1 \2 \3 \4/' >$w/sites
    grep -rn 'gs_cuda_error(' src --include='*.c' --include='*.inc' | grep -v 'int gs_cuda_error(' |
        sed -E 's/^([^:]*):([0-9]+):.*gs_cuda_error\([^,]*, *([^,]*).*/\1 \2 direct \3/' >>$w/sites
    sort -k1,1 -k2,2n $w/sites >$cov/sites
    [ -s $cov/sites ] ||
        { echo "coverage.sh: found no checked CUDA call in src/ (have the macros changed?)" >&2; exit 1; }
}

# snapshot TAG: the counts so far, kept in DIR: gcovr's summary (TAG.summary.json), and gcov's annotated
# sources with call counts (TAG.gcov), both from the objects' .gcda files.  (A branch count that threads
# updated at once can come out negative, which gcovr cannot parse: such lines are skipped.)
snapshot() {
    gcovr -r . --filter 'src/' --gcov-ignore-parse-errors --json-summary $cov/$1.summary.json $cov >/dev/null \
        2>$w/gcovr.err ||
        { cat $w/gcovr.err >&2; echo "coverage.sh: gcovr failed" >&2; exit 1; }
    find $cov/obj -name '*.gcda' | sort | xargs gcov -b -c -t 2>$w/gcov.err >$cov/$1.gcov ||
        { cat $w/gcov.err >&2; echo "coverage.sh: gcov failed" >&2; exit 1; }
}

# counts TAG: "FILE LINE KIND NAME COUNT FUNCTION" for each site, COUNT the calls of gs_cuda_error from its
# line (the line's last call; summed where a source is compiled into more than one object, as an .inc is),
# "-" where gcov has no call on the line; then "total gs_cuda_error CALLS", from the function's entry count.
counts() {
    awk 'function done() { if (cur in want && last != "") n[cur] += last; cur = ""; last = "" }
        NR == FNR { want[$1 ":" $2] = 1; next }
        /^ *-: *0:Source:/ { done(); src = $0; sub(/.*Source:/, "", src); next }
        /^function / { fn = $2; if (fn == "gs_cuda_error") total += $4; next }
        /^ *[^ ]+: *[0-9]+:/ { done(); split($0, a, ":"); cur = src ":" (a[2] + 0); if (cur in want) f[cur] = fn; next }
        /^call / && (cur in want) { last = $3 == "never" ? 0 : $4 }
        END { done(); while ((getline s <ARGV[1]) > 0) { split(s, a, " "); k = a[1] ":" a[2];
                  print s, (k in n ? n[k] : "-"), (k in f ? f[k] : "-") }
              print "total gs_cuda_error", total + 0 }' $cov/sites $cov/$1.gcov >$w/$1.counts
    sed '$d' $w/$1.counts >$w/$1.joined
    awk '$5 == 0 || $5 == "-" { print $1 ":" $2 }' $w/$1.joined | sort >$w/$1.un
}

# totals TAG: "LINES BRANCHES TRIED TRIES DIRECT DIRECTS": line and branch coverage, the GS_TRY failure
# branches reached and their number, the same for the direct gs_cuda_error calls.
totals() {
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
pc = lambda a, b: "%.1f%%" % (100.0 * a / b) if b else "-"
print(pc(d["line_covered"], d["line_total"]), pc(d["branch_covered"], d["branch_total"]), end=" ")' \
        $cov/$1.summary.json
    awk '$3 != "direct" { t++; if ($5 > 0) r++ } $3 == "direct" { dt++; if ($5 > 0) dr++ }
        END { print r + 0, t + 0, dr + 0, dt + 0 }' $w/$1.joined
}

# section TITLE TAG: the coverage tables and the unreached sites of a phase.
section() {
    echo "## $1"
    echo
    python3 - $cov/$2.summary.json <<'EOF'
# Line and branch coverage per folder of src/ and in total, from gcovr's JSON summary.
import json, os, sys
d = json.load(open(sys.argv[1]))
rows = {}
for f in d["files"]:
    r = rows.setdefault(os.path.dirname(f["filename"]), [0, 0, 0, 0])
    for i, k in enumerate(("line_covered", "line_total", "branch_covered", "branch_total")):
        r[i] += f[k]
pc = lambda a, b: "%.1f%%" % (100.0 * a / b) if b else "-"
print("| folder | lines | line coverage | branches | branch coverage |\n|---|---:|---:|---:|---:|")
for k in sorted(rows) + ["total"]:
    a, b, c, e = rows[k] if k != "total" else [sum(r[i] for r in rows.values()) for i in range(4)]
    name = "**total**" if k == "total" else k + "/"
    print("| %s | %d/%d | %s | %d/%d | %s |" % (name, a, b, pc(a, b), c, e, pc(c, e)))
EOF
    echo
    set -- $(totals $2) $2
    echo "GS_TRY failure branches reached: **$3 of $4**; direct gs_cuda_error calls: $5 of $6."
    awk -v total="$(tail -n 1 $w/$7.counts | cut -d ' ' -f 3)" '$5 != "-" { s += $5 }
        END { printf "gs_cuda_error ran %d times, %d of them from the sites counted here%s.\n", total, s,
              s == total ? "" : " (the others come from lines this script did not recognise as sites)" }' $w/$7.joined
    echo
    echo "Never reached, \`file:line: name (function)\`; \"no data\" where gcov has no call on the line:"
    echo
    echo '```'
    awk '$5 == 0 || $5 == "-" { printf "%s:%s: %s%s (%s)%s\n", $1, $2, $3 == "direct" ? "gs_cuda_error " : "", $4,
        $6, $5 == "-" ? " no data" : "" }' $w/$7.joined
    echo '```'
    echo
}

if [ $mode = run ]; then
    # No counts from an earlier run, nor its kept summaries.
    find $cov -name '*.gcda' -delete
    rm -f $cov/ci.gcov $cov/ci.summary.json $cov/full.gcov $cov/full.summary.json $cov/run.txt
    sites
    {
        echo "date $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(
            git diff --quiet HEAD -- src 2>/dev/null || echo ', with uncommitted changes in src/')"
    } >$cov/run.txt
    start=$(date +%s)
    # The unit tests from DIR (tests/t_unit.sh runs build/tests/unit, which is not instrumented), then the
    # suite, its preload tests taking the library from GS_LIB.
    $cov/tests/unit >$cov/unit.log 2>&1 || echo "coverage.sh: the unit tests failed ($cov/unit.log)" >&2
    GS_LIB=$ROOT/$cov/libgpushim.so sh tests/run.sh >$cov/suite.log 2>&1
    echo "suite $(($(date +%s) - start))" >>$cov/run.txt
    snapshot ci
    start=$(date +%s)
    GS_LIB=$ROOT/$cov/libgpushim.so GS_SWEEP=full sh tests/t_faults.sh >$cov/sweep.log 2>&1
    echo "sweep $(($(date +%s) - start))" >>$cov/run.txt
    snapshot full
fi
counts ci
counts full
fact() { sed -n "s/^$1 //p" $cov/run.txt; }
suite=$(fact suite) sweep=$(fact sweep)
changed=$(newer)
unit=$(tail -n 1 $cov/unit.log | sed -n 's/^100%: //p; s/^[0-9]*%: //p')

# The hand-written section on why the unreached branches are not reached, kept from the report being replaced;
# the unreached sites it does not name by file:line, and the ones it names that are reached now.
if grep -qx "$notes_title" $out 2>/dev/null; then
    sed -n "/^$notes_title\$/,\$p" $out >$w/notes
else
    printf '%s\n\n(To be written: each site of the list above, by file:line, with the reason.)\n' "$notes_title" \
        >$w/notes
fi
grep -oE 'src/[A-Za-z0-9_/.]+:[0-9]+' $w/notes | sort -u >$w/named
comm -23 $w/full.un $w/named >$w/unexplained
comm -13 $w/full.un $w/named | while read -r s; do
    grep -q "^${s%:*} ${s##*:} " $cov/sites && echo $s
done >$w/stale

# fails LOG: the failed checks of a test log, as a list under the line above (at most 20, shortened).
fails() { grep '^FAIL' $1 | head -n 20 | cut -c1-110 | sed 's/^\(.*\)$/  - `\1`/'; }
suite_pass=$(grep -c '^PASS' $cov/suite.log)
suite_fail=$(grep -c '^FAIL' $cov/suite.log)
sweep_pass=$(grep -c '^PASS' $cov/sweep.log)
sweep_fail=$(grep -c '^FAIL' $cov/sweep.log)
set -- $(totals full)
{
    echo "# Coverage of the library's C code"
    echo
    echo "- Run $(fact date) at commit $(fact commit); written $(date -u '+%Y-%m-%d %H:%M UTC')."
    echo "- Tools: gcovr $(gcovr --version | sed -n '1s/gcovr //p'), $(cc --version | head -n 1)."
    echo "- Command: \`make coverage\` (tests/coverage.sh $cov): the library built with \`-O0 -g --coverage\` into"
    echo "  $cov/; the unit tests ($cov/tests/unit) and make check's suite (\`GS_LIB=$cov/libgpushim.so sh"
    echo "  tests/run.sh\`) in $suite s, then the full fault sweep (\`GS_SWEEP=full sh tests/t_faults.sh\`) in" \
        "$sweep s."
    echo "- **Totals**, the suite and the sweep together: lines **$1**, branches **$2**, GS_TRY failure branches"
    echo "  reached **$3 of $4** (direct gs_cuda_error calls: $5 of $6)."
    totals ci | awk '{printf "- The suite alone: lines %s, branches %s, GS_TRY failure branches reached %d of %d.\n",
        $1, $2, $3, $4}'
    echo "- Unit tests: ${unit:-no summary in $cov/unit.log}."
    echo "- Suite: $suite_pass checks passed, $suite_fail failed$([ $suite_fail = 0 ] || echo :)"
    fails $cov/suite.log
    echo "- Sweep: $sweep_pass checks passed, $sweep_fail failed$([ $sweep_fail = 0 ] || echo :)"
    fails $cov/sweep.log
    echo "- The sweep reaches $(comm -23 $w/ci.un $w/full.un | wc -l) more checked calls' failure branches."
    [ -z "$changed" ] || echo "- **Changed since the build** (the counts' line numbers are the build's): $changed" |
        fold -s -w 110 | sed '1!s/^/  /'
    echo
    echo "A checked call counts as reached when gs_cuda_error ran from its line.  Not counted: processes killed by"
    echo "a signal or ended by _exit write no counts; gpushim-run and gpushim-calibrate preload build/libgpushim.so"
    echo "unless given --lib, so that their runs in tests/t_options.sh, tests/t_cluster.sh and tests/t_calibrate.sh"
    echo "count for that build, not this one; tests/t_install.sh and tests/t_wheel.sh run installed copies."
    echo
    section "The CI suite (tests/run.sh and the unit tests)" ci
    section "With the full fault sweep added (GS_SWEEP=full sh tests/t_faults.sh)" full
    cat $w/notes
} >$out.tmp && mv $out.tmp $out

echo "coverage.sh: $out: lines $1, branches $2, GS_TRY failure branches reached $3 of $4"
[ -s $w/unexplained ] && echo "coverage.sh: $(wc -l <$w/unexplained) unreached sites not named in" \
    "\"$notes_title\", as $(head -n 3 $w/unexplained | tr '\n' ' ')..." >&2
[ -s $w/stale ] && echo "coverage.sh: named in \"$notes_title\" but reached now:" $(cat $w/stale) >&2
if [ $suite_fail != 0 ] || [ $sweep_fail != 0 ]; then
    echo "coverage.sh: $suite_fail checks of the suite and $sweep_fail of the sweep failed ($cov/suite.log," \
        "$cov/sweep.log)" >&2
    exit 1
fi
exit 0

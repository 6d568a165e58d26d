# The offload log as gpushim(7) documents it (format 2: the header with the policy in effect, the GPU events,
# call sites), its survival of kill -9, and gpushim-report: tables, --json, --html rendered by a real
# headless browser (Debian's chromium), clear errors on bad files, and agreement with the exit summary.
. "$(dirname "$0")/lib.sh"
PYV=$ROOT/build/venv-np2/bin/python
REP="$PY $ROOT/scripts/gpushim-report"
q() { $PY - "$@"; } # a Python check on files: exits 0 when it holds

# The header: format, versions, the process and every routine's rule; then the GPU's events.
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/py.log $PYV tests/py/sites.py >$W/lines
check "header: format 2, library version, host, pid, offload, sites and a rule for every routine of the table" q \
    $W/py.log "$(grep -c '^GS_ROUTINE(' src/routines.def)" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).readline())
sys.exit(not (h["gpushim_log"] == 2 and h["version"] and h["host"] and h["pid"] > 0 and h["offload"] == "always"
              and h["sites"] == "python" and len(h["rules"]) == int(sys.argv[2])
              and h["rules"]["dgemm"][0] > 0 and all(len(r) == 5 for r in h["rules"].values())))
PY
check "the GPU coming up is an event naming the device" grep -q '"event":"gpu","what":"CUDA device, device 0, [0-9]* MiB"' $W/py.log
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/nogpu.log GPUSHIM_QUIET=1 GS_STANDIN_DEVICES=0 $PYV tests/py/sites.py >/dev/null
check "no GPU: a gpu_off event with the reason" grep -q '"event":"gpu_off","what":"no usable GPU: no GPU found: ' $W/nogpu.log

# Call sites: the Python line in the program's own function, the native caller outside NumPy's BLAS, the
# thread Python started too; GPUSHIM_SITES=native and off.
solve=$(sed -n 's/^SOLVE //p' $W/lines) matmul=$(sed -n 's/^MATMUL //p' $W/lines)
check "sites: every dgesv from sites.py:$solve in train, every dgemm from sites.py:$matmul (both threads)" sh -c "
    [ $(count $W/py.log -- routine=dgesv "site=sites.py:$solve in train") = 2 ] &&
    [ $(count $W/py.log -- routine=dgemm "site=sites.py:$matmul in train") = 2 ]"
check "sites: the native caller is NumPy's linalg module (dgesv) and its matmul (dgemm)" sh -c "
    [ $(count $W/py.log -- routine=dgesv 'native=_umath_linalg*:*solve*') = 2 ] &&
    [ $(count $W/py.log -- routine=dgemm 'native=_multiarray_umath*:*matmul*') = 2 ]"
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/native.log GPUSHIM_SITES=native $PYV tests/py/sites.py >/dev/null
check "GPUSHIM_SITES=native: the site is the native caller" \
    test "$(count $W/native.log -- routine=dgesv 'site=_umath_linalg*:*solve*')" = 2
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/off.log GPUSHIM_SITES=off $PYV tests/py/sites.py >/dev/null
check "GPUSHIM_SITES=off: no site fields" sh -c "! grep -q '\"site\"' $W/off.log && grep -q '\"sites\":\"off\"' $W/off.log"
# Threads waiting for Python's lock while another runs Python code: sites go native, and the log says so.
shim GPUSHIM_LOG=$W/gil.log $PYV -c '
import threading, numpy as np
a = np.ones((200, 200))
def work():
    for _ in range(40):
        a @ a
ts = [threading.Thread(target=work) for _ in range(3)]
[t.start() for t in ts]
while any(t.is_alive() for t in ts):
    sum(range(1000))'
check "sites: slow waits for Python's lock turn the process to native sites, with an event" sh -c "
    grep -q '\"event\":\"sites\",\"what\":\"native from now on' $W/gil.log &&
    [ $(count $W/gil.log -- routine=dgemm 'site=_multiarray_umath*') -gt 0 ]"
shim GPUSHIM_LOG=$W/c.log GPUSHIM_SUMMARY=1 $T/threads $W/threads.bin >/dev/null 2>$W/c.err
check "sites: a C program's calls come from its own function (threads:run)" \
    test "$(count $W/c.log -- 'site=threads:run')" = "$(count $W/c.log)"
calls=$(awk '$1 == "gpushim:" && $3 ~ /^[0-9]+$/ {s += $3} END {print s + 0}' $W/c.err)
check "8 threads logging at once: every line valid, one record per call the summary counts ($calls)" sh -c "
    $PY tests/logq.py check $W/c.log >/dev/null && [ $(count $W/c.log) = $calls ] && [ $calls -gt 0 ]"

# kill -9 in the middle of a run: every line is a complete record, and the report reads what is there.
env LD_PRELOAD="$LIB" GPUSHIM_CUDA_LIBDIR="$SI" GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/killed.log $PYV -c '
import numpy as np
a = np.ones((64, 64))
while True:
    a @ a' &
pid=$!
for i in $(seq 300); do # until calls are being logged (30 s at most), then a little longer
    n=$(cat $W/killed.log 2>/dev/null | grep -c '"routine"')
    [ "$n" -gt 10 ] && break
    sleep 0.1
done
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
check "kill -9: every line of the log is valid JSON" $PY tests/logq.py check $W/killed.log
check "kill -9: gpushim-report reads it and says the process did not exit" \
    sh -c "$REP $W/killed.log | grep -q 'no exit record (killed, or still running)'"

# gpushim-report: the summary of a run agrees with the report of its log, routine by routine.
shim GPUSHIM_OFFLOAD=always GPUSHIM_SUMMARY=1 GPUSHIM_LOG=$W/sum.log $PYV tests/py/lapack_numpy.py $W/sum.npz 200 \
    2>$W/sum.err
$REP --json $W/sum.log >$W/sum.json
check "report and exit summary agree on calls, GPU calls and megabytes moved and saved, per routine" \
    $PY tests/py/report_agrees.py $W/sum.err $W/sum.json
$REP --top 100 $W/sum.log >$W/sum.txt
check "report: tables per routine and per call site, reasons for the CPU, time saved" sh -c "
    grep -q '^dgesv ' $W/sum.txt && grep -q '^lapack_numpy.py:[0-9]* in <module> ' $W/sum.txt &&
    grep -q 'estimated time saved against the CPU' $W/sum.txt && grep -q 'INFO = ' $W/sum.txt"
$REP --json $W/py.log $W/native.log >$W/two.json
check "report: two logs (one per rank) make one report" q $W/two.json $W/py.log $W/native.log <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
n = sum(1 for p in sys.argv[2:] for l in open(p) if '"routine"' in l)
sys.exit(not (len(r["processes"]) == 2 and r["totals"]["calls"] == n))
PY

# --html: a self-contained page that a real browser renders: every call on the timeline, the sites charted.
$REP --html $W/page.html $W/sum.log >/dev/null
check "html: self-contained (no external resource)" sh -c "! grep -qE '(src|href)=\"(https?:)?//' $W/page.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$W/page.html" >$W/dom.html 2>/dev/null
calls=$(count $W/sum.log) sites=$($PY -c "import json; print(min(30, len(json.load(open('$W/sum.json'))['sites'])))")
check "html: chromium renders the timeline ($calls calls) and the call sites ($sites)" \
    grep -q "id=\"status\">rendered $calls calls and $sites call sites<" $W/dom.html
check "html: calls in both lanes, bars by call site, the routine table" sh -c "
    grep -q 'class=\"call gpu\"' $W/dom.html && grep -q 'class=\"call cpu\"' $W/dom.html &&
    grep -q 'class=\"bar ' $W/dom.html && grep -q 'id=\"routines-table\"' $W/dom.html"

# Bad files: which file, which line, what is wrong; exit status 1.
bad() { $REP "$1" >/dev/null 2>$W/bad.err; [ $? = 1 ] && [ "$(cat $W/bad.err)" = "gpushim-report: $2" ]; }
check "report: an unreadable file is named" bad $W/none.log "$W/none.log: cannot read: No such file or directory"
echo '{"name": "not a log"}' >$W/foreign.log
check "report: a foreign file is named as such" \
    bad $W/foreign.log "$W/foreign.log:1: not a gpushim log (no header record with \"gpushim_log\")"
printf 'col1,col2\n1,2\n' >$W/csv.log
check "report: a file that is not JSON" \
    bad $W/csv.log "$W/csv.log:1: not a gpushim log (its first line is not a JSON header record)"
head -n 3 $W/sum.log >$W/cut.log && head -n 4 $W/sum.log | tail -n 1 | head -c 40 >>$W/cut.log
check "report: a truncated file, at its last line" \
    bad $W/cut.log "$W/cut.log:4: truncated: the last record is incomplete (the file was cut short)"
{ head -n 2 $W/sum.log && echo 'garbage' && tail -n 1 $W/sum.log; } >$W/garbage.log
check "report: a bad line in the middle" sh -c "bad() { $REP \"\$1\" >/dev/null 2>$W/bad.err; [ \$? = 1 ]; }
    bad $W/garbage.log && grep -q '^gpushim-report: $W/garbage.log:3: not a JSON record' $W/bad.err"
sed '1s/"gpushim_log":2/"gpushim_log":9/' $W/sum.log >$W/future.log
check "report: a newer format is refused, by number" \
    sh -c "$REP $W/future.log 2>&1 >/dev/null | grep -q 'future.log:1: log format 9, which this gpushim-report'"
finish

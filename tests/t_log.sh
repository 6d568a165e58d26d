# The offload log as gpushim(7) documents it (format 3: the header with the policy in effect, the GPU events,
# call sites), its survival of kill -9, and gpushim-report: tables, --json, --html rendered by a real
# headless browser (Debian's chromium), clear errors on bad files, and agreement with the exit summary.
. "$(dirname "$0")/lib.sh"
PYV=$ROOT/build/venv-np2/bin/python
REP="$PY $ROOT/scripts/gpushim-report"
q() { $PY - "$@"; } # a Python check on files: exits 0 when it holds

# The header: format, versions, the process and every routine's rule; then the GPU's events.
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/py.log CUDA_VISIBLE_DEVICES=5 PMI_LOCAL_RANK=3 $PYV tests/py/sites.py >$W/lines
check "header: format 3, library version, host, pid, local rank, GPUs visible, offload, sites and a rule for every \
routine of the table" q \
    $W/py.log "$(grep -c '^GS_ROUTINE(' src/core/routines.def)" <<'PY'
import json, sys
h = json.loads(open(sys.argv[1]).readline())
sys.exit(not (h["gpushim_log"] == 3 and h["version"] and h["host"] and h["pid"] > 0 and h["offload"] == "always"
              and h["local_rank"] == "3" and h["cuda_visible_devices"] == "5"
              and h["sites"] == "python" and len(h["rules"]) == int(sys.argv[2])
              and h["rules"]["dgemm"][0] > 0 and all(len(r) == 6 for r in h["rules"].values())))
PY
up='"event":"gpu","what":"CUDA device, device 0, PCI 0000:06:00.0, [0-9]* MiB, CUDA runtime 13.0, driver CUDA 13.0;'
check "the GPU coming up is an event naming the device, its PCI address and the CUDA versions" grep -q \
    "$up up in [0-9]* ms\",\"pci\":\"0000:06:00.0\"}" $W/py.log
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
# Each thread's records go through its own buffer: they stay in the order of its calls.
check "8 threads logging at once: each thread's records in the order of its calls" $PY -c '
import json, sys
last = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "routine" in r:
        assert r["t"] >= last.get(r["tid"], 0), r
        last[r["tid"]] = r["t"]
assert len(last) == 8, last' $W/c.log

# Runs of like calls (tests/progs/runs.c, one size a phase): a run is the first call's record and one with
# "calls" for the rest; unlike neighbours and changing sizes get a record each; a thread's run is written at
# its exit; a forked child writes none of its parent's, and a record for each of its own calls (it may end
# with _exit); GPUSHIM_LOG_EACH=1 writes a record per call.
shim GPUSHIM_LOG=$W/runs.log $T/runs
shim GPUSHIM_LOG=$W/each.log GPUSHIM_LOG_EACH=1 $T/runs
for f in runs each; do
    for n in 64 65 32 33 70 80 90; do
        echo "$f $n $($PY tests/logq.py records $W/$f.log -- n=$n) $(count $W/$f.log -- n=$n)"
    done
done >$W/runs.txt
check "runs: 100 like copies are 2 records, the second with calls 99 and the run's site" sh -c "
    grep -qx 'runs 64 3 101' $W/runs.txt &&
    [ \$($PY tests/logq.py records $W/runs.log -- n=64 calls=99 site=runs:copies) = 1 ]"
check "runs: unlike neighbours (dcopy, scopy) and changing sizes get a record each" sh -c "
    grep -qx 'runs 65 20 20' $W/runs.txt && grep -qx 'runs 32 15 15' $W/runs.txt && grep -qx 'runs 33 15 15' $W/runs.txt"
check "runs: each of 4 threads that exit has its 2 records" grep -qx 'runs 70 8 100' $W/runs.txt
check "runs: a forked child writes none of its parent's run, and a record for each of its calls" sh -c "
    grep -qx 'runs 80 2 50' $W/runs.txt && grep -qx 'runs 90 3 3' $W/runs.txt"
check "runs: the calls of the records add up to the exit record's, and the child's 3 (it has none)" \
    test "$(count $W/runs.log)" = "$(($(grep '"exit"' $W/runs.log | sed 's/.*"calls_cpu":\([0-9]*\).*/\1/') + 3))"
check "GPUSHIM_LOG_EACH=1: a record per call" sh -c "
    grep -qx 'each 64 101 101' $W/runs.txt && grep -qx 'each 70 100 100' $W/runs.txt && ! grep -q '\"calls\"' $W/each.log"

# The cost model's predictions: each call it weighed has both sides' seconds, from the policy's rates (here
# cpu_gflops=10 on any number of threads, gpu_gflops=100, link_gbps=1, latency_us=100, no setup, no history),
# and the report sets them against the measured times.
printf '%s\n' 'dgemm min_flops=0 cpu_gflops=10 threads=0 cpu_gbps=0 gpu_gflops=100 link_gbps=1 latency_us=100' \
    'dgemm setup_us=0 history=0' >$W/model.policy
shim GPUSHIM_POLICY=$W/model.policy GPUSHIM_LOG=$W/model.log $PYV -c '
import numpy as np
a = np.ones((300, 300))
for _ in range(5):
    a @ a' >/dev/null
model_ok() {
    $PY - $W/model.log <<'PYEOF'
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("routine") == "dgemm"]
ok = len(recs) == 5
for r in recs:
    f, c, g = r["flops"], r.get("predicted_cpu_s", -1), r.get("predicted_gpu_s", -1)
    ok = ok and abs(c - f / 1e10) <= 1e-3 * c and g >= 1e-4 + f / 1e11 and g >= 1e-4 + 300 * 300 * 8 / 1e9
sys.exit(0 if ok else 1)
PYEOF
}
check "model: every dgemm weighed has the predicted seconds of both sides, from the policy's rates" model_ok
check "model: the report counts the 5 predicted calls against their measured times" \
    sh -c "$REP $W/model.log | grep -q '^the cost model predicted 5 calls: '"

# serial=1: copies and computation add up; and an operand both read and written that the cache holds is not
# copied in (its copy back is): dtrmm's B, used again in place, costs latency + flops / rate + B / link once
# A and B are resident.
printf '%s\n' 'dtrmm min_flops=0 cpu_gflops=10 threads=0 cpu_gbps=0 gpu_gflops=100 link_gbps=1 registered_gbps=1' \
    'dtrmm register_gbps=0 check_gbps=0 latency_us=100 setup_us=0 bringup_us=0 first_us=0 serial=1 history=0' \
    >$W/serial.policy
shim GPUSHIM_OFFLOAD=always GPUSHIM_POLICY=$W/serial.policy GPUSHIM_LOG=$W/serial.log $PYV -c '
import numpy as np
from scipy.linalg.blas import dtrmm
a, b = np.asfortranarray(np.triu(np.ones((512, 512)))), np.asfortranarray(np.ones((512, 512)))
for _ in range(4):
    dtrmm(1.0, a, b, overwrite_b=1)' >/dev/null
serial_ok() {
    $PY - $W/serial.log <<'PYEOF'
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r.get("routine") == "dtrmm"]
held = [r for r in recs if r["bytes_h2d"] == 0 and r["cache_hits"] == 2]
want = [1e-4 + r["flops"] / 1e11 + r["bytes_d2h"] / 1e9 for r in held]
sys.exit(0 if len(recs) == 4 and held and all(abs(r["predicted_gpu_s"] / w - 1) < 1e-3 for r, w in zip(held, want))
         else 1)
PYEOF
}
check "model: serial=1 adds copies and computation; a resident operand read and written is not copied in" serial_ok

# A batched FFT that runs in parts (backend/cuda_fft.c), 1030 transforms of 4096 in 4: once its output is
# registered (from its second use; the input, new data at every execute, counts as staged), 3 parts' worth of
# the output's copy back runs beside the input's uploads and is not counted: latency + 1.25 B / 1 GB/s, B the
# bytes each way, against latency + 2 B / 1 GB/s before.
printf '%s\n' 'fftw* min_flops=0 cpu_gflops=10 threads=0 cpu_gbps=0 gpu_gflops=1e9 link_gbps=1 registered_gbps=1' \
    'fftw* register_gbps=0 check_gbps=0 latency_us=100 setup_us=0 bringup_us=0 first_us=0 history=0' >$W/pipe.policy
shim GPUSHIM_OFFLOAD=always GPUSHIM_POLICY=$W/pipe.policy GPUSHIM_LOG=$W/pipe.log PYTHONPATH=$ROOT/scripts/python \
    $PYV -c '
import gpushim, numpy as np
x = np.ones((1030, 4096), complex)
y = np.empty_like(x)
for _ in range(4):
    np.fft.fft(x, out=y)' >/dev/null
pipe_ok() {
    $PY - $W/pipe.log <<'PYEOF'
import json, sys
got = [r["predicted_gpu_s"] for r in map(json.loads, open(sys.argv[1])) if r.get("routine") == "fftw_execute_dft"]
b = 1030 * 4096 * 16
want = [1e-4 + f * b / 1e9 for f in (2, 2, 1.25, 1.25)]
sys.exit(0 if len(got) == 4 and all(abs(g / w - 1) < 1e-3 for g, w in zip(got, want)) else 1)
PYEOF
}
check "model: a batched FFT run in parts does not count its registered output's copy beside the uploads" pipe_ok

# history=3: the model's seconds are the rates' times the median measured / predicted of the last calls of the
# same kind, the first of each kind on each side not counted, and a factor above 1 only once 3 calls measured
# it.  The CPU's rate here is far above what it is (5 TFLOP/s), so the first four products stay on the CPU (cpu
# faster, predicted at flops / 5e12); the fifth is predicted at the median of what the second to the fourth took
# (each at most 16 times the rates' seconds) and goes to the GPU.  With history=0 all five stay on the CPU, at
# the rates' seconds.
printf '%s\n' 'dgemm min_flops=0 cpu_gflops=5000 threads=0 cpu_us=0 cpu_gbps=0 gpu_gflops=1e5 link_gbps=1e3' \
    'dgemm registered_gbps=1e3 register_gbps=0 check_gbps=0 latency_us=50 setup_us=0 bringup_us=0 first_us=0' \
    >$W/hist.policy
for h in 3 0; do
    { cat $W/hist.policy; echo "dgemm history=$h"; } >$W/hist$h.policy
    shim GPUSHIM_WARMUP=off GPUSHIM_POLICY=$W/hist$h.policy GPUSHIM_LOG=$W/hist$h.log $PYV -c '
import numpy as np
a = np.ones((300, 300))
for _ in range(5):
    a @ a' >/dev/null
done
history_ok() {
    $PY - $W/hist3.log $W/hist0.log <<'PYEOF'
import json, sys
on, off = ([r for r in map(json.loads, open(p)) if r.get("routine") == "dgemm"] for p in sys.argv[1:])
rate = lambda r: r["flops"] / 5e12
at_rate = lambda r: r["where"] == "cpu" and r["why"] == "cpu faster" and abs(r["predicted_cpu_s"] / rate(r) - 1) < 1e-3
took = sorted(min(r["seconds"], 16 * rate(r)) for r in on[1:4])[1]
ok = (len(on) == len(off) == 5 and all(at_rate(r) for r in on[:4]) and on[4]["where"] == "gpu" and
      0.5 * took <= on[4]["predicted_cpu_s"] <= 1.01 * took and all(at_rate(r) for r in off))
sys.exit(0 if ok else 1)
PYEOF
}
check "model: history=3 predicts from the last calls of its kind (the first not counted, above 1 after 3)" \
    history_ok

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
n = sum(json.loads(l).get("calls", 1) for p in sys.argv[2:] for l in open(p) if '"routine"' in l)
sys.exit(not (len(r["processes"]) == 2 and r["totals"]["calls"] == n))
PY

# --html: a self-contained page that a real browser renders: every call on the timeline, the sites charted.
$REP --html $W/page.html $W/sum.log >/dev/null 2>$W/page.err
check "html: --html names the page it wrote, on stderr" \
    test "$(cat $W/page.err)" = "gpushim-report: wrote the HTML page to $W/page.html"
$REP --json --html $W/page2.html $W/sum.log >$W/page2.json 2>$W/page2.err
check "html: with --json too, stdout is the JSON report alone and stderr names the page" sh -c "
    $PY -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))[\"totals\"][\"calls\"] != $(count $W/sum.log))' \
        $W/page2.json && test -s $W/page2.html &&
    test \"\$(cat $W/page2.err)\" = 'gpushim-report: wrote the HTML page to $W/page2.html'"
check "html: self-contained (no external resource)" sh -c "! grep -qE '(src|href)=\"(https?:)?//' $W/page.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$W/page.html" >$W/dom.html 2>/dev/null
calls=$(count $W/sum.log) sites=$($PY -c "import json; print(min(30, len(json.load(open('$W/sum.json'))['sites'])))")
check "html: chromium renders the timeline ($calls calls) and the call sites ($sites)" \
    grep -q "id=\"status\">rendered $calls calls and $sites call sites<" $W/dom.html
check "html: calls in both lanes, bars by call site, the routine table" sh -c "
    grep -q 'class=\"call gpu\"' $W/dom.html && grep -q 'class=\"call cpu\"' $W/dom.html &&
    grep -q 'class=\"bar ' $W/dom.html && grep -q 'id=\"routines-table\"' $W/dom.html"

# The page's first section, above the timeline: the share of time and calls on the GPU, why the GPU was off,
# and the commonest reasons calls stayed on the CPU, read from the DOM chromium rendered (domq.py).
cat >$W/domq.py <<'PY'
"""The first section of a page as chromium rendered it (--dump-dom)."""
import html, re

def text(s):
    return html.unescape(re.sub(r"<[^>]*>", "", s))

def overview(path):
    """The section, when it ends before the timeline starts: its share line, its rows of reasons as
    (reason, calls, seconds) and its notices of a GPU that was off."""
    dom = open(path).read()
    start, end, timeline = dom.find('<section id="overview">'), dom.find("</section>"), dom.find('id="timeline"')
    sec = dom[start:end] if 0 <= start < end < timeline else ""
    share = re.search(r'<p id="gpu-share">(.*?)</p>', sec)
    rows = re.findall(r'<tr class="(?:reason|other)"><td class="text">(.*?)</td><td>(\d+)</td><td>([\d.]+)</td>', sec)
    return {"dom": dom, "section": sec, "share": text(share[1]) if share else "",
            "rows": [(text(m[0]), int(m[1]), float(m[2])) for m in rows],
            "gpu_off": [text(m) for m in re.findall(r'<p class="gpu-off">(.*?)</p>', sec)]}

def near(a, b):
    return abs(a - b) < 0.0015

def percent(s, x):
    """Whether the page's percentage s ("64", "<1", ">99") is the fraction x."""
    return 0 < x < 0.005 if s == "<1" else 0.995 <= x < 1 if s == ">99" else abs(int(s) - 100 * x) <= 0.5
PY
domq() { PYTHONPATH=$W $PY - "$@"; }
check "html: above the timeline, the GPU's share of time and calls, the reasons for the CPU with counts and seconds" \
    domq $W/dom.html $W/sum.json <<'PY'
import json, re, sys
from domq import overview, near, percent
o, t = overview(sys.argv[1]), json.load(open(sys.argv[2]))["totals"]
m = re.match(r"(<1|>99|\d+)% of the time in calls was on the GPU: ([\d.]+) s of ([\d.]+) s\. (\d+) of the (\d+) "
             r"calls \((<1|>99|\d+)%\) ran on the GPU", o["share"])
secs = t["cpu_reason_seconds"]
# most calls first, the routines without a GPU path last
order = lambda kv: (kv[0] == "cpu only", -kv[1], -secs[kv[0]])
want = [(k, n, secs[k]) for k, n in sorted(t["cpu_reasons"].items(), key=order)]
if len(want) > 6:
    want = want[:5] + [(f"{len(want) - 5} other reasons", sum(w[1] for w in want[5:]), sum(w[2] for w in want[5:]))]
sys.exit(not (m and near(float(m[2]), t["gpu_seconds"]) and near(float(m[3]), t["seconds"]) and
              percent(m[1], t["gpu_seconds"] / t["seconds"]) and percent(m[6], t["gpu_share"]) and
              (int(m[4]), int(m[5])) == (t["gpu_calls"], t["calls"]) and len(want) >= 2 and
              [r[:2] for r in o["rows"]] == [w[:2] for w in want] and
              all(near(r[2], w[2]) for r, w in zip(o["rows"], want))))
PY
$REP --html $W/nogpu.html $W/nogpu.log >/dev/null 2>&1
timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$W/nogpu.html" >$W/nogpu.dom 2>/dev/null
check "html: no GPU: the first section says so, with the gpu_off event's reason, and the calls' reasons" \
    domq $W/nogpu.dom $W/nogpu.log <<'PY'
import json, sys
from domq import overview
o = overview(sys.argv[1])
why = next(r["what"] for r in map(json.loads, open(sys.argv[2])) if r.get("event") == "gpu_off")
sys.exit(not (len(o["gpu_off"]) == 1 and o["gpu_off"][0].startswith("The GPU was off in pid ") and
              f": {why}. From then on, every call of that process ran on the CPU." in o["gpu_off"][0] and
              o["share"].startswith("0% of the time in calls was on the GPU") and o["rows"][0][0] == why))
PY
# Logs written here: two processes, the second without a GPU, and reasons with parentheses, commas, markup and
# the page's own placeholder, more of them than the tables show; then a log whose every call ran on the GPU.
$PY - $W/why.log $W/allgpu.log <<'PY'
import json, sys
def log(path, procs):
    with open(path, "w") as f:
        for pid, off, calls in procs:
            f.write(json.dumps({"gpushim_log": 2, "version": "0.1.0", "pid": pid, "host": "node1", "rank": "",
                                "job": "", "offload": "auto", "sites": "python", "rules": {}}) + "\n")
            if off:
                f.write(json.dumps({"t": 0.0, "event": "gpu_off", "what": off}) + "\n")
            t = 0.001
            for routine, where, why, seconds, n in calls:
                for _ in range(n):
                    f.write(json.dumps({"t": t, "routine": routine, "flops": 1e9, "where": where, "why": why,
                                        "seconds": seconds, "site": "fit.py:12 in step"}) + "\n")
                    t += seconds + 0.001
            f.write(json.dumps({"exit": t}) + "\n")
nogpu = "no usable GPU (cannot load /x/libcudart.so.13)"
log(sys.argv[1], [(4242, None, [("dgemm", "cpu", "below threshold", 0.001, 12),
                                ("dgemm", "cpu", "cpu faster", 0.020, 1),
                                ("dgemm", "cpu", "<b>odd</b> & %DATA% </script>", 0.0035, 1),
                                ("dgemm", "cpu", "gpu: needs 8000 bytes of device memory, 4096 available", 0.004, 1),
                                ("dgemm", "gpu", "above threshold", 0.010, 2),
                                ("dgesv", "cpu", "INFO = 2 on the GPU: the CPU library gives LAPACK's outputs",
                                 0.003, 1),
                                ("dgesv", "cpu", "trivial", 0.0, 1)]),
                  (4243, nogpu, [("dgemm", "cpu", nogpu, 0.050, 2)])])
log(sys.argv[2], [(4244, None, [("dgemm", "gpu", "above threshold", 0.010, 3)])])
PY
$REP --top 100 $W/why.log >$W/why.txt
check "report: the why column lists a routine's reasons one a line under the column, count first, the rest summed" \
    q $W/why.txt <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
col = next(l for l in lines if l.startswith("routine ")).index("why calls stayed on the CPU")
i = next(i for i, l in enumerate(lines) if l.startswith("dgemm "))
want = ["12  below threshold", " 2  no usable GPU (cannot load /x/libcudart.so.13)", " 1  cpu faster",
        " 2  (2 other reasons)", "1  INFO = 2 on the GPU: the CPU library gives LAPACK's outputs", "1  trivial"]
sys.exit(not ([l[col:] for l in lines[i:i + 6]] == want and lines[i + 4].startswith("dgesv ") and
              all(l[:col].strip() == "" for l in lines[i + 1:i + 4] + lines[i + 5:i + 6])))
PY
$REP --json $W/why.log >$W/why.json
check "report: --json keeps cpu_reasons as {reason: calls} and adds cpu_reason_seconds" q $W/why.json <<'PY'
import json, sys
r = next(r for r in json.load(open(sys.argv[1]))["routines"] if r["routine"] == "dgemm")
sys.exit(not (list(r["cpu_reasons"].items())[:2] == [("below threshold", 12), ("no usable GPU (cannot load "
              "/x/libcudart.so.13)", 2)] and list(r["cpu_reason_seconds"]) == list(r["cpu_reasons"]) and
              abs(r["cpu_reason_seconds"]["below threshold"] - 0.012) < 1e-9))
PY
for f in why allgpu; do
    $REP --html $W/$f.html $W/$f.log >/dev/null 2>&1
    timeout 120 chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$W/$f.html" >$W/$f.dom 2>/dev/null
done
check "html: the run's five commonest reasons, the rest in one row, the process without a GPU; log text escaped" \
    domq $W/why.dom <<'PY'
import re, sys
from domq import overview, near
o = overview(sys.argv[1])
want = [("below threshold", 12, 0.012), ("no usable GPU (cannot load /x/libcudart.so.13)", 2, 0.1),
        ("cpu faster", 1, 0.02), ("gpu: needs 8000 bytes of device memory, 4096 available", 1, 0.004),
        ("<b>odd</b> & %DATA% </script>", 1, 0.0035), ("2 other reasons", 2, 0.003)]
outside_data = re.sub(r"<script.*?</script>", "", o["dom"], flags=re.S)
sys.exit(not (len(o["rows"]) == 6 and all(r[:2] == w[:2] and near(r[2], w[2]) for r, w in zip(o["rows"], want))
              and "<b>" not in outside_data and "rendered 21 calls" in o["dom"] and len(o["gpu_off"]) == 1 and
              o["gpu_off"][0].startswith("The GPU was off in pid 4243 on node1: no usable GPU (cannot load "
                                         "/x/libcudart.so.13). From then on")))
PY
check "html: the routine table lists each routine's reasons one a line, count first" domq $W/why.dom <<'PY'
import re, sys
from domq import text
row = re.search(r"<tr><td>dgemm</td>.*?</tr>", open(sys.argv[1]).read())
lines = [(text(m[0]), text(m[1])) for m in re.findall(r"<div><span>(.*?)</span>(.*?)</div>", row[0] if row else "")]
sys.exit(lines != [("12", "below threshold"), ("2", "no usable GPU (cannot load /x/libcudart.so.13)"),
                   ("1", "cpu faster"), ("1", "<b>odd</b> & %DATA% </script>"),
                   ("1", "gpu: needs 8000 bytes of device memory, 4096 available")])
PY
check "html: every call on the GPU: the first section says so, with no table of reasons" domq $W/allgpu.dom <<'PY'
import sys
from domq import overview
o = overview(sys.argv[1])
sys.exit(not (o["share"].startswith("100% of the time in calls was on the GPU") and not o["rows"] and
              '<p id="cpu-none">Every call ran on the GPU: none stayed on the CPU.</p>' in o["section"] and
              'id="reasons-table"' not in o["dom"]))
PY

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
sed '1s/"gpushim_log":3/"gpushim_log":9/' $W/sum.log >$W/future.log
check "report: a newer format is refused, by number" \
    sh -c "$REP $W/future.log 2>&1 >/dev/null | grep -q 'future.log:1: log format 9, which this gpushim-report'"
finish

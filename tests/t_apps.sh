# The corpus of real programs (bench/apps, issue 47) at its small sizes against the stand-in, results only: every
# program runs, CPU-only and under the shim, with every eligible call forced onto the GPU path and by the
# default policy, and agrees with the CPU-only run within its tolerance (bench/apps/run.py --check).  Its times
# mean nothing here; on the H200, `make bench-apps` measures them.
. "$(dirname "$0")/lib.sh"
PY=$ROOT/build/venv-np2/bin/python
apps() {
    name=$1
    shift
    $PY bench/apps/run.py --size small --rounds 1 --check --results $W/$name --env GPUSHIM_CUDA_LIBDIR=$SI \
        --env GS_STANDIN_REPORT=$REPORT "$@" >$W/$name.out 2>$W/$name.err
}
n=$($PY bench/apps/run.py --list | wc -l)
standin_reset
apps forced --env GPUSHIM_OFFLOAD=always
rc=$?
check "forced onto the GPU path: all $n programs ran and agree with the CPU ($(grep -m 1 'not run' $W/forced.err))" \
    test $rc = 0 -a "$(grep -c '| agree |' $W/forced.out)" = "$n"
check "forced: calls on the GPU in every program" \
    test "$(grep -c '| [1-9][0-9]* of [0-9]* |' $W/forced.out)" = "$n"
check "forced: the stand-in saw no bad pointer" test "$(standin violations)" = 0
check "forced: each program's logged run left its offload log, with its calls, beside the table" \
    test "$(grep -l '"routine"' $W/forced/apps-small-logs/*.log | wc -l)" = "$n"
apps default
rc=$?
check "by the default policy: all $n programs ran and agree with the CPU ($(grep -m 1 'not run' $W/default.err))" \
    test $rc = 0 -a "$(grep -c '| agree |' $W/default.out)" = "$n"

# The comparison can fail: a result changed by more than the tolerance, or missing, is named.
$PY - $W <<'PY' >$W/differ.out
import sys
import numpy as np
sys.path.insert(0, "bench/apps")
from run import differ
a = {"x": np.array([1.0, 2.0]), "y": np.array([3.0])}
for res in ({"x": np.array([1.0, 2.0 + 1e-9]), "y": np.array([3.0])},
            {"x": np.array([1.0, 2.0 + 1e-6]), "y": np.array([3.0])}, {"x": a["x"]}):
    print({k: f"{d:.0e}" for k, d in differ(a, res, 1e-8).items()}, end=" ")
PY
check "the comparison passes rounding, names a difference with its size and a missing result" \
    test "$(cat $W/differ.out)" = "{} {'x': '5e-07'} {'y': 'inf'} "
# Each run is compared as it ends and its record says so, so that a corpus stopped from outside keeps it; --from
# makes the table of such records again, and a record without its comparison is "not compared", never "agree".
$PY bench/apps/run.py --size small --rounds 1 --from $W/forced/apps-small.jsonl --results $W/from >$W/from.out \
    2>&1
grep '^| ' $W/forced.out >$W/forced.rows
grep '^| ' $W/from/apps-small.md >$W/from.rows
check "--from: the records of the forced runs, each compared, give the same rows" sh -c \
    "[ \$(grep -c '\"differ\": {}' $W/forced/apps-small.jsonl) = \$(grep -c . $W/forced/apps-small.jsonl) ] &&
     cmp -s $W/forced.rows $W/from.rows"
$PY - $W/forced/apps-small.jsonl >$W/edited.jsonl <<'PY'
import json, sys
for i, line in enumerate(open(sys.argv[1])):
    r = json.loads(line)
    if r["program"] == "numpy_loops" and r["side"] == "gpushim":
        r.pop("differ")
    if r["program"] == "scipy_linalg" and r["side"] == "gpushim":
        r["differ"] = {"w": 2e-5}
    print(json.dumps(r))
    if r["program"] == "sk_kmeans" and r["round"] == 1:  # a second round, as a call run with --rounds 2 gives
        print(json.dumps(dict(r, round=2)))
PY
$PY bench/apps/run.py --size small --rounds 1 --check --from $W/edited.jsonl --results $W/edited >$W/edited.out \
    2>&1
rc=$?
check "--from: a run not compared, and one that differed, are named and fail the check" sh -c \
    "[ $rc = 1 ] && grep -q '^| numpy_loops .*| 1 of 3 runs not compared |' $W/edited.out &&
     grep -q '^| scipy_linalg .*| differ: w (2.0e-05) |' $W/edited.out"
check "--from: the table's head gives the rounds of the records joined, 1 to 2 here" sh -c \
    "grep -q '^Size small, 1 round alternating' $W/from.out &&
     grep -q '^Size small, 1 to 2 rounds alternating' $W/edited.out &&
     grep -q '^| sk_kmeans .*| agree |' $W/edited.out"
# The ceiling: the CPU-only median over the part of gpushim's median outside the logged calls (10 / (5 - 2.5));
# none where the calls' seconds overlap (more of them than the logged run lasted: calls from threads at once).
$PY - >$W/ceil.jsonl <<'PY'
import json
for name, cpu, shim, log, gpu, cpus in (("sk_linear", 10, 5, 5.2, 2.0, 0.5), ("pyscf", 8, 8, 8.1, 20.0, 46.0)):
    for side, s in (("cpu", cpu), ("gpushim", shim), ("gpushim, logged", log)):
        r = {"program": name, "side": side, "round": "log" if "logged" in side else 1, "seconds": s, "differ": {}}
        if "logged" in side:
            r.update(gpu_calls=1, calls=2, call_seconds={"gpu": gpu, "cpu": cpus})
        print(json.dumps(r))
PY
$PY bench/apps/run.py --size small --from $W/ceil.jsonl --results $W/ceil >$W/ceil.out 2>&1
check "the ceiling of a program, none where its calls overlap, and the medians under the table" sh -c \
    "grep -q '^| sk_linear .*| 2.00 | 4.00 | 1 of 2 |' $W/ceil.out && grep -q '^| pyscf .*| 1.00 | - | 1 of 2 |' \
     $W/ceil.out && grep -q '^Median speed-up of the 2 programs: 1.50; median ceiling of the 1 with one: 4.00' \
     $W/ceil.out"
# A program whose prerequisite is missing is reported and fails the check, not skipped.
PATH=/nonexistent $PY bench/apps/run.py --size small --rounds 1 --check --only octave --results $W/none \
    >/dev/null 2>$W/none.err
rc=$?
check "a program that cannot run is named and fails the check" \
    test $rc = 1 -a "$(grep -c 'apps: octave: missing the command octave-cli' $W/none.err)" = 1
# --layer runs the Python programs as `python -m gpushim` does: scipy.signal's transforms (pocketfft) reach the
# GPU only through the layer.
for l in symbols layer; do
    $PY bench/apps/run.py --size small --rounds 1 --only scipy_signal $([ $l = layer ] && echo --layer) \
        --results $W/$l --env GPUSHIM_CUDA_LIBDIR=$SI --env GPUSHIM_OFFLOAD=always >$W/$l.out 2>$W/$l.err
done
gpu_calls() { awk -F'|' '/^\| scipy_signal/ {split($7, c, " "); print c[1] + 0}' $W/$1.out; }
check "--layer: scipy.signal agrees, and more of its calls reach the GPU ($(gpu_calls symbols) without, \
$(gpu_calls layer) with)" sh -c "grep -q '| agree |' $W/layer.out && [ $(gpu_calls layer) -gt $(gpu_calls symbols) ]"
# A program that runs past --timeout is stopped, named, and not run again.
$PY bench/apps/run.py --size small --rounds 2 --check --only numpy_loops --timeout 0.01 --results $W/slow \
    >/dev/null 2>$W/slow.err
rc=$?
check "a program past --timeout is stopped once and fails the check" \
    test $rc = 1 -a "$(grep -c 'stopped after --timeout 0.01 s' $W/slow.err)" = 1
$PY bench/apps/run.py --only nosuch >/dev/null 2>$W/unknown.err
check "an unknown program is named" grep -q 'no program nosuch (--list lists them)' $W/unknown.err
finish

#!/bin/sh
# numpy.fft and scipy.fft side by side in one run (bench/pyfft.py, issue 49): numpy.fft, scipy.fft on every CPU,
# the same two through gpushim's Python layer (libgpushim.so preloaded, `import gpushim` first), and CuPy with
# copies.  Writes $RESULTS/pyfft.jsonl (every side's lines) and pyfft.md (the table), and prints the table.
# usage: bench/pyfft.sh [CASE...]   SIDES (default "numpy scipy numpy+layer scipy+layer cupy"); REPEAT and STEPS
#   as bench/pyfft.py takes them; NUMPY_STEPS (default 10): the loop's steps on numpy.fft alone, whose 100 steps
#   take minutes (the table gives every loop per 100 steps); bench/pyfft.sh --table: the table alone.
. "$(dirname "$0")/lib.sh"
J=$R/pyfft.jsonl
if [ "${1:-}" != --table ]; then
    : >"$J"
    for s in ${SIDES:-numpy scipy numpy+layer scipy+layer cupy}; do
        case $s in
        numpy) STEPS=${NUMPY_STEPS:-10} $PY bench/pyfft.py numpy "$@" >>"$J" ;;
        scipy | cupy) $PY bench/pyfft.py $s "$@" >>"$J" ;;
        *+layer) env LD_PRELOAD="$LIB" PYTHONPATH=scripts/python $PY bench/pyfft.py ${s%+layer} --layer "$@" \
            >>"$J" ;;
        *) echo "bench/pyfft.sh: SIDES: unknown side '$s'" >&2; exit 2 ;;
        esac
    done
fi
$PY - "$J" <<'PY' | tee "$R/pyfft.md"
import json, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
sides = list(dict.fromkeys(r["side"] for r in runs))
cases = list(dict.fromkeys(r["case"] for r in runs))
t = {(r["case"], r["side"]): r for r in runs}
print("numpy.fft and scipy.fft from NumPy arrays, ms, best of the timed calls (the loop: per 100 steps); "
      "+layer: through gpushim's Python layer; in brackets, where a checksum differs from the first side's by more "
      "than 1e-9 of it (the loop: the first's of as many steps)")
print()
print("| case | " + " | ".join(sides) + " |")
print("| --- |" + " --- |" * len(sides))
for c in cases:
    cells = []
    for s in sides:
        r = t.get((c, s))
        if r is None:
            cells.append("-")
            continue
        ms = r["seconds"] * 1e3 * (100 / r["steps"] if r["steps"] else 1)
        ref = next(t[c, x]["checksum"] for x in sides if (c, x) in t and t[c, x]["steps"] == r["steps"])
        off = abs(r["checksum"] - ref) > 1e-9 * abs(ref)
        cells.append(f"{ms:.4g}" + (f" (checksum {r['checksum']:.12g})" if off else ""))
    print(f"| {c} | " + " | ".join(cells) + " |")
PY

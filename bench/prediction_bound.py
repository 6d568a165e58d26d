"""How well any cost model fixed before a run could predict it: from two runs of bench/policy.sh (their RESULTS
folders), the share of the second run's calls within 30% of the time that best fits the first run's calls of
the same kind.  A kind: the part, routine, sizes, options, side, bytes copied each way, operands found on the
device, and whether it was the first of its shape in its log.  A model with one number for each kind, fitted
exactly to the first run, does no better on the second; the first run predicted by itself is the bound for a
model that knew each run's own times.  Only calls the model predicted (the side they ran on) count.

usage: python bench/prediction_bound.py FIT_RESULTS TEST_RESULTS
"""
import collections
import glob
import json
import sys

TOL = 0.3


def kinds(results):
    """{(part, kind...): [seconds]} over every gpushim log under RESULTS/policy/PART/."""
    out = collections.defaultdict(list)
    for path in sorted(glob.glob(results + "/policy/*/*.log")):
        part, seen = path.split("/")[-2], set()
        for line in open(path):
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "routine" not in r:
                continue
            shape = (part, r["routine"], r.get("m"), r.get("n"), r.get("k"), r.get("opts"), r.get("dims"), r["where"])
            first = shape not in seen
            seen.add(shape)
            predicted = r.get("predicted_gpu_s" if r["where"] == "gpu" else "predicted_cpu_s")
            if predicted and r.get("seconds"):
                out[shape + (r["bytes_h2d"], r["bytes_d2h"], r["cache_hits"], first)].append(r["seconds"])
    return out


def within(xs, t):
    return sum(abs(x / t - 1) <= TOL for x in xs)


def best(xs):
    """The time that puts most of xs within TOL (one of them, or one at either end of a window)."""
    return max([x for x in xs] + [x / (1 - TOL) for x in xs] + [x / (1 + TOL) for x in xs], key=lambda t: within(xs, t))


def main(fit_dir, test_dir):
    fit, test = kinds(fit_dir), kinds(test_dir)
    parts = collections.defaultdict(lambda: [0, 0, 0])  # part -> calls, within (fitted on FIT), within (own)
    unmatched = 0
    for kind, xs in test.items():
        if kind not in fit:
            unmatched += len(xs)
            continue
        p = parts[kind[0]]
        p[0] += len(xs)
        p[1] += within(xs, best(fit[kind]))
        p[2] += within(xs, best(xs))
    n, a, b = (sum(p[i] for p in parts.values()) for i in range(3))
    print("%d calls of %s of kinds also in %s (%d more not): fitted on %s %d within 30%% (%.0f%%); "
          "fitted on themselves %d (%.0f%%)" % (n, test_dir, fit_dir, unmatched, fit_dir, a, 100 * a / max(n, 1),
                                                b, 100 * b / max(n, 1)))
    for part, (n, a, b) in sorted(parts.items()):
        print("  %-7s %5d calls  %3.0f%%  own %3.0f%%" % (part, n, 100 * a / n, 100 * b / n))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip())
    main(sys.argv[1], sys.argv[2])

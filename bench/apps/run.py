"""The corpus of real programs (issue 47): each program of bench/apps/ uses a real project as its users do, and
runs whole, CPU-only and under gpushim, alternately (the order flips every round, so that drift falls on both),
ROUNDS rounds.  For each: the whole process's wall time (median, least and most), whether the results of every
run agree with the first CPU-only run's within rounding, the calls on the GPU, and the seconds the offload log
accounts for on each side, from one more run under gpushim with the log on (the timed runs go without it, as a
user runs a program: the log costs microseconds a call, which a program of many small calls shows).  Its
ceiling is the speed-up the program would have if every logged call took no time (the CPU-only median over what
is left of gpushim's median): the time in code no interposed symbol reaches bounds what gpushim can do for it.
Writes RESULTS/apps-SIZE.md (the table, and the medians of the speed-ups and ceilings), RESULTS/apps-SIZE.jsonl
(every run), RESULTS/apps-SIZE-logs/NAME.log (the logged run's offload log: why each call went where it did)
and, where matplotlib is installed, RESULTS/apps-SIZE.png (the speed-ups).

usage: python bench/apps/run.py [--size small|medium|large] [--rounds N] [--only NAME,...] [--lib PATH]
                                [--env VAR=VALUE]... [--layer] [--parts] [--timeout S] [--results DIR] [--check]
                                [--list] [--from JSONL...]
  --size    small: seconds on 2 cores, for the tests (tests/t_apps.sh); medium: sizes where the GPU should
            not matter (nothing may get slower); large: where it should (default)
  --lib     the library to preload (default build/libgpushim.so); --env sets a variable for its runs only
            (GPUSHIM_OFFLOAD=never, GPUSHIM_CUDA_LIBDIR=... for the stand-in)
  --layer   runs the Python programs under gpushim as `python -m gpushim PROGRAM` (the package from this
            checkout): with the numpy.linalg, scipy.linalg, numpy.fft and scipy.fft layer, as the installed package
            gives it; without, LD_PRELOAD alone (the symbols)
  --parts   also runs gpushim with each of its parts turned off by its switch (PARTS below), in the same
            alternating rounds, and writes RESULTS/apps-SIZE-parts.md: what each part costs or gains a program
  --timeout a run's limit in s (default 3600): a program past it is stopped, reported, and not run again
  --check   exit status 1 unless every program ran and agreed (results only; the times mean nothing there)
  --from    runs nothing: the table and plot of the records earlier runs wrote (RESULTS/apps-SIZE.jsonl, each run
            with its comparison), several files made one table (a corpus measured a few programs at a time),
            whose head gives the rounds the records had
Each program takes SIZE and OUT, its last two arguments, and writes its results to OUT: a NumPy .npz, or
text lines "NAME VALUE..." (C, Octave, R).  A program whose prerequisite is missing is reported, not skipped.
On a machine without R or Octave (the lent GPU machines), `. bench/apps/packs.sh` first puts the packs of
`make gpu-pack-apps` on PATH.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable

# name, what it runs, command ({py}, {root}; SIZE and OUT follow), tolerance relative to each result's largest
# magnitude (iterative fits that stop on a tolerance agree less closely), what it needs: module:NAME (Python),
# cmd:NAME or file:PATH
PROGRAMS = [
    ("sk_decomposition", "scikit-learn PCA (full SVD) and TruncatedSVD (randomized)",
     ["{py}", "{root}/bench/apps/sk_decomposition.py"], 1e-8, "module:sklearn"),
    ("sk_linear", "scikit-learn Ridge, LinearRegression and LogisticRegression",
     ["{py}", "{root}/bench/apps/sk_linear.py"], 1e-6, "module:sklearn"),
    ("sk_gaussian_process", "scikit-learn GaussianProcessRegressor, fit and predict",
     ["{py}", "{root}/bench/apps/sk_gaussian_process.py"], 1e-8, "module:sklearn"),
    # (a point nearly as far from two centres may change sides with the rounding of a product: 1e-4)
    ("sk_kmeans", "scikit-learn KMeans (Lloyd)", ["{py}", "{root}/bench/apps/sk_kmeans.py"], 1e-4, "module:sklearn"),
    ("statsmodels", "statsmodels OLS and a Poisson GLM", ["{py}", "{root}/bench/apps/sm_fits.py"], 1e-6,
     "module:statsmodels"),
    ("scipy_linalg", "scipy.linalg eigh, solve and svd of a tight-binding Hamiltonian",
     ["{py}", "{root}/bench/apps/sp_linalg.py"], 1e-8, "module:scipy"),
    ("scipy_signal", "scipy.signal welch, fftconvolve and sosfiltfilt (pocketfft: only the layer reaches it)",
     ["{py}", "{root}/bench/apps/sp_signal.py"], 1e-10, "module:scipy"),
    ("scipy_optimize", "scipy.optimize.least_squares with a dense Jacobian",
     ["{py}", "{root}/bench/apps/sp_optimize.py"], 1e-6, "module:scipy"),
    ("pyscf", "PySCF: density-fitted RHF, MP2 and CCSD", ["{py}", "{root}/bench/apps/pyscf_cc.py"], 1e-7,
     "module:pyscf"),
    ("pyfftw", "pyFFTW: a spectral diffusion loop, rfftn and irfftn with FFTW_MEASURE plans",
     ["{py}", "{root}/bench/apps/pyfftw_spectral.py"], 1e-9, "module:pyfftw"),
    ("fftw_c", "a C program: the heat equation by FFTW's r2c and c2r, in place",
     ["{root}/build/bench/apps/fftw_heat"], 1e-9, "file:{root}/build/bench/apps/fftw_heat"),
    ("octave", "GNU Octave: a linear-algebra script", ["octave-cli", "-q", "{root}/bench/apps/linalg.m"], 1e-8,
     "cmd:octave-cli"),
    ("r", "R: a linear-algebra script", ["Rscript", "{root}/bench/apps/linalg.R"], 1e-8, "cmd:Rscript"),
    ("numpy_loops", "NumPy loops: k-means, gradient descent, many small products",
     ["{py}", "{root}/bench/apps/np_loops.py"], 1e-4, "module:numpy"),
]

# The parts of gpushim that --parts turns off one at a time, each by its switch (gpushim(7)): a side's name and
# the variables it runs with.
PARTS = [
    ("never", {"GPUSHIM_OFFLOAD": "never"}),          # every call on the CPU: the per-call checks and hooks remain
    ("warmup-off", {"GPUSHIM_WARMUP": "off"}),       # no background bring-up: the first call that wants it waits
    ("cache-0", {"GPUSHIM_CACHE": "0"}),              # no residency cache: no write protection, no tracking
    ("registered-0", {"GPUSHIM_REGISTERED": "0"}),    # no host registration: staging only
    ("copy-threads-1", {"GPUSHIM_COPY_THREADS": "1"}),  # no copy threads: strided copies by the CPU library
    ("fftw-serial-0", {"GPUSHIM_FFTW_SERIAL": "0"}),  # no FFTW twins: every execute on the caller's plan
    ("fftw-defer-0", {"GPUSHIM_FFTW_DEFER": "0"}),    # FFTW's plans measured as asked, whatever runs them
]


def missing(need):
    """What is missing to run a program, or None"""
    kind, what = need.format(root=ROOT).split(":", 1)
    if kind == "file":
        return None if os.path.exists(what) else f"{what} (make bench-apps builds it)"
    if kind == "cmd":
        return None if shutil.which(what) else f"the command {what}"
    probe = subprocess.run([PY, "-c", f"import {what}"], capture_output=True)
    return None if probe.returncode == 0 else f"the Python module {what}"


def load(path):
    """A program's results: name -> array"""
    if path.endswith(".npz"):
        with np.load(path) as z:
            return {k: np.asarray(z[k], dtype=float) for k in z.files}
    out = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                name, *values = line.split()
                out[name] = np.array([float(v) for v in values])
    return out


def differ(ref, res, rtol):
    """The results of res that are not ref's within rtol of each result's largest magnitude: name -> the
    difference relative to that magnitude (inf for a result missing or of another shape)"""
    bad = {k: float("inf") for k in set(ref) ^ set(res)}
    for k in set(ref) & set(res):
        x, y = ref[k], res[k]
        scale = max(1.0, float(np.nanmax(np.abs(x)))) if x.size else 1.0
        if x.shape != y.shape or not np.array_equal(np.isnan(x), np.isnan(y)):
            bad[k] = float("inf")
        elif np.nanmax(np.abs(x - y), initial=0) > rtol * scale:
            bad[k] = float(np.nanmax(np.abs(x - y))) / scale
    return bad


def calls(log):
    """Calls on the GPU and in all, and the seconds spent in calls on each side, from an offload log"""
    gpu = total = 0
    seconds = {"gpu": 0.0, "cpu": 0.0}
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                r = json.loads(line)
                if "routine" in r:
                    n = r.get("calls", 1)
                    total += n
                    gpu += n if r["where"] == "gpu" else 0
                    seconds[r["where"]] += r["seconds"]
    return gpu, total, seconds


def run_once(prog, side, args, work, i, logged=False):
    """One whole run of a program: its record; logged: with the offload log on, its calls counted"""
    name, _, cmd, rtol, _ = prog
    ext = ".npz" if cmd[0] == "{py}" else ".txt"
    out, log = os.path.join(work, f"{name}.{side}.{i}{ext}"), os.path.join(args.logs, f"{name}.log")
    argv = [a.format(py=PY, root=ROOT) for a in cmd] + [args.size, out]
    env = dict(os.environ)
    if logged and os.path.exists(log):  # (the log appends)
        os.remove(log)
    if side != "cpu":
        env.update(args.env, LD_PRELOAD=args.lib, **({"GPUSHIM_LOG": log} if logged else {}))
        if args.layer and cmd[0] == "{py}":  # as `python -m gpushim` runs it, from this checkout
            argv[1:1] = ["-m", "gpushim"]
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(ROOT, "scripts", "python"),
                                                              env.get("PYTHONPATH")]))
        env.update(dict(PARTS).get(side, {}))
    t0 = time.perf_counter()
    try:
        p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           timeout=args.timeout)
        status, err = p.returncode, (p.stderr.strip().splitlines() or ["no output"])[-1][:300]
    except subprocess.TimeoutExpired:
        status, err = None, f"stopped after --timeout {args.timeout:g} s"
    seconds = time.perf_counter() - t0
    rec = {"program": name, "side": side, "round": i, "size": args.size, "seconds": round(seconds, 3),
           "status": status, "out": out}
    if status != 0 or not os.path.exists(out):
        rec["error"] = err
    if logged:
        rec["gpu_calls"], rec["calls"], rec["call_seconds"] = calls(log)
    return rec


def run_program(prog, args, work, jl):
    """Every round of one program: its row of the table.  Each run is compared with the first CPU-only run's
    results as it ends, and its record written then, so that a corpus stopped from outside keeps what it ran."""
    name, what, _, rtol, need = prog
    lack = missing(need)
    if lack:
        print(f"apps: {name}: missing {lack}", file=sys.stderr)
        return {"program": name, "what": what, "missing": lack}
    runs, ref, sides = [], None, ["cpu", "gpushim"] + ([p[0] for p in PARTS] if args.parts else [])
    plan = [(i, side) for i in range(1, args.rounds + 1) for side in (sides if i % 2 else sides[::-1])]
    for i, side in plan + [("log", "gpushim, logged")]:
        rec = run_once(prog, side.split(",")[0], args, work, i, logged=i == "log")
        rec["side"] = side
        if "error" not in rec:
            ref = ref or (rec["out"] if side == "cpu" else None)
            if ref:
                rec["differ"] = differ(load(ref), load(rec["out"]), rtol)
        jl.write(json.dumps(rec) + "\n")
        jl.flush()
        runs.append(rec)
        print(f"apps: {name} round {i} {side}: {rec['seconds']:.2f} s"
              + (f", error: {rec['error']}" if "error" in rec else ""), file=sys.stderr)
        if rec["status"] is None:  # the next runs would take as long
            break
    return row_of(prog, runs, sides, len(plan) + 1)


def row_of(prog, runs, sides, planned):
    """A program's row of the table from its runs' records (planned: the runs there were to be).  A run that was
    not compared (its CPU-only reference failed, or a record written before run.py compared each run) makes the
    results "not compared", never "agree"."""
    ok = [r for r in runs if "error" not in r]
    bad = {}
    for r in ok:
        for k, d in r.get("differ", {}).items():
            bad[k] = max(bad.get(k, 0), d)
    row = {"program": prog[0], "what": prog[1], "failed": planned - len(ok), "differ": bad, "runs": planned,
           "unchecked": sum("differ" not in r for r in ok),
           "rounds": len({r["round"] for r in runs if isinstance(r["round"], int)})}
    for side in sides:
        t = [r["seconds"] for r in ok if r["side"] == side]
        row[side] = (statistics.median(t), min(t), max(t)) if t else None
    logged = [r for r in ok if r["side"] == "gpushim, logged" and "calls" in r]
    if logged:
        row.update({k: logged[-1][k] for k in ("gpu_calls", "calls", "call_seconds")},
                   logged_seconds=logged[-1]["seconds"])
    return row


def ceiling(r):
    """The speed-up the program would have if every call in its offload log took no time: the CPU-only median
    over the time gpushim's median spends outside the logged calls, which no symbol reaches.  None without a log,
    or where the logged calls' seconds add up to more than the logged run's (calls from several threads at once,
    whose seconds overlap)."""
    if not r.get("cpu") or not r.get("gpushim") or "call_seconds" not in r:
        return None
    inside = r["call_seconds"]["gpu"] + r["call_seconds"]["cpu"]
    outside = r["gpushim"][0] - inside
    return r["cpu"][0] / outside if inside <= r["logged_seconds"] and outside > 0 else None


def rows_from(paths, parts):
    """The rows of records that earlier runs wrote (--from), in PROGRAMS's order: the runs of several device
    calls, each of a few programs, made one table"""
    recs = [json.loads(line) for path in paths for line in open(path) if line.strip()]
    sides = ["cpu", "gpushim"] + ([p[0] for p in PARTS] if parts else [])
    return [row_of(p, runs, sides, len(runs)) for p in PROGRAMS
            if (runs := [r for r in recs if r["program"] == p[0]])]


def table(rows, args):
    """The Markdown table; its head gives the rounds the rows' runs had (records of several runs joined with --from
    may have had different --rounds)"""
    n = sorted({r["rounds"] for r in rows if r.get("rounds")}) or [args.rounds]
    rounds = f"{n[0]}" + (f" to {n[-1]}" if len(n) > 1 else "") + (" round" if n[-1] == 1 else " rounds")
    head = (f"Size {args.size}, {rounds} alternating, whole-process wall time in s: median "
            f"(least-most), without the offload log; the calls and the log's seconds from one more run with it; "
            f"gpushim: {args.lib}" + (" under python -m gpushim (the layer)" if args.layer else "") +
            "".join(f" {k}={v}" for k, v in args.env.items()) + "\n\n"
            "| program | CPU | gpushim | speed-up | ceiling | calls on the GPU | log s GPU / CPU | results |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
    lines, ups, tops = [], [], []
    for r in rows:
        if "missing" in r:
            lines.append(f"| {r['program']} | - | - | - | - | - | - | missing {r['missing']} |")
            continue
        t = {s: f"{r[s][0]:.2f} ({r[s][1]:.2f}-{r[s][2]:.2f})" if r[s] else "-" for s in ("cpu", "gpushim")}
        up, top = r["cpu"][0] / r["gpushim"][0] if r["cpu"] and r["gpushim"] else None, ceiling(r)
        ups += [up] if up else []
        tops += [top] if top else []
        up_s, top_s = (f"{x:.2f}" if x else "-" for x in (up, top))
        c = f"{r['gpu_calls']} of {r['calls']}" if "calls" in r else "-"
        s = f"{r['call_seconds']['gpu']:.2f} / {r['call_seconds']['cpu']:.2f}" if "calls" in r else "-"
        res = [f"{r['failed']} of {r['runs']} runs failed"] if r["failed"] else []
        res += [f"differ: {', '.join(f'{k} ({d:.1e})' for k, d in sorted(r['differ'].items()))}"] if r["differ"] else []
        res += [f"{r['unchecked']} of {r['runs']} runs not compared"] if r["unchecked"] else []
        res = "; ".join(res) or "agree"
        lines.append(f"| {r['program']} | {t['cpu']} | {t['gpushim']} | {up_s} | {top_s} | {c} | {s} | {res} |")
    foot = (f"\nMedian speed-up of the {len(ups)} programs: {statistics.median(ups):.2f}" if ups else "") + (
        f"; median ceiling of the {len(tops)} with one: {statistics.median(tops):.2f}" if tops else "")
    return head + "\n".join(lines) + "\n" + (foot + "\n" if foot else "")


def parts_table(rows):
    """What each part costs: each side's median and its speed against CPU-only, per program"""
    names = ["gpushim"] + [p[0] for p in PARTS]
    head = ("Medians in s, and speed against CPU-only: gpushim by default, then with one part turned off by its "
            "switch (bench/apps/run.py's PARTS)\n\n| program | CPU | " + " | ".join(names) + " |\n| --- | --- | " +
            " | ".join("---" for _ in names) + " |\n")
    lines = []
    for r in rows:
        if "missing" in r or not r.get("cpu"):
            continue
        cells = [f"{r[n][0]:.2f} ({r['cpu'][0] / r[n][0]:.2f})" if r.get(n) else "-" for n in names]
        lines.append(f"| {r['program']} | {r['cpu'][0]:.2f} | " + " | ".join(cells) + " |")
    return head + "\n".join(lines) + "\n"


def plot(rows, path):
    """The speed-ups as bars, where matplotlib is installed; False where it is not"""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    rows = [r for r in rows if r.get("cpu") and r.get("gpushim")]
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(rows) + 1))
    ax.barh([r["program"] for r in rows], [r["cpu"][0] / r["gpushim"][0] for r in rows])
    ax.axvline(1, color="k", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("speed-up under gpushim, whole program (CPU-only median / gpushim median)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", choices=("small", "medium", "large"), default="large")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "libgpushim.so"))
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--results", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--parts", action="store_true")
    ap.add_argument("--layer", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--from", dest="records", nargs="+", metavar="JSONL")
    args = ap.parse_args()
    if args.list:
        for p in PROGRAMS:
            print(f"{p[0]:20} {p[1]}")
        return 0
    bad_env = [e for e in args.env if "=" not in e]
    if bad_env or not os.path.exists(args.lib):
        ap.error(f"--env takes VAR=VALUE: {bad_env}" if bad_env else f"no library at --lib {args.lib} (make)")
    args.env = dict(e.split("=", 1) for e in args.env)
    only = set(filter(None, args.only.split(",")))
    unknown = only - {p[0] for p in PROGRAMS}
    if unknown:
        ap.error(f"--only: no program {', '.join(sorted(unknown))} (--list lists them)")
    os.makedirs(args.results, exist_ok=True)
    base = os.path.join(args.results, f"apps-{args.size}")
    args.logs = base + "-logs"
    if args.records:
        rows = [r for r in rows_from(args.records, args.parts) if not only or r["program"] in only]
    else:
        os.makedirs(args.logs, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="gpushim-apps.") as work, open(base + ".jsonl", "w") as jl:
            rows = [run_program(p, args, work, jl) for p in PROGRAMS if not only or p[0] in only]
    md = table(rows, args)
    with open(base + ".md", "w") as f:
        f.write(md)
    print(md, end="")
    if args.parts:
        with open(base + "-parts.md", "w") as f:
            f.write(parts_table(rows))
        print("\n" + parts_table(rows), end="")
    wrote = [base + ".md"] + ([] if args.records else [base + ".jsonl"])
    print("apps: " + ", ".join(wrote) + (f", {base}.png" if plot(rows, base + ".png") else
                                         ", no plot (matplotlib is not installed)"), file=sys.stderr)
    broken = [r["program"] for r in rows if "missing" in r or r["failed"] or r["differ"] or r["unchecked"]]
    if broken:
        print(f"apps: not run, failed, differing or not compared: {', '.join(broken)}", file=sys.stderr)
    return 1 if args.check and broken else 0


if __name__ == "__main__":
    sys.exit(main())

"""The report of bench/policy.sh (issue 20): reads RESULTS/policy.jsonl (the first-call and loop cases, each part's
end) and each part's own results and gpushim logs under RESULTS/policy/PART/, and writes RESULTS/policy.md: per
part a table of the CPU alone, the default policy and every call forced onto the GPU, with the targets checked
(the first call at most 1.05 times the CPU's time; elsewhere the default at most 1.1 times the better of CPU
and forced and at most 1.03 times the CPU); a summary per target; and the cost model's predictions against
the measured times over every gpushim log of the run.  Prints the page.  Exit status 1 when a result failed
its check.

usage: python bench/policy_report.py [RESULTS]     (default bench/results)
"""
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the shared part beside us, even under python -P
from report_lib import Page, fmt, json_lines, run_lines  # noqa: E402

FIRST_LIMIT, BEST_LIMIT, CPU_LIMIT = 1.05, 1.1, 1.03
PRED_TOL, PRED_SHARE = 0.3, 0.9
PARTS = {  # part -> its heading
    "first": "First call in a fresh process (bench/first_call.py)",
    "loop": "The moderate loop (bench/loop.py): C = X @ W, X reused, W new each iteration",
    "gemm": "GEMM from C and NumPy (bench/gemm.sh)",
    "l3": "The other Level-3 routines from C (bench/l3.sh)",
    "lapack": "LAPACK through NumPy and SciPy (bench/lapack.sh)",
    "cache": "The residency cache's benchmarks (bench/cache.sh)",
    "fft": "FFTW from C (bench/fft.sh): FFTW, gpushim, gpushim forced",
    "dgemm": "DGEMM from NumPy (bench/run.sh)",
}
PRECS = "dscz"


class Case:
    """One row: the seconds of the CPU, the default policy and forced (None where not measured), extra cells,
    and whether a result failed its check."""

    def __init__(self, name, cpu=None, default=None, forced=None, extra=(), wrong=False):
        self.name, self.cpu, self.default, self.forced = name, cpu, default, forced
        self.extra, self.wrong = list(extra), wrong
        self.wall = (None, None)  # first calls: the whole process's seconds, CPU and default

    def best(self):
        sides = [t for t in (self.cpu, self.forced) if t]
        return min(sides) if sides else None

    def ratio(self, of):
        return self.default / of if self.default and of else None


def best_by(rows, key, mode, value):
    """{key(r): the least value(r)} over the rows of rows whose mode(r) is given, as {mode: {key: seconds}}."""
    out = collections.defaultdict(dict)
    for r in rows:
        m, v = mode(r), value(r)
        if m is None or v is None:
            continue
        k = key(r)
        out[m][k] = min(out[m].get(k, v), v)
    return out


def cases_from(table, keys, name, extra=lambda k: (), wrong=frozenset()):
    """Cases from {mode: {key: seconds}} with the modes cpu, default and forced, in the order of keys."""
    return [Case(name(k), table["cpu"].get(k), table["default"].get(k), table["forced"].get(k), extra(k),
                 k in wrong) for k in keys]


def ordered(keys, order=lambda k: k):
    return sorted(set(keys), key=order)


# ---- the parts: each gives (cases, extra headings, notes) from its lines in policy.jsonl and its folder ------
def part_first(lines, d, notes):
    rows = [r for r in lines if "mode" in r]
    key = (lambda r: (r["op"], r["n"]))
    t = best_by(rows, key, lambda r: r["mode"], lambda r: r.get("s"))
    wall = best_by(rows, key, lambda r: r["mode"], lambda r: r.get("wall_s") if "s" in r else None)
    where = collections.defaultdict(collections.Counter)
    for r in rows:
        for c in r.get("calls", []):
            if c.get("why") != "workspace query":  # LAPACK's size query before the call itself
                where[(key(r), r["mode"])][c["where"]] += 1
        if r.get("calls_before"):
            notes.add(f"{len(r['calls_before'])} BLAS call(s) before the timed call, made by NumPy itself "
                      f"({', '.join(sorted(set(r['calls_before'])))}), e.g. at its import")
    problems(rows, key, notes, "first")
    ops = list(dict.fromkeys(r["op"] for r in rows))  # in the order of FIRST_CASES
    keys = ordered((key(r) for r in rows), lambda k: (ops.index(k[0]), k[1]))

    def extra(k):
        w = where[(k, "default")]
        return [ms(wall["cpu"].get(k)), ms(wall["default"].get(k)), ms(wall["forced"].get(k)),
                f"{w['gpu']}/{sum(w.values())}" if w else "-"]
    wrong = {key(r) for r in rows if r.get("check") == "WRONG"}
    cases = cases_from(t, keys, lambda k: f"{k[0]} n = {k[1]}", extra, wrong)
    for k, c in zip(keys, cases):
        c.wall = (wall["cpu"].get(k), wall["default"].get(k))
    heads = ["process: CPU ms", "default ms", "forced ms", "default: calls on the GPU, all rounds"]
    return cases, heads


def part_loop(lines, d, notes):
    rows = [r for r in lines if "mode" in r]
    key = (lambda r: r["variant"])
    t = best_by(rows, key, lambda r: r["mode"], lambda r: r.get("total_s"))
    first = best_by(rows, key, lambda r: r["mode"], lambda r: r.get("first_s"))
    med = best_by(rows, key, lambda r: r["mode"], lambda r: r.get("median_s"))
    problems(rows, key, notes, "loop")
    shape = next((f"X {r['rows']} x {r['cols']}, W {r['cols']} x {r['k']}, {r['iter']} iterations" for r in rows
                  if "rows" in r), None)
    if shape:
        notes.add(f"{shape}; the times are the whole loop's")

    def extra(k):
        return [ms(t["nocache"].get(k)), ms(first["default"].get(k)), ms(med["default"].get(k)),
                ms(med["cpu"].get(k)), ms(med["forced"].get(k))]
    wrong = {key(r) for r in rows if r.get("check") == "WRONG"}
    names = {"new": "a new W each iteration", "inplace": "W updated in place"}
    heads = ["default, GPUSHIM_CACHE=0 ms", "default: first iteration ms", "default: median iteration ms",
             "CPU: median iteration ms", "forced: median iteration ms"]
    keys = ordered((key(r) for r in rows), lambda k: list(names).index(k) if k in names else 9)
    return cases_from(t, keys, lambda k: names.get(k, k), extra, wrong), heads


def part_gemm(lines, d, notes):
    rows = raw(os.path.join(d, "gemm.jsonl"), notes)
    modes = {"cpu": "cpu", "gpushim-auto": "default", "gpushim-forced": "forced"}
    key = (lambda r: (r["tool"], r["dtype"], r["m"], r["n"], r["k"]))
    for r in rows:
        for why in ("unavailable", "failed", "not_run"):
            if why in r:
                notes.add(f"gemm {r.get('tool')}:{r.get('mode')} {r.get('dtype', '')}: {r[why]}")
    rows = [r for r in rows if "best_ms" in r]
    t = best_by(rows, key, lambda r: modes.get(r["mode"]), lambda r: r["best_ms"] * 1e-3)
    keys = ordered((key(r) for r in rows), lambda k: (PRECS.index(k[1]), k[0], k[2] * k[3] * k[4], k[2:]))

    def name(k):
        size = f"{k[2]}" if k[2] == k[3] == k[4] else f"{k[2]}x{k[3]}x{k[4]}"
        return f"{'NumPy' if k[0] == 'numpy' else 'C'} {k[1]}gemm {size}"
    wrong = {key(r) for r in rows if r.get("check") == "WRONG"}
    return cases_from(t, keys, name, wrong=wrong), []


def part_l3(lines, d, notes):
    # a record per round in each mode's file: the best one
    rows = [(m, r) for m, f in (("cpu", "cpu"), ("default", "auto"), ("forced", "forced"))
            for r in raw(os.path.join(d, f"l3-{f}.jsonl"), notes)]
    t = best_by(rows, lambda x: (x[1]["routine"], x[1]["n"]), lambda x: x[0], lambda x: x[1]["best_ms"] * 1e-3)
    keys = ordered(t["cpu"].keys() | t["default"].keys(), lambda k: (PRECS.index(k[0][0]), k[0][1:], k[1]))
    return cases_from(t, keys, lambda k: f"{k[0]} n = {k[1]}"), []


def part_lapack(lines, d, notes):
    rows = raw(os.path.join(d, "lapack.jsonl"), notes)
    order = list(dict.fromkeys(r["case"] for r in rows))
    modes = {"cpu": "cpu", "gpushim": "default", "forced": "forced"}
    t = best_by(rows, lambda r: (r["case"], r["n"]), lambda r: modes.get(r["run"]), lambda r: r["seconds"])
    keys = ordered((k for m in t.values() for k in m), lambda k: (order.index(k[0]), k[1]))
    return cases_from(t, keys, lambda k: f"{k[0]} n = {k[1]}"), []


def part_cache(lines, d, notes):
    rows = raw(os.path.join(d, "cache.jsonl"), notes)
    order = list(dict.fromkeys(r["bench"] for r in rows))
    modes = {"cpu": "cpu", "gpushim": "default", "forced": "forced"}
    t = best_by(rows, lambda r: r["bench"], lambda r: modes.get(r["run"]), lambda r: r["seconds"])
    return cases_from(t, order, lambda k: k), []


def part_fft(lines, d, notes):
    rows = raw(os.path.join(d, "fft.jsonl"), notes)
    modes = {"fftw": "cpu", "gpushim": "default", "gpushim-always": "forced"}
    for r in rows:
        for why in ("unavailable", "failed", "not_run"):
            if why in r:
                notes.add(f"fft {r.get('mode')} {r.get('group', '')}: {r[why]}")
    rows = [r for r in rows if "case" in r and not r.get("probe")]
    key = (lambda r: (r["case"], r["prec"]))
    value = (lambda r: (r["step_ms"] if r.get("kind") == "step" else r.get("best_ms")) * 1e-3)
    t = best_by(rows, key, lambda r: modes.get(r["mode"]), value)
    order = list(dict.fromkeys(r["case"] for r in rows))
    keys = ordered((key(r) for r in rows), lambda k: (order.index(k[0]), k[1]))
    wrong = {key(r) for r in rows if r.get("check") == "WRONG"}
    name = (lambda k: f"{k[0]} {'double' if k[1] == 'd' else 'single'}" + (" (a step)" if "step" in k[0] else ""))
    return cases_from(t, keys, name, wrong=wrong), []


def part_dgemm(lines, d, notes):
    t = {}
    for m, f in (("cpu", "cpu"), ("default", "auto"), ("forced", "always")):
        t[m] = {r["n"]: r["best_s"] for r in raw(os.path.join(d, f"dgemm-{f}.jsonl"), notes)}
    wrong = {r["n"] for f in ("cpu", "auto", "always") for r in raw(os.path.join(d, f"dgemm-{f}.jsonl"), notes)
             if r.get("column_check", 0) > 1e-8}
    return cases_from(t, sorted(t["cpu"].keys() | t["default"].keys()), lambda k: f"n = {k}", wrong=wrong), []


def shown(meta):
    """A run's meta record with only the knobs of the parts it ran (and the common ones)."""
    parts = (meta.get("knobs", {}).get("PARTS") or "").split()
    prefix = {"FIRST": "first", "LOOP": "loop", "GEMM": "gemm", "L3": "l3", "LAPACK": "lapack", "CACHE": "cache",
              "FFT": "fft", "DGEMM": "dgemm"}

    def keep(k):
        if k == "REPEAT":
            return bool({"first", "loop"} & set(parts))
        return prefix.get(k.split("_")[0], parts[0] if parts else None) in parts
    return dict(meta, knobs={k: v for k, v in meta.get("knobs", {}).items() if keep(k)})


def raw(path, notes):
    if not os.path.exists(path):
        notes.add(f"{os.path.relpath(path, ROOT)} is missing: the part did not run, or stopped early")
        return []
    return list(json_lines(path, "policy_report"))


def problems(rows, key, notes, part):
    """A note per case and reason that a process gave no result (or failed after it), with the modes and rounds
    it struck."""
    runs = collections.defaultdict(list)
    for r in rows:
        why = r.get("failed") or r.get("not_run")
        if not why and r.get("rc"):
            why = f"exit status {r['rc']} after its result"
        if why:
            k = key(r)
            runs[(" ".join(map(str, k)) if isinstance(k, tuple) else k, why)].append(f"{r['mode']} {r['round']}")
    for (case, why), where in runs.items():
        notes.add(f"{part} {case}: {why}, in mode and round {', '.join(sorted(where))}; their "
                  f"stderr: `policy/{part}/stderr.txt`")


def ms(t):
    return fmt(t * 1e3) if t else "-"


# ---- the cost model against the logs -------------------------------------------------------------------------
def logs_of(part, lines, d):
    """(path, mode) of every gpushim log of a part: a log whose name says forced or always is a forced run's."""
    if part in ("first", "loop"):
        paths = [os.path.join(ROOT, r["log"]) for r in lines if r.get("log")]
    else:
        paths = sorted(glob.glob(os.path.join(d, "*.log")))
    out = []
    for p in paths:
        recs = list(json_lines(p)) if os.path.exists(p) else []
        if recs and "gpushim_log" in recs[0]:
            name = os.path.basename(p)
            out.append((p, "forced" if "forced" in name or "always" in name else "default", recs))
    return out


def accuracy(logs):
    """Per (part, mode, routine): [calls with a prediction for the side that ran, within PRED_TOL, ratios],
    and the calls without one."""
    acc = collections.defaultdict(lambda: [0, 0, []])
    missing = collections.Counter()
    for part, (path, mode, recs) in logs:
        for r in recs:
            if "routine" not in r:
                continue
            pred = r.get("predicted_gpu_s" if r.get("where") == "gpu" else "predicted_cpu_s")
            if not isinstance(pred, (int, float)) or pred <= 0 or not r.get("seconds"):
                missing[part] += 1
                continue
            a = acc[(part, mode, r["routine"], "GPU" if r.get("where") == "gpu" else "CPU")]
            x = r["seconds"] / pred
            a[0] += 1
            a[1] += abs(x - 1) <= PRED_TOL
            a[2].append(x)
    return acc, missing


def acc_rows(acc, group):
    """Sums of acc over the keys mapped to the same group(key): {group: (calls, within, median ratio)}."""
    g = collections.defaultdict(lambda: [0, 0, []])
    for k, (n, w, xs) in acc.items():
        s = g[group(k)]
        s[0] += n
        s[1] += w
        s[2] += xs
    return {k: (n, w, sorted(xs)[len(xs) // 2] if xs else None) for k, (n, w, xs) in g.items()}


def acc_table(page, title, rows, order=None):
    page.lines += [f"| {title} | calls predicted | within 30% | share | median measured / predicted |",
                   "| --- | --- | --- | --- | --- |"]
    for k in order or sorted(rows, key=lambda k: -rows[k][0]):
        if k in rows:
            n, w, med = rows[k]
            page.lines.append(f"| {k} | {n} | {w} | {100 * w / n:.0f}% | {med:.2f} |")
    page.lines.append("")


# ---- the page ------------------------------------------------------------------------------------------------
def misses(part, c):
    """The targets a case misses, in words (empty when it meets them or was not measured on both sides)."""
    rb, rc = c.ratio(c.best()), c.ratio(c.cpu)
    if part == "first":
        miss = [f"> {FIRST_LIMIT} CPU"] if rc and rc > FIRST_LIMIT else []
    else:
        miss = [f"> {BEST_LIMIT} best"] if rb and rb > BEST_LIMIT else []
        miss += [f"> {CPU_LIMIT} CPU"] if rc and rc > CPU_LIMIT else []
    return miss + (["result WRONG"] if c.wrong else [])


def table(page, part, cases, heads):
    first = part == "first"
    page.lines += ["| case | CPU ms | default ms | forced ms | best of CPU and forced ms | default / best | "
                   "default / CPU | target |" + "".join(f" {h} |" for h in heads),
                   "| --- " * (8 + len(heads)) + "|"]
    cell = (lambda r, lim: "-" if r is None else f"**{r:.2f}**" if r > lim else f"{r:.2f}")
    for c in cases:
        miss = misses(part, c)
        mark = "**" + ", ".join(miss) + "**" if miss else ""
        page.lines.append(f"| {c.name} | {ms(c.cpu)} | {ms(c.default)} | {ms(c.forced)} | {ms(c.best())} | "
                          f"{cell(c.ratio(c.best()), 1e9 if first else BEST_LIMIT)} | "
                          f"{cell(c.ratio(c.cpu), FIRST_LIMIT if first else CPU_LIMIT)} | {mark} |"
                          + "".join(f" {e} |" for e in c.extra))
    page.lines.append("")


def target(name, items, limit):
    """One summary line: how many of (label, ratio) items are within limit, and the worst."""
    items = [(lab, r) for lab, r in items if r is not None]
    if not items:
        return f"- {name}: no case measured on both sides."
    ok = sum(r <= limit for _, r in items)
    lab, r = max(items, key=lambda x: x[1])
    return (f"- {name}: **{ok} of {len(items)}** cases{' (met)' if ok == len(items) else ''}; worst {lab}, "
            f"{r:.2f}.")


def main():
    global ROOT
    ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
    raw_path = os.path.join(ROOT, "policy.jsonl")
    lines = list(json_lines(raw_path, "policy_report"))
    metas = {r["run_id"]: r["meta"] for r in lines if r.get("part") == "meta"}
    by_part = collections.defaultdict(list)
    for r in lines:
        if r.get("part") in PARTS:
            by_part[r["part"]].append(r)
    page, notes = Page(), set()
    used = list(dict.fromkeys(r["run_id"] for p in by_part.values() for r in p))
    page.lines += ["# The default policy against the CPU and the GPU, from the first call (issue 20)", ""]
    page.lines += run_lines([shown(metas[i]) for i in used if i in metas], None,
                            lambda m: f", Python {m.get('python')}, NumPy {m.get('numpy')}, SciPy {m.get('scipy')}")
    page.lines += ["", "Times are the best of the rounds or runs each benchmark makes; \"best\" is the better of the "
                   "CPU alone and every call forced onto the GPU; a case misses a target when the default takes over "
                   f"{BEST_LIMIT} times the best or {CPU_LIMIT} times the CPU (a first call: {FIRST_LIMIT} times "
                   "the CPU).", ""]
    sections, status, logs = [], [], []
    firsts, walls, bests, cpus = [], [], [], []
    for part, title in PARTS.items():
        if part not in by_part:
            continue
        d = os.path.join(ROOT, "policy", part)
        end = next((r["part_end"] for r in reversed(by_part[part]) if "part_end" in r), {})
        part_notes = set()
        cases, heads = globals()["part_" + part](by_part[part], d, part_notes)
        notes |= part_notes
        logs += [(part, x) for x in logs_of(part, by_part[part], d)]
        for c in cases:
            lab = f"{part} {c.name}"
            if part == "first":
                firsts.append((lab, c.ratio(c.cpu)))
                walls.append((lab, c.wall[1] / c.wall[0] if all(c.wall) else None))
            else:
                bests.append((lab, c.ratio(c.best())))
                cpus.append((lab, c.ratio(c.cpu)))
        rid = by_part[part][0]["run_id"]
        judged = [c for c in cases if c.default and c.cpu]
        status.append(f"| {part} | {metas.get(rid, {}).get('date', rid)} | {end.get('elapsed_s', '-')} | "
                      f"{end.get('rc', end.get('not_run', 'did not finish'))} | {len(cases)} | "
                      f"{sum(not misses(part, c) for c in judged)} of {len(judged)} |")
        if not cases:
            part_notes.add("no results: " + str(end.get("not_run") or f"exit status {end.get('rc', '?')}"))
        sections.append((part, title, cases, heads, sorted(part_notes)))

    acc, missing = accuracy(logs)
    total = acc_rows(acc, lambda k: "all")
    page.lines += ["## Targets", ""]
    page.lines.append(target(f"First call in a fresh process at most {FIRST_LIMIT} x the CPU", firsts, FIRST_LIMIT))
    page.lines.append(target(f"(For information: the whole first-call process, default against CPU, at most "
                             f"{FIRST_LIMIT} x)", walls, FIRST_LIMIT))
    page.lines.append(target(f"Default at most {BEST_LIMIT} x the best of CPU and forced (every part but first)",
                             bests, BEST_LIMIT))
    page.lines.append(target(f"Default at most {CPU_LIMIT} x the CPU (every part but first)", cpus, CPU_LIMIT))
    if "all" in total:
        n, w, _ = total["all"]
        page.lines.append(f"- Predictions within 30% of the measured time for {100 * PRED_SHARE:.0f}% of the calls: "
                          f"**{w} of {n} ({100 * w / n:.0f}%)**, {'met' if w >= PRED_SHARE * n else 'missed'}.")
    else:
        page.lines.append("- Predictions: no call in the logs has a prediction for the side it ran on.")
    page.lines += ["", "| part | run | elapsed s | exit status | cases | cases meeting their targets |",
                   "| --- | --- | --- | --- | --- | --- |"]
    page.lines += status + [""]
    for part, title, cases, heads, part_notes in sections:
        page.lines += [f"## {part}: {title}", ""]
        if part in ("gemm", "l3", "lapack", "cache", "fft", "dgemm"):
            page.lines += [f"Its own report, with where the calls ran: `policy/{part}/`.", ""]
        if cases:
            table(page, part, cases, heads)
        page.lines += [f"- {n}" for n in part_notes] + ([""] if part_notes else [])

    page.lines += ["## The cost model's predictions", "",
                   f"Every call record of the {len(logs)} gpushim logs of the run (default and forced) with a "
                   "prediction for the side it ran on (predicted_gpu_s when it ran on the GPU, predicted_cpu_s on "
                   f"the CPU), within 30% when |measured / predicted - 1| <= {PRED_TOL}. Calls without a "
                   f"prediction, not counted: {sum(missing.values())}.", ""]
    if acc:
        acc_table(page, "mode", acc_rows(acc, lambda k: k[1]), ["default", "forced"])
        acc_table(page, "ran on", acc_rows(acc, lambda k: k[3]), ["GPU", "CPU"])
        acc_table(page, "part", acc_rows(acc, lambda k: k[0]), list(PARTS))
        acc_table(page, "routine", acc_rows(acc, lambda k: k[2]))
    text = page.text()
    with open(os.path.join(ROOT, "policy.md"), "w") as f:
        f.write(text)
    print(text, end="")
    print(f"(written: {os.path.join(ROOT, 'policy.md')})", file=sys.stderr)
    return 1 if any(c.wrong for s in sections for c in s[2]) else 0


ROOT = "bench/results"
sys.exit(main())

"""The GEMM benchmark's report (bench/gemm.sh runs it; re-run it offline on copied results): reads the raw JSON
lines and the gpushim logs beside them, writes Markdown tables (one per precision, the targets checked) and an
SVG plot of time against n, and prints the Markdown.  Exit status 1 when any result failed its spot check.

usage: python gemm_report.py [RAW.jsonl ...] [--out PREFIX]
       default bench/results/gemm.jsonl; PREFIX (default: the first file without .jsonl) gets .md and .svg
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the shared part beside us, even under python -P
from report_lib import (Page, decades, find_log, fmt, json_lines, out_prefix, run_lines,  # noqa: E402
                        svg_close, svg_open, write, y_grid)

COLUMNS = [  # (tool, mode, heading)
    ("c", "cpu", "C cpu"), ("c", "gpushim-auto", "C gpushim"), ("c", "gpushim-forced", "C forced"),
    ("c", "nvblas", "C NVBLAS"), ("c", "nvblas-autopin", "C NVBLAS pin"),
    ("numpy", "cpu", "NumPy cpu"), ("numpy", "gpushim-auto", "NumPy gpushim"),
    ("numpy", "gpushim-forced", "NumPy forced"), ("numpy", "cupy", "CuPy"),
]
TOOLS = {"c": "C", "numpy": "NumPy"}
PRECISIONS = {"d": "DGEMM (float64)", "s": "SGEMM (float32)", "c": "CGEMM (complex64)", "z": "ZGEMM (complex128)"}
POLICY_LIMIT = 1.1
COLORS = {"cpu": "#444444", "gpushim-auto": "#1f66c2", "gpushim-forced": "#3cb8d6", "nvblas": "#f28e1c",
          "nvblas-autopin": "#c8232c", "cupy": "#2e9e44"}
DASH = {"c": "", "numpy": "7 4"}


class Results:
    """Everything in the raw files: later lines of the same case replace earlier ones (APPEND=1 runs)."""

    def __init__(self, paths):
        self.meta, self.elapsed = [], []
        self.cells = {}  # (tool, mode, dtype, m, n, k) -> record
        self.unavailable = {}  # (tool, mode) -> reason
        self.problems = {}  # (tool, mode, dtype) -> reason the process stopped or never ran
        self.requested = {}  # dtype -> cases the runs were asked for, from the meta lines
        self.dirs = [os.path.dirname(os.path.abspath(p)) for p in paths]
        for path in paths:
            for r in json_lines(path, "gemm_report"):
                self.add(r)
        self.logs = {}

    def add(self, r):
        if "meta" in r:
            self.meta.append(r["meta"])
            knobs = r["meta"].get("knobs") or {}
            for d in (knobs.get("PRECISIONS") or "").split():
                for c in ((knobs.get("SIZES") or "") + " " + (knobs.get("SHAPES") or "")).split():
                    case = tuple(int(x) for x in c.split("x")) * (3 if "x" not in c else 1)
                    self.requested.setdefault(d, []).append(case)
        elif "meta_end" in r:
            self.elapsed.append(r["meta_end"].get("elapsed_s"))
        elif "unavailable" in r:
            self.unavailable[(r["tool"], r["mode"])] = r["unavailable"]
        elif "failed" in r or "not_run" in r:
            self.problems[(r["tool"], r["mode"], r["dtype"])] = r.get("failed") or r.get("not_run")
        elif "m" in r:
            self.cells[(r["tool"], r["mode"], r["dtype"], r["m"], r["n"], r["k"])] = r
            self.unavailable.pop((r["tool"], r["mode"]), None)

    def where(self, rec):
        """(calls on the GPU, calls) of this case's gemm in its gpushim log, or None without a log.  The log has
        the column-major shape, so m and n are swapped for NumPy's row-major calls: match them unordered."""
        path = rec.get("log")
        if path not in self.logs:
            self.logs[path] = self.read_log(path) if path else None
        counts = self.logs[path]
        if counts is None:
            return None
        c = counts.get((rec["dtype"] + "gemm", min(rec["m"], rec["n"]), max(rec["m"], rec["n"]), rec["k"]))
        return (c["gpu"], sum(c.values())) if c else (0, 0)

    def read_log(self, path):
        p = find_log("gemm_report", path, self.dirs)
        if p is None:
            return None
        counts = collections.defaultdict(collections.Counter)
        for r in json_lines(p):
            if str(r.get("routine", "")).endswith("gemm") and "m" in r:
                m, n = r["m"], r["n"]
                counts[(r["routine"], min(m, n), max(m, n), r.get("k"))][r.get("where")] += 1
        return counts


def kind(m, n, k):
    if m == n == k:
        return "square"
    if k > max(m, n):
        return "k large"
    if k < min(m, n):
        return "k small"
    if m >= 4 * max(n, k):
        return "tall-skinny"
    if n >= 4 * max(m, k):
        return "short-wide"
    return "other"


def cases_of(res, dtype):
    """The cases measured or asked for: squares by size, then the shapes in the order first given."""
    order = res.requested.get(dtype, []) + [key[3:] for key in res.cells if key[2] == dtype]
    seen = set(order)
    square = sorted(c for c in seen if c[0] == c[1] == c[2])
    shapes = sorted((c for c in seen if c not in square), key=order.index)
    return square + shapes


def best(res, tool, mode, dtype, case):
    r = res.cells.get((tool, mode, dtype) + case)
    return r["best_ms"] if r and "best_ms" in r else None


class Report(Page):
    def __init__(self, res):
        super().__init__()
        self.res = res
        self.wrong = []  # (dtype, tool, mode, case, err, tol)
        self.checked = 0
        self.policy = []  # (ratio, tool, dtype, case, against forced only)
        self.choice = []  # (ratio of the chosen side's own time, tool, dtype, case)

    def cell(self, tool, mode, dtype, case):
        res = self.res
        r = res.cells.get((tool, mode, dtype) + case)
        if r is None:
            if (tool, mode) in res.unavailable:
                return f"n/a ({self.note(f'{TOOLS[tool]} {mode}: not run, ' + res.unavailable[(tool, mode)])})"
            why = res.problems.get((tool, mode, dtype))
            if why:
                return f"- ({self.note(f'{TOOLS[tool]} {mode} {dtype}: {why}')})"
            return ""
        if "skipped" in r:
            lim = "CPU_MAX_N" if mode == "cpu" else "NVBLAS_MAX_N" if mode.startswith("nvblas") else "--max-n"
            return f"- ({self.note('not run: ' + r['skipped'] + f' ({lim})')})"
        if "error" in r:
            return f"{r['error']}"
        text = fmt(r["best_ms"])
        self.checked += 1
        if r.get("check") != "ok":
            self.wrong.append((dtype, tool, mode, case, r.get("err"), r.get("tol")))
            text = f"**WRONG** {text}"
        w = res.where(r)
        if w is not None:
            text += f" [{w[0]}/{w[1]}]"
        return text

    def ratio(self, tool, dtype, case):
        auto = best(self.res, tool, "gpushim-auto", dtype, case)
        cpu = best(self.res, tool, "cpu", dtype, case)
        forced = best(self.res, tool, "gpushim-forced", dtype, case)
        if auto is None or (cpu is None and forced is None):
            return ""
        ref = min(t for t in (cpu, forced) if t is not None)
        x = auto / ref
        self.policy.append((x, tool, dtype, case, cpu is None))
        # The choice alone: when the log shows every call of the case on one side, that side's time as the cpu
        # or forced process measured it, free of the spread between processes running the same path.
        rec = self.res.cells.get((tool, "gpushim-auto", dtype) + case)
        w = self.res.where(rec) if rec else None
        side = forced if w and w[1] and w[0] == w[1] else cpu if w and w[1] and w[0] == 0 else auto
        if side is not None:
            self.choice.append((side / ref, tool, dtype, case))
        text = f"{x:.2f}"
        if cpu is None:
            text += f" ({self.note('cpu not measured at this size: the ratio is against forced only')})"
        elif forced is None:
            text += f" ({self.note('forced not measured: the ratio is against cpu only')})"
        return f"**{text}**" if x > POLICY_LIMIT else text

    def table(self, dtype):
        res = self.res
        present = {(t, m) for (t, m, *_) in res.cells} | set(res.unavailable) | {k[:2] for k in res.problems}
        cols = [c for c in COLUMNS if (c[0], c[1]) in present]
        head = ["m x n x k", "shape"]
        layout = []
        for tool in TOOLS:
            tcols = [c for c in cols if c[0] == tool]
            layout += [("mode",) + c for c in tcols]
            head += [c[2] for c in tcols]
            if (tool, "gpushim-auto") in present:
                layout.append(("ratio", tool))
                head.append(f"{TOOLS[tool]} auto / best")
        cases = cases_of(res, dtype)
        if not cases:
            why = sorted({f"{TOOLS[t]} {m}: {w}" for (t, m, d), w in res.problems.items() if d == dtype})
            if why:
                self.lines += [f"## {PRECISIONS[dtype]}", "", "Nothing measured: " + "; ".join(why) + ".", ""]
            return
        self.lines += [f"## {PRECISIONS[dtype]}", "", "| " + " | ".join(head) + " |",
                       "|" + " --- |" * len(head)]
        for case in cases:
            m, n, k = case
            row = [str(m) if kind(*case) == "square" else f"{m}x{n}x{k}", kind(*case)]
            for item in layout:
                if item[0] == "mode":
                    row.append(self.cell(item[1], item[2], dtype, case))
                else:
                    row.append(self.ratio(item[1], dtype, case))
            self.lines.append("| " + " | ".join(row) + " |")
        self.lines.append("")

    def targets(self):
        res, rows = self.res, []

        def verdict(ok):
            return "n/a" if ok is None else "PASS" if ok else "**MISS**"

        for n, limit in ((4096, 20), (8192, 60), (16384, 350)):
            t = best(res, "numpy", "gpushim-auto", "d", (n, n, n))
            rows.append((f"DGEMM n = {n} from NumPy (gpushim, default policy) <= {limit} ms",
                         "not measured" if t is None else f"{fmt(t)} ms", verdict(None if t is None else t <= limit)))
        for dtype in [d for d in PRECISIONS if any(k[2] == d for k in res.cells)]:
            pairs = [(c[0], best(res, "c", "gpushim-auto", dtype, c), best(res, "c", "nvblas", dtype, c))
                     for c in cases_of(res, dtype) if c[0] == c[1] == c[2] and c[0] >= 1024]
            pairs = [p for p in pairs if p[1] is not None and p[2] is not None]
            slow = [f"n = {n} ({fmt(a)} vs {fmt(b)} ms)" for n, a, b in pairs if a >= b]
            measured = ("not measured" if not pairs else f"{len(pairs) - len(slow)} of {len(pairs)} sizes faster"
                        + (": slower at " + ", ".join(slow) if slow else
                           f" (worst ratio NVBLAS / gpushim {min(b / a for _, a, b in pairs):.1f}x)"))
            rows.append((f"{dtype}gemm from the C program: gpushim faster than NVBLAS at every n >= 1024",
                         measured, verdict(None if not pairs else not slow)))
        a, p = best(res, "c", "gpushim-auto", "d", (8192,) * 3), best(res, "c", "nvblas-autopin", "d", (8192,) * 3)
        rows.append(("DGEMM n = 8192 from the C program: gpushim >= 5x faster than NVBLAS with autopin",
                     "not measured" if a is None or p is None else f"{fmt(p)} / {fmt(a)} ms = {p / a:.1f}x",
                     verdict(None if a is None or p is None else p / a >= 5)))
        over = sorted((x for x in self.policy if x[0] > POLICY_LIMIT), reverse=True)
        if self.policy:
            worst = max(self.policy)
            measured = (f"{len(over)} of {len(self.policy)} cases over {POLICY_LIMIT}" if over else
                        f"all {len(self.policy)} cases within") + \
                f"; worst {worst[0]:.2f} ({TOOLS[worst[1]]} {worst[2]} {'x'.join(map(str, worst[3]))})"
            partial = sum(1 for x in self.policy if x[4])
            if partial:
                measured += f"; {partial} compared with forced only (cpu not measured)"
            if over:
                measured += "; over: " + ", ".join(f"{TOOLS[t]} {d} {'x'.join(map(str, c))} {x:.2f}"
                                                   for x, t, d, c, _ in over[:8])
                measured += " ..." if len(over) > 8 else ""
        rows.append((f"default policy <= {POLICY_LIMIT} x min(cpu, forced) at every size and shape",
                     measured if self.policy else "not measured", verdict(None if not self.policy else not over)))
        over = sorted((x for x in self.choice if x[0] > POLICY_LIMIT), reverse=True)
        rows.append((f"the policy's choice: the side it took, as the cpu or forced run measured it, <= {POLICY_LIMIT} x "
                     "min(cpu, forced)",
                     (f"{len(over)} of {len(self.choice)} cases over: " +
                      ", ".join(f"{TOOLS[t]} {d} {'x'.join(map(str, c))} {x:.2f}" for x, t, d, c in over[:8])
                      if over else f"all {len(self.choice)} cases within") if self.choice else "not measured",
                     verdict(None if not self.choice else not over)))
        rows.append(("every result passes its spot check",
                     f"{len(self.wrong)} wrong of {self.checked} checked",
                     "PASS" if not self.wrong else "**FAIL**"))
        self.lines += ["## Targets", "", "| target | measured | result |", "| --- | --- | --- |"]
        self.lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
        self.lines.append("")
        if self.wrong:
            self.lines += ["**WRONG RESULTS** (error over 16 sampled entries, scaled by sum |a||b|, above the "
                           "tolerance):", ""]
            for d, t, mo, c, err, tol in self.wrong:
                e = "NaN or Inf" if err is None else err
                self.lines.append(f"- {TOOLS[t]} {mo} {d} {'x'.join(map(str, c))}: error {e}, tolerance {tol}")
            self.lines.append("")

    def render(self):
        res = self.res
        self.lines += ["# GEMM benchmark", ""]
        self.lines += run_lines(res.meta, res.elapsed, lambda m: f", Python {m.get('python')}, NumPy "
                                f"{m.get('numpy')}, SciPy {m.get('scipy')}")
        self.lines += ["", "Best time in ms of up to REPEAT runs after one warm-up run (a case stops early once its "
                       "runs have used BUDGET_S seconds); the raw file has the median too. [g/t]: of this case's "
                       "t gemm calls (warm-up included), g ran on the GPU, read from the gpushim log. "
                       "'auto / best' is gpushim's default policy against the faster of cpu and forced "
                       f"(bold above {POLICY_LIMIT}). C: column-major operands through ?gemm_ (the CPU "
                       "library is SciPy's bundled OpenBLAS); NumPy: c = a @ b on C-ordered arrays (NumPy's "
                       "bundled OpenBLAS); CuPy: asarray both operands, matmul, asnumpy, with each copy a plain "
                       "one from pageable memory.", ""]
        body = self.lines
        self.lines = []
        for d in PRECISIONS:
            self.table(d)
        tables = self.lines
        self.lines = []
        self.targets()
        self.lines = body + self.lines + tables
        return self.text()


def svg(res):
    """Time against n for the square cases, log-log, one panel per precision, one line per tool and mode."""
    W, H, L, B, T, Rm = 440, 300, 58, 40, 28, 12
    dtypes = [d for d in PRECISIONS if any(k[2] == d and k[3] == k[4] == k[5] for k in res.cells)]
    series = [(t, m, h) for t, m, h in COLUMNS
              if any(k[:2] == (t, m) and "best_ms" in r for k, r in res.cells.items())]
    ncol = 2 if len(dtypes) > 1 else 1
    nrow = max(1, (len(dtypes) + ncol - 1) // ncol)
    legend_h = 22 * ((len(series) + 2) // 3) + 10
    width, height = ncol * W + 20, nrow * H + legend_h + 40
    out = svg_open(width, height, "GEMM, square n: best time (ms), log-log; solid C program, dashed NumPy", 20)
    for idx, d in enumerate(dtypes):
        ox, oy = 10 + (idx % ncol) * W, 30 + (idx // ncol) * H
        pts = {s: sorted((k[3], r["best_ms"]) for k, r in res.cells.items()
                         if k[:3] == (s[0], s[1], d) and k[3] == k[4] == k[5] and "best_ms" in r) for s in series}
        ns = sorted({n for p in pts.values() for n, _ in p})
        ts = [t for p in pts.values() for _, t in p]
        if not ns:
            continue
        x0, x1 = math.log2(ns[0]), math.log2(ns[-1]) + (1 if len(ns) == 1 else 0)
        y0, y1 = decades(ts)
        pw, ph = W - L - Rm, H - T - B

        def X(n):
            return ox + L + pw * (math.log2(n) - x0) / (x1 - x0)

        def Y(t):
            return oy + T + ph * (1 - (math.log10(t) - y0) / (y1 - y0))

        out.append(f'<text x="{ox + L + pw / 2}" y="{oy + T - 8}" text-anchor="middle" font-size="12" '
                   f'font-weight="bold">{PRECISIONS[d]}</text>')
        out.append(f'<rect x="{ox + L}" y="{oy + T}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>')
        out += y_grid(ox + L, ox + L + pw, y0, y1, Y)
        for n in ns:
            x = X(n)
            out.append(f'<line x1="{x:.1f}" y1="{oy + T}" x2="{x:.1f}" y2="{oy + T + ph}" stroke="#eee"/>')
            out.append(f'<text x="{x:.1f}" y="{oy + T + ph + 14}" text-anchor="middle">{n}</text>')
        out.append(f'<text x="{ox + L + pw / 2}" y="{oy + T + ph + 30}" text-anchor="middle">n</text>')
        for (t, m, _), p in pts.items():
            if not p:
                continue
            style = f'stroke="{COLORS[m]}" stroke-width="1.8" fill="none"'
            if DASH[t]:
                style += f' stroke-dasharray="{DASH[t]}"'
            coords = " ".join(f"{X(n):.1f},{Y(v):.1f}" for n, v in p)
            out.append(f'<polyline points="{coords}" {style}/>')
            for n, v in p:
                fill = COLORS[m] if t == "c" else "white"  # NumPy's markers hollow
                out.append(f'<circle cx="{X(n):.1f}" cy="{Y(v):.1f}" r="2.8" fill="{fill}" stroke="{COLORS[m]}"/>')
    ly = 30 + nrow * H + 10
    for i, (t, m, h) in enumerate(series):
        x, y = 20 + (i % 3) * 280, ly + 22 * (i // 3)
        dash = f' stroke-dasharray="{DASH[t]}"' if DASH[t] else ""
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 36}" y2="{y}" stroke="{COLORS[m]}" stroke-width="2"{dash}/>')
        fill = COLORS[m] if t == "c" else "white"
        out.append(f'<circle cx="{x + 18}" cy="{y}" r="2.8" fill="{fill}" stroke="{COLORS[m]}"/>')
        out.append(f'<text x="{x + 44}" y="{y + 4}">{h}</text>')
    return svg_close(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw", nargs="*", default=["bench/results/gemm.jsonl"])
    ap.add_argument("--out")
    args = ap.parse_args()
    res = Results(args.raw)
    rep = Report(res)
    write(out_prefix(args.out, args.raw[0]), rep.render(), svg(res))
    return 1 if rep.wrong else 0


sys.exit(main())

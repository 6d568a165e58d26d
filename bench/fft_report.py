"""The FFT benchmark's report (bench/fft.sh runs it; re-run it offline on copied results): reads the raw JSON
lines and the gpushim logs beside them, writes a Markdown page (large transforms, the time-stepping loop, small
sizes: one row per case, one column per mode, gpushim's ratios to FFTW and cuFFTW) and an SVG of grouped bars
on a log scale, and prints the Markdown.  Standard library only.  Exit status 1 when a result failed its check.

usage: python fft_report.py [RAW.jsonl] [--out PREFIX]
       default bench/results/fft.jsonl; PREFIX (default: RAW without .jsonl) gets .md and .svg
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the shared part beside us, even under python -P
from report_lib import (Page, decades, find_log, fmt, json_lines, out_prefix, run_lines,  # noqa: E402
                        svg_close, svg_open, write, y_grid)

MODES = {  # mode -> (heading, bar colour), in the order of the columns
    "fftw": ("FFTW", "#444444"),
    "fftw-fftwmalloc": ("FFTW fftw_malloc", "#888888"),
    "cufftw": ("cuFFTW", "#f28e1c"),
    "gpushim": ("gpushim", "#1f66c2"),
    "gpushim-fftwmalloc": ("gpushim fftw_malloc", "#3cb8d6"),
    "gpushim-nocache": ("gpushim no cache", "#9467bd"),
    "cupy": ("CuPy", "#2e9e44"),
    "gpushim-always": ("gpushim always", "#c8232c"),
}
GROUPS = {"large": ("c2c", "r2c", "c2r", "many", "tr"), "step": ("step",), "small": ("small",)}
PREC = {"d": "double", "s": "single"}
SLOWER = 1.1  # a ratio above this is marked: gpushim slower than the other by more than 10 %
LINK = 55e9  # bytes/s, host <-> H200 with pinned or registered memory (CEILINGS.md)
# Earlier figures (CEILINGS.md, H200 machine, 2026-12-01, double): FFTW 16 threads / cuFFTW, ms.
EARLIER = {"c2c-512x512x512": (1036, 500), "c2c-16777216": (101.6, 71.3), "c2c-8192x8192": (362, 237),
           "r2c-512x512x512": (238, 331)}


def group_of(kind):
    return next(g for g, kinds in GROUPS.items() if kind in kinds)


class Results:
    def __init__(self, path):
        self.meta, self.progs, self.elapsed = [], [], []
        self.cells = {}  # (mode, case, prec) -> record
        self.probes = {}  # (mode, case, prec) -> record of a logged probe run (small cases)
        self.unavailable = {}  # mode -> reason
        self.problems = collections.defaultdict(dict)  # group -> mode -> reason
        self.order = collections.defaultdict(list)  # group -> cases in first-seen order
        self.dir = os.path.dirname(os.path.abspath(path))
        self.logs = {}
        for r in json_lines(path, "fft_report"):
            self.add(r)

    def add(self, r):
        if "meta" in r:
            self.meta.append(r["meta"])
        elif "meta_prog" in r:
            self.progs.append(r["meta_prog"])
        elif "meta_end" in r:
            self.elapsed.append(r["meta_end"].get("elapsed_s"))
        elif "unavailable" in r:
            self.unavailable[r["mode"]] = r["unavailable"]
        elif "failed" in r or "not_run" in r:
            self.problems[r["group"]][r["mode"]] = r.get("failed") or r.get("not_run")
        elif "case" in r:
            key = (r["mode"], r["case"], r["prec"])
            (self.probes if r.get("probe") else self.cells)[key] = r
            g = group_of(r["kind"])
            if (r["case"], r["prec"]) not in self.order[g]:
                self.order[g].append((r["case"], r["prec"]))

    def modes(self, group):
        present = {m for (m, c, p) in self.cells if group_of(self.cells[(m, c, p)]["kind"]) == group}
        present |= set(self.problems[group])
        knobs = (self.meta[0].get("knobs") if self.meta else None) or {}
        asked = (knobs.get(group.upper() + "_MODES") or "").split()
        present |= {m for m in asked if m in self.unavailable}
        return [m for m in MODES if m in present]

    def log_counts(self, path):
        """(prec, kind, shape, howmany) -> {where: calls, "h2d": bytes, "d2h": bytes, "why": Counter}."""
        if path in self.logs:
            return self.logs[path]
        p = find_log("fft_report", path, [self.dir])
        if p is None:
            self.logs[path] = None
            return None
        counts = collections.defaultdict(lambda: {"gpu": 0, "cpu": 0, "h2d": 0, "d2h": 0, "why": collections.Counter()})
        for r in json_lines(p):
            rt = str(r.get("routine", ""))
            if not rt.startswith("fftw") or "shape" not in r:
                continue
            c = counts[("s" if rt.startswith("fftwf_") else "d", r.get("kind"), tuple(r["shape"]), r.get("b", 1))]
            c["gpu" if r.get("where") == "gpu" else "cpu"] += 1
            c["h2d"] += r.get("bytes_h2d") or 0
            c["d2h"] += r.get("bytes_d2h") or 0
            if r.get("where") != "gpu" and r.get("why"):
                c["why"][r["why"]] += 1
        self.logs[path] = counts
        return counts

    def where(self, rec):
        """This case's executes in its gpushim log: {gpu, cpu, h2d, d2h, why}, or None without a log."""
        path = rec.get("log")
        counts = self.log_counts(path) if path else None
        if counts is None:
            return None
        kind = {"r2c": "r2c", "c2r": "c2r"}.get(rec["kind"], "dft")
        shape = tuple(rec["dims"])
        return counts.get((rec["prec"], kind, shape, rec.get("howmany", 1)))


def ordered(cases):
    """(case, precision) pairs by case in first-seen order, double before single."""
    names = list(dict.fromkeys(c for c, _ in cases))
    return sorted(cases, key=lambda cp: (names.index(cp[0]), "ds".index(cp[1])))


def title(case):
    kind, _, rest = case.partition("-")
    if kind == "step":
        dims, _, steps = rest.rpartition("-")
        return f"c2c {pretty(dims)} loop, {steps} steps"
    if kind == "many":
        h, _, n = rest.partition("x")
        return f"{h} x c2c {n} (plan_many)"
    if kind == "tr":
        return f"c2c {pretty(rest)}, output transposed (guru64)"
    return f"{'c2c' if kind == 'small' else kind} {pretty(rest)}"


def pretty(dims):
    """512x512x512 -> 512^3, 16777216 -> 2^24 (powers of two), else as it is."""
    parts = dims.split("x")
    if len(set(parts)) == 1 and len(parts) > 1:
        return f"{parts[0]}^{len(parts)}"
    if len(parts) == 1:
        n = int(parts[0])
        if n >= 65536 and n & (n - 1) == 0:
            return f"2^{n.bit_length() - 1}"
    return dims


class Report(Page):
    def __init__(self, res):
        super().__init__()
        self.res = res
        self.wrong = []
        self.checked = 0
        self.ratios = collections.defaultdict(list)  # (group, other mode) -> [(ratio, case, prec)]

    def value(self, rec):
        """The cell's figure: ms per execute (large), per step (step), microseconds per execute (small)."""
        if rec["kind"] == "step":
            return rec.get("step_ms")
        if rec["kind"] == "small":
            return None if rec.get("best_ms") is None else 1e3 * rec["best_ms"]
        return rec.get("best_ms")

    def where_text(self, rec, group):
        probe = self.res.probes.get((rec["mode"], rec["case"], rec["prec"])) if group == "small" else rec
        w = self.res.where(probe) if probe else None
        if w is None:
            return ""
        text = f" [{w['gpu']}/{w['gpu'] + w['cpu']}"
        if group == "step" and w["gpu"]:
            calls = w["gpu"] + w["cpu"]
            text += f", {(w['h2d'] + w['d2h']) / calls * 2 / 1e9:.2g} GB/step"
        text += "]"
        if w["why"]:
            why, _ = w["why"].most_common(1)[0]
            text += f" ({self.note('gpushim kept calls on the CPU: ' + why)})"
        return text

    def cell(self, group, mode, case, prec):
        res = self.res
        rec = res.cells.get((mode, case, prec))
        if rec is None:
            if mode in res.unavailable:
                return f"n/a ({self.note(f'{MODES[mode][0]}: not run, ' + res.unavailable[mode])})"
            why = res.problems[group].get(mode)
            return f"- ({self.note(f'{MODES[mode][0]}, {group}: {why}')})" if why else ""
        if "error" in rec:
            return f"error ({self.note(f'{MODES[mode][0]} {title(case)} {prec}: ' + rec['error'])})"
        v = self.value(rec)
        text = "-" if v is None else fmt(v)
        self.checked += 1
        if rec.get("check") != "ok":
            self.wrong.append((group, mode, case, prec, rec.get("err"), rec.get("parseval"), rec.get("tol")))
            text = f"**WRONG** {text}"
        return text + self.where_text(rec, group)

    def ratio(self, group, case, prec, other):
        a = self.res.cells.get(("gpushim", case, prec))
        b = self.res.cells.get((other, case, prec))
        va = self.value(a) if a and "error" not in a else None
        vb = self.value(b) if b and "error" not in b else None
        if not va or not vb:
            return ""
        x = va / vb
        self.ratios[(group, other)].append((x, case, prec))
        return f"**{x:.2f}**" if x > SLOWER else f"{x:.2f}"

    def table(self, group, heading, unit, extra=None):
        res = self.res
        cases = res.order.get(group)
        modes = res.modes(group)
        if not cases and not modes:
            return
        self.lines += [f"## {heading}", ""]
        if not cases:
            self.lines += ["Nothing measured: " + "; ".join(f"{MODES[m][0]}: {res.unavailable.get(m) or res.problems[group].get(m)}"
                                                           for m in modes) + ".", ""]
            return
        others = [o for o in ("fftw", "cufftw") if o in modes and "gpushim" in modes]
        head = ["loop" if group == "step" else "transform", "precision"] + [MODES[m][0] for m in modes]
        head += [f"gpushim / {MODES[o][0]}" for o in others] + ([extra[0]] if extra else [])
        self.lines += [f"Figures in {unit}.", "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        for case, prec in ordered(cases):
            row = [title(case), PREC[prec]] + [self.cell(group, m, case, prec) for m in modes]
            row += [self.ratio(group, case, prec, o) for o in others]
            if extra:
                row.append(extra[1](case, prec))
            self.lines.append("| " + " | ".join(row) + " |")
        self.lines.append("")

    def step_split(self):
        """Where a step's time goes: forward, multiply, backward, per mode."""
        res = self.res
        recs = [r for (m, c, p), r in res.cells.items() if r["kind"] == "step" and "error" not in r]
        if not recs:
            return
        self.lines += ["Where a step's time goes (ms): forward + multiply on the CPU + backward; the multiply "
                       "includes what touching the arrays costs under each mode.", "",
                       "| loop | mode | forward | multiply | backward | first step |", "| --- | --- | --- | --- | --- | --- |"]
        for case, prec in ordered(res.order["step"]):
            for m in res.modes("step"):
                r = res.cells.get((m, case, prec))
                if r and "error" not in r:
                    self.lines.append(f"| {title(case)} {prec} | {MODES[m][0]} | {fmt(r['fwd_ms'])} | "
                                      f"{fmt(r['mul_ms'])} | {fmt(r['inv_ms'])} | {fmt(r['first_ms'])} |")
        self.lines.append("")

    def floor(self, case, prec):
        """The host link's floor for one execute: input and output bytes at LINK."""
        r = next((r for (m, c, p), r in self.res.cells.items() if c == case and p == prec), None)
        if not r:
            return ""
        es = 4 if prec == "s" else 8
        pts = math.prod(r["dims"]) * r.get("howmany", 1)
        half = pts // r["dims"][-1] * (r["dims"][-1] // 2 + 1)
        reals = {"c2c": 4 * pts, "many": 4 * pts, "tr": 4 * pts,
                 "r2c": pts + 2 * half, "c2r": pts + 2 * half}[r["kind"]]
        return fmt(1e3 * reals * es / LINK)

    def earlier(self, case, prec):
        e = EARLIER.get(case) if prec == "d" else None
        return f"{fmt(e[0])} / {fmt(e[1])}" if e else ""

    def summary(self):
        rows = []
        for group, other, what in (("small", "fftw", "small sizes: gpushim within 1.1 x FFTW (never slower)"),
                                   ("large", "fftw", "large transforms: gpushim faster than FFTW"),
                                   ("large", "cufftw", "large transforms: gpushim faster than cuFFTW"),
                                   ("step", "fftw", "time-stepping loop: gpushim faster than FFTW"),
                                   ("step", "cufftw", "time-stepping loop: gpushim faster than cuFFTW")):
            xs = self.ratios.get((group, other), [])
            if not xs:
                rows.append((what, "not measured", "n/a"))
                continue
            limit = SLOWER if group == "small" else 1.0
            over = sorted((x for x in xs if x[0] > limit), reverse=True)
            text = f"{len(xs) - len(over)} of {len(xs)}"
            if over:
                text += "; not at " + ", ".join(f"{title(c)} {p} ({x:.2f})" for x, c, p in over[:6])
            else:
                worst = max(xs)
                text += f"; worst ratio {worst[0]:.2f} ({title(worst[1])} {worst[2]})"
            rows.append((what, text, "yes" if not over else "**no**"))
        rows.append(("every result passes its check", f"{len(self.wrong)} wrong of {self.checked} checked",
                     "yes" if not self.wrong else "**FAIL**"))
        self.lines += ["## Summary", "", "| question | measured | |", "| --- | --- | --- |"]
        self.lines += [f"| {a} | {b} | {c} |" for a, b, c in rows] + [""]
        if self.wrong:
            self.lines += ["**WRONG RESULTS** (sampled outputs against FFTW's, relative 2-norm; Parseval's "
                           "identity, relative; over the tolerance):", ""]
            for g, m, c, p, err, pars, tol in self.wrong:
                self.lines.append(f"- {MODES[m][0]} {title(c)} {p}: error {err}, Parseval {pars}, tolerance {tol}")
            self.lines.append("")

    def render(self):
        res = self.res
        self.lines += ["# FFT benchmark", ""]
        fv = next((p.get("fftw_version") for p in res.progs if p.get("fftw_version")), "?")
        cp = next((p.get("cupy") for p in res.progs if p.get("cupy")), None)

        def versions(m):
            quick = ", **quick mode (tiny sizes, one timed run: tests the pipeline, measures nothing)**"
            return f", {fv}" + (f", CuPy {cp}" if cp else "") + (quick if m.get("quick") else "")

        self.lines += run_lines(res.meta, res.elapsed, versions)
        knobs = (res.meta[0].get("knobs") if res.meta else None) or {}
        plan = knobs.get("PLAN", "measure")
        self.lines += ["", f"Each cell is the time of whole executes as the program times them (fftw_execute from "
                       f"call to return), data in host memory from malloc unless the column says fftw_malloc. "
                       f"FFTW: the system's libfftw3 on {knobs.get('THREADS', '?')} threads (fftw_init_threads, "
                       f"plan_with_nthreads), FFTW_{plan.upper()}"
                       + (f" with at most {knobs.get('TIMELIMIT')} s of planning per plan and the wisdom kept "
                          "between runs" if plan == "measure" else "") +
                       "; gpushim plans through the same FFTW. cuFFTW: libcufftw preloaded (its own flag values "
                       "passed). CuPy: cupy.fft on cupy.asarray of the host array, cupy.asnumpy of the result, "
                       "synchronised: host to host. Large transforms: best of REPEAT executes after one warm-up, the "
                       "input rewritten by the CPU before each (so that no execute finds its input already on the "
                       "GPU); small sizes: the same plan executed back to back on the same arrays, best of REPEAT "
                       "batches; the loop: forward, a pointwise multiply on the CPU (all threads), backward, per "
                       f"step after one warm-up step. Ratios: gpushim (default policy, malloc) over the other; bold "
                       f"above {SLOWER}. [g/t]: of the case's t executes (warm-up included), g ran on the GPU, from "
                       "the gpushim log (for small sizes, from a separate logged run of three executes: the timed "
                       "run has no log). Every result is checked: Parseval's identity, and 4096 sampled outputs "
                       "against FFTW's.", ""]
        body, self.lines = self.lines, []
        self.table("large", "Large transforms", "ms per execute", ("floor at 55 GB/s", self.floor))
        if any(EARLIER.get(c) for c, p in res.order.get("large", [])):
            # the earlier figures as one more column would crowd the table: a line under it
            self.lines += ["Earlier figures (CEILINGS.md, 2026-12-01, double, FFTW 16 threads / cuFFTW, ms): " +
                           "; ".join(f"{title(c)} {self.earlier(c, 'd')}" for c in EARLIER) + ".", ""]
        self.table("step", "Time-stepping loop", "ms per step")
        self.step_split()
        self.table("small", "Small sizes", "microseconds per execute")
        tables, self.lines = self.lines, []
        self.summary()
        self.lines = body + self.lines + tables
        return self.text()


def svg(rep):
    """Grouped bars, log scale: one panel per group, a group of bars per case and precision, a bar per mode."""
    res = rep.res
    panels = [(g, h, u) for g, h, u in (("large", "Large transforms", "ms"), ("step", "Time-stepping loop", "ms/step"),
                                       ("small", "Small sizes", "us/execute")) if res.order.get(g)]
    used = [m for m in MODES if any(k[0] == m for k in res.cells)]
    bw, gap, L, T, B, PH = 12, 18, 60, 34, 70, 230
    width = max(640, L + 20 + max((len(res.order[g]) * (len(res.modes(g)) * bw + gap) for g, _, _ in panels),
                                  default=0))
    height = 50 + len(panels) * (PH + T + B) + 10
    out = svg_open(width, height, "FFT: time per execute or step, log scale (lower is better)", 18)
    for i, m in enumerate(used):
        x = 20 + (i % 6) * 150
        y = 34 + 14 * (i // 6)
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{MODES[m][1]}"/>')
        out.append(f'<text x="{x + 14}" y="{y}">{MODES[m][0]}</text>')
    oy = 50 + 14 * ((len(used) - 1) // 6)
    for g, heading, unit in panels:
        modes = [m for m in res.modes(g) if m in used]
        vals = [rep.value(r) for (m, c, p), r in res.cells.items() if group_of(r["kind"]) == g and "error" not in r]
        vals = [v for v in vals if v]
        if not vals:
            continue
        y0, y1 = decades(vals)
        top = oy + T

        def Y(v):
            return top + PH * (1 - (math.log10(v) - y0) / (y1 - y0))

        out.append(f'<text x="{L}" y="{oy + T - 10}" font-size="12" font-weight="bold">{heading} ({unit})</text>')
        out += y_grid(L, width - 10, y0, y1, Y)
        x = L + gap / 2
        for case, prec in ordered(res.order[g]):
            gx = x
            for m in modes:
                r = res.cells.get((m, case, prec))
                v = rep.value(r) if r and "error" not in r else None
                if v:
                    mark = ' stroke="red" stroke-width="2"' if r.get("check") != "ok" else ""
                    out.append(f'<rect x="{x:.1f}" y="{Y(v):.1f}" width="{bw - 1}" height="{top + PH - Y(v):.1f}" '
                               f'fill="{MODES[m][1]}"{mark}>'
                               f'<title>{MODES[m][0]} {title(case)} {prec}: {fmt(v)} {unit}</title></rect>')
                x += bw
            cx = (gx + x) / 2
            out.append(f'<text transform="translate({cx:.1f},{top + PH + 10}) rotate(35)" font-size="10">'
                       f'{title(case)} {prec}</text>')
            x += gap
        out.append(f'<line x1="{L}" y1="{top + PH}" x2="{width - 10}" y2="{top + PH}" stroke="#999"/>')
        oy += PH + T + B
    return svg_close(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw", nargs="?", default="bench/results/fft.jsonl")
    ap.add_argument("--out")
    args = ap.parse_args()
    rep = Report(Results(args.raw))
    write(out_prefix(args.out, args.raw), rep.render(), svg(rep))
    return 1 if rep.wrong else 0


sys.exit(main())

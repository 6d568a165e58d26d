"""What the benchmarks' report scripts share (bench/gemm_report.py, bench/fft_report.py): reading JSON lines and
finding the gpushim logs that raw results name, a Markdown page with numbered notes, the pieces of an SVG chart
on a log scale, and writing the .md and .svg.  Standard library only; the scripts import it from their own folder.
"""
import json
import math
import os
import sys


def json_lines(path, prog=None):
    """The JSON records in the file at path, one a line.  A line that is not JSON is passed over: named on stderr
    as prog's when prog is given (a raw file), silently otherwise (a log, which other writers may share)."""
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                if prog:
                    print(f"{prog}: {path}:{i}: not JSON, ignored", file=sys.stderr)
                continue
            yield r


def find_log(prog, path, dirs):
    """The gpushim log that a record names: at its path, else under its name in one of dirs (the raw files'
    folders: results copied from the GPU machine keep their logs beside them).  None, said on stderr, if neither."""
    for p in [path] + [os.path.join(d, os.path.basename(path)) for d in dirs]:
        if os.path.exists(p):
            return p
    print(f"{prog}: no gpushim log {path}: calls on the GPU not shown", file=sys.stderr)
    return None


def fmt(t):
    """A time for a table: three or four significant digits, no exponent."""
    if t >= 100:
        return f"{t:.0f}"
    if t >= 10:
        return f"{t:.1f}"
    if t >= 1:
        return f"{t:.2f}"
    return f"{t:.3f}"


def run_lines(metas, elapsed, versions):
    """The lines that say what ran: per meta record its date, host, GPU, commit, then versions(meta) (text to
    append, starting with a comma), and its knobs; then the wall time of the runs."""
    lines = []
    for m in metas:
        lines.append(f"Run {m.get('date')} on {m.get('host')} ({m.get('cpus')} CPUs, GPU: {m.get('gpu')}), "
                     f"commit {m.get('commit')}{versions(m)}.")
        lines.append("Knobs: " + "; ".join(f"{a}={b}" for a, b in m.get("knobs", {}).items() if b) + ".")
    if elapsed:
        lines.append(f"Wall time of the runs: {' + '.join(f'{e} s' for e in elapsed)}.")
    return lines


class Page:
    """A Markdown page being built: its lines, and the notes that cells point to as (n), numbered in order of
    first use (the same text twice is one note)."""

    def __init__(self):
        self.lines = []
        self.notes = {}  # text -> number

    def note(self, text):
        return self.notes.setdefault(text, len(self.notes) + 1)

    def text(self):
        """The page: its lines, then the notes (two trailing blanks: a Markdown line break each)."""
        lines = list(self.lines)
        if self.notes:
            lines += ["Notes:", ""] + [f"({i}) {t}  " for t, i in self.notes.items()] + [""]
        return "\n".join(lines) + "\n"


def svg_open(width, height, title, title_y):
    """The start of a chart: the root element (sans-serif, 11 px), a white background, the title centred at
    title_y."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{height}" fill="white"/>',
            f'<text x="{width / 2}" y="{title_y}" text-anchor="middle" font-size="14">{title}</text>']


def svg_close(out):
    """The chart's text from its elements."""
    return "\n".join(out + ["</svg>"]) + "\n"


def decades(values):
    """(lo, hi): the exponents of the powers of ten that bracket the positive values, at least one apart."""
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return lo, hi + (hi == lo)


def y_grid(left, right, lo, hi, Y):
    """A horizontal grid line from left to right at each power of ten 10^lo ... 10^hi (its height Y(value)),
    labelled at the left."""
    out = []
    for e in range(lo, hi + 1):
        y = Y(10.0 ** e)
        label = f"{10.0 ** e:g}" if -3 <= e <= 4 else f"1e{e}"
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    return out


def out_prefix(out, raw):
    """Where the report goes: --out's prefix, else the raw file's path without .jsonl."""
    return out or (raw[:-6] if raw.endswith(".jsonl") else raw)


def write(prefix, md, svg):
    """Writes PREFIX.md and PREFIX.svg, prints the Markdown, and names both files on stderr."""
    with open(prefix + ".md", "w") as f:
        f.write(md)
    with open(prefix + ".svg", "w") as f:
        f.write(svg)
    print(md, end="")
    print(f"(written: {prefix}.md, {prefix}.svg)", file=sys.stderr)

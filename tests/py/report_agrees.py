"""Whether gpushim-report's JSON and the exit summary (GPUSHIM_SUMMARY=1, on stderr) of the same run agree,
routine by routine: calls, GPU calls, and megabytes to, from and saved.  Prints the routines that differ.
usage: python report_agrees.py SUMMARY REPORT.json   (exit status 0 when they agree)"""
import json
import sys

summary = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 10 and f[0] == "gpushim:" and f[2].isdigit():
        summary[f[1]] = (int(f[2]), int(f[3]), f[6], f[7], f[8])
report = {r["routine"]: (r["calls"], r["gpu_calls"], f"{r['bytes_h2d'] * 1e-6:.1f}", f"{r['bytes_d2h'] * 1e-6:.1f}",
                         f"{r['bytes_saved'] * 1e-6:.1f}") for r in json.load(open(sys.argv[2]))["routines"]}
for k in sorted(set(summary) | set(report)):
    if summary.get(k) != report.get(k):
        print(f"  {k}: summary {summary.get(k)}, report {report.get(k)}")
sys.exit(not summary or summary != report)

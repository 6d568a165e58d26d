"""Checks a policy file that gpushim-calibrate wrote (tests/t_calibrate.sh): the "*" line and one line for each
routine measured, each with the keys it should have and no other, every value a finite number above 0 (or 0 and
more for the times); with LOG, that the library read the values (its log's header holds each routine's rule).

usage: calibrated.py FILE MODE [LOG]   MODE: gpu (the whole model) or cpu (the CPU's keys alone: --no-gpu, no GPU),
                                       with ",nofft" when the FFTW routines were not measured (--no-fft)
Prints each fault and exits 1 when there is one."""
import json
import math
import sys

LEVEL3 = [p + op for p in "sdcz" for op in ("gemm", "symm", "syrk", "syr2k", "trmm", "trsm")] + \
    [p + op for p in "cz" for op in ("hemm", "herk", "her2k")]
LAPACK = ["dgetrf", "dpotrf", "dgeqrf", "dsyevd", "sgetrf", "spotrf"]
FFT = ["fftw_execute", "fftwf_execute"]
MODEL = {"min_flops", "cpu_gflops", "cpu_us", "gpu_gflops", "link_gbps", "latency_us", "serial"}
TIMES = {"cpu_us", "latency_us", "setup_us", "bringup_us"}  # may be 0
ZERO = {"cpu_gbps", "serial"}  # always 0: the fit has no memory term for the CPU, and overlaps copies
HEADER = ("min_flops", "cpu_gflops", "gpu_gflops", "link_gbps", "latency_us", "setup_us")  # the log's rules


def expected(pattern, gpu):
    """(keys a line must have, keys it may have)."""
    if pattern == "*":
        return ({"threads", "bringup_us", "cpu_gbps"}, {"registered_gbps", "register_gbps"}) if gpu else \
            ({"threads", "cpu_gbps"}, set())
    if not gpu:
        return {"cpu_gflops", "cpu_us"}, {"threads"} if pattern in FFT else set()
    need = MODEL | ({"bringup_us"} if pattern in LAPACK + FFT else set()) | ({"setup_us"} if pattern in FFT else set())
    return need, {"threads"} if pattern in FFT else set()


def main(path, mode, log=None):
    faults, rules = [], {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if line:
            rules[line[0]] = dict(kv.split("=", 1) for kv in line[1:])
    for pattern in ["*"] + LEVEL3 + LAPACK + (FFT if "nofft" not in mode else []):
        if pattern not in rules:
            faults.append(f"no line for {pattern}")
            continue
        keys = rules.pop(pattern)
        need, may = expected(pattern, mode.startswith("gpu"))
        if need - set(keys) or set(keys) - need - may:
            faults.append(f"{pattern}: keys {sorted(keys)}, not {sorted(need)} and maybe {sorted(may)}")
        for k, v in keys.items():
            x = float(v)
            if not math.isfinite(x) or x < 0 or (x == 0 and k not in TIMES | ZERO) or (x != 0 and k in ZERO):
                faults.append(f"{pattern}: {k}={v}")
    faults += [f"a line for {p}, which is not measured" for p in rules]
    if log:
        with open(log) as f:
            read = json.loads(f.readline())["rules"]
        for line in open(path):
            line = line.split("#", 1)[0].split()
            for kv in line[1:] if line and line[0] != "*" else ():
                k, v = kv.split("=", 1)
                if k in HEADER and not math.isclose(read[line[0]][HEADER.index(k)], float(v), rel_tol=1e-5):
                    faults.append(f"{line[0]}: the library read {k}={read[line[0]][HEADER.index(k)]}, not {v}")
    for f in faults:
        print(f"{path}: {f}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))

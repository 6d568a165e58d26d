"""The first call in a fresh process (issue 20): makes the operands of one NumPy call without BLAS, times that
one call with time.perf_counter, and prints one JSON line: op, n, s (the call's seconds), a check of the result
made without BLAS, and, when GPUSHIM_LOG names a file, the log's records of the call (where it ran, why, the
cost model's predictions) and how many records came before it (NumPy's own calls at import).
bench/policy.sh runs it once per process, in each mode, and times the whole process from outside.

usage: python bench/first_call.py OP N
  OP: matmul (A @ A, float64), eigh (np.linalg.eigh of a symmetric A), solve (np.linalg.solve, one right-hand
  side), solve64 (64 right-hand sides) or svd (np.linalg.svd, U, s and V^T)
"""
import json
import os
import sys
import time

t_start = time.perf_counter()
import numpy as np  # noqa: E402  (its import is timed)

t_imported = time.perf_counter()
OPS = ("matmul", "eigh", "solve", "solve64", "svd")


def log_calls(path):
    """The call records in the offload log so far (a file read: no BLAS)."""
    if not path or not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "routine" in r:
                out.append(r)
    return out


def operands(op, n, rng):
    """The call's inputs, made with elementwise arithmetic only: no BLAS before the timed call."""
    a = rng.random((n, n)) - 0.5
    if op == "eigh":
        a = a + a.T  # symmetric
    if op.startswith("solve"):
        a.flat[::n + 1] += n  # diagonally dominant: well conditioned
        b = rng.random(n if op == "solve" else (n, 64)) - 0.5
        return a, b
    return a, None


def call(op, a, b):
    if op == "matmul":
        return a @ a
    if op == "eigh":
        return np.linalg.eigh(a)
    if op == "svd":
        return np.linalg.svd(a)
    return np.linalg.solve(a, b)


def check(op, a, b, out, rng):
    """Largest scaled error on sampled rows, each a sum of elementwise products (no BLAS after the call
    either, so that the log holds the timed call alone)."""
    n = a.shape[0]
    rows = rng.integers(0, n, 8)
    if op == "matmul":
        cols = rng.integers(0, n, 8)
        ref = np.array([np.sum(a[i, :] * a[:, j]) for i, j in zip(rows, cols)])
        mag = np.array([np.sum(np.abs(a[i, :]) * np.abs(a[:, j])) for i, j in zip(rows, cols)])
        return float(np.max(np.abs(out[rows, cols] - ref) / mag))
    if op == "eigh":
        w, v = out
        worst = 0.0
        for k in (0, n // 2, n - 1):
            r = (a[rows] * v[:, k]).sum(axis=1) - w[k] * v[rows, k]
            worst = max(worst, float(np.max(np.abs(r))) / max(abs(w).max(), 1e-300))
        return worst
    if op == "svd":  # sampled entries of U S V^T against A's, scaled by the largest singular value
        u, sv, vt = out
        cols = rng.integers(0, n, 8)
        rec = np.array([np.sum(u[i, :] * sv * vt[:, j]) for i, j in zip(rows, cols)])
        return float(np.max(np.abs(rec - a[rows, cols]))) / sv[0]
    x = out.reshape(n, -1)
    bb = b.reshape(n, -1)
    worst = 0.0
    for c in sorted({0, x.shape[1] - 1}):
        r = (a[rows] * x[:, c]).sum(axis=1) - bb[rows, c]
        scale = (np.abs(a[rows]) * np.abs(x[:, c])).sum(axis=1) + np.abs(bb[rows, c])
        worst = max(worst, float(np.max(np.abs(r) / scale)))
    return worst


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in OPS or not sys.argv[2].isdigit():
        sys.exit(f"usage: python bench/first_call.py {'|'.join(OPS)} N")
    op, n = sys.argv[1], int(sys.argv[2])
    rng = np.random.default_rng(2026)
    t0 = time.perf_counter()
    a, b = operands(op, n, rng)
    setup = time.perf_counter() - t0
    log = os.environ.get("GPUSHIM_LOG")
    before = log_calls(log)
    t0 = time.perf_counter()
    out = call(op, a, b)
    s = time.perf_counter() - t0
    during = log_calls(log)[len(before):]
    err = check(op, a, b, out, rng)
    rec = {"op": op, "n": n, "s": s, "import_s": round(t_imported - t_start, 4), "setup_s": round(setup, 4),
           "err": float(f"{err:.3e}"), "check": "ok" if err < 1e-8 else "WRONG"}
    if log:
        keep = ("routine", "where", "why", "seconds", "predicted_cpu_s", "predicted_gpu_s")
        rec["calls_before"] = [r["routine"] for r in before]
        rec["calls"] = [{k: r[k] for k in keep if k in r} for r in during]
    print(json.dumps(rec), flush=True)


main()

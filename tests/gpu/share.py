"""Sharing the GPU (issue 24, tests/gpu/run.sh group share), under LD_PRELOAD=libgpushim.so on the H200 machine.

Each scenario runs in a process of its own (this script with the scenario's name):
  torch, cupy, jax  NumPy's products leave tens of GB cached by the shim; then the framework asks for 95% of
                    the device, which must succeed; its current device, stream and context are unchanged; a
                    product made while it holds that memory is right, and so is one after it let go.
  other             another process (without the shim) holds most of the device: products and a solve are
                    right, and a product larger than the memory left is right too.
It also lists which CUDA allocation functions each framework's libraries import by name (the ones the shim's
yield can see).  Prints PASS/FAIL lines and one JSON line of figures per scenario; exit status 1 on a failure.
usage: share.py OUTDIR [SCENARIO...]
"""
import ctypes
import glob
import json
import os
import subprocess
import sys
import time

import numpy as np

HOOKS = ("cudaMalloc", "cudaMallocAsync", "cuMemAlloc_v2", "cuMemCreate")
N = int(os.environ.get("SHARE_N", "16384"))  # order of the cached products' matrices
PAIRS = int(os.environ.get("SHARE_PAIRS", "6"))  # pairs of them: PAIRS * 2 * N * N * 8 bytes cached
failures = []


def check(name, cond, detail=""):
    print(("PASS " if cond else "FAIL ") + name + (": " + detail if detail else ""), flush=True)
    if not cond:
        failures.append(name)


def cuda_driver():
    return ctypes.CDLL("libcuda.so.1")


def current_context(drv):
    ctx = ctypes.c_void_p()
    drv.cuCtxGetCurrent(ctypes.byref(ctx))
    return ctx.value


def primary_context(drv):
    ctx = ctypes.c_void_p()
    drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0)
    drv.cuDevicePrimaryCtxRelease(0)
    return ctx.value


def mem_info(drv):
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    drv.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total))
    return free.value, total.value


def constant_products(pairs, n):
    """pairs products of constant matrices, each made twice so that the shim keeps its operands, all kept alive;
    each checked against its known value (every element n * a * b)."""
    right, kept = True, []
    for i in range(pairs):
        a, b = np.full((n, n), 1.0 + i), np.full((n, n), 0.5 + i)
        kept.append((a, b))  # alive, so that the shim keeps their device copies
        for _ in range(2):
            c = a @ b
            right &= bool(np.all(c == n * (1.0 + i) * (0.5 + i)))
    return right, kept


class Framework:
    """The framework's calls this test needs: init, its current stream and device, allocate, release."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            import torch
            self.m = torch
            torch.zeros(1, device="cuda")
        elif name == "cupy":
            import cupy
            self.m = cupy
            cupy.zeros(1)
        else:
            import jax
            import jax.numpy as jnp
            self.m, self.jnp = jax, jnp
            jnp.zeros(1).block_until_ready()

    def state(self):
        if self.name == "torch":
            return (self.m.cuda.current_device(), self.m.cuda.current_stream().cuda_stream)
        if self.name == "cupy":
            return (self.m.cuda.runtime.getDevice(), self.m.cuda.get_current_stream().ptr)
        return (self.m.devices()[0].id, None)

    def allocate(self, nbytes):
        if self.name == "torch":
            return self.m.empty(nbytes, dtype=self.m.uint8, device="cuda")
        if self.name == "cupy":
            return self.m.empty(nbytes, dtype=self.m.uint8)
        x = self.jnp.zeros(nbytes // 4, dtype=self.jnp.float32)
        x.block_until_ready()
        return x

    def release(self, x):
        del x
        if self.name == "torch":
            self.m.cuda.empty_cache()
        elif self.name == "cupy":
            self.m.get_default_memory_pool().free_all_blocks()


def compute_apps():
    q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                       capture_output=True, text=True).stdout
    return [line.split(", ") for line in q.strip().splitlines() if line.strip()]


def framework(name):
    if name == "jax":  # allocate on demand, up to nearly all of the device, as the test asks for 95%
        os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "0.98"
    drv = cuda_driver()
    fw = Framework(name)
    before = fw.state()
    ctx = current_context(drv)
    free0, total = mem_info(drv)
    t0 = time.time()
    right, kept = constant_products(PAIRS, N)
    a, b = kept[-1]
    fill_s = time.time() - t0
    free1, _ = mem_info(drv)
    held = free0 - free1
    check(f"{name}: {PAIRS} products of order {N} right", right)
    check(f"{name}: the shim holds device memory after them ({held / 2**30:.1f} GiB)", held > total // 20)
    want = total // 20 * 19
    t0 = time.time()
    try:
        x = fw.allocate(want)
        got, err = True, ""
    except Exception as e:  # the framework's out-of-memory error
        x, got, err = None, False, str(e).splitlines()[0][:200]
    alloc_s = time.time() - t0
    check(f"{name}: the framework's 95% allocation succeeds after the shim cached", got, err)
    check(f"{name}: current device and stream unchanged", fw.state() == before, f"{before} -> {fw.state()}")
    check(f"{name}: the thread's context is the primary one, unchanged",
          current_context(drv) == ctx and (ctx is None or ctx == primary_context(drv)))
    c = a @ b
    check(f"{name}: a product while the framework holds the memory is right", bool(np.all(c == N * a[0, 0] * b[0, 0])))
    if x is not None:
        fw.release(x)
    c = a @ b
    check(f"{name}: a product after it let go is right", bool(np.all(c == N * a[0, 0] * b[0, 0])))
    apps = compute_apps()
    mine = [p for p in apps if p[0] == str(os.getpid())]
    if apps:
        check(f"{name}: one CUDA context in this process (nvidia-smi)", len(mine) == 1, str(apps))
    else:
        print(f"NOTE {name}: nvidia-smi lists no compute processes here (a container's PID namespace)")
    print(json.dumps({"scenario": name, "n": N, "pairs": PAIRS, "cached_gib": round(held / 2**30, 1),
                      "fill_s": round(fill_s, 1), "alloc_s": round(alloc_s, 2), "allocated_gib": round(want / 2**30, 1),
                      "total_gib": round(total / 2**30, 1)}), flush=True)


HOLDER = """
import sys, time, torch
free, total = torch.cuda.mem_get_info()
x = torch.empty(int(free - float(sys.argv[1]) * 2**30), dtype=torch.uint8, device="cuda")
print("held", x.numel(), flush=True)
sys.stdin.read()
"""


def reference(n, seed):
    """A product and a solve from seed, with NumPy alone (a process without the shim)."""
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    return a, b, a @ b, np.linalg.solve(a + n * np.eye(n), b[:, :64])


def other(outdir):
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    ref = os.path.join(outdir, "other_ref.npz")
    subprocess.run([sys.executable, "-c", "import sys, numpy as np; sys.path.insert(0, sys.argv[2]);"
                    "import share; a, b, c, x = share.reference(4096, 7); np.savez(sys.argv[1], c=c, x=x)",
                    ref, os.path.dirname(os.path.abspath(__file__))], env=env, check=True)
    r = np.load(ref)
    leave = float(os.environ.get("SHARE_LEAVE_GIB", "6"))
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(leave)], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    line = holder.stdout.readline()
    check(f"other: another process holds all but {leave:g} GiB of the device", line.startswith("held"), line.strip())
    try:
        a, b, c, x = reference(4096, 7)
        check("other: product right", np.allclose(c, r["c"], rtol=1e-12, atol=1e-9))
        check("other: solve right", np.allclose(x, r["x"], rtol=1e-10, atol=1e-12))
        n = 20000  # three matrices of 3.2 GB: more than the device has left
        rng = np.random.default_rng(3)
        a, b = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        t0 = time.time()
        c = a @ b
        big_s = time.time() - t0
        v = rng.standard_normal(n)
        err = np.linalg.norm(c @ v - a @ (b @ v)) / np.linalg.norm(a @ (b @ v))
        check(f"other: a product of order {n}, larger than the memory left, right (relative error {err:.1e})",
              err < 1e-12)
        print(json.dumps({"scenario": "other", "left_gib": leave, "big_n": n, "big_s": round(big_s, 1)}), flush=True)
    finally:
        holder.stdin.close()
        holder.wait()


def imports():
    """Which of the interposed allocation functions each framework's libraries import (readelf)."""
    import importlib.util
    found = {}
    for pkg in ("torch", "cupy", "cupy_backends", "jaxlib", "jax_plugins", "nvidia"):
        spec = importlib.util.find_spec(pkg)
        if not spec or not spec.submodule_search_locations:
            continue
        for root in spec.submodule_search_locations:
            for so in glob.glob(os.path.join(root, "**", "*.so*"), recursive=True):
                out = subprocess.run(["readelf", "--dyn-syms", "-W", so], capture_output=True, text=True).stdout
                und = sorted({w.split("@")[0] for line in out.splitlines() if " UND " in line
                              for w in line.split()[7:8] if w.split("@")[0] in HOOKS})
                if und:
                    found[os.path.relpath(so, os.path.dirname(root))] = und
    print(json.dumps({"imports": found}), flush=True)


def main(argv):
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    wanted = argv[2:] or ["imports", "torch", "cupy", "jax", "other"]
    if len(wanted) > 1:  # each scenario in a process of its own
        rc = 0
        for s in wanted:
            rc |= subprocess.run([sys.executable, os.path.abspath(__file__), outdir, s]).returncode
        return rc
    s = wanted[0]
    if s == "imports":
        imports()
    elif s == "other":
        other(outdir)
    else:
        framework(s)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Matrix products as scientists write them, in all four dtypes, plus scipy.linalg.blas calls; every result is
saved to OUT.npz for compare.py.  Under the shim these reach the interposed symbols: scipy_cblas_*64_ from
PyPI's NumPy 2.x, cblas_* from Debian's NumPy, scipy_* and plain Fortran names from SciPy.

usage: python blas_numpy.py OUT.npz [--no-scipy]
"""
import sys

import numpy as np

rng = np.random.default_rng(20261129)
out = {}


def rand(shape, dt):
    a = rng.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


for dt in (np.float32, np.float64, np.complex64, np.complex128):
    name = np.dtype(dt).name
    a, b = rand((120, 90), dt), rand((90, 70), dt)
    x, y = rand(90, dt), rand(90, dt)
    out[f"{name} a@b"] = a @ b
    out[f"{name} a.T@c"] = a.T @ rand((120, 50), dt)
    out[f"{name} a@a.T"] = a @ a.T
    out[f"{name} a.T@a"] = a.T @ a
    out[f"{name} a^H@a"] = a.conj().T @ a
    out[f"{name} sliced"] = a[::2, 1:] @ b[1:, ::3]
    out[f"{name} fortran"] = np.asfortranarray(a) @ np.asfortranarray(b)
    out[f"{name} dot"] = np.dot(a, b)
    out[f"{name} batched"] = rand((4, 30, 40), dt) @ rand((4, 40, 20), dt)
    out[f"{name} matvec"] = a @ x
    out[f"{name} vecmat"] = rand(120, dt) @ a
    out[f"{name} vdot"] = np.vdot(x, y)
    out[f"{name} inner"] = np.inner(a, rand((60, 90), dt))
    out[f"{name} dot1d"] = np.dot(x, y)
    out[f"{name} dot scalar"] = np.dot(np.array(2.5, dt), x)
    c = np.empty((120, 70), dt)
    np.matmul(a, b, out=c)
    out[f"{name} out="] = c

if "--no-scipy" not in sys.argv:
    from scipy.linalg import blas

    for p, dt in (("s", np.float32), ("d", np.float64), ("c", np.complex64), ("z", np.complex128)):
        a, b = rand((80, 60), dt), rand((80, 60), dt)
        sq, rhs = rand((80, 80), dt), rand((80, 50), dt)
        tri = np.triu(sq) * 0.2 + 4 * np.eye(80, dtype=dt)
        f = lambda n: getattr(blas, p + n)  # noqa: E731
        out[f"{p}gemm"] = f("gemm")(1.5, a, b, trans_a=1)
        out[f"{p}gemm beta"] = f("gemm")(0.5, a, b, beta=2.0, c=rand((80, 80), dt), trans_b=1)
        out[f"{p}symm"] = f("symm")(1.0, sq, rhs, side=0, lower=1)
        out[f"{p}syrk"] = f("syrk")(1.0, a, trans=1, lower=0)
        out[f"{p}syr2k"] = f("syr2k")(1.0, a, b, lower=1)
        out[f"{p}trmm"] = f("trmm")(2.0, tri, rhs, side=0, lower=0, trans_a=1, diag=0)
        out[f"{p}trsm"] = f("trsm")(2.0, tri, rhs, side=0, lower=0, trans_a=0, diag=1)
        out[f"{p}trsm right"] = f("trsm")(1.0, tri[:50, :50], rhs, side=1, lower=0, trans_a=1)
        if p in "cz":
            out[f"{p}hemm"] = f("hemm")(1.0, sq[:50, :50], rhs, side=1, lower=1)
            out[f"{p}herk"] = f("herk")(1.0, a, trans=2, lower=1)
            out[f"{p}her2k"] = f("her2k")(1.0, a, b, lower=0)

np.savez(sys.argv[1], **out)
print(f"blas_numpy: {len(out)} results")

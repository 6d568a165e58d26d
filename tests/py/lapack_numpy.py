"""numpy.linalg and scipy.linalg calls that reach LAPACK, in float64 and complex128, for the shim's tests:
saves sign-free results (solutions, factors that are unique, eigenvalues and singular values, and the
products that rebuild the matrix from vectors) to RESULT.npz for tests/py/compare.py.  A singular solve and a
matrix that is not positive definite must raise LinAlgError, as without the shim (their INFO > 0).  lstsq's
solution, residuals, rank and singular values, also of a rank-deficient and a wide matrix.  The
factor of lu_factor is used by three lu_solve calls, so that the residency cache can serve it.  A matrix
LAPACK destroys must come back changed, as the CPU library leaves it, when SciPy is allowed to overwrite it.

usage: python lapack_numpy.py RESULT.npz [N]
"""
import sys

import numpy as np
import scipy.linalg as sla
from scipy.linalg.lapack import _compute_lwork


def gelsd_overwrite(a, b):
    """gelsd through SciPy's wrapper with overwrite_a, which SciPy 1.18's lstsq passes on and 1.17's does not"""
    f, fl = sla.get_lapack_funcs(("gelsd", "gelsd_lwork"), (a,))
    bn = np.zeros((a.shape[1], b.shape[1]), dtype=a.dtype)
    bn[: a.shape[0]] = b
    f(a, bn, *_compute_lwork(fl, *a.shape, b.shape[1], -1), -1, overwrite_a=True)


n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
rng = np.random.default_rng(5)
out = {}
for dt in (np.float64, np.complex128):
    t = np.dtype(dt).char
    a = rng.random((n, n)) - 0.5
    if dt == np.complex128:
        a = a + 1j * (rng.random((n, n)) - 0.5)
    a = a.astype(dt)
    h = a @ a.conj().T + n * np.eye(n, dtype=dt)
    b = rng.random((n, 8)).astype(dt)
    out[t + "solve"] = np.linalg.solve(a, b)
    out[t + "inv"] = np.linalg.inv(a)
    out[t + "det"] = np.array(np.linalg.det(a))
    out[t + "chol"] = np.linalg.cholesky(h)
    w, v = np.linalg.eigh(h)
    out[t + "eigh_w"], out[t + "eigh_rebuilt"] = w, (v * w) @ v.conj().T
    sing = a.copy()
    sing[:, 3] = 0
    u, s, vt = np.linalg.svd(a)
    out[t + "svd_s"], out[t + "svd_rebuilt"] = s, (u * s) @ vt
    q, r = np.linalg.qr(a)
    out[t + "qr_rebuilt"], out[t + "qr_absdiag"] = q @ r, np.abs(np.diag(r))
    w = np.linalg.eigvals(a)
    out[t + "eig_w"] = w[np.lexsort((w.imag.round(6), w.real.round(6)))]
    lu = sla.lu_factor(a)
    for i in range(3):
        out[t + f"lu_solve{i}"] = sla.lu_solve(lu, b * (i + 1))
    c = sla.cho_factor(h)
    out[t + "cho_solve"] = sla.cho_solve(c, b)
    # gesdd in its other forms: rank-deficient (gesvdp must not be trusted there), tall with every vector and
    # with min(m, n) of them, and without vectors.
    u, s, vt = np.linalg.svd(sing)
    out[t + "svd_rankdef_s"], out[t + "svd_rankdef_rebuilt"] = s, (u * s) @ vt
    tall = np.vstack([a, a[: n // 2] * 0.5])
    u, s, vt = np.linalg.svd(tall)
    out[t + "svd_tall_rebuilt"], out[t + "svd_tall_uhu"] = (u[:, :n] * s) @ vt, u.conj().T @ u
    u, s, vt = np.linalg.svd(tall, full_matrices=False)
    out[t + "svd_econ_s"], out[t + "svd_econ_rebuilt"] = s, (u * s) @ vt
    out[t + "svdvals"] = np.linalg.svd(a, compute_uv=False)
    # A, which LAPACK destroys, changes when the caller lets SciPy hand it over (overwrite_a), as on the CPU.
    for name, f, m in (("gesdd", lambda x: sla.svd(x, overwrite_a=True), a),
                       ("gesvd", lambda x: sla.svd(x, overwrite_a=True, lapack_driver="gesvd"), a),
                       ("geev", lambda x: sla.eig(x, overwrite_a=True), a),
                       ("gelsd_wide", lambda x: gelsd_overwrite(x, b), tall.T)):
        x = np.array(m, order="F")
        f(x)
        out[t + name + "_changed_a"] = np.array(float(not np.array_equal(x, m)))
    # lstsq (gelsd): square, tall (residuals from B's last rows), rank-deficient and wide (minimum-norm
    # solutions).
    btall = np.vstack([b, b[: n // 2] * 0.25])
    for name, m, rhs in (("lstsq", a, b), ("lstsq_tall", tall, btall),
                         ("lstsq_rankdef", np.vstack([sing, sing[: n // 2]]), btall), ("lstsq_wide", tall.T, b)):
        x, res, rank, sv = np.linalg.lstsq(m, rhs, rcond=None)
        out[t + name + "_x"], out[t + name + "_res"], out[t + name + "_s"] = x, res, sv
        out[t + name + "_rank"] = np.array(float(rank))
    for name, f, m in (("singular", np.linalg.solve, sing), ("notpd", np.linalg.cholesky, -h)):
        try:
            f(m, b) if name == "singular" else f(m)
            out[t + name] = np.array(0.0)
        except np.linalg.LinAlgError:
            out[t + name] = np.array(1.0)
np.savez(sys.argv[1], **out)

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


def projector(v):
    """v v^H: the same for any signs (phases) of the vectors"""
    return v @ v.conj().T


def drivers(t, a, h, b):
    """The drivers SciPy calls by default: syevr (eigh's default, every range) and syevx, gesv's pivots, the
    symmetric indefinite solves (sysv, sytrf by ldl), gees (schur) and gelsy, with the outputs LAPACK defines"""
    lp = sla.lapack
    w, v = sla.eigh(h)
    out[t + "evr_w"], out[t + "evr_proj"] = w, projector(v)
    w, v = sla.eigh(h, subset_by_index=[3, 12])
    out[t + "evr_idx_w"], out[t + "evr_idx_proj"] = w, projector(v)
    mid = float(np.median(np.linalg.eigvalsh(h)))
    w, v = sla.eigh(h, subset_by_value=[mid, np.inf])
    out[t + "evr_val_w"], out[t + "evr_val_proj"] = w, projector(v)
    out[t + "evr_vals"] = sla.eigh(h, eigvals_only=True)
    w, v = sla.eigh(h, driver="evx", subset_by_index=[0, 9])
    out[t + "evx_w"], out[t + "evx_proj"] = w, projector(v)
    # syevr called directly, with the optimal workspace (SciPy's default is the minimum, which stays on the CPU):
    # ISUPPZ is the support of each vector: LAPACK's own is that of the tridiagonal matrix's vectors, which it
    # back-transforms, the GPU path's that of the vectors in Z (what LAPACK's documentation says); where either
    # ends is rounding's choice.  Both are ranges of rows.
    f, fl = (lp.zheevr, lp.zheevr_lwork) if t == "D" else (lp.dsyevr, lp.dsyevr_lwork)
    work = fl(h.shape[0])
    sizes = dict(lwork=int(work[0].real), lrwork=int(work[1]), liwork=work[2]) if t == "D" else \
        dict(lwork=int(work[0]), liwork=work[1])
    w, z, m, isuppz, info = f(h, compute_v=1, range="A", **sizes)
    lo, hi = isuppz[0 : 2 * m : 2], isuppz[1 : 2 * m : 2]
    ranges = bool(np.all((1 <= lo) & (lo <= hi) & (hi <= h.shape[0])))
    out[t + "syevr_m_info_support"] = np.array([m, info, float(ranges)])
    f = lp.zheevx if t == "D" else lp.dsyevx
    w, z, m, ifail, info = f(h, compute_v=1, range="I", il=2, iu=7)
    out[t + "syevx_m_ifail_info"] = np.concatenate([[m, info], ifail[:m]]).astype(float)
    f = lp.zgesv if t == "D" else lp.dgesv
    out[t + "gesv_piv"] = f(a, b)[1].astype(float)
    s = a + a.T
    out[t + "solve_sym"] = sla.solve(s, b, assume_a="sym")
    lu, d, perm = sla.ldl(s, hermitian=False)
    out[t + "ldl_rebuilt"] = lu @ d @ lu.T
    if t == "D":
        out[t + "solve_her"] = sla.solve(h, b, assume_a="her")
    tt, zz = sla.schur(a)
    out[t + "schur_rebuilt"], out[t + "schur_diag"] = zz @ tt @ zz.conj().T, np.sort_complex(np.diag(tt))
    out[t + "gelsy_x"] = sla.lstsq(a, b, lapack_driver="gelsy")[0]


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
    drivers(t, a, h, b)
    for name, f, m in (("singular", np.linalg.solve, sing), ("notpd", np.linalg.cholesky, -h)):
        try:
            f(m, b) if name == "singular" else f(m)
            out[t + name] = np.array(0.0)
        except np.linalg.LinAlgError:
            out[t + name] = np.array(1.0)
np.savez(sys.argv[1], **out)

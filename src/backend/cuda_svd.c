/* The SVD of LAPACK on cuSOLVER (gesvd and gesdd, by gesvdp or gesvd; a tall one through A = QR), an operation
 * descriptor (cuda_solver.h), and the SVD that least squares and the Python layer's svd share. */
#include <string.h>

#include "backend/cuda_solver.h"

/* How gesvdp serves an SVD: its econ argument (0: every vector, 1: min(m, n) of them, or none), or -1 when
 * gesvd serves it: the jobs for U and VT differ, or no vectors are wanted of a matrix under GS_SVDP_VALUES_MIN.
 * gesvdp (polar decomposition and syevd) is much faster than gesvd (QR iteration) on large matrices, but costs
 * milliseconds a call: on the H200 it is the faster for the values alone from n = 1024 (bench/RESULTS.md).
 * gesvdp always computes the vectors, even for the values alone, because only with them can its answer be
 * tested (cuda_svdp_check.c); with them it still beats gesvd's values alone (51 ms against 88 at n = 1024). */
enum { GS_SVDP_VALUES_MIN = 1024 };
static int gs_svdp_econ(const gs_lapack_t *p)
{
    char ju = p->job1, jv = p->op == GS_OP_gesdd ? p->job1 : p->job2;
    return ju != jv || (ju == 'N' && gs_lapack_mn(p) < GS_SVDP_VALUES_MIN) ? -1 : ju != 'A';
}

/* Columns of the V that gesvdp returns. */
static int64_t gs_svdp_nv(const gs_lapack_t *p) { return p->job1 == 'A' ? p->n : gs_lapack_mn(p); }

/* Whether an answer can be tested (cuda_svdp_check.c): both vectors, k of them at least.  gesvdp's always can. */
static bool gs_svd_testable(const gs_lapack_t *p)
{
    char ju = p->job1, jv = p->op == GS_OP_gesdd ? p->job1 : p->job2;
    return (ju == 'S' || ju == 'A') && (jv == 'S' || jv == 'A');
}

/* Device bytes the SVD needs besides its workspace: a copy of A, which the test reads (and from which gesvd starts
 * again when gesvdp had to perturb A or its answer fails the test), the test's scratch, and for gesvdp V
 * (transposed into VT afterwards) and without vectors a scratch U (gesvdp writes to U and V even then: handed
 * NULL ones, it faults on the device).  Nothing for an answer that cannot be tested. */
static size_t gs_svd_mine(const gs_lapack_t *p, bool svdp, size_t es)
{
    return (size_t)(p->m * p->n + (svdp ? p->n * gs_svdp_nv(p) + (p->job1 == 'N' ? p->m * gs_lapack_mn(p) : 0) : 0)) *
           es;
}

/* A tall SVD with min(m, n) vectors each side starts from A = QR, as LAPACK's xGESDD does from m >= 11 n / 6:
 * with R = Ur S V^H, A = (Q Ur) S V^H.  That is much less work than gesvdp's or gesvd's on the whole of A (on an
 * H100, 61 ms against 412 on the CPU for 20000 x 400: bench/RESULTS.md, 2026-12-06).  Q comes first from
 * CholeskyQR2 (twice G = Q^H Q, its Cholesky factor R, Q = Q R^-1: products at cuBLAS's speed), which is exact to
 * rounding for A's condition up to about 1e7 in double precision; where G is not positive definite, or the answer
 * fails its test, from Householder's QR (geqrf, orgqr), which holds for any A but whose QR can be wrong
 * (cuda_svdp_check.c: the narrow Gaussians of tests/py/svd_again.py).  Then R = Q^H A, R's SVD, U = Q Ur, and the
 * whole answer is tested against A. */
static bool gs_svd_tall(const gs_lapack_t *p)
{
    char ju = p->job1, jv = p->op == GS_OP_gesdd ? p->job1 : p->job2;
    return ju == 'S' && jv == 'S' && p->n > 0 && 6 * p->m >= 11 * p->n;
}

/* R's SVD: n x n, n vectors each side. */
static gs_lapack_t gs_svd_square(const gs_lapack_t *p)
{
    gs_lapack_t sq = *p;
    sq.m = p->n;
    return sq;
}

/* The tall SVD's device memory, offsets in extra: A's copy and the test's scratch, as every tested SVD's, then
 * tau, R, Ur and what R's SVD needs. */
typedef struct {
    size_t tau, r, ur, svd;
} gs_svd_tall_t;

static gs_svd_tall_t gs_svd_tall_mem(const gs_lapack_t *p, size_t es)
{
    size_t n = (size_t)p->n, sq = gs_round256(n * n * es);
    gs_svd_tall_t t = {.tau = gs_round256((size_t)p->m * n * es) + gs_svdp_check_bytes(p, es)};
    t.r = t.tau + gs_round256(n * es);
    t.ur = t.r + sq;
    t.svd = t.ur + sq;
    return t;
}

size_t gs_sol_svd_own(const gs_lapack_t *p, bool svdp, size_t es)
{
    if (gs_svd_tall(p)) {
        gs_lapack_t sq = gs_svd_square(p);
        return gs_svd_tall_mem(p, es).svd + gs_sol_svd_own(&sq, svdp, es);
    }
    return svdp || gs_svd_testable(p) ? gs_round256(gs_svd_mine(p, svdp, es)) + gs_svdp_check_bytes(p, es) : 0;
}

/* geqrf's and orgqr's workspaces for A, and R's SVD's, which chooses between gesvdp and gesvd. */
static int gs_svd_tall_size(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_lapack_t sq = gs_svd_square(p);
    gs_sol_t ss = *s;
    ss.p = &sq;
    ss.ld[0] = sq.n;
    int rc = gs_sol_svd_size(c, &ss);
    if (rc == GS_OK)
        rc = gs_sol_geqrf_size(c, s, p->m, p->n, s->ld[0], &s->work_bytes, &s->hbytes);
    if (rc == GS_OK)
        rc = gs_sol_orgqr_size(c, s, p->m, p->n, p->n, s->ld[0], &s->work_bytes);
    size_t dev = 0, host = 0;
    if (rc != GS_OK)
        return rc;
    GS_SOL(c, cusolverDnXpotrf_bufferSize, (s->h, s->q, CUBLAS_FILL_MODE_UPPER, p->n, s->t, NULL, p->n, s->t, &dev,
                                            &host));
    s->work_bytes = s->work_bytes > dev ? s->work_bytes : dev;
    s->hbytes = s->hbytes > host ? s->hbytes : host;
    s->work_bytes = s->work_bytes > ss.work_bytes ? s->work_bytes : ss.work_bytes;
    s->hbytes = s->hbytes > ss.hbytes ? s->hbytes : ss.hbytes;
    s->svdp = ss.svdp;
    return GS_OK;
}

/* gesvd's workspace, and gesvdp's where gesvdp serves the SVD (s->svdp): gesvd takes over when gesvdp perturbs
 * A, so both fit.  A size gesvdp refuses leaves the SVD to gesvd. */
int gs_sol_svd_size(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    if (gs_svd_tall(p))
        return gs_svd_tall_size(c, s);
    int64_t m = p->m, n = p->n, um = m > 0 ? m : 1, vn = n > 0 ? n : 1;
    signed char ju = (signed char)p->job1, jv = (signed char)(p->op == GS_OP_gesdd ? p->job1 : p->job2);
    GS_SOL(c, cusolverDnXgesvd_bufferSize, (s->h, s->q, ju, jv, m, n, s->t, NULL, s->ld[0], s->r, NULL, s->t, NULL,
                                            um, s->t, NULL, vn, s->t, &s->work_bytes, &s->hbytes));
    size_t pdev, phost;
    int econ = gs_svdp_econ(p);
    if (econ >= 0 && gs_sol.cusolverDnXgesvdp_bufferSize(s->h, s->q, CUSOLVER_EIG_MODE_VECTOR, econ, m, n, s->t, NULL,
                                                          s->ld[0], s->r, NULL, s->t, NULL, um, s->t, NULL, vn, s->t,
                                                          &pdev, &phost) == 0) {
        s->svdp = true;
        s->work_bytes = s->work_bytes > pdev ? s->work_bytes : pdev;
        s->hbytes = s->hbytes > phost ? s->hbytes : phost;
    }
    return GS_OK;
}

/* The parts of gesvdp's answer, or of gesvd's, that the test reads: A's copy first in extra, the scratch after the
 * SVD's own bytes. */
static gs_svdp_parts_t gs_svd_parts(const gs_sol_t *s, bool gesvd)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n;
    gs_svdp_parts_t v = {.a = s->extra, .scratch = s->extra + gs_round256(gs_svd_mine(p, s->svdp, s->es))};
    if (!gesvd) { /* V after A, and without vectors a scratch U after V */
        v.v = s->extra + (size_t)(m * n) * s->es, v.ldv = n > 0 ? n : 1;
        v.u = p->job1 != 'N' ? s->d[1] : (char *)v.v + (size_t)(n * gs_svdp_nv(p)) * s->es;
        v.ldu = p->job1 != 'N' ? s->ld[1] : m > 0 ? m : 1;
    } else /* gesvd's U and VT */
        v.u = s->d[1], v.ldu = s->ld[1], v.v = s->d[2], v.ldv = s->ld[2], v.vt = true;
    return v;
}

/* A into its copy at the start of extra, or back from it. */
static int gs_svd_keep_a(gs_call_t *c, const gs_sol_t *s, bool back)
{
    size_t es = s->es, rows = (size_t)s->p->m * es, ld = (size_t)s->ld[0] * es;
    GS_CUDA(c, cudaMemcpy2DAsync, (back ? s->d[0] : s->extra, back ? ld : rows, back ? s->extra : s->d[0],
                                   back ? rows : ld, rows, (size_t)s->p->n, cudaMemcpyDeviceToDevice, s->stream));
    return GS_OK;
}

/* The SVD by gesvdp, which returns V and waits for the device.  When gesvdp refuses the call, or its answer
 * fails the test (cuda_svdp_check.c: it had to perturb A by more than the rounding LAPACK allows, near a zero
 * singular value, or the vectors are wrong), A is put back and *done stays 0 for gesvd to compute it. */
static int gs_svdp(gs_call_t *c, const gs_sol_t *s, int *done)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n, nv = gs_svdp_nv(p);
    bool ok = false;
    gs_svdp_parts_t parts = gs_svd_parts(s, false);
    double err = 0;
    int rc = gs_svd_keep_a(c, s, false);
    if (rc != GS_OK)
        return rc;
    /* A status other than success leaves the SVD to gesvd too, rather than failing the call. */
    cusolverStatus_t st = GS_CALL(
        "cusolverDnXgesvdp",
        gs_sol.cusolverDnXgesvdp(s->h, s->q, CUSOLVER_EIG_MODE_VECTOR, gs_svdp_econ(p), m, n, s->t, s->d[0],
                                 s->ld[0], s->r, s->vec, s->t, (void *)parts.u, parts.ldu, s->t, (void *)parts.v,
                                 parts.ldv, s->t, s->work, s->work_bytes, s->hwork, s->hbytes, s->info, &err));
    if (st == CUSOLVER_STATUS_SUCCESS && (rc = gs_svdp_check(c, s, &parts, err, &ok)) != GS_OK)
        return rc;
    if (!ok)
        return gs_svd_keep_a(c, s, true);
    *done = 1;
    if (p->job1 == 'N' || gs_lapack_mn(p) == 0)
        return GS_OK;
    return gs_cublas_geam(c, p->prec, gs_op_h(p->prec), CUBLAS_OP_N, nv, n, gs_one(p->prec), parts.v, n, gs_zero(),
                          s->d[2], s->ld[2], s->d[2], s->ld[2]);
}

/* The answer in parts tested against A's copy: GS_OK when it passes, or when the SVD did not converge (LAPACK's
 * INFO, whose outputs the CPU library gives: cuda_lapack.c); else GS_EEXACT, saying why. */
static int gs_svd_tested(gs_call_t *c, gs_sol_t *s, const gs_svdp_parts_t *parts, const char *why)
{
    int info[2], rc;
    bool ok = false;
    if ((rc = gs_svdp_check(c, s, parts, 0, &ok)) != GS_OK || ok ||
        (rc = gs_small_copy(c, info, s->info, sizeof info, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    if (info[0] || info[1])
        return GS_OK;
    gs_call_why(c, "%s", why);
    return GS_EEXACT;
}

/* Q of CholeskyQR2 in place of A in d[0] (G and its factor at g, n x n; potrf's INFO of the two passes in info[0]
 * and info[1]); *spd: both Gs were positive definite (waits for the device). */
static int gs_svd_cholqr(gs_call_t *c, gs_sol_t *s, char *g, bool *spd)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n;
    int rc, info[2];
    for (int i = 0; i < 2; i++) {
        if ((rc = gs_cublas_gemm(c, p->prec, gs_op_h(p->prec), CUBLAS_OP_N, n, n, m, gs_one(p->prec), s->d[0],
                                 s->ld[0], s->d[0], s->ld[0], gs_zero(), g, n)) != GS_OK)
            return rc;
        GS_SOL(c, cusolverDnXpotrf, (s->h, s->q, CUBLAS_FILL_MODE_UPPER, n, s->t, g, n, s->t, s->work, s->work_bytes,
                                     s->hwork, s->hbytes, s->info + i));
        if ((rc = gs_cublas_trsm(c, p->prec, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, m, n, gs_one(p->prec), g, n, s->d[0], s->ld[0])) != GS_OK)
            return rc;
    }
    if ((rc = gs_small_copy(c, info, s->info, sizeof info, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    *spd = !info[0] && !info[1];
    return GS_OK;
}

/* From A in d[0] (its copy in extra): Q (CholeskyQR2's where chol says so, else Householder's), R = Q^H A,
 * R's SVD (gesvdp or gesvd, tested themselves), U = Q Ur.  *tried false where CholeskyQR2 found G not positive
 * definite, and nothing else was done. */
static int gs_svd_tall_try(gs_call_t *c, gs_sol_t *s, bool chol, bool *tried)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n;
    gs_svd_tall_t t = gs_svd_tall_mem(p, s->es);
    gs_lapack_t sq = gs_svd_square(p);
    gs_sol_t ss = *s; /* VT straight into A's */
    const void *one = gs_one(p->prec);
    ss.p = &sq, ss.extra = s->extra + t.svd, ss.d[0] = s->extra + t.r, ss.ld[0] = n, ss.d[1] = s->extra + t.ur;
    ss.ld[1] = n;
    *tried = true;
    int rc = chol ? gs_svd_cholqr(c, s, ss.d[0], tried)
                  : gs_sol_geqrf_run(c, s, m, n, s->d[0], s->ld[0], s->extra + t.tau);
    if (rc == GS_OK && !chol)
        rc = gs_sol_orgqr_run(c, s, m, n, n, s->d[0], s->ld[0], s->extra + t.tau, s->info + 1);
    if (rc != GS_OK || !*tried)
        return rc;
    rc = gs_cublas_gemm(c, p->prec, gs_op_h(p->prec), CUBLAS_OP_N, n, n, m, one, s->d[0], s->ld[0], s->extra, m,
                        gs_zero(), ss.d[0], n);
    if (rc == GS_OK)
        rc = gs_sol_svd_run(c, &ss);
    if (rc == GS_OK)
        rc = gs_cublas_gemm(c, p->prec, CUBLAS_OP_N, CUBLAS_OP_N, m, n, n, one, s->d[0], s->ld[0], ss.d[1], n,
                            gs_zero(), s->d[1], s->ld[1]);
    return rc;
}

/* CholeskyQR2's way first, then Householder's where it did not serve; the answer tested against A's copy. */
static int gs_svd_tall_run(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_svdp_parts_t parts = {.a = s->extra, .u = s->d[1], .ldu = s->ld[1], .v = s->d[2], .ldv = s->ld[2], .vt = true,
                             .scratch = s->extra + gs_round256((size_t)(p->m * p->n) * s->es)};
    bool tried = false, ok = false;
    const char *why = c->why; /* the policy's, which a refusal of R's SVD would replace */
    char kept[sizeof c->why_buf];
    memcpy(kept, c->why_buf, sizeof kept);
    int rc = gs_svd_keep_a(c, s, false);
    if (rc == GS_OK)
        rc = gs_svd_tall_try(c, s, true, &tried);
    if (rc == GS_OK && tried && (rc = gs_svdp_check(c, s, &parts, 0, &ok)) == GS_OK && ok)
        return GS_OK;
    if (rc != GS_OK && rc != GS_EEXACT) /* R's SVD refused is Householder's turn too */
        return rc;
    memcpy(c->why_buf, kept, sizeof kept);
    c->why = why;
    if ((rc = gs_svd_keep_a(c, s, true)) != GS_OK || (rc = gs_svd_tall_try(c, s, false, &tried)) != GS_OK)
        return rc;
    return gs_svd_tested(c, s, &parts, "gpu: the SVD through A = QR gave an SVD of A that failed its test (U, V or "
                                       "A V - U S off): the CPU library's call");
}

/* gesvdp where gs_sol_svd_size chose it, and gesvd where it did not or gesvdp gave the call back; a tall A's
 * through its R (gs_svd_tall).  gesvd's answer is tested too where it can be: on an H200, an SVD on the GPU of a
 * 60000 x 400 matrix of narrow Gaussians (tests/py/svd_tall.py's "gauss") came back with U^H U off the identity
 * by 3e-4 and A - U S V^H by a fifth of A, gesvd's, which starts from geqrf's wrong QR of it (bench/RESULTS.md,
 * 2026-12-06). */
int gs_sol_svd_run(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n;
    signed char ju = (signed char)p->job1, jv = (signed char)(p->op == GS_OP_gesdd ? p->job1 : p->job2);
    int iu = ju != 'N' ? 1 : 0, iv = jv != 'N' ? 1 + iu : 0, done = 0, rc = GS_OK;
    bool test = gs_svd_testable(p) && gs_lapack_mn(p) > 0;
    if (gs_svd_tall(p))
        return gs_svd_tall_run(c, s);
    if (s->svdp)
        rc = gs_svdp(c, s, &done);
    else if (test)
        rc = gs_svd_keep_a(c, s, false);
    if (rc != GS_OK || done)
        return rc;
    GS_SOL(c, cusolverDnXgesvd, (s->h, s->q, ju, jv, m, n, s->t, s->d[0], s->ld[0], s->r, s->vec, s->t,
                                 iu ? s->d[iu] : NULL, iu ? s->ld[iu] : m > 0 ? m : 1, s->t, iv ? s->d[iv] : NULL,
                                 iv ? s->ld[iv] : n > 0 ? n : 1, s->t, s->work, s->work_bytes, s->hwork, s->hbytes,
                                 s->info));
    if (!test)
        return GS_OK;
    gs_svdp_parts_t parts = gs_svd_parts(s, true);
    return gs_svd_tested(c, s, &parts, "gpu: cuSOLVER's gesvd gave an SVD that failed its test (U, V or A V - U S "
                                       "off): the CPU library's call");
}

static size_t gs_svd_extra(const gs_sol_t *s) { return gs_sol_svd_own(s->p, s->svdp, s->es); }

const gs_sol_op_t gs_sol_svd = {.work = gs_sol_svd_size, .compute = gs_sol_svd_run, .vec = gs_sol_mn_reals,
                                .extra = gs_svd_extra, .flags = GS_SOL_W_OUT};

/* The test of an SVD's answer on the device (cuda_solver.h), gesvdp's or gesvd's; its probes serve the QR's test too
 * (cuda_qr_check.c).  gesvdp's own error estimate, h_err_sigma, can call a wrong answer exact, and an SVD on the GPU
 * of a 60000 x 400 matrix of narrow Gaussians came back wrong on the H100 and the H200 (U^H U off the identity by
 * 3e-4, A - U S V^H by a fifth of A, while the CPU library's was right to 4e-15: tests/py/svd_tall.py's "gauss";
 * bench/RESULTS.md, 2026-12-05 and 06).  So every answer with both vectors is measured, as LAPACK's own tests measure
 * an SVD, on GS_SVDP_PROBES fixed pseudo-random vectors X (k of them, k = min(m, n)): the orthogonality of U and of V
 * (U^H U X - X, V^H V X - X) and the residual A V X - U S X, each relative to X (and to the largest singular value),
 * within GS_SVDP_TOL times max(m, n) times the precision's epsilon.  A right answer's ratios are near 1 (2e-14 at m =
 * 60000), a wrong one's 1e8.  The products are thin, a few microseconds on the device beside the SVD's milliseconds. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_cublas.h"
#include "backend/cuda_solver.h"

/* The device scratch, after gesvdp's own: X and S X (k x p), V X (n x p), U X then the residual (m x p each),
 * the two orthogonality defects (k x p each), and their three Gram matrices (p x p). */
static size_t gs_svdp_check_elems(const gs_lapack_t *p)
{
    int64_t k = gs_lapack_mn(p), q = GS_SVDP_PROBES;
    return (size_t)((4 * k + p->n + 2 * p->m) * q + 3 * q * q);
}

size_t gs_svdp_check_bytes(const gs_lapack_t *p, size_t es) { return gs_round256(gs_svdp_check_elems(p) * es); }

/* Fills the k x p host matrices x and, where sv is given, sx = diag(sv) x with values in [-1, 1) (both parts of
 * a complex one). */
void gs_svdp_probes(int prec, int64_t k, const double *sv, char *x, char *sx)
{
    uint64_t state = 0x9e3779b97f4a7c15u;
    int parts = gs_prec_complex(prec) ? 2 : 1;
    bool single = gs_real_size(prec) == 4;
    for (int64_t j = 0; j < GS_SVDP_PROBES; j++)
        for (int64_t i = 0; i < k; i++)
            for (int r = 0; r < parts; r++) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                double v = (double)(state >> 11) * 0x1p-52 - 1, w = sv ? v * sv[i] : 0;
                size_t at = (size_t)((j * k + i) * parts + r);
                if (single)
                    ((float *)x)[at] = (float)v;
                else
                    ((double *)x)[at] = v;
                if (sv && single)
                    ((float *)sx)[at] = (float)w;
                else if (sv)
                    ((double *)sx)[at] = w;
            }
}

/* The real trace of the p x p Gram matrix at g (elements of es bytes). */
double gs_svdp_trace(const char *g, int prec, size_t es)
{
    double t = 0;
    for (int i = 0; i < GS_SVDP_PROBES; i++) {
        const char *e = g + (size_t)(i * GS_SVDP_PROBES + i) * es;
        t += gs_real_size(prec) == 4 ? (double)*(const float *)e : *(const double *)e;
    }
    return t;
}

/* C (rows x p) = op(A) B + beta C, op(A) rows x k as t says, B k x p. */
int gs_svdp_mul(gs_call_t *c, int prec, cublasOperation_t t, int64_t rows, int64_t k, const void *a,
                int64_t lda, const void *b, int64_t ldb, const void *beta, void *cm, int64_t ldc)
{
    return gs_cublas_gemm(c, prec, t, CUBLAS_OP_N, rows, GS_SVDP_PROBES, k, gs_one(prec), a, lda, b, ldb, beta, cm,
                          ldc);
}

/* Runs the products on the device and reads back their three Gram matrices into hg. */
static int gs_svdp_products(gs_call_t *c, const gs_sol_t *s, const gs_svdp_parts_t *v, const char *hx, char *hg)
{
    const gs_lapack_t *p = s->p;
    int prec = p->prec, q = GS_SVDP_PROBES;
    int64_t m = p->m, n = p->n, k = gs_lapack_mn(p);
    size_t es = s->es, kq = (size_t)(k * q) * es, qq = (size_t)(q * q) * es;
    const void *mone = gs_mone(prec), *zero = gs_zero();
    cublasOperation_t h = gs_op_h(prec);
    char *x = v->scratch, *sx = x + kq, *vx = sx + kq, *ux = vx + (size_t)(n * q) * es, *r = ux + (size_t)(m * q) * es;
    char *du = r + (size_t)(m * q) * es, *dv = du + kq, *g = dv + kq;
    int rc = gs_small_copy(c, x, hx, 2 * kq, cudaMemcpyHostToDevice);
    /* U X, then U^H (U X) - X; V X, then V^H (V X) - X; then A (V X) - U (S X); then the Gram matrices. */
    if (rc == GS_OK && (rc = gs_small_copy(c, du, x, kq, cudaMemcpyDeviceToDevice)) == GS_OK &&
        (rc = gs_small_copy(c, dv, x, kq, cudaMemcpyDeviceToDevice)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, CUBLAS_OP_N, m, k, v->u, v->ldu, x, k, zero, ux, m)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, h, k, m, v->u, v->ldu, ux, m, mone, du, k)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, v->vt ? h : CUBLAS_OP_N, n, k, v->v, v->ldv, x, k, zero, vx, n)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, v->vt ? CUBLAS_OP_N : h, k, n, v->v, v->ldv, vx, n, mone, dv, k)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, CUBLAS_OP_N, m, k, v->u, v->ldu, sx, k, zero, r, m)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, CUBLAS_OP_N, m, n, v->a, m, vx, n, mone, r, m)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, h, q, k, du, k, du, k, zero, g, q)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, h, q, k, dv, k, dv, k, zero, g + qq, q)) == GS_OK &&
        (rc = gs_svdp_mul(c, prec, h, q, m, r, m, r, m, zero, g + 2 * qq, q)) == GS_OK &&
        (rc = gs_small_copy(c, hg, g, 3 * qq, cudaMemcpyDeviceToHost)) == GS_OK)
        GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    return rc;
}

/* The singular values, k reals at s->vec, as doubles into sv (after waiting for the device). */
static int gs_svdp_values(gs_call_t *c, const gs_sol_t *s, int64_t k, double *sv)
{
    size_t rs = gs_real_size(s->p->prec);
    int rc = gs_small_copy(c, sv, s->vec, (size_t)k * rs, cudaMemcpyDeviceToHost);
    if (rc != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    for (int64_t i = k - 1; rs == 4 && i >= 0; i--)
        sv[i] = ((const float *)sv)[i];
    return GS_OK;
}

int gs_svdp_check(gs_call_t *c, const gs_sol_t *s, const gs_svdp_parts_t *v, double err, bool *ok)
{
    const gs_lapack_t *p = s->p;
    int prec = p->prec, q = GS_SVDP_PROBES;
    int64_t m = p->m, n = p->n, k = gs_lapack_mn(p);
    size_t es = s->es, rs = gs_real_size(prec), kq = (size_t)(k * q) * es;
    double eps = rs == 4 ? FLT_EPSILON : DBL_EPSILON, tol = GS_SVDP_TOL * (double)(m > n ? m : n) * eps;
    *ok = k == 0;
    if (k == 0)
        return GS_OK;
    char *hx = malloc((size_t)k * 8 + 2 * kq + (size_t)(3 * q * q) * es);
    if (!hx) {
        gs_call_why(c, "gpu: no host memory to test gesvdp's answer");
        return GS_ENOMEM;
    }
    double *sv = (double *)hx, xx = 0;
    char *x = hx + (size_t)k * 8, *hg = x + 2 * kq;
    int rc = gs_svdp_values(c, s, k, sv);
    /* gesvdp's own estimate first: it perturbs A near a zero singular value, by err */
    if (rc == GS_OK && err <= eps * sv[0]) {
        gs_svdp_probes(prec, k, sv, x, x + kq);
        rc = gs_svdp_products(c, s, v, x, hg);
        for (size_t i = 0; i < kq / rs; i++) {
            double e = rs == 4 ? (double)((float *)x)[i] : ((double *)x)[i];
            xx += e * e;
        }
        /* Each defect's squared norm within tol^2 |X|^2 (the residual's also times smax^2); a NaN fails. */
        size_t qq = (size_t)(q * q) * es;
        *ok = rc == GS_OK && gs_svdp_trace(hg, prec, es) <= tol * tol * xx &&
              gs_svdp_trace(hg + qq, prec, es) <= tol * tol * xx &&
              gs_svdp_trace(hg + 2 * qq, prec, es) <= tol * tol * sv[0] * sv[0] * xx;
    }
    free(hx);
    return rc;
}

/* The test of a QR's answer on the device (cuda_solver.h), with the SVD's test's probes (cuda_svdp_check.c); the
 * tested geqrf that every QR on the GPU goes through, and LAPACK's geqrf as an operation descriptor. */
#include <float.h>
#include <stdlib.h>

#include "backend/cuda_solver.h"

/* geqrf's answer is tested as the SVD's is: cuSOLVER's geqrf got the QR of a 20000 x 400 matrix of narrow Gaussians
 * wrong on an H100 (|Q^H Q - I| 4.2e-4 and |QR - A| 3.3e-4 of |A|; CuPy's QR gave the same numbers), and the
 * CPU library's was right (bench/RESULTS.md, 2026-12-06).  With T = A X for GS_SVDP_PROBES vectors X (n x p):
 * Q (R X; 0) - T, the residual, and Q Q^H T - T, Q's orthogonality, each relative to T within GS_SVDP_TOL times
 * max(m, n) epsilons.  The scratch: X (n x p), T, Z and W (m x p each), three Gram matrices (p x p). */
size_t gs_qr_check_bytes(int64_t m, int64_t n, size_t es)
{
    int64_t q = GS_SVDP_PROBES;
    return gs_round256((size_t)((n + 3 * m) * q + 3 * q * q) * es);
}

int gs_qr_check_work(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t ldf, size_t *dev)
{
    int64_t k = m < n ? m : n;
    int rc = gs_sol_ormqr_size(c, s, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, m, GS_SVDP_PROBES, k, ldf, m, dev);
    return rc != GS_OK ? rc
                       : gs_sol_ormqr_size(c, s, CUBLAS_SIDE_LEFT, gs_op_h(s->p->prec), m, GS_SVDP_PROBES, k, ldf, m,
                                           dev);
}

/* Z = (R X; 0), R the k x n upper trapezoid of F (rows k to m zeroed first), then Q Z; W = Q Q^H T. */
static int gs_qr_products(gs_call_t *c, const gs_sol_t *s, const gs_qr_parts_t *v, const char *x, const char *t,
                          char *z, char *w)
{
    int prec = s->p->prec, q = GS_SVDP_PROBES;
    int64_t m = v->m, n = v->n, k = m < n ? m : n;
    size_t es = s->es;
    const void *one = gs_one(prec);
    GS_CUDA(c, cudaMemsetAsync, (z, 0, (size_t)(m * q) * es, s->stream));
    int rc = gs_cublas_trmm(c, prec, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, k, q,
                            one, v->f, v->ldf, x, n, z, m);
    if (rc == GS_OK && n > k)
        rc = gs_svdp_mul(c, prec, CUBLAS_OP_N, k, n - k, (const char *)v->f + (size_t)(k * v->ldf) * es, v->ldf,
                         x + (size_t)k * es, n, one, z, m);
    if (rc == GS_OK)
        rc = gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, m, q, k, v->f, v->ldf, v->tau, z, m, s->info + 1);
    if (rc == GS_OK)
        rc = gs_small_copy(c, w, t, (size_t)(m * q) * es, cudaMemcpyDeviceToDevice);
    if (rc == GS_OK)
        rc = gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, gs_op_h(prec), m, q, k, v->f, v->ldf, v->tau, w, m, s->info + 1);
    if (rc == GS_OK)
        rc = gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, m, q, k, v->f, v->ldf, v->tau, w, m, s->info + 1);
    return rc;
}

int gs_qr_check(gs_call_t *c, const gs_sol_t *s, const gs_qr_parts_t *v, bool *ok)
{
    int prec = s->p->prec, q = GS_SVDP_PROBES;
    int64_t m = v->m, n = v->n;
    size_t es = s->es, rs = gs_real_size(prec), nq = (size_t)(n * q) * es, mq = (size_t)(m * q) * es,
           qq = (size_t)(q * q) * es;
    double eps = rs == 4 ? FLT_EPSILON : DBL_EPSILON, tol = GS_SVDP_TOL * (double)(m > n ? m : n) * eps;
    *ok = m == 0 || n == 0;
    if (*ok)
        return GS_OK;
    char *hx = malloc(nq + 3 * qq), *x = v->scratch, *t = x + nq, *z = t + mq, *w = z + mq, *g = w + mq;
    if (!hx) {
        gs_call_why(c, "gpu: no host memory to test geqrf's answer");
        return GS_ENOMEM;
    }
    const void *one = gs_one(prec), *mone = gs_mone(prec), *zero = gs_zero();
    cublasOperation_t h = gs_op_h(prec);
    gs_svdp_probes(prec, n, NULL, hx, NULL);
    int rc = gs_small_copy(c, x, hx, nq, cudaMemcpyHostToDevice);
    if (rc == GS_OK)
        rc = gs_svdp_mul(c, prec, gs_op(v->ta), m, n, v->a, v->lda, x, n, zero, t, m);
    if (rc == GS_OK)
        rc = gs_qr_products(c, s, v, x, t, z, w);
    for (int i = 0; i < 2 && rc == GS_OK; i++)
        rc = gs_cublas_geam(c, prec, CUBLAS_OP_N, CUBLAS_OP_N, m, q, mone, t, m, one, i ? w : z, m, i ? w : z, m);
    for (int i = 0; i < 3 && rc == GS_OK; i++) {
        const char *y = i == 0 ? t : i == 1 ? z : w;
        rc = gs_svdp_mul(c, prec, h, q, m, y, m, y, m, zero, g + (size_t)i * qq, q);
    }
    if (rc == GS_OK && (rc = gs_small_copy(c, hx + nq, g, 3 * qq, cudaMemcpyDeviceToHost)) == GS_OK)
        GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    /* each defect's squared norm within tol^2 |T|^2; a NaN fails */
    double tt = rc == GS_OK ? gs_svdp_trace(hx + nq, prec, es) : 0;
    *ok = rc == GS_OK && gs_svdp_trace(hx + nq + qq, prec, es) <= tol * tol * tt &&
          gs_svdp_trace(hx + nq + 2 * qq, prec, es) <= tol * tol * tt;
    free(hx);
    return rc;
}

size_t gs_sol_geqrf_tested_bytes(int64_t m, int64_t n, size_t es)
{
    return gs_round256((size_t)(m * n) * es) + gs_qr_check_bytes(m, n, es);
}

int gs_sol_geqrf_tested(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, void *a, int64_t lda, void *tau,
                        char *mem)
{
    size_t es = s->es;
    bool ok = true;
    gs_qr_parts_t v = {.a = mem, .f = a, .tau = tau, .m = m, .n = n, .lda = m > 0 ? m : 1, .ldf = lda, .ta = 'N',
                       .scratch = mem + gs_round256((size_t)(m * n) * es)};
    if (m > 0 && n > 0)
        GS_CUDA(c, cudaMemcpy2DAsync, (mem, (size_t)m * es, a, (size_t)lda * es, (size_t)m * es, (size_t)n,
                                       cudaMemcpyDeviceToDevice, s->stream));
    int rc = gs_sol_geqrf_run(c, s, m, n, a, lda, tau);
    if (rc != GS_OK || (rc = gs_qr_check(c, s, &v, &ok)) != GS_OK || ok)
        return rc;
    gs_call_why(c, "gpu: cuSOLVER's geqrf gave a QR that failed its test (Q R - A or Q^H Q - I off): the CPU "
                   "library's call");
    return GS_EEXACT;
}

static int gs_geqrf_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int rc = gs_sol_geqrf_size(c, s, p->m, p->n, s->ld[0], &s->work_bytes, &s->hbytes);
    return rc != GS_OK ? rc : gs_qr_check_work(c, s, p->m, p->n, s->ld[0], &s->work_bytes);
}

static int gs_geqrf(gs_call_t *c, gs_sol_t *s)
{
    return gs_sol_geqrf_tested(c, s, s->p->m, s->p->n, s->d[0], s->ld[0], s->vec, s->extra);
}

static size_t gs_geqrf_extra(const gs_sol_t *s) { return gs_sol_geqrf_tested_bytes(s->p->m, s->p->n, s->es); }

const gs_sol_op_t gs_sol_geqrf = {.work = gs_geqrf_work, .compute = gs_geqrf, .vec = gs_sol_mn_elems,
                                  .extra = gs_geqrf_extra, .flags = GS_SOL_TAU_OUT};

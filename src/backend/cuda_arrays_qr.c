/* The Python layer's QR (numpy.linalg.qr, scipy.linalg.qr: families/lapack/arrays.c's qr and qr_r) as an
 * operation descriptor (cuda_solver.h): cuSOLVER's geqrf on A itself (a C-ordered A, stored as its transpose, is
 * transposed on the device first), R from the factored matrix's first rows, and Q by orgqr from its reflectors,
 * each copied or transposed on the device by cuBLAS's geam into the output's storage; R's part below the
 * diagonal, where the reflectors were, is then set to zero in the output.  qr_raw (job1 'R') returns geqrf's own
 * outputs: the factored matrix whole, and the reflectors' scalars. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backend/cuda_solver.h"

/* After A's own copy: Q's columns (m x k, leading dimension m), where Q is wanted; then what geqrf's test needs.
 * Offset of the test's memory in extra. */
static size_t gs_aqr_test_mem(const gs_lapack_t *p, size_t es)
{
    return gs_arr_own_bytes(p, es) + (p->job2 == 'V' ? gs_round256((size_t)(p->m * p->k) * es) : 0);
}

static size_t gs_aqr_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return gs_aqr_test_mem(p, s->es) + gs_sol_geqrf_tested_bytes(p->m, p->n, s->es);
}

/* geqrf's workspace, its test's, and orgqr's where Q is wanted: all fit. */
static int gs_aqr_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t ldf = p->ta == 'T' ? p->m : s->ld[0];
    int rc = gs_sol_geqrf_size(c, s, p->m, p->n, ldf, &s->work_bytes, &s->hbytes);
    if (rc == GS_OK)
        rc = gs_qr_check_work(c, s, p->m, p->n, ldf, &s->work_bytes);
    if (rc == GS_OK && p->job2 == 'V')
        rc = gs_sol_orgqr_size(c, s, p->m, p->k, gs_lapack_mn(p), p->m, &s->work_bytes);
    return rc;
}

/* Output x (1: R, 2: Q) from src (rows x cols, leading dimension ld): copied, or transposed where the output is
 * stored transposed (t 'T'). */
static int gs_aqr_put(gs_call_t *c, gs_sol_t *s, int x, char t, const char *src, int64_t ld, int64_t rows,
                      int64_t cols)
{
    return t == 'T' ? gs_arr_put(c, s, x, 'T', src, ld, cols, rows) : gs_arr_put(c, s, x, 'N', src, ld, rows, cols);
}

/* A's factors (geqrf's INFO in info[0]); R, k x n, from their first k rows; Q, m x k, by orgqr (INFO in info[1])
 * from the reflectors' columns, which orgqr extends to k columns itself. */
static int gs_aqr(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n, k = p->k, mn = gs_lapack_mn(p);
    char *q = s->extra + gs_arr_own_bytes(p, s->es);
    int rc = gs_arr_own(c, s);
    char *f = s->d[0];
    int64_t ldf = s->ld[0];
    if (rc == GS_OK)
        rc = gs_sol_geqrf_tested(c, s, m, n, f, ldf, s->vec, s->extra + gs_aqr_test_mem(p, s->es));
    if (rc == GS_OK) /* R's diagonal, for gs_aqr_exact */
        GS_CUDA(c, cudaMemcpy2DAsync, (s->hextra, s->es, f, (size_t)(ldf + 1) * s->es, s->es, (size_t)mn,
                                       cudaMemcpyDeviceToHost, s->stream));
    if (rc == GS_OK)
        rc = gs_aqr_put(c, s, 1, p->tx, f, ldf, k, n);
    if (rc == GS_OK && p->job1 == 'R') /* the scalars, after R's diagonal */
        rc = gs_small_copy(c, s->hextra + (size_t)mn * s->es, s->vec, (size_t)mn * s->es, cudaMemcpyDeviceToHost);
    if (rc != GS_OK || p->job2 != 'V')
        return rc;
    if ((rc = gs_cublas_geam(c, p->prec, CUBLAS_OP_N, CUBLAS_OP_N, m, mn, gs_one(p->prec), f, ldf, gs_zero(), q, m,
                             q, m)) != GS_OK ||
        (rc = gs_sol_orgqr_run(c, s, m, k, mn, q, m, s->vec, s->info + 1)) != GS_OK)
        return rc;
    return gs_aqr_put(c, s, 2, p->tv, q, m, m, k);
}

/* R's elements below the diagonal set to zero in the output, k x n as NumPy's, as stored (ldx apart); qr_raw's
 * scalars into tau. */
static void gs_aqr_done(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t es = s->es;
    if (p->job1 == 'R') {
        memcpy(p->tau, s->hextra + (size_t)gs_lapack_mn(p) * es, (size_t)gs_lapack_mn(p) * es);
        return;
    }
    for (int64_t j = 0; j < (p->tx == 'N' ? p->n : p->k); j++) {
        int64_t lo = p->tx == 'N' ? j + 1 : 0, hi = p->tx == 'N' ? p->k : gs_min(j, p->n);
        if (lo < hi)
            memset((char *)p->x + (size_t)(j * p->ldx + lo) * es, 0, (size_t)(hi - lo) * es);
    }
}

/* R's diagonal on the host, and qr_raw's scalars. */
static size_t gs_aqr_host(const gs_lapack_t *p)
{
    return (size_t)gs_lapack_mn(p) * gs_prec_size(p->prec) * (p->job1 == 'R' ? 2 : 1);
}

/* Householder reflections determine Q and R, but where an element of R's diagonal is rounding's (A of a rank
 * below min(m, n), columns dependent or nearly), the later columns of Q and rows of R are rounding's too, and
 * only the original's call gives its own: an element within GS_AQR_TINY epsilons of the largest hands the call
 * back (tests/py/pylayer_decomp.py's rank 1 cases). */
#define GS_AQR_TINY 1000.0
static const char *gs_aqr_exact(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool single = gs_real_size(p->prec) == 4, cplx = gs_prec_complex(p->prec);
    double eps = single ? FLT_EPSILON : DBL_EPSILON, max = 0, min = INFINITY;
    const float *f = (const void *)s->hextra;
    const double *d = (const void *)s->hextra;
    for (int64_t i = 0; i < gs_lapack_mn(p); i++) {
        int64_t j = cplx ? 2 * i : i;
        double v = hypot(single ? f[j] : d[j], !cplx ? 0 : single ? f[j + 1] : d[j + 1]);
        max = v > max ? v : max, min = v < min ? v : min;
    }
    return min <= GS_AQR_TINY * eps * max ? "R's diagonal near zero: the original's call gives its factors" : NULL;
}

const gs_sol_op_t gs_sol_arr_qr = {.work = gs_aqr_work, .compute = gs_aqr, .vec = gs_sol_mn_elems,
                                   .extra = gs_aqr_extra, .host = gs_aqr_host, .exact = gs_aqr_exact,
                                   .done = gs_aqr_done};

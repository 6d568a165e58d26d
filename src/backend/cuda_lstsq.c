/* Least squares of LAPACK on cuSOLVER, each an operation descriptor (cuda_solver.h): gels (QR, Q^H B, and the
 * triangular solve) and gelsd (the minimum-norm solution through the SVD, as xGELSD defines it). */
#include <float.h>
#include <string.h>

#include "backend/cuda_solver.h"

/* ---- gels -------------------------------------------------------------------------------------------- */

static int gs_gels_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int rc = gs_sol_geqrf_size(c, s, p->m, p->n, s->ld[0], &s->work_bytes, &s->hbytes);
    if (rc == GS_OK)
        rc = gs_qr_check_work(c, s, p->m, p->n, s->ld[0], &s->work_bytes);
    return rc != GS_OK ? rc
                       : gs_sol_ormqr_size(c, s, CUBLAS_SIDE_LEFT, gs_op_h(p->prec), p->m, p->nrhs, p->n, s->ld[0],
                                           s->ld[1], &s->work_bytes);
}

/* What geqrf's test needs (cuda_qr_check.c). */
static size_t gs_gels_extra(const gs_sol_t *s) { return gs_sol_geqrf_tested_bytes(s->p->m, s->p->n, s->es); }

/* A = QR, B becomes Q^H B and then R \ B; R's diagonal is copied to hextra, for gs_gels_exact. */
static int gs_gels(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t es = s->es;
    int rc;
    if ((rc = gs_sol_geqrf_tested(c, s, p->m, p->n, s->d[0], s->ld[0], s->vec, s->extra)) != GS_OK ||
        (rc = gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, gs_op_h(p->prec), p->m, p->nrhs, p->n, s->d[0], s->ld[0],
                               s->vec, s->d[1], s->ld[1], s->info + 1)) != GS_OK ||
        (rc = gs_cublas_trsm(c, p->prec, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                             p->n, p->nrhs, gs_one(p->prec), s->d[0], s->ld[0], s->d[1], s->ld[1])) != GS_OK)
        return rc;
    GS_CUDA(c, cudaMemcpy2DAsync, (s->hextra, es, s->d[0], (size_t)(s->ld[0] + 1) * es, es, (size_t)p->n,
                                   cudaMemcpyDeviceToHost, s->stream));
    return GS_OK;
}

static size_t gs_gels_host(const gs_lapack_t *p) { return (size_t)p->n * gs_prec_size(p->prec); }

/* An R with an exact zero on its diagonal is LAPACK's INFO > 0, whose outputs the CPU library gives. */
static const char *gs_gels_exact(const gs_sol_t *s)
{
    return gs_has_zero(s->hextra, s->p->n, 1, s->p->prec)
               ? "R has a zero on its diagonal: the CPU library gives LAPACK's outputs"
               : NULL;
}

const gs_sol_op_t gs_sol_gels = {.work = gs_gels_work, .compute = gs_gels, .vec = gs_sol_mn_elems,
                                 .extra = gs_gels_extra, .host = gs_gels_host, .exact = gs_gels_exact};

/* ---- gelsd ------------------------------------------------------------------------------------------- */

/* Least squares as gelsd computes them.  A square A is decomposed as it is.  When m > n, A = QR and B becomes
 * Q^H B, whose rows n to m then hold the residual as LAPACK's do; when m < n, A^H = QR, so that A = R^H Q^H and
 * the minimum-norm solution is Q times that of R^H.  R's triangle is copied out as the product triu(R) I.  With
 * R (or A) = U S V^H, the solution of A (or R) is V S^+ U^H B and that of R^H is U S^+ V^H B, where S^+ drops
 * the singular values at or below rcond times the largest (machine precision for an rcond outside (0, 1)), as
 * xLALSD does.  S^+ is applied on the host, which needs the singular values for the rank anyway: hvec receives
 * them and hextra the mn x nrhs product.  A non-zero INFO leaves the rest undone, for the caller to see. */

/* The SVD that gelsd makes: of the mn x mn matrix that a square A, or the R of A = QR (m > n) or of A^H = QR
 * (m < n) leaves, with mn vectors each side. */
static gs_lapack_t gs_gelsd_svd(const gs_lapack_t *p)
{
    int64_t mn = gs_lapack_mn(p);
    return (gs_lapack_t){.op = GS_OP_gesdd, .prec = p->prec, .m = mn, .n = mn, .job1 = 'S'};
}

/* gelsd's device memory in extra: tau, R, U, VT, the mn x nrhs product, A^H when m < n, what the QR's test needs
 * when m != n, then what its SVD needs, each part from a multiple of 256 bytes (gs_gelsd_extra counts them). */
typedef struct {
    char *tau, *rt, *u, *vt, *cm, *at, *qr, *svd;
} gs_gelsd_mem_t;

static size_t gs_gelsd_qr_bytes(const gs_lapack_t *p, size_t es)
{
    return p->m == p->n ? 0 : gs_sol_geqrf_tested_bytes(gs_max(p->m, p->n), gs_lapack_mn(p), es);
}

static gs_gelsd_mem_t gs_gelsd_mem(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t mn = (size_t)gs_lapack_mn(p), es = s->es, sq = gs_round256(mn * mn * es);
    gs_gelsd_mem_t g = {.tau = s->extra};
    g.rt = g.tau + gs_round256(mn * es);
    g.u = g.rt + sq;
    g.vt = g.u + sq;
    g.cm = g.vt + sq;
    g.at = g.cm + gs_round256(mn * (size_t)p->nrhs * es);
    g.qr = g.at + (p->m < p->n ? gs_round256((size_t)p->m * (size_t)p->n * es) : 0);
    g.svd = g.qr + gs_gelsd_qr_bytes(p, es);
    return g;
}

static size_t gs_gelsd_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_lapack_t svd = gs_gelsd_svd(p);
    size_t mn = (size_t)svd.n, es = s->es;
    return gs_round256(mn * es) + 3 * gs_round256(mn * mn * es) + gs_round256(mn * (size_t)p->nrhs * es) +
           (p->m < p->n ? gs_round256((size_t)p->m * (size_t)p->n * es) : 0) + gs_gelsd_qr_bytes(p, es) +
           gs_sol_svd_own(&svd, s->svdp, es);
}

/* QR of A (or, m < n, of A^H, n x m with leading dimension n, whose Q is applied untransposed), ormqr's, and the
 * SVD's workspaces. */
static int gs_gelsd_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool wide = p->m < p->n;
    int64_t qm = wide ? p->n : p->m, qn = wide ? p->m : p->n, qld = wide ? p->n : s->ld[0];
    int rc = gs_sol_geqrf_size(c, s, qm, qn, qld, &s->work_bytes, &s->hbytes);
    if (rc == GS_OK)
        rc = gs_qr_check_work(c, s, qm, qn, qld, &s->work_bytes);
    if (rc != GS_OK || (rc = gs_sol_ormqr_size(c, s, CUBLAS_SIDE_LEFT, wide ? CUBLAS_OP_N : gs_op_h(p->prec), qm,
                                               p->nrhs, qn, qld, s->ld[1], &s->work_bytes)) != GS_OK)
        return rc;
    gs_lapack_t svd = gs_gelsd_svd(p);
    gs_sol_t ss = *s;
    ss.p = &svd;
    ss.ld[0] = ss.ld[1] = svd.n;
    ss.work_bytes = ss.hbytes = 0;
    ss.svdp = false;
    if ((rc = gs_sol_svd_size(c, &ss)) != GS_OK)
        return rc;
    s->work_bytes = s->work_bytes > ss.work_bytes ? s->work_bytes : ss.work_bytes;
    s->hbytes = s->hbytes > ss.hbytes ? s->hbytes : ss.hbytes;
    s->svdp = ss.svdp;
    return GS_OK;
}

/* When m != n: the QR (of A, with B becoming Q^H B; or of A^H, with A left holding the factored A^H
 * transposed back, since gelsd destroys A) and R copied out into g->rt.  *a and *lda: the square matrix whose
 * SVD gelsd takes. */
static int gs_gelsd_reduce(gs_call_t *c, const gs_sol_t *s, const gs_gelsd_mem_t *g, char **a, int64_t *lda)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n, mn = gs_lapack_mn(p), qm = m < n ? n : m, qld = m < n ? n : s->ld[0];
    size_t es = s->es;
    bool wide = m < n;
    cublasOperation_t ht = gs_op_h(p->prec);
    const void *one = gs_one(p->prec);
    char *f = wide ? g->at : s->d[0];
    *a = s->d[0];
    *lda = s->ld[0];
    if (m == n)
        return GS_OK;
    int rc;
    if ((wide && (rc = gs_cublas_geam(c, p->prec, ht, CUBLAS_OP_N, n, m, one, s->d[0], s->ld[0], gs_zero(), g->at,
                                      n, g->at, n)) != GS_OK) ||
        (rc = gs_sol_geqrf_tested(c, s, qm, mn, f, qld, g->tau, g->qr)) != GS_OK)
        return rc;
    rc = !wide ? gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, ht, m, p->nrhs, n, f, qld, g->tau, s->d[1], s->ld[1],
                                  s->info + 1)
               : gs_cublas_geam(c, p->prec, ht, CUBLAS_OP_N, m, n, one, g->at, n, gs_zero(), s->d[0], s->ld[0],
                                s->d[0], s->ld[0]);
    if (rc != GS_OK)
        return rc;
    /* the identity in u, which the SVD overwrites afterwards */
    GS_CUDA(c, cudaMemsetAsync, (g->u, 0, (size_t)(mn * mn) * es, s->stream));
    GS_CUDA(c, cudaMemcpy2DAsync, (g->u, (size_t)(mn + 1) * es, s->hones, es, es, (size_t)mn, cudaMemcpyHostToDevice,
                                   s->stream));
    *a = g->rt;
    *lda = mn;
    return gs_cublas_trmm(c, p->prec, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, mn,
                          mn, one, f, qld, g->u, mn, g->rt, mn);
}

/* S^+ on the host: the rank, and row i of the mn x nrhs product in hextra divided by singular value i, or
 * zeroed; a complex element is two reals.  In the routine's precision, as LAPACK compares. */
double gs_sol_gelsd_cutoff(const gs_lapack_t *p, double smax, double *eps)
{
    bool single = p->prec == GS_P_S || p->prec == GS_P_C;
    *eps = single ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    double rcnd = p->rcond <= 0 || p->rcond >= 1 ? *eps : p->rcond;
    return single ? (double)((float)rcnd * (float)smax) : rcnd * smax;
}

static void gs_gelsd_scale(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t mn = gs_lapack_mn(p);
    bool single = p->prec == GS_P_S || p->prec == GS_P_C;
    float *fs = (float *)s->hvec, *fc = (float *)s->hextra;
    double *ds = (double *)s->hvec, *dc = (double *)s->hextra, eps;
    double tol = gs_sol_gelsd_cutoff(p, single ? fs[0] : ds[0], &eps);
    s->rank = 0;
    for (int64_t i = 0; i < mn; i++)
        s->rank += (single ? fs[i] : ds[i]) > tol;
    size_t parts = s->es / gs_real_size(p->prec), e = 0;
    for (int64_t j = 0; j < p->nrhs; j++)
        for (int64_t i = 0; i < mn; i++) {
            double sv = single ? fs[i] : ds[i];
            for (size_t k = 0; k < parts; k++, e++)
                if (single)
                    fc[e] = sv > tol ? fc[e] / (float)sv : 0;
                else
                    dc[e] = sv > tol ? dc[e] / sv : 0;
        }
}

/* The SVD of the reduced matrix, U^H B (V^H B for R^H) brought to the host with the singular values and
 * scaled there; then X = V (or U) times it, and for m < n X = Q (Y; 0). */
static int gs_gelsd(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n, mn = gs_lapack_mn(p), nr = p->nrhs;
    size_t es = s->es, pbytes = (size_t)(mn * nr) * es;
    bool wide = m < n;
    cublasOperation_t ht = gs_op_h(p->prec);
    const void *one = gs_one(p->prec);
    gs_gelsd_mem_t g = gs_gelsd_mem(s);
    gs_lapack_t svd = gs_gelsd_svd(p);
    gs_sol_t ss = *s;
    int rc = gs_gelsd_reduce(c, s, &g, &ss.d[0], &ss.ld[0]);
    ss.p = &svd;
    ss.extra = g.svd;
    ss.d[1] = g.u, ss.d[2] = g.vt;
    ss.ld[1] = ss.ld[2] = mn;
    int info[2];
    if (rc != GS_OK || (rc = gs_sol_svd_run(c, &ss)) != GS_OK ||
        (rc = gs_cublas_gemm(c, p->prec, wide ? CUBLAS_OP_N : ht, CUBLAS_OP_N, mn, nr, mn, one, wide ? g.vt : g.u,
                             mn, s->d[1], s->ld[1], gs_zero(), g.cm, mn)) != GS_OK ||
        (rc = gs_small_copy(c, info, s->info, sizeof info, cudaMemcpyDeviceToHost)) != GS_OK ||
        (rc = gs_small_copy(c, s->hvec, s->vec, (size_t)mn * gs_real_size(p->prec), cudaMemcpyDeviceToHost)) != GS_OK ||
        (rc = gs_small_copy(c, s->hextra, g.cm, pbytes, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    if (info[0] || info[1])
        return GS_OK;
    gs_gelsd_scale(s);
    if ((rc = gs_small_copy(c, g.cm, s->hextra, pbytes, cudaMemcpyHostToDevice)) != GS_OK ||
        (rc = gs_cublas_gemm(c, p->prec, wide ? CUBLAS_OP_N : ht, CUBLAS_OP_N, mn, nr, mn, one, wide ? g.u : g.vt, mn,
                             g.cm, mn, gs_zero(), s->d[1], s->ld[1])) != GS_OK || !wide)
        return rc;
    for (int64_t j = 0; j < nr; j++)
        GS_CUDA(c, cudaMemsetAsync, (s->d[1] + (size_t)(j * s->ld[1] + m) * es, 0, (size_t)(n - m) * es, s->stream));
    return gs_sol_ormqr_run(c, s, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, n, nr, m, g.at, n, g.tau, s->d[1], s->ld[1],
                            s->info + 1);
}

static size_t gs_gelsd_host(const gs_lapack_t *p) { return (size_t)(p->n * p->nrhs) * gs_prec_size(p->prec); }

/* The rank and the singular values, which gs_gelsd read. */
static void gs_gelsd_done(gs_sol_t *s)
{
    gs_lapack_set_int(s->p, s->p->rank, 0, s->rank);
    if (s->vec_bytes)
        memcpy(s->p->w, s->hvec, s->vec_bytes);
}

const gs_sol_op_t gs_sol_gelsd = {.work = gs_gelsd_work, .compute = gs_gelsd, .vec = gs_sol_mn_reals,
                                  .extra = gs_gelsd_extra, .host = gs_gelsd_host, .done = gs_gelsd_done,
                                  .flags = GS_SOL_ONES};

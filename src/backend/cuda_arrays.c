/* LAPACK operations on NumPy's arrays (families/lapack/arrays.c), as operation descriptors (cuda_solver.h) that
 * cuda_lapack.c runs: each is cuSOLVER's routine on A as it is stored (d[0], read only on the host), with B and
 * the result moved through cuBLAS's geam, which transposes on the device, into the output array X (the last
 * matrix): solve and inv (getrf, getrs), cholesky and cho_factor (potrf), eigh and eigvalsh (syevd), slogdet,
 * det and lu_factor (getrf), lu_solve (getrs) and cho_solve (potrs), and SciPy's inv and solve (getrf and
 * getrs, or potrf and potrs), which hand an ill-conditioned matrix back after a condition check (cuda_rcond.c).
 * The routines' own steps are those of the LAPACK operations (cuda_factor.c, cuda_eigen.c, cuda_svd.c); SciPy's
 * pivots go through the host. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backend/cuda_solver.h"

int gs_arr_put(gs_call_t *c, gs_sol_t *s, int x, char t, const void *src, int64_t ld, int64_t rows, int64_t cols)
{
    return gs_cublas_geam(c, s->p->prec, gs_op(t), CUBLAS_OP_N, rows, cols, gs_one(s->p->prec), src, ld, gs_zero(),
                          s->d[x], s->ld[x], s->d[x], s->ld[x]);
}

/* The LU operations factor A itself, as NumPy does, not A^T (which a C-ordered A is as stored): the same
 * rounding, which NumPy's tests of float32 determinants and inverses need; lu_solve and cho_solve need the
 * factors themselves, as LAPACK stores them.  A stored transposed is transposed on the device into the start of
 * extra, which then stands for d[0]. */
size_t gs_arr_own_bytes(const gs_lapack_t *p, size_t es)
{
    return p->ta == 'T' ? gs_round256((size_t)p->m * (size_t)p->n * es) : 0;
}

int gs_arr_own(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    if (p->ta != 'T')
        return GS_OK;
    int rc = gs_cublas_geam(c, p->prec, CUBLAS_OP_T, CUBLAS_OP_N, p->m, p->n, gs_one(p->prec), s->d[0], s->ld[0],
                            gs_zero(), s->extra, p->m, s->extra, p->m);
    s->d[0] = s->extra, s->ld[0] = p->m;
    return rc;
}

/* B into rhs (n x nrhs): op(tb) of d[1], or the identity for inv (no B). */
static int gs_arr_rhs(gs_call_t *c, gs_sol_t *s, char *rhs)
{
    const gs_lapack_t *p = s->p;
    int64_t n = p->n, k = p->nrhs;
    if (p->b)
        return gs_cublas_geam(c, p->prec, gs_op(p->tb), CUBLAS_OP_N, n, k, gs_one(p->prec), s->d[1], s->ld[1],
                              gs_zero(), rhs, n, rhs, n);
    GS_CUDA(c, cudaMemsetAsync, (rhs, 0, (size_t)n * (size_t)k * s->es, s->stream));
    GS_CUDA(c, cudaMemcpy2DAsync, (rhs, (size_t)(n + 1) * s->es, s->hones, s->es, s->es, (size_t)n,
                                   cudaMemcpyHostToDevice, s->stream));
    return GS_OK;
}

/* SciPy's pivots (int32, 0-based, incp apart) as cuSOLVER's (int64, 1-based) on the device; GS_EEXACT for one
 * outside [0, n), which a thread of the program may have written since gs_arr_piv checked them. */
static int gs_arr_piv_in(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t *h = (int64_t *)(void *)s->hpiv;
    for (int64_t i = 0; i < p->n; i++) {
        int32_t v = ((const int32_t *)p->ipiv)[i * p->incp];
        if (v < 0 || v >= p->n) {
            gs_call_why(c, "a pivot outside the matrix: the original's call");
            return GS_EEXACT;
        }
        h[i] = (int64_t)v + 1;
    }
    return gs_small_copy(c, s->ipiv, h, (size_t)p->n * 8, cudaMemcpyHostToDevice);
}

/* SciPy warns, with its estimate of A's reciprocal condition number in the message, when that estimate (gecon's,
 * pocon's, trcon's..., by the structure it finds or is told) is below the epsilon of A's precision, or NaN.  A
 * call whose own bound or estimate is below GS_ARR_RCOND_MARGIN epsilons is handed back, so that SciPy's call
 * gives its result and its warning: the margin covers the rounding of both, and the estimates' differences
 * (each is a lower bound of |A^-1|_1, seldom below a third of it). */
#define GS_ARR_RCOND_MARGIN 1000.0

/* A's 1-norm, an upper bound (gs_rc_norm1), with 2 n doubles of sums. */
static double gs_arr_norm_a(const gs_lapack_t *p, double *sums)
{
    return gs_rc_norm1(p->a, p->n, p->lda, p->ta, p->op == GS_OP_posv ? p->uplo : 0, p->prec, sums);
}

/* Whether A's 1-norm na times the norm of its inverse, norm, leaves A clear of SciPy's threshold (never where
 * either is NaN). */
static bool gs_arr_clear_of(const gs_lapack_t *p, double na, double norm)
{
    double eps = p->prec == GS_P_S || p->prec == GS_P_C ? FLT_EPSILON : DBL_EPSILON;
    return na * norm <= 1 / (GS_ARR_RCOND_MARGIN * eps);
}

/* The host memory of the checks: 2 n doubles for the norms, and the estimate's x and isgn (gs_rcond_t). */
static size_t gs_arr_cond_host(const gs_lapack_t *p)
{
    return p->cond ? (size_t)p->n * (2 * sizeof(double) + gs_prec_size(p->prec) + sizeof(int)) : 0;
}

/* solve_rcond and posv_rcond, once A's factorisation is queued into d[0]: SciPy's call instead (GS_EEXACT,
 * nothing written) when the factorisation failed or A is ill-conditioned or nearly by LAPACK's estimate, made
 * with dx on the device.  A's 1-norm is taken on the host while the GPU factors. */
static int gs_arr_estimate(gs_call_t *c, gs_sol_t *s, char *dx)
{
    const gs_lapack_t *p = s->p;
    size_t n = (size_t)p->n;
    double na = gs_arr_norm_a(p, (double *)(void *)s->hextra);
    int rc = gs_small_copy(c, s->hinfo, s->info, sizeof s->hinfo, cudaMemcpyDeviceToHost);
    if (rc != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    if (s->hinfo[0] != 0) {
        gs_call_why(c, "INFO = %d on the GPU: SciPy's call gives its error", s->hinfo[0]);
        return GS_EEXACT;
    }
    gs_rcond_t e = {s->d[0], s->ld[0], dx, s->hextra + 2 * n * sizeof(double),
                    (int *)(void *)(s->hextra + n * (2 * sizeof(double) + s->es))};
    double est;
    if ((rc = gs_rc_estimate(c, s, &e, &est)) != GS_OK)
        return rc;
    if (gs_arr_clear_of(p, na, est))
        return GS_OK;
    gs_call_why(c, "ill-conditioned or nearly: SciPy's call gives its warning");
    return GS_EEXACT;
}

/* The solves: A's factors (getrf: solve, inv, inv_rcond and solve_rcond; potrf: posv_rcond; given: lu_solve
 * and cho_solve, with the pivots), after gs_arr_own made them the factors of A itself; the condition check of
 * solve_rcond and posv_rcond; B (the identity for inv) in extra after A's own copy, the solve there, and X, the
 * last matrix, from it.  The check's device vector, n elements, follows B in extra. */
static int gs_arr_solves(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t n = p->n, k = p->nrhs;
    char *rhs = s->extra + gs_arr_own_bytes(p, s->es), *dx = rhs + gs_round256((size_t)n * (size_t)k * s->es);
    bool lu = p->op == GS_OP_gesv || p->op == GS_OP_getrs;
    int rc = gs_arr_own(c, s);
    if (rc == GS_OK && (p->op == GS_OP_gesv || p->op == GS_OP_posv))
        rc = (p->op == GS_OP_gesv ? gs_sol_getrf : gs_sol_potrf).compute(c, s);
    if (rc == GS_OK && p->cond && p->b)
        rc = gs_arr_estimate(c, s, dx);
    if (rc == GS_OK && p->op == GS_OP_getrs)
        rc = gs_arr_piv_in(c, s);
    if (rc == GS_OK)
        rc = gs_arr_rhs(c, s, rhs);
    if (rc != GS_OK)
        return rc;
    if (lu) /* gesv's trans is A's storage, which gs_arr_own undid */
        GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, p->op == GS_OP_gesv ? CUBLAS_OP_N : gs_op(p->trans), n, k, s->t,
                                     s->d[0], s->ld[0], s->ipiv, s->t, rhs, n, s->info + 1));
    else
        GS_SOL(c, cusolverDnXpotrs, (s->h, s->q, gs_fill(p->uplo), n, k, s->t, s->d[0], s->ld[0], s->t, rhs, n,
                                     s->info + 1));
    int x = p->b ? 2 : 1;
    return p->tx == 'N' ? gs_arr_put(c, s, x, 'N', rhs, n, n, k) : gs_arr_put(c, s, x, p->tx, rhs, n, k, n);
}

/* inv_rcond (scipy.linalg.inv), once X holds the inverse: the bound 1 / (|A|_1 |X|_1) of A's reciprocal
 * condition number, which SciPy's estimate is at least, but for X's rounding. */
static const char *gs_arr_cond(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    if (!p->cond || p->b)
        return NULL;
    double *sums = (double *)(void *)s->hextra;
    double nx = gs_rc_norm1(p->x, p->n, p->ldx, p->tx, 0, p->prec, sums), na = gs_arr_norm_a(p, sums);
    return gs_arr_clear_of(p, na, nx) ? NULL : "ill-conditioned or nearly: SciPy's call gives its warning";
}

static size_t gs_arr_gesv_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t n = (size_t)p->n;
    return gs_arr_own_bytes(p, s->es) + gs_round256(n * (size_t)p->nrhs * s->es) + (p->cond ? n * s->es : 0);
}

static size_t gs_arr_getrf_extra(const gs_sol_t *s)
{
    return gs_arr_own_bytes(s->p, s->es);
}

/* cholesky: the factor in d[0], then X from it. */
static int gs_arr_potrf(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_sol_potrf.compute(c, s);
    return rc != GS_OK ? rc : gs_arr_put(c, s, 1, s->p->tx, s->d[0], s->ld[0], s->p->n, s->p->n);
}

/* X's triangle clear set to zero, once X holds the factor (numpy.linalg.cholesky's zeros). */
static void gs_arr_clear(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t es = s->es, n = (size_t)p->n;
    for (size_t j = 0; p->clear && j < n; j++) {
        size_t lo = p->clear == 'U' ? 0 : j + 1, hi = p->clear == 'U' ? j : n;
        memset((char *)p->x + (j * (size_t)p->ldx + lo) * es, 0, (hi - lo) * es);
    }
}

/* eigh: the eigenvectors in d[0], then X from them. */
static int gs_arr_syevd(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_sol_syevd.compute(c, s);
    return rc != GS_OK ? rc : gs_arr_put(c, s, 1, s->p->tx, s->d[0], s->ld[0], s->p->n, s->p->n);
}

/* slogdet and det: A's LU factors, and their diagonal into X, n elements; lu_factor: the factors into X. */
static int gs_arr_getrf(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_arr_own(c, s);
    if (rc == GS_OK)
        rc = gs_sol_getrf.compute(c, s);
    if (rc != GS_OK)
        return rc;
    const gs_lapack_t *p = s->p;
    if (p->ipiv)
        return p->tx == 'N' ? gs_arr_put(c, s, 1, 'N', s->d[0], s->ld[0], p->m, p->n)
                            : gs_arr_put(c, s, 1, p->tx, s->d[0], s->ld[0], p->n, p->m);
    GS_CUDA(c, cudaMemcpy2DAsync, (s->d[1], s->es, s->d[0], (size_t)(s->ld[0] + 1) * s->es, s->es, (size_t)s->p->n,
                                   cudaMemcpyDeviceToDevice, s->stream));
    return GS_OK;
}

/* The determinant's sign from the pivots: X's first element negated when they make an odd permutation, so that
 * the product of X's elements is the determinant. */
static void gs_arr_pivot_sign(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool odd = false;
    for (int64_t i = 0; i < p->n; i++)
        odd ^= ((const int64_t *)s->hpiv)[i] != i + 1;
    if (!odd)
        return;
    char *x0 = p->x;
    bool single = p->prec == GS_P_S || p->prec == GS_P_C;
    for (size_t i = 0; i < (gs_prec_complex(p->prec) ? 2 : 1); i++)
        if (single)
            ((float *)x0)[i] = -((float *)x0)[i];
        else
            ((double *)x0)[i] = -((double *)x0)[i];
}

/* getrf's pivots: lu_factor's into the caller's array (SciPy's: int32, 0-based, incp apart); otherwise the
 * determinant's sign from them. */
static void gs_arr_lu_done(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    if (!p->ipiv) {
        gs_arr_pivot_sign(s);
        return;
    }
    for (int64_t i = 0; i < gs_lapack_mn(p); i++)
        ((int32_t *)p->ipiv)[i * p->incp] = (int32_t)(((const int64_t *)(const void *)s->hpiv)[i] - 1);
}

/* The workspaces and the eigenvalues' vector are those of the routines' LAPACK operations. */
/* getrf's, for A as it is factored: m x n with leading dimension m (gs_arr_own). */
static int gs_arr_lu_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXgetrf_bufferSize, (s->h, s->q, p->m, p->n, s->t, NULL, p->m, s->t, &s->work_bytes,
                                            &s->hbytes));
    return GS_OK;
}

static int gs_arr_chol_work(gs_call_t *c, gs_sol_t *s)
{
    return gs_sol_potrf.work(c, s);
}

static int gs_arr_eig_work(gs_call_t *c, gs_sol_t *s)
{
    return gs_sol_syevd.work(c, s);
}

static size_t gs_arr_eig_vec(const gs_lapack_t *p)
{
    return gs_sol_syevd.vec(p);
}

const gs_sol_op_t gs_sol_arr_gesv = {.work = gs_arr_lu_work, .compute = gs_arr_solves, .extra = gs_arr_gesv_extra,
                                     .host = gs_arr_cond_host, .written = gs_arr_cond,
                                     .flags = GS_SOL_PIV_DEV | GS_SOL_ONES};
const gs_sol_op_t gs_sol_arr_posv = {.work = gs_arr_chol_work, .compute = gs_arr_solves, .extra = gs_arr_gesv_extra,
                                     .host = gs_arr_cond_host};
const gs_sol_op_t gs_sol_arr_getrf = {.work = gs_arr_lu_work, .compute = gs_arr_getrf, .extra = gs_arr_getrf_extra,
                                      .done = gs_arr_lu_done, .flags = GS_SOL_PIV_BACK};
/* cuSOLVER's getrs and potrs take no workspace. */
const gs_sol_op_t gs_sol_arr_getrs = {.compute = gs_arr_solves, .extra = gs_arr_gesv_extra, .flags = GS_SOL_PIV_DEV};
const gs_sol_op_t gs_sol_arr_potrs = {.compute = gs_arr_solves, .extra = gs_arr_gesv_extra};
const gs_sol_op_t gs_sol_arr_potrf = {.work = gs_arr_chol_work, .compute = gs_arr_potrf, .done = gs_arr_clear};
const gs_sol_op_t gs_sol_arr_syevd = {.work = gs_arr_eig_work, .compute = gs_arr_syevd, .vec = gs_arr_eig_vec,
                                      .flags = GS_SOL_W_OUT};

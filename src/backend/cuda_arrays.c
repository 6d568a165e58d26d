/* LAPACK operations on NumPy's arrays (families/lapack/arrays.c), as operation descriptors (cuda_solver.h) that
 * cuda_lapack.c runs: each is cuSOLVER's routine on A as it is stored (d[0], read only on the host), with B and
 * the result moved through cuBLAS's geam, which transposes on the device, into the output array X (the last
 * matrix).  The routines' own steps are those of the LAPACK operations (cuda_factor.c, cuda_eigen.c). */
#include <string.h>

#include "backend/cuda_solver.h"

/* The last matrix, X, of s: op(src) (rows x cols of X as stored), src with leading dimension ld. */
static int gs_arr_put(gs_call_t *c, gs_sol_t *s, int x, const void *src, int64_t ld, int64_t rows, int64_t cols)
{
    const gs_lapack_t *p = s->p;
    return gs_cublas_geam(c, p->prec, gs_op(p->tx), CUBLAS_OP_N, rows, cols, gs_one(p->prec), src, ld, gs_zero(),
                          s->d[x], s->ld[x], s->d[x], s->ld[x]);
}

/* solve: A's LU factors in d[0], B op(tb) into extra (n x nrhs), the solve there with A transposed as stored
 * (trans), and X from it. */
static int gs_arr_gesv(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t n = p->n, k = p->nrhs;
    int rc = gs_sol_getrf.compute(c, s);
    if (rc == GS_OK)
        rc = gs_cublas_geam(c, p->prec, gs_op(p->tb), CUBLAS_OP_N, n, k, gs_one(p->prec), s->d[1], s->ld[1],
                            gs_zero(), s->extra, n, s->extra, n);
    if (rc != GS_OK)
        return rc;
    GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, gs_op(p->trans), n, k, s->t, s->d[0], s->ld[0], s->ipiv, s->t, s->extra,
                                 n, s->info + 1));
    return p->tx == 'N' ? gs_arr_put(c, s, 2, s->extra, n, n, k) : gs_arr_put(c, s, 2, s->extra, n, k, n);
}

static size_t gs_arr_gesv_extra(const gs_sol_t *s)
{
    return (size_t)s->p->n * (size_t)s->p->nrhs * s->es;
}

/* cholesky: the factor in d[0], then X from it. */
static int gs_arr_potrf(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_sol_potrf.compute(c, s);
    return rc != GS_OK ? rc : gs_arr_put(c, s, 1, s->d[0], s->ld[0], s->p->n, s->p->n);
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
    return rc != GS_OK ? rc : gs_arr_put(c, s, 1, s->d[0], s->ld[0], s->p->n, s->p->n);
}

/* The workspaces and the eigenvalues' vector are those of the routines' LAPACK operations. */
static int gs_arr_lu_work(gs_call_t *c, gs_sol_t *s)
{
    return gs_sol_getrf.work(c, s);
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

const gs_sol_op_t gs_sol_arr_gesv = {.work = gs_arr_lu_work, .compute = gs_arr_gesv, .extra = gs_arr_gesv_extra,
                                     .flags = GS_SOL_PIV_DEV};
const gs_sol_op_t gs_sol_arr_potrf = {.work = gs_arr_chol_work, .compute = gs_arr_potrf, .done = gs_arr_clear};
const gs_sol_op_t gs_sol_arr_syevd = {.work = gs_arr_eig_work, .compute = gs_arr_syevd, .vec = gs_arr_eig_vec,
                                      .flags = GS_SOL_W_OUT};

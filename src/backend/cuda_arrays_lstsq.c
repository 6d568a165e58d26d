/* The Python layer's least squares (numpy.linalg.lstsq and scipy.linalg.lstsq: families/lapack/arrays.c's lstsq)
 * as an operation descriptor (cuda_solver.h): gelsd on cuSOLVER as cuda_lstsq.c computes it, on A in column-major
 * order (as stored, or its transpose made on the device by gs_arr_own), and on B copied into X's device matrix
 * (max(m, n) rows), which gelsd overwrites with the solution on top and, when m > n, the residual below, as
 * LAPACK's does; an X stored transposed (C order) gets it through cuBLAS's geam from a column-major copy. */
#include <math.h>

#include "backend/cuda_solver.h"

/* Device memory: A's own copy at the start of extra (gs_arr_own), then gelsd's own, then, where X is stored
 * transposed, B's column-major copy (max(m, n) x k, leading dimension max(m, n)). */
static char *gs_alsq_gelsd(const gs_sol_t *s)
{
    return s->extra + gs_arr_own_bytes(s->p, s->es);
}

static char *gs_alsq_b(const gs_sol_t *s)
{
    return gs_alsq_gelsd(s) + gs_round256(gs_sol_gelsd.extra(s));
}

static size_t gs_alsq_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return (size_t)(gs_alsq_b(s) - s->extra) + (p->tx == 'N' ? 0 : (size_t)(gs_max(p->m, p->n) * p->nrhs) * s->es);
}

/* gelsd's workspaces, for A and B's copy as gs_alsq lays them out. */
static int gs_alsq_work(gs_call_t *c, gs_sol_t *s)
{
    gs_sol_t g = *s;
    g.ld[0] = s->p->m, g.ld[1] = gs_max(s->p->m, s->p->n);
    int rc = gs_sol_gelsd.work(c, &g);
    s->work_bytes = g.work_bytes, s->hbytes = g.hbytes, s->svdp = g.svdp;
    return rc;
}

/* A and B's copy into place, gelsd on them, then X from the copy where X is stored transposed. */
static int gs_alsq(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, k = p->nrhs, big = gs_max(m, p->n);
    gs_sol_t g = *s;
    int rc = gs_arr_own(c, &g);
    g.extra = gs_alsq_gelsd(s);
    g.d[1] = p->tx == 'N' ? s->d[2] : gs_alsq_b(s), g.ld[1] = big;
    if (rc == GS_OK)
        rc = gs_cublas_geam(c, p->prec, gs_op(p->tb), CUBLAS_OP_N, m, k, gs_one(p->prec), s->d[1], s->ld[1],
                            gs_zero(), g.d[1], big, g.d[1], big);
    if (rc == GS_OK)
        rc = gs_sol_gelsd.compute(c, &g);
    s->rank = g.rank;
    return rc != GS_OK || p->tx == 'N' ? rc : gs_arr_put(c, s, 2, p->tx, g.d[1], big, k, big);
}

/* A singular value within GS_ALSQ_GAP epsilons of the largest from gelsd's cut-off may fall on the other side of
 * it in the CPU library's rounding, and the rank with it: the original's call decides. */
#define GS_ALSQ_GAP 1000.0
static const char *gs_alsq_exact(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool single = gs_real_size(p->prec) == 4;
    const float *fs = (const float *)(const void *)s->hvec;
    const double *ds = (const double *)(const void *)s->hvec;
    double smax = single ? fs[0] : ds[0], eps, tol = gs_sol_gelsd_cutoff(p, smax, &eps);
    for (int64_t i = 0; i < gs_lapack_mn(p); i++)
        if (fabs((single ? fs[i] : ds[i]) - tol) <= GS_ALSQ_GAP * 2 * eps * smax)
            return "a singular value at rcond's threshold: the original's call decides the rank";
    return NULL;
}

static size_t gs_alsq_host(const gs_lapack_t *p) { return gs_sol_gelsd.host(p); }

/* The rank, NumPy's int32. */
static void gs_alsq_done(gs_sol_t *s)
{
    *(int32_t *)s->p->rank = (int32_t)s->rank;
}

const gs_sol_op_t gs_sol_arr_gelsd = {.work = gs_alsq_work, .compute = gs_alsq, .vec = gs_sol_mn_reals,
                                      .extra = gs_alsq_extra, .host = gs_alsq_host, .exact = gs_alsq_exact,
                                      .done = gs_alsq_done, .flags = GS_SOL_ONES | GS_SOL_W_OUT};

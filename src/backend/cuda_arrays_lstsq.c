/* The Python layer's least squares (numpy.linalg.lstsq and scipy.linalg.lstsq: families/lapack/arrays.c's lstsq)
 * as an operation descriptor (cuda_solver.h): gelsd on cuSOLVER as cuda_lstsq.c computes it, on F, A in
 * column-major order (A as stored, or its transpose made on the device), and on B copied into X's device matrix
 * (max(m, n) rows), which gelsd overwrites with the solution on top and, when m > n, the residual below, as
 * LAPACK's does; an X stored transposed (C order) gets it through cuBLAS's geam from a column-major copy. */
#include <float.h>
#include <math.h>

#include "backend/cuda_solver.h"

/* Device memory after gelsd's own: F where A is stored as its transpose (m x n, leading dimension m), then, where
 * X is stored transposed, B's column-major copy (max(m, n) x k, leading dimension max(m, n)). */
typedef struct {
    char *f, *b;
} gs_alsq_t;

static gs_alsq_t gs_alsq_layout(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_alsq_t l = {.f = s->extra + gs_round256(gs_sol_gelsd.extra(s))};
    l.b = l.f + (p->ta == 'T' ? gs_round256((size_t)(p->m * p->n) * s->es) : 0);
    return l;
}

static size_t gs_alsq_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return (size_t)(gs_alsq_layout(s).b - s->extra) +
           (p->tx == 'N' ? 0 : (size_t)(gs_max(p->m, p->n) * p->nrhs) * s->es);
}

/* gelsd's workspaces, for F and B's copy as gs_alsq lays them out. */
static int gs_alsq_work(gs_call_t *c, gs_sol_t *s)
{
    gs_sol_t g = *s;
    g.ld[0] = s->p->m, g.ld[1] = gs_max(s->p->m, s->p->n);
    int rc = gs_sol_gelsd.work(c, &g);
    s->work_bytes = g.work_bytes, s->hbytes = g.hbytes, s->svdp = g.svdp;
    return rc;
}

/* F and B's copy into place, gelsd on them, then X from the copy where X is stored transposed. */
static int gs_alsq(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t m = p->m, n = p->n, k = p->nrhs, big = gs_max(m, n);
    const void *one = gs_one(p->prec);
    gs_alsq_t l = gs_alsq_layout(s);
    gs_sol_t g = *s;
    int rc = GS_OK;
    if (p->ta == 'T') {
        rc = gs_cublas_geam(c, p->prec, CUBLAS_OP_T, CUBLAS_OP_N, m, n, one, s->d[0], s->ld[0], gs_zero(), l.f, m,
                            l.f, m);
        g.d[0] = l.f, g.ld[0] = m;
    }
    g.d[1] = p->tx == 'N' ? s->d[2] : l.b, g.ld[1] = big;
    if (rc == GS_OK)
        rc = gs_cublas_geam(c, p->prec, gs_op(p->tb), CUBLAS_OP_N, m, k, one, s->d[1], s->ld[1], gs_zero(), g.d[1],
                            big, g.d[1], big);
    if (rc == GS_OK)
        rc = gs_sol_gelsd.compute(c, &g);
    s->rank = g.rank;
    return rc != GS_OK || p->tx == 'N' ? rc : gs_arr_put(c, s, 2, p->tx, l.b, big, k, big);
}

/* A singular value within GS_ALSQ_GAP epsilons of the largest from rcond's threshold may fall on the other side
 * of it in the CPU library's rounding, and the rank with it: the original's call decides. */
#define GS_ALSQ_GAP 1000.0
static const char *gs_alsq_exact(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool single = gs_real_size(p->prec) == 4;
    double eps = single ? FLT_EPSILON / 2 : DBL_EPSILON / 2, rcnd = p->rcond <= 0 || p->rcond >= 1 ? eps : p->rcond;
    const float *fs = (const float *)(const void *)s->hvec;
    const double *ds = (const double *)(const void *)s->hvec;
    double smax = single ? fs[0] : ds[0], tol = rcnd * smax;
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

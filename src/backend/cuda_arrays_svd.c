/* The Python layer's SVD (numpy.linalg.svd, scipy.linalg.svd: families/lapack/arrays.c's svd and svdvals) as an
 * operation descriptor (cuda_solver.h): LAPACK's SVD on cuSOLVER (cuda_svd.c's gesvdp or gesvd) of F, A or
 * its transpose, whichever is no wider than tall, with A's storage transposed on the device where it is not F's;
 * then U and Vh from F's vectors through cuBLAS's geam, which copies or transposes each into the output array's
 * storage, so that every order of A and of the outputs costs no copy on the host. */
#include <float.h>

#include "backend/cuda_solver.h"

/* Device memory after the SVD's own (gs_sol_svd_own, which cuda_svd.c finds at the start of extra): F where A is
 * stored as its transpose (m x n, leading dimension m), then F's U (m x ju) and VT (n x n), n = min(m, n). */
typedef struct {
    char *f, *uf, *vtf;
    int64_t ju;
} gs_asvd_t;

static bool gs_asvd_own(const gs_lapack_t *p)
{
    return (p->ta == 'T') != (p->trans == 'T');
}

static gs_asvd_t gs_asvd_layout(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_asvd_t l = {.ju = p->job1 == 'A' ? p->m : p->n};
    size_t es = s->es;
    l.f = s->extra + gs_round256(gs_sol_svd_own(p, s->svdp, es));
    l.uf = l.f + (gs_asvd_own(p) ? gs_round256((size_t)(p->m * p->n) * es) : 0);
    l.vtf = l.uf + (p->job1 != 'N' ? gs_round256((size_t)(p->m * l.ju) * es) : 0);
    return l;
}

static size_t gs_asvd_extra(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_asvd_t l = gs_asvd_layout(s);
    return (size_t)(l.vtf - s->extra) + (p->job1 != 'N' ? (size_t)(p->n * p->n) * s->es : 0);
}

/* cuSOLVER's workspaces, for F with leading dimension m where the device makes it. */
static int gs_asvd_work(gs_call_t *c, gs_sol_t *s)
{
    if (gs_asvd_own(s->p))
        s->ld[0] = s->p->m;
    return gs_sol_svd_size(c, s);
}

/* F into place, its SVD into the layout's U and VT (standing for the outputs in d[1] and d[2] meanwhile), then
 * the outputs: A = F gives U = Uf, Vh = VTf; A = F^T gives U = VTf^T, Vh = Uf^T.  An output stored transposed
 * ('T') takes the other of copy and transpose. */
static int gs_asvd(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_asvd_t l = gs_asvd_layout(s);
    int64_t m = p->m, n = p->n;
    int rc;
    if (gs_asvd_own(p)) {
        rc = gs_cublas_geam(c, p->prec, CUBLAS_OP_T, CUBLAS_OP_N, m, n, gs_one(p->prec), s->d[0], s->ld[0],
                            gs_zero(), l.f, m, l.f, m);
        if (rc != GS_OK)
            return rc;
        s->d[0] = l.f, s->ld[0] = m;
    }
    char *out[2] = {s->d[1], s->d[2]};
    int64_t ld[2] = {s->ld[1], s->ld[2]};
    s->d[1] = l.uf, s->ld[1] = m, s->d[2] = l.vtf, s->ld[2] = n;
    rc = gs_sol_svd_run(c, s);
    s->d[1] = out[0], s->ld[1] = ld[0], s->d[2] = out[1], s->ld[2] = ld[1];
    if (rc != GS_OK || p->job1 == 'N')
        return rc;
    bool wide = p->trans == 'T', tu = wide != (p->tx == 'T'), tv = wide != (p->tv == 'T');
    /* U from Uf (m x ju) or VTf (n x n); Vh from VTf or Uf */
    const char *su = wide ? l.vtf : l.uf, *sv = wide ? l.uf : l.vtf;
    int64_t ur = wide ? n : m, uc = wide ? n : l.ju, vr = wide ? m : n, vc = wide ? l.ju : n; /* as they are */
    int64_t uld = wide ? n : m, vld = wide ? m : n;
    if ((rc = gs_arr_put(c, s, 1, tu ? 'T' : 'N', su, uld, tu ? uc : ur, tu ? ur : uc)) != GS_OK)
        return rc;
    return gs_arr_put(c, s, 2, tv ? 'T' : 'N', sv, vld, tv ? vc : vr, tv ? vr : vc);
}

/* A singular vector is the original's up to its phase only where its singular value is apart from the others: two
 * values within GS_ASVD_GAP epsilons of the largest (a repeated one, or zeros of a rank below min(m, n) - 1) leave
 * their vectors any basis of a space, which is the original's call to choose. */
#define GS_ASVD_GAP 1000.0
static const char *gs_asvd_exact(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    bool single = gs_real_size(p->prec) == 4;
    double eps = single ? FLT_EPSILON : DBL_EPSILON, prev = 0, max = 0;
    const void *w = s->hvec;
    for (int64_t i = 0; p->job1 != 'N' && i < p->n; i++) {
        double v = single ? (double)((const float *)w)[i] : ((const double *)w)[i];
        if (i == 0)
            max = v;
        else if (prev - v <= GS_ASVD_GAP * eps * max)
            return "singular values too close for their vectors to be the original's: its call";
        prev = v;
    }
    return NULL;
}

const gs_sol_op_t gs_sol_arr_svd = {.work = gs_asvd_work, .compute = gs_asvd, .vec = gs_sol_mn_reals,
                                    .extra = gs_asvd_extra, .exact = gs_asvd_exact, .flags = GS_SOL_W_OUT};

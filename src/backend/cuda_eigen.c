/* Eigenvalues of LAPACK on cuSOLVER, each an operation descriptor (cuda_solver.h): the symmetric or Hermitian
 * eigensolver (syev and syevd, both by syevd; syevr and syevx, of a range, by syevdx) and the general eigensolver
 * (geev, right eigenvectors only).  The SVD is cuda_svd.c's. */
#include <string.h>

#include "backend/cuda_solver.h"

/* ---- symmetric eigensolver --------------------------------------------------------------------------- */

static int gs_syevd_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXsyevd_bufferSize, (s->h, s->q, gs_eig(p->job1), gs_fill(p->uplo), p->n, s->t, NULL,
                                            s->ld[0], s->r, NULL, s->t, &s->work_bytes, &s->hbytes));
    return GS_OK;
}

static int gs_syevd(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXsyevd, (s->h, s->q, gs_eig(p->job1), gs_fill(p->uplo), p->n, s->t, s->d[0], s->ld[0], s->r,
                                 s->vec, s->t, s->work, s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

static size_t gs_n_reals(const gs_lapack_t *p) { return (size_t)p->n * gs_real_size(p->prec); }

const gs_sol_op_t gs_sol_syevd = {.work = gs_syevd_work, .compute = gs_syevd, .vec = gs_n_reals,
                                  .flags = GS_SOL_W_OUT};

/* ---- symmetric eigensolver of a range (syevr, syevx) ------------------------------------------------- */

static cusolverEigRange_t gs_range(char r)
{
    return r == 'V' ? CUSOLVER_EIG_RANGE_V : r == 'I' ? CUSOLVER_EIG_RANGE_I : CUSOLVER_EIG_RANGE_ALL;
}

/* syevdx's bounds, host values of the eigenvalues' type; its indexes, 1 to n where the range has none. */
typedef struct {
    union {
        float f;
        double d;
    } vl, vu;
    int64_t il, iu;
} gs_range_t;

static gs_range_t gs_range_of(const gs_lapack_t *p)
{
    gs_range_t r = {.il = p->range == 'I' ? p->il : 1, .iu = p->range == 'I' ? p->iu : p->n};
    if (gs_real_size(p->prec) == 4)
        r.vl.f = (float)p->vl, r.vu.f = (float)p->vu;
    else
        r.vl.d = p->vl, r.vu.d = p->vu;
    return r;
}

static int gs_syevdx_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_range_t r = gs_range_of(p);
    int64_t found = 0;
    GS_SOL(c, cusolverDnXsyevdx_bufferSize, (s->h, s->q, gs_eig(p->job1), gs_range(p->range), gs_fill(p->uplo), p->n,
                                             s->t, NULL, s->ld[0], &r.vl, &r.vu, r.il, r.iu, &found, s->r, NULL, s->t,
                                             &s->work_bytes, &s->hbytes));
    return GS_OK;
}

/* The eigenvalues into vec and, where wanted, their vectors into A's first columns on the device; the count
 * found is a host value, so cuSOLVER waits for the device. */
static int gs_syevdx(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_range_t r = gs_range_of(p);
    GS_SOL(c, cusolverDnXsyevdx, (s->h, s->q, gs_eig(p->job1), gs_range(p->range), gs_fill(p->uplo), p->n, s->t,
                                  s->d[0], s->ld[0], &r.vl, &r.vu, r.il, r.iu, &s->found, s->r, s->vec, s->t, s->work,
                                  s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

/* Z: the vectors found, A's first columns on the device, through the transfer engine. */
static int gs_syevdx_out(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    /* A count other than the range's (all n, or IU - IL + 1), or more than W and Z hold: nothing is written
     * (src/WRITES.md). */
    int64_t want = p->range == 'A' ? p->n : p->range == 'I' ? p->iu - p->il + 1 : s->found;
    if (s->found < 0 || s->found > p->n || s->found != want) {
        gs_call_why(c, "gpu error: cuSOLVER's syevdx found %lld eigenvalues of %lld", (long long)s->found,
                    (long long)p->n);
        return GS_EGPU;
    }
    if (p->job1 != 'V' || s->found == 0)
        return GS_OK;
    gs_hreg_t z = {p->u, (size_t)p->n * s->es, (size_t)p->ldu * s->es, (size_t)s->found};
    gs_xjob_t j = {0};
    int rc = gs_xfer_get(c, &j, &z, s->d[0], (size_t)s->ld[0] * s->es);
    int rc2 = gs_xfer_finish(c, &j);
    return rc != GS_OK ? rc : rc2;
}

/* syevr's ISUPPZ, as LAPACK defines it: the first and last nonzero rows (1-based) of each vector in Z, where
 * LAPACK sets it (every vector: RANGE = 'A', or 'I' with IL = 1 and IU = N). */
static void gs_syevr_support(const gs_lapack_t *p, int64_t found)
{
    if (p->range == 'V' || (p->range == 'I' && (p->il != 1 || p->iu != p->n)))
        return;
    size_t es = gs_prec_size(p->prec);
    for (int64_t j = 0; j < found; j++) {
        const char *col = (const char *)p->u + (size_t)j * (size_t)p->ldu * es;
        int64_t lo = 0, hi = p->n - 1;
        while (lo < hi && gs_scalar_is_zero(col + (size_t)lo * es, p->prec, false))
            lo++;
        while (hi > lo && gs_scalar_is_zero(col + (size_t)hi * es, p->prec, false))
            hi--;
        gs_lapack_set_int(p, p->support, 2 * j, lo + 1);
        gs_lapack_set_int(p, p->support, 2 * j + 1, hi + 1);
    }
}

/* M, the eigenvalues found into W, and syevr's ISUPPZ or syevx's IFAIL (zero for every vector found). */
static void gs_syevdx_done(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    gs_lapack_set_int(p, p->found, 0, s->found);
    memcpy(p->w, s->hvec, (size_t)s->found * gs_real_size(p->prec));
    if (p->job1 != 'V')
        return;
    if (p->op == GS_OP_syevr)
        gs_syevr_support(p, s->found);
    else
        for (int64_t i = 0; i < s->found; i++)
            gs_lapack_set_int(p, p->support, i, 0);
}

const gs_sol_op_t gs_sol_syevdx = {.work = gs_syevdx_work, .compute = gs_syevdx, .vec = gs_n_reals,
                                   .out = gs_syevdx_out, .done = gs_syevdx_done, .flags = GS_SOL_VEC_BACK};

/* ---- general eigensolver ----------------------------------------------------------------------------- */

/* The eigenvalues' type: complex, or for a real matrix 2n reals, wr then wi. */
static cudaDataType gs_geev_wtype(const gs_sol_t *s) { return gs_prec_complex(s->p->prec) ? s->t : s->r; }

static int gs_geev_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t n = p->n, ldv = n > 0 ? n : 1;
    GS_SOL(c, cusolverDnXgeev_bufferSize, (s->h, s->q, CUSOLVER_EIG_MODE_NOVECTOR, gs_eig(p->job2), n, s->t, NULL,
                                           s->ld[0], gs_geev_wtype(s), NULL, s->t, NULL, ldv, s->t, NULL, ldv, s->t,
                                           &s->work_bytes, &s->hbytes));
    return GS_OK;
}

static int gs_geev(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int64_t n = p->n, ldv = n > 0 ? n : 1;
    bool vr = p->job2 == 'V';
    GS_SOL(c, cusolverDnXgeev, (s->h, s->q, CUSOLVER_EIG_MODE_NOVECTOR, gs_eig(p->job2), n, s->t, s->d[0], s->ld[0],
                                gs_geev_wtype(s), s->vec, s->t, NULL, ldv, s->t, vr ? s->d[1] : NULL,
                                vr ? s->ld[1] : ldv, s->t, s->work, s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

static size_t gs_geev_vec(const gs_lapack_t *p)
{
    return (size_t)(gs_prec_complex(p->prec) ? p->n : 2 * p->n) * gs_prec_size(p->prec);
}

/* The eigenvalues into w, or for a real matrix into wr and wi, separate arrays. */
static void gs_geev_done(gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t half = s->vec_bytes / 2;
    if (!s->vec_bytes)
        return;
    if (gs_prec_complex(p->prec)) {
        memcpy(p->w, s->hvec, s->vec_bytes);
    } else {
        memcpy(p->w, s->hvec, half);
        memcpy(p->wi, s->hvec + half, half);
    }
}

const gs_sol_op_t gs_sol_geev = {.work = gs_geev_work, .compute = gs_geev, .vec = gs_geev_vec,
                                 .done = gs_geev_done, .flags = GS_SOL_VEC_BACK};

/* The LAPACK drivers that SciPy, R and Octave call by default, normalised as the other routines are
 * (lapack.c): the eigensolvers of a range (syevr, syevx, and heevr, heevx), the symmetric indefinite
 * factorisation and solves (sytrf, sytrs, sysv, and the Hermitian hetrf, hetrs, hesv), and the routines
 * cuSOLVER has no counterpart for (gees, gelsy, geevx), which run on the CPU with the reason in the log. */
#include <math.h>

#include "families/lapack/lapack.h"

void gs_lapack_eigx(gs_lapack_t *p, unsigned e, gs_eigx_t x, int64_t n, void *a, int64_t lda, void *w, void *work,
                    int64_t lwork, void *rwork, int64_t lrwork, void *iwork, int64_t liwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->job1 = gs_up(x.jobz), p->range = gs_up(x.range), p->uplo = gs_up(x.uplo), p->n = n, p->w = w;
    p->vl = x.vl, p->vu = x.vu, p->il = x.il, p->iu = x.iu, p->found = x.m, p->u = x.z, p->ldu = x.ldz;
    p->support = x.support, p->has_work = true;
    p->work = work, p->lwork = lwork, p->rwork = rwork, p->lrwork = lrwork, p->iwork = iwork, p->liwork = liwork;
    /* LAPACK's checks, in its order (INFO -1 to -15; the workspace sizes are the query's). */
    bool ok = gs_in(p->job1, "NV") && gs_in(p->range, "AVI") && gs_in(p->uplo, "UL") && n >= 0 && lda >= gs_max1(n);
    if (ok && p->range == 'V' && n > 0)
        ok = !(x.vu <= x.vl);
    if (ok && p->range == 'I')
        ok = x.il >= 1 && x.il <= gs_max1(n) && x.iu >= gs_min(n, x.il) && x.iu <= n;
    p->valid = ok && x.ldz >= 1 && (p->job1 != 'V' || x.ldz >= n);
}

void gs_lapack_sym(gs_lapack_t *p, unsigned e, char uplo, int64_t n, int64_t nrhs, void *a, int64_t lda, void *ipiv,
                   void *b, int64_t ldb, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    const gs_routine_info_t *r = &gs_routines[gs_entries[e].routine];
    p->herm = r->name[1] == 'h';
    p->uplo = gs_up(uplo), p->m = p->n = n, p->nrhs = nrhs, p->ipiv = ipiv, p->b = b, p->ldb = ldb;
    p->work = work, p->lwork = lwork, p->has_work = p->op != GS_OP_sytrs;
    p->valid = gs_in(p->uplo, "UL") && n >= 0 && nrhs >= 0 && lda >= gs_max1(n) && (!b || ldb >= gs_max1(n));
}

void gs_lapack_cpu(gs_lapack_t *p, unsigned e, char job1, char job2, int64_t m, int64_t n, int64_t nrhs, void *a,
                   int64_t lda, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->job1 = gs_up(job1), p->job2 = gs_up(job2), p->m = m, p->n = n, p->nrhs = nrhs;
    p->valid = true; /* the CPU library checks the arguments */
}

int gs_lapack_driver_matrices(const gs_lapack_t *p, gs_operand_t o[4], uint8_t *scratch_only)
{
    int64_t n = p->n;
    switch (p->op) {
    case GS_OP_syevr:
    case GS_OP_syevx:
        /* A is destroyed, as LAPACK documents: left as it was; Z, whose columns are as many as the eigenvalues
         * found, is written by the backend once they are known */
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, 0};
        *scratch_only = 1;
        return 1;
    case GS_OP_sytrf:
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, 1};
        return 1;
    case GS_OP_sytrs:
    case GS_OP_sysv:
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, p->op == GS_OP_sysv};
        o[1] = (gs_operand_t){p->b, n, p->nrhs, p->ldb, 1, 1};
        return 2;
    default:
        return 0;
    }
}

/* LAPACK Working Note 41's counts: the reduction to tridiagonal form and the back-transformation of the vectors
 * wanted (n, or IU - IL + 1); Bunch and Kaufman's factorisation as Cholesky's, and its solves.  0 for the
 * routines that run on the CPU. */
double gs_lapack_driver_flops(const gs_lapack_t *p)
{
    double n = (double)p->n, r = (double)p->nrhs;
    double vecs = p->range == 'I' ? (double)gs_max(p->iu - p->il + 1, 0) : n;
    switch (p->op) {
    case GS_OP_syevr:
    case GS_OP_syevx: return 4 * n * n * n / 3 + (p->job1 == 'V' ? 2 * n * n * vecs : 0);
    case GS_OP_sytrf: return n * n * n / 3;
    case GS_OP_sytrs: return 2 * n * n * r;
    case GS_OP_sysv: return n * n * n / 3 + 2 * n * n * r;
    default: return 0;
    }
}

const char *gs_lapack_driver_exact(const gs_lapack_t *p)
{
    switch (p->op) {
    case GS_OP_syevr:
    case GS_OP_syevx:
        return p->range == 'V' && (isnan(p->vl) || isnan(p->vu)) ? "VL or VU is not a number" : NULL;
    case GS_OP_sytrf:
    case GS_OP_sytrs:
    case GS_OP_sysv:
        if (p->herm)
            return "Hermitian indefinite (he*): cuSOLVER's sytrf and sytrs are the symmetric ones";
        return p->n > INT32_MAX || p->lda > INT32_MAX ? "larger than cuSOLVER's 32-bit sytrf takes" : NULL;
    case GS_OP_gees: return "Schur factorisation: cuSOLVER has none";
    case GS_OP_gelsy: return "QR with column pivoting: cuSOLVER has none";
    case GS_OP_geevx: return "balancing and condition numbers as geevx gives them: cuSOLVER's geev has neither";
    default: return NULL;
    }
}

/* The LAPACK family: normalisation of calls into gs_lapack_t, their validity as LAPACK checks it (except
 * workspace sizes, which the CPU library's own workspace query settles), their geometry and cost, and the
 * family's descriptor for the dispatcher.  What the GPU path cannot serve exactly stays on the CPU with the
 * reason in the log. */
#include <math.h>
#include <string.h>

#include "core/team.h"
#include "families/lapack/lapack.h"

/* A transposition letter a routine of precision prec accepts: N and T for real ones (C too where allowed),
 * N and C for the unitary complex ones. */
static bool gs_trans_ok(char t, int prec, bool any)
{
    return t == 'N' || (any ? t == 'T' || t == 'C' : gs_prec_complex(prec) ? t == 'C' : t == 'T');
}

void gs_lapack_lu(gs_lapack_t *p, unsigned e, char trans, int64_t m, int64_t n, int64_t nrhs, void *a, int64_t lda,
                  void *ipiv, void *b, int64_t ldb, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->trans = gs_up(trans), p->m = m, p->n = n, p->nrhs = nrhs, p->ipiv = ipiv, p->b = b, p->ldb = ldb;
    p->work = work, p->lwork = lwork, p->has_work = p->op == GS_OP_getri;
    switch (p->op) {
    case GS_OP_getrf: p->valid = m >= 0 && n >= 0 && lda >= gs_max1(m); break;
    case GS_OP_getri: p->valid = n >= 0 && lda >= gs_max1(n); break;
    case GS_OP_getrs:
        p->valid = gs_trans_ok(p->trans, p->prec, true) && n >= 0 && nrhs >= 0 && lda >= gs_max1(n) &&
                   ldb >= gs_max1(n);
        break;
    default: /* gesv: A is n x n, and its n pivots are an output (gs_lapack_mn) */
        p->m = n;
        p->valid = n >= 0 && nrhs >= 0 && lda >= gs_max1(n) && ldb >= gs_max1(n);
        break;
    }
}

void gs_lapack_chol(gs_lapack_t *p, unsigned e, char uplo, int64_t n, int64_t nrhs, void *a, int64_t lda, void *b,
                    int64_t ldb, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->uplo = gs_up(uplo), p->n = n, p->nrhs = nrhs, p->b = b, p->ldb = ldb;
    bool solve = p->op == GS_OP_potrs || p->op == GS_OP_posv;
    p->valid = gs_in(p->uplo, "UL") && n >= 0 && nrhs >= 0 && lda >= gs_max1(n) && (!solve || ldb >= gs_max1(n));
}

void gs_lapack_qr(gs_lapack_t *p, unsigned e, char side, char trans, int64_t m, int64_t n, int64_t k, int64_t nrhs,
                  void *a, int64_t lda, void *tau, void *b, int64_t ldb, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->side = gs_up(side), p->trans = gs_up(trans), p->m = m, p->n = n, p->k = k, p->nrhs = nrhs;
    p->tau = tau, p->b = b, p->ldb = ldb, p->work = work, p->lwork = lwork, p->has_work = true;
    int64_t nq = p->side == 'L' ? m : n;
    switch (p->op) {
    case GS_OP_geqrf: p->valid = m >= 0 && n >= 0 && lda >= gs_max1(m); break;
    case GS_OP_orgqr: p->valid = m >= 0 && n >= 0 && n <= m && k >= 0 && k <= n && lda >= gs_max1(m); break;
    case GS_OP_ormqr:
        p->valid = gs_in(p->side, "LR") && gs_trans_ok(p->trans, p->prec, false) && m >= 0 && n >= 0 && k >= 0 &&
                   k <= nq && lda >= gs_max1(nq) && ldb >= gs_max1(m);
        break;
    default: /* gels: LAPACK takes T for real matrices and C for complex ones */
        p->valid = gs_trans_ok(p->trans, p->prec, false) && m >= 0 && n >= 0 && nrhs >= 0 && lda >= gs_max1(m) &&
                   ldb >= gs_max1(gs_max(m, n));
        break;
    }
}

void gs_lapack_ls(gs_lapack_t *p, unsigned e, int64_t m, int64_t n, int64_t nrhs, void *a, int64_t lda, void *b,
                  int64_t ldb, void *s, double rcond, void *rank, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->m = m, p->n = n, p->nrhs = nrhs, p->b = b, p->ldb = ldb, p->w = s, p->rcond = rcond, p->rank = rank;
    p->work = work, p->lwork = lwork, p->has_work = true;
    p->valid = m >= 0 && n >= 0 && nrhs >= 0 && lda >= gs_max1(m) && ldb >= gs_max1(gs_max(m, n));
}

void gs_lapack_eigh(gs_lapack_t *p, unsigned e, char jobz, char uplo, int64_t n, void *a, int64_t lda, void *w,
                    void *work, int64_t lwork, void *rwork, int64_t lrwork, void *iwork, int64_t liwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->job1 = gs_up(jobz), p->uplo = gs_up(uplo), p->n = n, p->w = w, p->has_work = true;
    p->work = work, p->lwork = lwork, p->rwork = rwork, p->lrwork = lrwork, p->iwork = iwork, p->liwork = liwork;
    p->valid = gs_in(p->job1, "NV") && gs_in(p->uplo, "UL") && n >= 0 && lda >= gs_max1(n);
}

void gs_lapack_svd(gs_lapack_t *p, unsigned e, char jobu, char jobvt, int64_t m, int64_t n, void *a, int64_t lda,
                   void *s, void *u, int64_t ldu, void *vt, int64_t ldvt, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->job1 = gs_up(jobu), p->job2 = gs_up(jobvt), p->m = m, p->n = n, p->w = s, p->has_work = true;
    p->u = u, p->ldu = ldu, p->vt = vt, p->ldvt = ldvt, p->work = work, p->lwork = lwork;
    int64_t mn = gs_min(m, n);
    bool ok = m >= 0 && n >= 0 && lda >= gs_max1(m) && ldu >= 1 && ldvt >= 1;
    if (p->op == GS_OP_gesdd) { /* one job for both */
        char j = p->job1;
        ok &= gs_in(j, "ASON") && (!(j == 'A' || j == 'S' || (j == 'O' && m < n)) || ldu >= m) &&
              (!(j == 'A' || (j == 'O' && m >= n)) || ldvt >= n) && (j != 'S' || ldvt >= mn);
    } else {
        ok &= gs_in(p->job1, "ASON") && gs_in(p->job2, "ASON") && !(p->job1 == 'O' && p->job2 == 'O') &&
              (!gs_in(p->job1, "AS") || ldu >= m) && (p->job2 != 'A' || ldvt >= n) &&
              (p->job2 != 'S' || ldvt >= mn);
    }
    p->valid = ok;
}

void gs_lapack_geev(gs_lapack_t *p, unsigned e, char jobvl, char jobvr, int64_t n, void *a, int64_t lda, void *w,
                    void *wi, void *vl, int64_t ldvl, void *vr, int64_t ldvr, void *work, int64_t lwork, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->job1 = gs_up(jobvl), p->job2 = gs_up(jobvr), p->n = n, p->w = w, p->wi = wi, p->has_work = true;
    p->u = vl, p->ldu = ldvl, p->vt = vr, p->ldvt = ldvr, p->work = work, p->lwork = lwork;
    p->valid = gs_in(p->job1, "NV") && gs_in(p->job2, "NV") && n >= 0 && lda >= gs_max1(n) && ldvl >= 1 &&
               (p->job1 != 'V' || ldvl >= n) && ldvr >= 1 && (p->job2 != 'V' || ldvr >= n);
}

void gs_lapack_tri(gs_lapack_t *p, unsigned e, char uplo, char trans, char diag, int64_t n, int64_t nrhs, void *a,
                   int64_t lda, void *b, int64_t ldb, void *info)
{
    gs_lapack_start(p, e, a, lda, info);
    p->uplo = gs_up(uplo), p->trans = gs_up(trans), p->diag = gs_up(diag), p->n = n, p->nrhs = nrhs;
    p->b = b, p->ldb = ldb;
    bool solve = p->op == GS_OP_trtrs;
    p->valid = gs_in(p->uplo, "UL") && (!solve || gs_trans_ok(p->trans, p->prec, true)) && gs_in(p->diag, "NU") &&
               n >= 0 && nrhs >= 0 && lda >= gs_max1(n) && (!solve || ldb >= gs_max1(n));
}

/* Columns of U and rows of VT an SVD writes (0 when not computed). */
static int64_t gs_svd_vecs(char job, int64_t full, int64_t mn)
{
    return job == 'A' ? full : job == 'S' ? mn : 0;
}

/* The matrices the GPU path moves, in a fixed order per operation, and which of them the device changes
 * without the change being copied back (a matrix LAPACK documents as destroyed): those are never cached. */
static int gs_lapack_matrices(const gs_lapack_t *p, gs_operand_t o[4], uint8_t *scratch_only)
{
    int64_t n = p->n, m = p->m, mn = gs_min(m, n);
    *scratch_only = 0;
    switch (p->op) {
    case GS_OP_getrf:
    case GS_OP_geqrf:
    case GS_OP_orgqr:
        o[0] = (gs_operand_t){p->a, m, n, p->lda, 1, 1};
        return 1;
    case GS_OP_getri:
    case GS_OP_potrf:
    case GS_OP_potri:
    case GS_OP_trtri:
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, 1};
        /* cuSOLVER's trtri changes the triangle it does not own (and a unit diagonal): only the inverse's own
         * elements are copied back (cuda_factor.c), so the device copy is not the host's */
        *scratch_only = p->op == GS_OP_trtri;
        return 1;
    case GS_OP_getrs:
    case GS_OP_potrs:
    case GS_OP_trtrs:
    case GS_OP_gesv:
    case GS_OP_posv:
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, p->op == GS_OP_gesv || p->op == GS_OP_posv};
        o[1] = (gs_operand_t){p->b, n, p->nrhs, p->ldb, 1, 1};
        return 2;
    case GS_OP_ormqr: {
        int64_t nq = p->side == 'L' ? m : n;
        o[0] = (gs_operand_t){p->a, nq, p->k, p->lda, 1, 0};
        o[1] = (gs_operand_t){p->b, m, n, p->ldb, 1, 1};
        return 2;
    }
    case GS_OP_gels:
    case GS_OP_gelsd: /* gelsd destroys A: copied back as the GPU left it, like the SVD's */
        o[0] = (gs_operand_t){p->a, m, n, p->lda, 1, 1};
        o[1] = (gs_operand_t){p->b, gs_max(m, n), p->nrhs, p->ldb, 1, 1};
        return 2;
    case GS_OP_syevd:
    case GS_OP_syev:
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, p->job1 == 'V'};
        *scratch_only = p->job1 != 'V'; /* the eigenvalues-only path leaves A changed on the device */
        return 1;
    case GS_OP_gesdd:
    case GS_OP_gesvd: {
        char ju = p->job1, jv = p->op == GS_OP_gesdd ? p->job1 : p->job2;
        int nops = 1;
        /* A is destroyed, as LAPACK documents: the device's A is copied back, so that a caller who lets the
         * routine overwrite A sees it changed, as with the CPU library (SciPy's overwrite_a tests check it) */
        o[0] = (gs_operand_t){p->a, m, n, p->lda, 1, 1};
        if (gs_svd_vecs(ju, m, mn))
            o[nops++] = (gs_operand_t){p->u, m, gs_svd_vecs(ju, m, mn), p->ldu, 0, 1};
        if (gs_svd_vecs(jv, n, mn))
            o[nops++] = (gs_operand_t){p->vt, gs_svd_vecs(jv, n, mn), n, p->ldvt, 0, 1};
        return nops;
    }
    case GS_OP_geev:
        /* A is overwritten, as LAPACK documents, and copied back likewise; VR where computed (left eigenvectors
         * stay on the CPU) */
        o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, 1};
        if (p->job2 != 'V')
            return 1;
        o[1] = (gs_operand_t){p->vt, n, n, p->ldvt, 0, 1};
        return 2;
    default:
        return gs_lapack_driver_matrices(p, o, scratch_only);
    }
}

/* Floating-point operations, by the usual counts (LAPACK Working Note 41); complex ones count 4 times. */
static double gs_lapack_flops(const gs_lapack_t *p)
{
    double m = (double)p->m, n = (double)p->n, k = (double)p->k, r = (double)p->nrhs;
    double mn = m < n ? m : n, f;
    switch (p->op) {
    case GS_OP_getrf: f = m * n * mn - (m + n) * mn * mn / 2 + mn * mn * mn / 3; break;
    case GS_OP_getrs: f = 2 * n * n * r; break;
    case GS_OP_gesv: f = 2 * n * n * n / 3 + 2 * n * n * r; break;
    case GS_OP_getri: f = 4 * n * n * n / 3; break;
    case GS_OP_potrf: f = n * n * n / 3; break;
    case GS_OP_potrs: f = 2 * n * n * r; break;
    case GS_OP_posv: f = n * n * n / 3 + 2 * n * n * r; break;
    case GS_OP_potri: f = 2 * n * n * n / 3; break;
    case GS_OP_geqrf: f = 2 * m * n * mn - (m + n) * mn * mn + 2 * mn * mn * mn / 3; break;
    case GS_OP_orgqr: f = 4 * m * n * k - 2 * (m + n) * k * k + 4 * k * k * k / 3; break;
    case GS_OP_ormqr: f = 4 * m * n * k; break;
    case GS_OP_gels: f = 2 * m * n * mn - (m + n) * mn * mn + 2 * mn * mn * mn / 3 + 4 * m * n * r; break;
    case GS_OP_syevd:
    case GS_OP_syev: f = 4 * n * n * n / 3 + (p->job1 == 'V' ? 8 * n * n * n / 3 : 0); break;
    case GS_OP_gesdd:
    case GS_OP_gesvd: {
        /* LAPACK's paths: a matrix much taller than wide (or wider than tall: big >= 11/6 mn, its MNTHR) is first
         * reduced by QR (LQ) to mn x mn, whose SVD follows, and with vectors Q is formed and multiplied in.
         * Counted as a square one of big rows, scipy.optimize's 60000 x 400 was predicted at 1.15 s on the H100
         * machine's CPU, where its program's times put it nearer 0.2 (bench/RESULTS.md, 2026-12-05, fourth
         * session); the whole-call rates of the policy come from square matrices. */
        double big = m > n ? m : n, vec = p->job1 != 'N', sq = mn * mn * mn;
        if (6 * big >= 11 * mn)
            f = 2 * big * mn * mn - 2 * sq / 3 + 8 * sq / 3 + (vec ? 4 * big * mn * mn - 2 * sq / 3 + 12 * sq : 0);
        else
            f = 4 * big * mn * mn - 4 * sq / 3 + (vec ? 8 * big * mn * mn + 4 * sq : 0);
        break;
    }
    case GS_OP_gelsd: /* QR when m != n, the SVD of an mn x mn matrix with its vectors, and the products */
        f = (m != n ? 2 * m * n * mn - (m + n) * mn * mn + 2 * mn * mn * mn / 3 + 4 * m * n * r : 0) +
            44 * mn * mn * mn / 3 + 4 * mn * mn * r;
        break;
    case GS_OP_geev: f = (p->job1 == 'V' || p->job2 == 'V' ? 25 : 10) * n * n * n; break;
    case GS_OP_trtrs: f = n * n * r; break;
    case GS_OP_trtri: f = n * n * n / 3; break;
    default: f = gs_lapack_driver_flops(p); break;
    }
    if (f <= 0 || m < 0 || n < 0)
        return 0;
    return gs_prec_complex(p->prec) ? 4 * f : f;
}

static void gs_lapack_operands(const void *args, gs_operands_t *o)
{
    const gs_lapack_t *p = args;
    o->n = gs_lapack_matrices(p, o->o, &o->scratch_only);
    o->es = gs_prec_size(p->prec);
}

/* Sizes and option letters for the log: m, n, and k or r (right-hand sides) where the routine has them. */
static void gs_lapack_describe(gs_call_t *c, const void *args)
{
    const gs_lapack_t *p = args;
    const char letters[] = {p->job1, p->job2, p->range, p->side, p->uplo, p->trans, p->diag};
    gs_call_describe(c, p->op, p->m, p->n, p->k, p->nrhs, letters, sizeof letters);
}

/* True when LAPACK's SVD would scale the m x n matrix x (leading dimension ld) before computing (its largest
 * element, by components, below sqrt(safe minimum) / precision or above the inverse, with a margin of 2 for
 * complex moduli), or when it holds a NaN, which gesdd reports as INFO = -4: cuSOLVER does neither, and on the
 * H200 LAPACK's tests of matrices near underflow fail without this (xeigtst, svd.in, type 4).  Also when it is
 * zero, which LAPACK answers at once.  gelsd scales only further out, but its steps square norms. */
typedef struct {
    const char *x;
    size_t ld, count; /* bytes between columns; reals a column */
    bool single;
    _Atomic uint64_t max; /* the largest modulus of a component, a non-negative double's bits (ordered as it) */
    atomic_bool nan;
} gs_scan_t;

/* Columns lo to hi - 1 of the scan: their largest |component| into s->max, a NaN into s->nan. */
static void gs_scan_cols(void *arg, int64_t lo, int64_t hi)
{
    gs_scan_t *s = arg;
    double max = 0;
    for (int64_t j = lo; j < hi && !atomic_load_explicit(&s->nan, memory_order_relaxed); j++) {
        const char *col = s->x + (size_t)j * s->ld;
        for (size_t i = 0; i < s->count; i++) {
            double v = fabs(s->single ? (double)((const float *)col)[i] : ((const double *)col)[i]);
            if (isnan(v))
                atomic_store(&s->nan, true);
            max = v > max ? v : max;
        }
    }
    uint64_t bits, old = atomic_load(&s->max);
    memcpy(&bits, &max, sizeof bits);
    while (bits > old && !atomic_compare_exchange_weak(&s->max, &old, bits))
        ;
}

/* (scanned on the team, core/team.h: a 8192 x 8192 matrix is 512 MB, which one thread reads in tens of ms) */
bool gs_lapack_needs_scaling(const gs_lapack_t *p, const void *x, int64_t m, int64_t n, int64_t ld)
{
    bool single = p->prec == GS_P_S || p->prec == GS_P_C;
    double small = single ? 9.0949470e-13 : 6.7178761075670888e-139, big = 1 / small, max;
    size_t es = gs_prec_size(p->prec);
    gs_scan_t s = {x, (size_t)ld * es, (size_t)m * es / (single ? 4 : 8), single, 0, false};
    if (!gs_team_run(gs_scan_cols, &s, n, gs_max(1, ((int64_t)1 << 18) / gs_max(m, 1))))
        gs_scan_cols(&s, 0, n);
    uint64_t bits = atomic_load(&s.max);
    memcpy(&max, &bits, sizeof max);
    return atomic_load(&s.nan) || max < 2 * small || max > big / 2;
}

/* What the GPU path cannot do exactly, although the arguments are valid: a reason, or NULL. */
static const char *gs_lapack_exact(const void *args)
{
    const gs_lapack_t *p = args;
    /* cuSOLVER's potri, orgqr and ormqr (which gels and gelsd use too) take 32-bit sizes */
    bool int32 = p->op == GS_OP_potri || p->op == GS_OP_orgqr || p->op == GS_OP_ormqr || p->op == GS_OP_gels ||
                 p->op == GS_OP_gelsd;
    if (int32 && (p->n > INT32_MAX / 2 || p->m > INT32_MAX / 2 || p->nrhs > INT32_MAX / 2 || p->lda > INT32_MAX ||
                  p->ldb > INT32_MAX))
        return "larger than cuSOLVER's 32-bit routines take";
    switch (p->op) {
    case GS_OP_getri:
    case GS_OP_trtrs:
        if ((p->op == GS_OP_getri || p->diag == 'N') && gs_has_zero(p->a, p->n, p->lda + 1, p->prec))
            return "singular triangle: LAPACK's INFO from the CPU";
        return NULL;
    case GS_OP_gels:
        return p->trans != 'N' || p->m < p->n ? "only m >= n without transposition on the GPU" : NULL;
    case GS_OP_geev:
        return p->job1 == 'V' ? "left eigenvectors: cuSOLVER's geev does not compute them" : NULL;
    case GS_OP_gesdd:
    case GS_OP_gesvd:
        if (p->m < p->n)
            return "m < n: cuSOLVER's SVD takes m >= n";
        if (p->job1 == 'O' || p->job2 == 'O')
            return "job 'O' (vectors over A)";
        if (gs_lapack_needs_scaling(p, p->a, p->m, p->n, p->lda))
            return "A zero, near underflow or overflow, or with a NaN: LAPACK treats it apart";
        return NULL;
    case GS_OP_gelsd:
        if (p->nrhs == 0)
            return "no right-hand side";
        if (gs_lapack_needs_scaling(p, p->a, p->m, p->n, p->lda) ||
            gs_lapack_needs_scaling(p, p->b, p->m, p->nrhs, p->ldb))
            return "A or B zero, near underflow or overflow, or with a NaN: LAPACK treats them apart";
        return NULL;
    default:
        return NULL;
    }
}

/* The optimal size the workspace query left in the first element of a real workspace of the routine's
 * precision, or of an integer workspace. */
static double gs_work_size(const gs_lapack_t *p, const void *w, bool integer)
{
    if (integer)
        return (double)gs_lapack_int(p, w, 0);
    return p->prec == GS_P_S || p->prec == GS_P_C ? (double)*(const float *)w : *(const double *)w;
}

/* Invalid arguments (the CPU library reports them) and workspace queries stay on the CPU; otherwise NULL, with
 * the flops set. */
static const char *gs_lapack_check(gs_call_t *c, const void *args)
{
    const gs_lapack_t *p = args;
    if (!p->valid)
        return "invalid arguments";
    /* A solve with no right-hand side: whether A is factored all the same is the CPU library's choice (OpenBLAS's
     * gesv returns at once, the reference LAPACK's factors A; gels returns at once). */
    if (p->nrhs == 0 && (p->op == GS_OP_gesv || p->op == GS_OP_posv || p->op == GS_OP_sysv || p->op == GS_OP_gels))
        return "no right-hand side";
    /* What the drivers cannot do on the GPU is known from their arguments alone (NULL for the other routines). */
    const char *why = gs_lapack_driver_exact(p);
    if (why)
        return why;
    if (p->lwork == -1 || p->lrwork == -1 || p->liwork == -1)
        return "workspace query";
    c->flops = gs_lapack_flops(p);
    return NULL;
}

static bool gs_lapack_has_work(const void *args)
{
    return ((const gs_lapack_t *)args)->has_work;
}

static int gs_lapack_after_query(gs_call_t *c, const void *args)
{
    const gs_lapack_t *p = args;
    /* INFO < 0: the query found an argument invalid and the CPU library has reported it, as the call would. */
    if (gs_lapack_int(p, p->info, 0) != 0)
        return c->why = "invalid arguments", GS_RUN_DONE;
    /* A workspace smaller than the optimum may be too small: LAPACK decides, on the CPU. */
    bool has_iwork = p->op == GS_OP_syevd || p->op == GS_OP_syevr, has_rwork = has_iwork && gs_prec_complex(p->prec);
    if ((double)p->lwork < gs_work_size(p, p->work, false) ||
        (has_rwork && (double)p->lrwork < gs_work_size(p, p->rwork, false)) ||
        (has_iwork && (double)p->liwork < gs_work_size(p, p->iwork, true)))
        return c->why = "workspace below the CPU library's optimum", GS_RUN_CPU;
    return GS_RUN_QUERY;
}

/* The GPU completed the call: LAPACK's INFO = 0. */
static void gs_lapack_gpu_done(const void *args)
{
    const gs_lapack_t *p = args;
    gs_lapack_set_int(p, p->info, 0, 0);
}

const gs_family_t gs_lapack_family = {
    .describe = gs_lapack_describe,
    .check = gs_lapack_check,
    .exact = gs_lapack_exact,
    .operands = gs_lapack_operands,
    .has_work = gs_lapack_has_work,
    .queried = gs_lapack_after_query,
    .gpu_done = gs_lapack_gpu_done,
};

/* The condition checks of the Python layer's SciPy operations (cuda_arrays.c): 1-norms of NumPy's arrays on the
 * host, and LAPACK's estimate of |A^-1|_1 (Higham's method, as dlacn2 and zlacn2 run it for gecon and pocon),
 * each of its products a solve on the device with A's factors, one vector moved each way.  SciPy warns when its
 * own estimate of A's reciprocal condition number is below an epsilon; these let the layer hand such a call back
 * to SciPy, whose warning quotes its estimate. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "backend/cuda_solver.h"
#include "core/team.h"

/* Element i of the vector x of precision prec: its real part (part 0) or imaginary part (part 1). */
static double gs_rc_get(int prec, const void *x, int64_t i, int part)
{
    int64_t k = gs_prec_complex(prec) ? 2 * i + part : i;
    return prec == GS_P_S || prec == GS_P_C ? (double)((const float *)x)[k] : ((const double *)x)[k];
}

static void gs_rc_set(int prec, void *x, int64_t i, double re, double im)
{
    bool cplx = gs_prec_complex(prec);
    int64_t k = cplx ? 2 * i : i;
    if (prec == GS_P_S || prec == GS_P_C) {
        ((float *)x)[k] = (float)re;
        if (cplx)
            ((float *)x)[k + 1] = (float)im;
    } else {
        ((double *)x)[k] = re;
        if (cplx)
            ((double *)x)[k + 1] = im;
    }
}

/* |x_i|: the modulus for complex precisions, as zlacn2 takes it. */
static double gs_rc_abs(int prec, const void *x, int64_t i)
{
    return gs_prec_complex(prec) ? hypot(gs_rc_get(prec, x, i, 0), gs_rc_get(prec, x, i, 1))
                                 : fabs(gs_rc_get(prec, x, i, 0));
}

/* The sum of |re| + |im| over elements lo to hi - 1 of a column (its reals: a complex element is two), in four
 * partial sums, which keeps the additions from waiting on one another. */
static double gs_rc_colsum(const char *col, int64_t lo, int64_t hi, int prec)
{
    int64_t w = gs_prec_complex(prec) ? 2 : 1, m = (hi - lo) * w;
    double s[4] = {0, 0, 0, 0};
    if (prec == GS_P_S || prec == GS_P_C)
        for (int64_t r = 0; r < m; r++)
            s[r & 3] += fabsf(((const float *)col)[lo * w + r]);
    else
        for (int64_t r = 0; r < m; r++)
            s[r & 3] += fabs(((const double *)col)[lo * w + r]);
    return (s[0] + s[1]) + (s[2] + s[3]);
}

/* Adds |re| + |im| of elements lo to hi - 1 of a column to acc[lo] to acc[hi - 1]. */
static void gs_rc_coladd(const char *col, int64_t lo, int64_t hi, int prec, double *acc)
{
    bool single = prec == GS_P_S || prec == GS_P_C;
    if (gs_prec_complex(prec))
        for (int64_t i = lo; i < hi; i++)
            acc[i] += single ? (double)fabsf(((const float *)col)[2 * i]) + fabsf(((const float *)col)[2 * i + 1])
                             : fabs(((const double *)col)[2 * i]) + fabs(((const double *)col)[2 * i + 1]);
    else if (single)
        for (int64_t i = lo; i < hi; i++)
            acc[i] += fabsf(((const float *)col)[i]);
    else
        for (int64_t i = lo; i < hi; i++)
            acc[i] += fabs(((const double *)col)[i]);
}

/* A norm's loops, split across the team (core/team.h): the stored columns' sums into col (each column its own,
 * over the rows counted), or the stored rows' into row (each piece its own rows); with a triangle (tri), the
 * rows counted in stored column j are j to n - 1 (lower) or 0 to j, and the rows' sums leave the diagonal out,
 * which the columns' count. */
typedef struct {
    const char *x;
    int64_t n, ld;
    int prec;
    bool tri, lower;
    double *col, *row;
} gs_rc_norm_t;

static const char *gs_rc_column(const gs_rc_norm_t *w, int64_t j)
{
    return w->x + (size_t)j * (size_t)w->ld * gs_prec_size(w->prec);
}

static void gs_rc_cols(void *arg, int64_t lo, int64_t hi)
{
    const gs_rc_norm_t *w = arg;
    for (int64_t j = lo; j < hi; j++)
        w->col[j] = gs_rc_colsum(gs_rc_column(w, j), !w->tri || !w->lower ? 0 : j, !w->tri || w->lower ? w->n : j + 1,
                                 w->prec);
}

static void gs_rc_rows(void *arg, int64_t lo, int64_t hi)
{
    const gs_rc_norm_t *w = arg;
    for (int64_t j = 0; j < w->n; j++) {
        int64_t a = !w->tri || !w->lower ? lo : gs_max(lo, j + 1), b = !w->tri || w->lower ? hi : gs_min(hi, j);
        if (a < b)
            gs_rc_coladd(gs_rc_column(w, j), a, b, w->prec, w->row);
    }
}

/* fn over [0, n) on the team, in pieces of at least 2^18 elements, or on this thread. */
static void gs_rc_loop(gs_team_fn *fn, gs_rc_norm_t *w)
{
    if (!gs_team_run(fn, w, w->n, gs_max(1, ((int64_t)1 << 18) / w->n)))
        fn(w, 0, w->n);
}

double gs_rc_norm1(const char *x, int64_t n, int64_t ld, char t, char uplo, int prec, double *sums)
{
    /* column k of the matrix is stored column k ('N') or row k ('T'); its triangle uplo is stored as the
     * triangle uplo ('N') or the other one */
    gs_rc_norm_t w = {x, n, ld, prec, uplo != 0, (t == 'N') == (uplo == 'L'), sums, sums + n};
    memset(sums, 0, 2 * (size_t)n * sizeof *sums);
    if (t == 'N' || w.tri)
        gs_rc_loop(gs_rc_cols, &w);
    if (t != 'N' || w.tri)
        gs_rc_loop(gs_rc_rows, &w);
    double max = 0;
    for (int64_t k = 0; k < n; k++) {
        double v = w.col[k] + w.row[k];
        if (isnan(v))
            return NAN;
        max = v > max ? v : max;
    }
    return max;
}

/* One product of the estimate: x (n elements on the host) := A^-1 x, or A^-H x when adjoint, through dx on the
 * device, with getrf's factors and pivots (gesv) or potrf's factor (posv) in fac. */
static int gs_rc_solve(gs_call_t *c, gs_sol_t *s, const gs_rcond_t *e, void *x, bool adjoint)
{
    const gs_lapack_t *p = s->p;
    size_t bytes = (size_t)p->n * s->es;
    int rc = gs_small_copy(c, e->dx, x, bytes, cudaMemcpyHostToDevice);
    if (rc != GS_OK)
        return rc;
    if (p->op == GS_OP_posv) /* A is Hermitian: A^-H = A^-1 */
        GS_SOL(c, cusolverDnXpotrs, (s->h, s->q, gs_fill(p->uplo), p->n, 1, s->t, e->fac, e->ld, s->t, e->dx, p->n,
                                     s->info + 1));
    else
        GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, adjoint ? gs_op_h(p->prec) : CUBLAS_OP_N, p->n, 1, s->t, e->fac,
                                     e->ld, s->ipiv, s->t, e->dx, p->n, s->info + 1));
    if ((rc = gs_small_copy(c, x, e->dx, bytes, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    return GS_OK;
}

/* The sum of |x_i|, and the first index of the largest |x_i| into *imax. */
static double gs_rc_sum(int prec, const void *x, int64_t n, int64_t *imax)
{
    double sum = 0, max = -1;
    for (int64_t i = 0; i < n; i++) {
        double v = gs_rc_abs(prec, x, i);
        sum += v;
        if (v > max)
            max = v, *imax = i;
    }
    return sum;
}

/* x's signs: each x_i made 1 or -1 (real: isgn_i the same), or x_i / |x_i| (complex, 1 where that is tiny).
 * Returns whether the real signs are those isgn held, which ends dlacn2's iteration. */
static bool gs_rc_signs(int prec, void *x, int64_t n, int *isgn)
{
    bool same = true;
    for (int64_t i = 0; i < n; i++) {
        double re = gs_rc_get(prec, x, i, 0);
        if (gs_prec_complex(prec)) {
            double a = gs_rc_abs(prec, x, i), safe = prec == GS_P_C ? FLT_MIN : DBL_MIN; /* LAPACK's safe minimum */
            gs_rc_set(prec, x, i, a > safe ? re / a : 1, a > safe ? gs_rc_get(prec, x, i, 1) / a : 0);
            continue;
        }
        int sg = re >= 0 ? 1 : -1;
        same &= sg == isgn[i];
        isgn[i] = sg;
        gs_rc_set(prec, x, i, sg, 0);
    }
    return same;
}

int gs_rc_estimate(gs_call_t *c, gs_sol_t *s, const gs_rcond_t *e, double *est)
{
    int64_t n = s->p->n, j = 0, jlast, any;
    int prec = s->p->prec, rc;
    char *x = e->x;
    for (int64_t i = 0; i < n; i++)
        gs_rc_set(prec, x, i, 1.0 / (double)n, 0);
    memset(e->isgn, 0, (size_t)n * sizeof *e->isgn);
    if ((rc = gs_rc_solve(c, s, e, x, false)) != GS_OK)
        return rc;
    *est = gs_rc_sum(prec, x, n, &j);
    if (n == 1)
        return GS_OK;
    gs_rc_signs(prec, x, n, e->isgn);
    if ((rc = gs_rc_solve(c, s, e, x, true)) != GS_OK)
        return rc;
    gs_rc_sum(prec, x, n, &j);
    for (int iter = 2;; iter++) {
        memset(x, 0, (size_t)n * s->es);
        gs_rc_set(prec, x, j, 1, 0);
        if ((rc = gs_rc_solve(c, s, e, x, false)) != GS_OK)
            return rc;
        double old = *est;
        *est = gs_rc_sum(prec, x, n, &any);
        /* x's signs: a repeated sign vector (dlacn2's, real precisions) means convergence, no growth cycling */
        bool repeated = gs_rc_signs(prec, x, n, e->isgn) && !gs_prec_complex(prec);
        if (repeated || !(*est > old))
            break;
        if ((rc = gs_rc_solve(c, s, e, x, true)) != GS_OK)
            return rc;
        jlast = j;
        gs_rc_sum(prec, x, n, &j);
        double xl = gs_prec_complex(prec) ? gs_rc_abs(prec, x, jlast) : gs_rc_get(prec, x, jlast, 0);
        if (xl == gs_rc_abs(prec, x, j) || iter >= 5)
            break;
    }
    for (int64_t i = 0; i < n; i++) /* the alternative estimate, for matrices that fool the iteration */
        gs_rc_set(prec, x, i, (i % 2 ? -1 : 1) * (1 + (double)i / (double)(n - 1)), 0);
    if ((rc = gs_rc_solve(c, s, e, x, false)) != GS_OK)
        return rc;
    double alt = 2 * gs_rc_sum(prec, x, n, &any) / (double)(3 * n);
    *est = alt > *est ? alt : *est;
    return GS_OK;
}

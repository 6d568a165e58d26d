/* LAPACK operations on arrays as NumPy holds them (gpushim_linalg, include/gpushim.h), for the Python layer
 * (scripts/python/gpushim/_linalg.py).  Each call is described as the LAPACK routine that computes it (gesv,
 * getrf, getrs, potrf, potrs, syevd, gesdd, geqrf, gelsd) on the matrices as they are stored, and runs through
 * the one dispatcher: a C-ordered matrix is its transpose in column-major order, so a triangle of A is the other
 * one of its storage (the LU operations transpose A on the device, to factor A itself as NumPy does, and so do
 * the solves with factors, whose factors are those of A itself); B and the results go through transposes on the
 * device (backend/cuda_arrays.c, cuda_arrays_svd.c, cuda_arrays_qr.c, cuda_arrays_lstsq.c), never a copy on the
 * host.  SciPy's pivots, int32 and 0-based, are read and written on the host.  A call the dispatcher leaves to
 * the CPU is not done, and not logged: the caller's original function runs, and its own LAPACK call is.  The
 * operations named *_rcond are SciPy's, which warns of an ill-conditioned matrix: the backend hands such a call
 * back (backend/cuda_rcond.c). */
#include <string.h>

#include "gpushim.h"
#include "families/lapack/lapack.h"

/* An array as a column-major matrix: its sizes as stored, and t 'N' (stored as it is: Fortran order, or a
 * vector) or 'T' (stored transposed: C order). */
typedef struct {
    void *p;
    int64_t rows, cols, ld;
    char t;
} gs_mat_t;

static int gs_arr_prec(char t)
{
    return t == 'f' ? GS_P_S : t == 'd' ? GS_P_D : t == 'F' ? GS_P_C : t == 'D' ? GS_P_Z : -1;
}

/* x as a matrix of es-byte elements (of reals, when real); false when it is empty or unaligned, or when
 * neither dimension has unit stride. */
static bool gs_arr_mat(const gpushim_array_t *x, int prec, bool real, gs_mat_t *m)
{
    if (gs_arr_prec(x->dtype) != (real ? prec & 1 : prec) || x->ndim < 1 || x->ndim > 2)
        return false;
    int64_t e = (int64_t)gs_prec_size(real ? prec & 1 : prec);
    int64_t r = x->shape[0], c = x->ndim == 2 ? x->shape[1] : 1;
    int64_t s0 = x->strides[0], s1 = x->ndim == 2 ? x->strides[1] : r * e;
    if (!x->data || (uintptr_t)x->data % (size_t)(e > 8 ? 8 : e) != 0 || r < 1 || c < 1)
        return false;
    if ((s0 == e || r == 1) && s1 % e == 0 && s1 / e >= r)
        *m = (gs_mat_t){x->data, r, c, s1 / e, 'N'};
    else if ((s1 == e || c == 1) && s0 % e == 0 && s0 / e >= c)
        *m = (gs_mat_t){x->data, c, r, s0 / e, 'T'};
    else
        return false;
    return true;
}

/* The triangle of a matrix stored as t that is its triangle uplo. */
static char gs_arr_tri(char uplo, char t)
{
    return t == 'N' ? uplo : uplo == 'L' ? 'U' : 'L';
}

/* The rows and columns of the matrix x as NumPy's, whatever its storage. */
static int64_t gs_arr_rows(const gs_mat_t *x)
{
    return x->t == 'N' ? x->rows : x->cols;
}

static int64_t gs_arr_cols(const gs_mat_t *x)
{
    return x->t == 'N' ? x->cols : x->rows;
}

/* Whether the matrix x is r x c as NumPy's. */
static bool gs_arr_is(const gs_mat_t *x, int64_t r, int64_t c)
{
    return gs_arr_rows(x) == r && gs_arr_cols(x) == c;
}

/* solve: A X = B, B and X of one shape (n, or n x k); inv (two arrays): A X = I. */
static bool gs_arr_solve(gs_lapack_t *p, const gs_mat_t *m, int narrays)
{
    const gs_mat_t *a = &m[0], *b = &m[1], *x = &m[narrays - 1];
    int64_t n = a->rows, k = narrays == 2 ? n : gs_arr_cols(b);
    if (a->cols != n || (narrays == 3 && gs_arr_rows(b) != n) || !gs_arr_is(x, n, k))
        return false;
    p->n = p->m = n, p->nrhs = k, p->trans = a->t, p->x = x->p, p->ldx = x->ld, p->tx = x->t;
    if (narrays == 3)
        p->b = b->p, p->ldb = b->ld, p->tb = b->t;
    return true;
}

/* lu_solve (getrs, opt SciPy's transposition 'N', 'T' or 'C'), cho_solve (potrs, opt the factor's triangle 'L'
 * or 'U') and posv_rcond (posv, opt the triangle of A): solve's arrays, A the factors or the matrix, which the
 * device transposes first where it is stored transposed, so that opt applies to it as it is. */
static bool gs_arr_factored(gs_lapack_t *p, const gs_mat_t *m, char opt)
{
    if (!gs_in(opt, p->op == GS_OP_getrs ? "NTC" : "LU") || !gs_arr_solve(p, m, 3))
        return false;
    if (p->op == GS_OP_getrs) /* A^H of a real A is A^T, the letter LAPACK's real getrs takes */
        p->trans = opt == 'C' && !gs_prec_complex(p->prec) ? 'T' : opt;
    else
        p->uplo = opt, p->trans = 0; /* potrs has no transposition */
    return true;
}

/* slogdet: the diagonal of A's LU factors into X (n), its first element negated for an odd permutation;
 * lu_factor (factors): the factors of A, m x n, into X, of A's shape, the pivots into ipiv (gs_arr_piv). */
static bool gs_arr_lu(gs_lapack_t *p, const gs_mat_t *m, bool factors)
{
    const gs_mat_t *a = &m[0], *x = &m[1];
    int64_t rows = gs_arr_rows(a), cols = gs_arr_cols(a);
    if (factors ? !gs_arr_is(x, rows, cols)
                : rows != cols || x->t != 'N' || x->cols != 1 || x->rows != rows)
        return false;
    p->m = rows, p->n = cols, p->trans = a->t, p->x = x->p, p->ldx = factors ? x->ld : rows;
    p->tx = factors ? x->t : 'N';
    return true;
}

/* x as SciPy's pivots of the LU factors of an m x n matrix: min(m, n) int32 elements (NumPy's 'i'), 0-based, any
 * stride; the pivots read (in: lu_solve's, of an n x n matrix) each in [0, n), so that the device never swaps a
 * row from outside B. */
static bool gs_arr_piv(gs_lapack_t *p, const gpushim_array_t *x, bool in)
{
    int64_t n = gs_min(p->m, p->n);
    if (x->dtype != 'i' || x->ndim != 1 || x->shape[0] != n || !x->data || (uintptr_t)x->data % 4 != 0 ||
        x->strides[0] % 4 != 0 || x->strides[0] == 0)
        return false;
    p->ipiv = x->data, p->incp = x->strides[0] / 4;
    for (int64_t i = 0; in && i < n; i++) {
        int32_t v = ((const int32_t *)p->ipiv)[i * p->incp];
        if (v < 0 || v >= n)
            return false;
    }
    return true;
}

/* cholesky: the factor of A's triangle uplo into X, whose other triangle is cleared or, for cho_factor, A's. */
static bool gs_arr_chol(gs_lapack_t *p, const gs_mat_t *m, char uplo, bool clear)
{
    const gs_mat_t *a = &m[0], *x = &m[1];
    if (a->cols != a->rows || x->rows != a->rows || x->cols != a->rows)
        return false;
    p->n = a->rows, p->uplo = gs_arr_tri(uplo, a->t);
    p->x = x->p, p->ldx = x->ld, p->tx = a->t == x->t ? 'N' : 'T';
    p->clear = clear ? gs_arr_tri(uplo == 'L' ? 'U' : 'L', x->t) : 0;
    return true;
}

/* eigh and eigvalsh: the eigenvalues of A's triangle uplo into W, and its eigenvectors into X.  Those of a
 * complex A stored transposed are their conjugates: X is written conjugate-transposed, so C order only. */
static bool gs_arr_eigh(gs_lapack_t *p, const gs_mat_t *m, int narrays, char uplo)
{
    const gs_mat_t *a = &m[0], *w = &m[1], *x = &m[2];
    bool conj = gs_prec_complex(p->prec) && a->t == 'T';
    if (a->cols != a->rows || w->t != 'N' || w->cols != 1 || w->rows != a->rows ||
        (narrays == 3 && (x->rows != a->rows || x->cols != a->rows || (conj && x->t == 'N'))))
        return false;
    p->n = a->rows, p->uplo = gs_arr_tri(uplo, a->t), p->w = w->p, p->job1 = narrays == 3 ? 'V' : 'N';
    if (narrays == 3)
        p->x = x->p, p->ldx = x->ld, p->tx = conj ? 'C' : x->t;
    return true;
}

/* svd (job 'A': every vector, numpy.linalg.svd's full_matrices; 'S': min(m, n) of them) and svdvals (no vectors):
 * the singular values of A, m x n as NumPy's, into W (min(m, n) reals), its vectors into X (U) and vt (Vh).
 * cuSOLVER's SVD takes no matrix wider than tall: the device factors F = A, or F = A^T for a wide A (trans 'T'),
 * whose U is F's V and whose Vh is F's U^T (backend/cuda_arrays_svd.c). */
static bool gs_arr_svd(gs_lapack_t *p, const gs_mat_t *m, int nmat, char job)
{
    const gs_mat_t *a = &m[0], *w = &m[1], *u = &m[2], *v = &m[3];
    int64_t rows = gs_arr_rows(a), cols = gs_arr_cols(a);
    int64_t k = gs_min(rows, cols), ku = job == 'A' ? rows : k, kv = job == 'A' ? cols : k;
    if (w->t != 'N' || w->cols != 1 || w->rows != k ||
        (nmat == 4 && (!gs_in(job, "AS") || !gs_arr_is(u, rows, ku) || !gs_arr_is(v, kv, cols))))
        return false;
    p->m = gs_max(rows, cols), p->n = k, p->trans = rows < cols ? 'T' : 'N', p->w = w->p;
    p->job1 = nmat == 4 ? job : 'N';
    if (nmat == 4)
        p->x = u->p, p->ldx = u->ld, p->tx = u->t, p->vt = v->p, p->ldvt = v->ld, p->tv = v->t;
    return true;
}

/* qr (job 'S': Q m x min(m, n) and R min(m, n) x n, numpy.linalg.qr's "reduced"; 'A': Q m x m and R m x n) and
 * qr_r (R alone): A's QR factors, A m x n as NumPy's, by Householder reflections as LAPACK's geqrf and orgqr make
 * them; R into X, its part below the diagonal zero, Q into vt (backend/cuda_arrays_qr.c).  qr_raw (job 'R'):
 * geqrf's own outputs, A factored (R and the reflectors below it) into X, m x n, and the reflectors' scalars into
 * tau (numpy.linalg.qr's "raw"). */
static bool gs_arr_qr(gs_lapack_t *p, const gs_mat_t *m, int nmat, char job)
{
    const gs_mat_t *a = &m[0], *q = &m[1], *r = &m[nmat - 1];
    int64_t rows = gs_arr_rows(a), cols = gs_arr_cols(a);
    int64_t kq = job == 'A' ? rows : gs_min(rows, cols);
    if (job == 'R') { /* qr_raw: H m x n, geqrf's A (R and the reflectors), and TAU, min(m, n) elements */
        if (!gs_arr_is(q, rows, cols) || r->t != 'N' || r->cols != 1 || r->rows != gs_min(rows, cols))
            return false;
        p->m = rows, p->n = cols, p->k = rows, p->job1 = job, p->job2 = 'N';
        p->x = q->p, p->ldx = q->ld, p->tx = q->t, p->tau = r->p;
        return true;
    }
    if (!gs_in(job, "AS") || !gs_arr_is(r, kq, cols) || (nmat == 3 && !gs_arr_is(q, rows, kq)))
        return false;
    p->m = rows, p->n = cols, p->k = kq, p->job1 = job, p->job2 = nmat == 3 ? 'V' : 'N';
    p->x = r->p, p->ldx = r->ld, p->tx = r->t;
    if (nmat == 3)
        p->vt = q->p, p->ldvt = q->ld, p->tv = q->t;
    return true;
}

/* The operations: name, LAPACK operation, arrays, which of them hold reals (bit i for array i), and which holds
 * SciPy's pivots, or lstsq's rank (i + 1 for array i; 0: none). */
static const struct {
    const char *name;
    uint8_t op, narrays, real, piv;
} gs_arr_ops[] = {
    {"solve", GS_OP_gesv, 3, 0, 0},       {"inv", GS_OP_gesv, 2, 0, 0},          {"cholesky", GS_OP_potrf, 2, 0, 0},
    {"cho_factor", GS_OP_potrf, 2, 0, 0}, {"eigh", GS_OP_syevd, 3, 2, 0},        {"eigvalsh", GS_OP_syevd, 2, 2, 0},
    {"slogdet", GS_OP_getrf, 2, 0, 0},    {"lu_factor", GS_OP_getrf, 3, 0, 3},   {"lu_solve", GS_OP_getrs, 4, 0, 2},
    {"cho_solve", GS_OP_potrs, 3, 0, 0},  {"inv_rcond", GS_OP_gesv, 2, 0, 0},    {"solve_rcond", GS_OP_gesv, 3, 0, 0},
    {"posv_rcond", GS_OP_posv, 3, 0, 0},  {"svd", GS_OP_gesdd, 4, 2, 0},        {"svdvals", GS_OP_gesdd, 2, 2, 0},
    {"qr", GS_OP_geqrf, 3, 0, 0},         {"qr_r", GS_OP_geqrf, 2, 0, 0},        {"lstsq", GS_OP_gelsd, 6, 0x14, 6},
    {"qr_raw", GS_OP_geqrf, 3, 0, 0},
};

/* lstsq (gelsd): A m x n and B m x k as NumPy's, X max(m, n) x k: X as xGELSD leaves B, the least-squares
 * solution of A X = B in its first n rows and, when m > n, the residual in the others, the singular values at or
 * below rcond (R's one element) times the largest dropped; the singular values into W (min(m, n) reals)
 * (backend/cuda_arrays_lstsq.c); the rank into the int32 of the last array (gs_arr_rank). */
static bool gs_arr_lstsq(gs_lapack_t *p, const gs_mat_t *m)
{
    const gs_mat_t *a = &m[0], *b = &m[1], *r = &m[2], *x = &m[3], *w = &m[4];
    int64_t rows = gs_arr_rows(a), cols = gs_arr_cols(a), k = gs_arr_cols(b);
    if (gs_arr_rows(b) != rows || !gs_arr_is(x, gs_max(rows, cols), k) || r->rows * r->cols != 1 || w->t != 'N' ||
        w->cols != 1 || w->rows != gs_min(rows, cols))
        return false;
    p->m = rows, p->n = cols, p->nrhs = k, p->b = b->p, p->ldb = b->ld, p->tb = b->t;
    p->x = x->p, p->ldx = x->ld, p->tx = x->t, p->w = w->p;
    p->rcond = p->prec & 1 ? *(const double *)r->p : *(const float *)r->p;
    return true;
}

/* x as lstsq's rank: one int32 (NumPy's 'i'). */
static bool gs_arr_rank(gs_lapack_t *p, const gpushim_array_t *x)
{
    if (x->dtype != 'i' || x->ndim != 1 || x->shape[0] != 1 || !x->data || (uintptr_t)x->data % 4 != 0)
        return false;
    p->rank = x->data;
    return true;
}

/* The call's arguments from the arrays (the matrices in m, in order, the pivots apart): false when they are of a
 * form this does not take. */
static bool gs_arr_fill(gs_lapack_t *p, int *entry, int i, const char *uplo, int narrays, const gpushim_array_t *x)
{
    int prec = gs_arr_prec(x[0].dtype), r = prec < 0 ? -1 : gs_routine_of(gs_arr_ops[i].op, prec);
    int piv = gs_arr_ops[i].piv, nmat = 0, op = gs_arr_ops[i].op;
    char u = uplo ? uplo[0] : 0;
    gs_mat_t m[5]; /* (lstsq's five) */
    if (r < 0 || narrays != gs_arr_ops[i].narrays || ((op == GS_OP_potrf || op == GS_OP_syevd) && !gs_in(u, "LU")))
        return false;
    for (int j = 0; j < narrays; j++)
        if (j + 1 != piv && !gs_arr_mat(&x[j], prec, gs_arr_ops[i].real >> j & 1, &m[nmat++]))
            return false;
    if ((*entry = gs_real_entry(r)) < 0)
        return false;
    gs_lapack_start(p, (unsigned)*entry, m[0].p, m[0].ld, NULL);
    p->ta = m[0].t;
    bool factored = op == GS_OP_getrs || op == GS_OP_potrs || op == GS_OP_posv;
    bool ok = op == GS_OP_gesv    ? gs_arr_solve(p, m, nmat)
              : factored          ? gs_arr_factored(p, m, u)
              : op == GS_OP_getrf ? gs_arr_lu(p, m, piv != 0)
              : op == GS_OP_potrf ? gs_arr_chol(p, m, u, strcmp(gs_arr_ops[i].name, "cholesky") == 0)
              : op == GS_OP_gesdd ? gs_arr_svd(p, m, nmat, u)
              : op == GS_OP_geqrf ? gs_arr_qr(p, m, nmat, strcmp(gs_arr_ops[i].name, "qr_raw") ? u : 'R')
              : op == GS_OP_gelsd ? gs_arr_lstsq(p, m)
                                  : gs_arr_eigh(p, m, nmat, u);
    ok = ok && (!piv || (op == GS_OP_gelsd ? gs_arr_rank(p, &x[piv - 1])
                                           : gs_arr_piv(p, &x[piv - 1], op == GS_OP_getrs)));
    p->valid = ok;
    p->arrays = p->x != NULL || op == GS_OP_gesdd; /* eigvalsh's syevd is LAPACK's own */
    p->cond = strstr(gs_arr_ops[i].name, "_rcond") != NULL;
    return ok;
}

static void gs_arr_describe(gs_call_t *c, const void *args)
{
    gs_lapack_family.describe(c, args);
}

static const char *gs_arr_check(gs_call_t *c, const void *args)
{
    return gs_lapack_family.check(c, args);
}

/* Whether A is stored as the matrix the device factors (the SVD's F), not as its transpose. */
static bool gs_arr_as_f(const gs_lapack_t *p)
{
    return (p->ta == 'T') == (p->trans == 'T');
}

/* LAPACK's reasons, and factors with a zero on the diagonal (lu_solve's U, cho_solve's factor), whose division
 * by zero and the infinities and NaNs after it are the CPU library's to make.  The SVD's A, which LAPACK's
 * reasons would read as F, is read as it is stored. */
static const char *gs_arr_exact(const void *args)
{
    const gs_lapack_t *p = args;
    if (p->op == GS_OP_geqrf) /* cuSOLVER's orgqr takes 32-bit sizes */
        return p->m > INT32_MAX / 2 || p->n > INT32_MAX / 2 ? "larger than cuSOLVER's 32-bit routines take" : NULL;
    if (p->op == GS_OP_gesdd)
        return gs_lapack_needs_scaling(p, p->a, gs_arr_as_f(p) ? p->m : p->n, gs_arr_as_f(p) ? p->n : p->m, p->lda)
                   ? "A zero, near underflow or overflow, or with a NaN: LAPACK treats it apart"
                   : NULL;
    if (p->op == GS_OP_gelsd) { /* A and B as stored; cuSOLVER's ormqr takes 32-bit sizes */
        bool an = p->ta == 'N', bn = p->tb == 'N';
        if (p->m > INT32_MAX / 2 || p->n > INT32_MAX / 2 || p->nrhs > INT32_MAX / 2)
            return "larger than cuSOLVER's 32-bit routines take";
        return gs_lapack_needs_scaling(p, p->a, an ? p->m : p->n, an ? p->n : p->m, p->lda) ||
                       gs_lapack_needs_scaling(p, p->b, bn ? p->m : p->nrhs, bn ? p->nrhs : p->m, p->ldb)
                   ? "A or B zero, near underflow or overflow, or with a NaN: LAPACK treats them apart"
                   : NULL;
    }
    if ((p->op == GS_OP_getrs || p->op == GS_OP_potrs) && gs_has_zero(p->a, p->n, p->lda + 1, p->prec))
        return "a zero on the factors' diagonal: the original's call";
    return gs_lapack_family.exact(args);
}

/* The SVD's: A as stored, changed on the device (never cached); U and Vh where wanted, fresh at every call, as
 * stored: U m x ku and Vh kv x n as NumPy's (ku and kv min(m, n), or m and n for every vector). */
static void gs_arr_svd_operands(const gs_lapack_t *p, gs_operands_t *o)
{
    bool wide = p->trans == 'T';
    int64_t rows = wide ? p->n : p->m, cols = wide ? p->m : p->n; /* A's, as NumPy's */
    int64_t ku = p->job1 == 'A' ? rows : p->n, kv = p->job1 == 'A' ? cols : p->n;
    o->es = gs_prec_size(p->prec);
    o->o[0] = (gs_operand_t){p->a, gs_arr_as_f(p) ? p->m : p->n, gs_arr_as_f(p) ? p->n : p->m, p->lda, 1, 0};
    o->scratch_only = 1, o->n = 1;
    if (p->job1 == 'N')
        return;
    o->o[1] = (gs_operand_t){p->x, p->tx == 'N' ? rows : ku, p->tx == 'N' ? ku : rows, p->ldx, 0, 1};
    o->o[2] = (gs_operand_t){p->vt, p->tv == 'N' ? kv : cols, p->tv == 'N' ? cols : kv, p->ldvt, 0, 1};
    o->fresh = 6, o->n = 3;
}

/* The QR's: A as stored, changed on the device (never cached); R, then Q where wanted, fresh at every call, as
 * stored: R k x n and Q m x k as NumPy's (k min(m, n), or m for the complete factors). */
static void gs_arr_qr_operands(const gs_lapack_t *p, gs_operands_t *o)
{
    int64_t m = p->m, n = p->n, k = p->k;
    o->es = gs_prec_size(p->prec);
    o->o[0] = (gs_operand_t){p->a, p->ta == 'N' ? m : n, p->ta == 'N' ? n : m, p->lda, 1, 0};
    o->o[1] = (gs_operand_t){p->x, p->tx == 'N' ? k : n, p->tx == 'N' ? n : k, p->ldx, 0, 1};
    o->scratch_only = 1, o->fresh = 2, o->n = 2;
    if (p->job2 == 'V') {
        o->o[2] = (gs_operand_t){p->vt, p->tv == 'N' ? m : k, p->tv == 'N' ? k : m, p->ldvt, 0, 1};
        o->fresh = 6, o->n = 3;
    }
}

/* lstsq's: A as stored, changed on the device where it is F (never cached); B as stored, read only (gelsd works
 * on a copy); X, fresh at every call, max(m, n) x k as NumPy's. */
static void gs_arr_lstsq_operands(const gs_lapack_t *p, gs_operands_t *o)
{
    int64_t m = p->m, n = gs_max(p->m, p->n), k = p->nrhs;
    o->es = gs_prec_size(p->prec);
    o->o[0] = (gs_operand_t){p->a, p->ta == 'N' ? m : p->n, p->ta == 'N' ? p->n : m, p->lda, 1, 0};
    o->o[1] = (gs_operand_t){p->b, p->tb == 'N' ? m : k, p->tb == 'N' ? k : m, p->ldb, 1, 0};
    o->o[2] = (gs_operand_t){p->x, p->tx == 'N' ? n : k, p->tx == 'N' ? k : n, p->ldx, 0, 1};
    o->scratch_only = 1, o->fresh = 4, o->n = 3;
}

/* A, read only, and changed on the device (never cached) but by lu_solve and cho_solve, which only read their
 * factors (a stored transpose is transposed into other memory), so that factors used again may stay on the
 * device; B; the output X, fresh at every call: xr x xc as NumPy's, stored so or transposed (solve, inv,
 * lu_solve, cho_solve: n x nrhs; slogdet: the n elements of a vector; lu_factor: A's m x n; n x n otherwise).
 * The pivots are no operand. */
static void gs_arr_operands(const void *args, gs_operands_t *o)
{
    const gs_lapack_t *p = args;
    if (p->op == GS_OP_gesdd || p->op == GS_OP_geqrf || p->op == GS_OP_gelsd) {
        (p->op == GS_OP_gesdd ? gs_arr_svd_operands : p->op == GS_OP_geqrf ? gs_arr_qr_operands
                                                                           : gs_arr_lstsq_operands)(p, o);
        return;
    }
    /* A is m x n (lu_factor's; n x n otherwise), X xr x xc, as NumPy's */
    int64_t n = p->n, m = p->op == GS_OP_getrf ? p->m : n, k = p->nrhs ? p->nrhs : n;
    int64_t xr = p->op == GS_OP_getrf && p->ipiv ? m : n;
    int64_t xc = p->op == GS_OP_getrf ? (p->ipiv ? n : 1) : k;
    o->es = gs_prec_size(p->prec);
    o->o[0] = (gs_operand_t){p->a, p->ta == 'N' ? m : n, p->ta == 'N' ? n : m, p->lda, 1, 0};
    o->scratch_only = p->op != GS_OP_getrs && p->op != GS_OP_potrs;
    o->n = 1;
    if (p->b)
        o->o[o->n++] = (gs_operand_t){p->b, p->tb == 'N' ? n : k, p->tb == 'N' ? k : n, p->ldb, 1, 0};
    if (p->x) {
        o->fresh |= (uint8_t)(1u << o->n);
        o->o[o->n++] = (gs_operand_t){p->x, p->tx == 'N' ? xr : xc, p->tx == 'N' ? xc : xr, p->ldx, 0, 1};
    }
}

static const gs_family_t gs_arrays_family = {
    .describe = gs_arr_describe,
    .check = gs_arr_check,
    .exact = gs_arr_exact,
    .operands = gs_arr_operands,
};

/* The operation called op, or -1. */
static int gs_arr_op(const char *op)
{
    for (int i = 0; op && i < (int)(sizeof gs_arr_ops / sizeof gs_arr_ops[0]); i++)
        if (strcmp(op, gs_arr_ops[i].name) == 0)
            return i;
    return -1;
}

/* An operation in a precision, with its right-hand sides, for gs_arr_wanted. */
typedef struct {
    int i, r;
    int64_t k;
} gs_arr_kind_t;

/* Whether the policy would let operation i of routine r on an n x n matrix (k right-hand sides for the solves and
 * lstsq) go to the GPU. */
static bool gs_arr_wanted(const void *arg, int64_t n)
{
    const gs_arr_kind_t *w = arg;
    gs_lapack_t p;
    memset(&p, 0, sizeof p);
    p.op = gs_arr_ops[w->i].op, p.prec = gs_routines[w->r].prec, p.valid = true;
    p.n = p.m = n, p.uplo = 'L', p.trans = 'N', p.job1 = gs_arr_ops[w->i].narrays == 3 ? 'V' : 'N';
    if (p.op == GS_OP_gesdd)
        p.job1 = gs_arr_ops[w->i].narrays == 4 ? 'S' : 'N';
    p.k = p.op == GS_OP_geqrf ? n : 0;
    bool rhs = p.op == GS_OP_gesv || p.op == GS_OP_getrs || p.op == GS_OP_potrs || p.op == GS_OP_posv ||
               p.op == GS_OP_gelsd;
    p.nrhs = !rhs ? 0 : gs_arr_ops[w->i].narrays == 2 ? n : w->k; /* inv: n */
    gs_call_t c = {.routine = (uint16_t)w->r};
    return !gs_lapack_family.check(&c, &p) && gs_policy_decide(&c, gs_backend->op[p.op] != NULL) == GS_WHERE_GPU;
}

GS_EXPORT int64_t gpushim_linalg_min_order(const char *op, char dtype, int64_t nrhs)
{
    gs_init();
    int i = gs_arr_op(op), prec = gs_arr_prec(dtype);
    gs_arr_kind_t w = {i, i < 0 || prec < 0 || nrhs < 1 ? -1 : gs_routine_of(gs_arr_ops[i].op, prec), nrhs};
    return w.r < 0 ? INT64_MAX : gs_dispatch_least(1, gs_arr_wanted, &w);
}

GS_EXPORT int gpushim_linalg(const char *api, const char *op, const char *uplo, int narrays,
                             const gpushim_array_t *arrays, int flags)
{
    int i = gs_arr_op(op), entry;
    gs_lapack_t p;
    if (i < 0 || !arrays || (flags & ~GPUSHIM_LINALG_FINITE) || !gs_arr_fill(&p, &entry, i, uplo, narrays, arrays))
        return 0;
    p.finite = flags & GPUSHIM_LINALG_FINITE;
    return gs_dispatch_api(api, (unsigned)entry, &gs_arrays_family, &p, __builtin_return_address(0));
}

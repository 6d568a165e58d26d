/* LAPACK operations on arrays as NumPy holds them (gpushim_linalg, include/gpushim.h), for the Python layer
 * (scripts/python/gpushim/_linalg.py).  Each call is described as the LAPACK routine that computes it (gesv,
 * getrf, potrf, syevd) on the matrices as they are stored, and runs through the one dispatcher: a C-ordered
 * matrix is its transpose in column-major order, so a triangle of A is the other one of its storage (the LU
 * operations transpose A on the device, to factor A itself as NumPy does); B and the results go through
 * transposes on the device (backend/cuda_arrays.c), never a copy on the host.  A call the dispatcher leaves to
 * the CPU is not done, and not logged: the caller's original function runs, and its own LAPACK call is. */
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

/* solve: A X = B, B and X of one shape (n, or n x k); inv (two arrays): A X = I. */
static bool gs_arr_solve(gs_lapack_t *p, const gs_mat_t *m, int narrays)
{
    const gs_mat_t *a = &m[0], *b = &m[1], *x = &m[narrays - 1];
    int64_t n = a->rows, k = narrays == 2 ? n : b->t == 'N' ? b->cols : b->rows;
    if (a->cols != n || (narrays == 3 && (b->t == 'N' ? b->rows : b->cols) != n) ||
        (x->t == 'N' ? x->rows : x->cols) != n || (x->t == 'N' ? x->cols : x->rows) != k)
        return false;
    p->n = p->m = n, p->nrhs = k, p->trans = a->t, p->x = x->p, p->ldx = x->ld, p->tx = x->t;
    if (narrays == 3)
        p->b = b->p, p->ldb = b->ld, p->tb = b->t;
    return true;
}

/* slogdet: the diagonal of A's LU factors into X (n), its first element negated for an odd permutation. */
static bool gs_arr_lu(gs_lapack_t *p, const gs_mat_t *m)
{
    const gs_mat_t *a = &m[0], *x = &m[1];
    if (a->cols != a->rows || x->t != 'N' || x->cols != 1 || x->rows != a->rows)
        return false;
    p->n = p->m = a->rows, p->trans = a->t, p->x = x->p, p->ldx = x->rows, p->tx = 'N';
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

/* The operations: name, LAPACK operation, arrays, and which of them hold reals (bit i for array i). */
static const struct {
    const char *name;
    uint8_t op, narrays, real;
} gs_arr_ops[] = {
    {"solve", GS_OP_gesv, 3, 0},     {"inv", GS_OP_gesv, 2, 0},       {"cholesky", GS_OP_potrf, 2, 0},
    {"cho_factor", GS_OP_potrf, 2, 0}, {"eigh", GS_OP_syevd, 3, 2},   {"eigvalsh", GS_OP_syevd, 2, 2},
    {"slogdet", GS_OP_getrf, 2, 0},
};

/* The routine of operation op in precision prec. */
static int gs_arr_routine(int op, int prec)
{
    for (int r = 0; r < GS_NROUTINES; r++)
        if (gs_routines[r].op == op && gs_routines[r].prec == prec)
            return r;
    return -1;
}

/* The call's arguments from the arrays: false when they are of a form this does not take. */
static bool gs_arr_fill(gs_lapack_t *p, int *entry, int i, const char *uplo, int narrays, const gpushim_array_t *x)
{
    int prec = gs_arr_prec(x[0].dtype), r = prec < 0 ? -1 : gs_arr_routine(gs_arr_ops[i].op, prec);
    char u = uplo && (uplo[0] == 'L' || uplo[0] == 'U') ? uplo[0] : 0;
    gs_mat_t m[3];
    if (r < 0 || narrays != gs_arr_ops[i].narrays || (!u && (gs_arr_ops[i].op == GS_OP_potrf ||
                                                             gs_arr_ops[i].op == GS_OP_syevd)))
        return false;
    for (int j = 0; j < narrays; j++)
        if (!gs_arr_mat(&x[j], prec, gs_arr_ops[i].real >> j & 1, &m[j]))
            return false;
    if ((*entry = gs_real_entry(r)) < 0)
        return false;
    gs_lapack_start(p, (unsigned)*entry, m[0].p, m[0].ld, NULL);
    bool ok = p->op == GS_OP_gesv    ? gs_arr_solve(p, m, narrays)
              : p->op == GS_OP_getrf ? gs_arr_lu(p, m)
              : p->op == GS_OP_potrf ? gs_arr_chol(p, m, u, strcmp(gs_arr_ops[i].name, "cholesky") == 0)
                                     : gs_arr_eigh(p, m, narrays, u);
    p->valid = ok;
    p->arrays = p->x != NULL;
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

static const char *gs_arr_exact(const void *args)
{
    return gs_lapack_family.exact(args);
}

/* A, read only and changed on the device (never cached); B; the output X, fresh at every call: n x k as stored
 * (solve, inv: n x nrhs, or its transpose; slogdet: the n elements of a vector; n x n otherwise). */
static void gs_arr_operands(const void *args, gs_operands_t *o)
{
    const gs_lapack_t *p = args;
    int64_t n = p->n, k = p->op == GS_OP_gesv ? p->nrhs : p->op == GS_OP_getrf ? 1 : n;
    o->es = gs_prec_size(p->prec);
    o->o[0] = (gs_operand_t){p->a, n, n, p->lda, 1, 0};
    o->scratch_only = 1;
    o->n = 1;
    if (p->b)
        o->o[o->n++] = (gs_operand_t){p->b, p->tb == 'N' ? n : k, p->tb == 'N' ? k : n, p->ldb, 1, 0};
    if (p->x) {
        o->fresh |= (uint8_t)(1u << o->n);
        o->o[o->n++] = (gs_operand_t){p->x, p->tx == 'N' ? n : k, p->tx == 'N' ? k : n, p->ldx, 0, 1};
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

/* Whether the policy would let operation i of routine r on an n x n matrix (k right-hand sides for solve) go to
 * the GPU. */
static bool gs_arr_wanted(const void *arg, int64_t n)
{
    const gs_arr_kind_t *w = arg;
    gs_lapack_t p;
    memset(&p, 0, sizeof p);
    p.op = gs_arr_ops[w->i].op, p.prec = gs_routines[w->r].prec, p.valid = true;
    p.n = p.m = n, p.uplo = 'L', p.job1 = gs_arr_ops[w->i].narrays == 3 ? 'V' : 'N';
    p.nrhs = p.op != GS_OP_gesv ? 0 : gs_arr_ops[w->i].narrays == 2 ? n : w->k; /* inv: n */
    gs_call_t c = {.routine = (uint16_t)w->r};
    return !gs_lapack_family.check(&c, &p) && gs_policy_decide(&c, gs_backend->op[p.op] != NULL) == GS_WHERE_GPU;
}

GS_EXPORT int64_t gpushim_linalg_min_order(const char *op, char dtype, int64_t nrhs)
{
    gs_init();
    int i = gs_arr_op(op), prec = gs_arr_prec(dtype);
    gs_arr_kind_t w = {i, i < 0 || prec < 0 || nrhs < 1 ? -1 : gs_arr_routine(gs_arr_ops[i].op, prec), nrhs};
    return w.r < 0 ? INT64_MAX : gs_dispatch_least(1, gs_arr_wanted, &w);
}

GS_EXPORT int gpushim_linalg(const char *api, const char *op, const char *uplo, int narrays,
                             const gpushim_array_t *arrays)
{
    int i = gs_arr_op(op), entry;
    gs_lapack_t p;
    if (i < 0 || !arrays || !gs_arr_fill(&p, &entry, i, uplo, narrays, arrays))
        return 0;
    return gs_dispatch_api(api, (unsigned)entry, &gs_arrays_family, &p, __builtin_return_address(0));
}

/* The BLAS family: normalisation of calls (both conventions, row- and column-major) into gs_blas_t, their
 * validity as the reference BLAS checks it, their geometry and cost, and the family's descriptor for the
 * dispatcher. */
#include <string.h>

#include "families/blas/blas.h"

static inline char gs_upper(char ch) { return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch; }
/* Option letters a routine accepts; plain comparisons, as this runs on every call. */
static inline bool gs_is_ntc(char ch) { return ch == 'N' || ch == 'T' || ch == 'C'; }
static inline bool gs_is_ul(char ch) { return ch == 'U' || ch == 'L'; }
static inline bool gs_is_lr(char ch) { return ch == 'L' || ch == 'R'; }
static inline bool gs_is_nu(char ch) { return ch == 'N' || ch == 'U'; }
static inline int64_t gs_max1(int64_t v) { return v > 1 ? v : 1; }
static inline char gs_flip(char ch, char x, char y) { return ch == x ? y : ch == y ? x : ch; }

#define GS_SWAP(T, x, y) do { T t_ = (x); (x) = (y); (y) = t_; } while (0)

char gs_cblas_letter(int v, int kind)
{
    static const char *const letters[] = {"NTC", "UL", "NU", "LR"};
    const char *set = letters[(kind - GS_CBLAS_TRANS) / 10];
    int i = v - kind;
    return i >= 0 && i < (int)strlen(set) ? set[i] : 0;
}

/* Sets what every operation has; each fill function sets the rest of what its operation uses.  (Zeroing the
 * whole struct is a measurable part of a small call's cost: bench/overhead.c.) */
static void gs_blas_start(gs_blas_t *p, unsigned e, int layout)
{
    const gs_routine_info_t *r = &gs_routines[gs_entries[e].routine];
    p->op = r->op;
    p->prec = r->prec;
    p->valid = layout == GS_CBLAS_ROW || layout == GS_CBLAS_COL;
    p->side = p->uplo = p->trans = p->transb = p->diag = 0;
    p->m = p->n = p->k = 0;
    p->alpha = p->beta = p->b = NULL;
}

void gs_blas_gemm(gs_blas_t *p, unsigned e, int layout, char ta, char tb, int64_t m, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                  void *c, int64_t ldc)
{
    gs_blas_start(p, e, layout);
    ta = gs_upper(ta);
    tb = gs_upper(tb);
    if (layout == GS_CBLAS_ROW) { /* C^T = op(B)^T op(A)^T */
        GS_SWAP(char, ta, tb);
        GS_SWAP(int64_t, m, n);
        GS_SWAP(const void *, a, b);
        GS_SWAP(int64_t, lda, ldb);
    }
    int64_t rows_a = ta == 'N' ? m : k, rows_b = tb == 'N' ? k : n;
    p->valid &= gs_is_ntc(ta) && gs_is_ntc(tb) && m >= 0 && n >= 0 && k >= 0 &&
                lda >= gs_max1(rows_a) && ldb >= gs_max1(rows_b) && ldc >= gs_max1(m);
    p->trans = ta, p->transb = tb, p->m = m, p->n = n, p->k = k;
    p->alpha = alpha, p->a = a, p->lda = lda, p->b = b, p->ldb = ldb, p->beta = beta, p->c = c, p->ldc = ldc;
}

void gs_blas_symm(gs_blas_t *p, unsigned e, int layout, char side, char uplo, int64_t m, int64_t n,
                  const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                  void *c, int64_t ldc)
{
    gs_blas_start(p, e, layout);
    side = gs_upper(side);
    uplo = gs_upper(uplo);
    if (layout == GS_CBLAS_ROW) { /* C^T = B^T A^T: the other side, A's triangle seen transposed */
        side = gs_flip(side, 'L', 'R');
        uplo = gs_flip(uplo, 'U', 'L');
        GS_SWAP(int64_t, m, n);
    }
    int64_t ka = side == 'L' ? m : n;
    p->valid &= gs_is_lr(side) && gs_is_ul(uplo) && m >= 0 && n >= 0 && lda >= gs_max1(ka) &&
                ldb >= gs_max1(m) && ldc >= gs_max1(m);
    p->side = side, p->uplo = uplo, p->m = m, p->n = n;
    p->alpha = alpha, p->a = a, p->lda = lda, p->b = b, p->ldb = ldb, p->beta = beta, p->c = c, p->ldc = ldc;
}

void gs_blas_syrk(gs_blas_t *p, unsigned e, int layout, char uplo, char trans, int64_t n, int64_t k,
                  const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb, const void *beta,
                  void *c, int64_t ldc)
{
    gs_blas_start(p, e, layout);
    bool herm = p->op == GS_OP_herk || p->op == GS_OP_her2k, two = p->op == GS_OP_syr2k || p->op == GS_OP_her2k;
    bool cplx = gs_prec_complex(p->prec);
    uplo = gs_upper(uplo);
    trans = gs_upper(trans);
    /* The transposes a row-major update needs, as reference CBLAS applies them: real syrk and syr2k take
     * 'C' as 'T'; the complex symmetric ones accept only N and T, the Hermitian ones only N and C. */
    bool trans_ok = trans == 'N' || (trans == 'T' && !herm) || (trans == 'C' && (herm || !cplx));
    if (layout == GS_CBLAS_ROW && trans_ok) {
        uplo = gs_flip(uplo, 'U', 'L');
        trans = trans != 'N' ? 'N' : herm ? 'C' : 'T';
        if (p->op == GS_OP_her2k && cplx) { /* conj(C) = conj(alpha) A'^H B' + alpha B'^H A' */
            size_t half = gs_prec_size(p->prec) / 2;
            memcpy(p->alpha_buf, alpha, 2 * half);
            if (p->prec == GS_P_C)
                ((float *)p->alpha_buf)[1] = -((const float *)alpha)[1];
            else
                ((double *)p->alpha_buf)[1] = -((const double *)alpha)[1];
            alpha = p->alpha_buf;
        }
    }
    int64_t rows_a = trans == 'N' ? n : k;
    p->valid &= gs_is_ul(uplo) && trans_ok && n >= 0 && k >= 0 && lda >= gs_max1(rows_a) &&
                (!two || ldb >= gs_max1(rows_a)) && ldc >= gs_max1(n);
    p->uplo = uplo, p->trans = trans, p->n = n, p->k = k;
    p->alpha = alpha, p->a = a, p->lda = lda, p->b = b, p->ldb = ldb, p->beta = beta, p->c = c, p->ldc = ldc;
}

void gs_blas_trmm(gs_blas_t *p, unsigned e, int layout, char side, char uplo, char ta, char diag, int64_t m,
                  int64_t n, const void *alpha, const void *a, int64_t lda, void *b, int64_t ldb)
{
    gs_blas_start(p, e, layout);
    side = gs_upper(side);
    uplo = gs_upper(uplo);
    ta = gs_upper(ta);
    diag = gs_upper(diag);
    if (layout == GS_CBLAS_ROW) { /* B^T = alpha B^T op(A)^T: the other side, A's triangle transposed */
        side = gs_flip(side, 'L', 'R');
        uplo = gs_flip(uplo, 'U', 'L');
        GS_SWAP(int64_t, m, n);
    }
    int64_t ka = side == 'L' ? m : n;
    p->valid &= gs_is_lr(side) && gs_is_ul(uplo) && gs_is_ntc(ta) && gs_is_nu(diag) &&
                m >= 0 && n >= 0 && lda >= gs_max1(ka) && ldb >= gs_max1(m);
    p->side = side, p->uplo = uplo, p->trans = ta, p->diag = diag, p->m = m, p->n = n;
    p->alpha = alpha, p->a = a, p->lda = lda, p->c = b, p->ldc = ldb;
}

void gs_blas_gemv(gs_blas_t *p, unsigned e, int layout, char trans, int64_t m, int64_t n, const void *alpha,
                  const void *a, int64_t lda, const void *x, int64_t incx, const void *beta, void *y, int64_t incy)
{
    gs_blas_start(p, e, layout);
    trans = gs_upper(trans);
    p->valid &= gs_is_ntc(trans) && m >= 0 && n >= 0 && lda >= gs_max1(layout == GS_CBLAS_ROW ? n : m) &&
                incx != 0 && incy != 0;
    if (layout == GS_CBLAS_ROW) {
        /* Row-major A is column-major A^T.  A row-major conjugate transpose becomes a conjugation without
         * transposition, which cuBLAS has not: marked 'c', it stays on the CPU (gs_blas_gpu_ok). */
        GS_SWAP(int64_t, m, n);
        trans = trans == 'N' ? 'T' : trans == 'T' || !gs_prec_complex(p->prec) ? 'N' : 'c';
    }
    p->trans = trans, p->m = m, p->n = n;
    p->alpha = alpha, p->a = a, p->lda = lda, p->x = x, p->incx = incx, p->beta = beta, p->y = y, p->incy = incy;
}

void gs_blas_vec(gs_blas_t *p, unsigned e, int64_t n, const void *alpha, const void *x, int64_t incx, const void *y,
                 int64_t incy)
{
    gs_blas_start(p, e, GS_CBLAS_COL);
    p->n = n, p->alpha = alpha, p->x = x, p->incx = incx, p->y = (void *)y, p->incy = incy;
}

/* The family's operands: the matrices the call reads or writes. */
static int gs_blas_matrices(const gs_blas_t *p, gs_operand_t ops[3])
{
    bool read_c = p->beta && !gs_scalar_is_zero(p->beta, p->prec, gs_beta_real(p));
    int64_t ka;
    switch (p->op) {
    case GS_OP_gemm:
        ops[0] = (gs_operand_t){p->a, p->trans == 'N' ? p->m : p->k, p->trans == 'N' ? p->k : p->m, p->lda, 1, 0};
        ops[1] = (gs_operand_t){p->b, p->transb == 'N' ? p->k : p->n, p->transb == 'N' ? p->n : p->k, p->ldb, 1, 0};
        ops[2] = (gs_operand_t){p->c, p->m, p->n, p->ldc, read_c, 1};
        return 3;
    case GS_OP_symm:
    case GS_OP_hemm:
        ka = p->side == 'L' ? p->m : p->n;
        ops[0] = (gs_operand_t){p->a, ka, ka, p->lda, 1, 0};
        ops[1] = (gs_operand_t){p->b, p->m, p->n, p->ldb, 1, 0};
        ops[2] = (gs_operand_t){p->c, p->m, p->n, p->ldc, read_c, 1};
        return 3;
    case GS_OP_syrk:
    case GS_OP_herk:
    case GS_OP_syr2k:
    case GS_OP_her2k: {
        /* C is always uploaded: the update writes one triangle, and the whole matrix is copied back, so the
         * other triangle must travel unchanged (tests/progs/blas_all.c fills it with NaN when beta = 0). */
        int64_t r = p->trans == 'N' ? p->n : p->k, cols = p->trans == 'N' ? p->k : p->n;
        int n = 0;
        ops[n++] = (gs_operand_t){p->a, r, cols, p->lda, 1, 0};
        if (p->b)
            ops[n++] = (gs_operand_t){p->b, r, cols, p->ldb, 1, 0};
        ops[n++] = (gs_operand_t){p->c, p->n, p->n, p->ldc, 1, 1};
        return n;
    }
    case GS_OP_trmm:
    case GS_OP_trsm:
        ka = p->side == 'L' ? p->m : p->n;
        ops[0] = (gs_operand_t){p->a, ka, ka, p->lda, 1, 0};
        ops[1] = (gs_operand_t){p->c, p->m, p->n, p->ldc, 1, 1};
        return 2;
    case GS_OP_gemv: { /* vectors as one-row matrices whose columns are inc elements apart */
        int64_t lx = p->trans == 'N' ? p->n : p->m, ly = p->trans == 'N' ? p->m : p->n;
        ops[0] = (gs_operand_t){p->a, p->m, p->n, p->lda, 1, 0};
        ops[1] = (gs_operand_t){p->x, 1, lx, p->incx, 1, 0};
        ops[2] = (gs_operand_t){p->y, 1, ly, p->incy, read_c, 1};
        return 3;
    }
    default:
        return 0;
    }
}

double gs_blas_flops(const gs_blas_t *p)
{
    double m = (double)p->m, n = (double)p->n, k = (double)p->k, f;
    bool empty;
    switch (p->op) {
    case GS_OP_gemm: f = 2 * m * n * k, empty = k == 0; break;
    case GS_OP_symm:
    case GS_OP_hemm: f = 2 * m * n * (p->side == 'L' ? m : n), empty = false; break;
    case GS_OP_syrk:
    case GS_OP_herk: f = n * (n + 1) * k, empty = k == 0; break;
    case GS_OP_syr2k:
    case GS_OP_her2k: f = 2 * n * (n + 1) * k, empty = k == 0; break;
    case GS_OP_trmm:
    case GS_OP_trsm: f = m * n * (p->side == 'L' ? m : n), empty = false; break;
    case GS_OP_gemv: f = 2 * m * n, empty = false; break;
    default: f = 2 * n, empty = false; break;
    }
    if (p->op <= GS_OP_trsm && (empty || gs_scalar_is_zero(p->alpha, p->prec, gs_alpha_real(p))))
        return 0;
    return gs_prec_complex(p->prec) ? 4 * f : f;
}

static void gs_blas_operands(const void *args, gs_operands_t *o)
{
    const gs_blas_t *p = args;
    o->n = gs_blas_matrices(p, o->o);
    o->es = gs_prec_size(p->prec);
    o->scratch_only = 0;
}

/* Sizes and option letters for the log, in the order of the routine's arguments; only needed when the call
 * is logged or timed, so kept off the path of an unlogged call. */
static void gs_blas_describe(gs_call_t *c, const void *args)
{
    const gs_blas_t *p = args;
    const char letters[] = {p->side, p->uplo, p->trans, p->transb, p->diag};
    gs_call_describe(c, p->op, p->m, p->n, p->k, 0, letters, sizeof letters);
}

/* Invalid arguments (the CPU library reports them), or what the GPU path cannot do although they are valid: a
 * reason; or NULL, with the flops set. */
static const char *gs_blas_check(gs_call_t *c, const void *args)
{
    const gs_blas_t *p = args;
    if (!p->valid)
        return "invalid arguments";
    if (p->op == GS_OP_gemv && (p->incx < 0 || p->incy < 0))
        return "negative increment";
    if (p->op == GS_OP_gemv && p->trans == 'c')
        return "row-major conjugate transpose";
    c->flops = gs_blas_flops(p);
    return NULL;
}

const gs_family_t gs_blas_family = {
    .describe = gs_blas_describe,
    .check = gs_blas_check,
    .operands = gs_blas_operands,
};

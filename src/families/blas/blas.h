/* BLAS calls in one normalised form.  Both calling conventions (Fortran and CBLAS, row- or column-major) and
 * every symbol spelling are turned into a gs_blas_t: column-major, 64-bit sizes, upper-case option letters,
 * which the one dispatcher (dispatch/dispatch.h) takes with the family's descriptor. */
#ifndef GS_BLAS_H
#define GS_BLAS_H

#include "dispatch/dispatch.h"

/* CBLAS enumeration values (cblas.h): the layouts, and the first value of each option's enumeration. */
enum { GS_CBLAS_ROW = 101, GS_CBLAS_COL = 102 };
enum { GS_CBLAS_TRANS = 111, GS_CBLAS_UPLO = 121, GS_CBLAS_DIAG = 131, GS_CBLAS_SIDE = 141 };

typedef struct {
    uint8_t op, prec;   /* gs_op_t, gs_prec_t: from the routine table */
    bool valid;         /* false when any argument is invalid: the CPU library must report it */
    char side, uplo, trans, transb, diag; /* 'L'/'R', 'U'/'L', 'N'/'T'/'C', 'N'/'U'; 0 when unused */
    int64_t m, n, k;
    const void *alpha, *beta; /* host scalars of the routine's type (real for herk's both, her2k's beta) */
    const void *a, *b;
    void *c;            /* the output: C, or B for trmm and trsm */
    int64_t lda, ldb, ldc;
    const void *x;      /* level 1 and 2 vectors */
    void *y;
    int64_t incx, incy;
    unsigned char alpha_buf[16]; /* a scalar the normalisation had to change (row-major her2k) */
} gs_blas_t;

/* Fill functions, one per operation.  layout is GS_CBLAS_ROW or GS_CBLAS_COL (Fortran entries pass COL);
 * option arguments are letters (CBLAS glue converts its enumerations with gs_cblas_letter).  A row-major
 * call is rewritten as the column-major call on the transposed matrices, as reference CBLAS does. */
GS_HIDDEN void gs_blas_gemm(gs_blas_t *p, unsigned e, int layout, char ta, char tb, int64_t m, int64_t n,
                            int64_t k, const void *alpha, const void *a, int64_t lda, const void *b,
                            int64_t ldb, const void *beta, void *c, int64_t ldc);
/* symm and hemm */
GS_HIDDEN void gs_blas_symm(gs_blas_t *p, unsigned e, int layout, char side, char uplo, int64_t m, int64_t n,
                            const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                            const void *beta, void *c, int64_t ldc);
/* syrk and herk (b is NULL), syr2k and her2k */
GS_HIDDEN void gs_blas_syrk(gs_blas_t *p, unsigned e, int layout, char uplo, char trans, int64_t n, int64_t k,
                            const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                            const void *beta, void *c, int64_t ldc);
/* trmm and trsm: B is the output, stored in p->c */
GS_HIDDEN void gs_blas_trmm(gs_blas_t *p, unsigned e, int layout, char side, char uplo, char ta, char diag,
                            int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda, void *b,
                            int64_t ldb);
GS_HIDDEN void gs_blas_gemv(gs_blas_t *p, unsigned e, int layout, char trans, int64_t m, int64_t n,
                            const void *alpha, const void *a, int64_t lda, const void *x, int64_t incx,
                            const void *beta, void *y, int64_t incy);
/* dot, dotsub, axpy and copy (alpha is NULL but for axpy) */
GS_HIDDEN void gs_blas_vec(gs_blas_t *p, unsigned e, int64_t n, const void *alpha, const void *x, int64_t incx,
                           const void *y, int64_t incy);

/* A copy (y = x) that copy.c ran on several threads, bit for bit the CPU library's: true when it did; false
 * when the CPU library should make it (a small or contiguous copy, overlapping vectors, a nested call). */
GS_HIDDEN bool gs_blas_copy(gs_call_t *c, const gs_blas_t *p);

/* A CBLAS option of the given kind (GS_CBLAS_TRANS, ...) as its Fortran letter; 0 when v is not one of that
 * kind's values, so that the call is found invalid and goes to the CPU library to be reported. */
GS_HIDDEN char gs_cblas_letter(int v, int kind);

/* herk's alpha and beta and her2k's beta are real even for complex routines. */
static inline bool gs_alpha_real(const gs_blas_t *p) { return p->op == GS_OP_herk; }
static inline bool gs_beta_real(const gs_blas_t *p) { return p->op == GS_OP_herk || p->op == GS_OP_her2k; }

/* Bytes of the call's alpha (which = 0) or beta (which = 1): real for herk's both and her2k's beta. */
static inline size_t gs_blas_scalar_size(const gs_blas_t *p, int which)
{
    bool real = which ? gs_beta_real(p) : gs_alpha_real(p);
    return gs_prec_size(p->prec) / (real && gs_prec_complex(p->prec) ? 2 : 1);
}

/* Floating-point operations of the call (a complex multiply-add counts as 8); 0 for a call that does no
 * arithmetic on its matrices (an empty dimension or alpha = 0). */
GS_HIDDEN double gs_blas_flops(const gs_blas_t *p);

/* The BLAS family's descriptor for the dispatcher (dispatch/dispatch.h): every BLAS entry hands its gs_blas_t
 * to gs_dispatch with it.  Its operands are the matrices (and gemv's vectors, as one-row matrices whose
 * columns are inc elements apart) in argument order. */
GS_HIDDEN extern const gs_family_t gs_blas_family;

#endif

/* Entry templates for the BLAS routines: GS_GLUE_<op>(ID, P, symbol, convention, intbits) defines one exported
 * entry.  Each entry fills the normalised arguments, asks the dispatcher, and otherwise calls the CPU
 * library's entry of the same name with its original arguments, hidden Fortran string lengths included, so
 * that results and argument errors are the library's own.  Only glue lives here; the work is in blas.c.
 * The hidden lengths are declared size_t, as gfortran passes them; a C caller that omits them leaves
 * whatever its registers hold, which is forwarded unread, as it would have reached the library anyway. */
#ifndef GS_GLUE_BLAS_H
#define GS_GLUE_BLAS_H

#include "families/blas/blas.h"

#define GS_INT_32 int
#define GS_INT_64 int64_t

/* CBLAS passes real scalars by value and complex ones by pointer. */
#define GS_SCALAR_S float
#define GS_SCALAR_D double
#define GS_SCALAR_C const void *
#define GS_SCALAR_Z const void *
#define GS_REF_S(x) (&(x))
#define GS_REF_D(x) (&(x))
#define GS_REF_C(x) (x)
#define GS_REF_Z(x) (x)
/* herk's alpha and beta and her2k's beta are real, passed by value in CBLAS. */
#define GS_REAL_S float
#define GS_REAL_D double
#define GS_REAL_C float
#define GS_REAL_Z double
#define GS_BYVAL(x) (&(x))

/* The common tail: run on the GPU, or else call the CPU library's definition of this very symbol. */
#define GS_GLUE_TAIL(sym, args) \
    if (gs_blas_offload(&call, GS_E_##sym, &p) && call.real) \
        ((__typeof__(&sym))call.real) args; \
    gs_call_end(&call);

#define GS_GLUE_gemm(ID, P, sym, conv, bits) GS_GLUE_gemm_##conv(P, sym, GS_INT_##bits)
#define GS_GLUE_gemm_F77(P, sym, I) \
    GS_EXPORT void sym(const char *ta, const char *tb, const I *m, const I *n, const I *k, const void *al, \
                       const void *a, const I *lda, const void *b, const I *ldb, const void *be, void *c, \
                       const I *ldc, size_t lta, size_t ltb) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_gemm(&p, GS_E_##sym, GS_CBLAS_COL, *ta, *tb, *m, *n, *k, al, a, *lda, b, *ldb, be, c, *ldc); \
        GS_GLUE_TAIL(sym, (ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc, lta, ltb)) \
    }
#define GS_GLUE_gemm_CBLAS(P, sym, I) \
    GS_EXPORT void sym(int layout, int ta, int tb, I m, I n, I k, GS_SCALAR_##P al, const void *a, I lda, \
                       const void *b, I ldb, GS_SCALAR_##P be, void *c, I ldc) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_gemm(&p, GS_E_##sym, layout, gs_cblas_letter(ta, GS_CBLAS_TRANS), \
                     gs_cblas_letter(tb, GS_CBLAS_TRANS), m, n, k, GS_REF_##P(al), a, lda, b, ldb, \
                     GS_REF_##P(be), c, ldc); \
        GS_GLUE_TAIL(sym, (layout, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc)) \
    }

/* symm and hemm */
#define GS_GLUE_symm(ID, P, sym, conv, bits) GS_GLUE_symm_##conv(P, sym, GS_INT_##bits)
#define GS_GLUE_hemm GS_GLUE_symm
#define GS_GLUE_symm_F77(P, sym, I) \
    GS_EXPORT void sym(const char *side, const char *uplo, const I *m, const I *n, const void *al, const void *a, \
                       const I *lda, const void *b, const I *ldb, const void *be, void *c, const I *ldc, \
                       size_t lside, size_t luplo) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_symm(&p, GS_E_##sym, GS_CBLAS_COL, *side, *uplo, *m, *n, al, a, *lda, b, *ldb, be, c, *ldc); \
        GS_GLUE_TAIL(sym, (side, uplo, m, n, al, a, lda, b, ldb, be, c, ldc, lside, luplo)) \
    }
#define GS_GLUE_symm_CBLAS(P, sym, I) \
    GS_EXPORT void sym(int layout, int side, int uplo, I m, I n, GS_SCALAR_##P al, const void *a, I lda, \
                       const void *b, I ldb, GS_SCALAR_##P be, void *c, I ldc) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_symm(&p, GS_E_##sym, layout, gs_cblas_letter(side, GS_CBLAS_SIDE), \
                     gs_cblas_letter(uplo, GS_CBLAS_UPLO), m, n, GS_REF_##P(al), a, lda, b, ldb, \
                     GS_REF_##P(be), c, ldc); \
        GS_GLUE_TAIL(sym, (layout, side, uplo, m, n, al, a, lda, b, ldb, be, c, ldc)) \
    }

/* syrk, herk, syr2k and her2k share the Fortran template (b is NULL for the rank-k updates); their CBLAS
 * scalars differ in type: AT and BT are the types of alpha and beta, AR and BR take their address. */
#define GS_GLUE_syrk(ID, P, sym, conv, bits) \
    GS_GLUE_rk_##conv(sym, GS_INT_##bits, GS_SCALAR_##P, GS_REF_##P, GS_SCALAR_##P, GS_REF_##P)
#define GS_GLUE_herk(ID, P, sym, conv, bits) \
    GS_GLUE_rk_##conv(sym, GS_INT_##bits, GS_REAL_##P, GS_BYVAL, GS_REAL_##P, GS_BYVAL)
#define GS_GLUE_rk_F77(sym, I, AT, AR, BT, BR) \
    GS_EXPORT void sym(const char *uplo, const char *tr, const I *n, const I *k, const void *al, const void *a, \
                       const I *lda, const void *be, void *c, const I *ldc, size_t luplo, size_t ltr) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_syrk(&p, GS_E_##sym, GS_CBLAS_COL, *uplo, *tr, *n, *k, al, a, *lda, NULL, 0, be, c, *ldc); \
        GS_GLUE_TAIL(sym, (uplo, tr, n, k, al, a, lda, be, c, ldc, luplo, ltr)) \
    }
#define GS_GLUE_rk_CBLAS(sym, I, AT, AR, BT, BR) \
    GS_EXPORT void sym(int layout, int uplo, int tr, I n, I k, AT al, const void *a, I lda, BT be, void *c, I ldc) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_syrk(&p, GS_E_##sym, layout, gs_cblas_letter(uplo, GS_CBLAS_UPLO), \
                     gs_cblas_letter(tr, GS_CBLAS_TRANS), n, k, AR(al), a, lda, NULL, 0, BR(be), c, ldc); \
        GS_GLUE_TAIL(sym, (layout, uplo, tr, n, k, al, a, lda, be, c, ldc)) \
    }
#define GS_GLUE_syr2k(ID, P, sym, conv, bits) \
    GS_GLUE_r2k_##conv(sym, GS_INT_##bits, GS_SCALAR_##P, GS_REF_##P, GS_SCALAR_##P, GS_REF_##P)
#define GS_GLUE_her2k(ID, P, sym, conv, bits) \
    GS_GLUE_r2k_##conv(sym, GS_INT_##bits, GS_SCALAR_##P, GS_REF_##P, GS_REAL_##P, GS_BYVAL)
#define GS_GLUE_r2k_F77(sym, I, AT, AR, BT, BR) \
    GS_EXPORT void sym(const char *uplo, const char *tr, const I *n, const I *k, const void *al, const void *a, \
                       const I *lda, const void *b, const I *ldb, const void *be, void *c, const I *ldc, \
                       size_t luplo, size_t ltr) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_syrk(&p, GS_E_##sym, GS_CBLAS_COL, *uplo, *tr, *n, *k, al, a, *lda, b, *ldb, be, c, *ldc); \
        GS_GLUE_TAIL(sym, (uplo, tr, n, k, al, a, lda, b, ldb, be, c, ldc, luplo, ltr)) \
    }
#define GS_GLUE_r2k_CBLAS(sym, I, AT, AR, BT, BR) \
    GS_EXPORT void sym(int layout, int uplo, int tr, I n, I k, AT al, const void *a, I lda, const void *b, I ldb, \
                       BT be, void *c, I ldc) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_syrk(&p, GS_E_##sym, layout, gs_cblas_letter(uplo, GS_CBLAS_UPLO), \
                     gs_cblas_letter(tr, GS_CBLAS_TRANS), n, k, AR(al), a, lda, b, ldb, BR(be), c, ldc); \
        GS_GLUE_TAIL(sym, (layout, uplo, tr, n, k, al, a, lda, b, ldb, be, c, ldc)) \
    }

/* trmm and trsm */
#define GS_GLUE_trmm(ID, P, sym, conv, bits) GS_GLUE_trmm_##conv(P, sym, GS_INT_##bits)
#define GS_GLUE_trsm GS_GLUE_trmm
#define GS_GLUE_trmm_F77(P, sym, I) \
    GS_EXPORT void sym(const char *side, const char *uplo, const char *ta, const char *diag, const I *m, \
                       const I *n, const void *al, const void *a, const I *lda, void *b, const I *ldb, \
                       size_t lside, size_t luplo, size_t lta, size_t ldiag) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_trmm(&p, GS_E_##sym, GS_CBLAS_COL, *side, *uplo, *ta, *diag, *m, *n, al, a, *lda, b, *ldb); \
        GS_GLUE_TAIL(sym, (side, uplo, ta, diag, m, n, al, a, lda, b, ldb, lside, luplo, lta, ldiag)) \
    }
#define GS_GLUE_trmm_CBLAS(P, sym, I) \
    GS_EXPORT void sym(int layout, int side, int uplo, int ta, int diag, I m, I n, GS_SCALAR_##P al, \
                       const void *a, I lda, void *b, I ldb) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_trmm(&p, GS_E_##sym, layout, gs_cblas_letter(side, GS_CBLAS_SIDE), \
                     gs_cblas_letter(uplo, GS_CBLAS_UPLO), gs_cblas_letter(ta, GS_CBLAS_TRANS), \
                     gs_cblas_letter(diag, GS_CBLAS_DIAG), m, n, GS_REF_##P(al), a, lda, b, ldb); \
        GS_GLUE_TAIL(sym, (layout, side, uplo, ta, diag, m, n, al, a, lda, b, ldb)) \
    }

#define GS_GLUE_gemv(ID, P, sym, conv, bits) GS_GLUE_gemv_##conv(P, sym, GS_INT_##bits)
#define GS_GLUE_gemv_F77(P, sym, I) \
    GS_EXPORT void sym(const char *tr, const I *m, const I *n, const void *al, const void *a, const I *lda, \
                       const void *x, const I *incx, const void *be, void *y, const I *incy, size_t ltr) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_gemv(&p, GS_E_##sym, GS_CBLAS_COL, *tr, *m, *n, al, a, *lda, x, *incx, be, y, *incy); \
        GS_GLUE_TAIL(sym, (tr, m, n, al, a, lda, x, incx, be, y, incy, ltr)) \
    }
#define GS_GLUE_gemv_CBLAS(P, sym, I) \
    GS_EXPORT void sym(int layout, int tr, I m, I n, GS_SCALAR_##P al, const void *a, I lda, const void *x, \
                       I incx, GS_SCALAR_##P be, void *y, I incy) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_gemv(&p, GS_E_##sym, layout, gs_cblas_letter(tr, GS_CBLAS_TRANS), m, n, GS_REF_##P(al), a, lda, \
                     x, incx, GS_REF_##P(be), y, incy); \
        GS_GLUE_TAIL(sym, (layout, tr, m, n, al, a, lda, x, incx, be, y, incy)) \
    }

/* Real dot products return their value; complex ones are the CBLAS _sub forms, which write it through a
 * pointer.  Complex-returning Fortran dot products are not interposed: their return convention differs
 * between compilers. */
#define GS_GLUE_dot(ID, P, sym, conv, bits) GS_GLUE_dot_##conv(GS_REAL_##P, sym, GS_INT_##bits)
#define GS_GLUE_dot_CBLAS(T, sym, I) \
    GS_EXPORT T sym(I n, const void *x, I incx, const void *y, I incy) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        T r = 0; \
        gs_blas_vec(&p, GS_E_##sym, n, NULL, x, incx, y, incy); \
        if (gs_blas_offload(&call, GS_E_##sym, &p) && call.real) \
            r = ((__typeof__(&sym))call.real)(n, x, incx, y, incy); \
        gs_call_end(&call); \
        return r; \
    }
#define GS_GLUE_dotsub(ID, P, sym, conv, bits) GS_GLUE_dotsub_##conv(sym, GS_INT_##bits)
#define GS_GLUE_dotsub_CBLAS(sym, I) \
    GS_EXPORT void sym(I n, const void *x, I incx, const void *y, I incy, void *dot) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_vec(&p, GS_E_##sym, n, NULL, x, incx, y, incy); \
        GS_GLUE_TAIL(sym, (n, x, incx, y, incy, dot)) \
    }

/* axpy: NumPy's dot calls it when one operand is a scalar */
#define GS_GLUE_axpy(ID, P, sym, conv, bits) GS_GLUE_axpy_##conv(P, sym, GS_INT_##bits)
#define GS_GLUE_axpy_CBLAS(P, sym, I) \
    GS_EXPORT void sym(I n, GS_SCALAR_##P al, const void *x, I incx, void *y, I incy) \
    { \
        gs_call_t call; \
        gs_blas_t p; \
        gs_blas_vec(&p, GS_E_##sym, n, GS_REF_##P(al), x, incx, y, incy); \
        GS_GLUE_TAIL(sym, (n, al, x, incx, y, incy)) \
    }

#endif

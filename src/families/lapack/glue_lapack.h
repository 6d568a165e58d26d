/* Entry templates for the LAPACK routines: GS_GLUE_<op>(ID, P, symbol, convention, intbits) defines one exported
 * Fortran entry.  Each fills the normalised arguments and asks the dispatcher (lapack.c).  For a routine with a
 * workspace the dispatcher may first ask for the CPU library's own workspace query (LWORK = -1), made here with
 * the caller's arguments; a call that stays on the CPU goes to the CPU library's entry of the same name with
 * its original arguments, hidden string lengths included.  Only glue lives here. */
#ifndef GS_GLUE_LAPACK_H
#define GS_GLUE_LAPACK_H

#include "families/blas/glue_blas.h"
#include "families/lapack/lapack.h"

/* The common tail.  args: the original arguments; qargs: the same with &q_ (-1) for LWORK. */
#define GS_LGLUE_TAIL(sym, I, args, qargs) \
    int r_ = gs_lapack_offload(&call, GS_E_##sym, &p); \
    if (r_ == GS_LAPACK_QUERY && call.real) { \
        I q_ = -1; \
        ((__typeof__(&sym))call.real) qargs; \
        r_ = gs_lapack_queried(&call, &p); \
    } \
    if (r_ != GS_LAPACK_DONE && call.real) \
        ((__typeof__(&sym))call.real) args; \
    gs_call_end(&call);
/* For routines without a workspace. */
#define GS_LGLUE_TAIL0(sym, args) \
    if (gs_lapack_offload(&call, GS_E_##sym, &p) != GS_LAPACK_DONE && call.real) \
        ((__typeof__(&sym))call.real) args; \
    gs_call_end(&call);
#define GS_LGLUE_BEGIN \
    gs_call_t call; \
    gs_lapack_t p;

#define GS_GLUE_getrf(ID, P, sym, conv, bits) GS_GLUE_getrf_(sym, GS_INT_##bits)
#define GS_GLUE_getrf_(sym, I) \
    GS_EXPORT void sym(const I *m, const I *n, void *a, const I *lda, I *ipiv, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_lu(&p, GS_E_##sym, 0, *m, *n, 0, a, *lda, ipiv, NULL, 1, NULL, 0, info); \
        GS_LGLUE_TAIL0(sym, (m, n, a, lda, ipiv, info)) \
    }

#define GS_GLUE_getrs(ID, P, sym, conv, bits) GS_GLUE_getrs_(sym, GS_INT_##bits)
#define GS_GLUE_getrs_(sym, I) \
    GS_EXPORT void sym(const char *tr, const I *n, const I *nrhs, const void *a, const I *lda, const I *ipiv, \
                       void *b, const I *ldb, I *info, size_t ltr) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_lu(&p, GS_E_##sym, *tr, 0, *n, *nrhs, (void *)a, *lda, (void *)ipiv, b, *ldb, NULL, 0, info); \
        GS_LGLUE_TAIL0(sym, (tr, n, nrhs, a, lda, ipiv, b, ldb, info, ltr)) \
    }

#define GS_GLUE_gesv(ID, P, sym, conv, bits) GS_GLUE_gesv_(sym, GS_INT_##bits)
#define GS_GLUE_gesv_(sym, I) \
    GS_EXPORT void sym(const I *n, const I *nrhs, void *a, const I *lda, I *ipiv, void *b, const I *ldb, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_lu(&p, GS_E_##sym, 0, 0, *n, *nrhs, a, *lda, ipiv, b, *ldb, NULL, 0, info); \
        GS_LGLUE_TAIL0(sym, (n, nrhs, a, lda, ipiv, b, ldb, info)) \
    }

#define GS_GLUE_getri(ID, P, sym, conv, bits) GS_GLUE_getri_(sym, GS_INT_##bits)
#define GS_GLUE_getri_(sym, I) \
    GS_EXPORT void sym(const I *n, void *a, const I *lda, const I *ipiv, void *work, const I *lwork, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_lu(&p, GS_E_##sym, 0, 0, *n, 0, a, *lda, (void *)ipiv, NULL, 1, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (n, a, lda, ipiv, work, lwork, info), (n, a, lda, ipiv, work, &q_, info)) \
    }

/* potrf and potri; potrs and posv */
#define GS_GLUE_potrf(ID, P, sym, conv, bits) GS_GLUE_potrf_(sym, GS_INT_##bits)
#define GS_GLUE_potri GS_GLUE_potrf
#define GS_GLUE_potrf_(sym, I) \
    GS_EXPORT void sym(const char *uplo, const I *n, void *a, const I *lda, I *info, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_chol(&p, GS_E_##sym, *uplo, *n, 0, a, *lda, NULL, 1, info); \
        GS_LGLUE_TAIL0(sym, (uplo, n, a, lda, info, luplo)) \
    }
#define GS_GLUE_potrs(ID, P, sym, conv, bits) GS_GLUE_potrs_(sym, GS_INT_##bits)
#define GS_GLUE_posv GS_GLUE_potrs
#define GS_GLUE_potrs_(sym, I) \
    GS_EXPORT void sym(const char *uplo, const I *n, const I *nrhs, void *a, const I *lda, void *b, const I *ldb, \
                       I *info, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_chol(&p, GS_E_##sym, *uplo, *n, *nrhs, a, *lda, b, *ldb, info); \
        GS_LGLUE_TAIL0(sym, (uplo, n, nrhs, a, lda, b, ldb, info, luplo)) \
    }

#define GS_GLUE_geqrf(ID, P, sym, conv, bits) GS_GLUE_geqrf_(sym, GS_INT_##bits)
#define GS_GLUE_geqrf_(sym, I) \
    GS_EXPORT void sym(const I *m, const I *n, void *a, const I *lda, void *tau, void *work, const I *lwork, \
                       I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_qr(&p, GS_E_##sym, 'L', 'N', *m, *n, 0, 0, a, *lda, tau, NULL, 1, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (m, n, a, lda, tau, work, lwork, info), (m, n, a, lda, tau, work, &q_, info)) \
    }

#define GS_GLUE_orgqr(ID, P, sym, conv, bits) GS_GLUE_orgqr_(sym, GS_INT_##bits)
#define GS_GLUE_orgqr_(sym, I) \
    GS_EXPORT void sym(const I *m, const I *n, const I *k, void *a, const I *lda, const void *tau, void *work, \
                       const I *lwork, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_qr(&p, GS_E_##sym, 'L', 'N', *m, *n, *k, 0, a, *lda, (void *)tau, NULL, 1, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (m, n, k, a, lda, tau, work, lwork, info), (m, n, k, a, lda, tau, work, &q_, info)) \
    }

#define GS_GLUE_ormqr(ID, P, sym, conv, bits) GS_GLUE_ormqr_(sym, GS_INT_##bits)
#define GS_GLUE_ormqr_(sym, I) \
    GS_EXPORT void sym(const char *side, const char *tr, const I *m, const I *n, const I *k, const void *a, \
                       const I *lda, const void *tau, void *c, const I *ldc, void *work, const I *lwork, I *info, \
                       size_t lside, size_t ltr) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_qr(&p, GS_E_##sym, *side, *tr, *m, *n, *k, 0, (void *)a, *lda, (void *)tau, c, *ldc, work, \
                     *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (side, tr, m, n, k, a, lda, tau, c, ldc, work, lwork, info, lside, ltr), \
                      (side, tr, m, n, k, a, lda, tau, c, ldc, work, &q_, info, lside, ltr)) \
    }

#define GS_GLUE_gels(ID, P, sym, conv, bits) GS_GLUE_gels_(sym, GS_INT_##bits)
#define GS_GLUE_gels_(sym, I) \
    GS_EXPORT void sym(const char *tr, const I *m, const I *n, const I *nrhs, void *a, const I *lda, void *b, \
                       const I *ldb, void *work, const I *lwork, I *info, size_t ltr) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_qr(&p, GS_E_##sym, 'L', *tr, *m, *n, 0, *nrhs, a, *lda, NULL, b, *ldb, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (tr, m, n, nrhs, a, lda, b, ldb, work, lwork, info, ltr), \
                      (tr, m, n, nrhs, a, lda, b, ldb, work, &q_, info, ltr)) \
    }

/* gelsd: the complex one has RWORK before IWORK; RCOND is a real of the routine's precision. */
#define GS_GLUE_gelsd(ID, P, sym, conv, bits) GS_GLUE_gelsd_##P(sym, GS_INT_##bits)
#define GS_GLUE_gelsd_S(sym, I) GS_GLUE_gelsd_real(sym, I, float)
#define GS_GLUE_gelsd_D(sym, I) GS_GLUE_gelsd_real(sym, I, double)
#define GS_GLUE_gelsd_C(sym, I) GS_GLUE_gelsd_complex(sym, I, float)
#define GS_GLUE_gelsd_Z(sym, I) GS_GLUE_gelsd_complex(sym, I, double)
#define GS_GLUE_gelsd_real(sym, I, R) \
    GS_EXPORT void sym(const I *m, const I *n, const I *nrhs, void *a, const I *lda, void *b, const I *ldb, void *s, \
                       const R *rcond, I *rank, void *work, const I *lwork, I *iwork, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_ls(&p, GS_E_##sym, *m, *n, *nrhs, a, *lda, b, *ldb, s, *rcond, rank, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, iwork, info), \
                      (m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, &q_, iwork, info)) \
    }
#define GS_GLUE_gelsd_complex(sym, I, R) \
    GS_EXPORT void sym(const I *m, const I *n, const I *nrhs, void *a, const I *lda, void *b, const I *ldb, void *s, \
                       const R *rcond, I *rank, void *work, const I *lwork, void *rwork, I *iwork, I *info) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_ls(&p, GS_E_##sym, *m, *n, *nrhs, a, *lda, b, *ldb, s, *rcond, rank, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, lwork, rwork, iwork, info), \
                      (m, n, nrhs, a, lda, b, ldb, s, rcond, rank, work, &q_, rwork, iwork, info)) \
    }

/* syevd (real) and heevd (complex) */
#define GS_GLUE_syevd(ID, P, sym, conv, bits) GS_GLUE_syevd_##P(sym, GS_INT_##bits)
#define GS_GLUE_syevd_S GS_GLUE_syevd_D
#define GS_GLUE_syevd_C GS_GLUE_syevd_Z
#define GS_GLUE_syevd_D(sym, I) \
    GS_EXPORT void sym(const char *jobz, const char *uplo, const I *n, void *a, const I *lda, void *w, void *work, \
                       const I *lwork, I *iwork, const I *liwork, I *info, size_t ljobz, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_eigh(&p, GS_E_##sym, *jobz, *uplo, *n, a, *lda, w, work, *lwork, NULL, 0, iwork, *liwork, info); \
        GS_LGLUE_TAIL(sym, I, (jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, ljobz, luplo), \
                      (jobz, uplo, n, a, lda, w, work, &q_, iwork, liwork, info, ljobz, luplo)) \
    }
#define GS_GLUE_syevd_Z(sym, I) \
    GS_EXPORT void sym(const char *jobz, const char *uplo, const I *n, void *a, const I *lda, void *w, void *work, \
                       const I *lwork, void *rwork, const I *lrwork, I *iwork, const I *liwork, I *info, \
                       size_t ljobz, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_eigh(&p, GS_E_##sym, *jobz, *uplo, *n, a, *lda, w, work, *lwork, rwork, *lrwork, iwork, *liwork, \
                       info); \
        GS_LGLUE_TAIL(sym, I, (jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork, info, ljobz, \
                               luplo), \
                      (jobz, uplo, n, a, lda, w, work, &q_, rwork, lrwork, iwork, liwork, info, ljobz, luplo)) \
    }

/* syev (real) and heev (complex, with a fixed-size RWORK) */
#define GS_GLUE_syev(ID, P, sym, conv, bits) GS_GLUE_syev_##P(sym, GS_INT_##bits)
#define GS_GLUE_syev_S GS_GLUE_syev_D
#define GS_GLUE_syev_C GS_GLUE_syev_Z
#define GS_GLUE_syev_D(sym, I) \
    GS_EXPORT void sym(const char *jobz, const char *uplo, const I *n, void *a, const I *lda, void *w, void *work, \
                       const I *lwork, I *info, size_t ljobz, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_eigh(&p, GS_E_##sym, *jobz, *uplo, *n, a, *lda, w, work, *lwork, NULL, 0, NULL, 0, info); \
        GS_LGLUE_TAIL(sym, I, (jobz, uplo, n, a, lda, w, work, lwork, info, ljobz, luplo), \
                      (jobz, uplo, n, a, lda, w, work, &q_, info, ljobz, luplo)) \
    }
#define GS_GLUE_syev_Z(sym, I) \
    GS_EXPORT void sym(const char *jobz, const char *uplo, const I *n, void *a, const I *lda, void *w, void *work, \
                       const I *lwork, void *rwork, I *info, size_t ljobz, size_t luplo) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_eigh(&p, GS_E_##sym, *jobz, *uplo, *n, a, *lda, w, work, *lwork, NULL, 0, NULL, 0, info); \
        GS_LGLUE_TAIL(sym, I, (jobz, uplo, n, a, lda, w, work, lwork, rwork, info, ljobz, luplo), \
                      (jobz, uplo, n, a, lda, w, work, &q_, rwork, info, ljobz, luplo)) \
    }

/* gesdd: real with IWORK; complex with RWORK and IWORK */
#define GS_GLUE_gesdd(ID, P, sym, conv, bits) GS_GLUE_gesdd_##P(sym, GS_INT_##bits)
#define GS_GLUE_gesdd_S GS_GLUE_gesdd_D
#define GS_GLUE_gesdd_C GS_GLUE_gesdd_Z
#define GS_GLUE_gesdd_D(sym, I) \
    GS_EXPORT void sym(const char *jobz, const I *m, const I *n, void *a, const I *lda, void *s, void *u, \
                       const I *ldu, void *vt, const I *ldvt, void *work, const I *lwork, I *iwork, I *info, \
                       size_t ljobz) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_svd(&p, GS_E_##sym, *jobz, *jobz, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, ljobz), \
                      (jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, &q_, iwork, info, ljobz)) \
    }
#define GS_GLUE_gesdd_Z(sym, I) \
    GS_EXPORT void sym(const char *jobz, const I *m, const I *n, void *a, const I *lda, void *s, void *u, \
                       const I *ldu, void *vt, const I *ldvt, void *work, const I *lwork, void *rwork, I *iwork, \
                       I *info, size_t ljobz) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_svd(&p, GS_E_##sym, *jobz, *jobz, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork, info, ljobz), \
                      (jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, &q_, rwork, iwork, info, ljobz)) \
    }

/* gesvd: complex with RWORK */
#define GS_GLUE_gesvd(ID, P, sym, conv, bits) GS_GLUE_gesvd_##P(sym, GS_INT_##bits)
#define GS_GLUE_gesvd_S GS_GLUE_gesvd_D
#define GS_GLUE_gesvd_C GS_GLUE_gesvd_Z
#define GS_GLUE_gesvd_D(sym, I) \
    GS_EXPORT void sym(const char *ju, const char *jv, const I *m, const I *n, void *a, const I *lda, void *s, \
                       void *u, const I *ldu, void *vt, const I *ldvt, void *work, const I *lwork, I *info, \
                       size_t lju, size_t ljv) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_svd(&p, GS_E_##sym, *ju, *jv, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, info, lju, ljv), \
                      (ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, work, &q_, info, lju, ljv)) \
    }
#define GS_GLUE_gesvd_Z(sym, I) \
    GS_EXPORT void sym(const char *ju, const char *jv, const I *m, const I *n, void *a, const I *lda, void *s, \
                       void *u, const I *ldu, void *vt, const I *ldvt, void *work, const I *lwork, void *rwork, \
                       I *info, size_t lju, size_t ljv) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_svd(&p, GS_E_##sym, *ju, *jv, *m, *n, a, *lda, s, u, *ldu, vt, *ldvt, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info, lju, ljv), \
                      (ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, work, &q_, rwork, info, lju, ljv)) \
    }

/* geev: real with WR and WI; complex with W and RWORK */
#define GS_GLUE_geev(ID, P, sym, conv, bits) GS_GLUE_geev_##P(sym, GS_INT_##bits)
#define GS_GLUE_geev_S GS_GLUE_geev_D
#define GS_GLUE_geev_C GS_GLUE_geev_Z
#define GS_GLUE_geev_D(sym, I) \
    GS_EXPORT void sym(const char *jl, const char *jr, const I *n, void *a, const I *lda, void *wr, void *wi, \
                       void *vl, const I *ldvl, void *vr, const I *ldvr, void *work, const I *lwork, I *info, \
                       size_t ljl, size_t ljr) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_geev(&p, GS_E_##sym, *jl, *jr, *n, a, *lda, wr, wi, vl, *ldvl, vr, *ldvr, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (jl, jr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, lwork, info, ljl, ljr), \
                      (jl, jr, n, a, lda, wr, wi, vl, ldvl, vr, ldvr, work, &q_, info, ljl, ljr)) \
    }
#define GS_GLUE_geev_Z(sym, I) \
    GS_EXPORT void sym(const char *jl, const char *jr, const I *n, void *a, const I *lda, void *w, void *vl, \
                       const I *ldvl, void *vr, const I *ldvr, void *work, const I *lwork, void *rwork, I *info, \
                       size_t ljl, size_t ljr) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_geev(&p, GS_E_##sym, *jl, *jr, *n, a, *lda, w, NULL, vl, *ldvl, vr, *ldvr, work, *lwork, info); \
        GS_LGLUE_TAIL(sym, I, (jl, jr, n, a, lda, w, vl, ldvl, vr, ldvr, work, lwork, rwork, info, ljl, ljr), \
                      (jl, jr, n, a, lda, w, vl, ldvl, vr, ldvr, work, &q_, rwork, info, ljl, ljr)) \
    }

#define GS_GLUE_trtrs(ID, P, sym, conv, bits) GS_GLUE_trtrs_(sym, GS_INT_##bits)
#define GS_GLUE_trtrs_(sym, I) \
    GS_EXPORT void sym(const char *uplo, const char *tr, const char *diag, const I *n, const I *nrhs, const void *a, \
                       const I *lda, void *b, const I *ldb, I *info, size_t luplo, size_t ltr, size_t ldiag) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_tri(&p, GS_E_##sym, *uplo, *tr, *diag, *n, *nrhs, (void *)a, *lda, b, *ldb, info); \
        GS_LGLUE_TAIL0(sym, (uplo, tr, diag, n, nrhs, a, lda, b, ldb, info, luplo, ltr, ldiag)) \
    }

#define GS_GLUE_trtri(ID, P, sym, conv, bits) GS_GLUE_trtri_(sym, GS_INT_##bits)
#define GS_GLUE_trtri_(sym, I) \
    GS_EXPORT void sym(const char *uplo, const char *diag, const I *n, void *a, const I *lda, I *info, size_t luplo, \
                       size_t ldiag) \
    { \
        GS_LGLUE_BEGIN \
        gs_lapack_tri(&p, GS_E_##sym, *uplo, 'N', *diag, *n, 0, a, *lda, NULL, 1, info); \
        GS_LGLUE_TAIL0(sym, (uplo, diag, n, a, lda, info, luplo, ldiag)) \
    }

#endif

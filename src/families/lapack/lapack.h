/* LAPACK calls in one normalised form: every precision and symbol spelling of a routine fills one gs_lapack_t
 * (upper-case option letters, 64-bit sizes, the caller's integer width noted for pivots and INFO), which the
 * one dispatcher (dispatch/dispatch.h) takes with the family's descriptor.  The CPU path is always the CPU
 * library's own routine with the original arguments, so that its results, INFO codes and argument errors
 * (xerbla) are LAPACK's own. */
#ifndef GS_LAPACK_H
#define GS_LAPACK_H

#include <string.h>

#include "dispatch/dispatch.h"

typedef struct {
    uint8_t op, prec;  /* gs_op_t, gs_prec_t: from the routine table */
    bool valid;        /* false when any argument other than a workspace size is invalid */
    bool ilp64;        /* pivots and INFO are 64-bit integers */
    bool has_work;     /* the routine takes WORK and LWORK: the glue makes the CPU library's workspace query */
    char job1, job2;   /* jobz, or jobu and jobvt, or jobvl and jobvr; 0 when unused */
    char side, uplo, trans, diag;
    int64_t m, n, k, nrhs;
    void *a, *b;       /* A; B (or C for ormqr) */
    int64_t lda, ldb;
    void *ipiv;        /* pivots, 1-based, in the caller's integer width */
    void *tau;         /* Householder scalars */
    void *w, *wi;      /* eigenvalues or singular values (real for sy/he/svd); wr and wi of real geev */
    void *u, *vt;      /* U and VT of an SVD; VL and VR of geev */
    int64_t ldu, ldvt;
    double rcond;      /* gelsd: singular values at or below rcond times the largest count as zero */
    void *rank;        /* gelsd: the effective rank, in the caller's integer width */
    void *work, *rwork, *iwork; /* the caller's workspace: after the query they hold the optimal sizes */
    int64_t lwork, lrwork, liwork; /* -1 asks for a workspace query; 0 when the routine has no such size */
    void *info;
    /* syevr and syevx: RANGE, the interval (VL, VU] or the indexes IL to IU, M (eigenvalues found), and ISUPPZ
     * (syevr) or IFAIL (syevx); Z and LDZ are u and ldu */
    char range;
    double vl, vu;
    int64_t il, iu;
    void *found, *support;
    bool herm;         /* sytrf, sytrs, sysv: the Hermitian form (he*) of a complex routine */
    /* A call on NumPy's arrays (gpushim_linalg, arrays.c): A is read only, stored as ta ('N', or 'T' for its
     * transpose), B (gesv, getrs, potrs) is read into a device copy through op(tb), and the result is written
     * through op(tx) into X, another array, and clear ('U' or 'L') is the triangle of X set to zero after
     * (potrf); trans and uplo are those of A as it is stored, but for getrs and potrs, which transpose a stored
     * A on the device first (trans: SciPy's transposition of the system).  ipiv holds SciPy's pivots, int32 and
     * 0-based, incp elements apart (getrf's output, getrs's input); cond: X, once written, is handed back when A
     * is ill-conditioned or nearly (scipy.linalg.inv, cuda_arrays.c); finite: the call is handed back, nothing
     * written, when A or B holds an infinity or a NaN, which the device looks for once they are uploaded.  The SVD
     * (gesdd): X is U and vt Vh, written through op(tv); trans 'T' when the device factors A^T (a wide A), w the
     * singular values.  The QR (geqrf): X is R and vt Q (job2 'V'), k their min(m, n) or m (job1 'A').  Least
     * squares (gelsd): X max(m, n) x nrhs, gelsd's B, w the singular values, rank an int32 */
    bool arrays, cond, finite;
    char ta, tb, tx, tv, clear;
    void *x;
    int64_t ldx, incp;
} gs_lapack_t;

/* What syevr and syevx take besides the symmetric eigensolver's arguments, as their entries pass it. */
typedef struct {
    char jobz, range, uplo;
    double vl, vu;
    int64_t il, iu;
    void *m, *z;
    int64_t ldz;
    void *support;
} gs_eigx_t;

/* What every operation has (zeroed besides): each fill function sets the rest. */
static inline void gs_lapack_start(gs_lapack_t *p, unsigned e, void *a, int64_t lda, void *info)
{
    memset(p, 0, sizeof *p);
    const gs_routine_info_t *r = &gs_routines[gs_entries[e].routine];
    p->op = r->op;
    p->prec = r->prec;
    p->ilp64 = gs_entries[e].ilp64;
    p->a = a, p->lda = lda, p->info = info;
}

/* Helpers of the fill functions: an option letter in upper case, bounds, and whether ch is one of set. */
static inline char gs_up(char ch) { return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch; }
static inline int64_t gs_max1(int64_t v) { return v > 1 ? v : 1; }
static inline int64_t gs_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t gs_max(int64_t a, int64_t b) { return a > b ? a : b; }
static inline bool gs_in(char ch, const char *set) { return ch && strchr(set, ch) != NULL; }

/* Fill functions, one per operation family; option arguments are the caller's letters. */
GS_HIDDEN void gs_lapack_lu(gs_lapack_t *p, unsigned e, char trans, int64_t m, int64_t n, int64_t nrhs, void *a,
                            int64_t lda, void *ipiv, void *b, int64_t ldb, void *work, int64_t lwork, void *info);
GS_HIDDEN void gs_lapack_chol(gs_lapack_t *p, unsigned e, char uplo, int64_t n, int64_t nrhs, void *a, int64_t lda,
                              void *b, int64_t ldb, void *info);
GS_HIDDEN void gs_lapack_qr(gs_lapack_t *p, unsigned e, char side, char trans, int64_t m, int64_t n, int64_t k,
                            int64_t nrhs, void *a, int64_t lda, void *tau, void *b, int64_t ldb, void *work,
                            int64_t lwork, void *info);
GS_HIDDEN void gs_lapack_ls(gs_lapack_t *p, unsigned e, int64_t m, int64_t n, int64_t nrhs, void *a, int64_t lda,
                            void *b, int64_t ldb, void *s, double rcond, void *rank, void *work, int64_t lwork,
                            void *info);
GS_HIDDEN void gs_lapack_eigh(gs_lapack_t *p, unsigned e, char jobz, char uplo, int64_t n, void *a, int64_t lda,
                              void *w, void *work, int64_t lwork, void *rwork, int64_t lrwork, void *iwork,
                              int64_t liwork, void *info);
GS_HIDDEN void gs_lapack_svd(gs_lapack_t *p, unsigned e, char jobu, char jobvt, int64_t m, int64_t n, void *a,
                             int64_t lda, void *s, void *u, int64_t ldu, void *vt, int64_t ldvt, void *work,
                             int64_t lwork, void *info);
GS_HIDDEN void gs_lapack_geev(gs_lapack_t *p, unsigned e, char jobvl, char jobvr, int64_t n, void *a, int64_t lda,
                              void *w, void *wi, void *vl, int64_t ldvl, void *vr, int64_t ldvr, void *work,
                              int64_t lwork, void *info);
GS_HIDDEN void gs_lapack_tri(gs_lapack_t *p, unsigned e, char uplo, char trans, char diag, int64_t n, int64_t nrhs,
                             void *a, int64_t lda, void *b, int64_t ldb, void *info);

/* The drivers (drivers.c): syevr and syevx; sytrf, sytrs and sysv (nrhs 0 and b NULL for sytrf); and the
 * routines that always run on the CPU (gees, gelsy, geevx), described by their sizes and two option letters. */
GS_HIDDEN void gs_lapack_eigx(gs_lapack_t *p, unsigned e, gs_eigx_t x, int64_t n, void *a, int64_t lda, void *w,
                              void *work, int64_t lwork, void *rwork, int64_t lrwork, void *iwork, int64_t liwork,
                              void *info);
GS_HIDDEN void gs_lapack_sym(gs_lapack_t *p, unsigned e, char uplo, int64_t n, int64_t nrhs, void *a, int64_t lda,
                             void *ipiv, void *b, int64_t ldb, void *work, int64_t lwork, void *info);
GS_HIDDEN void gs_lapack_cpu(gs_lapack_t *p, unsigned e, char job1, char job2, int64_t m, int64_t n, int64_t nrhs,
                             void *a, int64_t lda, void *info);
/* Why a valid call of a driver cannot run on the GPU exactly, or NULL (gs_lapack_family's check). */
GS_HIDDEN const char *gs_lapack_driver_exact(const gs_lapack_t *p);
/* A driver's matrices, as gs_lapack_family's operands gives them (their number), and its flops. */
GS_HIDDEN int gs_lapack_driver_matrices(const gs_lapack_t *p, gs_operand_t o[4], uint8_t *scratch_only);
GS_HIDDEN double gs_lapack_driver_flops(const gs_lapack_t *p);

/* Whether LAPACK's SVD or least squares would treat the m x n matrix x (leading dimension ld) apart: zero, near
 * underflow or overflow, or with a NaN (lapack.c). */
GS_HIDDEN bool gs_lapack_needs_scaling(const gs_lapack_t *p, const void *x, int64_t m, int64_t n, int64_t ld);

/* Element i of an integer array in the caller's width. */
static inline int64_t gs_lapack_int(const gs_lapack_t *p, const void *v, int64_t i)
{
    return p->ilp64 ? ((const int64_t *)v)[i] : ((const int32_t *)v)[i];
}
static inline void gs_lapack_set_int(const gs_lapack_t *p, void *v, int64_t i, int64_t x)
{
    if (p->ilp64)
        ((int64_t *)v)[i] = x;
    else
        ((int32_t *)v)[i] = (int32_t)x;
}

/* The LAPACK family's descriptor for the dispatcher (dispatch/dispatch.h).  A routine with a workspace goes to
 * the GPU only after the CPU library's own workspace query (GS_RUN_QUERY), which leaves the optimal sizes in
 * WORK(1), RWORK(1) and IWORK(1) as the routine itself would on exit; a caller's workspace below them keeps
 * the call on the CPU. */
GS_HIDDEN extern const gs_family_t gs_lapack_family;

#endif

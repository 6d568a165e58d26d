/* The bounds of gpushim's writes into user memory (src/WRITES.md), checked with guard bands: each array a call
 * is given lies between two bands of canary bytes, its leading-dimension padding holds canary bytes too, and
 * the elements the routine leaves alone (the other triangle, the gaps of a strided vector or transform, the
 * eigenvalues past the M found, a workspace past its first element) hold data.  After each call every byte
 * outside what the call may write must be as it was; at the end, every byte of every array must be as it was
 * when its call returned, so that a copy landing after the call returned fails too.  Calls go through one
 * symbol spelling (spelling.h), so that pivots, INFO, ranks and counts are written in the caller's width.
 *
 *   bounds [cpu] [corrupt] GROUP...   GROUP: blas, lapack, fft, large (a long column in parts, registered
 *                                     memory), split (calls that GPUSHIM_DEVICES splits)
 * Prints "FAIL: CASE: ARRAY: ..." per array written out of bounds, then "gpu_expected=N" (the calls that run on
 * the GPU under GPUSHIM_OFFLOAD=always) and "bounds: C cases, V violations"; exit status 1 on any violation.
 * cpu: the CPU library's bounds, which take a whole workspace, where gpushim's GPU path writes its first
 * element only (the control, without the shim).  corrupt: the program writes one byte past each output's
 * bound itself after the call, and one byte of each array at the end, so that every case must fail. */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "spelling.h"

typedef blasint I;
typedef size_t L; /* the hidden lengths of Fortran strings */

/* ---- BLAS and LAPACK, in the spelling's symbols ---- */
void F77(sgemm)(const char *, const char *, const I *, const I *, const I *, const float *, const float *,
                const I *, const float *, const I *, const float *, float *, const I *, L, L);
void F77(dgemm)(const char *, const char *, const I *, const I *, const I *, const double *, const double *,
                const I *, const double *, const I *, const double *, double *, const I *, L, L);
void F77(zgemm)(const char *, const char *, const I *, const I *, const I *, const void *, const void *,
                const I *, const void *, const I *, const void *, void *, const I *, L, L);
void CB(dgemm)(int, int, int, I, I, I, double, const void *, I, const void *, I, double, void *, I);
/* Matrices and scalars as void: the same ABI as each precision's own prototype. */
typedef void f_mm_t(const char *, const char *, const I *, const I *, const void *, const void *, const I *,
                    const void *, const I *, const void *, void *, const I *, L, L);
typedef void f_rk_t(const char *, const char *, const I *, const I *, const void *, const void *, const I *,
                    const void *, void *, const I *, L, L);
typedef void f_r2k_t(const char *, const char *, const I *, const I *, const void *, const void *, const I *,
                     const void *, const I *, const void *, void *, const I *, L, L);
typedef void f_tr_t(const char *, const char *, const char *, const char *, const I *, const I *, const void *,
                    const void *, const I *, void *, const I *, L, L, L, L);
extern f_mm_t F77(dsymm), F77(zhemm);
extern f_rk_t F77(dsyrk), F77(zherk);
extern f_r2k_t F77(dsyr2k), F77(zher2k);
extern f_tr_t F77(dtrmm), F77(dtrsm), F77(ztrsm);
typedef void f_gemv_t(const char *, const I *, const I *, const void *, const void *, const I *, const void *,
                      const I *, const void *, void *, const I *, L);
extern f_gemv_t F77(dgemv), F77(zgemv);
void F77(dcopy)(const I *, const double *, const I *, double *, const I *);
void F77(zcopy)(const I *, const void *, const I *, void *, const I *);

typedef void f_getrf_t(const I *, const I *, void *, const I *, I *, I *);
extern f_getrf_t F77(dgetrf), F77(zgetrf);
void F77(dgetrs)(const char *, const I *, const I *, const double *, const I *, const I *, double *, const I *,
                 I *, L);
void F77(dgesv)(const I *, const I *, double *, const I *, I *, double *, const I *, I *);
void F77(dgetri)(const I *, double *, const I *, const I *, double *, const I *, I *);
void F77(dpotrf)(const char *, const I *, double *, const I *, I *, L);
void F77(dpotrs)(const char *, const I *, const I *, const double *, const I *, double *, const I *, I *, L);
void F77(dposv)(const char *, const I *, const I *, double *, const I *, double *, const I *, I *, L);
void F77(dpotri)(const char *, const I *, double *, const I *, I *, L);
void F77(dgeqrf)(const I *, const I *, double *, const I *, double *, double *, const I *, I *);
void F77(dorgqr)(const I *, const I *, const I *, double *, const I *, const double *, double *, const I *, I *);
void F77(dormqr)(const char *, const char *, const I *, const I *, const I *, const double *, const I *,
                 const double *, double *, const I *, double *, const I *, I *, L, L);
void F77(dgels)(const char *, const I *, const I *, const I *, double *, const I *, double *, const I *, double *,
                const I *, I *, L);
void F77(dgelsd)(const I *, const I *, const I *, double *, const I *, double *, const I *, double *,
                 const double *, I *, double *, const I *, I *, I *);
void F77(dsyev)(const char *, const char *, const I *, double *, const I *, double *, double *, const I *, I *, L,
                L);
void F77(dsyevd)(const char *, const char *, const I *, double *, const I *, double *, double *, const I *, I *,
                 const I *, I *, L, L);
void F77(zheevd)(const char *, const char *, const I *, void *, const I *, double *, void *, const I *, double *,
                 const I *, I *, const I *, I *, L, L);
void F77(dgesvd)(const char *, const char *, const I *, const I *, double *, const I *, double *, double *,
                 const I *, double *, const I *, double *, const I *, I *, L, L);
void F77(dgesdd)(const char *, const I *, const I *, double *, const I *, double *, double *, const I *, double *,
                 const I *, double *, const I *, I *, I *, L);
void F77(dgeev)(const char *, const char *, const I *, double *, const I *, double *, double *, double *, const I *,
                double *, const I *, double *, const I *, I *, L, L);
void F77(dtrtrs)(const char *, const char *, const char *, const I *, const I *, const double *, const I *,
                 double *, const I *, I *, L, L, L);
void F77(dtrtri)(const char *, const char *, const I *, double *, const I *, I *, L, L);
void F77(dsyevr)(const char *, const char *, const char *, const I *, double *, const I *, const double *,
                 const double *, const I *, const I *, const double *, I *, double *, double *, const I *, I *,
                 double *, const I *, I *, const I *, I *, L, L, L);
void F77(dsyevx)(const char *, const char *, const char *, const I *, double *, const I *, const double *,
                 const double *, const I *, const I *, const double *, I *, double *, double *, const I *,
                 double *, const I *, I *, I *, I *, L, L, L);
void F77(dsytrf)(const char *, const I *, double *, const I *, I *, double *, const I *, I *, L);
void F77(dsytrs)(const char *, const I *, const I *, const double *, const I *, const I *, double *, const I *,
                 I *, L);
void F77(dsysv)(const char *, const I *, const I *, double *, const I *, I *, double *, const I *, double *,
                const I *, I *, L);

/* ---- arrays between guard bands (guard.h): INFO, integers and workspaces in the spelling's width ---- */
static int cpu; /* the CPU library's bounds: whole workspaces */

/* INFO, or another integer the call writes once (a rank, M), in the caller's width. */
static I *one_int(const char *name)
{
    I *p = arr(name, sizeof(I));
    may(p, 0, sizeof(I));
    return p;
}
/* n integers, of which the first w are the call's to write. */
static I *ints(const char *name, I n, I w)
{
    I *p = arr(name, (size_t)n * sizeof(I));
    may(p, 0, (size_t)w * sizeof(I));
    return p;
}
/* A workspace of at least n elements of es bytes: its first element is the workspace query's answer, the rest
 * only the CPU library's. */
static void *work(const char *name, double n, size_t es, I *lwork)
{
    *lwork = n < 1 ? 1 : (I)n;
    void *p = arr(name, (size_t)*lwork * es);
    fill(p, es, *lwork, 1, *lwork, 0);
    may(p, 0, cpu ? (size_t)*lwork * es : es);
    return p;
}

/* INFO after a call that should have succeeded (else it ran on the CPU: gpu_expected is then wrong). */
static void info_ok(const I *info)
{
    if (*info != 0)
        printf("note: %s: INFO = %ld\n", label, (long)*info);
}

/* ---- BLAS: every output of a Level-3 routine and of gemv; the strided copies ---- */
static const double al[2] = {1.5, -0.5}, be[2] = {0.5, 0.25}, zero[2] = {0, 0};

/* C = alpha op(A) op(B) + beta C, C of m x n with 5 rows of padding; beta 0 writes C without reading it. */
static void gemm_case(const char *l, char ta, char tb, int beta0)
{
    I m = 31, n = 24, k = 9, lda = (ta == 'N' ? m : k) + 2, ldb = (tb == 'N' ? k : n) + 1, ldc = m + 5;
    begin(l);
    double *a = mat("A", 8, ta == 'N' ? m : k, ta == 'N' ? k : m, lda, 0);
    double *b = mat("B", 8, tb == 'N' ? k : n, tb == 'N' ? n : k, ldb, 0), *c = mat("C", 8, m, n, ldc, 0);
    may_mat(c, 8, m, n, ldc);
    arm();
    F77(dgemm)(&ta, &tb, &m, &n, &k, al, a, &lda, b, &ldb, beta0 ? zero : be, c, &ldc, 1, 1);
    done(1);
}

/* symm (cplx 0) or hemm (1): C, m x n. */
static void mm_case(const char *l, int cplx, char side, char uplo)
{
    I m = 31, n = 24, ka = side == 'L' ? m : n, lda = ka + 2, ldb = m + 1, ldc = m + 3;
    size_t es = cplx ? 16 : 8;
    begin(l);
    void *a = mat("A", es, ka, ka, lda, 0), *b = mat("B", es, m, n, ldb, 0), *c = mat("C", es, m, n, ldc, 0);
    may_mat(c, es, m, n, ldc);
    arm();
    (cplx ? F77(zhemm) : F77(dsymm))(&side, &uplo, &m, &n, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
    done(1);
}

/* syrk or herk (two 0), syr2k or her2k (1): C's triangle uplo; the other holds data, which must come back as it
 * was. */
static void rk_case(const char *l, int cplx, int two, char uplo, char tr)
{
    I n = 24, k = 9, r = tr == 'N' ? n : k, c_ = tr == 'N' ? k : n, lda = r + 2, ldb = r + 1, ldc = n + 3;
    size_t es = cplx ? 16 : 8;
    begin(l);
    void *a = mat("A", es, r, c_, lda, 0), *b = mat("B", es, r, c_, ldb, 0), *c = mat("C", es, n, n, ldc, 0);
    may_tri(c, es, uplo, n, ldc, 0);
    arm();
    if (two)
        (cplx ? F77(zher2k) : F77(dsyr2k))(&uplo, &tr, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
    else
        (cplx ? F77(zherk) : F77(dsyrk))(&uplo, &tr, &n, &k, al, a, &lda, be, c, &ldc, 1, 1);
    done(1);
}

/* trmm (solve 0) or trsm (1), opt the letters side, uplo, transa, diag: B, m x n, in place. */
static void tr_case(const char *l, int cplx, int solve, const char *opt)
{
    I m = 31, n = 24, ka = opt[0] == 'L' ? m : n, lda = ka + 2, ldb = m + 3;
    size_t es = cplx ? 16 : 8;
    begin(l);
    void *a = mat("A", es, ka, ka, lda, solve ? 4 : 0), *b = mat("B", es, m, n, ldb, 0);
    may_mat(b, es, m, n, ldb);
    arm();
    f_tr_t *f = cplx ? F77(ztrsm) : solve ? F77(dtrsm) : F77(dtrmm);
    f(opt, opt + 1, opt + 2, opt + 3, &m, &n, al, a, &lda, b, &ldb, 1, 1, 1, 1);
    done(1);
}

static void level3(void)
{
    I m = 31, n = 24, k = 9;
    gemm_case("dgemm NN, beta 0", 'N', 'N', 1);
    gemm_case("dgemm TN, beta 0.5", 'T', 'N', 0);
    gemm_case("dgemm NT, beta 0.5", 'N', 'T', 0);
    { /* row-major: C is m rows of n elements, ldc apart */
        I lda = k + 1, ldb = n + 2, ldc = n + 3;
        begin("cblas_dgemm row-major, beta 0.5");
        double *a = mat("A", 8, k, m, lda, 0), *b = mat("B", 8, n, k, ldb, 0), *c = mat("C", 8, n, m, ldc, 0);
        may_mat(c, 8, n, m, ldc);
        arm();
        CB(dgemm)(101, 111, 111, m, n, k, 1.5, a, lda, b, ldb, 0.5, c, ldc);
        done(1);
    }
    {
        I lda = m + 1, ldb = n + 2, ldc = m + 4;
        begin("zgemm NC, beta (0.5, 0.25)");
        void *a = mat("A", 16, m, k, lda, 0), *b = mat("B", 16, n, k, ldb, 0), *c = mat("C", 16, m, n, ldc, 0);
        may_mat(c, 16, m, n, ldc);
        arm();
        F77(zgemm)("N", "C", &m, &n, &k, al, a, &lda, b, &ldb, be, c, &ldc, 1, 1);
        done(1);
    }
    mm_case("dsymm LU", 0, 'L', 'U');
    mm_case("zhemm RL", 1, 'R', 'L');
    rk_case("dsyrk UN", 0, 0, 'U', 'N');
    rk_case("dsyrk LT", 0, 0, 'L', 'T');
    rk_case("zherk UC", 1, 0, 'U', 'C');
    rk_case("dsyr2k LN", 0, 1, 'L', 'N');
    rk_case("zher2k UN", 1, 1, 'U', 'N');
    tr_case("dtrmm LUNN", 0, 0, "LUNN");
    tr_case("dtrsm RLTU", 0, 1, "RLTU");
    tr_case("ztrsm LUCN", 1, 1, "LUCN");
}

/* gemv (zgemv where cplx): y, its elements incy apart; the elements between are the program's. */
static void gemv_case(const char *l, int cplx, char tr, I incy)
{
    I m = 31, n = 24, lda = m + 2, incx = 2, lx = tr == 'N' ? n : m, ly = tr == 'N' ? m : n;
    I sx = (lx - 1) * incx + 1, sy = (ly - 1) * incy + 1;
    size_t es = cplx ? 16 : 8;
    begin(l);
    void *a = mat("A", es, m, n, lda, 0), *x = mat("x", es, sx, 1, sx, 0), *y = mat("y", es, sy, 1, sy, 0);
    may_vec(y, es, ly, incy);
    arm();
    (cplx ? F77(zgemv) : F77(dgemv))(&tr, &m, &n, al, a, &lda, x, &incx, be, y, &incy, 1);
    done(1);
}

/* The large strided copies, on the team's threads (never the GPU): y's elements, inc apart, from its lowest
 * address whatever the sign of inc. */
static void copies(void)
{
    static const I cases_[][3] = {{3000, 1, 64}, {3000, 64, -40}};
    for (int i = 0; i < 2; i++) {
        I n = cases_[i][0], incx = cases_[i][1], incy = cases_[i][2], sx = (n - 1) * abs((int)incx) + 1;
        I sy = (n - 1) * abs((int)incy) + 1;
        begin(i ? "zcopy incx 64, incy -40" : "dcopy incx 1, incy 64");
        size_t es = i ? 16 : 8;
        void *x = mat("x", es, sx, 1, sx, 0), *y = mat("y", es, sy, 1, sy, 0);
        may_vec(y, es, n, abs((int)incy));
        arm();
        if (i)
            F77(zcopy)(&n, x, &incx, y, &incy);
        else
            F77(dcopy)(&n, x, &incx, y, &incy);
        done(0);
    }
}

static void blas_group(void)
{
    level3();
    gemv_case("dgemv N, incy 3", 0, 'N', 3);
    gemv_case("zgemv T, incy 2", 1, 'T', 2);
    copies();
}

/* ---- LAPACK: the matrices, pivots, INFO, ranks, counts, vectors and workspace answers ---- */
enum { M = 31, N = 24, R = 5 }; /* rows, columns, right-hand sides */

/* The optimal LWORK of a routine, by its own workspace query (which stays on the CPU). */
#define QUERY(call) \
    ({ \
        double q_[2] = {0, 0}; \
        I m1_ = -1, qi_[4] = {0, 0, 0, 0}, qinfo_ = 0; \
        (void)m1_, (void)qi_; \
        call; \
        q_[0]; \
    })

/* getrf (zgetrf where cplx): A, m x n, and min(m, n) pivots, into *piv for the solves after it. */
static void *getrf_case(const char *l, int cplx, I m, I n, I **piv)
{
    I ld = m + 3, mn = m < n ? m : n;
    size_t es = cplx ? 16 : 8;
    begin(l);
    void *a = mat("A", es, m, n, ld, 4);
    I *ipiv = ints("IPIV", mn, mn), *info = one_int("INFO");
    may_mat(a, es, m, n, ld);
    arm();
    (cplx ? F77(zgetrf) : F77(dgetrf))(&m, &n, a, &ld, ipiv, info);
    info_ok(info);
    done(1);
    *piv = ipiv;
    return a;
}

/* A solve with the factor an earlier case made, A and IPIV read only ('g' getrs, 'p' potrs and 't' trtrs with
 * potrf's upper factor, 's' sytrs): B, n x nrhs. */
static void solve_case(const char *l, char which, const double *a, const I *piv)
{
    I n = N, r = R, lda = N + 3, ldb = N + 2;
    begin(l);
    double *b = mat("B", 8, n, r, ldb, 0);
    I *info = one_int("INFO");
    may_mat(b, 8, n, r, ldb);
    arm();
    if (which == 'g')
        F77(dgetrs)("N", &n, &r, a, &lda, piv, b, &ldb, info, 1);
    else if (which == 'p')
        F77(dpotrs)("U", &n, &r, a, &lda, b, &ldb, info, 1);
    else if (which == 't')
        F77(dtrtrs)("U", "N", "N", &n, &r, a, &lda, b, &ldb, info, 1, 1, 1);
    else
        F77(dsytrs)("L", &n, &r, a, &lda, piv, b, &ldb, info, 1);
    info_ok(info);
    done(1);
}

static void lu_cases(void)
{
    I n = N, r = R, lda = N + 3, ldb = N + 2, *piv, *info;
    getrf_case("dgetrf 31 x 24", 0, M, N, &piv);
    getrf_case("dgetrf 24 x 31", 0, N, M, &piv);
    getrf_case("zgetrf 24 x 24", 1, N, N, &piv);
    double *lu = getrf_case("dgetrf 24 x 24, for getrs and getri", 0, N, N, &piv);
    solve_case("dgetrs N", 'g', lu, piv);
    begin("dgetri");
    double *inv = copy("A", lu, (size_t)lda * N * 8);
    I lw;
    double opt = QUERY(F77(dgetri)(&n, inv, &lda, piv, q_, &m1_, &qinfo_));
    double *w = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_mat(inv, 8, n, n, lda);
    arm();
    F77(dgetri)(&n, inv, &lda, piv, w, &lw, info);
    info_ok(info);
    done(1);
    begin("dgesv");
    double *a = mat("A", 8, n, n, lda, 4), *b = mat("B", 8, n, r, ldb, 0);
    I *ipiv = ints("IPIV", N, N);
    info = one_int("INFO");
    may_mat(a, 8, n, n, lda), may_mat(b, 8, n, r, ldb);
    arm();
    F77(dgesv)(&n, &r, a, &lda, ipiv, b, &ldb, info);
    info_ok(info);
    done(1);
}

/* Cholesky: A's other triangle holds data, which comes back as it was. */
static void chol_cases(void)
{
    I n = N, r = R, lda = N + 3, ldb = N + 2;
    begin("dpotrf U");
    double *u = mat("A", 8, n, n, lda, N);
    I *info = one_int("INFO");
    may_tri(u, 8, 'U', n, lda, 0);
    arm();
    F77(dpotrf)("U", &n, u, &lda, info, 1);
    info_ok(info);
    done(1);
    solve_case("dpotrs U", 'p', u, NULL);
    solve_case("dtrtrs UNN, potrf's factor", 't', u, NULL);
    begin("dpotri U");
    double *inv = copy("A", u, (size_t)lda * N * 8);
    info = one_int("INFO");
    may_tri(inv, 8, 'U', n, lda, 0);
    arm();
    F77(dpotri)("U", &n, inv, &lda, info, 1);
    info_ok(info);
    done(1);
    begin("dposv L");
    double *a = mat("A", 8, n, n, lda, N), *b = mat("B", 8, n, r, ldb, 0);
    info = one_int("INFO");
    may_tri(a, 8, 'L', n, lda, 0), may_mat(b, 8, n, r, ldb);
    arm();
    F77(dposv)("L", &n, &r, a, &lda, b, &ldb, info, 1);
    info_ok(info);
    done(1);
}

/* QR: TAU's min(m, n) scalars; orgqr's and ormqr's read only. */
static void qr_cases(void)
{
    I m = M, n = N, r = R, lda = M + 3, ldc = M + 2, lw;
    begin("dgeqrf 31 x 24");
    double *a = mat("A", 8, m, n, lda, 0), *tau = arr("TAU", (N + 4) * 8);
    double opt = QUERY(F77(dgeqrf)(&m, &n, a, &lda, q_, q_, &m1_, &qinfo_));
    double *w = work("WORK", opt, 8, &lw);
    I *info = one_int("INFO");
    may_mat(a, 8, m, n, lda), may(tau, 0, N * 8);
    arm();
    F77(dgeqrf)(&m, &n, a, &lda, tau, w, &lw, info);
    info_ok(info);
    done(1);
    begin("dorgqr 31 x 24 (TAU read only)");
    double *q = copy("A", a, (size_t)lda * N * 8);
    opt = QUERY(F77(dorgqr)(&m, &n, &n, q, &lda, tau, q_, &m1_, &qinfo_));
    w = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_mat(q, 8, m, n, lda);
    arm();
    F77(dorgqr)(&m, &n, &n, q, &lda, tau, w, &lw, info);
    info_ok(info);
    done(1);
    begin("dormqr LT (A and TAU read only)");
    double *c = mat("C", 8, m, r, ldc, 0);
    opt = QUERY(F77(dormqr)("L", "T", &m, &r, &n, a, &lda, tau, c, &ldc, q_, &m1_, &qinfo_, 1, 1));
    w = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_mat(c, 8, m, r, ldc);
    arm();
    F77(dormqr)("L", "T", &m, &r, &n, a, &lda, tau, c, &ldc, w, &lw, info, 1, 1);
    info_ok(info);
    done(1);
}

/* Least squares: B of max(m, n) rows; gelsd's S (min(m, n)), RANK, and IWORK's first element. */
static void lstsq_cases(void)
{
    I m = M, n = N, r = R, lda = M + 3, ldb = M + 2, lw;
    begin("dgels N 31 x 24");
    double *a = mat("A", 8, m, n, lda, 0), *b = mat("B", 8, m, r, ldb, 0);
    double opt = QUERY(F77(dgels)("N", &m, &n, &r, a, &lda, b, &ldb, q_, &m1_, &qinfo_, 1));
    double *w = work("WORK", opt, 8, &lw);
    I *info = one_int("INFO");
    may_mat(a, 8, m, n, lda), may_mat(b, 8, m, r, ldb);
    arm();
    F77(dgels)("N", &m, &n, &r, a, &lda, b, &ldb, w, &lw, info, 1);
    info_ok(info);
    done(1);
    for (int wide = 0; wide < 2; wide++) {
        I rows = wide ? n : m, cols = wide ? m : n, ld = rows + 3, liw = 40 * M;
        double rcond = -1;
        begin(wide ? "dgelsd 24 x 31" : "dgelsd 31 x 24");
        a = mat("A", 8, rows, cols, ld, 0), b = mat("B", 8, M, r, ldb, 0);
        double *s = arr("S", (N + 4) * 8);
        opt = QUERY(F77(dgelsd)(&rows, &cols, &r, a, &ld, b, &ldb, q_, &rcond, qi_, q_, &m1_, qi_, &qinfo_));
        w = work("WORK", opt, 8, &lw);
        I *iw = ints("IWORK", liw, cpu ? liw : 1), *rank = one_int("RANK");
        info = one_int("INFO");
        may_mat(a, 8, rows, cols, ld), may_mat(b, 8, M, r, ldb), may(s, 0, N * 8);
        arm();
        F77(dgelsd)(&rows, &cols, &r, a, &ld, b, &ldb, s, &rcond, rank, w, &lw, iw, info);
        info_ok(info);
        done(1);
    }
}

/* Eigenvalues and vectors: W, Z's columns and ISUPPZ or IFAIL up to the M found, RWORK's and IWORK's first. */
static void eig_cases(void)
{
    I n = N, lda = N + 3, ldz = N + 2, lw, lr, li;
    begin("dsyevd V U");
    double *a = mat("A", 8, n, n, lda, 0), *w = arr("W", (N + 4) * 8);
    double q[2] = {0, 0};
    I m1 = -1, qi[2] = {0, 0}, qinfo = 0;
    F77(dsyevd)("V", "U", &n, a, &lda, w, q, &m1, qi, &m1, &qinfo, 1, 1);
    double *wk = work("WORK", q[0], 8, &lw);
    I *iw = work("IWORK", qi[0], sizeof(I), &li), *info = one_int("INFO");
    may_mat(a, 8, n, n, lda), may(w, 0, N * 8);
    arm();
    F77(dsyevd)("V", "U", &n, a, &lda, w, wk, &lw, iw, &li, info, 1, 1);
    info_ok(info);
    done(1);
    begin("dsyev N L (A's lower triangle is LAPACK's to destroy)");
    a = mat("A", 8, n, n, lda, 0), w = arr("W", (N + 4) * 8);
    double opt = QUERY(F77(dsyev)("N", "L", &n, a, &lda, q_, q_, &m1_, &qinfo_, 1, 1));
    wk = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_tri(a, 8, 'L', n, lda, 0), may(w, 0, N * 8);
    arm();
    F77(dsyev)("N", "L", &n, a, &lda, w, wk, &lw, info, 1, 1);
    info_ok(info);
    done(1);
    begin("zheevd V L");
    void *za = mat("A", 16, n, n, lda, 0);
    w = arr("W", (N + 4) * 8);
    double zq[2] = {0, 0}, rq = 0;
    F77(zheevd)("V", "L", &n, za, &lda, w, zq, &m1, &rq, &m1, qi, &m1, &qinfo, 1, 1);
    void *zw = work("WORK", zq[0], 16, &lw);
    double *rw = work("RWORK", rq, 8, &lr);
    iw = work("IWORK", qi[0], sizeof(I), &li), info = one_int("INFO");
    may_mat(za, 16, n, n, lda), may(w, 0, N * 8);
    arm();
    F77(zheevd)("V", "L", &n, za, &lda, w, zw, &lw, rw, &lr, iw, &li, info, 1, 1);
    info_ok(info);
    done(1);
    /* syevr and syevx of a range: as many of W, Z's columns and IFAIL as the M found, ISUPPZ (2 M) only for every
     * eigenvalue; Z has N columns, an upper bound, as LAPACK asks of RANGE = 'V' */
    static const struct {
        char range, x; /* x: syevx */
        I il, iu;
        double vl, vu;
        const char *l;
    } ranges[] = {{'I', 0, 3, 10, 0, 0, "dsyevr V I 3..10"}, {'A', 0, 0, 0, 0, 0, "dsyevr V A"},
                  {'V', 0, 0, 0, -0.5, 0.5, "dsyevr V V (-0.5, 0.5]"}, {'I', 1, 2, 6, 0, 0, "dsyevx V I 2..6"}};
    for (int t = 0; t < 4; t++) {
        I il = ranges[t].il, iu = ranges[t].iu;
        double vl = ranges[t].vl, vu = ranges[t].vu, abstol = 0;
        char range = ranges[t].range;
        begin(ranges[t].l);
        I *found = one_int("M");
        a = mat("A", 8, n, n, lda, 0), w = arr("W", N * 8);
        double *z = mat("Z", 8, n, n, ldz, 0);
        I *sup = ints(ranges[t].x ? "IFAIL" : "ISUPPZ", 2 * N, 0);
        info = one_int("INFO");
        if (ranges[t].x) {
            opt = QUERY(F77(dsyevx)("V", &range, "U", &n, a, &lda, &vl, &vu, &il, &iu, &abstol, qi_, q_, q_, &ldz, q_,
                                    &m1_, qi_, qi_, &qinfo_, 1, 1, 1));
            wk = work("WORK", opt, 8, &lw);
            iw = ints("IWORK", 5 * N, cpu ? 5 * N : 0);
            arm();
            F77(dsyevx)("V", &range, "U", &n, a, &lda, &vl, &vu, &il, &iu, &abstol, found, w, z, &ldz, wk, &lw, iw,
                        sup, info, 1, 1, 1);
        } else {
            F77(dsyevr)("V", &range, "U", &n, a, &lda, &vl, &vu, &il, &iu, &abstol, qi, q, q, &ldz, qi, q, &m1, qi,
                        &m1, &qinfo, 1, 1, 1);
            wk = work("WORK", q[0], 8, &lw);
            iw = work("IWORK", qi[0], sizeof(I), &li);
            arm();
            F77(dsyevr)("V", &range, "U", &n, a, &lda, &vl, &vu, &il, &iu, &abstol, found, w, z, &ldz, sup, wk, &lw,
                        iw, &li, info, 1, 1, 1);
        }
        info_ok(info);
        I mf = *found < 0 || *found > N ? 0 : *found;
        may_tri(a, 8, 'U', n, lda, 0), may(w, 0, (size_t)mf * 8), may_mat(z, 8, n, mf, ldz);
        if (ranges[t].x)
            may(sup, 0, (size_t)mf * sizeof(I));
        else if (range == 'A')
            may(sup, 0, 2 * (size_t)mf * sizeof(I));
        if (cpu)
            may(w, 0, N * 8), may(sup, 0, 2 * N * sizeof(I));
        done(1);
    }
}

/* The SVD and geev: S (min(m, n)), U's and VT's columns or rows as the jobs ask, WR and WI, VR; A destroyed. */
static void svd_cases(void)
{
    I m = M, n = N, lda = M + 3, ldu = M + 2, ldvt = N + 2, lw;
    static const char jobs[][3] = {"SS", "AA", "dS", "dN"}; /* gesvd's JOBU, JOBVT; d: gesdd's JOBZ */
    for (int t = 0; t < 4; t++) {
        char l[40];
        int dd = jobs[t][0] == 'd';
        char ju = jobs[t][dd], jv = jobs[t][1];
        snprintf(l, sizeof l, dd ? "dgesdd %c" : "dgesvd %c%c", ju, jv);
        begin(strdup(l));
        I ucols = ju == 'A' ? M : ju == 'S' ? N : 0, vrows = jv == 'A' || jv == 'S' ? N : 0;
        double *a = mat("A", 8, m, n, lda, 0), *s = arr("S", (N + 4) * 8);
        double *u = mat("U", 8, m, M, ldu, 0), *vt = mat("VT", 8, n, N, ldvt, 0);
        I *iw = ints("IWORK", 8 * N, cpu ? 8 * N : 0), *info = one_int("INFO");
        double opt = dd ? QUERY(F77(dgesdd)(&ju, &m, &n, a, &lda, q_, q_, &ldu, q_, &ldvt, q_, &m1_, qi_, &qinfo_, 1))
                        : QUERY(F77(dgesvd)(&ju, &jv, &m, &n, a, &lda, q_, q_, &ldu, q_, &ldvt, q_, &m1_, &qinfo_, 1,
                                            1));
        double *wk = work("WORK", opt, 8, &lw);
        may_mat(a, 8, m, n, lda), may(s, 0, N * 8), may_mat(u, 8, m, ucols, ldu), may_mat(vt, 8, vrows, n, ldvt);
        arm();
        if (dd)
            F77(dgesdd)(&ju, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, iw, info, 1);
        else
            F77(dgesvd)(&ju, &jv, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, info, 1, 1);
        info_ok(info);
        done(1);
    }
    I ldvl = 1, ldvr = N + 2;
    begin("dgeev N V");
    double *a = mat("A", 8, n, n, lda, 0), *wr = arr("WR", (N + 4) * 8), *wi = arr("WI", (N + 4) * 8);
    double *vl = mat("VL", 8, 1, 1, 1, 0), *vr = mat("VR", 8, n, n, ldvr, 0);
    double opt = QUERY(F77(dgeev)("N", "V", &n, a, &lda, q_, q_, q_, &ldvl, q_, &ldvr, q_, &m1_, &qinfo_, 1, 1));
    double *wk = work("WORK", opt, 8, &lw);
    I *info = one_int("INFO");
    may_mat(a, 8, n, n, lda), may(wr, 0, N * 8), may(wi, 0, N * 8), may_mat(vr, 8, n, n, ldvr);
    arm();
    F77(dgeev)("N", "V", &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr, wk, &lw, info, 1, 1);
    info_ok(info);
    done(1);
}

/* Triangular: trtri writes its triangle alone (not a unit diagonal); the symmetric indefinite factorisation's N
 * pivots. */
static void tri_sym_cases(void)
{
    I n = N, r = R, lda = N + 3, ldb = N + 2, lw;
    double *a, *b;
    I *info;
    for (int t = 0; t < 2; t++) {
        char uplo = t ? 'U' : 'L', diag = t ? 'U' : 'N';
        begin(t ? "dtrtri UU" : "dtrtri LN");
        a = mat("A", 8, n, n, lda, 4);
        info = one_int("INFO");
        may_tri(a, 8, uplo, n, lda, diag == 'U');
        arm();
        F77(dtrtri)(&uplo, &diag, &n, a, &lda, info, 1, 1);
        info_ok(info);
        done(1);
    }
    begin("dsytrf L");
    a = mat("A", 8, n, n, lda, 0);
    I *ipiv = ints("IPIV", N, N);
    double opt = QUERY(F77(dsytrf)("L", &n, a, &lda, qi_, q_, &m1_, &qinfo_, 1));
    double *wk = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_mat(a, 8, n, n, lda);
    arm();
    F77(dsytrf)("L", &n, a, &lda, ipiv, wk, &lw, info, 1);
    info_ok(info);
    done(1);
    solve_case("dsytrs L", 's', a, ipiv);
    begin("dsysv U");
    a = mat("A", 8, n, n, lda, 0), b = mat("B", 8, n, r, ldb, 0);
    ipiv = ints("IPIV", N, N);
    opt = QUERY(F77(dsysv)("U", &n, &r, a, &lda, qi_, b, &ldb, q_, &m1_, &qinfo_, 1));
    wk = work("WORK", opt, 8, &lw);
    info = one_int("INFO");
    may_mat(a, 8, n, n, lda), may_mat(b, 8, n, r, ldb);
    arm();
    F77(dsysv)("U", &n, &r, a, &lda, ipiv, b, &ldb, wk, &lw, info, 1);
    info_ok(info);
    done(1);
}

static void lapack_group(void)
{
    lu_cases();
    chol_cases();
    qr_cases();
    lstsq_cases();
    eig_cases();
    svd_cases();
    tri_sym_cases();
}

/* ---- FFTW: an execute's output elements, in place or not; the gaps between them are the program's ---- */
/* Output element (b, x0, x1) of a rank-2 layout at b dist + x0 s0 + x1 s1, es bytes each. */
static void may_fft(void *out, size_t es, int batch, int dist, int n0, int s0, int n1, int s1)
{
    for (int b = 0; b < batch; b++)
        for (int x0 = 0; x0 < n0; x0++)
            for (int x1 = 0; x1 < n1; x1++)
                may(out, (size_t)(b * dist + x0 * s0 + x1 * s1) * es, es);
}

static void fft_group(void)
{
    fftw_plan p;
    {   /* two 2 x 2 transforms whose outputs overlap (distance 1): output element 3 belongs to neither */
        int n[2] = {2, 2}, onembed[2] = {2, 4};
        begin("fft c2c 2x2, 2 transforms overlapping in the output");
        void *in = arr("in", 8 * 16), *out = arr("out", 8 * 16);
        p = fftw_plan_many_dft(2, n, 2, in, NULL, 1, 4, out, onembed, 1, 1, FFTW_FORWARD, FFTW_ESTIMATE);
        fill(in, 16, 8, 1, 8, 0);
        may_fft(out, 16, 2, 1, 2, 4, 2, 1);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* 3 transforms of 64, output stride 2 and distance 130 */
        int n = 64;
        begin("fft c2c 64 x3, output stride 2");
        void *in = arr("in", 3 * 64 * 16), *out = arr("out", 3 * 130 * 16);
        p = fftw_plan_many_dft(1, &n, 3, in, NULL, 1, 64, out, &n, 2, 130, FFTW_BACKWARD, FFTW_ESTIMATE);
        fill(in, 16, 3 * 64, 1, 3 * 64, 0);
        may_fft(out, 16, 3, 130, 1, 0, 64, 2);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* r2c 6 x 10, rows of 8 complex elements of which 6 are the transform's, 2 transforms 50 apart */
        int n[2] = {6, 10}, onembed[2] = {6, 8};
        begin("fft r2c 6x10 x2, padded rows");
        void *in = arr("in", 2 * 60 * 8), *out = arr("out", 100 * 16);
        p = fftw_plan_many_dft_r2c(2, n, 2, in, NULL, 1, 60, out, onembed, 1, 50, FFTW_ESTIMATE);
        fill(in, 8, 120, 1, 120, 0);
        may_fft(out, 16, 2, 50, 6, 8, 6, 1);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* c2r of 20, 2 transforms 23 reals apart */
        int n = 20, inembed = 11, onembed = 23;
        begin("fft c2r 20 x2, 3 reals between");
        void *in = arr("in", 22 * 16), *out = arr("out", 46 * 8);
        p = fftw_plan_many_dft_c2r(1, &n, 2, in, &inembed, 1, 11, out, &onembed, 1, 23,
                                   FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
        fill(in, 16, 22, 1, 22, 0);
        may_fft(out, 8, 2, 23, 1, 0, 20, 1);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* r2c of 30 in place, 2 transforms: each row's 16 complex elements fill its 32 reals */
        int n = 30;
        begin("fft r2c 30 x2 in place");
        void *io = arr("in-out", 64 * 8);
        p = fftw_plan_many_dft_r2c(1, &n, 2, io, NULL, 1, 32, io, NULL, 1, 16, FFTW_ESTIMATE);
        fill(io, 8, 30, 2, 32, 0);
        may(io, 0, 64 * 8);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* 8 x 6 written transposed (gpushim's permutation kernels) */
        fftw_iodim dims[2] = {{8, 6, 1}, {6, 1, 8}};
        begin("fft c2c 8x6, output transposed");
        void *in = arr("in", 48 * 16), *out = arr("out", 48 * 16);
        p = fftw_plan_guru_dft(2, dims, 0, NULL, in, out, FFTW_FORWARD, FFTW_ESTIMATE);
        fill(in, 16, 48, 1, 48, 0);
        may(out, 0, 48 * 16);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
    {   /* 1030 transforms of 4096 (66 MB each way), run in 4 parts whose copies overlap (backend/cuda_fft.c) */
        int n = 4096, h = 1030;
        size_t bytes = (size_t)n * (size_t)h * 16;
        begin("fft c2c 4096 x1030 out of place, in parts");
        void *in = arr("in", bytes), *out = arr("out", bytes);
        p = fftw_plan_many_dft(1, &n, h, in, NULL, 1, n, out, NULL, 1, n, FFTW_FORWARD, FFTW_ESTIMATE);
        fill(in, 16, (int64_t)n * h, 1, (int64_t)n * h, 0);
        may(out, 0, bytes);
    }
    arm(), fftw_execute(p), fftw_destroy_plan(p), done(1);
}

/* ---- large: a column longer than a staging piece, copied back in parts; C registered at its second use ---- */
static void large_group(void)
{
    {   /* 70001 floats a column: parts of a multiple of 16 bytes, the last of one element where two threads copy */
        I m = 70001, n = 2, k = 1, ld = m + 3;
        float alpha = 1.5f, beta = 0;
        begin("sgemm, columns of 70001 floats");
        float *a = mat("A", 4, m, k, m, 0), *b = mat("B", 4, k, n, k, 0), *c = mat("C", 4, m, n, ld, 0);
        may_mat(c, 4, m, n, ld);
        arm();
        F77(sgemm)("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c, &ld, 1, 1);
        done(1);
    }
    {   /* 16.8 MB of C written twice (beta 0, so that the cache's copy is not used): registered with CUDA at the
         * second call, whose tiles the copy engine writes into it directly */
        I m = 1024, n = 2049, k = 1, ld = m + 3;
        begin("dgemm, 16.8 MB of C twice");
        double *a = mat("A", 8, m, k, m, 0), *b = mat("B", 8, k, n, k, 0), *c = mat("C", 8, m, n, ld, 0);
        may_mat(c, 8, m, n, ld);
        arm();
        for (int i = 0; i < 2; i++)
            F77(dgemm)("N", "N", &m, &n, &k, al, a, &m, b, &k, zero, c, &ld, 1, 1);
        done(2);
    }
}

/* ---- split: GEMM by C's columns and by its rows, TRSM by B's columns and by its rows (two devices) ---- */
static void split_group(void)
{
    for (int t = 0; t < 3; t++) {
        I m = t == 2 ? 4100 : 5, n = t == 2 ? 5 : 4100, k = 3, lda = m + 1, ldb = k + 2, ldc = m + 3;
        begin(t == 0 ? "dgemm 5 x 4100, beta 0" : t == 1 ? "dgemm 5 x 4100, beta 0.5" : "dgemm 4100 x 5, beta 0.5");
        double *a = mat("A", 8, m, k, lda, 0), *b = mat("B", 8, k, n, ldb, 0), *c = mat("C", 8, m, n, ldc, 0);
        may_mat(c, 8, m, n, ldc);
        arm();
        F77(dgemm)("N", "N", &m, &n, &k, al, a, &lda, b, &ldb, t ? be : zero, c, &ldc, 1, 1);
        done(1);
    }
    for (int t = 0; t < 2; t++) {
        char side = t ? 'R' : 'L';
        I m = t ? 4100 : 6, n = t ? 6 : 4100, ka = t ? n : m, lda = ka + 2, ldb = m + 3;
        begin(t ? "dtrsm R, 4100 x 6" : "dtrsm L, 6 x 4100");
        double *a = mat("A", 8, ka, ka, lda, 4), *b = mat("B", 8, m, n, ldb, 0);
        may_mat(b, 8, m, n, ldb);
        arm();
        F77(dtrsm)(&side, "U", "N", "N", &m, &n, al, a, &lda, b, &ldb, 1, 1, 1, 1);
        done(1);
    }
}

int main(int argc, char **argv)
{
    int any = 0;
    for (int i = 1; i < argc; i++) {
        const char *g = argv[i];
        cpu |= strcmp(g, "cpu") == 0, corrupt |= strcmp(g, "corrupt") == 0;
        if (strcmp(g, "blas") == 0)
            blas_group(), any = 1;
        else if (strcmp(g, "lapack") == 0)
            lapack_group(), any = 1;
        else if (strcmp(g, "fft") == 0)
            fft_group(), any = 1;
        else if (strcmp(g, "large") == 0)
            large_group(), any = 1;
        else if (strcmp(g, "split") == 0)
            split_group(), any = 1;
        else if (strcmp(g, "cpu") != 0 && strcmp(g, "corrupt") != 0)
            return fprintf(stderr, "usage: bounds [cpu] [corrupt] blas|lapack|fft|large|split...\n"), 2;
    }
    if (!any)
        return fprintf(stderr, "usage: bounds [cpu] [corrupt] blas|lapack|fft|large|split...\n"), 2;
    check_kept();
    printf("gpu_expected=%d\nbounds: %d cases, %d violations\n", gpu_expected, cases, violations);
    return violations != 0;
}

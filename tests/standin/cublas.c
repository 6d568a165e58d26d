/* Stand-in for libcublas: the Level-3 routines gpushim calls, computed by plain loops on "device" memory
 * from the stand-in runtime, in double-complex arithmetic for every precision.  Each matrix argument is
 * checked to lie inside one device allocation, and each scalar to be host memory (pointer mode host). */
#define _GNU_SOURCE
#include <complex.h>
#include <cublas_api.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

typedef double complex z_t;
enum { S, D, C, Z };

struct cublasContext {
    int magic;
    cudaStream_t stream;
};

static const size_t esize[] = {4, 8, 8, 16};

static z_t ld(int p, const void *m, int64_t i)
{
    switch (p) {
    case S: return ((const float *)m)[i];
    case D: return ((const double *)m)[i];
    case C: return CMPLX(((const float *)m)[2 * i], ((const float *)m)[2 * i + 1]);
    default: return CMPLX(((const double *)m)[2 * i], ((const double *)m)[2 * i + 1]);
    }
}

static void st(int p, void *m, int64_t i, z_t v)
{
    switch (p) {
    case S: ((float *)m)[i] = (float)creal(v); break;
    case D: ((double *)m)[i] = creal(v); break;
    case C: ((float *)m)[2 * i] = (float)creal(v), ((float *)m)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)m)[2 * i] = creal(v), ((double *)m)[2 * i + 1] = cimag(v); break;
    }
}

/* A matrix argument: p, rows, cols, ld.  Checked once per call. */
typedef struct {
    int p;
    const void *a;
    int64_t ld;
} mat_t;

static z_t at(mat_t m, int64_t i, int64_t j) { return ld(m.p, m.a, i + j * m.ld); }
static void put(mat_t m, int64_t i, int64_t j, z_t v) { st(m.p, (void *)m.a, i + j * m.ld, v); }

/* op(M)(i, j) */
static z_t opat(mat_t m, cublasOperation_t t, int64_t i, int64_t j)
{
    return t == CUBLAS_OP_N ? at(m, i, j) : t == CUBLAS_OP_T ? at(m, j, i) : conj(at(m, j, i));
}

static int check(const char *fn, const void *a, int p, int64_t rows, int64_t cols, int64_t ldm, const char *what)
{
    if (rows <= 0 || cols <= 0)
        return 0;
    if (ldm < rows)
        return -1;
    return standin_check_device(a, ((size_t)ldm * (size_t)(cols - 1) + (size_t)rows) * esize[p], fn, what);
}

/* Scalars are host memory (pointer mode host), and complex ones are aligned as cuComplex (8 bytes) and
 * cuDoubleComplex (16 bytes) require: the real cuBLAS crashes on a misaligned cuDoubleComplex. */
static int scalars(const char *fn, int p, const void *alpha, const void *beta)
{
    size_t align = p == Z ? 16 : p == C ? 8 : 1;
    int bad = standin_check_host(alpha, fn, "alpha") | (beta ? standin_check_host(beta, fn, "beta") : 0);
    if ((uintptr_t)alpha % align || (beta && (uintptr_t)beta % align)) {
        standin_violation(fn, "a complex scalar is not aligned as its CUDA type requires");
        bad = 1;
    }
    return bad;
}

static z_t scal(int p, const void *s, int real_only)
{
    z_t v = ld(p, s, 0);
    return real_only ? creal(v) : v;
}

static int handle_ok(cublasHandle_t h) { return h && h->magic == 0xb1a5; }

#define BEGIN(fn) \
    if (!handle_ok(h)) \
        return CUBLAS_STATUS_NOT_INITIALIZED; \
    if (standin_fail(fn)) \
        return CUBLAS_STATUS_EXECUTION_FAILED; \
    standin_count_blas();

cublasStatus_t cublasCreate_v2(cublasHandle_t *h)
{
    if (standin_fail("cublasCreate_v2"))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *h = calloc(1, sizeof **h);
    (*h)->magic = 0xb1a5;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s)
{
    if (!handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    default: return "CUBLAS_STATUS_UNKNOWN";
    }
}

static cublasStatus_t gemm(cublasHandle_t h, int p, const char *fn, cublasOperation_t ta, cublasOperation_t tb,
                           int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                           const void *B, int64_t ldb, const void *beta, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    if (check(fn, A, p, ta == CUBLAS_OP_N ? m : k, ta == CUBLAS_OP_N ? k : m, lda, "A") ||
        check(fn, B, p, tb == CUBLAS_OP_N ? k : n, tb == CUBLAS_OP_N ? n : k, ldb, "B") ||
        check(fn, Cm, p, m, n, ldc, "C") || scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    mat_t a = {p, A, lda}, b = {p, B, ldb}, c = {p, Cm, ldc};
    z_t al = scal(p, alpha, 0), be = scal(p, beta, 0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            z_t s = 0;
            for (int64_t l = 0; l < k; l++)
                s += opat(a, ta, i, l) * opat(b, tb, l, j);
            put(c, i, j, al * s + (be == 0 ? 0 : be * at(c, i, j)));
        }
    return CUBLAS_STATUS_SUCCESS;
}

/* Element (i, j) of the symmetric or Hermitian matrix stored in one triangle of a. */
static z_t symat(mat_t a, cublasFillMode_t uplo, int herm, int64_t i, int64_t j)
{
    int stored = uplo == CUBLAS_FILL_MODE_UPPER ? i <= j : i >= j;
    if (i == j)
        return herm ? creal(at(a, i, i)) : at(a, i, i);
    if (stored)
        return at(a, i, j);
    return herm ? conj(at(a, j, i)) : at(a, j, i);
}

static cublasStatus_t symm(cublasHandle_t h, int p, const char *fn, int herm, cublasSideMode_t side,
                           cublasFillMode_t uplo, int64_t m, int64_t n, const void *alpha, const void *A, int64_t lda,
                           const void *B, int64_t ldb, const void *beta, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    if (check(fn, A, p, ka, ka, lda, "A") || check(fn, B, p, m, n, ldb, "B") || check(fn, Cm, p, m, n, ldc, "C") ||
        scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    mat_t a = {p, A, lda}, b = {p, B, ldb}, c = {p, Cm, ldc};
    z_t al = scal(p, alpha, 0), be = scal(p, beta, 0);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            z_t s = 0;
            for (int64_t l = 0; l < ka; l++)
                s += side == CUBLAS_SIDE_LEFT ? symat(a, uplo, herm, i, l) * at(b, l, j)
                                              : at(b, i, l) * symat(a, uplo, herm, l, j);
            put(c, i, j, al * s + (be == 0 ? 0 : be * at(c, i, j)));
        }
    return CUBLAS_STATUS_SUCCESS;
}

/* syrk, herk (B NULL), syr2k and her2k: C = alpha X Y' + [conj(alpha)] Y X' + beta C on one triangle, where
 * X = op(A), Y = op(B), and ' is ^T (symmetric) or ^H (Hermitian). */
static cublasStatus_t rk(cublasHandle_t h, int p, const char *fn, int herm, cublasFillMode_t uplo,
                         cublasOperation_t t, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                         const void *B, int64_t ldb, const void *beta, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    int64_t r = t == CUBLAS_OP_N ? n : k, cols = t == CUBLAS_OP_N ? k : n;
    if (check(fn, A, p, r, cols, lda, "A") || (B && check(fn, B, p, r, cols, ldb, "B")) ||
        check(fn, Cm, p, n, n, ldc, "C") || scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    mat_t a = {p, A, lda}, b = {p, B ? B : A, B ? ldb : lda}, c = {p, Cm, ldc};
    z_t al = scal(p, alpha, herm && !B), be = scal(p, beta, herm);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            if (uplo == CUBLAS_FILL_MODE_UPPER ? i > j : i < j)
                continue;
            z_t s1 = 0, s2 = 0;
            for (int64_t l = 0; l < k; l++) {
                z_t xi = opat(a, t, i, l), yj = opat(b, t, j, l), yi = opat(b, t, i, l), xj = opat(a, t, j, l);
                s1 += xi * (herm ? conj(yj) : yj);
                s2 += yi * (herm ? conj(xj) : xj);
            }
            z_t v = B ? al * s1 + (herm ? conj(al) : al) * s2 : al * s1;
            if (be != 0) /* C is not read when beta = 0: it may hold anything, signalling NaNs too */
                v += be * (herm && i == j ? creal(at(c, i, j)) : at(c, i, j));
            put(c, i, j, herm && i == j ? creal(v) : v);
        }
    return CUBLAS_STATUS_SUCCESS;
}

/* The triangular matrix op(A) (unit diagonal when diag says so), dense, m x m. */
static z_t *tri(mat_t a, int64_t m, cublasFillMode_t uplo, cublasOperation_t t, cublasDiagType_t diag)
{
    z_t *T = calloc((size_t)(m * m), sizeof *T), *R = calloc((size_t)(m * m), sizeof *R);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++)
            if (i == j)
                T[i + j * m] = diag == CUBLAS_DIAG_UNIT ? 1 : at(a, i, i);
            else if (uplo == CUBLAS_FILL_MODE_UPPER ? i < j : i > j)
                T[i + j * m] = at(a, i, j);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < m; i++)
            R[i + j * m] = t == CUBLAS_OP_N ? T[i + j * m] : t == CUBLAS_OP_T ? T[j + i * m] : conj(T[j + i * m]);
    free(T);
    return R;
}

static cublasStatus_t trmm(cublasHandle_t h, int p, const char *fn, cublasSideMode_t side, cublasFillMode_t uplo,
                           cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                           const void *A, int64_t lda, const void *B, int64_t ldb, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    if (check(fn, A, p, ka, ka, lda, "A") || check(fn, B, p, m, n, ldb, "B") || check(fn, Cm, p, m, n, ldc, "C") ||
        scalars(fn, p, alpha, NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    mat_t a = {p, A, lda}, b = {p, B, ldb}, c = {p, Cm, ldc};
    z_t al = scal(p, alpha, 0), *T = tri(a, ka, uplo, t, diag), *R = calloc((size_t)(m * n), sizeof *R);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++) {
            z_t s = 0;
            for (int64_t l = 0; l < ka; l++)
                s += side == CUBLAS_SIDE_LEFT ? T[i + l * ka] * at(b, l, j) : at(b, i, l) * T[l + j * ka];
            R[i + j * m] = al * s;
        }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            put(c, i, j, R[i + j * m]);
    free(T);
    free(R);
    return CUBLAS_STATUS_SUCCESS;
}

/* Solves M x = r in place for a triangular M (n x n, dense); lower says which triangle holds it. */
static void solve(const z_t *M, int64_t n, int lower, z_t *r, int64_t inc)
{
    if (lower)
        for (int64_t i = 0; i < n; i++) {
            z_t s = r[i * inc];
            for (int64_t l = 0; l < i; l++)
                s -= M[i + l * n] * r[l * inc];
            r[i * inc] = s / M[i + i * n];
        }
    else
        for (int64_t i = n - 1; i >= 0; i--) {
            z_t s = r[i * inc];
            for (int64_t l = i + 1; l < n; l++)
                s -= M[i + l * n] * r[l * inc];
            r[i * inc] = s / M[i + i * n];
        }
}

static cublasStatus_t trsm(cublasHandle_t h, int p, const char *fn, cublasSideMode_t side, cublasFillMode_t uplo,
                           cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                           const void *A, int64_t lda, void *B, int64_t ldb)
{
    BEGIN(fn);
    int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    if (check(fn, A, p, ka, ka, lda, "A") || check(fn, B, p, m, n, ldb, "B") || scalars(fn, p, alpha, NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    mat_t a = {p, A, lda}, b = {p, B, ldb};
    z_t al = scal(p, alpha, 0), *M = tri(a, ka, uplo, t, diag), *X = calloc((size_t)(m * n), sizeof *X);
    int lower = (uplo == CUBLAS_FILL_MODE_LOWER) == (t == CUBLAS_OP_N);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            X[i + j * m] = al * at(b, i, j);
    if (side == CUBLAS_SIDE_LEFT) { /* M X = alpha B, column by column */
        for (int64_t j = 0; j < n; j++)
            solve(M, m, lower, X + j * m, 1);
    } else { /* X M = alpha B: M^T x^T = alpha b^T for each row x of X */
        z_t *Mt = calloc((size_t)(n * n), sizeof *Mt);
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++)
                Mt[i + j * n] = M[j + i * n];
        for (int64_t i = 0; i < m; i++)
            solve(Mt, n, !lower, X + i, m);
        free(Mt);
    }
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            put(b, i, j, X[i + j * m]);
    free(M);
    free(X);
    return CUBLAS_STATUS_SUCCESS;
}

/* The exported entries, typed as in cublas_api.h. */
#define EACH_PREC(X) X(S, float, float) X(D, double, double) X(C, cuComplex, float) X(Z, cuDoubleComplex, double)
#define EACH_COMPLEX(X) X(C, cuComplex, float) X(Z, cuDoubleComplex, double)

#define GEMM(P, T, R) \
    cublasStatus_t cublas##P##gemm_v2_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, \
                                         int64_t n, int64_t k, const T *al, const T *A, int64_t lda, const T *B, \
                                         int64_t ldb, const T *be, T *Cm, int64_t ldc) \
    { \
        return gemm(h, P, __func__, ta, tb, m, n, k, al, A, lda, B, ldb, be, Cm, ldc); \
    }
#define SYMM(P, T, R) \
    cublasStatus_t cublas##P##symm_v2_64(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int64_t m, \
                                         int64_t n, const T *al, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                         const T *be, T *Cm, int64_t ldc) \
    { \
        return symm(h, P, __func__, 0, side, uplo, m, n, al, A, lda, B, ldb, be, Cm, ldc); \
    }
#define HEMM(P, T, R) \
    cublasStatus_t cublas##P##hemm_v2_64(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, int64_t m, \
                                         int64_t n, const T *al, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                         const T *be, T *Cm, int64_t ldc) \
    { \
        return symm(h, P, __func__, 1, side, uplo, m, n, al, A, lda, B, ldb, be, Cm, ldc); \
    }
#define SYRK(P, T, R) \
    cublasStatus_t cublas##P##syrk_v2_64(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, \
                                         int64_t k, const T *al, const T *A, int64_t lda, const T *be, T *Cm, \
                                         int64_t ldc) \
    { \
        return rk(h, P, __func__, 0, uplo, t, n, k, al, A, lda, NULL, 0, be, Cm, ldc); \
    }
#define HERK(P, T, R) \
    cublasStatus_t cublas##P##herk_v2_64(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, \
                                         int64_t k, const R *al, const T *A, int64_t lda, const R *be, T *Cm, \
                                         int64_t ldc) \
    { \
        T al_c = {*al, 0}, be_c = {*be, 0}; \
        if (standin_check_host(al, __func__, "alpha") || standin_check_host(be, __func__, "beta")) \
            return CUBLAS_STATUS_INVALID_VALUE; \
        return rk(h, P, __func__, 1, uplo, t, n, k, &al_c, A, lda, NULL, 0, &be_c, Cm, ldc); \
    }
#define SYR2K(P, T, R) \
    cublasStatus_t cublas##P##syr2k_v2_64(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, \
                                          int64_t k, const T *al, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                          const T *be, T *Cm, int64_t ldc) \
    { \
        return rk(h, P, __func__, 0, uplo, t, n, k, al, A, lda, B, ldb, be, Cm, ldc); \
    }
#define HER2K(P, T, R) \
    cublasStatus_t cublas##P##her2k_v2_64(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t t, int64_t n, \
                                          int64_t k, const T *al, const T *A, int64_t lda, const T *B, int64_t ldb, \
                                          const R *be, T *Cm, int64_t ldc) \
    { \
        T be_c = {*be, 0}; \
        if (standin_check_host(be, __func__, "beta")) \
            return CUBLAS_STATUS_INVALID_VALUE; \
        return rk(h, P, __func__, 1, uplo, t, n, k, al, A, lda, B, ldb, &be_c, Cm, ldc); \
    }
#define TRMM(P, T, R) \
    cublasStatus_t cublas##P##trmm_v2_64(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                         cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, \
                                         const T *al, const T *A, int64_t lda, const T *B, int64_t ldb, T *Cm, \
                                         int64_t ldc) \
    { \
        return trmm(h, P, __func__, side, uplo, t, diag, m, n, al, A, lda, B, ldb, Cm, ldc); \
    }
#define TRSM(P, T, R) \
    cublasStatus_t cublas##P##trsm_v2_64(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo, \
                                         cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, \
                                         const T *al, const T *A, int64_t lda, T *B, int64_t ldb) \
    { \
        return trsm(h, P, __func__, side, uplo, t, diag, m, n, al, A, lda, B, ldb); \
    }

EACH_PREC(GEMM)
EACH_PREC(SYMM)
EACH_COMPLEX(HEMM)
EACH_PREC(SYRK)
EACH_COMPLEX(HERK)
EACH_PREC(SYR2K)
EACH_COMPLEX(HER2K)
EACH_PREC(TRMM)
EACH_PREC(TRSM)

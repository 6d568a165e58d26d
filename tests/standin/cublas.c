/* Stand-in for libcublas: the Level-3 routines and gemv that gpushim calls, computed by plain loops on "device"
 * memory from the stand-in runtime, in double-complex arithmetic for every precision (GEMM's and SYRK's sums of
 * real products in double, which gives the same).  Each call checks its matrices (inside one device allocation)
 * and scalars (host memory, pointer mode host) and reads the scalars at once, as cuBLAS does; the arithmetic is
 * queued on the handle's stream and runs later (standin_enqueue). */
#define _GNU_SOURCE
#include <complex.h>
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

typedef double complex z_t;
enum { S, D, C, Z };

struct cublasContext {
    int magic;
    int dev; /* the device current at cublasCreate, which every call on the handle must have current */
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
    if (h->dev != standin_current_device()) \
        standin_violation(fn, "a handle of another device than the current one"); \
    if (standin_fail(fn)) \
        return CUBLAS_STATUS_EXECUTION_FAILED; \
    standin_count_blas();

/* Loading: the real cuBLAS with cuBLASLt registers about this many exit handlers (standin.h). */
__attribute__((constructor)) static void load(void)
{
    standin_exit_handlers("cuBLAS", 12600);
}

cublasStatus_t cublasCreate_v2(cublasHandle_t *h)
{
    if (standin_fail("cublasCreate_v2"))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    *h = calloc(1, sizeof **h);
    (*h)->magic = 0xb1a5;
    (*h)->dev = standin_current_device();
    return CUBLAS_STATUS_SUCCESS;
}

/* Later calls on h queue on s (checked when they are made: standin_enqueue). */
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s)
{
    if (!handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

/* Synchronises the device, as the real one does.  The handle is marked dead but not freed, so a later use is
 * reported as a bad handle instead of reading freed memory. */
cublasStatus_t cublasDestroy_v2(cublasHandle_t h)
{
    if (!handle_ok(h))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (standin_fail("cublasDestroy_v2"))
        return CUBLAS_STATUS_INTERNAL_ERROR;
    cudaDeviceSynchronize();
    h->magic = 0xdead;
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

/* One cuBLAS call, everything it needs captured at the call: matrices by address, scalars by value.  Copied
 * into the stream's queue by standin_enqueue; run_* executes it when the scheduler reaches it. */
typedef struct {
    int herm;
    cublasOperation_t ta, tb;
    cublasSideMode_t side;
    cublasFillMode_t uplo;
    cublasDiagType_t diag;
    int64_t m, n, k;
    mat_t a, b, c;
    int has_b; /* rk: syr2k/her2k (B given) rather than syrk/herk */
    z_t al, be;
} job_t;

static cublasStatus_t submit(cublasHandle_t h, void (*run)(void *), const job_t *j)
{
    return standin_enqueue(h->stream, run, j, sizeof *j) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
}

/* The loops below take op(M)'s rows a block at a time into plain arrays, read once instead of once per element
 * of C; each sum still runs over l in order, so the results are those of the plain triple loop, bit for bit
 * (and a split call's parts give the whole call's). */
enum { ROWS = 256 };

static z_t *zalloc(int64_t n)
{
    z_t *z = malloc(sizeof(z_t) * (size_t)(n > 0 ? n : 1));
    if (!z)
        abort(); /* a test double: nothing to finish on instead */
    return z;
}

/* op(m)'s rows r0 .. r0 + rows - 1, columns 0 .. cols - 1, into out row by row. */
static void rows_of(mat_t m, cublasOperation_t t, int64_t r0, int64_t rows, int64_t cols, z_t *out)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t l = 0; l < cols; l++)
            out[r * cols + l] = opat(m, t, r0 + r, l);
}

/* sum x[l] y[l] over l in order; real: of real parts only, as complex arithmetic would give them */
static z_t dot(const z_t *x, const z_t *y, int64_t k, int real)
{
    if (real) {
        double s = 0;
        for (int64_t l = 0; l < k; l++)
            s += creal(x[l]) * creal(y[l]);
        return s;
    }
    z_t s = 0;
    for (int64_t l = 0; l < k; l++)
        s += x[l] * y[l];
    return s;
}

static void run_gemm(void *arg)
{
    const job_t *j = arg;
    /* fewer rows at a time for a long k (SciPy's SVD of a 10^7 x 1 matrix: 256 rows would be 40 GB) */
    int64_t blk = j->k > (1 << 16) ? (1 << 24) / j->k + 1 : ROWS;
    z_t *a = zalloc(blk * j->k), *b = zalloc(j->k);
    int real = j->a.p == S || j->a.p == D;
    for (int64_t i0 = 0; i0 < j->m; i0 += blk) {
        int64_t rows = j->m - i0 < blk ? j->m - i0 : blk;
        rows_of(j->a, j->ta, i0, rows, j->k, a);
        for (int64_t jj = 0; jj < j->n; jj++) {
            for (int64_t l = 0; l < j->k; l++) /* column jj of op(B) */
                b[l] = opat(j->b, j->tb, l, jj);
            for (int64_t r = 0; r < rows; r++) {
                z_t s = dot(a + r * j->k, b, j->k, real);
                put(j->c, i0 + r, jj, j->al * s + (j->be == 0 ? 0 : j->be * at(j->c, i0 + r, jj)));
            }
        }
    }
    free(a), free(b);
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
    job_t j = {.ta = ta, .tb = tb, .m = m, .n = n, .k = k, .a = {p, A, lda}, .b = {p, B, ldb},
               .c = {p, Cm, ldc}, .al = scal(p, alpha, 0), .be = scal(p, beta, 0)};
    return submit(h, run_gemm, &j);
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

static void run_symm(void *arg)
{
    const job_t *j = arg;
    int64_t ka = j->side == CUBLAS_SIDE_LEFT ? j->m : j->n;
    for (int64_t jj = 0; jj < j->n; jj++)
        for (int64_t i = 0; i < j->m; i++) {
            z_t s = 0;
            for (int64_t l = 0; l < ka; l++)
                s += j->side == CUBLAS_SIDE_LEFT ? symat(j->a, j->uplo, j->herm, i, l) * at(j->b, l, jj)
                                                 : at(j->b, i, l) * symat(j->a, j->uplo, j->herm, l, jj);
            put(j->c, i, jj, j->al * s + (j->be == 0 ? 0 : j->be * at(j->c, i, jj)));
        }
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
    job_t j = {.herm = herm, .side = side, .uplo = uplo, .m = m, .n = n, .a = {p, A, lda}, .b = {p, B, ldb},
               .c = {p, Cm, ldc}, .al = scal(p, alpha, 0), .be = scal(p, beta, 0)};
    return submit(h, run_symm, &j);
}

/* syrk, herk (no B), syr2k and her2k: C = alpha X Y' + [conj(alpha)] Y X' + beta C on one triangle, where
 * X = op(A), Y = op(B), and ' is ^T (symmetric) or ^H (Hermitian). */
static void run_rk(void *arg)
{
    const job_t *j = arg;
    int herm = j->herm;
    cublasOperation_t t = j->ta;
    int64_t k = j->k;
    int real = j->a.p == S || j->a.p == D;
    /* op(A) and op(B)'s rows i (a block) and jj (conjugated for her*k); B is A without has_b, and the second
     * sum unused */
    z_t *xa = zalloc(ROWS * k), *ya = zalloc(ROWS * k), *xj = zalloc(k), *yj = zalloc(k);
    for (int64_t i0 = 0; i0 < j->n; i0 += ROWS) {
        int64_t rows = j->n - i0 < ROWS ? j->n - i0 : ROWS;
        rows_of(j->a, t, i0, rows, k, xa);
        if (j->has_b)
            rows_of(j->b, t, i0, rows, k, ya);
        for (int64_t jj = 0; jj < j->n; jj++) {
            rows_of(j->a, t, jj, 1, k, xj);
            rows_of(j->b, t, jj, 1, k, yj);
            for (int64_t l = 0; herm && l < k; l++)
                xj[l] = conj(xj[l]), yj[l] = conj(yj[l]);
            for (int64_t r = 0; r < rows; r++) {
                int64_t i = i0 + r;
                if (j->uplo == CUBLAS_FILL_MODE_UPPER ? i > jj : i < jj)
                    continue;
                z_t s1 = dot(xa + r * k, yj, k, real), s2 = j->has_b ? dot(ya + r * k, xj, k, real) : 0;
                z_t v = j->has_b ? j->al * s1 + (herm ? conj(j->al) : j->al) * s2 : j->al * s1;
                if (j->be != 0) /* C is not read when beta = 0: it may hold anything, signalling NaNs too */
                    v += j->be * (herm && i == jj ? creal(at(j->c, i, jj)) : at(j->c, i, jj));
                put(j->c, i, jj, herm && i == jj ? creal(v) : v);
            }
        }
    }
    free(xa), free(ya), free(xj), free(yj);
}

static cublasStatus_t rk(cublasHandle_t h, int p, const char *fn, int herm, cublasFillMode_t uplo,
                         cublasOperation_t t, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
                         const void *B, int64_t ldb, const void *beta, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    int64_t r = t == CUBLAS_OP_N ? n : k, cols = t == CUBLAS_OP_N ? k : n;
    if (check(fn, A, p, r, cols, lda, "A") || (B && check(fn, B, p, r, cols, ldb, "B")) ||
        check(fn, Cm, p, n, n, ldc, "C") || scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    job_t j = {.herm = herm, .uplo = uplo, .ta = t, .n = n, .k = k, .a = {p, A, lda},
               .b = {p, B ? B : A, B ? ldb : lda}, .c = {p, Cm, ldc}, .has_b = B != NULL,
               .al = scal(p, alpha, herm && !B), .be = scal(p, beta, herm)};
    return submit(h, run_rk, &j);
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

static void run_trmm(void *arg)
{
    const job_t *j = arg;
    int64_t m = j->m, n = j->n, ka = j->side == CUBLAS_SIDE_LEFT ? m : n;
    z_t *T = tri(j->a, ka, j->uplo, j->ta, j->diag), *R = calloc((size_t)(m * n), sizeof *R);
    for (int64_t jj = 0; jj < n; jj++)
        for (int64_t i = 0; i < m; i++) {
            z_t s = 0;
            for (int64_t l = 0; l < ka; l++)
                s += j->side == CUBLAS_SIDE_LEFT ? T[i + l * ka] * at(j->b, l, jj) : at(j->b, i, l) * T[l + jj * ka];
            R[i + jj * m] = j->al * s;
        }
    for (int64_t jj = 0; jj < n; jj++)
        for (int64_t i = 0; i < m; i++)
            put(j->c, i, jj, R[i + jj * m]);
    free(T);
    free(R);
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
    job_t j = {.side = side, .uplo = uplo, .ta = t, .diag = diag, .m = m, .n = n, .a = {p, A, lda},
               .b = {p, B, ldb}, .c = {p, Cm, ldc}, .al = scal(p, alpha, 0)};
    return submit(h, run_trmm, &j);
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

static void run_trsm(void *arg)
{
    const job_t *j = arg;
    int64_t m = j->m, n = j->n, ka = j->side == CUBLAS_SIDE_LEFT ? m : n;
    z_t *M = tri(j->a, ka, j->uplo, j->ta, j->diag), *X = calloc((size_t)(m * n), sizeof *X);
    int lower = (j->uplo == CUBLAS_FILL_MODE_LOWER) == (j->ta == CUBLAS_OP_N);
    for (int64_t jj = 0; jj < n; jj++)
        for (int64_t i = 0; i < m; i++)
            X[i + jj * m] = j->al * at(j->b, i, jj);
    if (j->side == CUBLAS_SIDE_LEFT) { /* M X = alpha B, column by column */
        for (int64_t jj = 0; jj < n; jj++)
            solve(M, m, lower, X + jj * m, 1);
    } else { /* X M = alpha B: M^T x^T = alpha b^T for each row x of X */
        z_t *Mt = calloc((size_t)(n * n), sizeof *Mt);
        for (int64_t jj = 0; jj < n; jj++)
            for (int64_t i = 0; i < n; i++)
                Mt[i + jj * n] = M[jj + i * n];
        for (int64_t i = 0; i < m; i++)
            solve(Mt, n, !lower, X + i, m);
        free(Mt);
    }
    for (int64_t jj = 0; jj < n; jj++)
        for (int64_t i = 0; i < m; i++)
            put(j->b, i, jj, X[i + jj * m]);
    free(M);
    free(X);
}

static cublasStatus_t trsm(cublasHandle_t h, int p, const char *fn, cublasSideMode_t side, cublasFillMode_t uplo,
                           cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                           const void *A, int64_t lda, void *B, int64_t ldb)
{
    BEGIN(fn);
    int64_t ka = side == CUBLAS_SIDE_LEFT ? m : n;
    if (check(fn, A, p, ka, ka, lda, "A") || check(fn, B, p, m, n, ldb, "B") || scalars(fn, p, alpha, NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    job_t j = {.side = side, .uplo = uplo, .ta = t, .diag = diag, .m = m, .n = n, .a = {p, A, lda},
               .b = {p, B, ldb}, .al = scal(p, alpha, 0)};
    return submit(h, run_trsm, &j);
}

/* geam: C = alpha op(A) + beta op(B), through a temporary, so that C may be B (cuBLAS's in-place form with
 * transb N); C may not be A. */
static void run_geam(void *arg)
{
    const job_t *j = arg;
    z_t *X = calloc((size_t)(j->m * j->n), sizeof *X);
    for (int64_t jj = 0; jj < j->n; jj++)
        for (int64_t i = 0; i < j->m; i++)
            X[i + jj * j->m] = j->al * opat(j->a, j->ta, i, jj) + (j->be == 0 ? 0 : j->be * opat(j->b, j->tb, i, jj));
    for (int64_t jj = 0; jj < j->n; jj++)
        for (int64_t i = 0; i < j->m; i++)
            put(j->c, i, jj, X[i + jj * j->m]);
    free(X);
}

static cublasStatus_t geam(cublasHandle_t h, int p, const char *fn, cublasOperation_t ta, cublasOperation_t tb,
                           int64_t m, int64_t n, const void *alpha, const void *A, int64_t lda, const void *beta,
                           const void *B, int64_t ldb, void *Cm, int64_t ldc)
{
    BEGIN(fn);
    if (check(fn, A, p, ta == CUBLAS_OP_N ? m : n, ta == CUBLAS_OP_N ? n : m, lda, "A") ||
        check(fn, B, p, tb == CUBLAS_OP_N ? m : n, tb == CUBLAS_OP_N ? n : m, ldb, "B") ||
        check(fn, Cm, p, m, n, ldc, "C") || scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (Cm == A || (Cm == B && (tb != CUBLAS_OP_N || ldb != ldc))) {
        standin_violation(fn, "C in place of A, or of B transposed");
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    job_t j = {.ta = ta, .tb = tb, .m = m, .n = n, .a = {p, A, lda}, .b = {p, B, ldb}, .c = {p, Cm, ldc},
               .al = scal(p, alpha, 0), .be = scal(p, beta, 0)};
    return submit(h, run_geam, &j);
}

/* gemv: y = alpha op(A) x + beta y, vectors with increments incx and incy (positive). */
static void run_gemv(void *arg)
{
    const job_t *j = arg;
    int64_t ly = j->ta == CUBLAS_OP_N ? j->m : j->n, lx = j->ta == CUBLAS_OP_N ? j->n : j->m;
    for (int64_t i = 0; i < ly; i++) {
        z_t s = 0;
        for (int64_t l = 0; l < lx; l++)
            s += opat(j->a, j->ta, i, l) * at(j->b, 0, l);
        put(j->c, 0, i, j->al * s + (j->be == 0 ? 0 : j->be * at(j->c, 0, i)));
    }
}

static cublasStatus_t gemv(cublasHandle_t h, int p, const char *fn, cublasOperation_t t, int64_t m, int64_t n,
                           const void *alpha, const void *A, int64_t lda, const void *x, int64_t incx,
                           const void *beta, void *y, int64_t incy)
{
    BEGIN(fn);
    int64_t lx = t == CUBLAS_OP_N ? n : m, ly = t == CUBLAS_OP_N ? m : n;
    if (incx <= 0 || incy <= 0 || check(fn, A, p, m, n, lda, "A") || check(fn, x, p, 1, lx, incx, "x") ||
        check(fn, y, p, 1, ly, incy, "y") || scalars(fn, p, alpha, beta))
        return CUBLAS_STATUS_INVALID_VALUE;
    job_t j = {.ta = t, .m = m, .n = n, .a = {p, A, lda}, .b = {p, x, incx}, .c = {p, y, incy},
               .al = scal(p, alpha, 0), .be = scal(p, beta, 0)};
    return submit(h, run_gemv, &j);
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

#define GEAM(P, T, R) \
    cublasStatus_t cublas##P##geam_64(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int64_t m, \
                                      int64_t n, const T *al, const T *A, int64_t lda, const T *be, const T *B, \
                                      int64_t ldb, T *Cm, int64_t ldc) \
    { \
        return geam(h, P, __func__, ta, tb, m, n, al, A, lda, be, B, ldb, Cm, ldc); \
    }
#define GEMV(P, T, R) \
    cublasStatus_t cublas##P##gemv_v2_64(cublasHandle_t h, cublasOperation_t t, int64_t m, int64_t n, const T *al, \
                                         const T *A, int64_t lda, const T *x, int64_t incx, const T *be, T *y, \
                                         int64_t incy) \
    { \
        return gemv(h, P, __func__, t, m, n, al, A, lda, x, incx, be, y, incy); \
    }

EACH_PREC(GEMM)
EACH_PREC(GEMV)
EACH_PREC(SYMM)
EACH_COMPLEX(HEMM)
EACH_PREC(SYRK)
EACH_COMPLEX(HERK)
EACH_PREC(SYR2K)
EACH_COMPLEX(HER2K)
EACH_PREC(TRMM)
EACH_PREC(TRSM)
EACH_PREC(GEAM)

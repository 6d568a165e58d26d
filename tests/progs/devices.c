/* Calls that gpushim splits across devices (GPUSHIM_DEVICES): GEMMs with wide C (split by columns) and tall C
 * (by rows), in every pair of transposes, with beta 0 and beta != 0, in double and complex double, and one too
 * narrow to split; TRSM and TRMM with wide B (side L, by columns) and tall B (side R, by rows), both triangles,
 * transposed or not; SYRK and HERK (by blocks of C's columns), both triangles; or operands used again and
 * changed in place.  Writes every result to the result file (results.h) for blas_cmp against the same run
 * without the shim: the whole output, or for SYRK and HERK, whose C is large, its weighted row and column sums.
 * usage: devices RESULT-FILE [again|gemm] (again: only the operands used again, which take longer; gemm: only
 * the GEMMs) */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *);

void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *);
void ztrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, void *, const int *);
void ztrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const void *,
            const void *, const int *, void *, const int *);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *);
void zherk_(const char *, const char *, const int *, const int *, const double *, const void *, const int *,
            const double *, void *, const int *);

static unsigned long seed = 12345;
static double rnd(void)
{
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

/* C = alpha op(A) op(B) + beta C for one shape; cplx: zgemm.  Operands have 3 rows of padding. */
static void one(FILE *f, int cplx, char ta, char tb, int m, int n, int k, double beta)
{
    int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
    int lda = ar + 3, ldb = br + 3, ldc = m + 3, w = cplx ? 2 : 1;
    double *a = malloc(sizeof(double) * (size_t)(w * lda * ac)), *b = malloc(sizeof(double) * (size_t)(w * ldb * bc));
    double *c = malloc(sizeof(double) * (size_t)(w * ldc * n));
    for (long i = 0; i < (long)w * lda * ac; i++)
        a[i] = rnd();
    for (long i = 0; i < (long)w * ldb * bc; i++)
        b[i] = rnd();
    for (long i = 0; i < (long)w * ldc * n; i++)
        c[i] = rnd();
    char label[120];
    snprintf(label, sizeof label, "%cgemm %c%c m=%d n=%d k=%d beta=%g", cplx ? 'z' : 'd', ta, tb, m, n, k, beta);
    if (cplx) {
        double complex al = 0.75 - 0.25 * I, be = beta + 0.5 * beta * I;
        zgemm_(&ta, &tb, &m, &n, &k, &al, a, &lda, b, &ldb, &be, c, &ldc);
    } else {
        double al = 0.75;
        dgemm_(&ta, &tb, &m, &n, &k, &al, a, &lda, b, &ldb, &beta, c, &ldc);
    }
    result_write(f, label, cplx ? 3 : 1, c, (int64_t)w * ldc * n);
    free(a), free(b), free(c);
}

/* B = alpha op(A)^-1 B (solve) or alpha op(A) B, or the same with A on the right: side L splits B's columns,
 * side R its rows.  A's diagonal is made large so that the solves are well conditioned.  cplx: ztrsm, ztrmm. */
static void tr(FILE *f, int cplx, int solve, char side, char uplo, char ta, char diag)
{
    int m = side == 'L' ? 48 : 6151, n = side == 'L' ? 4099 : 24, ka = side == 'L' ? m : n;
    int lda = ka + 2, ldb = m + 3, w = cplx ? 2 : 1;
    double *a = malloc(sizeof(double) * (size_t)(w * lda * ka)), *b = malloc(sizeof(double) * (size_t)(w * ldb * n));
    for (long i = 0; i < (long)w * lda * ka; i++)
        a[i] = rnd();
    for (int i = 0; i < ka; i++)
        a[(long)w * (i + (long)i * lda)] += 4;
    for (long i = 0; i < (long)w * ldb * n; i++)
        b[i] = rnd();
    char label[120];
    snprintf(label, sizeof label, "%ctr%s %c%c%c%c m=%d n=%d", cplx ? 'z' : 'd', solve ? "sm" : "mm", side, uplo, ta,
             diag, m, n);
    double complex zal = 0.75 - 0.25 * I;
    double dal = 0.75;
    if (cplx)
        (solve ? ztrsm_ : ztrmm_)(&side, &uplo, &ta, &diag, &m, &n, &zal, a, &lda, b, &ldb);
    else
        (solve ? dtrsm_ : dtrmm_)(&side, &uplo, &ta, &diag, &m, &n, &dal, a, &lda, b, &ldb);
    result_write(f, label, cplx ? 3 : 1, b, (int64_t)w * ldb * n);
    free(a), free(b);
}

/* C = alpha op(A) op(A)^T + beta C (dsyrk) or ^H (zherk, cplx) with C of n = 4097, split by its columns; C's
 * other triangle random, which the call must leave as it was.  Written: C's row sums and column sums, each
 * element weighted by a factor of its row and of its column, so that a wrong element anywhere shows. */
static void rk(FILE *f, int cplx, char uplo, char trans, double beta)
{
    int n = 4097, k = 16, ar = trans == 'N' ? n : k, ac = trans == 'N' ? k : n, lda = ar + 1, ldc = n + 2;
    int w = cplx ? 2 : 1;
    double *a = malloc(sizeof(double) * (size_t)(w * lda * ac)), *c = malloc(sizeof(double) * (size_t)w * ldc * n);
    double *sums = calloc((size_t)(2 * w * n), sizeof(double)), alpha = 0.75;
    for (long i = 0; i < (long)w * lda * ac; i++)
        a[i] = rnd();
    for (long i = 0; i < (long)w * ldc * n; i++)
        c[i] = rnd();
    if (cplx)
        zherk_(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
    else
        dsyrk_(&uplo, &trans, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
    for (long j = 0; j < n; j++)
        for (long i = 0; i < n; i++)
            for (int r = 0; r < w; r++) {
                double v = c[w * (i + j * ldc) + r];
                sums[w * i + r] += v * (1 + (double)(j % 13) / 13);         /* row i */
                sums[w * (n + j) + r] += v * (1 + (double)(i % 11) / 11);   /* column j */
            }
    char label[120];
    snprintf(label, sizeof label, "%s %c%c n=%d k=%d beta=%g", cplx ? "zherk" : "dsyrk", uplo, trans, n, k, beta);
    result_write(f, label, cplx ? 3 : 1, sums, (int64_t)2 * w * n);
    free(a), free(c), free(sums);
}

/* The same operands again and again, so that the residency cache keeps them on every device, changed in place
 * between calls: A (the whole factor, an operand of every part) and B; each result written. */
static void again(FILE *f)
{
    int m = 8, n = 4101, k = 16400; /* A of 1 MiB: large enough to be cached (cache.h) */
    double *a = malloc(sizeof(double) * (size_t)(m * k)), *b = malloc(sizeof(double) * (size_t)(k * n));
    double *c = malloc(sizeof(double) * (size_t)(m * n)), one = 1, zero = 0;
    for (int i = 0; i < m * k; i++)
        a[i] = rnd();
    for (int i = 0; i < k * n; i++)
        b[i] = rnd();
    for (int round = 0; round < 5; round++) {
        if (round == 3)
            a[m * k / 2] += 1;         /* the whole factor changed */
        if (round == 4)
            b[(long)k * n - 7] -= 2;   /* the last part's block of B */
        dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
        char label[64];
        snprintf(label, sizeof label, "again round %d", round);
        result_write(f, label, 1, c, (int64_t)m * n);
    }
    free(a), free(b), free(c);
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    if (argc > 2 && !strcmp(argv[2], "again")) {
        again(f);
        return fclose(f) != 0;
    }
    static const char t[] = "NT";
    for (int i = 0; i < 4; i++)
        for (int beta = 0; beta < 2; beta++) {
            one(f, 0, t[i / 2], t[i % 2], 40, 4099, 37, beta * 1.5); /* wide: by columns */
            one(f, 0, t[i / 2], t[i % 2], 6151, 24, 29, beta * 1.5); /* tall: by rows, three parts */
        }
    one(f, 1, 'N', 'C', 20, 4097, 17, 1);
    one(f, 1, 'C', 'N', 4100, 16, 13, 0);
    one(f, 0, 'N', 'N', 40, 2047, 37, 1); /* too narrow to split */
    if (argc > 2 && !strcmp(argv[2], "gemm"))
        return fclose(f) != 0;
    for (int solve = 0; solve < 2; solve++) {
        for (int i = 0; i < 4; i++) /* side L and R, upper and lower, by turns transposed and unit */
            tr(f, 0, solve, "LR"[i / 2], "UL"[i % 2], "NT"[i % 2], "NU"[i / 2]);
        tr(f, 1, solve, 'L', 'U', 'C', 'N');
        tr(f, 1, solve, 'R', 'L', 'N', 'U');
    }
    rk(f, 0, 'U', 'N', 0.5);
    rk(f, 0, 'L', 'T', 0);
    rk(f, 1, 'U', 'C', 0.5);
    rk(f, 1, 'L', 'N', 1);
    return fclose(f) != 0;
}

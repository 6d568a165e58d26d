/* GEMMs that gpushim splits across devices (GPUSHIM_DEVICES): wide C (split by columns) and tall C (by rows), in
 * every pair of transposes, with beta 0 and beta != 0, in double and complex double, and one too narrow to
 * split; or operands used again and changed in place.  Writes every C to the result file (results.h) for
 * blas_cmp against the same run without the shim.
 * usage: devices RESULT-FILE [again] (again: only the operands used again, which take longer) */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *);

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
    return fclose(f) != 0;
}

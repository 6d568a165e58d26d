/* Reference LAPACK's dsytrd (which gpushim does not interpose) calls dsyr2k_ and dgemv_ in the reference BLAS
 * through the PLT: under the shim those inner calls must go straight to the BLAS, neither offloaded nor logged
 * as the program's, while the program's own dgemm_ is.  Usage: inner FILE */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

void dsytrd_(const char *uplo, const int *n, double *a, const int *lda, double *d, double *e, double *tau,
             double *work, const int *lwork, int *info, size_t);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta, double *c,
            const int *ldc, size_t, size_t);

int main(int argc, char **argv)
{
    enum { N = 400 };
    static double a[N * N], s[N * N], c[N * N], d[N], e[N], tau[N];
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    fill(a, N * N, 1);
    int n = N, lwork = -1, info;
    double one = 1, zero = 0, q;
    dgemm_("T", "N", &n, &n, &n, &one, a, &n, a, &n, &zero, s, &n, 1, 1); /* the program's: S = A^T A */
    for (int i = 0; i < N * N; i++)
        c[i] = s[i];
    dsytrd_("L", &n, c, &n, d, e, tau, &q, &lwork, &info, 1);
    lwork = (int)q;
    double *work = malloc(sizeof(double) * (size_t)lwork);
    if (!work)
        return 2;
    dsytrd_("L", &n, c, &n, d, e, tau, work, &lwork, &info, 1);
    result_write(f, "inner dgemm", 1, s, N * N);
    result_write(f, "inner dsytrd", 1, c, N * N);
    result_write(f, "inner dsytrd d", 1, d, N);
    free(work);
    return info != 0 || fclose(f) != 0;
}

/* A few BLAS and LAPACK calls of each family's kind, for the sweeps that run a program many times
 * (tests/t_badinput.sh): a product, a triangular solve, a strided copy and an LU solve of order 96, each
 * output written to the results file for blas_cmp.  usage: little FILE */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dcopy_(const int *, const double *, const int *, double *, const int *);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);

enum { N = 96 };

int main(int argc, char **argv)
{
    static double a[N * N], b[N * N], c[N * N], x[N * N];
    static int ipiv[N];
    FILE *out = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!out)
        return fprintf(stderr, "usage: little FILE\n"), 2;
    int n = N, info = 0, stride = N, one_i = 1, nn = N * N / N;
    double one = 1, zero = 0;
    fill(a, N * N, 1);
    fill(b, N * N, 2);
    for (int i = 0; i < N; i++)
        a[i * N + i] += N; /* well conditioned, for the solves */
    dgemm_("N", "T", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    result_write(out, "dgemm", 1, c, N * N);
    dtrsm_("L", "U", "N", "N", &n, &n, &one, a, &n, c, &n, 1, 1, 1, 1);
    result_write(out, "dtrsm", 1, c, N * N);
    dcopy_(&nn, a, &stride, x, &one_i);
    result_write(out, "dcopy", 1, x, N);
    dgesv_(&n, &n, a, &n, ipiv, b, &n, &info);
    result_write(out, "dgesv", 1, b, N * N);
    result_write(out, "dgesv info", 1, &(double){info}, 1);
    return fclose(out) != 0;
}

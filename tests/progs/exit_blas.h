/* The calls that tests/progs/exit_blas.c and exit_lib.c make at each end of a program's life: a product and an
 * LU solve of orders that the GPU takes under GPUSHIM_OFFLOAD=always, their results appended to a result file. */
#ifndef EXIT_BLAS_H
#define EXIT_BLAS_H

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b, const int *ldb,
            int *info);

enum { EXIT_N = 160 };

/* Appends "WHO dgemm" (C = A B from seed) and "WHO dgesv" (G X = B, G diagonally dominant) to the file at path;
 * 0, or -1 when the file cannot be written or the solve failed. */
static inline int exit_calls(const char *path, const char *who, unsigned seed)
{
    int n = EXIT_N, two = 2, info = 0, ipiv[EXIT_N];
    double *c = malloc(sizeof *c * n * n), *g = malloc(sizeof *g * n * n), *b = malloc(sizeof *b * n * 2);
    FILE *f = path && c && g && b ? fopen(path, "ab") : NULL;
    if (f) {
        char label[64];
        square_dgemm(n, seed, c);
        snprintf(label, sizeof label, "%s dgemm", who);
        result_write(f, label, 1, c, (int64_t)n * n);
        fill(g, (size_t)n * n, seed + 2);
        for (int i = 0; i < n; i++)
            g[i + (size_t)i * n] += n;
        fill(b, (size_t)n * 2, seed + 3);
        dgesv_(&n, &two, g, &n, ipiv, b, &n, &info);
        snprintf(label, sizeof label, "%s dgesv", who);
        result_write(f, label, 1, b, (int64_t)n * 2);
    }
    int rc = f && info == 0 && fclose(f) == 0 ? 0 : -1;
    free(c);
    free(g);
    free(b);
    return rc;
}

#endif

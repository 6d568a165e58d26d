/* Small helpers shared by the preload test programs: deterministic data and plain Fortran BLAS prototypes. */
#ifndef COMMON_H
#define COMMON_H

#include <stddef.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
void ssyrk_(const char *, const char *, const int *, const int *, const float *, const float *, const int *,
            const float *, float *, const int *, size_t, size_t);

static inline void fill(double *a, size_t n, unsigned seed)
{
    unsigned long s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ul + 1442695040888963407ul;
        a[i] = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
}

/* C = A B for n x n matrices filled from seed. */
static inline void square_dgemm(int n, unsigned seed, double *c)
{
    double *a = (double *)__builtin_malloc(sizeof(double) * (size_t)n * (size_t)n),
           *b = (double *)__builtin_malloc(sizeof(double) * (size_t)n * (size_t)n), one = 1, zero = 0;
    fill(a, (size_t)n * (size_t)n, seed);
    fill(b, (size_t)n * (size_t)n, seed + 1);
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    __builtin_free(a);
    __builtin_free(b);
}

#endif

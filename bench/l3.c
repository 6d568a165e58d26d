/* Times every Level-3 routine on square n x n operands, for the policy's per-routine rates: run it without
 * the shim (the CPU library) and with it (GPUSHIM_OFFLOAD=always: the GPU with copies), side by side.  The
 * CPU library is the LP64 OpenBLAS named by GSBENCH_OPENBLAS (SciPy's bundled one, symbols scipy_dgemm_ ...),
 * opened RTLD_GLOBAL; each routine is looked up in the global scope, where a preloaded shim comes first.
 * usage: l3 PRECISIONS N...   (e.g. l3 dz 512 1024 2048); prints one JSON object per routine and size. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "settle.h"

typedef void fn_t();

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static fn_t *sym(char p, const char *op)
{
    char name[64];
    snprintf(name, sizeof name, "scipy_%c%s_", p, op);
    fn_t *f = (fn_t *)dlsym(RTLD_DEFAULT, name);
    if (!f) {
        fprintf(stderr, "l3: %s not found\n", name);
        exit(2);
    }
    return f;
}

/* One call of op on n x n operands a, b, c (element size es; complex when cx). */
static void call(char p, const char *op, int n, void *a, void *b, void *c)
{
    static const double one[2] = {1, 0}, half[2] = {0.5, 0};
    static const float onef[2] = {1, 0}, halff[2] = {0.5, 0};
    const void *al = p == 's' || p == 'c' ? (const void *)onef : (const void *)one;
    const void *be = p == 's' || p == 'c' ? (const void *)halff : (const void *)half;
    fn_t *f = sym(p, op);
    if (!strcmp(op, "gemm"))
        f("N", "N", &n, &n, &n, al, a, &n, b, &n, be, c, &n, (size_t)1, (size_t)1);
    else if (!strcmp(op, "symm") || !strcmp(op, "hemm"))
        f("L", "U", &n, &n, al, a, &n, b, &n, be, c, &n, (size_t)1, (size_t)1);
    else if (!strcmp(op, "syrk") || !strcmp(op, "herk"))
        f("U", "N", &n, &n, al, a, &n, be, c, &n, (size_t)1, (size_t)1);
    else if (!strcmp(op, "syr2k") || !strcmp(op, "her2k"))
        f("U", "N", &n, &n, al, a, &n, b, &n, be, c, &n, (size_t)1, (size_t)1);
    else /* trmm, trsm: B (here c) is the output */
        f("L", "U", "N", "N", &n, &n, al, a, &n, c, &n, (size_t)1, (size_t)1, (size_t)1, (size_t)1);
}

int main(int argc, char **argv)
{
    const char *lib = getenv("GSBENCH_OPENBLAS");
    if (argc < 3 || !lib || !dlopen(lib, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "usage: GSBENCH_OPENBLAS=LIB l3 PRECISIONS N...\n");
        return 2;
    }
    static const char *const real_ops[] = {"gemm", "symm", "syrk", "syr2k", "trmm", "trsm", NULL};
    static const char *const complex_ops[] = {"gemm", "symm", "hemm", "syrk", "herk", "syr2k", "her2k", "trmm",
                                              "trsm", NULL};
    for (const char *p = argv[1]; *p; p++) {
        size_t es = *p == 's' ? 4 : *p == 'd' || *p == 'c' ? 8 : 16;
        int cx = *p == 'c' || *p == 'z';
        for (int i = 2; i < argc; i++) {
            int n = atoi(argv[i]);
            size_t bytes = es * (size_t)n * (size_t)n;
            char *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
            for (size_t j = 0; j < bytes / es * (cx ? 2 : 1); j++) { /* small values; A's diagonal large */
                double v = (double)(j % 7) * 0.01;
                if (es == 4 || *p == 'c')
                    ((float *)a)[j] = ((float *)b)[j] = ((float *)c)[j] = (float)v;
                else
                    ((double *)a)[j] = ((double *)b)[j] = ((double *)c)[j] = v;
            }
            for (int d = 0; d < n; d++) {
                size_t at = ((size_t)d * (size_t)n + (size_t)d) * (cx ? 2 : 1);
                if (es == 4 || *p == 'c')
                    ((float *)a)[at] = (float)n;
                else
                    ((double *)a)[at] = n;
            }
            for (const char *const *op = cx ? complex_ops : real_ops; *op; op++) {
                call(*p, *op, n, a, b, c); /* warm-up */
                if (bench_settle())
                    call(*p, *op, n, a, b, c);
                double best = 1e30, spent = 0;
                for (int r = 0; r < 5 && spent < 0.5; r++) {
                    double t = now();
                    call(*p, *op, n, a, b, c);
                    t = now() - t;
                    spent += t;
                    best = t < best ? t : best;
                }
                printf("{\"routine\": \"%c%s\", \"n\": %d, \"best_ms\": %.4f}\n", *p, *op, n, best * 1e3);
                fflush(stdout);
            }
            free(a), free(b), free(c);
        }
    }
    return 0;
}

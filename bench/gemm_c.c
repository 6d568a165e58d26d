/* The C side of the GEMM benchmark (bench/gemm.sh): times C = A B through ?gemm_ with column-major operands in
 * one precision for each case given, and prints one JSON line per case (best and median time, a spot check of
 * the result).  Whatever answers ?gemm_ is the dynamic linker's choice: build/bench/libgsbench_blas.so (the CPU
 * library), or gpushim or NVBLAS preloaded in front of it.
 *
 * usage: gemm_c --dtype s|d|c|z --mode NAME [--repeat R] [--budget SECONDS] [--max-n N] CASE...
 *        CASE is N (square) or MxNxK; a case with m n k > N^3 (--max-n) is reported as skipped. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "settle.h"

/* The Fortran entries, LP64, with the hidden string lengths; every scalar and matrix is passed by address,
 * so one prototype fits the four precisions. */
typedef void gemm_fn(const char *ta, const char *tb, const int *m, const int *n, const int *k, const void *alpha,
                     const void *a, const int *lda, const void *b, const int *ldb, const void *beta, void *c,
                     const int *ldc, size_t ta_len, size_t tb_len);
extern gemm_fn sgemm_, dgemm_, cgemm_, zgemm_;

typedef struct {
    char code;      /* s, d, c or z */
    int single;     /* float components, else double */
    int cplx;       /* two components per element */
    double unit;    /* unit roundoff of the component type */
    gemm_fn *gemm;
} prec_t;

static const prec_t precs[] = {
    {'s', 1, 0, 0x1p-24, sgemm_},
    {'d', 0, 0, 0x1p-53, dgemm_},
    {'c', 1, 1, 0x1p-24, cgemm_},
    {'z', 0, 1, 0x1p-53, zgemm_},
};

typedef struct {
    long m, n, k;
} shape_t;

static long double comp(const void *base, size_t i, int single)
{
    return single ? (long double)((const float *)base)[i] : (long double)((const double *)base)[i];
}

/* Largest error over 16 sampled entries (the four corners and twelve pseudo-random ones) of C = alpha A B,
 * against a dot product in long double, each scaled by sum |a_il| |b_lj|, the size of the terms summed.  Any
 * NaN or infinity gives INFINITY. */
static double check(const prec_t *p, const shape_t *s, const void *A, const void *B, const void *C,
                    double alpha)
{
    long m = s->m, n = s->n, k = s->k;
    long is[16] = {0, m - 1, 0, m - 1}, js[16] = {0, 0, n - 1, n - 1};
    uint64_t x = 12345;
    for (int q = 4; q < 16; q++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        is[q] = (long)((x >> 33) % (uint64_t)m);
        x = x * 6364136223846793005u + 1442695040888963407u;
        js[q] = (long)((x >> 33) % (uint64_t)n);
    }
    int w = p->cplx ? 2 : 1;
    double worst = 0;
    for (int q = 0; q < 16; q++) {
        long i = is[q], j = js[q];
        long double re = 0, im = 0, mag = 0;
        for (long l = 0; l < k; l++) {
            size_t ia = (size_t)(i + l * m) * w, ib = (size_t)(l + j * k) * w;
            long double ar = comp(A, ia, p->single), br = comp(B, ib, p->single);
            if (p->cplx) {
                long double ai = comp(A, ia + 1, p->single), bi = comp(B, ib + 1, p->single);
                re += ar * br - ai * bi;
                im += ar * bi + ai * br;
                mag += sqrtl(ar * ar + ai * ai) * sqrtl(br * br + bi * bi);
            } else {
                re += ar * br;
                mag += fabsl(ar * br);
            }
        }
        size_t ic = (size_t)(i + j * m) * w;
        long double dr = comp(C, ic, p->single) - alpha * re;
        long double di = p->cplx ? comp(C, ic + 1, p->single) - alpha * im : 0;
        double err = (double)(sqrtl(dr * dr + di * di) / (mag > 0 ? mag : 1));
        if (!isfinite(err))
            return INFINITY;
        if (err > worst)
            worst = err;
    }
    return worst;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_head(const char *mode, const prec_t *p, const shape_t *s)
{
    printf("{\"tool\":\"c\",\"mode\":\"%s\",\"dtype\":\"%c\",\"m\":%ld,\"n\":%ld,\"k\":%ld", mode, p->code, s->m,
           s->n, s->k);
}

/* One case: allocate and fill, one warm-up call with alpha = 1 into a C full of NaN (beta = 0 must not read
 * it), then timed calls with alpha = -1 until `repeat` runs or more than `budget` seconds of them.  Checking
 * after both phases catches a result never written as well as one left over from the warm-up. */
static void run_case(const prec_t *p, const shape_t *s, const char *mode, int repeat, double budget)
{
    size_t w = p->cplx ? 2 : 1, esz = (p->single ? sizeof(float) : sizeof(double));
    size_t na = (size_t)(s->m * s->k) * w, nb = (size_t)(s->k * s->n) * w, nc = (size_t)(s->m * s->n) * w;
    void *A = malloc(na * esz), *B = malloc(nb * esz), *C = malloc(nc * esz);
    if (!A || !B || !C) {
        print_head(mode, p, s);
        printf(",\"error\":\"out of host memory\"}\n");
        fflush(stdout);
        free(A), free(B), free(C);
        return;
    }
    pool_fill(A, na, p->single, 0);
    pool_fill(B, nb, p->single, POOL / 3);
    for (size_t i = 0; i < nc; i++) {
        if (p->single)
            ((float *)C)[i] = NAN;
        else
            ((double *)C)[i] = NAN;
    }
    int m = (int)s->m, n = (int)s->n, k = (int)s->k;
    double one[2] = {1, 0}, minus[2] = {-1, 0}, zero[2] = {0, 0};
    float one_s[2] = {1, 0}, minus_s[2] = {-1, 0}, zero_s[2] = {0, 0};
    const void *a1 = p->single ? (const void *)one_s : (const void *)one;
    const void *am = p->single ? (const void *)minus_s : (const void *)minus;
    const void *b0 = p->single ? (const void *)zero_s : (const void *)zero;

    double t0 = now();
    p->gemm("N", "N", &m, &n, &k, a1, A, &m, B, &k, b0, C, &m, 1, 1);
    double warm = now() - t0;
    double err1 = check(p, s, A, B, C, 1.0);
    if (bench_settle())
        p->gemm("N", "N", &m, &n, &k, a1, A, &m, B, &k, b0, C, &m, 1, 1);

    double times[64], used = 0;
    int runs = 0;
    if (repeat > 64)
        repeat = 64;
    while (runs < repeat) {
        t0 = now();
        p->gemm("N", "N", &m, &n, &k, am, A, &m, B, &k, b0, C, &m, 1, 1);
        double t = now() - t0;
        times[runs++] = t;
        used += t;
        if (used > budget)
            break;
    }
    double err2 = check(p, s, A, B, C, -1.0);
    free(A), free(B), free(C);

    qsort(times, (size_t)runs, sizeof times[0], cmp_double);
    double median = runs % 2 ? times[runs / 2] : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
    double err = err1 > err2 ? err1 : err2;
    /* Rounding errors of a k-term sum, scaled as above, grow like sqrt(k) unit roundoffs: 8 sqrt(k) u leaves
     * room for any summation order while a wrong entry, a missing term or lower-precision arithmetic does
     * not fit under it. */
    double tol = 8.0 * (p->cplx ? 2.0 : 1.0) * p->unit * sqrt((double)s->k);
    double flops = (p->cplx ? 8.0 : 2.0) * (double)s->m * (double)s->n * (double)s->k;
    const char *log = getenv("GPUSHIM_LOG");
    print_head(mode, p, s);
    printf(",\"best_ms\":%.4f,\"median_ms\":%.4f,\"runs\":%d,\"warmup_ms\":%.4f,\"gflops\":%.2f", times[0] * 1e3,
           median * 1e3, runs, warm * 1e3, flops / times[0] * 1e-9);
    if (isfinite(err))
        printf(",\"err\":%.3e", err);
    else
        printf(",\"err\":null");
    printf(",\"tol\":%.3e,\"check\":\"%s\"", tol, isfinite(err) && err <= tol ? "ok" : "WRONG");
    if (log && *log && !strpbrk(log, "\"\\"))
        printf(",\"log\":\"%s\"", log);
    printf("}\n");
    fflush(stdout);
}

static int parse_case(const char *arg, shape_t *s)
{
    char *end;
    errno = 0;
    s->m = strtol(arg, &end, 10);
    if (*end == '\0') {
        s->n = s->k = s->m;
    } else {
        if (*end != 'x')
            return -1;
        s->n = strtol(end + 1, &end, 10);
        if (*end != 'x')
            return -1;
        s->k = strtol(end + 1, &end, 10);
        if (*end != '\0')
            return -1;
    }
    /* LP64 BLAS: every dimension, and so every leading dimension, must fit an int. */
    if (errno || s->m < 1 || s->n < 1 || s->k < 1 || s->m > 2147483647L || s->n > 2147483647L ||
        s->k > 2147483647L)
        return -1;
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: gemm_c --dtype s|d|c|z --mode NAME [--repeat R] [--budget SECONDS] [--max-n N] "
                    "CASE...\n       CASE: N or MxNxK\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const prec_t *p = NULL;
    const char *mode = NULL;
    int repeat = 5;
    double budget = 1.0, max_n = 0;
    int a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a += 2) {
        if (a + 1 >= argc)
            usage();
        const char *opt = argv[a], *val = argv[a + 1];
        if (strcmp(opt, "--dtype") == 0) {
            for (size_t i = 0; i < sizeof precs / sizeof precs[0]; i++)
                if (val[0] == precs[i].code && val[1] == '\0')
                    p = &precs[i];
        } else if (strcmp(opt, "--mode") == 0) {
            mode = val;
        } else if (strcmp(opt, "--repeat") == 0) {
            repeat = atoi(val);
        } else if (strcmp(opt, "--budget") == 0) {
            budget = atof(val);
        } else if (strcmp(opt, "--max-n") == 0) {
            max_n = atof(val);
        } else {
            usage();
        }
    }
    if (!p || !mode || strpbrk(mode, "\"\\") || repeat < 1 || a >= argc)
        usage();
    pool_init();
    for (; a < argc; a++) {
        shape_t s;
        if (parse_case(argv[a], &s) != 0) {
            fprintf(stderr, "gemm_c: bad case '%s' (N or MxNxK)\n", argv[a]);
            return 2;
        }
        if (max_n > 0 && (double)s.m * (double)s.n * (double)s.k > max_n * max_n * max_n) {
            print_head(mode, p, &s);
            printf(",\"skipped\":\"m n k above %.0f^3\"}\n", max_n);
            fflush(stdout);
            continue;
        }
        run_case(p, &s, mode, repeat, budget);
    }
    return 0;
}

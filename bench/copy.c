/* The copies numpy.linalg makes around LAPACK, timed as it makes them: an n x n row-major matrix into column
 * order with one dcopy_ per column (a gather, incx = n) and back (a scatter, incy = n), and beside them what
 * the host's memory allows for the same bytes: a plain copy split over the same threads, and a cache-blocked
 * transpose on them.  "gather-fresh" and "scatter-fresh" copy into memory just taken from malloc, as
 * numpy.linalg's buffer and its result are: their times include the first touch of every page.  Run it with
 * and without the shim (bench/copy.sh).  Usage: copy N [THREADS [REPEATS]]; one line per measurement:
 * "copy n=N what=WHAT ms=MS gbps=GB/S" (GB/s of the matrix's bytes, read once and written once). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dcopy_(const int *, const double *, const int *, double *, const int *);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct {
    const double *a;
    double *b;
    int n, k, threads, transpose;
} job_t;

/* Thread k's share of the rows: a plain copy, or a transpose in 64 x 64 blocks. */
static void *part(void *arg)
{
    const job_t *j = arg;
    size_t n = (size_t)j->n, lo = n * (size_t)j->k / (size_t)j->threads, hi = n * (size_t)(j->k + 1) / (size_t)j->threads;
    if (!j->transpose) {
        memcpy(j->b + lo * n, j->a + lo * n, (hi - lo) * n * sizeof(double));
        return NULL;
    }
    for (size_t i0 = lo; i0 < hi; i0 += 64)
        for (size_t c0 = 0; c0 < n; c0 += 64)
            for (size_t i = i0; i < hi && i < i0 + 64; i++)
                for (size_t c = c0; c < n && c < c0 + 64; c++)
                    j->b[c * n + i] = j->a[i * n + c];
    return NULL;
}

static double team(const double *a, double *b, int n, int threads, int transpose)
{
    pthread_t t[64];
    job_t j[64];
    double t0 = now();
    for (int k = 0; k < threads; k++) {
        j[k] = (job_t){a, b, n, k, threads, transpose};
        pthread_create(&t[k], NULL, part, &j[k]);
    }
    for (int k = 0; k < threads; k++)
        pthread_join(t[k], NULL);
    return now() - t0;
}

static double columns(const double *a, double *b, int n, int gather)
{
    int one = 1;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        if (gather)
            dcopy_(&n, a + i, &n, b + (size_t)i * (size_t)n, &one);
        else
            dcopy_(&n, b + (size_t)i * (size_t)n, &one, (double *)a + i, &n);
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096, threads = argc > 2 ? atoi(argv[2]) : 16;
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (n < 1 || threads < 1 || threads > 64 || repeats < 1)
        return 2;
    size_t nn = (size_t)n * (size_t)n;
    double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
    if (!a || !b || !c)
        return 1;
    for (size_t i = 0; i < nn; i++)
        a[i] = (double)i, b[i] = 0, c[i] = 0;
    static const char *const what[] = {"gather", "scatter", "memcpy", "transpose", "gather-fresh", "scatter-fresh"};
    int bad = 0;
    for (int w = 0; w < 6; w++) {
        double best = 1e30;
        int scatter = w == 1 || w == 5;
        for (int r = 0; r < repeats; r++) {
            /* the fresh ones: a destination whose pages no one touched yet (large blocks come from mmap) */
            double *d = w == 4 ? malloc(nn * sizeof *d) : b, *e = w == 5 ? malloc(nn * sizeof *e) : c;
            if (!d || !e)
                return 1;
            double s = scatter ? columns(e, d, n, 0) : w != 2 && w != 3 ? columns(a, d, n, 1)
                                                                        : team(a, c, n, threads, w == 3);
            best = s < best ? s : best;
            /* The gather's result is A's transpose, and the scatter's of it A again. */
            for (size_t i = 0; w != 2 && w != 3 && i < nn; i += nn / 97 + 1) {
                size_t row = i / (size_t)n, col = i % (size_t)n;
                bad |= scatter ? e[i] != a[i] : d[col * (size_t)n + row] != a[i];
            }
            if (d != b)
                free(d);
            if (e != c)
                free(e);
        }
        printf("copy n=%d what=%s threads=%d ms=%.2f gbps=%.2f\n", n, what[w], w == 2 || w == 3 ? threads : 0,
               best * 1e3, (double)nn * 8 / best / 1e9);
    }
    if (bad)
        printf("copy n=%d: WRONG RESULT\n", n);
    free(a), free(b), free(c);
    return bad;
}

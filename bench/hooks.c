/* What the shim's memory hooks (memory/hostreg.c: free, realloc, munmap, ...) cost a program that allocates a
 * lot: pairs of malloc and free of sizes 16 B to 64 KiB, and of 1 MiB blocks (which glibc maps and unmaps),
 * timed ROUNDS rounds of PAIRS pairs each, the fastest round kept.  With --tracked N it first makes N large
 * GEMMs whose outputs the residency cache keeps and protects (forced onto the GPU path: GPUSHIM_OFFLOAD=always),
 * spread over the heap, so that the frees fall among tracked ranges and each takes the hooks' slow path.
 * usage: hooks [--tracked N] [PAIRS [ROUNDS]]; prints one JSON object (bench/hooks.sh runs it each way). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ns per malloc and free pair of sizes from lo to hi bytes, the fastest of rounds. */
static double pairs_ns(long pairs, int rounds, size_t lo, size_t hi)
{
    double best = 1e30;
    unsigned long r = 12345;
    for (int k = 0; k < rounds; k++) {
        double t0 = now();
        for (long i = 0; i < pairs; i++) {
            r = r * 6364136223846793005UL + 1442695040888963407UL;
            size_t n = lo + (r >> 33) % (hi - lo + 1);
            char *p = malloc(n);
            if (!p)
                abort();
            p[0] = p[n - 1] = 1;
            free(p);
        }
        double t = (now() - t0) / (double)pairs;
        best = t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    int a = 1, tracked = 0;
    if (argc > 2 && strcmp(argv[1], "--tracked") == 0)
        tracked = atoi(argv[2]), a = 3;
    long pairs = argc > a ? atol(argv[a]) : 1000000;
    int rounds = argc > a + 1 ? atoi(argv[a + 1]) : 5;
    /* Outputs of 512 x 512 (2 MiB each), the residency cache's, with small blocks between them. */
    int n = 512;
    double one = 1, zero = 0, *x = calloc((size_t)n * n, sizeof *x), *keep[64];
    void *gaps[64];
    for (int i = 0; i < tracked && i < 64; i++) {
        keep[i] = malloc((size_t)n * n * sizeof *x);
        gaps[i] = malloc(4096);
        dgemm_("N", "N", &n, &n, &n, &one, x, &n, x, &n, &zero, keep[i], &n, 1, 1);
    }
    printf("{\"tracked\": %d, \"small_ns\": %.1f, \"large_ns\": %.1f}\n", tracked, pairs_ns(pairs, rounds, 16, 65536),
           pairs_ns(pairs / 10, rounds, 1 << 20, 1 << 20));
    (void)gaps;
    return 0;
}

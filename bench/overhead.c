/* The cost the shim adds to a call that stays on the CPU: a 2 x 2 DGEMM through dgemm_, called CALLS times;
 * prints nanoseconds per call.  Run it with and without LD_PRELOAD=libgpushim.so and take the difference.
 * usage: overhead [CALLS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 2000000;
    int n = 2;
    double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4], one = 1, zero = 0;
    struct timespec t0, t1;
    for (long i = 0; i < calls / 10; i++) /* warm up: resolves symbols, initialises the shim */
        dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < calls; i++)
        dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)calls;
    printf("{\"calls\": %ld, \"ns_per_call\": %.1f, \"check\": %g}\n", calls, ns, c[0]);
    return 0;
}

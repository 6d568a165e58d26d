/* The cost the shim adds to a call that stays on the CPU.  A 2 x 2 DGEMM is called alternately through the
 * symbol dgemm_ (which the shim interposes when preloaded) and through a pointer to the CPU library's own
 * dgemm_ (found with dlsym on that library, so never interposed), ROUNDS rounds of CALLS calls each; the
 * fastest round of each is kept, which discards the noise of a shared machine.  Without the shim the two
 * agree (a control); with it the difference is the shim's cost per call.
 * usage: overhead [CALLS [ROUNDS]]; prints one JSON object. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void dgemm_t(const char *, const char *, const int *, const int *, const int *, const double *,
                     const double *, const int *, const double *, const int *, const double *, double *,
                     const int *, size_t, size_t);
dgemm_t dgemm_;

/* Operands in static, aligned storage: on the stack their placement moves with the size of the environment
 * (LD_PRELOAD among it), which changed the library's own time by a third on the H200 machine. */
static _Alignas(64) double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4];
static const double one = 1, zero = 0;
static const int n = 2;

static double round_ns(dgemm_t *f, long calls)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < calls; i++)
        f("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (c[0] != 23)
        abort();
    return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)calls;
}

int main(int argc, char **argv)
{
    long calls = argc > 1 ? atol(argv[1]) : 200000;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    /* dgemm_ may be the shim's; the CPU library is the one the program was linked with, libopenblas.so.0 */
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
    dgemm_t *direct = lib ? (dgemm_t *)dlsym(lib, "dgemm_") : NULL;
    if (!direct) {
        fprintf(stderr, "overhead: cannot find libopenblas.so.0's dgemm_\n");
        return 1;
    }
    double best_sym = 1e30, best_direct = 1e30;
    round_ns(dgemm_, calls / 10); /* warm up: resolves symbols, initialises the shim */
    for (int r = 0; r < rounds; r++) {
        double s = round_ns(dgemm_, calls), d = round_ns(direct, calls);
        best_sym = s < best_sym ? s : best_sym;
        best_direct = d < best_direct ? d : best_direct;
    }
    printf("{\"calls\": %ld, \"rounds\": %d, \"through_symbol_ns\": %.1f, \"direct_ns\": %.1f, \"added_ns\": %.1f}\n",
           calls, rounds, best_sym, best_direct, best_sym - best_direct);
    return 0;
}

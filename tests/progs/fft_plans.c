/* FFTW3 programs' plans of every planner kind (basic, advanced, guru, guru64; dft, r2c, c2r; ranks 1 to 4,
 * howmany, strides, in and out of place, both signs, both precisions), each executed with execute and with
 * its new-array execute; prints a hash of every result.  tests/t_fftw.sh runs it with and without the shim and
 * compares the outputs bit for bit: both are the real FFTW's. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fftw3.h>

#define BUF_REALS (1 << 16)

/* Deterministic values in [-1, 1) for n reals of size es. */
static void fill(void *x, size_t n, size_t es, unsigned seed)
{
    uint64_t s = 0x9E3779B97F4A7C15ull * (seed + 1);
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double v = (double)(s >> 11) / (double)(1ull << 53) * 2 - 1;
        if (es == sizeof(double))
            ((double *)x)[i] = v;
        else
            ((float *)x)[i] = (float)v;
    }
}

/* FNV-1a of the bytes. */
static uint64_t hash(const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

static void *fftw_bufs[4], *fftwf_bufs[4];

#define R double
#define P(x) fftw_##x
#define NAME "fftw_ "
#include "fft_plans.h"
#undef R
#undef P
#undef NAME

#define R float
#define P(x) fftwf_##x
#define NAME "fftwf_ "
#include "fft_plans.h"
#undef R
#undef P
#undef NAME

/* A plan made in the parent, executed in a forked child and then in the parent: the child's registry still
 * knows it (tests/t_fftw.sh, "fork"). */
static int fork_case(void)
{
    fftw_complex *a = fftw_malloc(64 * sizeof *a), *b = fftw_malloc(64 * sizeof *b);
    fftw_plan p = fftw_plan_dft_1d(64, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    fill(a, 128, sizeof(double), 3);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fftw_execute(p);
        printf("child %016llx\n", (unsigned long long)hash(b, 64 * sizeof *b));
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    fftw_execute(p);
    printf("parent %016llx\n", (unsigned long long)hash(b, 64 * sizeof *b));
    fftw_destroy_plan(p);
    fftw_free(a);
    fftw_free(b);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* A plan made through FFTW's own handle with the guru64 planner, as Julia's FFTW.jl makes its plans, which no
 * preloaded library sees (guru64 calls no other planner through the PLT, where the shim would see it), then
 * executed through the ordinary symbol: the shim does not know the plan, and FFTW runs it (tests/t_fftw.sh,
 * "unknown plan"). */
typedef fftw_plan guru64_fn(int, const fftw_iodim64 *, int, const fftw_iodim64 *, fftw_complex *, fftw_complex *,
                            int, unsigned);

static int handle_case(void)
{
    void *h = dlopen("libfftw3.so.3", RTLD_LAZY | RTLD_NOLOAD);
    guru64_fn *guru64 = h ? (guru64_fn *)dlsym(h, "fftw_plan_guru64_dft") : NULL;
    if (!guru64)
        return 1;
    fftw_complex *a = fftw_malloc(60 * sizeof *a), *b = fftw_malloc(60 * sizeof *b);
    const fftw_iodim64 d = {60, 1, 1};
    fftw_plan p = guru64(1, &d, 0, NULL, a, b, FFTW_BACKWARD, FFTW_ESTIMATE);
    fill(a, 120, sizeof(double), 4);
    fftw_execute(p);
    printf("handle %016llx\n", (unsigned long long)hash(b, 60 * sizeof *b));
    fftw_destroy_plan(p);
    fftw_free(a);
    fftw_free(b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "handle") == 0)
        return handle_case();
    if (argc > 1 && strcmp(argv[1], "fork") == 0)
        return fork_case();
    fftw_cases();
    fftwf_cases();
    return 0;
}

/* FFTW plans of the kinds the GPU path never takes: real-to-real (every r2r planner) and split arrays (the guru
 * split planners), in both precisions, each executed twice with fftw_execute.  Prints a hash of each output, which
 * tests/t_fftw.sh compares with the run without the shim; the log gives each execute's reason.
 * usage: fft_other */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 24

static uint64_t hash(const void *p, size_t bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

#define PREC(pre, real)                                                                                          \
    static void pre##run(const char *name, pre##plan p, const real *out, size_t n)                                 \
    {                                                                                                            \
        if (!p) {                                                                                                \
            printf(#pre " %s null\n", name);                                                                     \
            return;                                                                                              \
        }                                                                                                        \
        pre##execute(p);                                                                                         \
        pre##execute(p);                                                                                         \
        printf(#pre " %s %016llx\n", name, (unsigned long long)hash(out, n * sizeof *out));                     \
        pre##destroy_plan(p);                                                                                    \
    }                                                                                                            \
    static void pre##all(void)                                                                                   \
    {                                                                                                            \
        static real a[4 * N * N * N], b[4 * N * N * N], c[4 * N * N * N], d[4 * N * N * N];                    \
        for (int i = 0; i < 4 * N * N * N; i++)                                                                  \
            a[i] = (real)((i * 37) % 101) / 50 - 1, c[i] = (real)((i * 11) % 53) / 26 - 1;                       \
        const int n[] = {N, N, N};                                                                               \
        const pre##r2r_kind k[] = {FFTW_REDFT10, FFTW_RODFT00, FFTW_DHT};                                        \
        pre##iodim dim = {N, 1, 1}, how = {4, N, N};                                                             \
        pre##iodim64 dim64 = {N, 1, 1}, how64 = {4, N, N};                                                       \
        pre##run("r2r_1d", pre##plan_r2r_1d(N, a, b, FFTW_REDFT00, FFTW_ESTIMATE), b, N);                        \
        pre##run("r2r_2d", pre##plan_r2r_2d(N, N, a, b, k[0], k[1], FFTW_ESTIMATE), b, N * N);                   \
        pre##run("r2r_3d", pre##plan_r2r_3d(N, N, N, a, b, k[0], k[1], k[2], FFTW_ESTIMATE), b, N * N * N);      \
        pre##run("r2r", pre##plan_r2r(2, n, a, b, k, FFTW_ESTIMATE), b, N * N);                                  \
        pre##run("many_r2r", pre##plan_many_r2r(1, n, 4, a, NULL, 1, N, b, NULL, 1, N, k + 2, FFTW_ESTIMATE), b,  \
                 4 * N);                                                                                         \
        pre##run("guru_r2r", pre##plan_guru_r2r(1, &dim, 1, &how, a, b, k, FFTW_ESTIMATE), b, 4 * N);            \
        pre##run("guru64_r2r", pre##plan_guru64_r2r(1, &dim64, 1, &how64, a, b, k, FFTW_ESTIMATE), b, 4 * N);    \
        pre##run("split_dft", pre##plan_guru_split_dft(1, &dim, 1, &how, a, c, b, d, FFTW_ESTIMATE), d, 4 * N);  \
        pre##run("split_r2c", pre##plan_guru_split_dft_r2c(1, &dim, 1, &how, a, b, d, FFTW_ESTIMATE), d, 4 * N); \
        pre##run("split_c2r", pre##plan_guru64_split_dft_c2r(1, &dim64, 1, &how64, a, c, b, FFTW_ESTIMATE), b,  \
                 4 * N);                                                                                         \
    }
PREC(fftw_, double)
PREC(fftwf_, float)

int main(void)
{
    fftw_all();
    fftwf_all();
    return 0;
}

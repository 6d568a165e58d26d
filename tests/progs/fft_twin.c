/* Small plans made on THREADS threads (tests/t_fftw.sh, "twins"): a c2c of 1024 points through fftw_execute,
 * an r2c of 32 x 32 and its c2r through the new-array executes on other arrays, a single-precision c2c of 256
 * and a c2c of 2^16 points (too large for a one-thread twin), each executed STEPS times, the first two destroyed and made again half-way, then fftw_cleanup.  Prints
 * one line per execute: the case, the step and every output value with 17 significant digits, which the test
 * compares with a run without the shim within a tolerance (a one-thread twin is another FFTW plan).
 * usage: fft_twin THREADS STEPS */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void put(const char *name, int step, const double *v, size_t n)
{
    printf("%s %d", name, step);
    for (size_t i = 0; i < n; i++)
        printf(" %.17g", v[i]);
    printf("\n");
}

static void fill(double *v, size_t n, int step)
{
    for (size_t i = 0; i < n; i++)
        v[i] = sin(0.37 * (double)i + step) + 0.25 * cos(1.3 * (double)i * (double)i);
}

int main(int argc, char **argv)
{
    int threads = argc > 2 ? atoi(argv[1]) : 0, steps = argc > 2 ? atoi(argv[2]) : 0;
    if (threads < 1 || steps < 2) {
        fprintf(stderr, "usage: fft_twin THREADS STEPS\n");
        return 2;
    }
    if (!fftw_init_threads() || !fftwf_init_threads())
        return 1;
    fftw_plan_with_nthreads(threads);
    fftwf_plan_with_nthreads(threads);
    fftw_complex *a = fftw_alloc_complex(1024), *b = fftw_alloc_complex(1024);
    double *r = fftw_alloc_real(2 * 32 * 32);
    fftw_complex *h = fftw_alloc_complex(32 * 17), *h2 = fftw_alloc_complex(32 * 17);
    double *r2 = fftw_alloc_real(32 * 32);
    fftwf_complex *fa = fftwf_alloc_complex(256);
    fftw_complex *big = fftw_alloc_complex(1 << 16);
    fftw_plan pbig = fftw_plan_dft_1d(1 << 16, big, big, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan c2c = NULL, r2c = NULL;
    fftw_plan c2r = fftw_plan_dft_c2r_2d(32, 32, h2, r2, FFTW_MEASURE);
    fftwf_plan fc2c = fftwf_plan_dft_1d(256, fa, fa, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int s = 0; s < steps; s++) {
        if (s == 0 || s == steps / 2) { /* made afresh: the twin of the old plan must not serve the new one */
            if (c2c)
                fftw_destroy_plan(c2c), fftw_destroy_plan(r2c);
            c2c = fftw_plan_dft_1d(1024, a, b, s ? FFTW_BACKWARD : FFTW_FORWARD, FFTW_MEASURE);
            r2c = fftw_plan_dft_r2c_2d(32, 32, r, h, FFTW_MEASURE);
        }
        if (!c2c || !r2c || !c2r || !fc2c || !pbig)
            return 1;
        fill((double *)a, 2048, s);
        fftw_execute(c2c);
        put("c2c", s, (double *)b, 2048);
        fill(r2, 32 * 32, s); /* the new-array r2c reads r2, writes h2; the c2r reads (and destroys) h2, writes r */
        fftw_execute_dft_r2c(r2c, r2, h2);
        put("r2c", s, (double *)h2, 2 * 32 * 17);
        fftw_execute_dft_c2r(c2r, h2, r);
        put("c2r", s, r, 32 * 32);
        double d[512];
        for (int i = 0; i < 512; i++)
            ((float *)fa)[i] = (float)sin(0.1 * i + s);
        fftwf_execute(fc2c);
        for (int i = 0; i < 512; i++)
            d[i] = ((float *)fa)[i];
        put("fc2c", s, d, 512);
        fill((double *)big, 2 << 16, s);
        fftw_execute(pbig);
        put("big", s, (double *)big, 64); /* (the first 32 values: the line stays short) */
    }
    fftw_destroy_plan(c2c);
    fftw_destroy_plan(r2c);
    fftw_destroy_plan(c2r);
    fftwf_destroy_plan(fc2c);
    fftw_destroy_plan(pbig);
    fftw_free(a), fftw_free(b), fftw_free(r), fftw_free(h), fftw_free(h2), fftw_free(r2), fftwf_free(fa);
    fftw_free(big);
    fftw_cleanup_threads();
    fftwf_cleanup_threads();
    return 0;
}

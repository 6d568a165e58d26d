/* FFTW_MEASURE plans that gpushim may make with FFTW_ESTIMATE and measure only if the CPU runs them
 * (GPUSHIM_FFTW_DEFER; families/fftw/planners.c): an in-place r2c of N^3 and its c2r, the array filled before
 * planning.  Prints for each of STEPS steps (r2c, a multiply, c2r) the field's sum of squares, which
 * tests/t_fftw.sh compares with a run without the shim; each third step runs through the new-array executes on
 * a second array, so that the plans serve arrays other than their own.  Whether the planners left the array as
 * it was, and their seconds, go to standard error.  usage: fft_defer [N [STEPS]] */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double gs_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 6, nh = n / 2 + 1;
    if (n < 2 || steps < 1)
        return fprintf(stderr, "usage: fft_defer [N [STEPS]]\n"), 2;
    size_t cells = (size_t)n * n * 2 * nh; /* in place: each last row padded to 2 (n / 2 + 1) reals */
    double *u = fftw_alloc_real(cells), *v = fftw_alloc_real(cells), *first = malloc(cells * sizeof *first);
    for (size_t i = 0; i < cells; i++)
        u[i] = first[i] = sin(0.001 * (double)i) + (i % 7 == 0);
    double t0 = gs_seconds();
    fftw_plan fwd = fftw_plan_dft_r2c_3d(n, n, n, u, (fftw_complex *)u, FFTW_MEASURE);
    fftw_plan bwd = fftw_plan_dft_c2r_3d(n, n, n, (fftw_complex *)u, u, FFTW_MEASURE);
    fprintf(stderr, "intact %d\nplanned in %.3f s\n", memcmp(u, first, cells * sizeof *u) == 0, gs_seconds() - t0);
    memcpy(u, first, cells * sizeof *u); /* as FFTW's manual asks: the data set after planning */
    for (int t = 0; t < steps; t++) {
        double *a = t % 3 == 2 ? v : u;
        fftw_complex *s = (fftw_complex *)a;
        if (a == v)
            memcpy(v, u, cells * sizeof *v);
        if (a == u)
            fftw_execute(fwd);
        else
            fftw_execute_dft_r2c(fwd, a, s);
        for (size_t c = 0; c < (size_t)n * n * nh; c++) {
            double f = exp(-1e-3 * (double)(c % (size_t)nh)) / ((double)n * n * n);
            s[c][0] *= f, s[c][1] *= f;
        }
        if (a == u)
            fftw_execute(bwd);
        else
            fftw_execute_dft_c2r(bwd, s, a);
        if (a == v)
            memcpy(u, v, cells * sizeof *u);
        double ss = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++) {
                    double x = u[((size_t)i * n + j) * 2 * nh + k];
                    ss += x * x;
                }
        printf("step %d %.15e\n", t + 1, ss);
    }
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(u);
    fftw_free(v);
    free(first);
    return 0;
}

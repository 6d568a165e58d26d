/* The heat equation on a periodic 3D grid by its spectrum, as a C program written against FFTW steps it: an
 * in-place r2c transform, a multiply, the c2r back, with FFTW_MEASURE plans on FFTW's threads.  Writes the
 * field's norm and a line of it.  usage: fftw_heat SIZE OUT (bench/apps/run.py) */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: fftw_heat small|medium|large OUT\n"), 2;
    int n = strcmp(argv[1], "small") == 0 ? 32 : strcmp(argv[1], "medium") == 0 ? 128 : 256;
    int steps = strcmp(argv[1], "large") == 0 ? 40 : 10, nh = n / 2 + 1;
    fftw_init_threads();
    fftw_plan_with_nthreads((int)sysconf(_SC_NPROCESSORS_ONLN));
    size_t cells = (size_t)n * n * 2 * nh; /* in place: each last row padded to 2 (n / 2 + 1) reals */
    double *u = fftw_alloc_real(cells);
    fftw_complex *s = (fftw_complex *)u;
    fftw_plan fwd = fftw_plan_dft_r2c_3d(n, n, n, u, s, FFTW_MEASURE);
    fftw_plan bwd = fftw_plan_dft_c2r_3d(n, n, n, s, u, FFTW_MEASURE);
    for (int i = 0; i < n; i++) /* a hot cube in a cold box (planning overwrote the array) */
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                u[((size_t)i * n + j) * 2 * nh + k] = (abs(i - n / 2) < n / 8 && abs(j - n / 2) < n / 8 &&
                                                       abs(k - n / 2) < n / 8) ? 1.0 : 0.0;
    for (int t = 0; t < steps; t++) {
        fftw_execute(fwd);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < nh; k++) {
                    double ki = i <= n / 2 ? i : i - n, kj = j <= n / 2 ? j : j - n;
                    double f = exp(-1e-3 * (ki * ki + kj * kj + (double)k * k)) / ((double)n * n * n);
                    size_t c = ((size_t)i * n + j) * nh + k;
                    s[c][0] *= f, s[c][1] *= f;
                }
        fftw_execute(bwd);
    }
    double norm = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double v = u[((size_t)i * n + j) * 2 * nh + k];
                norm += v * v;
            }
    FILE *f = fopen(argv[2], "w");
    if (!f)
        return perror(argv[2]), 1;
    fprintf(f, "norm %.17g\nline", sqrt(norm));
    for (int k = 0; k < n; k++)
        fprintf(f, " %.17g", u[((size_t)(n / 2) * n + n / 2) * 2 * nh + k]);
    fprintf(f, "\n");
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(u);
    return fclose(f) != 0;
}

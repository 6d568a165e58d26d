/* Out-of-place batched transforms (1024 x 4096-point c2c, 64 MiB each side) whose input the CPU rewrites
 * before every execute, as real programs' inputs are: tests/t_fftw.sh ("fresh inputs") checks from the log that
 * the policy counts the input's copy at every execute, which keeps these on the CPU.  Prints a checksum per
 * step for the comparison with a run without the shim.
 * usage: fft_fresh STEPS */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4096, HOWMANY = 1024 };

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 0;
    if (steps <= 0) {
        fprintf(stderr, "usage: fft_fresh STEPS\n");
        return 2;
    }
    fftw_complex *in = fftw_alloc_complex((size_t)N * HOWMANY), *out = fftw_alloc_complex((size_t)N * HOWMANY);
    const int n[] = {N};
    fftw_plan p = fftw_plan_many_dft(1, n, HOWMANY, in, NULL, 1, N, out, NULL, 1, N, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int s = 0; s < steps; s++) {
        for (size_t i = 0; i < (size_t)N * HOWMANY; i++)
            in[i][0] = (double)((i * 7 + (size_t)s) % 13) - 6, in[i][1] = (double)((i * 3 + (size_t)s) % 5) - 2;
        fftw_execute(p);
        double sum = 0;
        for (size_t i = 0; i < (size_t)N * HOWMANY; i += 4099)
            sum += out[i][0] - out[i][1];
        printf("step %d %.10e\n", s + 1, sum);
    }
    fftw_destroy_plan(p);
    fftw_free(in);
    fftw_free(out);
    return 0;
}

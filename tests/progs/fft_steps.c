/* A time-stepping pattern on one in-place FFTW plan (2^21 complex doubles, 32 MiB): the first CHANGED steps
 * change the array on the CPU before the execute, the others execute on the previous output as it is.  Prints
 * the array's sum of squares after each step, which tests/t_cache.sh ("resting") compares with a run without
 * the shim, while the log shows which executes found the array on the device.  LOG2N (default 21) sets the
 * size, smaller for tests/t_faults.sh, which runs it once per injection point.
 * usage: fft_steps STEPS CHANGED [LOG2N] */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int steps = argc > 2 ? atoi(argv[1]) : 0, changed = argc > 2 ? atoi(argv[2]) : 0;
    int log2n = argc > 3 ? atoi(argv[3]) : 21, N = 1 << (log2n > 0 && log2n < 28 ? log2n : 21);
    if (steps <= 0 || changed < 0) {
        fprintf(stderr, "usage: fft_steps STEPS CHANGED [LOG2N]\n");
        return 2;
    }
    fftw_complex *a = fftw_alloc_complex(N);
    fftw_plan p = fftw_plan_dft_1d(N, a, a, FFTW_FORWARD, FFTW_ESTIMATE);
    for (int i = 0; i < N; i++)
        a[i][0] = sin(0.001 * i), a[i][1] = cos(0.003 * i);
    for (int s = 0; s < steps; s++) {
        if (s < changed) /* the CPU's part of a step, scaled to keep the values in range */
            for (int i = 0; i < N; i++)
                a[i][0] *= 1.0 / N, a[i][1] *= -1.0 / N;
        fftw_execute(p);
        double ss = 0;
        for (int i = 0; i < N; i++)
            ss += a[i][0] * a[i][0] + a[i][1] * a[i][1];
        printf("step %d %.12e\n", s + 1, ss);
    }
    fftw_destroy_plan(p);
    fftw_free(a);
    return 0;
}

/* The scale kernels' parameters (scale.cu), shared by the library (src/backend/cuda_kernels.c), which launches
 * them, and the test stand-in (tests/standin/kernels.c), which runs them on the host.  Plain C, read by nvcc and
 * the C compiler alike. */
#ifndef GS_SCALE_H
#define GS_SCALE_H

/* Real element i of n (a complex array's real and imaginary parts in turn) is multiplied by re when i is even
 * and by im when it is odd: a factor (re = im, NumPy's norm), or a factor and a conjugation (im = -re). */
typedef struct {
    long long n;
    double re, im;
} gs_scale_t;

/* The kernels, one per real type: gs_scale4 (float) and gs_scale8 (double), each taking (void *x, gs_scale_t p). */
#define GS_SCALE_KERNELS(X) X(4) X(8)

#endif

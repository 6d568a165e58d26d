/* The finite-check kernels' parameters (finite.cu), shared by the library (src/backend/cuda_kernels.c), which
 * launches them, and the test stand-in (tests/standin/kernels.c), which runs them on the host.  Plain C, read by
 * nvcc and the C compiler alike. */
#ifndef GS_FINITE_H
#define GS_FINITE_H

/* A column-major matrix of reals (a complex matrix's real and imaginary parts as two rows each): rows x cols, ld
 * apart; *flag is set to 1 when any element is an infinity or a NaN, and left as it was otherwise. */
typedef struct {
    long long rows, cols, ld;
} gs_finite_t;

/* The kernels, one per real type: gs_finite4 (float) and gs_finite8 (double), each taking
 * (const void *x, gs_finite_t p, int *flag). */
#define GS_FINITE_KERNELS(X) X(4) X(8)

#endif

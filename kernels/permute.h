/* The permutation kernels' parameters (permute.cu), shared by the library (src/backend/cuda_kernels.c), which
 * launches them, and the test stand-in (tests/standin/kernels.c), which runs them on the host.  Plain C, read
 * by nvcc and the C compiler alike. */
#ifndef GS_PERMUTE_H
#define GS_PERMUTE_H

/* Most dimensions a permutation has. */
#define GS_PERMUTE_DIMS 8

/* Element (x0, ..., x[nd-1]), 0 <= xk < n[k], is read at src + sum xk src[k] and written at dst + sum xk dst[k],
 * strides in elements; total is the product of the sizes. */
typedef struct {
    long long n[GS_PERMUTE_DIMS];
    long long src[GS_PERMUTE_DIMS];
    long long dst[GS_PERMUTE_DIMS];
    long long total;
    int nd;
} gs_permute_t;

/* The kernels, one per element size: gs_permute4 (a float), gs_permute8 (a double or a complex float) and
 * gs_permute16 (a complex double), each taking (const void *src, void *dst, gs_permute_t p). */
#define GS_PERMUTE_KERNELS(X) X(4) X(8) X(16)

#endif

/* Strided copies of n-dimensional arrays on the device (permute.h): an FFTW plan whose strides no cuFFT layout
 * expresses (a transposed output, several howmany dimensions) is gathered into a contiguous array, transformed
 * there by cuFFT and scattered into its own layout (src/backend/cuda_fft.c).  One thread an element, in a
 * grid-stride loop; the element's index is split into its coordinates, innermost last, and each side's offset
 * summed from its strides. */
#include "permute.h"

template <typename T>
__device__ void gs_permute(const T *__restrict__ src, T *__restrict__ dst, const gs_permute_t &p)
{
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.total; i += step) {
        long long r = i, s = 0, d = 0;
        for (int k = p.nd - 1; k >= 0; k--) {
            long long x = r % p.n[k];
            r /= p.n[k];
            s += x * p.src[k];
            d += x * p.dst[k];
        }
        dst[d] = src[s];
    }
}

struct gs_e16 {
    double a, b;
};

extern "C" __global__ void gs_permute4(const void *src, void *dst, gs_permute_t p)
{
    gs_permute((const float *)src, (float *)dst, p);
}

extern "C" __global__ void gs_permute8(const void *src, void *dst, gs_permute_t p)
{
    gs_permute((const double *)src, (double *)dst, p);
}

extern "C" __global__ void gs_permute16(const void *src, void *dst, gs_permute_t p)
{
    gs_permute((const gs_e16 *)src, (gs_e16 *)dst, p);
}

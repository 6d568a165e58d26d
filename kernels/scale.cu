/* The output of a transform multiplied by a factor on the device, before it is copied back (NumPy's norm of a
 * transform run by cuFFT, src/backend/cuda_fft.c): one thread a real element, in a grid-stride loop. */
#include "scale.h"

template <typename T>
__device__ void gs_scale(T *x, const gs_scale_t &p)
{
    T re = (T)p.re, im = (T)p.im;
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n; i += step)
        x[i] *= i & 1 ? im : re;
}

extern "C" __global__ void gs_scale4(void *x, gs_scale_t p)
{
    gs_scale((float *)x, p);
}

extern "C" __global__ void gs_scale8(void *x, gs_scale_t p)
{
    gs_scale((double *)x, p);
}

/* Whether a matrix on the device holds an infinity or a NaN (SciPy's check_finite, run after the upload by
 * src/backend/cuda_lapack.c): one thread an element, in a grid-stride loop; any thread that finds one sets the
 * flag, which no thread clears. */
#include "finite.h"

template <typename T>
__device__ void gs_finite(const T *x, const gs_finite_t &p, int *flag)
{
    long long n = p.rows * p.cols, step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        if (!isfinite(x[i / p.rows * p.ld + i % p.rows]))
            *flag = 1;
}

extern "C" __global__ void gs_finite4(const void *x, gs_finite_t p, int *flag)
{
    gs_finite((const float *)x, p, flag);
}

extern "C" __global__ void gs_finite8(const void *x, gs_finite_t p, int *flag)
{
    gs_finite((const double *)x, p, flag);
}

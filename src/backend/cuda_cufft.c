/* cuFFT (cuda_fft.h): the library opened and its functions resolved once, at the first FFTW execute that goes
 * to the GPU; when that fails, FFTs run on the CPU after one notice. */
#include "backend/cuda_fft.h"

gs_cufft_t gs_fft;

/* Opens cuFFT and resolves every function: GS_OK, or GS_ENODEV with the reason in why. */
static int gs_fft_open(char *why, size_t n)
{
    void *h = gs_cuda_open("cufft", gs_cuda_major - 1, why, n);
    if (!h)
        return GS_ENODEV;
#define GS_X_LOAD(f) \
    if (gs_cuda_sym(h, #f, (void **)&gs_fft.f, "cuFFT", why, n) != GS_OK) \
        return GS_ENODEV;
    GS_CUFFT_FUNCS(GS_X_LOAD)
#undef GS_X_LOAD
    return GS_OK;
}

int gs_fft_up(gs_call_t *c)
{
    return gs_cuda_once(c, &gs_fft.loaded, gs_fft_open, "FFTs run on the CPU");
}

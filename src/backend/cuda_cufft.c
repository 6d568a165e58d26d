/* cuFFT (cuda_fft.h): the library opened and its functions resolved once, at the first FFTW execute that goes
 * to the GPU; when that fails, FFTs run on the CPU after one notice. */
#include "backend/cuda_fft.h"

gs_cufft_t gs_fft;

/* Opens cuFFT and resolves every function: GS_OK, or GS_ENODEV with the reason in gs_fft.why. */
static int gs_fft_open(void)
{
    void *h = gs_cuda_open("cufft", gs_cuda_major - 1, gs_fft.why, sizeof gs_fft.why);
    if (!h)
        return GS_ENODEV;
#define GS_X_LOAD(f) \
    if (gs_cuda_sym(h, #f, (void **)&gs_fft.f, "cuFFT", gs_fft.why, sizeof gs_fft.why) != GS_OK) \
        return GS_ENODEV;
    GS_CUFFT_FUNCS(GS_X_LOAD)
#undef GS_X_LOAD
    return GS_OK;
}

int gs_fft_up(gs_call_t *c)
{
    if (gs_fft.state == 0) {
        gs_fft.state = gs_fft_open() == GS_OK ? 1 : -1;
        if (gs_fft.state < 0 && !gs.opt.quiet)
            gs_msg("%s; FFTs run on the CPU", gs_fft.why);
    }
    if (gs_fft.state == 1)
        return GS_OK;
    c->why = gs_fft.why;
    return GS_ENODEV;
}

/* The devices' state (device.h): the slots, and the bring-up of one, whose streams, events and cuBLAS handle
 * then last as long as the process.  A forked child never uses them (the GPU is off there). */
#include "cuda/device.h"

gs_device_t gs_devices[GS_DEVICES_MAX];

void gs_current_save(gs_current_t *s)
{
    s->ctx = NULL;
    s->dev = 0;
    if (gs_cuda.cuCtxGetCurrent)
        gs_cuda.cuCtxGetCurrent(&s->ctx);
    gs_cuda.cudaGetDevice(&s->dev);
}

void gs_current_restore(const gs_current_t *s)
{
    int now = -1;
    if (gs_cuda.cuCtxSetCurrent && gs_cuda.cuCtxSetCurrent(s->ctx) == 0)
        return;
    if (gs_cuda.cudaGetDevice(&now) == cudaSuccess && now != s->dev)
        gs_cuda.cudaSetDevice(s->dev);
}

int gs_device_start(gs_call_t *c, int slot, int ordinal)
{
    gs_device_t *dv = &gs_devices[slot];
    dv->ordinal = ordinal;
    GS_CUDA(c, cudaSetDevice, (ordinal));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&dv->stream, cudaStreamNonBlocking));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&dv->up, cudaStreamNonBlocking));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&dv->down, cudaStreamNonBlocking));
    for (int i = 0; i < GS_EV_N; i++)
        GS_CUDA(c, cudaEventCreateWithFlags, (&dv->ev[i], cudaEventDisableTiming));
    GS_CUDA(c, cublasCreate_v2, (&dv->handle));
    GS_CUDA(c, cublasSetStream_v2, (dv->handle, dv->stream));
    return GS_OK;
}

/* The devices' state (device.h): the slots, and the bring-up of one, whose streams, events and cuBLAS handle
 * then last as long as the process.  A forked child never uses them (the GPU is off there). */
#include "cuda/device.h"

#include <stdio.h>
#include <stdlib.h>

gs_device_t gs_devices[GS_DEVICES_MAX];
atomic_int gs_ndevices;

int gs_device_list(int count, int *ordinal, char *why, size_t n)
{
    const gs_devlist_t *d = &gs.opt.devices;
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char seen[64];
    snprintf(seen, sizeof seen, "%s%s%s", visible ? " (CUDA_VISIBLE_DEVICES='" : "", visible ? visible : "",
             visible ? "')" : "");
    int k = 0;
    if (d->all) {
        for (; k < count && k < GS_DEVICES_MAX; k++)
            ordinal[k] = k;
        return k;
    }
    if (d->n == 0) {
        if (gs.opt.device < count)
            return ordinal[0] = gs.opt.device, 1;
        snprintf(why, n, "GPUSHIM_DEVICE=%d, but there are only %d devices%s", gs.opt.device, count, seen);
        return 0;
    }
    for (int i = 0; i < d->n; i++) {
        if (d->ordinal[i] < count)
            ordinal[k++] = d->ordinal[i];
        else
            gs_msg("GPUSHIM_DEVICES lists device %d, but there are only %d devices%s: it is not used",
                   d->ordinal[i], count, seen);
    }
    if (k == 0)
        snprintf(why, n, "GPUSHIM_DEVICES: none of its devices exists (there are %d devices%s)", count, seen);
    return k;
}

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

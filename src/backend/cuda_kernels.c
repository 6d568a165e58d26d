/* The kernels of kernels/ (cuda_kernels.h): the fatbin that make embeds (build/kernels/kernels_fatbin.c) loaded
 * once with cudaLibraryLoadData, a library the runtime loads into each device's context as it is used; each
 * kernel's handle looked up by name and launched with cudaLaunchKernel. */
#include <stdio.h>

#include "backend/cuda_kernels.h"

extern const unsigned char gs_kernels_fatbin[] __attribute__((visibility("hidden")));

/* Written under the GPU lock. */
static struct {
    int state; /* 0: not tried, 1: loaded, -1: failed (why) */
    char why[200];
    cudaLibrary_t lib;
    cudaKernel_t permute[3]; /* by element size: 4, 8, 16 bytes */
} gs_kern;

/* Loads the library and looks its kernels up, once.  With the GPU lock held. */
static int gs_kernels_up(gs_call_t *c)
{
    if (gs_kern.state == 0) {
        static const char *const names[3] = {"gs_permute4", "gs_permute8", "gs_permute16"};
        const char *what = "cudaLibraryLoadData";
        int st = gs_cuda.cudaLibraryLoadData(&gs_kern.lib, gs_kernels_fatbin, NULL, NULL, 0, NULL, NULL, 0);
        for (int i = 0; i < 3 && st == 0; i++)
            if ((st = gs_cuda.cudaLibraryGetKernel(&gs_kern.permute[i], gs_kern.lib, names[i])) != 0)
                what = names[i];
        gs_kern.state = st == 0 ? 1 : -1;
        if (st != 0) {
            gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches (cuda_call.c) */
            snprintf(gs_kern.why, sizeof gs_kern.why, "gpu: gpushim's kernels did not load (%s: %s)", what,
                     gs_cuda.cudaGetErrorString(st));
            if (!gs.opt.quiet)
                gs_msg("%s; transforms that need them run on the CPU", gs_kern.why);
        }
    }
    if (gs_kern.state < 0) {
        gs_call_why(c, "%s", gs_kern.why);
        return GS_ENODEV;
    }
    return GS_OK;
}

int gs_kernel_permute(gs_call_t *c, const void *src, void *dst, const gs_permute_t *p, size_t es)
{
    int rc = gs_kernels_up(c);
    if (rc != GS_OK || p->total == 0)
        return rc;
    gs_permute_t arg = *p;
    void *args[] = {(void *)&src, (void *)&dst, &arg};
    long long blocks = (p->total + 255) / 256;
    dim3 grid = {(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1}, block = {256, 1, 1};
    cudaKernel_t k = gs_kern.permute[es == 4 ? 0 : es == 8 ? 1 : 2];
    GS_CUDA(c, cudaLaunchKernel, ((const void *)k, grid, block, args, 0, gs_dev(c)->stream));
    return GS_OK;
}

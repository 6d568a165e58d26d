/* The kernels of kernels/ (cuda_kernels.h): the fatbin that make embeds (build/kernels/kernels_fatbin.c) loaded
 * once with cudaLibraryLoadData, a library the runtime loads into each device's context as it is used; each
 * kernel's handle looked up by name and launched with cudaLaunchKernel. */
#include <stdio.h>

#include "backend/cuda_kernels.h"

extern const unsigned char gs_kernels_fatbin[] __attribute__((visibility("hidden")));

/* Written under the GPU lock. */
static struct {
    gs_once_t loaded;
    cudaLibrary_t lib;
    cudaKernel_t permute[3]; /* by element size: 4, 8, 16 bytes */
} gs_kern;

/* Loads the library and looks its kernels up: GS_OK, or GS_ENODEV with the reason in why. */
static int gs_kernels_open(char *why, size_t n)
{
    static const char *const names[3] = {"gs_permute4", "gs_permute8", "gs_permute16"};
    const char *what = "cudaLibraryLoadData";
    int st = GS_CALLED(cudaLibraryLoadData, (&gs_kern.lib, gs_kernels_fatbin, NULL, NULL, 0, NULL, NULL, 0));
    for (int i = 0; i < 3 && st == 0; i++)
        if ((st = GS_CALLED(cudaLibraryGetKernel, (&gs_kern.permute[i], gs_kern.lib, names[i]))) != 0)
            what = names[i];
    if (st == 0)
        return GS_OK;
    gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches (cuda_call.c) */
    snprintf(why, n, "gpu: gpushim's kernels did not load (%s: %s)", what, gs_cuda.cudaGetErrorString(st));
    return GS_ENODEV;
}

int gs_kernel_permute(gs_call_t *c, const void *src, void *dst, const gs_permute_t *p, size_t es)
{
    int rc = gs_cuda_once(c, &gs_kern.loaded, gs_kernels_open, "transforms that need them run on the CPU");
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

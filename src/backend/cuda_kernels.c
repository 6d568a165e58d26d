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
    cudaKernel_t k[7]; /* gs_kern_names' */
} gs_kern;

/* The permutations by element size (4, 8, 16 bytes), then the scales and the finite checks by real size (4, 8). */
static const char *const gs_kern_names[7] = {"gs_permute4", "gs_permute8", "gs_permute16", "gs_scale4",
                                             "gs_scale8",   "gs_finite4",  "gs_finite8"};

/* Loads the library and looks its kernels up: GS_OK, or GS_ENODEV with the reason in why. */
static int gs_kernels_open(char *why, size_t n)
{
    const char *what = "cudaLibraryLoadData";
    int st = GS_CALLED(cudaLibraryLoadData, (&gs_kern.lib, gs_kernels_fatbin, NULL, NULL, 0, NULL, NULL, 0));
    for (int i = 0; i < 7 && st == 0; i++)
        if ((st = GS_CALLED(cudaLibraryGetKernel, (&gs_kern.k[i], gs_kern.lib, gs_kern_names[i]))) != 0)
            what = gs_kern_names[i];
    if (st == 0)
        return GS_OK;
    gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches (cuda_call.c) */
    snprintf(why, n, "gpu: gpushim's kernels did not load (%s: %s)", what, gs_cuda.cudaGetErrorString(st));
    return GS_ENODEV;
}

/* Queues kernel k over n elements, one thread each in blocks of 256, with its arguments args. */
static int gs_kernel_launch(gs_call_t *c, int k, long long n, void **args)
{
    int rc = gs_cuda_once(c, &gs_kern.loaded, gs_kernels_open, "transforms that need them run on the CPU");
    if (rc != GS_OK || n == 0)
        return rc;
    long long blocks = (n + 255) / 256;
    dim3 grid = {(unsigned)(blocks < 65536 ? blocks : 65536), 1, 1}, block = {256, 1, 1};
    GS_CUDA(c, cudaLaunchKernel, ((const void *)gs_kern.k[k], grid, block, args, 0, gs_dev(c)->stream));
    return GS_OK;
}

int gs_kernel_permute(gs_call_t *c, const void *src, void *dst, const gs_permute_t *p, size_t es)
{
    gs_permute_t arg = *p;
    void *args[] = {(void *)&src, (void *)&dst, &arg};
    return gs_kernel_launch(c, es == 4 ? 0 : es == 8 ? 1 : 2, p->total, args);
}

int gs_kernel_scale(gs_call_t *c, void *x, const gs_scale_t *p, size_t rs)
{
    gs_scale_t arg = *p;
    void *args[] = {&x, &arg};
    return gs_kernel_launch(c, rs == 4 ? 3 : 4, p->n, args);
}

int gs_kernel_finite(gs_call_t *c, const void *x, const gs_finite_t *p, size_t rs, int *flag)
{
    gs_finite_t arg = *p;
    void *args[] = {(void *)&x, &arg, &flag};
    return gs_kernel_launch(c, rs == 4 ? 5 : 6, p->rows * p->cols, args);
}

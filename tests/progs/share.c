/* A program that uses the GPU itself beside the shim, as PyTorch or CuPy would (tests/t_share.sh): linked
 * to the CUDA runtime (the stand-in's, in CI), it makes device 1 current, lets the shim run and cache a few
 * DGEMMs, then allocates 95% of the device for itself.  That must succeed: the shim gives its cached memory
 * back.  Its own last error must be clean after it, its current device still 1.  Holding that memory, it calls
 * DGEMM again (the shim has no room: the CPU runs it), frees it and calls once more.  Each product goes to the
 * result file, for blas_cmp against a run without the shim; what it saw goes to stdout.  With "driver", it
 * allocates as a statically linked runtime does: cuMemAlloc from the driver's cuGetProcAddress, itself from
 * dlsym of libcuda.so.1 (build/tests/fakecuda's, in the tests).  With "wide", the products are 128 x N, of a
 * 128 x 128 A and a 128 x N B: wide enough for GPUSHIM_DEVICES to split them, so that the shim caches a part of
 * each on device 1 too.
 * usage: share RESULT-FILE [N [driver|wide]] */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "results.h"

static int m = 1024, n = 1024, k = 1024;
static double *a, *b, *c;

static void product(FILE *f, const char *label)
{
    double one = 1, zero = 0;
    dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    result_write(f, label, 1, c, (int64_t)m * n);
}

/* 95% of the device through the driver's entry points, as CuPy's and XLA's runtimes reach them. */
static int driver_malloc(void **p, size_t bytes)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    CUresult (*gpa)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        h ? (CUresult(*)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *))dlsym(
                h, "cuGetProcAddress_v2")
          : NULL;
    CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
    CUdriverProcAddressQueryResult found;
    if (!gpa || gpa("cuMemAlloc", (void **)&alloc, 13000, 0, &found) != CUDA_SUCCESS || !alloc)
        return fprintf(stderr, "share: no cuMemAlloc from libcuda.so.1's cuGetProcAddress\n"), -1;
    CUdeviceptr d = 0;
    CUresult st = alloc(&d, bytes);
    *p = (void *)d;
    return st;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (argc > 2)
        m = n = k = atoi(argv[2]);
    int driver = argc > 3 && strcmp(argv[3], "driver") == 0;
    if (argc > 3 && strcmp(argv[3], "wide") == 0)
        m = k = 128;
    if (!f || n < 1)
        return fprintf(stderr, "usage: share RESULT-FILE [N [driver|wide]]\n"), 2;
    size_t mk = (size_t)m * k, kn = (size_t)k * n, mn = (size_t)m * n;
    a = malloc(sizeof *a * mk), b = malloc(sizeof *b * kn), c = malloc(sizeof *c * mn);
    fill(a, mk, 1);
    fill(b, kn, 2);
    if (cudaSetDevice(1) != cudaSuccess)
        return fprintf(stderr, "share: cudaSetDevice(1) failed\n"), 1;
    for (int i = 0; i < 3; i++)
        product(f, "before");

    size_t free_b = 0, total = 0;
    cudaMemGetInfo(&free_b, &total);
    printf("free before %zu of %zu\n", free_b, total);
    void *mine = NULL;
    size_t want = total / 20 * 19;
    int st = driver ? driver_malloc(&mine, want) : (int)cudaMalloc(&mine, want);
    cudaError_t last = cudaGetLastError();
    int dev = -1;
    cudaGetDevice(&dev);
    printf("malloc 95%% %s\nlast error %s\ndevice %d\n", st == 0 ? "ok" : "failed",
           driver ? "n/a" : last == cudaSuccess ? "clean" : "set", dev);
    fflush(stdout);

    product(f, "holding");
    if (mine)
        cudaFree(mine);
    product(f, "after");
    free(a), free(b), free(c);
    return fclose(f) != 0;
}

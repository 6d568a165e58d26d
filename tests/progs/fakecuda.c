/* A driver library for tests/t_share.sh, libcuda.so.1 in build/tests/fakecuda: just the entry points a
 * statically linked CUDA runtime (CuPy's, XLA's) takes from the driver, cuGetProcAddress_v2 and what it
 * gives for "cuMemAlloc", whose memory comes from the stand-in runtime's cudaMalloc (the same device memory
 * that the shim's cache holds). */
#include <cuda.h>
#include <dlfcn.h>
#include <string.h>

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
    void *rt = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
    int (*runtime_malloc)(void **, size_t) = rt ? (int (*)(void **, size_t))dlsym(rt, "cudaMalloc") : NULL;
    void *m = NULL;
    if (!runtime_malloc)
        return CUDA_ERROR_NOT_INITIALIZED;
    int st = runtime_malloc(&m, bytes);
    *p = (CUdeviceptr)m;
    return st == 0 ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

#undef cuGetProcAddress
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    (void)version, (void)flags;
    *pfn = strcmp(symbol, "cuMemAlloc") == 0           ? (void *)cuMemAlloc_v2
           : strcmp(symbol, "cuGetProcAddress") == 0 ? (void *)cuGetProcAddress_v2
                                                       : NULL;
    if (status)
        *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

/* Loading the CUDA runtime and cuBLAS with dlopen, resolving the functions gpushim uses, and turning their
 * status codes into gpushim's errors.  The runtime is loaded and asked for devices first, so that a machine
 * without a GPU never loads cuBLAS. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cusolver_common.h>

#include "cudalib.h"

gs_cuda_t gs_cuda;
int gs_cuda_major;

/* The cuBLAS entries of each operation, S D C Z; NULL where cuBLAS has none. */
const char *const gs_geam_names[GS_NPREC] = {"cublasSgeam_64", "cublasDgeam_64", "cublasCgeam_64", "cublasZgeam_64"};
const char *const gs_cublas_names[GS_NOPS][GS_NPREC] = {
    [GS_OP_gemm] = {"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasCgemm_v2_64", "cublasZgemm_v2_64"},
    [GS_OP_symm] = {"cublasSsymm_v2_64", "cublasDsymm_v2_64", "cublasCsymm_v2_64", "cublasZsymm_v2_64"},
    [GS_OP_hemm] = {NULL, NULL, "cublasChemm_v2_64", "cublasZhemm_v2_64"},
    [GS_OP_syrk] = {"cublasSsyrk_v2_64", "cublasDsyrk_v2_64", "cublasCsyrk_v2_64", "cublasZsyrk_v2_64"},
    [GS_OP_herk] = {NULL, NULL, "cublasCherk_v2_64", "cublasZherk_v2_64"},
    [GS_OP_syr2k] = {"cublasSsyr2k_v2_64", "cublasDsyr2k_v2_64", "cublasCsyr2k_v2_64", "cublasZsyr2k_v2_64"},
    [GS_OP_her2k] = {NULL, NULL, "cublasCher2k_v2_64", "cublasZher2k_v2_64"},
    [GS_OP_trmm] = {"cublasStrmm_v2_64", "cublasDtrmm_v2_64", "cublasCtrmm_v2_64", "cublasZtrmm_v2_64"},
    [GS_OP_trsm] = {"cublasStrsm_v2_64", "cublasDtrsm_v2_64", "cublasCtrsm_v2_64", "cublasZtrsm_v2_64"},
    [GS_OP_gemv] = {"cublasSgemv_v2_64", "cublasDgemv_v2_64", "cublasCgemv_v2_64", "cublasZgemv_v2_64"},
};

void *gs_cuda_open(const char *base, int major, char *why, size_t n)
{
    char path[1200];
    if (gs.opt.cuda_libdir)
        snprintf(path, sizeof path, "%s/lib%s.so.%d", gs.opt.cuda_libdir, base, major);
    else
        snprintf(path, sizeof path, "lib%s.so.%d", base, major);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(why, n, "cannot load %s", path);
    return h;
}

static int gs_cuda_sym(void *h, const char *name, void **out, char *why, size_t n)
{
    *out = dlsym(h, name);
    if (*out)
        return GS_OK;
    snprintf(why, n, "%s is missing from the CUDA libraries", name);
    return GS_ENODEV;
}

int gs_cuda_load(char *why, size_t n)
{
    static const int majors[] = {13, 12};
    void *rt = NULL, *blas = NULL;
    int major = 0;
    for (size_t i = 0; i < 2 && !rt; i++)
        rt = gs_cuda_open("cudart", major = majors[i], why, n);
    if (!rt)
        return GS_ENODEV;
#define GS_X_LOAD(f) \
    if (gs_cuda_sym(lib, #f, (void **)&gs_cuda.f, why, n) != GS_OK) \
        return GS_ENODEV;
    void *lib = rt;
    GS_CUDART_FUNCS(GS_X_LOAD)
    int count = 0, st = gs_cuda.cudaGetDeviceCount(&count);
    if (st != 0 || count == 0) {
        snprintf(why, n, "%s", st ? gs_cuda.cudaGetErrorString(st) : "no CUDA device");
        return GS_ENODEV;
    }
    if (gs.opt.device >= count) {
        snprintf(why, n, "GPUSHIM_DEVICE=%d, but there are only %d devices", gs.opt.device, count);
        return GS_ENODEV;
    }
    gs_cuda.device = gs.opt.device;
    gs_cuda_major = major;
    if (!(blas = gs_cuda_open("cublas", major, why, n)))
        return GS_ENODEV;
    lib = blas;
    GS_CUBLAS_FUNCS(GS_X_LOAD)
#undef GS_X_LOAD
    for (int op = 0; op < GS_NOPS; op++)
        for (int p = 0; p < GS_NPREC; p++)
            if (gs_cublas_names[op][p] && gs_cuda_sym(blas, gs_cublas_names[op][p], &gs_cuda.blas[op][p], why, n))
                return GS_ENODEV;
    for (int p = 0; p < GS_NPREC; p++)
        if (gs_cuda_sym(blas, gs_geam_names[p], &gs_cuda.geam[p], why, n))
            return GS_ENODEV;
    return GS_OK;
}

int gs_cuda_error(gs_call_t *c, const char *name, int status, const char *file, int line)
{
    /* cuSOLVER has no function naming its statuses. */
    static const char *const cusolver_msgs[] = {"success", "not initialized", "allocation failed",
                                                "invalid value", "architecture mismatch", "mapping error",
                                                "execution failed", "internal error"};
    bool cublas = strncmp(name, "cublas", 6) == 0, cusolver = strncmp(name, "cusolver", 8) == 0;
    const char *msg = cublas   ? gs_cuda.cublasGetStatusString((cublasStatus_t)status)
                      : cusolver ? (status >= 0 && status < 8 ? cusolver_msgs[status] : NULL)
                                 : gs_cuda.cudaGetErrorString((cudaError_t)status);
    gs_call_why(c, "gpu error: %s: %s (%d) at %s:%d", name, msg ? msg : "unknown error", status, file, line);
    bool oom = cublas     ? status == CUBLAS_STATUS_ALLOC_FAILED
               : cusolver ? status == CUSOLVER_STATUS_ALLOC_FAILED
                          : status == cudaErrorMemoryAllocation;
    return oom ? GS_ENOMEM : GS_EGPU;
}

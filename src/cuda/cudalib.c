/* Loading the CUDA runtime and cuBLAS with dlopen, resolving the functions gpushim uses, and turning their
 * status codes into gpushim's errors.  The runtime is loaded and asked for devices first, so that a machine
 * without a GPU never loads cuBLAS; when it finds none, the reason is put in the user's terms (no driver, a
 * driver too old, no device visible), and a driver too old for CUDA 13 gets CUDA 12's runtime if it is there. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cusolver_common.h>

#include "cuda/cudalib.h"

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

/* What the runtime's and cuBLAS's missing functions are missing from, in the notice. */
#define GS_CUDA_LIBS "the CUDA libraries"

int gs_cuda_sym(void *h, const char *name, void **out, const char *from, char *why, size_t n)
{
    *out = dlsym(h, name);
    if (*out)
        return GS_OK;
    snprintf(why, n, "%s is missing from %s", name, from);
    return GS_ENODEV;
}

void gs_cuda_version(char *out, size_t n, int v)
{
    snprintf(out, n, "%d.%d", v / 1000, v % 1000 / 10);
}

/* Whether the NVIDIA driver's library can be loaded (nothing of it is called). */
static bool gs_cuda_has_driver(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* Why the runtime of this major version found no device (cudaGetDeviceCount returned st, or no device), in the
 * user's terms: no driver, a driver older than the runtime, no device visible, or CUDA's own message.  True
 * when the driver refused this runtime as too new, so that an older runtime is worth a try. */
static bool gs_cuda_why_none(int st, int major, char *why, size_t n)
{
    int drv = 0, rt = 0;
    char dv[16], rv[16];
    gs_cuda.cudaDriverGetVersion(&drv);
    gs_cuda.cudaRuntimeGetVersion(&rt);
    gs_cuda_version(dv, sizeof dv, drv);
    gs_cuda_version(rv, sizeof rv, rt);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (st == cudaErrorInsufficientDriver && drv == 0) { /* the runtime's answer when it found no driver */
        snprintf(why, n, "no NVIDIA driver (%s; CUDA %s runtime found)",
                 gs_cuda_has_driver() ? "libcuda.so.1 loads but gives no version" : "libcuda.so.1 not found", rv);
    } else if (st == cudaErrorInsufficientDriver) {
        bool older = drv >= 12000 && major > 12;
        snprintf(why, n, "the NVIDIA driver is too old: it supports CUDA %s, and libcudart.so.%d is CUDA %s; %s", dv,
                 major, rv, older ? "CUDA 12's libraries work with this driver (libcudart.so.12, libcublas.so.12, "
                                    "libcusolver.so.11): install them, or upgrade the driver"
                                  : "upgrade the driver");
        return older;
    } else if (st == cudaErrorSystemDriverMismatch) {
        snprintf(why, n, "the NVIDIA driver's library and its kernel module differ in version (%s): reinstall "
                 "the driver or reboot", gs_cuda.cudaGetErrorString(st));
    } else if ((st == cudaSuccess || st == cudaErrorNoDevice) && visible) {
        snprintf(why, n, "no GPU visible: CUDA_VISIBLE_DEVICES='%s' hides every device", visible);
    } else if (st == cudaSuccess || st == cudaErrorNoDevice) {
        snprintf(why, n, "no GPU found: the NVIDIA driver (CUDA %s) sees no device (nvidia-smi lists what it "
                 "sees)", dv);
    } else {
        snprintf(why, n, "the CUDA %s runtime cannot use the GPU: cudaGetDeviceCount: %s (error %d)", rv,
                 gs_cuda.cudaGetErrorString(st), st);
    }
    return false;
}

/* Resolves gs_cuda.f in the library lib, or returns GS_ENODEV with the reason in why. */
#define GS_X_LOAD(f) \
    if (gs_cuda_sym(lib, #f, (void **)&gs_cuda.f, GS_CUDA_LIBS, why, n) != GS_OK) \
        return GS_ENODEV;

/* Opens libcudart.so.<major>, resolves its functions and asks for devices.  GS_OK with the count; GS_ENOENT
 * when the library is not there; GS_ENODEV with the reason in why, *older set when the driver would take an
 * older runtime. */
static int gs_cuda_open_runtime(int major, int *count, bool *older, char *why, size_t n)
{
    *older = false;
    void *lib = gs_cuda_open("cudart", major, why, n);
    if (!lib)
        return GS_ENOENT;
    GS_CUDART_FUNCS(GS_X_LOAD)
    *count = 0;
    int st = gs_cuda.cudaGetDeviceCount(count);
    if (st == cudaSuccess && *count > 0) {
        gs_cuda_major = major;
        return GS_OK;
    }
    *older = gs_cuda_why_none(st, major, why, n);
    return GS_ENODEV;
}

/* The runtime of the newest major version that the driver takes: 13, else 12, as a driver that refuses 13 may
 * still take 12 (tests/t_nogpu.sh, "older runtime"). */
static int gs_cuda_load_runtime(int *count, char *why, size_t n)
{
    bool older = false;
    int rc = gs_cuda_open_runtime(13, count, &older, why, n);
    if (rc == GS_OK || (rc != GS_ENOENT && !older))
        return rc;
    char first[GS_WHY_MAX];
    snprintf(first, sizeof first, "%s", why);
    int rc12 = gs_cuda_open_runtime(12, count, &older, why, n);
    if (rc12 != GS_ENOENT)
        return rc12;
    if (rc != GS_ENOENT) /* 13 refused by the driver, and no 12 to try: 13's reason says what to do */
        snprintf(why, n, "%s", first);
    else if (gs.opt.cuda_libdir)
        snprintf(why, n, "no CUDA libraries in GPUSHIM_CUDA_LIBDIR=%s: libcudart.so.13 and libcudart.so.12 "
                 "not found there", gs.opt.cuda_libdir);
    else
        snprintf(why, n, "no CUDA libraries: libcudart.so.13 and libcudart.so.12 not found %s",
                 gs_cuda_has_driver() ? "(the NVIDIA driver is installed: install the CUDA runtime, or set "
                                        "GPUSHIM_CUDA_LIBDIR to its folder)"
                                      : "and no NVIDIA driver (libcuda.so.1 not found)");
    return GS_ENODEV;
}

int gs_cuda_step(int (*step)(void), char *why, size_t n)
{
    if (!step || step() == 0)
        return GS_OK;
    snprintf(why, n, "the bring-up was stopped: the program is exiting");
    return GS_ENODEV;
}

int gs_cuda_load(char *why, size_t n, int (*step)(void))
{
    int count = 0;
    if (gs_cuda_load_runtime(&count, why, n) != GS_OK || gs_cuda_step(step, why, n) != GS_OK)
        return GS_ENODEV;
    gs_cuda.ndevices = count;
    void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (drv) { /* loaded already, by the runtime: this reference lasts as long as the process */
        *(void **)&gs_cuda.cuCtxGetCurrent = dlsym(drv, "cuCtxGetCurrent");
        *(void **)&gs_cuda.cuCtxSetCurrent = dlsym(drv, "cuCtxSetCurrent");
    }
    gs_cuda.cudaDriverGetVersion(&gs_cuda.driver_version);
    gs_cuda.cudaRuntimeGetVersion(&gs_cuda.runtime_version);
    void *blas = gs_cuda_open("cublas", gs_cuda_major, why, n);
    if (!blas || gs_cuda_step(step, why, n) != GS_OK)
        return GS_ENODEV;
    void *lib = blas;
    GS_CUBLAS_FUNCS(GS_X_LOAD)
    for (int op = 0; op < GS_NOPS; op++)
        for (int p = 0; p < GS_NPREC; p++)
            if (gs_cublas_names[op][p] &&
                gs_cuda_sym(blas, gs_cublas_names[op][p], &gs_cuda.blas[op][p], GS_CUDA_LIBS, why, n))
                return GS_ENODEV;
    for (int p = 0; p < GS_NPREC; p++)
        if (gs_cuda_sym(blas, gs_geam_names[p], &gs_cuda.geam[p], GS_CUDA_LIBS, why, n))
            return GS_ENODEV;
    return GS_OK;
}

#undef GS_X_LOAD

int gs_cuda_fault_status(const char *name)
{
    bool alloc = gs_fault_kind(name) == GS_FAULT_ALLOC;
    if (!strncmp(name, "cublas", 6))
        return alloc ? CUBLAS_STATUS_ALLOC_FAILED : CUBLAS_STATUS_EXECUTION_FAILED;
    if (!strncmp(name, "cusolver", 8) || !strncmp(name, "cufft", 5)) /* cuFFT's statuses 2 and 6 are as these */
        return alloc ? CUSOLVER_STATUS_ALLOC_FAILED : CUSOLVER_STATUS_EXECUTION_FAILED;
    return alloc ? cudaErrorMemoryAllocation : cudaErrorLaunchFailure;
}

int gs_cuda_error(gs_call_t *c, const char *name, int status, const char *file, int line)
{
    /* cuSOLVER has no function naming its statuses. */
    static const char *const cusolver_msgs[] = {"success", "not initialized", "allocation failed",
                                                "invalid value", "architecture mismatch", "mapping error",
                                                "execution failed", "internal error"};
    /* Nor has cuFFT (cufftResult: 2 is an allocation failure, as cuSOLVER's). */
    static const char *const cufft_msgs[] = {"success", "invalid plan", "allocation failed", "invalid type",
                                             "invalid value", "internal error", "execution failed",
                                             "setup failed", "invalid size", "unaligned data"};
    bool cublas = strncmp(name, "cublas", 6) == 0, cusolver = strncmp(name, "cusolver", 8) == 0,
         cufft = strncmp(name, "cufft", 5) == 0;
    const char *msg = cublas     ? gs_cuda.cublasGetStatusString((cublasStatus_t)status)
                      : cusolver ? (status >= 0 && status < 8 ? cusolver_msgs[status] : NULL)
                      : cufft    ? (status >= 0 && status < 10 ? cufft_msgs[status] : NULL)
                                 : gs_cuda.cudaGetErrorString((cudaError_t)status);
    gs_call_why(c, "gpu error: %s: %s (%d) at %s:%d", name, msg ? msg : "unknown error", status, file, line);
    bool oom = cublas              ? status == CUBLAS_STATUS_ALLOC_FAILED
               : cusolver || cufft ? status == CUSOLVER_STATUS_ALLOC_FAILED
                                   : status == cudaErrorMemoryAllocation;
    return oom ? GS_ENOMEM : GS_EGPU;
}

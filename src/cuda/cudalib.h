/* The CUDA libraries, opened at run time by soname (major version 13, then 12), so that libgpushim.so has no
 * link-time CUDA dependency and loads on machines without CUDA.  GPUSHIM_CUDA_LIBDIR makes it load them from
 * one folder only; the tests point it at the host-memory stand-in (tests/standin). */
#ifndef GS_CUDALIB_H
#define GS_CUDALIB_H

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "core/fault.h"

/* Functions taken by name from libcudart and libcublas; their types come from CUDA's own headers. */
#define GS_CUDART_FUNCS(X) \
    X(cudaGetDeviceCount) X(cudaGetDevice) X(cudaSetDevice) X(cudaMalloc) X(cudaFree) X(cudaMemcpy2DAsync) \
    X(cudaStreamCreateWithFlags) X(cudaStreamSynchronize) X(cudaDeviceSynchronize) X(cudaGetErrorString) \
    X(cudaMemGetInfo) X(cudaHostAlloc) X(cudaFreeHost) X(cudaEventCreateWithFlags) X(cudaEventRecord) \
    X(cudaEventSynchronize) X(cudaStreamWaitEvent) X(cudaHostRegister) X(cudaHostUnregister) X(cudaMemsetAsync) \
    X(cudaDriverGetVersion) X(cudaRuntimeGetVersion) X(cudaGetLastError) X(cudaLibraryLoadData) \
    X(cudaLibraryGetKernel) X(cudaLaunchKernel) X(cudaDeviceGetPCIBusId)
#define GS_CUBLAS_FUNCS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasGetStatusString)

/* The CUDA libraries' functions and versions, one set for the process; the state of each device is in
 * device.h. */
typedef struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUDART_FUNCS(GS_X_MEMBER)
    GS_CUBLAS_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    void *blas[GS_NOPS][GS_NPREC]; /* cuBLAS 64-bit-size entry for each operation and precision, or NULL */
    void *geam[GS_NPREC];          /* cuBLAS's transposition (gesvdp's V into VT), by precision */
    /* The driver's, where the runtime loaded the NVIDIA driver (a stand-in runtime loads none): NULL else. */
    int (*cuCtxGetCurrent)(void **ctx);
    int (*cuCtxSetCurrent)(void *ctx);
    int ndevices;                  /* devices the runtime sees */
    int driver_version, runtime_version; /* CUDA versions of the driver and the runtime loaded, as 13000 */
} gs_cuda_t;

/* The names of gs_cuda.geam, by precision. */
GS_HIDDEN extern const char *const gs_geam_names[GS_NPREC];
/* The cuBLAS entry of each operation and precision, or NULL where cuBLAS has none. */
GS_HIDDEN extern const char *const gs_cublas_names[GS_NOPS][GS_NPREC];

/* Written by gs_cuda_load under the GPU lock, before the GPU is published as up. */
GS_HIDDEN extern gs_cuda_t gs_cuda;

/* Opens lib<base>.so.<major> from GPUSHIM_CUDA_LIBDIR, or by soname through the loader's search path; NULL with
 * a reason in why. */
GS_HIDDEN void *gs_cuda_open(const char *base, int major, char *why, size_t n);
/* Resolves name in library h into *out: GS_OK, or GS_ENODEV with "NAME is missing from FROM" in why. */
GS_HIDDEN int gs_cuda_sym(void *h, const char *name, void **out, const char *from, char *why, size_t n);
/* The major version of the CUDA runtime loaded (13 or 12). */
GS_HIDDEN extern int gs_cuda_major;

/* "13.0" from CUDA's version number 13000, into out. */
GS_HIDDEN void gs_cuda_version(char *out, size_t n, int version);

/* Opens the libraries, resolves every function and checks that GPUSHIM_DEVICE names a device the runtime
 * sees.  0, or negative with a reason in why.  step, when not NULL, runs after each library is loaded and
 * stops the loading when it returns non-zero (the backend's up, dispatch/backend.h). */
GS_HIDDEN int gs_cuda_load(char *why, size_t n, int (*step)(void));
/* Between two steps of a bring-up: runs step (when not NULL); GS_OK to go on, or GS_ENODEV with the reason in
 * why when it says stop. */
GS_HIDDEN int gs_cuda_step(int (*step)(void), char *why, size_t n);

/* Records a failed CUDA call in c->why ("gpu error: NAME: MESSAGE (STATUS) at FILE:LINE") and returns
 * GS_ENOMEM for an allocation failure, GS_EGPU otherwise. */
GS_HIDDEN int gs_cuda_error(gs_call_t *c, const char *name, int status, const char *file, int line);

/* The status that a call of the CUDA library function name returns when GPUSHIM_FAULT fails it (core/fault.c):
 * its library's allocation failure for an allocation, its execution failure otherwise. */
GS_HIDDEN int gs_cuda_fault_status(const char *name);
/* Whether GPUSHIM_FAULT fails this call of the CUDA library function name from gpushim's function site,
 * unmade.  Every checked call of a CUDA library asks first, through GS_CALL: GS_TRY's, and the calls that
 * handle their failures themselves. */
static inline bool gs_faulted(const char *name, const char *site)
{
    return gs_fault_armed && gs_fault_hit(name, site);
}
/* The status of the call expr of the function name, from the function GS_CALL is written in: made, or failed
 * by GPUSHIM_FAULT. */
#define GS_CALL(name, expr) (gs_faulted((name), __func__) ? gs_cuda_fault_status(name) : (int)(expr))
/* The same for the runtime's or cuBLAS's function fn (a member of gs_cuda), called with args. */
#define GS_CALLED(fn, args) GS_CALL(#fn, gs_cuda.fn args)

/* Evaluates a CUDA call (runtime or cuBLAS: both return 0 for success); on failure returns the GS_E* code
 * from the enclosing function. */
#define GS_TRY(c, name, expr) \
    do { \
        int st_ = GS_CALL((name), (expr)); \
        if (st_ != 0) \
            return gs_cuda_error((c), (name), st_, __FILE__, __LINE__); \
    } while (0)
#define GS_CUDA(c, fn, args) GS_TRY(c, #fn, gs_cuda.fn args)

#endif

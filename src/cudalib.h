/* The CUDA libraries, opened at run time by soname (major version 13, then 12), so that libgpushim.so has no
 * link-time CUDA dependency and loads on machines without CUDA.  GPUSHIM_CUDA_LIBDIR makes it load them from
 * one folder only; the tests point it at the host-memory stand-in (tests/standin). */
#ifndef GS_CUDALIB_H
#define GS_CUDALIB_H

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "gs.h"

/* Functions taken by name from libcudart and libcublas; their types come from CUDA's own headers. */
#define GS_CUDART_FUNCS(X) \
    X(cudaGetDeviceCount) X(cudaGetDevice) X(cudaSetDevice) X(cudaMalloc) X(cudaFree) X(cudaMemcpy2DAsync) \
    X(cudaStreamCreateWithFlags) X(cudaStreamSynchronize) X(cudaDeviceSynchronize) X(cudaGetErrorString)
#define GS_CUBLAS_FUNCS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasGetStatusString)

typedef struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUDART_FUNCS(GS_X_MEMBER)
    GS_CUBLAS_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    void *blas[GS_NOPS][GS_NPREC]; /* cuBLAS 64-bit-size entry for each operation and precision, or NULL */
    int device;                    /* ordinal in use */
    cudaStream_t stream;
    cublasHandle_t handle;
    char *scratch; /* device memory for one call's operands */
    size_t scratch_size;
} gs_cuda_t;

/* The cuBLAS entry of each operation and precision, or NULL where cuBLAS has none. */
GS_HIDDEN extern const char *const gs_cublas_names[GS_NOPS][GS_NPREC];

/* Written by gs_cuda_load and gs_cuda_up under the GPU lock, before the GPU is published as up. */
GS_HIDDEN extern gs_cuda_t gs_cuda;

/* Opens the libraries and resolves every function.  0, or negative with a reason in why. */
GS_HIDDEN int gs_cuda_load(char *why, size_t n);

/* Records a failed CUDA call in c->why ("gpu error: NAME: MESSAGE (STATUS) at FILE:LINE") and returns
 * GS_ENOMEM for an allocation failure, GS_EGPU otherwise. */
GS_HIDDEN int gs_cuda_error(gs_call_t *c, const char *name, int status, const char *file, int line);

/* Evaluates a CUDA call (runtime or cuBLAS: both return 0 for success); on failure returns the GS_E* code
 * from the enclosing function. */
#define GS_TRY(c, name, expr) \
    do { \
        int st_ = (int)(expr); \
        if (st_ != 0) \
            return gs_cuda_error((c), (name), st_, __FILE__, __LINE__); \
    } while (0)
#define GS_CUDA(c, fn, args) GS_TRY(c, #fn, gs_cuda.fn args)

#endif

/* The CUDA libraries, opened at run time by soname (major version 13, then 12), so that libgpushim.so has no
 * link-time CUDA dependency and loads on machines without CUDA.  GPUSHIM_CUDA_LIBDIR makes it load them from
 * one folder only; the tests point it at the host-memory stand-in (tests/standin). */
#ifndef GS_CUDALIB_H
#define GS_CUDALIB_H

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "families/blas/blas.h"

/* Functions taken by name from libcudart and libcublas; their types come from CUDA's own headers. */
#define GS_CUDART_FUNCS(X) \
    X(cudaGetDeviceCount) X(cudaGetDevice) X(cudaSetDevice) X(cudaMalloc) X(cudaFree) X(cudaMemcpy2DAsync) \
    X(cudaStreamCreateWithFlags) X(cudaStreamSynchronize) X(cudaDeviceSynchronize) X(cudaGetErrorString) \
    X(cudaMemGetInfo) X(cudaHostAlloc) X(cudaFreeHost) X(cudaEventCreateWithFlags) X(cudaEventRecord) \
    X(cudaEventSynchronize) X(cudaStreamWaitEvent) X(cudaHostRegister) X(cudaHostUnregister) X(cudaMemsetAsync) \
    X(cudaDriverGetVersion) X(cudaRuntimeGetVersion)
#define GS_CUBLAS_FUNCS(X) X(cublasCreate_v2) X(cublasSetStream_v2) X(cublasGetStatusString)

/* Events that order the streams.  Each is recorded and waited for at once, so one event per kind of edge
 * suffices: cudaStreamWaitEvent captures the record current at the time of the call. */
typedef enum {
    GS_EV_UP,     /* recorded on up after uploads; compute waits */
    GS_EV_DONE,   /* recorded on compute after a tile is final; down waits */
    GS_EV_SLOT0,  /* recorded on compute after the last use of an out-of-core A/B slot; up waits (2 slots) */
    GS_EV_CSLOT0 = GS_EV_SLOT0 + 2, /* recorded on down after a C slot was copied out (2 slots) */
    GS_EV_N = GS_EV_CSLOT0 + 2
} gs_ev_t;

typedef struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUDART_FUNCS(GS_X_MEMBER)
    GS_CUBLAS_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    void *blas[GS_NOPS][GS_NPREC]; /* cuBLAS 64-bit-size entry for each operation and precision, or NULL */
    void *geam[GS_NPREC];          /* cuBLAS's transposition (gesvdp's V into VT), by precision */
    int device;                    /* ordinal in use */
    int driver_version, runtime_version; /* CUDA versions of the driver and the runtime loaded, as 13000 */
    cudaStream_t stream;           /* compute: cuBLAS runs here */
    cudaStream_t up, down;         /* host to device, device to host (xfer.c) */
    cudaEvent_t ev[GS_EV_N];       /* dependencies between the three streams (gs_ev_t) */
    cublasHandle_t handle;
    char *scratch; /* device memory for one call's operands */
    size_t scratch_size;
} gs_cuda_t;

/* Signatures of the gs_cuda.blas entries that both backends call, with every pointer as void: the same ABI as
 * each precision's own prototype. */
typedef cublasStatus_t gs_cublas_gemm_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                         int64_t, const void *, const void *, int64_t, const void *, int64_t,
                                         const void *, void *, int64_t);
typedef cublasStatus_t gs_cublas_trmm_fn(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                         cublasDiagType_t, int64_t, int64_t, const void *, const void *, int64_t,
                                         const void *, int64_t, void *, int64_t);
typedef cublasStatus_t gs_cublas_trsm_fn(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                         cublasDiagType_t, int64_t, int64_t, const void *, const void *, int64_t,
                                         void *, int64_t);

/* The names of gs_cuda.geam, by precision. */
GS_HIDDEN extern const char *const gs_geam_names[GS_NPREC];
/* The cuBLAS entry of each operation and precision, or NULL where cuBLAS has none. */
GS_HIDDEN extern const char *const gs_cublas_names[GS_NOPS][GS_NPREC];

/* Written by gs_cuda_load and gs_cuda_up under the GPU lock, before the GPU is published as up. */
GS_HIDDEN extern gs_cuda_t gs_cuda;

/* Opens lib<base>.so.<major> from GPUSHIM_CUDA_LIBDIR, or by soname through the loader's search path; NULL with
 * a reason in why. */
GS_HIDDEN void *gs_cuda_open(const char *base, int major, char *why, size_t n);
/* The major version of the CUDA runtime loaded (13 or 12). */
GS_HIDDEN extern int gs_cuda_major;

/* "13.0" from CUDA's version number 13000, into out. */
GS_HIDDEN void gs_cuda_version(char *out, size_t n, int version);

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

struct gs_cbind; /* cache.h */

/* bytes rounded up to 256, the alignment of each operand in device memory. */
static inline size_t gs_round256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Device memory for one call's operands: at least bytes, kept between calls up to a bound.  Called with
 * the GPU lock held. */
GS_HIDDEN int gs_cuda_scratch(gs_call_t *c, size_t bytes);
/* Bytes of device memory a call may use now: free memory (plus the scratch buffer, which can be given back)
 * less a reserve for cuBLAS, capped by GPUSHIM_DEVICE_MEMORY. */
GS_HIDDEN int gs_cuda_budget(gs_call_t *c, size_t *bytes);

/* Level-3 GEMM, tiled so that copies and computation overlap, and out of core when the operands do not fit
 * (cuda_gemm.c).  cb[0..2] are A's, B's and C's cache entries (cache.h).  Contract of gs_blas_fn (backend.h),
 * with the GPU lock held and the device current. */
GS_HIDDEN int gs_cuda_gemm(gs_call_t *c, const gs_blas_t *p, struct gs_cbind *cb);
/* The cuBLAS call of any Level-3 operation, or gemv, on device copies d[i] of the operands, whose leading
 * dimensions are ld[i] (cuda_blas.c). */
GS_HIDDEN int gs_cuda_compute(gs_call_t *c, const gs_blas_t *p, const void *beta, char *const d[3],
                                    const int64_t ld[3]);

#endif

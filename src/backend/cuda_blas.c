/* The CUDA backend: bring-up, and Level-3 BLAS and gemv through cuBLAS's 64-bit-size API.  GEMM is tiled
 * (cuda_gemm.c); the other routines have their operands on the device in whole, copied through the transfer
 * engine (xfer.c) unless the residency cache holds them (cache.c), compute, and copy the output back only
 * after the computation has completed without error. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/backend.h"
#include "backend/cuda_call.h"
#include "memory/hostreg.h"

/* Device memory kept between calls for operands, at most. */
#define GS_SCRATCH_KEEP ((size_t)4 << 30)
/* Device memory left free for cuBLAS's workspace and the program's own GPU work, at most. */
#define GS_RESERVE ((size_t)256 << 20)

/* cuBLAS signatures with every pointer as void: the same ABI as each precision's own prototype. */
typedef cublasStatus_t gs_cublas_symm_fn(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, int64_t, int64_t,
                                         const void *, const void *, int64_t, const void *, int64_t, const void *,
                                         void *, int64_t);
typedef cublasStatus_t gs_cublas_syrk_fn(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int64_t, int64_t,
                                         const void *, const void *, int64_t, const void *, void *, int64_t);
typedef cublasStatus_t gs_cublas_syr2k_fn(cublasHandle_t, cublasFillMode_t, cublasOperation_t, int64_t, int64_t,
                                          const void *, const void *, int64_t, const void *, int64_t, const void *,
                                          void *, int64_t);
typedef cublasStatus_t gs_cublas_gemv_fn(cublasHandle_t, cublasOperation_t, int64_t, int64_t, const void *,
                                         const void *, int64_t, const void *, int64_t, const void *, void *, int64_t);

static int gs_cuda_start(gs_call_t *c)
{
    GS_CUDA(c, cudaSetDevice, (gs_cuda.device));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&gs_cuda.stream, cudaStreamNonBlocking));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&gs_cuda.up, cudaStreamNonBlocking));
    GS_CUDA(c, cudaStreamCreateWithFlags, (&gs_cuda.down, cudaStreamNonBlocking));
    for (int i = 0; i < GS_EV_N; i++)
        GS_CUDA(c, cudaEventCreateWithFlags, (&gs_cuda.ev[i], cudaEventDisableTiming));
    GS_CUDA(c, cublasCreate_v2, (&gs_cuda.handle));
    GS_CUDA(c, cublasSetStream_v2, (gs_cuda.handle, gs_cuda.stream));
    gs_xfer_start();
    return GS_OK;
}

/* "NAME, device N, M MiB, CUDA runtime R, driver CUDA D": the name from the driver's cuDeviceGetName (the runtime loaded libcuda), which a
 * stand-in without a driver lacks. */
static void gs_cuda_describe(char *out, size_t n)
{
    char name[128] = "CUDA device";
    int dev = 0;
    size_t free = 0, total = 0;
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    int (*get_name)(char *, int, int) = NULL;
    if (drv)
        *(void **)&get_name = dlsym(drv, "cuDeviceGetName");
    gs_cuda.cudaGetDevice(&dev);
    if (get_name && get_name(name, (int)sizeof name, dev) != 0)
        snprintf(name, sizeof name, "CUDA device");
    if (drv)
        dlclose(drv);
    gs_cuda.cudaMemGetInfo(&free, &total);
    char rt[16], dv[16];
    gs_cuda_version(rt, sizeof rt, gs_cuda.runtime_version);
    gs_cuda_version(dv, sizeof dv, gs_cuda.driver_version);
    snprintf(out, n, "%s, device %d, %zu MiB, CUDA runtime %s, driver CUDA %s", name, dev, total >> 20, rt, dv);
}

static int gs_cuda_up(char *why, size_t n)
{
    if (gs_cuda_load(why, n) != GS_OK)
        return GS_ENODEV;
    gs_call_t c = {.why = ""};
    if (gs_cuda_start(&c) == GS_OK) {
        gs_cuda_describe(why, n);
        return GS_OK;
    }
    snprintf(why, n, "%s", c.why);
    return GS_ENODEV;
}

static int gs_cuda_healthy(void)
{
    return gs_cuda.cudaDeviceSynchronize() == 0 ? GS_OK : GS_EGPU;
}

static void gs_cuda_scratch_free(void)
{
    if (gs_cuda.scratch)
        gs_cuda.cudaFree(gs_cuda.scratch);
    gs_cuda.scratch = NULL;
    gs_cuda.scratch_size = 0;
}

int gs_cuda_scratch(gs_call_t *c, size_t bytes)
{
    if (bytes <= gs_cuda.scratch_size)
        return GS_OK;
    gs_cuda_scratch_free();
    /* Cached operands the call does not use give way when memory runs short. */
    while (gs_cuda.cudaMalloc((void **)&gs_cuda.scratch, bytes) != cudaSuccess)
        if (gs_cache_trim(bytes) == 0)
            GS_CUDA(c, cudaMalloc, ((void **)&gs_cuda.scratch, bytes));
    gs_cuda.scratch_size = bytes;
    return GS_OK;
}

int gs_cuda_budget(gs_call_t *c, size_t *bytes)
{
    size_t free, total;
    GS_CUDA(c, cudaMemGetInfo, (&free, &total));
    size_t reserve = total / 16 < GS_RESERVE ? total / 16 : GS_RESERVE;
    free += gs_cuda.scratch_size + gs_cache_evictable();
    *bytes = free > reserve ? free - reserve : 0;
    if (gs.opt.device_memory >= 0 && gs.opt.device_memory < (double)*bytes)
        *bytes = (size_t)gs.opt.device_memory;
    return GS_OK;
}

static cublasOperation_t gs_cu_op(char t, int prec)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'C' && gs_prec_complex(prec) ? CUBLAS_OP_C : CUBLAS_OP_T;
}
static cublasSideMode_t gs_cu_side(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
static cublasFillMode_t gs_cu_fill(char u) { return u == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static cublasDiagType_t gs_cu_diag(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }

int gs_cuda_compute(gs_call_t *c, const gs_blas_t *p, const void *beta_in, char *const d[3],
                          const int64_t ld[3])
{
    void *f = gs_cuda.blas[p->op][p->prec];
    const char *name = gs_cublas_names[p->op][p->prec];
    cublasHandle_t h = gs_cuda.handle;
    /* cuBLAS reads a complex scalar as a 16-byte vector that must be 16-byte aligned, and crashes otherwise;
     * Fortran and C callers may pass COMPLEX*16 scalars aligned to 8 bytes (tests/progs/blas_all.c does,
     * and the stand-in rejects a misaligned scalar).  So the scalars are copied. */
    _Alignas(16) unsigned char alpha[16], beta[16];
    memcpy(alpha, p->alpha, gs_blas_scalar_size(p, 0));
    if (beta_in)
        memcpy(beta, beta_in, gs_blas_scalar_size(p, 1));
    switch (p->op) {
    case GS_OP_gemm:
        GS_TRY(c, name, ((gs_cublas_gemm_fn *)f)(h, gs_cu_op(p->trans, p->prec), gs_cu_op(p->transb, p->prec), p->m,
                                                  p->n, p->k, alpha, d[0], ld[0], d[1], ld[1], beta,
                                                  d[2], ld[2]));
        break;
    case GS_OP_symm:
    case GS_OP_hemm:
        GS_TRY(c, name, ((gs_cublas_symm_fn *)f)(h, gs_cu_side(p->side), gs_cu_fill(p->uplo), p->m, p->n, alpha,
                                                  d[0], ld[0], d[1], ld[1], beta, d[2], ld[2]));
        break;
    case GS_OP_syrk:
    case GS_OP_herk:
        GS_TRY(c, name, ((gs_cublas_syrk_fn *)f)(h, gs_cu_fill(p->uplo), gs_cu_op(p->trans, p->prec), p->n, p->k,
                                                  alpha, d[0], ld[0], beta, d[1], ld[1]));
        break;
    case GS_OP_syr2k:
    case GS_OP_her2k:
        GS_TRY(c, name, ((gs_cublas_syr2k_fn *)f)(h, gs_cu_fill(p->uplo), gs_cu_op(p->trans, p->prec), p->n, p->k,
                                                   alpha, d[0], ld[0], d[1], ld[1], beta, d[2],
                                                   ld[2]));
        break;
    case GS_OP_trmm: /* cuBLAS's trmm is out of place; C = B makes it in place */
        GS_TRY(c, name, ((gs_cublas_trmm_fn *)f)(h, gs_cu_side(p->side), gs_cu_fill(p->uplo),
                                                  gs_cu_op(p->trans, p->prec), gs_cu_diag(p->diag), p->m, p->n,
                                                  alpha, d[0], ld[0], d[1], ld[1], d[1], ld[1]));
        break;
    case GS_OP_trsm:
        GS_TRY(c, name, ((gs_cublas_trsm_fn *)f)(h, gs_cu_side(p->side), gs_cu_fill(p->uplo),
                                                  gs_cu_op(p->trans, p->prec), gs_cu_diag(p->diag), p->m, p->n,
                                                  alpha, d[0], ld[0], d[1], ld[1]));
        break;
    case GS_OP_gemv: /* the vectors are compact on the device */
        GS_TRY(c, name, ((gs_cublas_gemv_fn *)f)(h, gs_cu_op(p->trans, p->prec), p->m, p->n, alpha, d[0], ld[0],
                                                  d[1], 1, beta, d[2], 1));
        break;
    default:
        gs_call_why(c, "gpu error: cuBLAS has no %s", gs_op_names[p->op]);
        return GS_EGPU;
    }
    return GS_OK;
}

int gs_cuda_operands(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, const gs_cbind_t *b, int n,
                     size_t es, size_t extra, char **dextra, char **d, int64_t *ld)
{
    size_t off[4], total = 0, budget;
    for (int i = 0; i < n; i++) {
        off[i] = total;
        total += b[i].dev ? 0 : gs_round256((size_t)o[i].rows * (size_t)o[i].cols * es);
    }
    size_t xoff = total;
    total += gs_round256(extra);
    int rc = gs_cuda_budget(c, &budget);
    if (rc != GS_OK)
        return rc;
    if (total > budget) {
        gs_call_why(c, "gpu: needs %zu bytes of device memory, %zu available", total, budget);
        return GS_ENOMEM;
    }
    if ((rc = gs_cuda_scratch(c, total)) != GS_OK)
        return rc;
    if (dextra)
        *dextra = gs_cuda.scratch + xoff;
    for (int i = 0; i < n; i++) {
        d[i] = b[i].dev ? b[i].dev : gs_cuda.scratch + off[i];
        ld[i] = o[i].rows > 0 ? o[i].rows : 1;
        if (o[i].in && !b[i].hit && (rc = gs_xfer_put(c, d[i], (size_t)ld[i] * es, &h[i])) != GS_OK)
            return rc;
    }
    GS_CUDA(c, cudaEventRecord, (gs_cuda.ev[GS_EV_UP], gs_cuda.up));
    GS_CUDA(c, cudaStreamWaitEvent, (gs_cuda.stream, gs_cuda.ev[GS_EV_UP], 0));
    return GS_OK;
}

int gs_cuda_outputs(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, int n, size_t es, char *const *d,
                    const int64_t *ld)
{
    /* Nothing is written to user memory before the computation is known to have succeeded. */
    GS_CUDA(c, cudaStreamSynchronize, (gs_cuda.stream));
    gs_xjob_t j = {0};
    int rc = GS_OK;
    for (int i = 0; i < n && rc == GS_OK; i++)
        if (o[i].out)
            rc = gs_xfer_get(c, &j, &h[i], d[i], (size_t)ld[i] * es);
    int rc2 = gs_xfer_finish(c, &j);
    return rc != GS_OK ? rc : rc2;
}

/* Any routine in one piece (every Level-3 routine but GEMM, and gemv, whose vectors travel strided on the host,
 * compact on the device): its n operands o on the device in whole, computed, the output copied back. */
static int gs_cuda_whole(gs_call_t *c, const gs_blas_t *p, const gs_operand_t *o, const gs_hreg_t *h,
                         gs_cbind_t *b, int n)
{
    size_t es = gs_prec_size(p->prec);
    char *d[3] = {NULL, NULL, NULL};
    int64_t ld[3] = {1, 1, 1};
    int rc = gs_cuda_operands(c, o, h, b, n, es, 0, NULL, d, ld);
    if (rc == GS_OK)
        rc = gs_cuda_compute(c, p, p->beta, d, ld);
    return rc != GS_OK ? rc : gs_cuda_outputs(c, o, h, n, es, d, ld);
}

int gs_cuda_run(gs_call_t *c, const gs_operand_t *o, int n, size_t es, uint8_t scratch_only, gs_cuda_body_fn *body,
                const void *arg)
{
    int prev;
    GS_CUDA(c, cudaGetDevice, (&prev));
    if (prev != gs_cuda.device)
        GS_CUDA(c, cudaSetDevice, (gs_cuda.device));
    gs_hreg_t h[4];
    gs_cbind_t b[4];
    size_t total = 0, budget = 0;
    uint64_t t0 = gs_now_ns(); /* the cache's own time, in the log as track_us */
    gs_cache_call();
    for (int i = 0; i < n; i++) {
        h[i] = gs_operand_hreg(&o[i], es);
        total += gs_round256((size_t)o[i].rows * (size_t)o[i].cols * es);
    }
    /* Operands are cached only when the call runs with all of them on the device (not GEMM out of core). */
    bool fits = gs_cuda_budget(c, &budget) == GS_OK && total <= budget;
    for (int i = 0; i < n; i++)
        gs_cache_bind(&h[i], o[i].in, o[i].out, c->known >> i & 1, fits && !(scratch_only >> i & 1), &b[i]);
    c->track_ns = gs_now_ns() - t0;
    gs_hostreg_call();
    for (int i = 0; i < n; i++)
        if (!b[i].hit) /* operands seen before are registered now, so that their copies skip staging */
            gs_hostreg_use(h[i].host, gs_hreg_extent(&h[i]));
    int rc = body(c, arg, o, h, b, n);
    t0 = gs_now_ns();
    gs_cache_end(c, b, n, rc == GS_OK);
    c->track_ns += gs_now_ns() - t0;
    if (rc != GS_OK) /* the log counts bytes of calls that ran on the GPU */
        c->bytes_h2d = c->bytes_d2h = c->bytes_saved = 0;
    if (gs_cuda.scratch_size > GS_SCRATCH_KEEP || rc == GS_ENOMEM)
        gs_cuda_scratch_free();
    if (prev != gs_cuda.device)
        gs_cuda.cudaSetDevice(prev);
    return rc;
}

static int gs_cuda_blas_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h,
                             gs_cbind_t *b, int n)
{
    const gs_blas_t *p = arg;
    return p->op == GS_OP_gemm ? gs_cuda_gemm(c, p, b) : gs_cuda_whole(c, p, o, h, b, n);
}

/* Every BLAS routine on the GPU. */
static int gs_cuda_blas(gs_call_t *c, const gs_blas_t *p)
{
    gs_operand_t o[3];
    int n = gs_blas_operands(p, o);
    return gs_cuda_run(c, o, n, gs_prec_size(p->prec), 0, gs_cuda_blas_body, p);
}

const gs_backend_t gs_cuda_backend = {
    .up = gs_cuda_up,
    .healthy = gs_cuda_healthy,
    .blas =
        {
            [GS_OP_gemm] = gs_cuda_blas,
            [GS_OP_symm] = gs_cuda_blas,
            [GS_OP_hemm] = gs_cuda_blas,
            [GS_OP_syrk] = gs_cuda_blas,
            [GS_OP_herk] = gs_cuda_blas,
            [GS_OP_syr2k] = gs_cuda_blas,
            [GS_OP_her2k] = gs_cuda_blas,
            [GS_OP_trmm] = gs_cuda_blas,
            [GS_OP_trsm] = gs_cuda_blas,
            [GS_OP_gemv] = gs_cuda_blas,
        },
#define GS_X_LAPACK(op) [GS_OP_##op] = gs_cuda_lapack,
    .lapack = {GS_LAPACK_OPS(GS_X_LAPACK)},
#undef GS_X_LAPACK
};

/* The cuBLAS calls (cuda_cublas.h), through the 64-bit-size entries that cuda/cudalib.c resolved, on the
 * cuBLAS handle of the call's device. */
#include <string.h>

#include "backend/cuda_cublas.h"

/* cuBLAS signatures with every pointer as void: the same ABI as each precision's own prototype. */
typedef cublasStatus_t gs_cublas_gemm_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                         int64_t, const void *, const void *, int64_t, const void *, int64_t,
                                         const void *, void *, int64_t);
typedef cublasStatus_t gs_cublas_trmm_fn(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                         cublasDiagType_t, int64_t, int64_t, const void *, const void *, int64_t,
                                         const void *, int64_t, void *, int64_t);
typedef cublasStatus_t gs_cublas_trsm_fn(cublasHandle_t, cublasSideMode_t, cublasFillMode_t, cublasOperation_t,
                                         cublasDiagType_t, int64_t, int64_t, const void *, const void *, int64_t,
                                         void *, int64_t);
typedef cublasStatus_t gs_cublas_geam_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
                                         const void *, const void *, int64_t, const void *, const void *, int64_t,
                                         void *, int64_t);
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

int gs_cublas_gemm(gs_call_t *c, int prec, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                   int64_t k, const void *alpha, const void *a, int64_t lda, const void *b, int64_t ldb,
                   const void *beta, void *cm, int64_t ldc)
{
    GS_TRY(c, gs_cublas_names[GS_OP_gemm][prec],
           ((gs_cublas_gemm_fn *)gs_cuda.blas[GS_OP_gemm][prec])(gs_dev(c)->handle, ta, tb, m, n, k, alpha, a, lda, b,
                                                                 ldb, beta, cm, ldc));
    return GS_OK;
}

int gs_cublas_trsm(gs_call_t *c, int prec, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t,
                   cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda,
                   void *b, int64_t ldb)
{
    GS_TRY(c, gs_cublas_names[GS_OP_trsm][prec],
           ((gs_cublas_trsm_fn *)gs_cuda.blas[GS_OP_trsm][prec])(gs_dev(c)->handle, side, uplo, t, diag, m, n, alpha,
                                                                 a, lda, b, ldb));
    return GS_OK;
}

int gs_cublas_trmm(gs_call_t *c, int prec, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t t,
                   cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda,
                   const void *b, int64_t ldb, void *cm, int64_t ldc)
{
    GS_TRY(c, gs_cublas_names[GS_OP_trmm][prec],
           ((gs_cublas_trmm_fn *)gs_cuda.blas[GS_OP_trmm][prec])(gs_dev(c)->handle, side, uplo, t, diag, m, n, alpha,
                                                                 a, lda, b, ldb, cm, ldc));
    return GS_OK;
}

int gs_cublas_geam(gs_call_t *c, int prec, cublasOperation_t ta, cublasOperation_t tb, int64_t m, int64_t n,
                   const void *alpha, const void *a, int64_t lda, const void *beta, const void *b, int64_t ldb,
                   void *cm, int64_t ldc)
{
    GS_TRY(c, gs_geam_names[prec],
           ((gs_cublas_geam_fn *)gs_cuda.geam[prec])(gs_dev(c)->handle, ta, tb, m, n, alpha, a, lda, beta, b, ldb, cm,
                                                     ldc));
    return GS_OK;
}

static cublasOperation_t gs_cu_op(char t, int prec)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'C' && gs_prec_complex(prec) ? CUBLAS_OP_C : CUBLAS_OP_T;
}
static cublasSideMode_t gs_cu_side(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
static cublasFillMode_t gs_cu_fill(char u) { return u == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static cublasDiagType_t gs_cu_diag(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }

int gs_cuda_compute(gs_call_t *c, const gs_blas_t *p, const void *beta_in, char *const d[3], const int64_t ld[3])
{
    void *f = gs_cuda.blas[p->op][p->prec];
    const char *name = gs_cublas_names[p->op][p->prec];
    cublasHandle_t h = gs_dev(c)->handle;
    /* cuBLAS reads a complex scalar as a 16-byte vector that must be 16-byte aligned, and crashes otherwise;
     * Fortran and C callers may pass COMPLEX*16 scalars aligned to 8 bytes (tests/progs/blas_all.c does,
     * and the stand-in rejects a misaligned scalar).  So the scalars are copied. */
    _Alignas(16) unsigned char alpha[16], beta[16];
    memcpy(alpha, p->alpha, gs_blas_scalar_size(p, 0));
    if (beta_in)
        memcpy(beta, beta_in, gs_blas_scalar_size(p, 1));
    cublasOperation_t ta = gs_cu_op(p->trans, p->prec);
    switch (p->op) {
    case GS_OP_gemm:
        return gs_cublas_gemm(c, p->prec, ta, gs_cu_op(p->transb, p->prec), p->m, p->n, p->k, alpha, d[0], ld[0],
                              d[1], ld[1], beta, d[2], ld[2]);
    case GS_OP_symm:
    case GS_OP_hemm:
        GS_TRY(c, name, ((gs_cublas_symm_fn *)f)(h, gs_cu_side(p->side), gs_cu_fill(p->uplo), p->m, p->n, alpha,
                                                  d[0], ld[0], d[1], ld[1], beta, d[2], ld[2]));
        return GS_OK;
    case GS_OP_syrk:
    case GS_OP_herk:
        GS_TRY(c, name, ((gs_cublas_syrk_fn *)f)(h, gs_cu_fill(p->uplo), ta, p->n, p->k, alpha, d[0], ld[0], beta,
                                                  d[1], ld[1]));
        return GS_OK;
    case GS_OP_syr2k:
    case GS_OP_her2k:
        GS_TRY(c, name, ((gs_cublas_syr2k_fn *)f)(h, gs_cu_fill(p->uplo), ta, p->n, p->k, alpha, d[0], ld[0], d[1],
                                                   ld[1], beta, d[2], ld[2]));
        return GS_OK;
    case GS_OP_trmm: /* cuBLAS's trmm is out of place; C = B makes it in place */
        return gs_cublas_trmm(c, p->prec, gs_cu_side(p->side), gs_cu_fill(p->uplo), ta, gs_cu_diag(p->diag), p->m,
                              p->n, alpha, d[0], ld[0], d[1], ld[1], d[1], ld[1]);
    case GS_OP_trsm:
        return gs_cublas_trsm(c, p->prec, gs_cu_side(p->side), gs_cu_fill(p->uplo), ta, gs_cu_diag(p->diag), p->m,
                              p->n, alpha, d[0], ld[0], d[1], ld[1]);
    case GS_OP_gemv: /* the vectors are compact on the device */
        GS_TRY(c, name, ((gs_cublas_gemv_fn *)f)(h, ta, p->m, p->n, alpha, d[0], ld[0], d[1], 1, beta, d[2], 1));
        return GS_OK;
    default:
        gs_call_why(c, "gpu error: cuBLAS has no %s", gs_ops[p->op].name);
        return GS_EGPU;
    }
}

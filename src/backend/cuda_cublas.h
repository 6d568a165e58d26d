/* The cuBLAS calls of the CUDA backend (cuda_cublas.c), on the call's device and its compute stream: any
 * Level-3 operation or gemv on operands already on the device, and the few products and transpositions that
 * the LAPACK operations make around cuSOLVER.  Each returns 0, or the GS_E* code of a failed cuBLAS call with
 * the reason in c->why. */
#ifndef GS_CUDA_CUBLAS_H
#define GS_CUDA_CUBLAS_H

#include "cuda/device.h"
#include "families/blas/blas.h"

/* The cuBLAS call of the BLAS operation p (every Level-3 one, and gemv, whose vectors are compact on the
 * device), with beta for p->beta, on device copies d[i] of the operands, whose leading dimensions are
 * ld[i]. */
GS_HIDDEN int gs_cuda_compute(gs_call_t *c, const gs_blas_t *p, const void *beta, char *const d[3],
                              const int64_t ld[3]);

/* cuBLAS's 64-bit-size gemm, trsm, trmm (out of place: C = alpha op(A) B) and geam (C = alpha op(A) + beta
 * op(B)) in precision prec, with cuBLAS's own option values and host scalars. */
GS_HIDDEN int gs_cublas_gemm(gs_call_t *c, int prec, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                             int64_t n, int64_t k, const void *alpha, const void *a, int64_t lda, const void *b,
                             int64_t ldb, const void *beta, void *cm, int64_t ldc);
GS_HIDDEN int gs_cublas_trsm(gs_call_t *c, int prec, cublasSideMode_t side, cublasFillMode_t uplo,
                             cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                             const void *a, int64_t lda, void *b, int64_t ldb);
GS_HIDDEN int gs_cublas_trmm(gs_call_t *c, int prec, cublasSideMode_t side, cublasFillMode_t uplo,
                             cublasOperation_t t, cublasDiagType_t diag, int64_t m, int64_t n, const void *alpha,
                             const void *a, int64_t lda, const void *b, int64_t ldb, void *cm, int64_t ldc);
GS_HIDDEN int gs_cublas_geam(gs_call_t *c, int prec, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                             int64_t n, const void *alpha, const void *a, int64_t lda, const void *beta,
                             const void *b, int64_t ldb, void *cm, int64_t ldc);

#endif

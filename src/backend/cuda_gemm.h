/* GEMM on the device in tiles (cuda_gemm.c). */
#ifndef GS_CUDA_GEMM_H
#define GS_CUDA_GEMM_H

#include "backend/cuda_call.h"
#include "families/blas/blas.h"

/* Level-3 GEMM, tiled so that copies and computation overlap, and out of core when the operands do not fit.
 * cb[0..2] are A's, B's and C's cache entries (cache.h).  A gs_cuda_body_fn's contract (cuda_call.h), with the
 * call's device current. */
GS_HIDDEN int gs_cuda_gemm(gs_call_t *c, const gs_blas_t *p, gs_cbind_t *cb);

#endif

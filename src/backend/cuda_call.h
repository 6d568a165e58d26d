/* One call on the device, for the BLAS (cuda_blas.c) and LAPACK (cuda_lapack.c) backends: the operands bound
 * to the residency cache, moved by the transfer engine, and the body that computes. */
#ifndef GS_CUDA_CALL_H
#define GS_CUDA_CALL_H

#include "memory/cache.h"
#include "families/lapack/lapack.h"

/* The body of a GPU call: its n operands o, their regions h and cache entries b set up; computes and copies the
 * outputs back (gs_cuda_operands, gs_cuda_outputs).  arg is the call's normalised arguments. */
typedef int gs_cuda_body_fn(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h,
                            gs_cbind_t *b, int n);
/* Runs body on the configured device, giving the calling thread's current device back afterwards (the program
 * may use CUDA itself), with the operands bound to the residency cache (except those in scratch_only, bit i
 * for operand i, which the device changes without copying back) and registered for copies.  Contract of
 * gs_blas_fn (backend.h). */
GS_HIDDEN int gs_cuda_run(gs_call_t *c, const gs_operand_t *o, int n, size_t es, uint8_t scratch_only,
                          gs_cuda_body_fn *body, const void *arg);
/* Device memory for the operands not in the cache (scratch) and extra bytes after them (*dextra), and the
 * uploads of the operands the device does not hold already: d[i] and ld[i] are where the operands are. */
GS_HIDDEN int gs_cuda_operands(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, const gs_cbind_t *b,
                               int n, size_t es, size_t extra, char **dextra, char **d, int64_t *ld);
/* Copies the outputs back once the computation queued so far has succeeded. */
GS_HIDDEN int gs_cuda_outputs(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, int n, size_t es,
                              char *const *d, const int64_t *ld);
/* LAPACK through cuSOLVER (cuda_lapack.c): gs_lapack_fn (backend.h). */
GS_HIDDEN int gs_cuda_lapack(gs_call_t *c, const gs_lapack_t *p);
#endif

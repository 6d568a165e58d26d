/* The device backend: a table of function pointers, one member per operation, precision as a field of the
 * normalised arguments.  The CPU side needs no member: a call that stays on the CPU goes to the CPU library's
 * own entry with its original arguments (real.c), so that results and error reports are the library's own.
 * The CUDA backend serves both the real CUDA libraries and the test stand-in, which the shim loads in their
 * place (GPUSHIM_CUDA_LIBDIR), so every line of it runs in CI. */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include "families/lapack/lapack.h"

/* Contract of every member: called with the GPU lock held.  Either completes the call, writing user memory
 * only after the device work has succeeded, and returns 0; or returns a negative GS_E* code, with the reason
 * in c->why, before any user memory was written, so that the caller can run the call on the CPU.  Adds the
 * bytes it moved to c->bytes_h2d and c->bytes_d2h. */
typedef int gs_blas_fn(gs_call_t *c, const gs_blas_t *p);
/* The same contract for LAPACK; GS_ELAPACK when the device computed INFO > 0 (a singular matrix, say): the CPU
 * library then makes the call again, for LAPACK's exact outputs in that case. */
typedef int gs_lapack_fn(gs_call_t *c, const gs_lapack_t *p);

typedef struct {
    /* Brings the device up.  0, with the device named in why ("NAME, device N, M MiB"), or negative with a
     * reason for the user in why. */
    int (*up)(char *why, size_t n);
    /* After a failed call: 0 when the device still works (the failure was local to that call). */
    int (*healthy)(void);
    /* Level 1-3 BLAS, indexed by gs_op_t; NULL where the operation stays on the CPU. */
    gs_blas_fn *blas[GS_NOPS];
    /* LAPACK, indexed by gs_op_t likewise. */
    gs_lapack_fn *lapack[GS_NOPS];
} gs_backend_t;

GS_HIDDEN extern const gs_backend_t gs_cuda_backend;
/* The backend in use (gpu.c). */
GS_HIDDEN extern const gs_backend_t *const gs_backend;

#endif

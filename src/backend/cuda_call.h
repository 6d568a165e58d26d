/* One call on the device (cuda_call.c), for every operation of the CUDA backend: the call's device made
 * current, its operands bound to the residency cache and registered, moved by the transfer engine around the
 * body that computes; the scratch memory that holds them and the budget of device memory a call may use. */
#ifndef GS_CUDA_CALL_H
#define GS_CUDA_CALL_H

#include "dispatch/backend.h"
#include "memory/cache.h"

/* The body of a GPU call: its n operands o, their regions h and cache entries b set up; computes and copies the
 * outputs back (gs_cuda_operands, gs_cuda_outputs).  arg is the call's normalised arguments. */
typedef int gs_cuda_body_fn(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h,
                            gs_cbind_t *b, int n);
/* Runs body on the call's device (c->dev), giving the calling thread's current device back afterwards (the
 * program may use CUDA itself), with the operands bound to the residency cache (except those in
 * o->scratch_only) and registered for copies.  Contract of gs_op_fn (dispatch/backend.h). */
GS_HIDDEN int gs_cuda_run(gs_call_t *c, const gs_operands_t *o, gs_cuda_body_fn *body, const void *arg);
/* gs_backend_t's traffic: bytes the call's copies would move, the residency cache considered. */
GS_HIDDEN void gs_cuda_traffic(gs_call_t *c, const gs_operands_t *o, gs_traffic_t *t);

/* A library the backend loads once for the process, at the first call that needs it (cuFFT, gpushim's kernels):
 * state 0 not tried, 1 loaded, -1 failed with the reason in why. */
typedef struct {
    int state;
    char why[200];
} gs_once_t;
/* Runs open (GS_OK, or else the reason written into its buffer) once for o; a failure is said once on stderr
 * as "WHY; THEN".  GS_OK, or GS_ENODEV with c->why the reason.  With the GPU lock held. */
GS_HIDDEN int gs_cuda_once(gs_call_t *c, gs_once_t *o, int (*open)(char *why, size_t n), const char *then);

/* bytes rounded up to 256, the alignment of each operand in device memory. */
static inline size_t gs_round256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Device memory for one call's operands on the call's device (gs_dev(c)->scratch): at least bytes, kept
 * between calls up to a bound.  Called with the GPU lock held. */
GS_HIDDEN int gs_cuda_scratch(gs_call_t *c, size_t bytes);
/* The backend's release (dispatch/backend.h): the scratch memory and every cache entry freed of each slot on
 * the calling thread's current device (the program's, whose allocation failed), the current device left as
 * it was; the bytes freed. */
GS_HIDDEN size_t gs_cuda_release(void);
/* Bytes of device memory a call may use now: free memory (plus the scratch buffer and the residency cache's
 * evictable bytes, which can be given back) less a reserve for cuBLAS, capped by GPUSHIM_DEVICE_MEMORY. */
GS_HIDDEN int gs_cuda_budget(gs_call_t *c, size_t *bytes);

/* Operand o (elements of es bytes) as a host region. */
static inline gs_hreg_t gs_operand_hreg(const gs_operand_t *o, size_t es)
{
    return (gs_hreg_t){(char *)o->host, (size_t)o->rows * es, (size_t)o->ld * es, (size_t)o->cols};
}
/* Device memory for the operands not in the cache (scratch) and extra bytes after them (*dextra), and the
 * uploads of the operands the device does not hold already: d[i] and ld[i] are where the operands are. */
GS_HIDDEN int gs_cuda_operands(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, const gs_cbind_t *b,
                               int n, size_t es, size_t extra, char **dextra, char **d, int64_t *ld);
/* Copies the outputs back once the computation queued so far has succeeded. */
GS_HIDDEN int gs_cuda_outputs(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, int n, size_t es,
                              char *const *d, const int64_t *ld);

#endif

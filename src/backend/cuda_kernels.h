/* gpushim's own kernels (kernels/), embedded in the library as one fatbin and loaded through the CUDA runtime
 * at the first call that needs them (cuda_kernels.c). */
#ifndef GS_CUDA_KERNELS_H
#define GS_CUDA_KERNELS_H

#include "finite.h"
#include "permute.h"
#include "scale.h"

#include "backend/cuda_call.h"

/* Queues the strided copy p of elements of es bytes (4, 8 or 16) from src to dst, device memory of the call's
 * device, on its compute stream.  0; or GS_ENODEV when the kernels cannot be loaded (the reason in c->why,
 * said once on stderr), GS_EGPU when the launch fails.  With the GPU lock held, the device current. */
GS_HIDDEN int gs_kernel_permute(gs_call_t *c, const void *src, void *dst, const gs_permute_t *p, size_t es);
/* Queues the scale p of the reals of rs bytes (4 or 8) at x, device memory of the call's device, on its compute
 * stream; the same contract. */
GS_HIDDEN int gs_kernel_scale(gs_call_t *c, void *x, const gs_scale_t *p, size_t rs);
/* Queues the check p of the reals of rs bytes (4 or 8) at x, which sets the device int at flag to 1 when one is an
 * infinity or a NaN; the same contract. */
GS_HIDDEN int gs_kernel_finite(gs_call_t *c, const void *x, const gs_finite_t *p, size_t rs, int *flag);

#endif

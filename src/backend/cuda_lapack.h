/* LAPACK on the device through cuSOLVER (cuda_lapack.c), as one member of the backend table. */
#ifndef GS_CUDA_LAPACK_H
#define GS_CUDA_LAPACK_H

#include "dispatch/backend.h"

/* Every LAPACK operation: gs_op_fn (dispatch/backend.h). */
GS_HIDDEN int gs_cuda_lapack(gs_call_t *c, const void *args, const gs_operands_t *o);

#endif

/* Glue for the LAPACK entry templates (src/families/lapack/getrf.inc, ...): the parameters and helpers of the
 * BLAS glue (glue_blas.h), and the LAPACK family.  LAPACK has the Fortran entries only; a routine with a
 * workspace makes the CPU library's workspace query (LWORK = -1) in its template when the dispatcher asks. */
#ifndef GS_GLUE_LAPACK_H
#define GS_GLUE_LAPACK_H

#include "families/blas/glue_blas.h"
#include "families/lapack/lapack.h"

#endif

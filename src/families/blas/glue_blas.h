/* Glue for the entry templates, one .inc per operation (gemm.inc, ..., and ../lapack/getrf.inc, ...), which the
 * generated build/entry_points.c includes once per exported symbol of the routine table, after defining
 *   GS_SYM   the symbol (dgemm_, scipy_cblas_dgemm64_, ...)      GS_PREC  its precision: S, D, C or Z
 *   GS_BITS  its integer width: 32 or 64                         GS_F77 or GS_CBLAS  its calling convention
 * Only macros that turn those into names and types live here; the entries' bodies are real text in the .inc
 * files, so a debugger shows and steps their lines (tests/t_debug.sh). */
#ifndef GS_GLUE_BLAS_H
#define GS_GLUE_BLAS_H

#include "dispatch/dispatch.h"
#include "families/blas/blas.h"

#define GS_CAT(a, b) a##b
#define GS_XCAT(a, b) GS_CAT(a, b)

/* The entry's id (GS_E_dgemm_) and its integer type. */
#define GS_ENTRY_ID GS_XCAT(GS_E_, GS_SYM)
#define GS_INT GS_XCAT(GS_INT_, GS_BITS)
#define GS_INT_32 int
#define GS_INT_64 int64_t

/* 1 for the complex precisions, for #if. */
#define GS_COMPLEX GS_XCAT(GS_COMPLEX_, GS_PREC)
#define GS_COMPLEX_S 0
#define GS_COMPLEX_D 0
#define GS_COMPLEX_C 1
#define GS_COMPLEX_Z 1

/* A CBLAS scalar of the precision (GS_SCALAR_T): real ones by value, complex ones by pointer; GS_SCALAR_REF(x)
 * is a pointer to it either way, as the fill functions take.  GS_REAL_T: a real of the precision (herk's
 * alpha and beta and her2k's beta, by value in CBLAS; LAPACK's RCOND). */
#define GS_SCALAR_T GS_XCAT(GS_SCALAR_, GS_PREC)
#define GS_SCALAR_S float
#define GS_SCALAR_D double
#define GS_SCALAR_C const void *
#define GS_SCALAR_Z const void *
#define GS_SCALAR_REF(x) GS_XCAT(GS_SCALAR_REF_, GS_PREC)(x)
#define GS_SCALAR_REF_S(x) (&(x))
#define GS_SCALAR_REF_D(x) (&(x))
#define GS_SCALAR_REF_C(x) (x)
#define GS_SCALAR_REF_Z(x) (x)
#define GS_REAL_T GS_XCAT(GS_REAL_, GS_PREC)
#define GS_REAL_S float
#define GS_REAL_D double
#define GS_REAL_C float
#define GS_REAL_Z double
#define GS_REAL_REF(x) (&(x))

/* The CPU library's definition of this very symbol, which the dispatcher leaves in c.real: an entry calls it
 * with its original arguments, hidden Fortran string lengths included, so that results and argument errors
 * are the library's own.  The hidden lengths are declared size_t, as gfortran passes them; a C caller that
 * omits them leaves whatever its registers hold, which is forwarded unread, as it would have reached the
 * library anyway. */
#define GS_CPU(c) ((__typeof__(&GS_SYM))(c).real)

#endif

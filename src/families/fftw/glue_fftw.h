/* Glue for the FFTW entry templates (fftexec.inc, fftdft.inc, fftr2c.inc, fftc2r.inc), which the generated
 * build/entry_points.c includes once per exported symbol, after defining GS_SYM (fftw_execute_dft, ...),
 * GS_PREC (Z for fftw_, C for fftwf_) and GS_FFTW.  The types are <fftw3.h>'s, so that every entry's
 * prototype is checked against FFTW's own declaration of the same name. */
#ifndef GS_GLUE_FFTW_H
#define GS_GLUE_FFTW_H

#include <fftw3.h>

#include "families/blas/glue_blas.h"
#include "families/fftw/fftw.h"

/* The plan, complex and real types of the precision. */
#define GS_FFTW_PLAN GS_XCAT(GS_FFTW_PLAN_, GS_PREC)
#define GS_FFTW_PLAN_Z fftw_plan
#define GS_FFTW_PLAN_C fftwf_plan
#define GS_FFTW_COMPLEX GS_XCAT(GS_FFTW_COMPLEX_, GS_PREC)
#define GS_FFTW_COMPLEX_Z fftw_complex
#define GS_FFTW_COMPLEX_C fftwf_complex
#define GS_FFTW_REAL GS_XCAT(GS_FFTW_REAL_, GS_PREC)
#define GS_FFTW_REAL_Z double
#define GS_FFTW_REAL_C float

#endif

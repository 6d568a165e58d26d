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
#define GS_FFTW_R2R_KIND GS_XCAT(GS_FFTW_R2R_KIND_, GS_PREC)
#define GS_FFTW_R2R_KIND_Z fftw_r2r_kind
#define GS_FFTW_R2R_KIND_C fftwf_r2r_kind

/* The plan parameter of an entry: by value for the C symbols (GS_CONV_NAME FFTW), by reference for the Fortran
 * wrappers (FFTWF77), whose plan is an integer*8 holding FFTW's pointer; GS_FFTW_PLAN_OF(p) is the plan. */
#define GS_FFTW_CAT(a, b) GS_FFTW_CAT_(a, b) /* not GS_XCAT, which the parameter's type expands inside it */
#define GS_FFTW_CAT_(a, b) a##b
#define GS_FFTW_PLAN_PARAM GS_FFTW_CAT(GS_FFTW_PLAN_PARAM_, GS_CONV_NAME)
#define GS_FFTW_PLAN_PARAM_FFTW const GS_FFTW_PLAN
#define GS_FFTW_PLAN_PARAM_FFTWF77 const GS_FFTW_PLAN *
#define GS_FFTW_PLAN_OF(p) GS_FFTW_CAT(GS_FFTW_PLAN_OF_, GS_CONV_NAME)(p)
#define GS_FFTW_PLAN_OF_FFTW(p) (p)
#define GS_FFTW_PLAN_OF_FFTWF77(p) (*(p))
#define GS_FFTW_PLAN_REF(p) GS_FFTW_CAT(GS_FFTW_PLAN_REF_, GS_CONV_NAME)(p)
#define GS_FFTW_PLAN_REF_FFTW(p) (p)
#define GS_FFTW_PLAN_REF_FFTWF77(p) (&(p))

/* Runs FFTW's execute fn with the entry's plan parameter and the rest of its arguments, on the plan or on a twin
 * with fewer threads (fftw.h); threads_ (an int lvalue) is the twin's threads, or 0 for the plan. */
#define GS_FFTW_RUN(fn, threads_, plan, ...) \
    do { \
        gs_fftw_run_t r_; \
        GS_FFTW_PLAN p_ = (GS_FFTW_PLAN)gs_fftw_twin_begin(GS_FFTW_PLAN_OF(plan), &r_); \
        fn(GS_FFTW_PLAN_REF(p_), ##__VA_ARGS__); \
        gs_fftw_twin_end(&r_); \
        threads_ = r_.threads; \
    } while (0)
/* An execute that stays on the CPU (p the family's arguments): a deferred plan's measured one in its place
 * (fftw.h); the log says on how many threads it ran. */
#define GS_FFTW_CPU(call, p, plan, ...) \
    do { \
        int threads_ = 0; \
        GS_FFTW_PLAN m_ = (p).known && (p).g.deferred ? (GS_FFTW_PLAN)gs_fftw_measured(&(call), &(p)) : NULL; \
        if (m_) \
            GS_CPU(call)(GS_FFTW_PLAN_REF(m_), ##__VA_ARGS__); \
        else \
            GS_FFTW_RUN(GS_CPU(call), threads_, plan, ##__VA_ARGS__); \
        (call).threads = (uint8_t)(threads_ ? threads_ : (p).known && (p).g.threads < 256 ? (p).g.threads : 0); \
    } while (0)

/* An execute's short path (fftw.h): a plan that always stays on the CPU goes straight to FFTW with args. */
#define GS_FFTW_SHORT_PATH(plan, ...) \
    do { \
        if (gs_fftw_short_path(GS_FFTW_PLAN_OF(plan))) { \
            __typeof__(&GS_SYM) real_ = (__typeof__(&GS_SYM))gs_real(GS_ENTRY_ID); \
            int threads_ __attribute__((unused)); \
            if (real_) \
                GS_FFTW_RUN(real_, threads_, plan, ##__VA_ARGS__); \
            return; \
        } \
    } while (0)

#endif

/* FFTW's planners, destroy_plan and cleanup, for double (fftw_) and single (fftwf_) precision: the template
 * plan.inc, included once per precision.  Every plan is made by the real FFTW with the caller's own arguments
 * and flags, and returned unchanged (NULL where FFTW returns NULL); the registry records its geometry, which
 * the executes look up.  These symbols are exported but are not calls of the table (GS_FFTW_PLANNERS). */
#include "families/fftw/glue_fftw.h"

/* The real definition of fn, with fn's own type, resolved once; NULL, reported once, when no library has it. */
#define GS_FFTW_RESOLVE(fn) GS_FFTW_RESOLVE_(fn)
#define GS_FFTW_RESOLVE_(fn) \
    ({ \
        static _Atomic(void *) gs_slot_; \
        static atomic_bool gs_reported_; \
        gs_init(); \
        (__typeof__(&fn))gs_real_resolve(&gs_slot_, &gs_reported_, #fn, "it returns nothing"); \
    })

/* Around the real planner: the thread counts as inside FFTW, so that a planner FFTW calls through its own
 * exported names (Debian's libfftw3: plan_dft_1d calls plan_many_dft through the PLT) passes straight through
 * and the plan is recorded once, from the outer call's arguments (tests/t_fftw.sh, "the shapes"). */
static bool gs_fftw_plan_begin(void)
{
    gs_init();
    return gs_depth++ > 0;
}

static void *gs_fftw_plan_end(bool nested, gs_fftw_geom_t *g, void *plan)
{
    gs_depth--;
    if (plan && !nested) {
        g->plan = plan;
        gs_fftw_geom_finish(g);
        gs_fftw_register(g);
    }
    return plan;
}

#define GS_FN(x) GS_XCAT(GS_FFTW_PRE, x)
#define GS_PREC_ID GS_XCAT(GS_P_, GS_PREC)

#define GS_FFTW_PRE fftw_
#define GS_PREC Z
#include "families/fftw/plan.inc"
#undef GS_FFTW_PRE
#undef GS_PREC

#define GS_FFTW_PRE fftwf_
#define GS_PREC C
#include "families/fftw/plan.inc"
#undef GS_FFTW_PRE
#undef GS_PREC

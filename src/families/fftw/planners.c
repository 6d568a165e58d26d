/* FFTW's planners, destroy_plan and cleanup, for double (fftw_) and single (fftwf_) precision: the template
 * plan.inc, included once per precision.  Every plan is made by the real FFTW that the caller reaches, with the
 * caller's own arguments and flags (its measuring deferred, gs_fftw_defers), and returned unchanged (NULL where
 * FFTW returns NULL); the registry records its geometry and that FFTW, which the executes look up.  These symbols
 * are exported but are not calls of the table (GS_FFTW_PLANNERS). */
#include "families/fftw/glue_fftw.h"

/* The process-wide real definition of fn (gs_real_resolve), with fn's own type, resolved once; NULL, reported
 * once, when no library has it. */
#define GS_FFTW_DEFAULT(fn) GS_FFTW_DEFAULT_(fn)
#define GS_FFTW_DEFAULT_(fn) \
    ({ \
        static _Atomic(void *) gs_slot_; \
        static atomic_bool gs_reported_; \
        gs_init(); \
        (__typeof__(&fn))gs_real_resolve(&gs_slot_, &gs_reported_, #fn, "it returns nothing"); \
    })
/* The definition of fn that the calling function's caller reaches (gs_real_caller: its own FFTW where the
 * process has two), def when that is the process-wide one; its library's number into *lib, for the registry.
 * A planner that FFTW calls through its own exported names (plan_dft_1d calls plan_many_dft) thus reaches the
 * same FFTW as the outer one (tests/t_fftw.sh, "two FFTWs"). */
#define GS_FFTW_CALLER(fn, def, lib) GS_FFTW_CALLER_(fn, def, lib)
#define GS_FFTW_CALLER_(fn, def, lib) \
    ((__typeof__(&fn))gs_real_caller(__builtin_return_address(0), (void *)(def), #fn, (lib)))
#define GS_FFTW_RESOLVE(fn, lib) GS_FFTW_CALLER(fn, GS_FFTW_DEFAULT(fn), lib)
/* fn as library lib (> 0: a plan's) defines it, or NULL. */
#define GS_FFTW_IN_LIB(fn, lib) GS_FFTW_IN_LIB_(fn, lib)
#define GS_FFTW_IN_LIB_(fn, lib) \
    ({ \
        static _Atomic(void *) gs_slots_[GS_REAL_LIBS]; \
        (__typeof__(&fn))gs_real_lib((lib), gs_slots_, #fn); \
    })

/* Whether the real planner makes g with FFTW_ESTIMATE rather than the flags asked (GPUSHIM_FFTW_DEFER): a plan
 * FFTW is asked to measure (FFTW_MEASURE, PATIENT or EXHAUSTIVE: seconds of trial executes for a large
 * transform; 14 s of the 21 s of bench/apps' fftw_c on the H100 machine) made by the process-wide FFTW,
 * whose executes the policy's rates put on the GPU, unless the GPU has failed.  Such a plan is measured only if
 * one of its executes comes to the CPU, other than for the GPU's bring-up (twin.c's gs_fftw_measured), and its
 * planner leaves the arrays alone, as FFTW_ESTIMATE's does (cuFFTW takes no planner flags at all). */
static bool gs_fftw_defers(const gs_fftw_geom_t *g, unsigned flags, int lib)
{
    if (!gs.opt.fftw_defer || lib != 0 || g->why || flags & (FFTW_ESTIMATE | FFTW_WISDOM_ONLY) ||
        atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_FAILED)
        return false;
    int r = gs_routine_of(GS_OP_fftexec, g->prec); /* the routine of the plan's executes (fftw_execute's) */
    if (r < 0)
        return false;
    int64_t in = g->span[0], out = g->span[1], rs = (int64_t)gs_prec_size(g->prec) / 2;
    double bytes = (double)((g->inplace ? 2 * (in > out ? in : out) : in + out) * rs);
    gs_call_t c = {.routine = (uint16_t)r, .flops = g->flops};
    c.threads = (uint8_t)(g->threads < 255 ? g->threads : 255);
    return gs_policy_gpu_wins(&c, bytes, gs_backend->op[GS_OP_fftexec] != NULL);
}

/* Around the real planner: the thread counts as inside FFTW, so that a planner FFTW calls through its own
 * exported names (Debian's libfftw3: plan_dft_1d calls plan_many_dft through the PLT) passes straight through
 * and the plan is recorded once, from the outer call's arguments (tests/t_fftw.sh, "the shapes").  The outer
 * call holds the planner lock (twin.c), completes g, and sets the flags the real planner is called with. */
static bool gs_fftw_plan_begin(gs_fftw_geom_t *g, unsigned *flags, int lib)
{
    gs_init();
    if (gs_depth++ > 0)
        return true;
    pthread_mutex_lock(&gs_fftw_planner_lock);
    g->threads = (int16_t)gs_fftw_threads(g->prec);
    gs_fftw_geom_finish(g);
    if ((g->deferred = gs_fftw_defers(g, *flags, lib)))
        *flags = (*flags & ~(unsigned)(FFTW_PATIENT | FFTW_EXHAUSTIVE)) | FFTW_ESTIMATE;
    return false;
}

static void *gs_fftw_plan_end(bool nested, gs_fftw_geom_t *g, void *plan, int lib)
{
    gs_depth--;
    if (nested)
        return plan;
    if (plan) {
        g->plan = plan;
        g->lib = (uint8_t)lib;
        if (gs_fftw_register(g) == GS_OK)
            gs_fftw_twin_mark(g);
    }
    pthread_mutex_unlock(&gs_fftw_planner_lock);
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

/* FFTW3 in one normalised form: a plan's geometry as the guru interface describes it (each dimension's size
 * and input and output strides, then the howmany dimensions), kept per plan by the registry (registry.c) from
 * the planner's arguments, and the arguments of one execute, which the dispatcher takes with the family's
 * descriptor (fftw.c). */
#ifndef GS_FFTW_H
#define GS_FFTW_H

#include <stddef.h>

#include "dispatch/dispatch.h"
#include "permute.h"

/* The kinds of transform the planners make. */
typedef enum { GS_FFTW_DFT, GS_FFTW_R2C, GS_FFTW_C2R, GS_FFTW_R2R } gs_fftw_kind_t;

/* Most dimensions (rank and howmany together) a geometry records; a plan with more is recorded as truncated. */
#define GS_FFTW_DIMS_MAX 8

/* One dimension: its logical size (a real array's for r2c and c2r, whose complex side has n / 2 + 1 in the
 * last dimension) and strides in elements of each side's type (real or complex), as FFTW's guru interface. */
typedef struct {
    int64_t n, is, os;
} gs_fftw_dim_t;

/* The advanced layout of a plan (layout.c): element (b, x0, ..., x[rank-1]) of the input is at
 * b idist + ((x0 inembed[1] + x1) inembed[2] + x2 ...) istride, in the side's elements (real or complex), and
 * likewise for the output; batch transforms. */
typedef struct {
    int rank; /* 1 to 3 */
    int64_t n[3], inembed[3], onembed[3];
    int64_t istride, ostride, idist, odist, batch;
} gs_fftw_layout_t;

typedef struct {
    const void *plan;   /* the plan FFTW returned: the registry's key */
    uint8_t kind;       /* gs_fftw_kind_t */
    uint8_t prec;       /* GS_P_Z for fftw_, GS_P_C for fftwf_ */
    int8_t sign;        /* FFTW_FORWARD (-1) or FFTW_BACKWARD (+1); r2c is forward, c2r backward */
    bool truncated;     /* rank + howmany_rank > GS_FFTW_DIMS_MAX: dims holds none of them */
    bool inplace;       /* planned with the input and output at one address */
    bool split;         /* split arrays (real and imaginary parts apart), which the GPU path never takes */
    int rank, howmany_rank;
    gs_fftw_dim_t dims[GS_FFTW_DIMS_MAX]; /* the rank dimensions, then the howmany ones */
    const void *in, *out; /* the arrays planned with */
    unsigned flags;
    /* Set by gs_fftw_geom_finish: */
    gs_fftw_layout_t lay; /* the advanced layout, unless why */
    const char *why;      /* why no advanced layout expresses the plan, or NULL */
    bool perm;            /* lay is the contiguous form of a layout gpushim's kernels gather and scatter: */
    gs_permute_t gather, scatter; /* the input into it and the output out of it (gs_fftw_perms) */
    int64_t span[2];      /* real elements from the first to the last one each side touches (input, output) */
    bool gaps;            /* the output's span has elements that the transform may not write: fewer elements
                           * than the span, or some not shown distinct (gs_fftw_out_distinct) */
    uint32_t execs;       /* executes of the plan before this one (the registry counts them) */
    double flops;         /* of one execute */
    int16_t threads;      /* FFTW's planner threads when it was made (plan_with_nthreads) */
    uint8_t lib;          /* the FFTW that made it: 0 the process-wide one (gs_real's), else gs_real_caller's
                           * number of another (two FFTWs in one process) */
    bool deferred;        /* made with FFTW_ESTIMATE for a measuring flag (planners.c): measured if the CPU needs it */
    const void *measured; /* then the measured plan, once made (gs_fftw_measured), or NULL */
    const void *measured_in, *measured_out; /* the arrays it was made on */
} gs_fftw_geom_t;

/* ---- the plan registry (registry.c) ------------------------------------------------------------------- */

/* Records g under g->plan, replacing what that pointer had.  0, or GS_ENOMEM (the plan stays unknown: its
 * executes run on the CPU as "unknown plan"). */
GS_HIDDEN int gs_fftw_register(const gs_fftw_geom_t *g);
/* Copies plan's geometry into g, counting one execute: true when the plan is known. */
GS_HIDDEN bool gs_fftw_lookup(const void *plan, gs_fftw_geom_t *g);
/* Copies plan's geometry into g without counting an execute: true when the plan is known. */
GS_HIDDEN bool gs_fftw_peek(const void *plan, gs_fftw_geom_t *g);
/* Drops plan's entry (destroy_plan), returning the library that made it (its lib), or -1 for a plan it did
 * not know; its measured plan into *measured (NULL: none), which the caller destroys. */
GS_HIDDEN int gs_fftw_forget(const void *plan, const void **measured);
/* Records m, made on the arrays in and out, as plan's measured plan. */
GS_HIDDEN void gs_fftw_set_measured(const void *plan, const void *m, const void *in, const void *out);
/* Drops every entry of one precision made by library lib (cleanup: a library's fftw_cleanup makes every
 * fftw_ plan it made undefined, leaving its fftwf_ ones and another library's). */
GS_HIDDEN void gs_fftw_forget_all(int prec, int lib);

/* ---- geometry from the planners' arguments (fftw.c) --------------------------------------------------- */

/* The advanced interface (the basic one is its case howmany = 1, NULL nembed, strides 1): nembed NULL means n,
 * with FFTW's padding of an in-place r2c or c2r's real side to 2 (n / 2 + 1) in the last dimension. */
GS_HIDDEN void gs_fftw_geom_many(gs_fftw_geom_t *g, int kind, int prec, int sign, int rank, const int *n,
                                 int howmany, const void *in, const int *inembed, int istride, int idist,
                                 const void *out, const int *onembed, int ostride, int odist, unsigned flags);
/* The guru interfaces: dims and hdims are fftw_iodim (int) or, with wide, fftw_iodim64 (ptrdiff_t) arrays. */
GS_HIDDEN void gs_fftw_geom_guru(gs_fftw_geom_t *g, int kind, int prec, int sign, int rank, const void *dims,
                                 int howmany_rank, const void *hdims, bool wide, const void *in, const void *out,
                                 unsigned flags);

/* Completes g once its dimensions are in: its layout, its sides' spans, its flops.  Called once per plan. */
GS_HIDDEN void gs_fftw_geom_finish(gs_fftw_geom_t *g);
/* g's advanced layout into l, or the reason none expresses it (layout.c). */
GS_HIDDEN const char *gs_fftw_layout(const gs_fftw_geom_t *g, gs_fftw_layout_t *l);
/* Whether a contiguous layout of g, which gpushim's permutation kernels gather the input into and scatter the
 * output from, serves a plan no advanced layout expresses: out of place, rank 1 to 3, positive strides, every
 * output element written once.  Then l is that layout. */
GS_HIDDEN bool gs_fftw_contiguous(const gs_fftw_geom_t *g, gs_fftw_layout_t *l);
/* Whether g's output elements lie at distinct places (a sufficient test, by the strides: false for a negative
 * one, or for transforms whose outputs overlap).  Where they are not shown distinct, as many elements as the
 * output's span holds need not fill it: two transforms whose outputs overlap can leave a hole between them,
 * which FFTW never writes. */
GS_HIDDEN bool gs_fftw_out_distinct(const gs_fftw_geom_t *g);
/* For g->perm: the copy of the input into lay's contiguous form and of the contiguous output into the plan's
 * layout, in elements of each side (complex or real). */
GS_HIDDEN void gs_fftw_perms(const gs_fftw_geom_t *g, gs_permute_t *gather, gs_permute_t *scatter);

/* ---- one execute ------------------------------------------------------------------------------------- */

typedef struct {
    uint8_t op;          /* gs_op_t: fftexec, fftdft, fftr2c or fftc2r */
    bool known;          /* the plan is in the registry */
    uint8_t lib;         /* the FFTW that runs it on the CPU (gs_fftw_cpu): the plan's, or an unknown plan's
                          * caller's when the process has two FFTWs */
    gs_fftw_geom_t g;    /* its geometry when known */
    const void *in;      /* the arrays this execute reads and writes: the plan's, or the new-array execute's */
    void *out;
    int64_t shape[GS_FFTW_DIMS_MAX]; /* the logical sizes, for the log (describe) */
    double scale[2];     /* the factors of the output's real and imaginary parts, applied on the device before it
                          * is copied back: NumPy's norm and ihfft's conjugate (arrays.c); {1, 1} for FFTW's */
} gs_fftw_t;

/* Fills p for an execute of plan through entry e, called from caller (the entry's return address); in and out
 * are NULL for fftw_execute (the plan's arrays). */
GS_HIDDEN void gs_fftw_exec(gs_fftw_t *p, unsigned e, const void *plan, const void *in, void *out,
                            const void *caller);

/* The CPU library's entry for an execute that stays on the CPU: c->real (gs_real's, which the dispatcher set),
 * or the entry of the FFTW that made the plan when that is another one (tests/t_fftw.sh, "two FFTWs").  The
 * common case, one FFTW, costs one compare. */
static inline void *gs_fftw_cpu(gs_call_t *c, const gs_fftw_t *p)
{
    if (__builtin_expect(p->lib != 0, 0)) {
        void *f = gs_real_lib_entry(p->lib, c->entry);
        if (f)
            c->real = f;
    }
    return c->real;
}

/* ---- the short path of plans that always stay on the CPU (registry.c) --------------------------------- */

/* Plans the process-wide FFTW made whose every execute stays on the CPU whatever its arrays (too few flops for
 * the policy, or a form the GPU path lacks), one a slot, by the plan's hash: their executes go straight to
 * FFTW while nothing is logged or summed, which a 64-point transform needs (bench/fft.sh, small sizes). */
#define GS_FFTW_SHORT 1024
GS_HIDDEN extern _Atomic(const void *) gs_fftw_short[GS_FFTW_SHORT];

static inline unsigned gs_fftw_short_slot(const void *plan)
{
    return (unsigned)(((uint64_t)(uintptr_t)plan * 0x9E3779B97F4A7C15ull) >> 54); /* 10 bits */
}

/* True when an execute of plan may skip the dispatcher. */
static inline bool gs_fftw_short_path(const void *plan)
{
    gs_init();
    return !(gs.opt.log || gs.opt.summary) &&
           atomic_load_explicit(&gs_fftw_short[gs_fftw_short_slot(plan)], memory_order_acquire) == plan;
}

/* ---- twins with fewer threads of small plans made on many (twin.c) --------------------------------------- */

/* Held by the planners (the outermost call), destroy_plan and cleanup, and by an execute making a twin. */
GS_HIDDEN extern pthread_mutex_t gs_fftw_planner_lock;
/* FFTW's planner threads now (planner_nthreads), 1 without FFTW's threads library. */
GS_HIDDEN int gs_fftw_threads(int prec);
/* Makes g's plan a candidate for twins when it qualifies; a planner calls it with the lock held. */
GS_HIDDEN void gs_fftw_twin_mark(const gs_fftw_geom_t *g);
/* Forgets plan's twins (all: those of every plan of precision prec), freeing them; with the lock held. */
GS_HIDDEN void gs_fftw_twin_drop(const void *plan, int prec, bool all);

/* Candidate plans by the plan's hash: plan's i-th probe (i below GS_FFTW_TWIN_PROBES) is the slot after the
 * (i-1)-th, so plans whose hashes meet still find a slot (a plan that finds none gets no twins). */
#define GS_FFTW_TWINS 256
#define GS_FFTW_TWIN_PROBES 4
GS_HIDDEN extern _Atomic(const void *) gs_fftw_twin_of[GS_FFTW_TWINS];

static inline unsigned gs_fftw_twin_slot(const void *plan, unsigned i)
{
    unsigned h = (unsigned)(((uint64_t)(uintptr_t)plan * 0x9E3779B97F4A7C15ull) >> 56); /* 8 bits */
    return (h + i) & (GS_FFTW_TWINS - 1);
}

/* One execute on the CPU: which plan ran, and its start when it is a timed trial (slot >= 0). */
typedef struct {
    int slot;
    int8_t which;   /* 0 the plan, k twin k - 1 */
    int8_t threads; /* the twin's threads when a twin ran, else 0 */
    uint64_t t0;
} gs_fftw_run_t;

GS_HIDDEN const void *gs_fftw_twin_pick(const void *plan, unsigned s, gs_fftw_run_t *r);
GS_HIDDEN void gs_fftw_twin_timed(const gs_fftw_run_t *r);

/* The plan an execute p of a deferred plan (p->g.deferred) runs on the CPU in its place: its measured plan,
 * made now by its first execute on the CPU (c's), or NULL when none serves it (FFTW made none, another thread
 * was planning, a plain execute on arrays other than those it was measured on): then the plan itself. */
GS_HIDDEN const void *gs_fftw_measured(gs_call_t *c, const gs_fftw_t *p);

/* The plan an execute of plan runs on the CPU: plan, or one of its twins; gs_fftw_twin_end after the execute. */
static inline const void *gs_fftw_twin_begin(const void *plan, gs_fftw_run_t *r)
{
    r->slot = -1;
    r->threads = 0;
    for (unsigned i = 0; i < GS_FFTW_TWIN_PROBES; i++) {
        unsigned s = gs_fftw_twin_slot(plan, i);
        if (__builtin_expect(atomic_load_explicit(&gs_fftw_twin_of[s], memory_order_acquire) == plan, 0))
            return gs_fftw_twin_pick(plan, s, r);
    }
    return plan;
}

static inline void gs_fftw_twin_end(const gs_fftw_run_t *r)
{
    if (r->slot >= 0)
        gs_fftw_twin_timed(r);
}

/* The FFTW family's descriptor for the dispatcher (dispatch/dispatch.h).  Its operands are the input and the
 * output region, each one column of real elements spanning what the transform touches, or one region read and
 * written for a plan in place; no workspace. */
GS_HIDDEN extern const gs_family_t gs_fftw_family;

#endif

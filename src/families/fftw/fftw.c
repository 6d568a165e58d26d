/* The FFTW family: plans' geometry from the planners' arguments, an execute's arguments from its plan's
 * entry in the registry, and the family's descriptor for the dispatcher: the transform's shape for the log,
 * what the GPU path will not take, its flops and its operands. */
#include <math.h>
#include <string.h>

#include "families/fftw/fftw.h"

static const char *const gs_fftw_kind_names[] = {"dft", "r2c", "c2r", "r2r"};

static void gs_fftw_geom_start(gs_fftw_geom_t *g, int kind, int prec, int sign, int rank, int howmany_rank,
                               const void *in, const void *out, unsigned flags)
{
    memset(g, 0, sizeof *g);
    g->kind = (uint8_t)kind, g->prec = (uint8_t)prec, g->sign = (int8_t)sign;
    g->rank = rank, g->howmany_rank = howmany_rank;
    g->truncated = rank < 0 || howmany_rank < 0 || rank + howmany_rank > GS_FFTW_DIMS_MAX;
    g->in = in, g->out = out, g->inplace = in == out, g->flags = flags;
}

/* The physical size of dimension i of one side: its nembed, or n with FFTW's r2c/c2r padding (rdft2_pad). */
static int64_t gs_fftw_phys(const gs_fftw_geom_t *g, const int *n, const int *nembed, int i, bool complex_side)
{
    if (nembed)
        return nembed[i];
    if (g->kind == GS_FFTW_DFT || g->kind == GS_FFTW_R2R || i < g->rank - 1)
        return n[i];
    return complex_side ? n[i] / 2 + 1 : g->inplace ? 2 * (n[i] / 2 + 1) : n[i];
}

void gs_fftw_geom_many(gs_fftw_geom_t *g, int kind, int prec, int sign, int rank, const int *n, int howmany,
                       const void *in, const int *inembed, int istride, int idist, const void *out,
                       const int *onembed, int ostride, int odist, unsigned flags)
{
    gs_fftw_geom_start(g, kind, prec, sign, rank, 1, in, out, flags);
    if (g->truncated)
        return;
    /* Row-major: dimension i's stride is the last one's times the physical sizes after it. */
    bool ci = kind != GS_FFTW_R2C, co = kind != GS_FFTW_C2R; /* whether each side is complex */
    int64_t is = istride, os = ostride;
    for (int i = rank - 1; i >= 0; i--) {
        g->dims[i] = (gs_fftw_dim_t){n[i], is, os};
        is *= gs_fftw_phys(g, n, inembed, i, ci);
        os *= gs_fftw_phys(g, n, onembed, i, co);
    }
    g->dims[rank] = (gs_fftw_dim_t){howmany, idist, odist};
}

void gs_fftw_geom_guru(gs_fftw_geom_t *g, int kind, int prec, int sign, int rank, const void *dims,
                       int howmany_rank, const void *hdims, bool wide, const void *in, const void *out,
                       unsigned flags)
{
    gs_fftw_geom_start(g, kind, prec, sign, rank, howmany_rank, in, out, flags);
    if (g->truncated)
        return;
    for (int i = 0; i < rank + howmany_rank; i++) {
        const void *d = i < rank ? dims : hdims;
        int j = i < rank ? i : i - rank;
        if (wide) {
            const ptrdiff_t *v = (const ptrdiff_t *)d + 3 * j; /* fftw_iodim64: n, is, os */
            g->dims[i] = (gs_fftw_dim_t){v[0], v[1], v[2]};
        } else {
            const int *v = (const int *)d + 3 * j; /* fftw_iodim */
            g->dims[i] = (gs_fftw_dim_t){v[0], v[1], v[2]};
        }
    }
}

/* The FFTW that runs an unknown plan: the one its caller reaches, looked up only once the process is known to
 * have another FFTW than the process-wide one (a planner's caller reached it), so that one FFTW costs nothing. */
static uint8_t gs_fftw_unknown_lib(unsigned e, const void *caller)
{
    int lib = 0;
    if (__builtin_expect(gs_real_libs() > 0, 0))
        gs_real_caller(caller, gs_real(e), gs_entries[e].symbol, &lib);
    return (uint8_t)lib;
}

void gs_fftw_exec(gs_fftw_t *p, unsigned e, const void *plan, const void *in, void *out, const void *caller)
{
    p->op = gs_routines[gs_entries[e].routine].op;
    p->known = plan && gs_fftw_lookup(plan, &p->g);
    p->lib = p->known ? p->g.lib : gs_fftw_unknown_lib(e, caller);
    if (p->op == GS_OP_fftexec && p->known)
        in = p->g.in, out = (void *)p->g.out;
    p->in = in, p->out = out;
    p->scale[0] = p->scale[1] = 1;
}

/* Points of one transform and how many transforms; 0 and 0 for an unknown or truncated plan. */
static void gs_fftw_counts(const gs_fftw_geom_t *g, bool known, double *points, double *howmany)
{
    *points = *howmany = 0;
    if (!known || g->truncated)
        return;
    *points = *howmany = 1;
    for (int i = 0; i < g->rank + g->howmany_rank; i++)
        *(i < g->rank ? points : howmany) *= (double)g->dims[i].n;
}

static void gs_fftw_describe(gs_call_t *c, const void *args)
{
    gs_fftw_t *p = (gs_fftw_t *)args;
    double points, howmany;
    gs_fftw_counts(&p->g, p->known, &points, &howmany);
    c->dim_names = gs_ops[p->op].dims;
    c->dim[0] = (int64_t)points, c->dim[1] = (int64_t)howmany;
    c->opts[0] = 0;
    if (!p->known || p->g.truncated)
        return;
    c->opts[0] = p->g.sign < 0 ? 'F' : 'B';
    int k = 1;
    if (p->g.inplace)
        c->opts[k++] = 'I';
    if (p->g.perm) /* through gpushim's permutation kernels on the GPU path */
        c->opts[k++] = 'P';
    c->opts[k] = 0;
    for (int i = 0; i < p->g.rank; i++)
        p->shape[i] = p->g.dims[i].n;
    c->kind = gs_fftw_kind_names[p->g.kind];
    c->shape = p->shape;
    c->shape_rank = (uint8_t)p->g.rank;
}

/* The execute each kind of plan takes (a split plan its split execute): execute takes any. */
static bool gs_fftw_matches(const gs_fftw_t *p)
{
    static const struct {
        uint8_t kind;
        bool split;
    } of[GS_NOPS] = {[GS_OP_fftdft] = {GS_FFTW_DFT, 0},  [GS_OP_fftr2c] = {GS_FFTW_R2C, 0},
                     [GS_OP_fftc2r] = {GS_FFTW_C2R, 0},  [GS_OP_fftr2r] = {GS_FFTW_R2R, 0},
                     [GS_OP_fftsdft] = {GS_FFTW_DFT, 1}, [GS_OP_fftsr2c] = {GS_FFTW_R2C, 1},
                     [GS_OP_fftsc2r] = {GS_FFTW_C2R, 1}};
    return p->op == GS_OP_fftexec || (of[p->op].kind == p->g.kind && of[p->op].split == p->g.split);
}

/* What the GPU path will not take (what no advanced layout expresses: layout.c), or NULL with the flops set. */
static const char *gs_fftw_check(gs_call_t *c, const void *args)
{
    const gs_fftw_t *p = args;
    if (!p->known)
        return "unknown plan";
    if (!gs_fftw_matches(p))
        return "plan of another kind";
    if (p->g.why)
        return p->g.why;
    /* New arrays must keep the plan's alignment (FFTW's SIMD codelets assume it) and its in-place-ness, as
     * FFTW's manual requires of the new-array executes: a call that breaks either is FFTW's to run. */
    if ((((uintptr_t)p->in ^ (uintptr_t)p->g.in) | ((uintptr_t)p->out ^ (uintptr_t)p->g.out)) & 15)
        return "new arrays of another alignment";
    if ((p->in == p->out) != p->g.inplace)
        return "new arrays of another placement";
    size_t rs = gs_prec_size(p->g.prec) / 2;
    const char *i0 = p->in, *o0 = p->out;
    if (!p->g.inplace && i0 < o0 + (size_t)p->g.span[1] * rs && o0 < i0 + (size_t)p->g.span[0] * rs)
        return "overlapping arrays";
    c->flops = p->g.flops;
    /* A deferred plan's first execute on the CPU measures it first (twin.c): some hundred executes' time (the
     * 256^3 r2c of bench/apps' fftw_c, 7 s against 30 ms on the development machine), counted as 100. */
    if (p->g.deferred && !p->g.measured)
        c->cpu_setup = 100;
    return NULL;
}

/* Real elements from the first to the last one that a side touches: its dimensions' spans (the complex side of
 * r2c and c2r has n / 2 + 1 in the last one), two reals per complex element; *elems, the reals it holds. */
static int64_t gs_fftw_span(const gs_fftw_geom_t *g, bool out, int64_t *elems)
{
    bool complex_side = out ? g->kind != GS_FFTW_C2R : g->kind != GS_FFTW_R2C;
    int64_t span = 1, n_all = 1;
    for (int i = 0; i < g->rank + g->howmany_rank; i++) {
        int64_t n = g->dims[i].n, s = out ? g->dims[i].os : g->dims[i].is;
        if (i == g->rank - 1 && complex_side && g->kind != GS_FFTW_DFT)
            n = n / 2 + 1;
        if (n <= 0)
            return *elems = 0;
        span += (n - 1) * (s < 0 ? -s : s);
        n_all *= n;
    }
    *elems = complex_side ? 2 * n_all : n_all;
    return complex_side ? 2 * span : span;
}

void gs_fftw_geom_finish(gs_fftw_geom_t *g)
{
    /* Kinds cuFFT has no transform for: known, so that their executes say why they stay on FFTW. */
    g->why = g->truncated              ? "more than 8 dimensions"
             : g->kind == GS_FFTW_R2R ? "r2r"
             : g->split               ? "split arrays"
                                      : NULL;
    if (g->why)
        return;
    int64_t in_elems, out_elems;
    g->span[0] = gs_fftw_span(g, false, &in_elems);
    g->span[1] = gs_fftw_span(g, true, &out_elems);
    /* An output that is all written is not uploaded: the whole span is then copied back, so it must hold nothing
     * but output elements (tests/t_bounds.sh, "fft"). */
    g->gaps = out_elems < g->span[1] || !gs_fftw_out_distinct(g);
    g->why = gs_fftw_layout(g, &g->lay);
    /* What no advanced layout expresses, gpushim's kernels may gather into one and scatter back (layout.c). */
    if (g->why && gs_fftw_contiguous(g, &g->lay)) {
        g->why = NULL, g->perm = true;
        gs_fftw_perms(g, &g->gather, &g->scatter);
    }
    /* 5 N log2 N per transform, halved for r2c and c2r: once per plan, as a small execute's check is a few
     * nanoseconds and log2 alone would double it. */
    double points, howmany;
    gs_fftw_counts(g, true, &points, &howmany);
    g->flops = points > 1 ? 5 * points * log2(points) * howmany : 0;
    if (g->kind != GS_FFTW_DFT)
        g->flops /= 2;
}

/* In place, one region read and written; otherwise the input, and the output, which is read too when it has
 * elements the transform leaves alone (so that they come back unchanged).  cuFFT's c2r may overwrite its input:
 * the device copy of a c2r's input is scratch only.  An input is new data at nearly every execute (transforming
 * the same data twice is rare): fresh, so that the policy counts its copy unless the previous call's output
 * is on the device (bench/fft.sh: 4096 transforms of 4096, their input rewritten each time, went to the GPU
 * counted as resident and ran 1.4 times FFTW's time). */
static void gs_fftw_operands(const void *args, gs_operands_t *o)
{
    const gs_fftw_t *p = args;
    const gs_fftw_geom_t *g = &p->g;
    o->es = gs_prec_size(g->prec) / 2;
    if (g->inplace) {
        int64_t n = g->span[0] > g->span[1] ? g->span[0] : g->span[1];
        o->n = 1, o->scratch_only = 0;
        o->o[0] = (gs_operand_t){p->in, n, 1, n, 1, 1};
        return;
    }
    o->n = 2;
    o->scratch_only = g->kind == GS_FFTW_C2R;
    o->fresh = 1;
    o->o[0] = (gs_operand_t){p->in, g->span[0], 1, g->span[0], 1, 0};
    o->o[1] = (gs_operand_t){p->out, g->span[1], 1, g->span[1], g->gaps, 1};
}

const gs_family_t gs_fftw_family = {
    .describe = gs_fftw_describe,
    .check = gs_fftw_check,
    .operands = gs_fftw_operands,
};

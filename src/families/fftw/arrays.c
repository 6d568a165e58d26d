/* FFTs of arrays as NumPy holds them (gpushim_fft, include/gpushim.h), for the Python layer
 * (scripts/python/gpushim/_fft.py).  A call is described as the FFTW family's geometry, with no FFTW plan: the
 * transformed axes as the guru interface's dimensions and the others as its howmany dimensions, strides in
 * elements; it runs through the one dispatcher with the family's descriptor, so that the layout code, the policy,
 * the log and cuFFT's plans, cached by geometry (backend/cuda_fft_plans.c), are those of an FFTW execute.  NumPy's
 * norm is a factor the backend applies to the output on the device.  A call the dispatcher leaves to the CPU is not
 * done, and not logged: the caller's original function runs.  An input NumPy would zero-pad (n or s beyond its
 * length) or cast (a real one to a complex transform) is made in a buffer of the library's once the dispatcher
 * has sent the call to the GPU: as LAPACK's workspace query, between the decision and the GPU's run (has_work,
 * queried), so that a call left to the CPU costs no copy (NumPy's cast of a real 2^20 points to complex took
 * 1.6 ms of a 30 ms numpy.fft.fft on the development machine). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/team.h"
#include "gpushim.h"
#include "families/fftw/fftw.h"

/* The operations: name, kind, sign, the factor of the output's imaginary parts against its real parts' (ihfft is
 * rfft conjugated), and whether the input is conjugated (hfft is irfft of the conjugate, which the library makes
 * from the caller's input, gpushim_fft's from). */
static const struct {
    const char *name;
    uint8_t kind;
    int8_t sign, conj;
    bool conj_in;
} gs_fa_ops[] = {
    {"fft", GS_FFTW_DFT, -1, 1, false},   {"ifft", GS_FFTW_DFT, 1, 1, false},    {"rfft", GS_FFTW_R2C, -1, 1, false},
    {"irfft", GS_FFTW_C2R, 1, 1, false},  {"ihfft", GS_FFTW_R2C, -1, -1, false}, {"hfft", GS_FFTW_C2R, 1, 1, true},
};

/* The operation called op, or -1. */
static int gs_fa_op(const char *op)
{
    for (int i = 0; op && i < (int)(sizeof gs_fa_ops / sizeof gs_fa_ops[0]); i++)
        if (strcmp(op, gs_fa_ops[i].name) == 0)
            return i;
    return -1;
}

/* The precision of a transform (FFTW's: its complex type) from an array's type character, or -1. */
static int gs_fa_prec(char t)
{
    return t == 'f' || t == 'F' ? GS_P_C : t == 'd' || t == 'D' ? GS_P_Z : -1;
}

/* The entry of kind in precision prec whose routine the policy and the log name: its first spelling.  The CPU
 * side is the caller's own function, so no library need define it (the family's own_cpu). */
static int gs_fa_entry(int kind, int prec)
{
    int op = kind == GS_FFTW_DFT ? GS_OP_fftdft : kind == GS_FFTW_R2C ? GS_OP_fftr2c : GS_OP_fftc2r;
    for (unsigned e = 0; e < GS_NENTRIES; e++)
        if (gs_routines[gs_entries[e].routine].op == op && gs_routines[gs_entries[e].routine].prec == prec)
            return (int)e;
    return -1;
}

/* Whether x is of type character want (upper case complex), aligned to its reals, of ndim dimensions. */
static bool gs_fa_typed(const gpushim_array_t *x, int prec, bool complex, int ndim)
{
    char want = (char)(prec == GS_P_Z ? 'd' : 'f') - (complex ? 'a' - 'A' : 0);
    return x->dtype == want && x->data && (uintptr_t)x->data % (gs_prec_size(prec) / 2) == 0 && x->ndim == ndim;
}

/* Dimension d of in and out as a geometry's dimension, into *dim: the logical size (the real side's, on the
 * last transformed axis of r2c and c2r) and the strides in elements of each side; false when the sizes do not
 * match or a stride is not a positive multiple of the element (one of size 1 is not looked at). */
static bool gs_fa_dim(const gs_fftw_geom_t *g, const gpushim_array_t *in, const gpushim_array_t *out, int d,
                      bool last, gs_fftw_dim_t *dim)
{
    int64_t rs = (int64_t)gs_prec_size(g->prec) / 2, ni = in->shape[d], no = out->shape[d];
    int64_t ies = g->kind == GS_FFTW_R2C ? rs : 2 * rs, oes = g->kind == GS_FFTW_C2R ? rs : 2 * rs;
    bool half = last && g->kind != GS_FFTW_DFT; /* the complex side has n / 2 + 1 */
    int64_t n = half && g->kind == GS_FFTW_C2R ? no : ni, other = g->kind == GS_FFTW_R2C ? no : ni;
    if (n < 1 || (half ? other != n / 2 + 1 : ni != no))
        return false;
    int64_t si = in->strides[d], so = out->strides[d];
    if (n > 1 && (si <= 0 || so <= 0 || si % ies || so % oes))
        return false;
    *dim = (gs_fftw_dim_t){n, n > 1 ? si / ies : 0, n > 1 ? so / oes : 0};
    return true;
}

/* g from the arrays: the axes (distinct, each of more than one point) in their order, the last one the real
 * side's halved axis of r2c and c2r, then the other dimensions of more than one element, outermost first. */
static bool gs_fa_geom(gs_fftw_geom_t *g, int i, const gpushim_array_t *in, const gpushim_array_t *out, int naxes,
                       const int *axes)
{
    int kind = gs_fa_ops[i].kind, prec = gs_fa_prec(in->dtype), nd = in->ndim;
    if (prec < 0 || nd < 1 || nd > GPUSHIM_MAX_DIMS || naxes < 1 || naxes > 3 || !axes ||
        !gs_fa_typed(in, prec, kind != GS_FFTW_R2C, nd) || !gs_fa_typed(out, prec, kind != GS_FFTW_C2R, nd))
        return false;
    memset(g, 0, sizeof *g);
    g->kind = (uint8_t)kind, g->prec = (uint8_t)prec, g->sign = gs_fa_ops[i].sign;
    g->in = in->data, g->out = out->data, g->inplace = in->data == out->data;
    bool axis[GPUSHIM_MAX_DIMS] = {false};
    for (int j = 0; j < naxes; j++) {
        int d = axes[j];
        if (d < 0 || d >= nd || axis[d] || !gs_fa_dim(g, in, out, d, j == naxes - 1, &g->dims[j]) ||
            g->dims[j].n < 2)
            return false;
        axis[d] = true;
    }
    g->rank = naxes;
    for (int d = 0; d < nd; d++) {
        gs_fftw_dim_t dim;
        if (axis[d])
            continue;
        if (!gs_fa_dim(g, in, out, d, false, &dim))
            return false;
        if (dim.n > 1)
            g->dims[g->rank + g->howmany_rank++] = dim;
    }
    gs_fftw_geom_finish(g);
    return true;
}

/* The FFTW family's checks, and one of this entry's own: a scaled output is scaled on the device over its whole
 * span, which must then hold nothing but the output's elements. */
static const char *gs_fa_check(gs_call_t *c, const void *args)
{
    const gs_fftw_t *p = args;
    if ((p->scale[0] != 1 || p->scale[1] != 1) && (p->g.gaps || (p->g.inplace && p->g.kind != GS_FFTW_DFT)))
        return "a scaled output with gaps";
    c->threads = (uint8_t)p->g.threads; /* the caller's function's, for the policy's CPU rate */
    return gs_fftw_family.check(c, args);
}

static void gs_fa_describe(gs_call_t *c, const void *args)
{
    gs_fftw_family.describe(c, args);
}

static void gs_fa_operands(const void *args, gs_operands_t *o)
{
    gs_fftw_family.operands(args, o);
}

/* A call and the input it makes (gpushim_fft's from): the FFTW family's functions take it as their own. */
typedef struct {
    gs_fftw_t p;                  /* first */
    const gpushim_array_t *from;  /* NULL, or the caller's input, padded or cast into buf (p.in) */
    char *buf;
    const int64_t *to;            /* buf's strides in bytes, C order */
    int64_t es, fes;              /* bytes of an element of buf, and of from (half where a real is cast) */
    bool conj;                    /* from's complex elements conjugated into buf */
} gs_fa_call_t;

static bool gs_fa_has_work(const void *args)
{
    return ((const gs_fa_call_t *)args)->from != NULL;
}

/* Rows lo to hi - 1 of from (its last dimension's runs, in C order of the others) into the buffer; a real from
 * into a complex buffer as its real parts, the mapping's zeros its imaginary parts; a complex one conjugated
 * where the operation says so. */
static void gs_fa_pad_rows(void *arg, int64_t lo, int64_t hi)
{
    const gs_fa_call_t *a = arg;
    const gpushim_array_t *f = a->from;
    int last = f->ndim - 1;
    int64_t len = f->shape[last], fs = f->strides[last];
    for (int64_t r = lo; r < hi; r++) {
        const char *x = f->data;
        char *y = a->buf;
        for (int64_t d = last - 1, q = r; d >= 0; q /= f->shape[d], d--)
            x += q % f->shape[d] * f->strides[d], y += q % f->shape[d] * a->to[d];
        bool conj = a->conj && a->fes == a->es;
        if (fs == a->es && a->fes == a->es && !conj)
            memcpy(y, x, (size_t)(len * a->es));
        else
            for (int64_t i = 0; i < len; i++)
                memcpy(y + i * a->es, x + i * fs, (size_t)a->fes);
        for (int64_t i = 0; conj && i < len; i++) {
            char *im = y + i * a->es + a->es / 2;
            if (a->es == 2 * sizeof(double))
                *(double *)im = -*(double *)im;
            else
                *(float *)im = -*(float *)im;
        }
    }
}

/* The GPU takes the call: from's elements into the zeroed buffer, on the team's threads when it is large. */
static int gs_fa_queried(gs_call_t *c, const void *args)
{
    (void)c;
    const gs_fa_call_t *a = args;
    const gpushim_array_t *f = a->from;
    int64_t rows = 1, row = f->shape[f->ndim - 1] * a->es;
    for (int d = 0; d < f->ndim - 1; d++)
        rows *= f->shape[d];
    if (rows > 0 && row > 0 && !gs_team_run(gs_fa_pad_rows, (void *)a, rows, row >= (1 << 18) ? 1 : (1 << 18) / row))
        gs_fa_pad_rows((void *)a, 0, rows);
    return GS_RUN_QUERY;
}

/* Whether from can be made into an array of in's shape: of its type or, where in is complex, of the real one of
 * its precision, of its ndim, no longer than in along any dimension, its strides positive multiples of its
 * element where it has more than one, in's bytes countable; and in's strides, C order, into to.  es: the bytes of
 * in's element; of from's, into *fes. */
static bool gs_fa_pads(const gpushim_array_t *in, const gpushim_array_t *from, int64_t es, int64_t *fes, int64_t *to)
{
    bool cast = (in->dtype == 'D' && from->dtype == 'd') || (in->dtype == 'F' && from->dtype == 'f');
    if ((from->dtype != in->dtype && !cast) || from->ndim != in->ndim || in->ndim < 1 ||
        in->ndim > GPUSHIM_MAX_DIMS || !from->data)
        return false;
    *fes = cast ? es / 2 : es;
    int64_t step = es;
    for (int d = in->ndim - 1; d >= 0; d--) {
        if (in->shape[d] < 1 || from->shape[d] < 0 || from->shape[d] > in->shape[d] ||
            step > INT64_MAX / in->shape[d] ||
            (from->shape[d] > 1 && (from->strides[d] <= 0 || from->strides[d] % *fes)))
            return false;
        to[d] = step;
        step *= in->shape[d];
    }
    return true;
}

/* Earlier calls of each geometry, which stand for an FFTW plan's executes (gs_fftw_geom_t.execs): the share of a
 * cuFFT plan's creation that the policy lays on a call (backend/cuda_fft.c) falls as a shape recurs, as it falls
 * over an FFTW plan's executes, so that a transform a program repeats goes to the GPU once the plan pays.  A
 * hashed table of words, each a geometry's hash above its count (the low GS_FA_COUNT bits), changed atomically; a
 * geometry whose slot another one took counts again from 0. */
#define GS_FA_SEEN 512
#define GS_FA_COUNT 0xffffffull
static _Atomic uint64_t gs_fa_seen_tab[GS_FA_SEEN];

static uint32_t gs_fa_seen(const gs_fftw_geom_t *g)
{
    uint64_t h = (uint64_t)g->inplace << 24 | (uint64_t)g->kind << 16 | (uint64_t)g->prec << 8;
    h = (h | (uint64_t)(g->sign + 1)) * 0x9E3779B97F4A7C15ull;
    for (int d = 0; d < g->rank + g->howmany_rank; d++)
        h = (h ^ (uint64_t)d << 56 ^ (uint64_t)g->dims[d].n ^ (uint64_t)g->dims[d].is << 20 ^
             (uint64_t)g->dims[d].os << 40) * 0x9E3779B97F4A7C15ull;
    h = (h ^ (uint64_t)g->rank << 4) * 0x9E3779B97F4A7C15ull;
    _Atomic uint64_t *slot = &gs_fa_seen_tab[h >> 55]; /* 9 bits: GS_FA_SEEN */
    uint64_t key = h & ~GS_FA_COUNT, was = atomic_load_explicit(slot, memory_order_relaxed), before;
    do
        before = (was & ~GS_FA_COUNT) == key ? was & GS_FA_COUNT : 0;
    while (!atomic_compare_exchange_weak_explicit(slot, &was, key | (before + (before < GS_FA_COUNT)),
                                                  memory_order_relaxed, memory_order_relaxed));
    return (uint32_t)before;
}

static const gs_family_t gs_fft_arrays_family = {
    .describe = gs_fa_describe,
    .check = gs_fa_check,
    .operands = gs_fa_operands,
    .has_work = gs_fa_has_work,
    .queried = gs_fa_queried,
    .own_cpu = true,
};

GS_EXPORT int gpushim_fft(const char *api, const char *op, const gpushim_array_t *in, const gpushim_array_t *from,
                          const gpushim_array_t *out, int naxes, const int *axes, double scale, int threads)
{
    int i = gs_fa_op(op), e, prec = in ? gs_fa_prec(in->dtype) : -1;
    int64_t to[GPUSHIM_MAX_DIMS];
    gs_fa_call_t a = {.from = from, .conj = i >= 0 && gs_fa_ops[i].conj_in};
    gpushim_array_t padded;
    if (i < 0 || prec < 0 || !out || !(scale > 0) || !isfinite(scale) || (a.conj && !from))
        return 0;
    size_t bytes = 0;
    /* in, in fresh zero pages of a mapping of its own, touched only once the GPU takes the call: calloc's came
     * from the heap once glibc's threshold for mappings had risen past the size, and cleared it whole first (a
     * kept numpy.fft.fft of 2^20 reals spent 60 us deciding, against 6 for a complex input). */
    if (from) {
        a.es = (int64_t)gs_prec_size(prec) / (gs_fa_ops[i].kind == GS_FFTW_R2C ? 2 : 1), a.to = to;
        if (!gs_fa_pads(in, from, a.es, &a.fes, to))
            return 0;
        padded = *in;
        memcpy(padded.strides, to, (size_t)in->ndim * sizeof *to);
        bytes = (size_t)(to[0] * in->shape[0]);
        void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return 0;
        padded.data = a.buf = m;
        in = &padded;
    }
    int done = 0;
    if (gs_fa_geom(&a.p.g, i, in, out, naxes, axes) && (e = gs_fa_entry(a.p.g.kind, a.p.g.prec)) >= 0) {
        gs_fftw_t *p = &a.p;
        p->op = gs_routines[gs_entries[e].routine].op;
        p->known = true;
        p->in = in->data, p->out = out->data;
        p->scale[0] = scale, p->scale[1] = scale * gs_fa_ops[i].conj;
        p->g.threads = (int16_t)(threads < 1 ? 1 : threads > 255 ? 255 : threads);
        p->g.execs = gs_fa_seen(&p->g);
        done = gs_dispatch_api(api, (unsigned)e, &gs_fft_arrays_family, &a, __builtin_return_address(0));
    }
    if (a.buf)
        munmap(a.buf, bytes);
    return done;
}

/* An operation's entry and the threads the caller computes on, for gs_fa_wanted. */
typedef struct {
    int i, e, threads;
} gs_fa_kind_t;

/* Whether the policy's threshold and rates alone would let a transform of operation i (entry e) on points points
 * go to the GPU, the CPU's side computed on the caller's threads: the most flops such points have (one transform
 * of them all, 5 N log2 N, halved for r2c and c2r, as the family's) and the fewest bytes (each side's array
 * copied once, the complex side of r2c and c2r as N / 2 elements), so that no call of that many points could go
 * there by the rates.  No history: SciPy's rfft2 of 1024^2 on 16 workers, which the rates keep on the CPU, went
 * to the H200 by it, at 1.80 ms against SciPy's 1.07 (bench/RESULTS.md, 2026-12-07). */
static bool gs_fa_wanted(const void *arg, int64_t points)
{
    const gs_fa_kind_t *w = arg;
    double n = (double)points, rs = (double)gs_prec_size(gs_routines[gs_entries[w->e].routine].prec) / 2;
    gs_call_t c = {.routine = gs_entries[w->e].routine, .flops = 5 * n * log2(n)};
    c.threads = (uint8_t)(w->threads < 255 ? w->threads : 255);
    bool dft = gs_fa_ops[w->i].kind == GS_FFTW_DFT;
    if (!dft)
        c.flops /= 2;
    return gs_policy_gpu_wins(&c, (dft ? 4 : 2) * rs * n, gs_backend->op[gs_routines[c.routine].op] != NULL);
}

GS_EXPORT int64_t gpushim_fft_min_points(const char *op, char dtype, int threads)
{
    gs_init();
    int i = gs_fa_op(op), prec = gs_fa_prec(dtype);
    gs_fa_kind_t w = {i, i < 0 || prec < 0 ? -1 : gs_fa_entry(gs_fa_ops[i].kind, prec), threads < 1 ? 1 : threads};
    return w.e < 0 ? INT64_MAX : gs_dispatch_least(2, gs_fa_wanted, &w);
}

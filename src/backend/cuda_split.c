/* Calls split across the devices of GPUSHIM_DEVICES (cuda_split.h).  Each part is a call of its own, run by
 * cuda_call.c on one device slot with that slot's streams, staging and cache:
 * - GEMM: a block of C's columns (or of its rows, when C has more rows than columns), the matching block of
 *   op(B) (or op(A)) and the whole of the other factor;
 * - TRSM and TRMM: a block of B's columns (side L) or of its rows (side R), and the whole of A;
 * - SYRK and HERK: a block of C's columns with the rows of them that its triangle holds, computed as the
 *   diagonal block (SYRK or HERK) and the rectangle beside it (GEMM), from the rows of op(A) both read.  The
 *   blocks' boundaries share the triangle's area, its arithmetic, evenly among the parts;
 * - an FFT of several transforms: a block of them, with their input and output, which no other part touches.
 * Slot 0's part runs on the calling thread, which holds the GPU lock for all of them; the others on a thread
 * each, made for the call (a split call is large: a thread costs tens of microseconds of it).
 *
 * The parts bind their operands to the residency cache before any of them goes on (gs_split_body): an
 * operand read by every part is on each device, and a part that ended would protect its pages, erasing the
 * marks of the program's writes that another part's look-up has still to see.
 *
 * Together the parts keep the operation's contract (backend.h).  Where the output is read (GEMM with
 * beta != 0, every TRSM, TRMM, SYRK and HERK, and an FFT in place or with elements of its output it leaves
 * alone) no part writes it before every part has computed its block (gs_split_computed), so a part that fails
 * leaves it as it was for the CPU's redo of the whole call.  Where it is not (GEMM with beta = 0, an FFT out of
 * place, whose input is never written) what parts wrote is overwritten by that redo.  A part that fails on a
 * slot other than 0 for any reason but memory ends the splitting: later calls use slot 0 alone, and a notice
 * says so. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_cublas.h"
#include "backend/cuda_split.h"

/* Columns (or rows) of a Level-3 call's output a part has at least: below that the copies of what every part
 * reads to every device outweigh what the extra devices compute. */
#define GS_SPLIT_MIN 2048
/* Bytes of an FFT's input a part reads at least: below that the thread and the launches of a part weigh in. */
#define GS_SPLIT_FFT_MIN ((int64_t)16 << 20)

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int parts, bound, arrived; /* parts in all; that have bound their operands; that have computed or ended */
    bool failed;
} gs_split_t;

struct gs_part {
    gs_call_t c;
    union {
        gs_blas_t p;   /* a Level-3 call's arguments */
        gs_fftw_t fft; /* an FFT's */
    } a;
    gs_operands_t o;
    gs_cuda_body_fn *body;
    gs_split_t *s;
    int64_t lo, hi; /* the block of the whole call's output columns (or rows) */
    bool bound, arrived;
    bool for_another; /* failed because another part did */
    int rc;
};

static atomic_bool gs_split_off;

/* The parts of a call split into blocks along a dimension of len, each at least min long. */
static int gs_split_count(int64_t len, int64_t min)
{
    int up = atomic_load_explicit(&gs_ndevices, memory_order_acquire);
    if (up < 2 || atomic_load_explicit(&gs_split_off, memory_order_relaxed))
        return 1;
    int64_t parts = len / min;
    return parts < 2 ? 1 : parts < up ? (int)parts : up;
}

static bool gs_split_is_fft(const gs_call_t *c)
{
    return gs_ops[gs_routines[c->routine].op].family == GS_FAMILY_FFTW;
}

/* Its parts' operands are disjoint when every transform's span ends before the next one begins, with positive
 * strides; in place, both sides' transforms must begin together. */
int64_t gs_split_fft_dim(const gs_fftw_t *p, int64_t dist[2], int64_t one[2])
{
    const gs_fftw_geom_t *g = &p->g;
    const gs_fftw_layout_t *l = &g->lay;
    if (!p->known || g->why || g->perm || l->batch < 2 || l->istride <= 0 || l->ostride <= 0)
        return 0;
    const int64_t d[2] = {l->idist, l->odist};
    const bool cplx[2] = {g->kind != GS_FFTW_R2C, g->kind != GS_FFTW_C2R};
    for (int s = 0; s < 2; s++) {
        dist[s] = d[s] * (cplx[s] ? 2 : 1);
        one[s] = g->span[s] - (l->batch - 1) * dist[s];
        if (dist[s] <= 0 || one[s] <= 0 || one[s] > dist[s])
            return 0;
    }
    return g->inplace && dist[0] != dist[1] ? 0 : l->batch;
}

/* The parts of an FFT: each reads at least GS_SPLIT_FFT_MIN bytes. */
static int gs_split_fft_parts(const gs_fftw_t *p)
{
    int64_t dist[2], one[2], batch = gs_split_fft_dim(p, dist, one);
    if (!batch)
        return 1;
    int64_t bytes = dist[0] * (int64_t)(gs_prec_size(p->g.prec) / 2);
    return gs_split_count(batch, (GS_SPLIT_FFT_MIN + bytes - 1) / bytes);
}

/* The dimension the call's output is split along: its columns (*by_cols) or rows; 0 for a call never split. */
static int64_t gs_split_dim(const gs_blas_t *p, bool *by_cols)
{
    switch (p->op) {
    case GS_OP_gemm: return (*by_cols = p->n >= p->m) ? p->n : p->m;
    case GS_OP_trsm:
    case GS_OP_trmm: return (*by_cols = p->side == 'L') ? p->n : p->m;
    case GS_OP_syrk:
    case GS_OP_herk: return *by_cols = true, p->n;
    default: return 0;
    }
}

int gs_split_parts(const gs_call_t *c, const void *args)
{
    if (gs_split_is_fft(c))
        return gs_split_fft_parts(args);
    bool by_cols = false;
    int64_t len = gs_split_dim(args, &by_cols);
    return len ? gs_split_count(len, GS_SPLIT_MIN) : 1;
}

/* Where part i of parts begins along len: evenly, or for tri 'U' or 'L' (the columns of a triangle) at equal
 * shares of the triangle's area. */
static int64_t gs_split_at(int64_t len, int i, int parts, char tri)
{
    if (i <= 0 || i >= parts || !tri)
        return len * i / parts;
    double f = (double)i / parts;
    return (int64_t)llround((tri == 'U' ? sqrt(f) : 1 - sqrt(1 - f)) * (double)len);
}

void gs_split_traffic(const gs_call_t *c, const void *args, const gs_operands_t *o, gs_traffic_t *t)
{
    if (gs_split_is_fft(c)) {
        int parts = gs_split_fft_parts(args);
        t->devices = parts > 1 ? parts : t->devices;
        return;
    }
    int op = gs_routines[c->routine].op;
    const gs_operand_t *a = &o->o[0], *out = &o->o[o->n - 1];
    bool rk = (op == GS_OP_syrk || op == GS_OP_herk) && o->n == 2;
    int64_t len;
    double every; /* elements that every part reads, copied to each device */
    if (op == GS_OP_gemm && o->n == 3) {
        const gs_operand_t *whole = &o->o[out->cols >= out->rows ? 0 : 1];
        len = out->cols >= out->rows ? out->cols : out->rows, every = (double)whole->rows * (double)whole->cols;
    } else if ((op == GS_OP_trsm || op == GS_OP_trmm) && o->n == 2) {
        len = a->rows == out->rows ? out->cols : out->rows, every = (double)a->rows * (double)a->cols;
    } else if (rk) {
        len = out->cols, every = 0;
    } else {
        return;
    }
    int parts = gs_split_count(len, GS_SPLIT_MIN);
    if (parts < 2)
        return;
    double extra = every * (parts - 1);
    if (rk) { /* the rows of op(A) that the parts share: the same sum for either triangle */
        double rows = 0, k = (double)(a->rows == out->rows ? a->cols : a->rows);
        for (int i = 1; i <= parts; i++)
            rows += (double)gs_split_at(len, i, parts, 'U');
        extra = (rows - (double)len) * k;
    }
    t->devices = parts, t->staged += extra * (double)o->es;
}

/* The part's arrival at a barrier: bound (its operands), or arrived (computed, or ended), each counted once;
 * ended implies bound.  ok false fails every part still to come.  With wait, until every part has passed the
 * barrier (or one failed); whether none failed. */
static bool gs_split_pass(gs_part_t *me, bool arrive, bool ok, bool wait)
{
    gs_split_t *s = me->s;
    pthread_mutex_lock(&s->lock);
    if (!me->bound)
        me->bound = true, s->bound++;
    if (arrive && !me->arrived)
        me->arrived = true, s->arrived++;
    s->failed |= !ok;
    pthread_cond_broadcast(&s->cond);
    while (wait && (arrive ? s->arrived : s->bound) < s->parts && !s->failed)
        pthread_cond_wait(&s->cond, &s->lock);
    bool all = !s->failed;
    pthread_mutex_unlock(&s->lock);
    return all;
}

/* A part that stops because another part failed. */
static int gs_split_for_another(gs_call_t *c)
{
    c->part->for_another = true;
    gs_call_why(c, "gpu: another device's part of the call failed");
    return GS_EGPU;
}

/* A part's body: once every part has bound its operands (cuda_call.c binds them before the body), the
 * routine's. */
static int gs_split_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b,
                         int n)
{
    return gs_split_pass(c->part, false, true, true) ? c->part->body(c, arg, o, h, b, n) : gs_split_for_another(c);
}

int gs_split_computed(gs_call_t *c)
{
    return !c->part || gs_split_pass(c->part, true, true, true) ? GS_OK : gs_split_for_another(c);
}

static void *gs_split_thread(void *arg)
{
    gs_part_t *me = arg;
    me->rc = gs_cuda_run(&me->c, &me->o, gs_split_body, &me->a);
    gs_split_pass(me, true, me->rc == GS_OK, false);
    return NULL;
}

/* Operand f narrowed to its columns (cols) or rows [lo, hi); ld is its leading dimension. */
static void gs_split_block(gs_operand_t *f, bool cols, int64_t lo, int64_t hi, int64_t ld, size_t es)
{
    f->host = (const char *)f->host + (size_t)lo * es * (size_t)(cols ? ld : 1);
    if (cols)
        f->cols = hi - lo;
    else
        f->rows = hi - lo;
}

/* A GEMM's part: C's columns (by_cols) or rows [lo, hi), and the block of op(B) or op(A) they need. */
static void gs_split_gemm(gs_part_t *me, bool by_cols, int64_t lo, int64_t hi, size_t es)
{
    gs_blas_t *p = &me->a.p;
    gs_operand_t *f = &me->o.o[by_cols ? 1 : 0], *out = &me->o.o[2];
    bool t = by_cols ? p->transb != 'N' : p->trans != 'N';
    /* op(B)'s columns lo.. are B's columns, or its rows when B is stored transposed; op(A)'s rows likewise. */
    gs_split_block(f, by_cols != t, lo, hi, by_cols ? p->ldb : p->lda, es);
    gs_split_block(out, by_cols, lo, hi, p->ldc, es);
    if (by_cols)
        p->n = hi - lo, p->b = f->host;
    else
        p->m = hi - lo, p->a = f->host;
    p->c = (void *)out->host;
}

/* A SYRK's or HERK's part: C's columns [lo, hi) and their rows in the triangle, 0 to hi (upper) or lo to n
 * (lower), and the same rows of op(A), which are A's columns when it is stored transposed.  p->n stays the
 * whole call's. */
static void gs_split_rk(gs_part_t *me, int64_t lo, int64_t hi, size_t es)
{
    gs_blas_t *p = &me->a.p;
    int64_t r0 = p->uplo == 'U' ? 0 : lo, r1 = p->uplo == 'U' ? hi : p->n;
    gs_operand_t *a = &me->o.o[0], *out = &me->o.o[1];
    gs_split_block(a, p->trans != 'N', r0, r1, p->lda, es);
    gs_split_block(out, true, lo, hi, p->ldc, es);
    gs_split_block(out, false, r0, r1, p->ldc, es);
    p->a = a->host, p->c = (void *)out->host;
}

void gs_split_fft(const gs_fftw_t *p, int i, int parts, gs_fftw_t *part)
{
    int64_t dist[2], one[2], batch = gs_split_fft_dim(p, dist, one);
    int64_t lo = batch * i / parts, hi = batch * (i + 1) / parts;
    size_t rs = gs_prec_size(p->g.prec) / 2;
    *part = *p;
    part->g.lay.batch = hi - lo;
    part->in = (const char *)p->in + (size_t)(lo * dist[0]) * rs;
    part->out = (char *)p->out + (size_t)(lo * dist[1]) * rs;
}

/* An FFT's part: its transforms [lo, hi), and the spans of its input and output (the family's operands, one
 * region for a transform in place). */
static void gs_split_fft_part(gs_part_t *me, const gs_fftw_t *p, int i, int parts)
{
    int64_t dist[2], one[2], batch = gs_split_fft_dim(p, dist, one);
    gs_split_fft(p, i, parts, &me->a.fft);
    me->lo = batch * i / parts, me->hi = batch * (i + 1) / parts;
    int64_t more = me->hi - me->lo - 1, span[2] = {one[0] + more * dist[0], one[1] + more * dist[1]};
    if (me->o.n == 1)
        span[0] = span[0] > span[1] ? span[0] : span[1];
    for (int s = 0; s < me->o.n; s++) {
        gs_operand_t *f = &me->o.o[s];
        f->host = s ? me->a.fft.out : me->a.fft.in;
        f->rows = f->ld = span[s];
    }
}

/* A Level-3 call's part: its block of the output, and what it reads. */
static void gs_split_blas_part(gs_part_t *me, const gs_blas_t *p, int i, int parts)
{
    size_t es = gs_prec_size(p->prec);
    bool by_cols = false;
    int64_t len = gs_split_dim(p, &by_cols);
    char tri = p->op == GS_OP_syrk || p->op == GS_OP_herk ? p->uplo : 0;
    int64_t lo = gs_split_at(len, i, parts, tri), hi = gs_split_at(len, i + 1, parts, tri);
    me->a.p = *p;
    me->lo = lo, me->hi = hi;
    if (p->op == GS_OP_gemm) {
        gs_split_gemm(me, by_cols, lo, hi, es);
    } else if (tri) {
        gs_split_rk(me, lo, hi, es);
    } else { /* TRSM, TRMM: B's block */
        gs_split_block(&me->o.o[1], by_cols, lo, hi, p->ldc, es);
        if (by_cols)
            me->a.p.n = hi - lo;
        else
            me->a.p.m = hi - lo;
        me->a.p.c = (void *)me->o.o[1].host;
    }
}

/* Part i of parts of the call, on slot i. */
static void gs_split_part(gs_part_t *me, const gs_call_t *c, const void *args, const gs_operands_t *o, int i,
                          int parts)
{
    me->c = *c;
    me->c.why = "";
    me->c.bytes_h2d = me->c.bytes_d2h = me->c.bytes_saved = 0;
    me->c.cache_hits = 0;
    me->c.track_ns = 0;
    me->c.part = me;
    me->c.dev = (uint8_t)i;
    me->o = *o;
    if (gs_split_is_fft(c))
        gs_split_fft_part(me, args, i, parts);
    else
        gs_split_blas_part(me, args, i, parts);
}

/* A SYRK's or HERK's part on the device: d[0] op(A)'s rows of the part (gs_split_rk), d[1] its block of C.
 * The diagonal block by the routine itself, the rectangle above it (upper) or below it (lower) by
 * C = alpha op(A)_rect op(A)_diag^T + beta C (^H for HERK, whose real scalars become complex ones). */
static int gs_split_rk_compute(gs_call_t *c, const gs_blas_t *p, char *const d[3], const int64_t ld[3])
{
    const gs_part_t *me = c->part;
    size_t es = gs_prec_size(p->prec), row = es * (size_t)(p->trans == 'N' ? 1 : ld[0]); /* op(A)'s next row */
    bool up = p->uplo == 'U';
    int64_t w = me->hi - me->lo, diag = up ? me->lo : 0, rect = up ? 0 : w, rows = up ? me->lo : p->n - me->hi;
    gs_blas_t b = *p;
    b.n = w;
    char *bd[3] = {d[0] + (size_t)diag * row, d[1] + (size_t)diag * es, NULL};
    int rc = gs_cuda_compute(c, &b, p->beta, bd, ld);
    if (rc != GS_OK || rows == 0)
        return rc;
    char t = p->op == GS_OP_herk ? 'C' : 'T';
    gs_blas_t g = *p;
    g.op = GS_OP_gemm, g.m = rows, g.n = w;
    g.trans = p->trans == 'N' ? 'N' : t, g.transb = p->trans == 'N' ? t : 'N';
    _Alignas(16) unsigned char alpha[16] = {0}, beta[16] = {0};
    if (p->op == GS_OP_herk) {
        memcpy(alpha, p->alpha, es / 2), memcpy(beta, p->beta, es / 2);
        g.alpha = alpha, g.beta = beta;
    }
    char *gd[3] = {d[0] + (size_t)rect * row, bd[0], d[1] + (size_t)rect * es};
    const int64_t gl[3] = {ld[0], ld[0], ld[1]};
    return gs_cuda_compute(c, &g, g.beta, gd, gl);
}

int gs_split_synced(gs_call_t *c)
{
    if (!c->part)
        return GS_OK;
    GS_CUDA(c, cudaStreamSynchronize, (gs_dev(c)->stream));
    return gs_split_computed(c);
}

int gs_split_whole(gs_call_t *c, const gs_blas_t *p, char *const d[3], const int64_t ld[3])
{
    bool rk = p->op == GS_OP_syrk || p->op == GS_OP_herk;
    int rc = rk ? gs_split_rk_compute(c, p, d, ld) : gs_cuda_compute(c, p, p->beta, d, ld);
    return rc != GS_OK ? rc : gs_split_synced(c);
}

int gs_split_run(gs_call_t *c, const void *args, const gs_operands_t *o, gs_cuda_body_fn *body, int parts)
{
    gs_split_t s = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .parts = parts};
    /* (on the heap: a part holds an FFT's whole geometry, and the caller's stack may be small) */
    gs_part_t *part = calloc((size_t)parts, sizeof *part);
    if (!part) {
        gs_call_why(c, "gpu: no memory for the parts of a split call");
        return GS_ENOMEM;
    }
    pthread_t tid[GS_DEVICES_MAX];
    bool started[GS_DEVICES_MAX] = {false};
    for (int i = 0; i < parts; i++) {
        gs_split_part(&part[i], c, args, o, i, parts);
        part[i].body = body;
        part[i].s = &s;
        part[i].bound = part[i].arrived = part[i].for_another = false;
        part[i].rc = GS_EGPU;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int i = 1; i < parts; i++) {
        started[i] = pthread_create(&tid[i], NULL, gs_split_thread, &part[i]) == 0;
        if (!started[i]) {
            gs_call_why(&part[i].c, "gpu: no thread for device slot %d's part", i);
            gs_split_pass(&part[i], true, false, false);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    part[0].rc = gs_cuda_run(&part[0].c, &part[0].o, gs_split_body, &part[0].a);
    gs_split_pass(&part[0], true, part[0].rc == GS_OK, false);
    int cause = -1; /* the first part that failed of itself, else the first that failed */
    for (int i = 0; i < parts; i++) {
        if (i > 0 && started[i])
            pthread_join(tid[i], NULL);
        c->bytes_h2d += part[i].c.bytes_h2d, c->bytes_d2h += part[i].c.bytes_d2h;
        c->bytes_saved += part[i].c.bytes_saved, c->cache_hits += part[i].c.cache_hits;
        c->track_ns += part[i].c.track_ns;
        bool own = part[i].rc != GS_OK && !part[i].for_another;
        if (part[i].rc != GS_OK && (cause < 0 || (own && part[cause].for_another)))
            cause = i;
        if (i > 0 && own && part[i].rc != GS_ENOMEM && !atomic_exchange(&gs_split_off, true))
            gs_msg("device slot %d failed in a split call (%s): later calls use one device", i, part[i].c.why);
    }
    int rc = cause < 0 ? GS_OK : part[cause].rc;
    c->devices = cause < 0 ? (uint8_t)parts : 0;
    if (cause >= 0) {
        gs_call_why(c, "%s (device slot %d of %d)", part[cause].c.why, cause, parts);
        c->bytes_h2d = c->bytes_d2h = c->bytes_saved = 0;
    }
    free(part);
    return rc;
}

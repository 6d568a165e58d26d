/* GEMM split across the devices of GPUSHIM_DEVICES (cuda_split.h).  Each part is a GEMM of its own: a block of
 * C's columns (or of its rows, when C has more rows than columns), the matching block of op(B) (or op(A)) and
 * the whole of the other factor, run by cuda_call.c on one device slot with that slot's streams, staging and
 * cache.  Slot 0's part runs on the calling thread, which holds the GPU lock for all of them; the others on a
 * thread each, made for the call (a split call is large: a thread costs tens of microseconds of it).
 *
 * The parts bind their operands to the residency cache before any of them goes on (gs_split_body): the
 * whole factor is an operand of every part, on each device, and a part that ended would protect its pages,
 * erasing the marks of the program's writes that another part's look-up has still to see.
 *
 * Together the parts keep the operation's contract (backend.h).  With beta != 0 no part writes C before every
 * part has computed its block (gs_split_computed, which the GEMM's plan calls before its download), so a part
 * that fails leaves C as it was for the CPU's redo of the whole call.  With beta = 0 C is not read: what parts
 * wrote is overwritten by that redo.  A part that fails on a slot other than 0 for any reason but memory ends
 * the splitting: later calls use slot 0 alone, and a notice says so. */
#include <pthread.h>
#include <signal.h>

#include "backend/cuda_split.h"

/* Columns (or rows) of C a part has at least: below that the copies of the whole other factor to every device
 * outweigh what the extra devices compute. */
#define GS_SPLIT_MIN 2048

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int parts, bound, arrived; /* parts in all; that have bound their operands; that have computed or ended */
    bool failed;
} gs_split_t;

struct gs_part {
    gs_call_t c;
    gs_blas_t p;
    gs_operands_t o;
    gs_cuda_body_fn *body;
    gs_split_t *s;
    bool bound, arrived;
    bool for_another; /* failed because another part did */
    int rc;
};

static atomic_bool gs_split_off;

/* The parts of a GEMM whose C is m x n. */
static int gs_split_count(int64_t m, int64_t n)
{
    int up = atomic_load_explicit(&gs_ndevices, memory_order_acquire);
    if (up < 2 || atomic_load_explicit(&gs_split_off, memory_order_relaxed))
        return 1;
    int64_t parts = (n >= m ? n : m) / GS_SPLIT_MIN;
    return parts < 2 ? 1 : parts < up ? (int)parts : up;
}

int gs_split_parts(const gs_blas_t *p) { return p->op == GS_OP_gemm ? gs_split_count(p->m, p->n) : 1; }

void gs_split_traffic(const gs_call_t *c, const gs_operands_t *o, gs_traffic_t *t)
{
    if (gs_routines[c->routine].op != GS_OP_gemm || o->n < 3)
        return;
    const gs_operand_t *out = &o->o[2], *whole = &o->o[out->cols >= out->rows ? 0 : 1];
    int parts = gs_split_count(out->rows, out->cols);
    if (parts > 1)
        t->devices = parts, t->staged += (double)whole->rows * (double)whole->cols * (double)o->es * (parts - 1);
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
    me->rc = gs_cuda_run(&me->c, &me->o, gs_split_body, &me->p);
    gs_split_pass(me, true, me->rc == GS_OK, false);
    return NULL;
}

/* Part i of n of the call: the block of C's columns (by_cols) or rows [lo, hi), and what it reads. */
static void gs_split_part(gs_part_t *me, const gs_call_t *c, const gs_blas_t *p, const gs_operands_t *o, bool by_cols,
                          int64_t lo, int64_t hi)
{
    size_t es = gs_prec_size(p->prec);
    me->c = *c;
    me->c.why = "";
    me->c.bytes_h2d = me->c.bytes_d2h = me->c.bytes_saved = 0;
    me->c.cache_hits = 0;
    me->c.track_ns = 0;
    me->c.part = me;
    me->p = *p;
    me->o = *o;
    gs_operand_t *f = &me->o.o[by_cols ? 1 : 0], *out = &me->o.o[2];
    bool t = by_cols ? p->transb != 'N' : p->trans != 'N';
    int64_t ld = by_cols ? p->ldb : p->lda;
    /* op(B)'s columns lo.. are B's columns, or its rows when B is stored transposed; op(A)'s rows likewise. */
    const char *fh = (const char *)f->host + (size_t)lo * es * (size_t)((by_cols != t) ? ld : 1);
    if (by_cols != t)
        f->cols = hi - lo;
    else
        f->rows = hi - lo;
    f->host = fh;
    out->host = (char *)out->host + (size_t)lo * es * (size_t)(by_cols ? p->ldc : 1);
    if (by_cols)
        out->cols = me->p.n = hi - lo, me->p.b = fh;
    else
        out->rows = me->p.m = hi - lo, me->p.a = fh;
    me->p.c = (void *)out->host;
}

int gs_split_run(gs_call_t *c, const gs_blas_t *p, const gs_operands_t *o, gs_cuda_body_fn *body, int parts)
{
    gs_split_t s = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .parts = parts};
    gs_part_t part[GS_DEVICES_MAX];
    pthread_t tid[GS_DEVICES_MAX];
    bool started[GS_DEVICES_MAX] = {false};
    bool by_cols = p->n >= p->m;
    int64_t dim = by_cols ? p->n : p->m;
    for (int i = 0; i < parts; i++) {
        gs_split_part(&part[i], c, p, o, by_cols, dim * i / parts, dim * (i + 1) / parts);
        part[i].c.dev = (uint8_t)i;
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
    part[0].rc = gs_cuda_run(&part[0].c, &part[0].o, gs_split_body, &part[0].p);
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
    if (cause < 0)
        return GS_OK;
    gs_call_why(c, "%s (device slot %d of %d)", part[cause].c.why, cause, parts);
    c->bytes_h2d = c->bytes_d2h = c->bytes_saved = 0;
    return part[cause].rc;
}

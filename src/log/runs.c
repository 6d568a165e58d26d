/* Runs of like calls in the offload log.  A call that stays on the CPU with no prediction of the cost model
 * (a small call, or one the policy never offloads), made by the same thread from the same return address
 * through the same entry with the same sizes, options and reason as the call of the thread's previous record,
 * gets no record of its own: the calls of such a run after the first become one record with "calls": N and
 * their summed seconds, written when the thread's next call is unlike them, after a second, at the thread's
 * exit or at the process's.  numpy.linalg's thousands of per-column copies around one LAPACK call are then two
 * records rather than thousands, each of which costs microseconds (its call sites, its formatting, its
 * write).  A thread's run lives in one of a fixed set of slots; a thread that finds none free logs every call,
 * and so does a forked child, which may end with _exit (Python's multiprocessing does), leaving no exit at
 * which to write its runs.  The slot also holds the thread's buffer of records (gs_log_put). */
#include <pthread.h>
#include <string.h>

#include "log/record.h"

#define GS_RUN_SLOTS 256
#define GS_RUN_NS 1000000000ull /* a run's record is written after this long at the latest */
#define GS_RECORD_HOLD_NS 100000000ull /* a buffered record is written after this long at the latest */
#define GS_RECORD_BUF 16384

typedef struct {
    pthread_mutex_t lock; /* guards the fields below but used, which gs_runs.lock guards */
    bool used;            /* owned by a thread */
    bool head;            /* key holds the call of the owner's last record */
    uint32_t calls;       /* calls taken since that record: sum holds their record */
    double seconds;       /* their time */
    gs_call_t key, sum;
    char why[GS_WHY_MAX];  /* the reason of key and sum */
    char site[300], native[200];
    uint32_t blen;         /* bytes of whole records in buf */
    uint64_t bt0;          /* when the first of them was put */
    char buf[GS_RECORD_BUF];
} gs_run_t;

static struct {
    pthread_mutex_t lock; /* guards every slot's used */
    pthread_once_t once;
    pthread_key_t key;    /* the thread's slot, for the write at its exit */
    bool keyed;           /* key was made */
    bool off;             /* a forked child: no runs */
    atomic_int taken;     /* slots a thread has owned: the first ones (a process that logs nothing owns none) */
    gs_run_t slot[GS_RUN_SLOTS];
} gs_runs = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .once = PTHREAD_ONCE_INIT,
    .slot = {[0 ... GS_RUN_SLOTS - 1] = {.lock = PTHREAD_MUTEX_INITIALIZER}},
};

/* 1 + the calling thread's slot; 0: none yet; -1: none was free. */
static _Thread_local int gs_run_mine __attribute__((tls_model("initial-exec")));

/* Writes r's buffer of records; under r->lock. */
static void gs_run_drain(gs_run_t *r)
{
    if (r->blen)
        gs_log_write(r->buf, r->blen);
    r->blen = 0;
}

/* Appends a record to r's buffer, and writes the buffer as gs_log_put says; under r->lock. */
static void gs_run_put(gs_run_t *r, const char *rec, size_t len, bool now)
{
    uint64_t t = gs_now_ns();
    if (r->blen && (r->blen + len > sizeof r->buf || t - r->bt0 > GS_RECORD_HOLD_NS))
        gs_run_drain(r);
    if (!r->blen)
        r->bt0 = t;
    memcpy(r->buf + r->blen, rec, len);
    r->blen += (uint32_t)len;
    if (now)
        gs_run_drain(r);
}

/* Puts the record of what the run of r holds into r's buffer, and empties the run; under r->lock. */
static void gs_run_write(gs_run_t *r)
{
    char rec[GS_RECORD_MAX];
    if (r->calls)
        gs_run_put(r, rec, gs_log_format(rec, &r->sum, r->seconds, r->calls, r->site, r->native), false);
    r->calls = 0;
}

/* At a thread's exit: its run's record, and its slot free again. */
static void gs_run_exit(void *p)
{
    gs_run_t *r = p;
    pthread_mutex_lock(&r->lock);
    gs_run_write(r);
    gs_run_drain(r);
    r->head = false;
    pthread_mutex_unlock(&r->lock);
    pthread_mutex_lock(&gs_runs.lock);
    r->used = false;
    pthread_mutex_unlock(&gs_runs.lock);
}

/* Without the key (no key left), a thread's run is written at the next unlike call or the process's exit. */
static void gs_runs_key(void)
{
    gs_runs.keyed = pthread_key_create(&gs_runs.key, gs_run_exit) == 0;
}

/* The calling thread's slot, taken at its first record; NULL when none is free. */
static gs_run_t *gs_run_slot(void)
{
    if (gs_run_mine || gs_runs.off)
        return gs_run_mine > 0 ? &gs_runs.slot[gs_run_mine - 1] : NULL;
    pthread_once(&gs_runs.once, gs_runs_key);
    gs_run_mine = -1;
    pthread_mutex_lock(&gs_runs.lock);
    for (int i = 0; i < GS_RUN_SLOTS && gs_run_mine < 0; i++)
        if (!gs_runs.slot[i].used) {
            gs_runs.slot[i].used = true;
            gs_run_mine = i + 1;
            if (gs_run_mine > atomic_load_explicit(&gs_runs.taken, memory_order_relaxed))
                atomic_store_explicit(&gs_runs.taken, gs_run_mine, memory_order_release);
        }
    pthread_mutex_unlock(&gs_runs.lock);
    if (gs_run_mine < 0)
        return NULL;
    gs_run_t *r = &gs_runs.slot[gs_run_mine - 1];
    if (gs_runs.keyed)
        pthread_setspecific(gs_runs.key, r);
    return r;
}

/* Whether c may be part of a run: a CPU call without a prediction, a transform's shape, an unknown caller or a
 * Python function's name (which lives as long as the call). */
static bool gs_run_eligible(const gs_call_t *c)
{
    return c->where == GS_WHERE_CPU && c->pred_cpu < 0 && !c->shape_rank && c->ret && c->dim_names && !c->api;
}

static bool gs_run_like(const gs_call_t *a, const gs_call_t *b)
{
    if (a->entry != b->entry || a->ret != b->ret || a->dim_names != b->dim_names || a->threads != b->threads ||
        strcmp(a->opts, b->opts) != 0 || strncmp(a->why, b->why, GS_WHY_MAX - 1) != 0)
        return false;
    for (int i = 0; a->dim_names[i]; i++)
        if (a->dim[i] != b->dim[i])
            return false;
    return true;
}

/* c into *to, its reason into why (a call's reason may live in its own buffer). */
static void gs_run_copy(gs_call_t *to, const gs_call_t *c, char *why)
{
    *to = *c;
    gs_copy_str(why, GS_WHY_MAX, c->why);
    to->why = why;
}

bool gs_log_run(const gs_call_t *c, double seconds)
{
    gs_run_t *r = gs_run_slot();
    if (!r)
        return false;
    pthread_mutex_lock(&r->lock);
    bool like = r->head && gs_run_eligible(c) && gs_run_like(&r->key, c);
    if (r->calls && (!like || c->t0 - r->sum.t0 > GS_RUN_NS))
        gs_run_write(r);
    if (like && !r->calls++) {
        gs_run_copy(&r->sum, c, r->why);
        r->seconds = 0;
    } else if (like) {
        r->sum.flops += c->flops;
        r->sum.track_ns += c->track_ns;
        r->sum.bytes_h2d += c->bytes_h2d, r->sum.bytes_d2h += c->bytes_d2h, r->sum.bytes_saved += c->bytes_saved;
    }
    r->seconds += like ? seconds : 0;
    r->head = like;
    pthread_mutex_unlock(&r->lock);
    return like;
}

void gs_log_run_head(const gs_call_t *c, const char *site, const char *native)
{
    gs_run_t *r = gs_run_slot();
    if (!r || !gs_run_eligible(c))
        return;
    pthread_mutex_lock(&r->lock);
    gs_run_copy(&r->key, c, r->why);
    gs_copy_str(r->site, sizeof r->site, site);
    gs_copy_str(r->native, sizeof r->native, native);
    r->head = true;
    pthread_mutex_unlock(&r->lock);
}

void gs_log_runs_flush(void)
{
    /* Only the slots ever owned: the others' 4 MB were never touched, and touching them at exit took 8 ms. */
    int taken = atomic_load_explicit(&gs_runs.taken, memory_order_acquire);
    for (int i = 0; i < taken; i++) {
        gs_run_t *r = &gs_runs.slot[i];
        pthread_mutex_lock(&r->lock);
        gs_run_write(r);
        gs_run_drain(r);
        pthread_mutex_unlock(&r->lock);
    }
}

void gs_log_put(const char *rec, size_t len, bool now)
{
    gs_run_t *r = gs_run_slot();
    if (!r) {
        gs_log_write(rec, len);
        return;
    }
    pthread_mutex_lock(&r->lock);
    gs_run_put(r, rec, len, now);
    pthread_mutex_unlock(&r->lock);
}

void gs_log_put_mine(void)
{
    gs_run_t *r = gs_run_mine > 0 ? &gs_runs.slot[gs_run_mine - 1] : NULL;
    if (r && pthread_mutex_trylock(&r->lock) == 0) {
        gs_run_drain(r);
        pthread_mutex_unlock(&r->lock);
    }
}

void gs_log_record(const gs_call_t *c, double seconds, uint32_t calls, const char *site, const char *native)
{
    char buf[GS_RECORD_MAX];
    size_t len = gs_log_format(buf, c, seconds, calls, site, native);
    gs_log_put(buf, len, gs.opt.log_each || c->where == GS_WHERE_GPU || seconds >= GS_RECORD_NOW_S);
}

/* In a forked child: the parent's runs are the parent's to write, and the child has none. */
static void gs_runs_atfork_child(void)
{
    gs_runs.off = true;
    pthread_mutex_init(&gs_runs.lock, NULL);
    for (int i = 0; i < GS_RUN_SLOTS; i++) {
        gs_run_t *r = &gs_runs.slot[i];
        pthread_mutex_init(&r->lock, NULL);
        r->used = r->head = false;
        r->calls = r->blen = 0;
    }
    if (gs_run_mine > 0 && gs_runs.keyed)
        pthread_setspecific(gs_runs.key, NULL);
    gs_run_mine = 0;
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_runs_atfork_child);

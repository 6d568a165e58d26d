/* The cost model's history: for each kind of call (routine, side, size and copies, policy.c's key), the ratios
 * of measured to predicted time of the last calls this process made, so that the model's next prediction of
 * that kind is the rates' times the median ratio.  The rates are a machine's on average; the history follows
 * what this process sees, on this machine, now (a CPU library slower at one size than its rate says, copies
 * slower into fresh memory), which rates fitted once cannot (bench/RESULTS.md, 2026-12-02). */
#include <math.h>
#include <pthread.h>

#include "core/gs.h"

/* Kinds of call a process keeps: a few per routine and size it uses, far fewer than this; a kind that finds
 * its probe sequence full takes the place of the first entry there. */
#define GS_HISTORY_SLOTS 1024
#define GS_HISTORY_PROBES 8
/* A ratio beyond this factor either way is counted as this factor: one call held up by the system (paging,
 * another process) moves the median by at most its one place. */
#define GS_HISTORY_CLAMP 16.0f
/* A side's ratios are forgotten once this many calls of the kind ran on the other side since it last ran: the
 * rates decide again, and the side is timed anew.  Else one slow call (the cache's first tracking of a 512 MB
 * output took 57 ms against 22 predicted on the H200 machine) keeps a kind off its faster side for good.  Each
 * time a side is forgotten, the calls it waits for the next time double (up to GS_HISTORY_IDLE_MAX): a side
 * that is slower for good (the rates too kind to it) is tried again less and less often, where at every 8 calls
 * a third of SciPy's rfft2 of 1024^2 ran on a GPU 1.5 times slower than the CPU (H100). */
#define GS_HISTORY_IDLE 8
#define GS_HISTORY_IDLE_MAX 255

typedef struct {
    uint64_t key; /* 0: free (a key is never 0: it holds the side's bit and the routine) */
    float ratio[GS_HISTORY_MAX]; /* a ring: the newest at (next - 1) mod GS_HISTORY_MAX */
    uint8_t n, next;
    uint8_t idle; /* calls of the kind on the other side since this side's last */
    uint8_t wait; /* the idle calls that forget this side: GS_HISTORY_IDLE, doubled each time it was */
    bool warm;    /* the kind's first call was seen, and not counted */
} gs_history_entry_t;

static gs_history_entry_t gs_history[GS_HISTORY_SLOTS];
static pthread_mutex_t gs_history_lock = PTHREAD_MUTEX_INITIALIZER;

/* The entry of key, or NULL; with add, a new or reused one. */
static gs_history_entry_t *gs_history_find(uint64_t key, bool add)
{
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 54); /* the top 10 bits: GS_HISTORY_SLOTS */
    for (int i = 0; i < GS_HISTORY_PROBES; i++) {
        gs_history_entry_t *e = &gs_history[(h + (size_t)i) % GS_HISTORY_SLOTS];
        if (e->key == key)
            return e;
        if (e->key == 0)
            return add ? (e->key = key, e) : NULL;
    }
    if (!add)
        return NULL;
    gs_history_entry_t *e = &gs_history[h];
    *e = (gs_history_entry_t){.key = key};
    return e;
}

double gs_history_factor(uint64_t key, int window, int *counted)
{
    float r[GS_HISTORY_MAX];
    int n = 0;
    pthread_mutex_lock(&gs_history_lock);
    const gs_history_entry_t *e = gs_history_find(key, false);
    if (e) {
        n = e->n < window ? e->n : window;
        for (int i = 0; i < n; i++)
            r[i] = e->ratio[(e->next + GS_HISTORY_MAX - 1 - i) % GS_HISTORY_MAX];
    }
    pthread_mutex_unlock(&gs_history_lock);
    if (counted)
        *counted = n;
    if (n == 0)
        return 1;
    for (int i = 1; i < n; i++) /* insertion sort: at most GS_HISTORY_MAX */
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            float x = r[j];
            r[j] = r[j - 1], r[j - 1] = x;
        }
    /* Of an even number, the geometric mean of the middle two: ratios are factors. */
    return n % 2 ? r[n / 2] : sqrt((double)r[n / 2 - 1] * r[n / 2]);
}

/* Notes ratio r for the kind key on side (its entry made where new), its first call uncounted; with against,
 * the call also counts as one on this side against the other side's kind. */
static void gs_history_add(const gs_call_t *c, int side, float r, bool against)
{
    pthread_mutex_lock(&gs_history_lock);
    gs_history_entry_t *other = against ? gs_history_find(c->hkey[!side], false) : NULL;
    if (other && other->n > 0 && ++other->idle >= (other->wait ? other->wait : GS_HISTORY_IDLE)) {
        other->n = other->next = other->idle = 0;
        unsigned wait = 2u * (other->wait ? other->wait : GS_HISTORY_IDLE);
        other->wait = (uint8_t)(wait < GS_HISTORY_IDLE_MAX ? wait : GS_HISTORY_IDLE_MAX);
    }
    gs_history_entry_t *e = gs_history_find(c->hkey[side], true);
    e->idle = 0;
    /* The first call of a kind on a side warms it up (on the GPU workspaces and kernels, fresh pages anywhere):
     * on the H200 machine it took up to 5 times the next ones, and counted, it sent the next calls to the
     * slower side (bench/RESULTS.md, 2026-12-02). */
    if (e->warm) {
        e->ratio[e->next] = r;
        e->next = (uint8_t)((e->next + 1) % GS_HISTORY_MAX);
        e->n += e->n < GS_HISTORY_MAX;
    }
    e->warm = true;
    pthread_mutex_unlock(&gs_history_lock);
}

/* Seconds since t against the rates' seconds on side, counted as at most hi times or at least 1 / the clamp. */
static float gs_history_ratio(const gs_call_t *c, int side, uint64_t now, uint64_t t, float hi)
{
    float r = (float)((double)(now - t) * 1e-9 / c->model[side]);
    return r < 1 / GS_HISTORY_CLAMP ? 1 / GS_HISTORY_CLAMP : r > hi ? hi : r;
}

void gs_history_note(const gs_call_t *c)
{
    uint64_t now = gs_now_ns();
    /* A GPU call that waited for the bring-up was predicted with it (pred_wait), which is not the rates'; one
     * that registers memory (model < 0, policy.c) bears a cost its kind's later calls do not. */
    bool gpu_ok = c->model[GS_WHERE_GPU] > 0 && !(c->pred_wait > 0);
    if (c->refused) {
        /* The GPU's answer was refused: its side cost the call all of it, the CPU's redo included, however far
         * beyond the clamp (not a hold-up: on the stand-in's two cores 65 times the GPU's rates); the redo is
         * the CPU's side of the kind, timed as such, so that the two compare measured against measured. */
        if (gpu_ok)
            gs_history_add(c, GS_WHERE_GPU, gs_history_ratio(c, GS_WHERE_GPU, now, c->t_pred, 1e30f), true);
        if (c->model[GS_WHERE_CPU] > 0)
            gs_history_add(c, GS_WHERE_CPU, gs_history_ratio(c, GS_WHERE_CPU, now, c->t_redo, GS_HISTORY_CLAMP),
                           false);
        return;
    }
    int side = c->where;
    if (c->model[side] > 0 && (side == GS_WHERE_CPU || gpu_ok))
        gs_history_add(c, side, gs_history_ratio(c, side, now, c->t_pred, GS_HISTORY_CLAMP), true);
}

/* In a forked child: the parent's lock may have been held by a thread the child does not have.  The child
 * keeps the parent's history (the same machine); it computes on the CPU only (dispatch/gpu.c). */
static void gs_history_atfork_child(void)
{
    pthread_mutex_init(&gs_history_lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_history_atfork_child);

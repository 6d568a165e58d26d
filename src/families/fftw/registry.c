/* The plan registry: each live FFTW plan's geometry and the FFTW that made it, in a small hash table keyed by
 * the plan pointer and guarded by one lock.  A planner adds its plan, destroy_plan drops it, cleanup drops its
 * library's; every execute looks its plan up, but those of plans on the short path (fftw.h).  A list is
 * changed by one pointer store on a fully built node, so that a forked child, which resets the lock, finds
 * every list whole. */
#include <stdlib.h>

#include "families/fftw/fftw.h"

#define GS_FFTW_BUCKETS 256

typedef struct gs_fftw_node {
    struct gs_fftw_node *next;
    gs_fftw_geom_t g;
} gs_fftw_node_t;

static gs_fftw_node_t *gs_fftw_table[GS_FFTW_BUCKETS]; /* guarded by gs_fftw_lock */
static pthread_mutex_t gs_fftw_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned gs_fftw_bucket(const void *plan)
{
    uint64_t h = (uint64_t)(uintptr_t)plan * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing: plans are aligned */
    return (unsigned)(h >> 56) % GS_FFTW_BUCKETS;
}

/* Unlinks and returns plan's node, or NULL.  Called with the lock held. */
static gs_fftw_node_t *gs_fftw_unlink(const void *plan)
{
    for (gs_fftw_node_t **l = &gs_fftw_table[gs_fftw_bucket(plan)]; *l; l = &(*l)->next)
        if ((*l)->g.plan == plan) {
            gs_fftw_node_t *n = *l;
            *l = n->next;
            return n;
        }
    return NULL;
}

_Atomic(const void *) gs_fftw_short[GS_FFTW_SHORT];

/* Whether every execute of g stays on the CPU: the policy's threshold of every FFTW routine is above its
 * flops (or the routine is off), or no advanced layout expresses it; never under GPUSHIM_OFFLOAD=always unless
 * the form is the reason. */
static bool gs_fftw_cpu_only(const gs_fftw_geom_t *g)
{
    if (g->why || gs.opt.offload == GS_OFFLOAD_NEVER)
        return true;
    if (gs.opt.offload == GS_OFFLOAD_ALWAYS && g->flops > 0)
        return false;
    for (int r = 0; r < GS_NROUTINES; r++)
        if (gs_ops[gs_routines[r].op].family == GS_FAMILY_FFTW && !(g->flops < gs_rules[r].min_flops))
            return false;
    return true;
}

/* Takes plan out of its short-path slot, if it is there. */
static void gs_fftw_unshort(const void *plan)
{
    const void *p = plan;
    atomic_compare_exchange_strong(&gs_fftw_short[gs_fftw_short_slot(plan)], &p, NULL);
}

int gs_fftw_register(const gs_fftw_geom_t *g)
{
    gs_fftw_node_t *n = malloc(sizeof *n);
    if (!n)
        return GS_ENOMEM;
    n->g = *g;
    unsigned b = gs_fftw_bucket(g->plan);
    pthread_mutex_lock(&gs_fftw_lock);
    /* A pointer FFTW hands out again (its plan freed by a destroy we did not see) replaces the old entry. */
    gs_fftw_node_t *old = gs_fftw_unlink(g->plan);
    n->next = gs_fftw_table[b];
    gs_fftw_table[b] = n;
    if (g->lib == 0 && gs_fftw_cpu_only(g)) /* a slot another plan held now serves this one */
        atomic_store_explicit(&gs_fftw_short[gs_fftw_short_slot(g->plan)], g->plan, memory_order_release);
    else
        gs_fftw_unshort(g->plan);
    pthread_mutex_unlock(&gs_fftw_lock);
    free(old);
    return GS_OK;
}

static bool gs_fftw_find(const void *plan, gs_fftw_geom_t *g, bool count)
{
    bool found = false;
    pthread_mutex_lock(&gs_fftw_lock);
    for (gs_fftw_node_t *n = gs_fftw_table[gs_fftw_bucket(plan)]; n; n = n->next)
        if (n->g.plan == plan) {
            *g = n->g;
            n->g.execs += count && n->g.execs < UINT32_MAX;
            found = true;
            break;
        }
    pthread_mutex_unlock(&gs_fftw_lock);
    return found;
}

bool gs_fftw_lookup(const void *plan, gs_fftw_geom_t *g) { return gs_fftw_find(plan, g, true); }

bool gs_fftw_peek(const void *plan, gs_fftw_geom_t *g) { return gs_fftw_find(plan, g, false); }

int gs_fftw_forget(const void *plan, const void **measured)
{
    pthread_mutex_lock(&gs_fftw_lock);
    gs_fftw_node_t *n = gs_fftw_unlink(plan);
    gs_fftw_unshort(plan);
    pthread_mutex_unlock(&gs_fftw_lock);
    int lib = n ? n->g.lib : -1;
    *measured = n ? n->g.measured : NULL;
    free(n);
    return lib;
}

void gs_fftw_set_measured(const void *plan, const void *m, const void *in, const void *out)
{
    pthread_mutex_lock(&gs_fftw_lock);
    for (gs_fftw_node_t *n = gs_fftw_table[gs_fftw_bucket(plan)]; n; n = n->next)
        if (n->g.plan == plan) {
            n->g.measured = m, n->g.measured_in = in, n->g.measured_out = out;
            break;
        }
    pthread_mutex_unlock(&gs_fftw_lock);
}

void gs_fftw_forget_all(int prec, int lib)
{
    for (unsigned b = 0; b < GS_FFTW_BUCKETS; b++) {
        gs_fftw_node_t *gone = NULL;
        pthread_mutex_lock(&gs_fftw_lock);
        for (gs_fftw_node_t **l = &gs_fftw_table[b]; *l;) {
            gs_fftw_node_t *n = *l;
            if (n->g.prec != prec || n->g.lib != lib) {
                l = &n->next;
                continue;
            }
            *l = n->next;
            n->next = gone;
            gone = n;
            gs_fftw_unshort(n->g.plan);
        }
        pthread_mutex_unlock(&gs_fftw_lock);
        while (gone) {
            gs_fftw_node_t *next = gone->next;
            free(gone);
            gone = next;
        }
    }
}

/* A forked child keeps its parent's plans, which FFTW's memory holds for it too, but not a lock that another
 * thread of the parent may have held at the fork (tests/t_fftw.sh, "fork"). */
static void gs_fftw_atfork_child(void)
{
    pthread_mutex_init(&gs_fftw_lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_fftw_atfork_child);

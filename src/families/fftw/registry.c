/* The plan registry: each live FFTW plan's geometry and the FFTW that made it, in a small hash table keyed by
 * the plan pointer and guarded by one lock.  A planner adds its plan, destroy_plan drops it, cleanup drops its
 * library's; every execute looks its plan up.  A list is changed by one pointer store on a fully built node,
 * so that a forked child, which resets the lock, finds every list whole. */
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
    pthread_mutex_unlock(&gs_fftw_lock);
    free(old);
    return GS_OK;
}

bool gs_fftw_lookup(const void *plan, gs_fftw_geom_t *g)
{
    bool found = false;
    pthread_mutex_lock(&gs_fftw_lock);
    for (gs_fftw_node_t *n = gs_fftw_table[gs_fftw_bucket(plan)]; n; n = n->next)
        if (n->g.plan == plan) {
            *g = n->g;
            n->g.execs += n->g.execs < UINT32_MAX;
            found = true;
            break;
        }
    pthread_mutex_unlock(&gs_fftw_lock);
    return found;
}

int gs_fftw_forget(const void *plan)
{
    pthread_mutex_lock(&gs_fftw_lock);
    gs_fftw_node_t *n = gs_fftw_unlink(plan);
    pthread_mutex_unlock(&gs_fftw_lock);
    int lib = n ? n->g.lib : -1;
    free(n);
    return lib;
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

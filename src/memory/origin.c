/* The origins of the cache's outputs (origin.h).  When the program had rewritten the outputs of one origin by their
 * next read GS_ORIGIN_USELESS times in a row, that origin's new outputs are not kept, but one in GS_ORIGIN_RETRY,
 * whose read unchanged makes them kept again.  An output is a new array each time when the program allocates it
 * (NumPy's results), so its own entry has no history to rest by (cache.c's GS_CACHE_REST), and the program's
 * writes to a protected output take a fault a page: bench/pyfft.py's loop multiplies fftn's result in place at
 * every step (tests/t_cache.sh, "origins"). */
#include "memory/origin.h"

#define GS_ORIGINS 64
#define GS_ORIGIN_USELESS 2
#define GS_ORIGIN_RETRY 16

typedef struct {
    uint32_t key;    /* 0: free */
    uint8_t useless; /* outputs in a row that the program had rewritten by their next read */
    uint8_t skipped; /* outputs not kept since, up to GS_ORIGIN_RETRY */
} gs_origin_t;

static struct {
    pthread_mutex_t lock;
    gs_origin_t o[GS_ORIGINS]; /* by key; a new key takes a free slot, or over another's */
} gs_org = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* With the lock held: origin's slot; a new origin takes a free one, or the slot its key hashes to. */
static gs_origin_t *gs_origin(uint32_t origin)
{
    gs_origin_t *o = NULL;
    for (int i = 0; i < GS_ORIGINS; i++) {
        if (gs_org.o[i].key == origin)
            return &gs_org.o[i];
        if (!o && !gs_org.o[i].key)
            o = &gs_org.o[i];
    }
    o = o ? o : &gs_org.o[origin % GS_ORIGINS];
    *o = (gs_origin_t){.key = origin};
    return o;
}

bool gs_origin_keeps(uint32_t origin)
{
    pthread_mutex_lock(&gs_org.lock);
    gs_origin_t *o = gs_origin(origin);
    bool keep = o->useless < GS_ORIGIN_USELESS;
    if (!keep) {
        o->skipped = (uint8_t)((o->skipped + 1) % GS_ORIGIN_RETRY);
        keep = o->skipped == 0;
    }
    pthread_mutex_unlock(&gs_org.lock);
    return keep;
}

void gs_origin_read(uint32_t origin, bool rewritten)
{
    pthread_mutex_lock(&gs_org.lock);
    gs_origin_t *o = gs_origin(origin);
    o->useless = rewritten ? (uint8_t)(o->useless + (o->useless < UINT8_MAX)) : 0;
    pthread_mutex_unlock(&gs_org.lock);
}

/* A forked child may have been forked while the lock was held. */
static void gs_origin_child(void) { pthread_mutex_init(&gs_org.lock, NULL); }
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_origin_child);

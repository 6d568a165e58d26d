/* The residency cache (cache.h).  A small table holds the entries and the operands seen lately.  The table
 * is guarded by its own lock, which the memory hooks take too and which is never held across a CUDA call;
 * device memory is allocated and freed only with the GPU lock held, so an entry a hook drops keeps its device
 * memory (state DEAD) until the next call takes it.  The memory of dropped entries is pooled for later
 * entries of about the same size: cudaMalloc and cudaFree (which waits for the device) are slow, and a
 * program that never repeats an operand would otherwise pay both on every call.  An entry belongs to one
 * device (its device copy is there), and the pool, the bytes held and the limit are per device; what happens
 * to host memory drops the entries of every device. */
#include <string.h>

#include "memory/cache.h"
#include "memory/edge.h"
#include "memory/origin.h"
#include "memory/span.h"
#include "memory/wp.h"

#define GS_CACHE_SLOTS 256 /* at most GS_SPAN_MAX and GS_EDGE_SLOTS, checked in gs_cache_bounds */
/* An entry whose device copy was of no use at this many uses in a row (an input the program had changed, an
 * output written again before any call read it) is dropped, and its matrix is not tracked for the next
 * GS_CACHE_REST uses: tracking (protecting and checking its pages) costs on every use, about as much as copying
 * it, and the program is rewriting it, as a time-stepping loop does (bench/fft.sh's loop; tests/t_cache.sh,
 * "resting"). */
#define GS_CACHE_STALE 2
#define GS_CACHE_REST 16
/* Only matrices this large rest: below, tracking costs less than a call's latency. */
#define GS_CACHE_REST_MIN ((size_t)32 << 20)

typedef enum {
    GS_CE_FREE,
    GS_CE_SEEN,  /* an operand of an earlier call, not cached: the policy's hint (with rest > 0: resting) */
    GS_CE_VALID, /* the device copy equals the host memory as of the protection */
    GS_CE_BUSY,  /* bound by the current call */
    GS_CE_DEAD,  /* dropped; its device memory is freed by the next call */
} gs_cstate_t;

typedef struct {
    gs_hreg_t key;
    int dev;          /* the device slot of dev; unused in SEEN entries, which are about the host matrix */
    uintptr_t lo, hi; /* the pages behind the region that are write-protected; the edges around (edge.h) */
    char *mem;        /* the device copy */
    size_t bytes;     /* of mem */
    gs_cstate_t state;
    bool doomed;      /* BUSY, and the memory was freed meanwhile: drop at the end of the call */
    bool verified;    /* found private (gs_wp_clean's full check) once: later checks are the fast ones */
    uint8_t stale;    /* uses in a row at which the device copy was of no use (GS_CACHE_STALE) */
    uint8_t rest;     /* SEEN: uses left before the matrix is tracked again (GS_CACHE_REST) */
    uint8_t seen;     /* calls that have used the host matrix, as the policy saw them (at most 255) */
    uint32_t origin;  /* an output's origin (origin.h) until its next read, which tells it whether it was rewritten */
    uint64_t used;    /* clock of the last use */
} gs_centry_t;

typedef struct {
    char *dev;
    size_t bytes;
} gs_dblock_t;

/* One device's share. */
typedef struct {
    gs_dblock_t pool[GS_CACHE_SLOTS]; /* device memory of dropped entries, for new ones */
    int npool;
    size_t bytes;            /* device memory held by the device's VALID, BUSY and DEAD entries and its pool */
    size_t max;              /* GPUSHIM_CACHE_MAX, resolved at the device's first call */
} gs_cdev_t;

static struct {
    pthread_mutex_t lock;
    gs_centry_t e[GS_CACHE_SLOTS];
    gs_cdev_t d[GS_DEVICES_MAX];
    uint64_t clock;
    gs_span_t span;          /* bounds of every entry, for the hooks' fast path */
    atomic_bool off;         /* writes cannot be tracked in this process: nothing is cached */
} gs_c = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool gs_key_eq(const gs_hreg_t *a, const gs_hreg_t *b)
{
    return a->host == b->host && a->width == b->width && a->ld == b->ld && a->cols == b->cols;
}

/* Slot i's matrix, first byte to last, for the span (the hooks drop by bytes, not pages: gs_cache_forget). */
static bool gs_cache_range(int i, uintptr_t *lo, uintptr_t *hi)
{
    *lo = (uintptr_t)gs_c.e[i].key.host, *hi = *lo + gs_hreg_extent(&gs_c.e[i].key);
    return gs_c.e[i].state != GS_CE_FREE;
}

/* With the lock held, after entries were added or dropped. */
static void gs_cache_bounds(void)
{
    _Static_assert(GS_CACHE_SLOTS <= GS_SPAN_MAX && GS_CACHE_SLOTS <= GS_EDGE_SLOTS, "room for every slot");
    gs_span_update(&gs_c.span, GS_CACHE_SLOTS, gs_cache_range);
}

/* With the lock held: drops entry e (its device memory waits for the next call). */
static void gs_cache_drop(gs_centry_t *e)
{
    if (e->state == GS_CE_BUSY)
        e->doomed = true;
    else if (e->state == GS_CE_VALID)
        e->state = GS_CE_DEAD;
    else if (e->state == GS_CE_SEEN)
        e->state = GS_CE_FREE;
}

/* With the lock held: drops every entry whose pages overlap [lo, hi), except those bound by the current call
 * and resting ones, which are about how the program uses the matrix, not about its contents. */
static void gs_cache_drop_pages(uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e->state != GS_CE_FREE && e->state != GS_CE_BUSY && !(e->state == GS_CE_SEEN && e->rest) &&
            e->lo < hi && lo < e->hi)
            gs_cache_drop(e);
    }
}

bool gs_cache_below(uintptr_t lo)
{
    return gs_span_below(&gs_c.span, lo);
}

/* Memory given back by free, munmap, ...: an entry is dropped when the freed bytes overlap its matrix's bytes. */
void gs_cache_forget(uintptr_t lo, uintptr_t hi)
{
    if (gs_span_misses(&gs_c.span, lo, hi))
        return;
    pthread_mutex_lock(&gs_c.lock);
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        uintptr_t a, b;
        if (gs_cache_range(i, &a, &b) && a < hi && lo < b)
            gs_cache_drop(&gs_c.e[i]);
    }
    pthread_mutex_unlock(&gs_c.lock);
}

/* With the lock held: the memory of device dev's DEAD entries goes to its pool, or into out (n of them) when
 * the pool is full. */
static void gs_cache_recycle(int dev, gs_dblock_t *out, int *n)
{
    gs_cdev_t *d = &gs_c.d[dev];
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e->state != GS_CE_DEAD || e->dev != dev)
            continue;
        gs_dblock_t b = {e->mem, e->bytes};
        if (d->npool < GS_CACHE_SLOTS)
            d->pool[d->npool++] = b;
        else
            out[(*n)++] = b;
        *e = (gs_centry_t){.state = GS_CE_FREE};
    }
    gs_cache_bounds();
}

/* With the lock held: device dev's least recently used VALID entry, or NULL. */
static gs_centry_t *gs_cache_oldest(int dev)
{
    gs_centry_t *old = NULL;
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e->state == GS_CE_VALID && e->dev == dev && (!old || e->used < old->used))
            old = e;
    }
    return old;
}

/* With the GPU lock held: frees device memory until at least want bytes are freed, the pool first, then the
 * least recently used entries that the current call does not use.  Returns the bytes freed. */
size_t gs_cache_trim(int dev, size_t want)
{
    gs_cdev_t *d = &gs_c.d[dev];
    gs_dblock_t out[2 * GS_CACHE_SLOTS];
    int n = 0;
    size_t freed = 0;
    pthread_mutex_lock(&gs_c.lock);
    gs_cache_recycle(dev, out, &n);
    while (freed < want && d->npool > 0)
        out[n++] = d->pool[--d->npool];
    for (int i = 0; i < n; i++)
        freed += out[i].bytes;
    gs_centry_t *victim;
    while (freed < want && (victim = gs_cache_oldest(dev))) {
        out[n++] = (gs_dblock_t){victim->mem, victim->bytes};
        freed += victim->bytes;
        *victim = (gs_centry_t){.state = GS_CE_FREE};
    }
    d->bytes -= freed;
    gs_cache_bounds();
    pthread_mutex_unlock(&gs_c.lock);
    for (int i = 0; i < n; i++)
        gs_cuda.cudaFree(out[i].dev);
    return freed;
}

void gs_cache_call(int dev)
{
    gs_cache_trim(dev, 0); /* the DEAD entries' memory goes to the pool, or is freed when the pool is full */
}

size_t gs_cache_evictable(int dev)
{
    size_t bytes = 0;
    pthread_mutex_lock(&gs_c.lock);
    for (int i = 0; i < GS_CACHE_SLOTS; i++)
        if ((gs_c.e[i].state == GS_CE_VALID || gs_c.e[i].state == GS_CE_DEAD) && gs_c.e[i].dev == dev)
            bytes += gs_c.e[i].bytes;
    for (int i = 0; i < gs_c.d[dev].npool; i++)
        bytes += gs_c.d[dev].pool[i].bytes;
    pthread_mutex_unlock(&gs_c.lock);
    return bytes;
}

/* With the lock held: the first entry of key h that is SEEN or on device dev (on any device when dev < 0),
 * or NULL. */
static gs_centry_t *gs_cache_find(int dev, const gs_hreg_t *h)
{
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e->state != GS_CE_FREE && gs_key_eq(&e->key, h) && (dev < 0 || e->state == GS_CE_SEEN || e->dev == dev))
            return e;
    }
    return NULL;
}

/* With the lock held: a slot for a new entry: a free one, else the least recently seen SEEN one. */
static gs_centry_t *gs_cache_slot(void)
{
    gs_centry_t *best = NULL;
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e->state == GS_CE_FREE)
            return e;
        if (e->state == GS_CE_SEEN && (!best || e->used < best->used))
            best = e;
    }
    return best;
}

static bool gs_cache_eligible(const gs_hreg_t *h)
{
    return gs.opt.cache && h->width * h->cols >= GS_CACHE_MIN && !atomic_load_explicit(&gs_c.off, memory_order_relaxed);
}

gs_cexpect_t gs_cache_expect(const gs_hreg_t *h, bool fresh)
{
    gs_cexpect_t x = {0};
    if (!gs_cache_eligible(h))
        return x;
    pthread_mutex_lock(&gs_c.lock);
    gs_centry_t *e = gs_cache_find(-1, h);
    if (e) /* a resting matrix is copied, not tracked */
        x = (gs_cexpect_t){.resident = e->state == GS_CE_VALID || e->state == GS_CE_BUSY, .seen = e->seen,
                           .again = fresh ? e->state == GS_CE_VALID : !(e->state == GS_CE_SEEN && e->rest)};
    if (!e && !fresh && (e = gs_cache_slot())) {
        *e = (gs_centry_t){.key = *h, .state = GS_CE_SEEN};
        gs_edge_pages(h, &e->lo, &e->hi);
        gs_cache_bounds();
    }
    if (e)
        e->used = ++gs_c.clock, e->seen += !fresh && e->seen < UINT8_MAX;
    pthread_mutex_unlock(&gs_c.lock);
    return x;
}

/* Before gpushim writes host region h: the pages lose their protection, so that the writes take no faults, and
 * with it every entry that covers them (but those of the current call) is dropped: besides, a copy engine's
 * writes into registered memory leave no trace in the page tables.  fresh is h's own new entry, unprotected. */
static void gs_cache_writing(const gs_hreg_t *h, const gs_centry_t *fresh)
{
    uintptr_t lo = gs_page_down((uintptr_t)h->host), hi = gs_page_up((uintptr_t)h->host + gs_hreg_extent(h));
    if (gs_span_misses(&gs_c.span, lo - gs_page + 1, hi)) /* no entry has a byte on these pages */
        return;
    bool protected = false;
    pthread_mutex_lock(&gs_c.lock);
    for (int i = 0; i < GS_CACHE_SLOTS; i++) {
        gs_centry_t *e = &gs_c.e[i];
        if (e != fresh && e->state != GS_CE_FREE && e->state != GS_CE_SEEN && e->lo < hi && lo < e->hi)
            protected = true;
    }
    gs_cache_drop_pages(lo, hi);
    pthread_mutex_unlock(&gs_c.lock);
    if (protected)
        gs_wp_unprotect(lo, hi);
}

/* Device memory on device dev for an entry of at least bytes (*got: its size): a pooled block not much larger,
 * or new memory within GPUSHIM_CACHE_MAX, evicting the least recently used entries that the call does not use,
 * and evicting more when the allocation itself fails. */
static char *gs_cache_alloc(int dev, size_t bytes, size_t *got)
{
    gs_cdev_t *d = &gs_c.d[dev];
    if (bytes > d->max)
        return NULL;
    pthread_mutex_lock(&gs_c.lock);
    int best = -1;
    for (int i = 0; i < d->npool; i++) {
        size_t b = d->pool[i].bytes;
        if (b >= bytes && b - bytes <= bytes / 4 && (best < 0 || b < d->pool[best].bytes))
            best = i;
    }
    if (best >= 0) {
        gs_dblock_t b = d->pool[best];
        d->pool[best] = d->pool[--d->npool];
        pthread_mutex_unlock(&gs_c.lock);
        *got = b.bytes;
        return b.dev;
    }
    size_t over = d->bytes + bytes > d->max ? d->bytes + bytes - d->max : 0;
    pthread_mutex_unlock(&gs_c.lock);
    if (over && gs_cache_trim(dev, over) < over)
        return NULL;
    char *mem;
    while (GS_CALLED(cudaMalloc, ((void **)&mem, bytes)) != cudaSuccess) {
        gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches (cuda_call.c) */
        if (gs_cache_trim(dev, bytes) == 0)
            return NULL;
    }
    pthread_mutex_lock(&gs_c.lock);
    d->bytes += bytes;
    pthread_mutex_unlock(&gs_c.lock);
    *got = bytes;
    return mem;
}

/* Device dev's limit, resolved at its first use: GPUSHIM_CACHE_MAX, or half the device's memory (the device
 * is current). */
static void gs_cache_limit(int dev)
{
    gs_cdev_t *d = &gs_c.d[dev];
    size_t free, total;
    if (d->max)
        return;
    if (gs.opt.cache_max >= 0)
        d->max = gs.opt.cache_max > 1e18 ? SIZE_MAX : (size_t)gs.opt.cache_max;
    else if (GS_CALLED(cudaMemGetInfo, (&free, &total)) == cudaSuccess)
        d->max = total / 2;
    if (!d->max)
        d->max = 1; /* 0 means unresolved: GPUSHIM_CACHE_MAX=0 caches nothing */
}

/* Drops entry e, which the current call had bound into b, and leaves its matrix resting (GS_CACHE_REST): the
 * call copies it as an uncached operand.  Returns NULL. */
static gs_centry_t *gs_cache_retire(gs_centry_t *e, gs_cbind_t *b)
{
    pthread_mutex_lock(&gs_c.lock);
    e->state = GS_CE_DEAD;
    *b = (gs_cbind_t){.out = b->out, .slot = -1};
    gs_centry_t *r = gs_cache_slot();
    if (r)
        *r = (gs_centry_t){.key = e->key, .lo = e->lo, .hi = e->hi, .state = GS_CE_SEEN, .rest = GS_CACHE_REST,
                           .used = ++gs_c.clock};
    gs_cache_bounds();
    pthread_mutex_unlock(&gs_c.lock);
    gs_wp_unprotect(e->lo, e->hi); /* the program writes it: no faults */
    return NULL;
}

/* The entry for operand h in this call on device dev, found or made (fresh), bound into b; NULL when none.  A
 * found entry is a hit when the call reads it and neither its protected pages nor its edges (edge.h) changed
 * since it was protected.  again: an earlier call used h too. */
static gs_centry_t *gs_cache_take(int dev, const gs_hreg_t *h, bool in, bool out, bool again, gs_cbind_t *b,
                                  bool *fresh)
{
    gs_cache_limit(dev);
    uintptr_t lo, hi;
    gs_edge_pages(h, &lo, &hi);
    size_t bytes = h->width * h->cols;
    pthread_mutex_lock(&gs_c.lock);
    gs_centry_t *e = gs_cache_find(dev, h);
    gs_cstate_t was = e ? e->state : GS_CE_FREE;
    if (was == GS_CE_SEEN && e->rest) { /* resting: copied, not tracked */
        e->rest--;
        e->used = ++gs_c.clock;
        pthread_mutex_unlock(&gs_c.lock);
        return NULL;
    }
    if (was == GS_CE_BUSY || was == GS_CE_VALID) { /* BUSY: the same matrix twice in one call (A @ A.T) */
        e->state = GS_CE_BUSY;
        e->used = ++gs_c.clock;
        b->dev = e->mem;
        b->slot = (int)(e - gs_c.e);
    }
    pthread_mutex_unlock(&gs_c.lock);
    if (was == GS_CE_BUSY || was == GS_CE_VALID) {
        b->hit = was == GS_CE_VALID && in && gs_wp_clean(lo, hi, !e->verified) &&
                 gs_edge_check(b->slot, h, lo, hi, false);
        e->verified |= b->hit;
        e->stale = b->hit ? 0 : e->stale + (was == GS_CE_VALID);
        if (e->origin && was == GS_CE_VALID && in) /* an output's next read (origin.h) */
            gs_origin_read(e->origin, !b->hit);
        e->origin = out && !in ? b->origin : 0;
        if (e->stale >= GS_CACHE_STALE && bytes >= GS_CACHE_REST_MIN)
            return gs_cache_retire(e, b);
        return e;
    }
    /* A new entry: for an operand only read, on its second use (protecting costs more than one copy of a
     * matrix in 4 KiB pages, and most operands are used once); the pages must be trackable, and there must be
     * room, in the table (the device's least recently used entry goes when it is full) and on the device. */
    if ((!out && !again) || (out && b->origin && !gs_origin_keeps(b->origin)))
        return NULL;
    pthread_mutex_lock(&gs_c.lock);
    gs_centry_t *old;
    if (!gs_cache_slot() && (old = gs_cache_oldest(dev)))
        old->state = GS_CE_DEAD;
    pthread_mutex_unlock(&gs_c.lock);
    gs_cache_call(dev);
    char *mem;
    if (gs_wp_register(lo, hi) != GS_OK || !(mem = gs_cache_alloc(dev, bytes, &bytes)))
        return NULL;
    pthread_mutex_lock(&gs_c.lock);
    if (!(e = gs_cache_find(dev, h)) || e->state != GS_CE_SEEN)
        e = gs_cache_slot();
    if (e) {
        *e = (gs_centry_t){.key = *h, .dev = dev, .lo = lo, .hi = hi, .mem = mem, .bytes = bytes,
                           .state = GS_CE_BUSY, .origin = out ? b->origin : 0, .used = ++gs_c.clock};
        *fresh = true;
        gs_cache_bounds();
        b->dev = mem;
        b->slot = (int)(e - gs_c.e);
    } else {
        gs_c.d[dev].bytes -= bytes;
    }
    pthread_mutex_unlock(&gs_c.lock);
    if (!e) /* every slot is taken by this call's entries: cannot happen with three operands a call */
        gs_cuda.cudaFree(mem);
    return e;
}

/* True when writes can be tracked; otherwise turns the cache off, saying why once. */
static bool gs_cache_ready(void)
{
    const char *why;
    if (gs_wp_ready(&why) == GS_OK)
        return true;
    if (!atomic_exchange(&gs_c.off, true) && !gs.opt.quiet)
        gs_msg("residency cache off: %s; operands are copied on every call (GPUSHIM_CACHE=0 silences this)", why);
    return false;
}

void gs_cache_bind(int dev, const gs_hreg_t *h, bool in, bool out, bool again, uint32_t origin, bool fits,
                   gs_cbind_t *b)
{
    *b = (gs_cbind_t){.out = out, .slot = -1, .origin = origin};
    bool fresh = false;
    gs_centry_t *e =
        fits && gs_cache_eligible(h) && gs_cache_ready() ? gs_cache_take(dev, h, in, out, again, b, &fresh) : NULL;
    if (out)
        gs_cache_writing(h, fresh ? e : NULL);
}

/* gs_wp_protect's report: pages [lo, hi) were written since any entry covering them was made. */
static void gs_cache_written(uintptr_t lo, uintptr_t hi, void *arg)
{
    (void)arg;
    gs_cache_drop_pages(lo, hi);
}

void gs_cache_end(gs_call_t *c, gs_cbind_t *b, int n, bool ok)
{
    for (int i = 0; i < n; i++) {
        if (b[i].slot < 0)
            continue;
        gs_centry_t *e = &gs_c.e[b[i].slot];
        bool out = false, dup = false;
        for (int j = 0; j < n; j++) { /* an entry bound twice: written if either binding writes it */
            out |= b[j].slot == b[i].slot && b[j].out;
            dup |= j < i && b[j].slot == b[i].slot;
        }
        if (dup)
            continue;
        if (b[i].hit && ok && !b[i].unused) {
            c->cache_hits++;
            c->bytes_saved += e->key.width * e->key.cols;
        }
        /* The device copy equals the host's when the call succeeded, or when it failed without writing the
         * operand and the copy was the host's already. */
        bool keep = (ok && !b[i].unused) || (!out && b[i].hit);
        int rc = GS_OK;
        pthread_mutex_lock(&gs_c.lock);
        if (keep && !e->doomed && !(b[i].hit && !out)) { /* hits that are only read stay protected */
            rc = gs_wp_protect(e->lo, e->hi, gs_cache_written, NULL);
            gs_edge_check(b[i].slot, &e->key, e->lo, e->hi, true);
        }
        e->state = keep && !e->doomed && rc == GS_OK ? GS_CE_VALID : GS_CE_DEAD;
        e->doomed = false;
        pthread_mutex_unlock(&gs_c.lock);
    }
}

/* Every entry forgotten without calling CUDA: in a forked child, and after the program's cudaDeviceReset. */
static void gs_cache_wipe(void)
{
    memset(gs_c.e, 0, sizeof gs_c.e);
    for (int d = 0; d < GS_DEVICES_MAX; d++)
        gs_c.d[d].npool = 0, gs_c.d[d].bytes = 0;
    gs_span_clear(&gs_c.span);
}
static void gs_cache_atfork_child(void) { pthread_mutex_init(&gs_c.lock, NULL), gs_cache_wipe(); }
static void gs_cache_reset(void) { pthread_mutex_lock(&gs_c.lock), gs_cache_wipe(), pthread_mutex_unlock(&gs_c.lock); }
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_cache_atfork_child);
GS_LIFE_HOOK(GS_LIFE_DEVICE_RESET, gs_cache_reset);

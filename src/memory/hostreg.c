/* Registration of host buffers that calls use again (hostreg.h).  A small table holds the operands seen
 * lately; the second call that copies the same large range registers it, within GPUSHIM_REGISTERED bytes,
 * least recently used first out.  The memory functions that can give a range other pages are interposed,
 * and drop what they touch before the real function runs.  glibc's free returns large blocks with munmap
 * from inside libc, out of reach of interposition, so free itself is interposed.  When nothing is tracked a
 * hook costs two loads and a compare; among tracked ranges, a binary search (span.h).  If another library's malloc or munmap comes first in the global
 * scope, frees would not reach this file, and nothing is ever registered. */
#include <dlfcn.h>
#include <malloc.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>

#include "memory/cache.h"
#include "memory/hostreg.h"
#include "memory/span.h"

#define GS_REG_SLOTS 64
_Static_assert(GS_REG_SLOTS <= GS_SPAN_MAX, "the span holds every slot's range");

typedef enum {
    GS_RS_FREE,
    GS_RS_SEEN,        /* copied once */
    GS_RS_REFUSED,     /* CUDA would not register it: staged, not tried again */
    GS_RS_REGISTERING, /* cudaHostRegister running, outside the lock */
    GS_RS_LIVE,
    GS_RS_DOOMED, /* unmapped while being registered: unregister when that returns */
} gs_rstate_t;

typedef struct {
    uintptr_t lo, hi;
    gs_rstate_t state;
    uint64_t used; /* clock of the last use */
    uint64_t call; /* the call of the last use */
} gs_range_t;

static struct {
    pthread_mutex_t lock; /* guards the table, clock and bytes; never held across a CUDA call */
    gs_range_t r[GS_REG_SLOTS];
    uint64_t clock, call;
    size_t bytes;           /* registered or being registered */
    gs_span_t span;          /* bounds of every tracked range, for the hooks' fast path */
    atomic_int usable;      /* 0 untested, 1 the hooks see every free, -1 they may not */
} gs_reg = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Set while this thread is inside CUDA for a registration: the driver's own frees need no look-up, and
 * must not take the lock. */
static _Thread_local int gs_reg_inside __attribute__((tls_model("initial-exec")));

static bool gs_reg_range(int i, uintptr_t *lo, uintptr_t *hi)
{
    *lo = gs_reg.r[i].lo, *hi = gs_reg.r[i].hi;
    return gs_reg.r[i].state != GS_RS_FREE;
}

/* Called with the lock held after the table changed. */
static void gs_reg_bounds(void)
{
    gs_span_update(&gs_reg.span, GS_REG_SLOTS, gs_reg_range);
}

static void gs_reg_unregister(uintptr_t lo)
{
    gs_reg_inside = 1;
    gs_cuda.cudaHostUnregister((void *)lo); /* after CUDA's own teardown at exit this fails, harmlessly */
    gs_reg_inside = 0;
}

/* Drops every tracked range that overlaps [lo, hi): the memory there is about to change hands. */
static void gs_reg_forget(uintptr_t lo, uintptr_t hi)
{
    if (gs_span_misses(&gs_reg.span, lo, hi) || gs_reg_inside)
        return;
    uintptr_t drop[GS_REG_SLOTS];
    int n = 0;
    pthread_mutex_lock(&gs_reg.lock);
    for (int i = 0; i < GS_REG_SLOTS; i++) {
        gs_range_t *r = &gs_reg.r[i];
        if (r->state == GS_RS_FREE || r->hi <= lo || r->lo >= hi)
            continue;
        if (r->state == GS_RS_REGISTERING) {
            r->state = GS_RS_DOOMED;
            continue;
        }
        if (r->state == GS_RS_LIVE) {
            drop[n++] = r->lo;
            gs_reg.bytes -= r->hi - r->lo;
        }
        if (r->state != GS_RS_DOOMED)
            r->state = GS_RS_FREE;
    }
    gs_reg_bounds();
    pthread_mutex_unlock(&gs_reg.lock);
    for (int i = 0; i < n; i++)
        gs_reg_unregister(drop[i]);
}

/* The real definition of an interposed memory function, resolved once.  NULL only while dlsym itself is
 * resolving it (a free made by dlsym is then leaked, once).  The flag is volatile because glibc declares dlsym
 * a leaf function, one that never calls back into this file, so the compiler dropped the store before the
 * call; but dlsym does call free (glibc 2.39's loader, inside a dlopen), which recursed until the stack ran out
 * (tests/t_loading.sh, "dlsym that frees"). */
static _Thread_local volatile int gs_hook_resolving __attribute__((tls_model("initial-exec")));
static void *gs_hook_real(_Atomic(void *) *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    if (f || gs_hook_resolving)
        return f;
    gs_hook_resolving = 1;
    f = dlsym(RTLD_NEXT, name);
    gs_hook_resolving = 0;
    atomic_store_explicit(slot, f, memory_order_release);
    return f;
}

#define GS_X_SLOT(f) static _Atomic(void *) gs_real_##f;
GS_MEMORY_HOOKS(GS_X_SLOT)
#undef GS_X_SLOT
#define GS_REAL(f) ((__typeof__(&f))gs_hook_real(&gs_real_##f, #f))

/* [lo, hi) is about to change hands: registrations and cached device copies (cache.h) that overlap it go. */
static void gs_forget(uintptr_t lo, uintptr_t hi)
{
    gs_reg_forget(lo, hi);
    gs_cache_forget(lo, hi);
}

/* Drops what overlaps the malloc block at p, which is about to be freed or moved. */
static void gs_forget_block(void *p)
{
    if (p && (gs_span_below(&gs_reg.span, (uintptr_t)p) || gs_cache_below((uintptr_t)p)))
        gs_forget((uintptr_t)p, (uintptr_t)p + malloc_usable_size(p));
}

GS_EXPORT void free(void *p)
{
    gs_forget_block(p);
    __typeof__(&free) real = GS_REAL(free);
    if (real)
        real(p);
}

GS_EXPORT void *realloc(void *p, size_t n)
{
    gs_forget_block(p);
    return GS_REAL(realloc)(p, n);
}

/* glibc's reallocarray calls its realloc internally, out of sight of the hook above. */
GS_EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    gs_forget_block(p);
    return GS_REAL(reallocarray)(p, n, size);
}

GS_EXPORT int munmap(void *p, size_t n)
{
    gs_forget((uintptr_t)p, (uintptr_t)p + n);
    return GS_REAL(munmap)(p, n);
}

GS_EXPORT void *mremap(void *p, size_t old, size_t n, int flags, ...)
{
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        to = va_arg(ap, void *);
        va_end(ap);
        gs_forget((uintptr_t)to, (uintptr_t)to + n);
    }
    gs_forget((uintptr_t)p, (uintptr_t)p + old);
    return GS_REAL(mremap)(p, old, n, flags, to);
}

GS_EXPORT int madvise(void *p, size_t n, int advice)
{
    /* Advice that keeps the pages where they are; anything else (DONTNEED, FREE, REMOVE, ...) may not. */
    switch (advice) {
    case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED: case MADV_HUGEPAGE:
    case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
        break;
    default:
        gs_forget((uintptr_t)p, (uintptr_t)p + n);
    }
    return GS_REAL(madvise)(p, n, advice);
}

GS_EXPORT void *mmap(void *p, size_t n, int prot, int flags, int fd, off_t off)
{
    if (flags & MAP_FIXED) /* replaces whatever was mapped there */
        gs_forget((uintptr_t)p, (uintptr_t)p + n);
    return GS_REAL(mmap)(p, n, prot, flags, fd, off);
}

GS_EXPORT void *mmap64(void *p, size_t n, int prot, int flags, int fd, off64_t off)
{
    if (flags & MAP_FIXED)
        gs_forget((uintptr_t)p, (uintptr_t)p + n);
    return GS_REAL(mmap64)(p, n, prot, flags, fd, off);
}

/* True when the global scope's definition of name is this library's own.  (Comparing with the address of
 * the hook would not do: an exported function's address is itself taken through the global scope.) */
static bool gs_reg_ours(const char *name)
{
    Dl_info global, self;
    void *f = dlsym(RTLD_DEFAULT, name);
    return f && dladdr(f, &global) && dladdr((void *)gs_reg_ours, &self) && global.dli_fbase == self.dli_fbase;
}

/* True when every memory function a program calls reaches the hooks above. */
static bool gs_reg_hooks_first(void)
{
    int u = atomic_load_explicit(&gs_reg.usable, memory_order_relaxed);
    if (u == 0) {
        u = 1;
#define GS_X_CHECK(f) \
    if (!gs_reg_ours(#f)) \
        u = -1;
        GS_MEMORY_HOOKS(GS_X_CHECK)
#undef GS_X_CHECK
        atomic_store_explicit(&gs_reg.usable, u, memory_order_relaxed);
    }
    return u > 0;
}

/* The least recently used live range that the current call does not use, or NULL: operands of one call
 * never evict each other, so a call whose operands exceed the budget keeps the first registered rather than
 * registering each in turn on every call. */
static gs_range_t *gs_reg_lru(void)
{
    gs_range_t *best = NULL;
    for (int i = 0; i < GS_REG_SLOTS; i++)
        if (gs_reg.r[i].state == GS_RS_LIVE && gs_reg.r[i].call != gs_reg.call &&
            (!best || gs_reg.r[i].used < best->used))
            best = &gs_reg.r[i];
    return best;
}

void gs_hostreg_call(void)
{
    pthread_mutex_lock(&gs_reg.lock);
    gs_reg.call++;
    pthread_mutex_unlock(&gs_reg.lock);
}

void gs_hostreg_use(const void *p, size_t bytes)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    double budget = gs.opt.registered;
    if (bytes < GS_HOSTREG_MIN || budget < (double)bytes || !gs_reg_hooks_first())
        return;
    pthread_mutex_lock(&gs_reg.lock);
    gs_range_t *seen = NULL, *slot = NULL;
    for (int i = 0; i < GS_REG_SLOTS && !seen; i++) {
        gs_range_t *r = &gs_reg.r[i];
        if (r->state == GS_RS_LIVE && lo >= r->lo && hi <= r->hi) {
            r->used = ++gs_reg.clock;
            r->call = gs_reg.call;
            pthread_mutex_unlock(&gs_reg.lock);
            return;
        }
        if ((r->state == GS_RS_SEEN || r->state == GS_RS_REFUSED) && r->lo == lo && r->hi == hi)
            seen = r;
        else if (r->state == GS_RS_FREE) /* a free slot for a new sighting, else the oldest seen one */
            slot = !slot || slot->state != GS_RS_FREE ? r : slot;
        else if (r->state == GS_RS_SEEN && (!slot || (slot->state == GS_RS_SEEN && r->used < slot->used)))
            slot = r;
    }
    if (!seen || seen->state == GS_RS_REFUSED) {
        if (!seen && slot)
            *slot = (gs_range_t){lo, hi, GS_RS_SEEN, ++gs_reg.clock, gs_reg.call};
        gs_reg_bounds();
        pthread_mutex_unlock(&gs_reg.lock);
        return;
    }
    /* Seen before: register, making room by dropping the least recently used, if that can make room. */
    size_t evictable = 0;
    for (int i = 0; i < GS_REG_SLOTS; i++)
        if (gs_reg.r[i].state == GS_RS_LIVE && gs_reg.r[i].call != gs_reg.call)
            evictable += gs_reg.r[i].hi - gs_reg.r[i].lo;
    if ((double)(gs_reg.bytes - evictable + bytes) > budget) {
        seen->used = ++gs_reg.clock;
        pthread_mutex_unlock(&gs_reg.lock);
        return;
    }
    uintptr_t drop[GS_REG_SLOTS];
    int n = 0;
    gs_range_t *old;
    while ((double)(gs_reg.bytes + bytes) > budget && (old = gs_reg_lru())) {
        drop[n++] = old->lo;
        gs_reg.bytes -= old->hi - old->lo;
        old->state = GS_RS_FREE;
    }
    seen->call = gs_reg.call;
    seen->state = GS_RS_REGISTERING;
    gs_reg.bytes += bytes;
    gs_reg_bounds();
    pthread_mutex_unlock(&gs_reg.lock);
    for (int i = 0; i < n; i++)
        gs_reg_unregister(drop[i]);
    gs_reg_inside = 1;
    int st = GS_CALLED(cudaHostRegister, ((void *)p, bytes, cudaHostRegisterDefault));
    if (st)
        gs_cuda.cudaGetLastError(); /* a refusal is not left pending for the libraries' launches (cuda_call.c) */
    gs_reg_inside = 0;
    pthread_mutex_lock(&gs_reg.lock);
    bool doomed = seen->state == GS_RS_DOOMED;
    seen->used = ++gs_reg.clock;
    seen->state = doomed ? GS_RS_FREE : st ? GS_RS_REFUSED : GS_RS_LIVE;
    if (doomed || st)
        gs_reg.bytes -= bytes;
    gs_reg_bounds();
    pthread_mutex_unlock(&gs_reg.lock);
    if (doomed && st == 0)
        gs_reg_unregister(lo);
}

bool gs_hostreg_has(const void *p, size_t bytes)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    bool live = false;
    pthread_mutex_lock(&gs_reg.lock);
    for (int i = 0; i < GS_REG_SLOTS && !live; i++)
        live = gs_reg.r[i].state == GS_RS_LIVE && lo >= gs_reg.r[i].lo && hi <= gs_reg.r[i].hi;
    pthread_mutex_unlock(&gs_reg.lock);
    return live;
}

/* Every registration forgotten without calling CUDA: in a forked child (the lock as new), and after the
 * program's cudaDeviceReset, which dropped them. */
static void gs_hostreg_forget_all(void)
{
    memset(gs_reg.r, 0, sizeof gs_reg.r);
    gs_reg.bytes = 0;
    gs_span_clear(&gs_reg.span);
}
static void gs_hostreg_atfork_child(void) { pthread_mutex_init(&gs_reg.lock, NULL), gs_hostreg_forget_all(); }
static void gs_hostreg_reset(void)
{
    pthread_mutex_lock(&gs_reg.lock), gs_hostreg_forget_all(), pthread_mutex_unlock(&gs_reg.lock);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_hostreg_atfork_child);
GS_LIFE_HOOK(GS_LIFE_DEVICE_RESET, gs_hostreg_reset);

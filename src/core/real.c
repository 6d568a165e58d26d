/* The CPU library's own entry points.  Each is resolved on first use and cached; the cache is a table of
 * atomic pointers, so concurrent first calls from several threads resolve the same value and publish it
 * safely.  RTLD_NEXT sees only the global scope, but Python loads extension modules (and the BLAS they
 * bring, such as NumPy's libscipy_openblas64_) with RTLD_LOCAL, so every loaded object is searched next
 * (tests/progs/rtld_local_main.c pins this).  gpushim's own definitions are never returned. */
#include <dlfcn.h>
#include <link.h>

#include "core/gs.h"

#define GS_MAX_OBJECTS 1024

static _Atomic(void *) gs_real_cache[GS_NENTRIES];
static atomic_bool gs_real_reported[GS_NENTRIES];

static void *gs_self_base(void)
{
    Dl_info info;
    return dladdr((void *)gs_self_base, &info) ? info.dli_fbase : NULL;
}

static bool gs_is_self(void *sym)
{
    Dl_info info;
    return dladdr(sym, &info) && info.dli_fbase == gs_self_base();
}

typedef struct {
    const char *names[GS_MAX_OBJECTS];
    int n;
} gs_objects_t;

/* Only collects names: dlopen is not called while dl_iterate_phdr holds the loader's lock. */
static int gs_collect(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    gs_objects_t *o = data;
    if (info->dlpi_name && info->dlpi_name[0] && o->n < GS_MAX_OBJECTS)
        o->names[o->n++] = info->dlpi_name;
    return 0;
}

static void *gs_real_lookup(const char *symbol)
{
    void *f = dlsym(RTLD_NEXT, symbol);
    if (f && !gs_is_self(f))
        return f;
    static gs_objects_t objects; /* large; only touched under the lock below */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    objects.n = 0;
    dl_iterate_phdr(gs_collect, &objects);
    f = NULL;
    for (int i = 0; i < objects.n && !f; i++) {
        void *h = dlopen(objects.names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (!h)
            continue;
        f = dlsym(h, symbol);
        if (f && gs_is_self(f))
            f = NULL;
        dlclose(h);
    }
    pthread_mutex_unlock(&lock);
    return f;
}

void *gs_real_resolve(_Atomic(void *) *slot, atomic_bool *reported, const char *symbol, const char *otherwise)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    if (__builtin_expect(f != NULL, 1))
        return f;
    f = gs_real_lookup(symbol);
    if (f)
        atomic_store_explicit(slot, f, memory_order_release);
    else if (!atomic_exchange(reported, true))
        gs_msg("no loaded library provides %s: %s", symbol, otherwise);
    return f;
}

void *gs_real(unsigned e)
{
    void *f = atomic_load_explicit(&gs_real_cache[e], memory_order_acquire);
    if (__builtin_expect(f != NULL, 1)) /* every call that stays on the CPU passes here */
        return f;
    return gs_real_resolve(&gs_real_cache[e], &gs_real_reported[e], gs_entries[e].symbol,
                           "calls to it that stay on the CPU are skipped");
}

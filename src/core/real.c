/* The CPU library's own entry points.  Each is resolved on first use and cached; the cache is a table of
 * atomic pointers, so concurrent first calls from several threads resolve the same value and publish it
 * safely.  RTLD_NEXT sees only the global scope, but Python loads extension modules (and the BLAS they
 * bring, such as NumPy's libscipy_openblas64_) with RTLD_LOCAL, so every loaded object is searched next
 * (tests/progs/rtld_local_main.c pins this).  gpushim's own definitions are never returned.  Where two
 * loaded libraries define the same routines (PyPI's pyFFTW bundles an FFTW beside the system's), a caller's
 * own scope decides which one it reaches: gs_real_caller, with a small table of such libraries. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "core/gs.h"

#define GS_MAX_OBJECTS 1024

static _Atomic(void *) gs_real_cache[GS_NENTRIES];
static atomic_bool gs_real_reported[GS_NENTRIES];
static pthread_mutex_t gs_real_lock = PTHREAD_MUTEX_INITIALIZER; /* guards gs_real_lookup's scan */

/* The loaded object holding addr, or NULL.  _dl_find_object (glibc 2.35) takes no lock and costs nanoseconds,
 * where dladdr scans the object's symbols (microseconds for FFTW's); dladdr1 covers an object it does not list
 * yet, and an older C library. */
static const struct link_map *gs_map_of(const void *addr)
{
#ifdef DLFO_STRUCT_HAS_EH_DBASE /* <dlfcn.h> declares _dl_find_object */
    struct dl_find_object o;
    if (_dl_find_object((void *)addr, &o) == 0)
        return o.dlfo_link_map;
#endif
    Dl_info info;
    struct link_map *m = NULL;
    return dladdr1(addr, &info, (void **)&m, RTLD_DL_LINKMAP) ? m : NULL;
}

/* Whether sym is gpushim's: this copy's, or another copy's loaded beside it under another name (a wheel's library
 * and a preloaded one), which defines gpushim_version itself.  Each copy taking the other's entry for the CPU
 * library's called the other back until the stack ran out (tests/t_loading.sh, "two copies"). */
static bool gs_is_self(const void *sym)
{
    const struct link_map *m = gs_map_of(sym);
    if (!m || m == gs_map_of((const void *)gs_map_of))
        return m != NULL;
    void *h = m->l_name[0] ? dlopen(m->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h)
        return false;
    const void *v = dlsym(h, "gpushim_version");
    dlclose(h);
    return v && gs_map_of(v) == m;
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

/* symbol in the scope of the loaded object at path (dlsym on its handle searches the object, then its
 * dependencies, where LD_PRELOAD's gpushim is not), unless that is gpushim's own; NULL when none.  RTLD_NOLOAD:
 * never loads anything.  The main program ("") is left out: its scope is the global one, gpushim's first. */
static void *gs_lookup_in(const char *path, const char *symbol)
{
    void *h = path[0] ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h)
        return NULL;
    void *f = dlsym(h, symbol);
    dlclose(h);
    return f && !gs_is_self(f) ? f : NULL;
}

static void *gs_real_lookup(const char *symbol)
{
    void *f = dlsym(RTLD_NEXT, symbol);
    if (f && !gs_is_self(f))
        return f;
    static gs_objects_t objects; /* large; only touched under the lock */
    pthread_mutex_lock(&gs_real_lock);
    objects.n = 0;
    dl_iterate_phdr(gs_collect, &objects);
    f = NULL;
    for (int i = 0; i < objects.n && !f; i++)
        f = gs_lookup_in(objects.names[i], symbol);
    pthread_mutex_unlock(&gs_real_lock);
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

int gs_real_entry(int r)
{
    static atomic_int chosen[GS_NROUTINES]; /* the entry + 1; 0 while none is found */
    int k = atomic_load_explicit(&chosen[r], memory_order_relaxed);
    if (k)
        return k - 1;
    for (unsigned e = 0; e < GS_NENTRIES; e++) {
        if (gs_entries[e].routine != r || gs_entries[e].cblas)
            continue;
        void *f = atomic_load_explicit(&gs_real_cache[e], memory_order_acquire);
        if (!f && (f = gs_real_lookup(gs_entries[e].symbol)) != NULL)
            atomic_store_explicit(&gs_real_cache[e], f, memory_order_release);
        if (f) {
            atomic_store_explicit(&chosen[r], (int)e + 1, memory_order_relaxed);
            return (int)e;
        }
    }
    return -1;
}

/* ---- the libraries of callers that reach another definition --------------------------------------------- */

static struct {
    pthread_mutex_t lock;                      /* guards adding a library */
    atomic_int n;                              /* libraries 1 to n are filled in; raised after each (release) */
    const struct link_map *map[GS_REAL_LIBS];  /* library i + 1's object: the key */
    char path[GS_REAL_LIBS][4096];             /* its file, which dlopen finds it by */
    _Atomic(void *) entry[GS_NENTRIES][GS_REAL_LIBS]; /* its entries, resolved on first use */
    atomic_bool full;                          /* a library found no place: reported once */
} gs_libs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int gs_lib_find(const struct link_map *m, int n)
{
    for (int i = 0; i < n; i++)
        if (gs_libs.map[i] == m)
            return i + 1;
    return 0;
}

/* The number of the library that defines f, which is added to the table if it is new; 0 when the table is
 * full (reported once) or f is in no library's file. */
static int gs_lib_of(const void *f, const char *symbol)
{
    const struct link_map *m = gs_map_of(f);
    if (!m || !m->l_name[0])
        return 0;
    int lib = gs_lib_find(m, atomic_load_explicit(&gs_libs.n, memory_order_acquire));
    if (lib)
        return lib;
    pthread_mutex_lock(&gs_libs.lock);
    int n = atomic_load_explicit(&gs_libs.n, memory_order_relaxed);
    lib = gs_lib_find(m, n);
    if (!lib && n < GS_REAL_LIBS && strlen(m->l_name) < sizeof gs_libs.path[n]) {
        gs_libs.map[n] = m;
        snprintf(gs_libs.path[n], sizeof gs_libs.path[n], "%s", m->l_name);
        atomic_store_explicit(&gs_libs.n, n + 1, memory_order_release);
        lib = n + 1;
    }
    pthread_mutex_unlock(&gs_libs.lock);
    if (!lib && !atomic_exchange(&gs_libs.full, true))
        gs_msg("%s: more than %d other libraries define it; calls from %s go to the first library's", symbol,
               GS_REAL_LIBS, m->l_name);
    return lib;
}

void *gs_real_caller(const void *caller, void *def, const char *symbol, int *lib)
{
    *lib = 0;
    const struct link_map *m = caller ? gs_map_of(caller) : NULL;
    if (!m || (def && m == gs_map_of(def))) /* a call from def's own library (FFTW's nested planners) */
        return def;
    void *f = gs_lookup_in(m->l_name, symbol);
    if (!f || f == def) /* the common case: one library, or a caller whose scope has none */
        return def;
    /* The loader binds a reference in the global scope before the caller's own (RTLD_DEEPBIND aside): a
     * definition there is the one the caller reaches (tests/t_fftw.sh, "two FFTWs, the first in the global
     * scope"). */
    void *g = dlsym(RTLD_NEXT, symbol);
    if (g && !gs_is_self(g))
        f = g;
    if (f == def)
        return def;
    *lib = gs_lib_of(f, symbol);
    return *lib ? f : def;
}

int gs_real_libs(void)
{
    return atomic_load_explicit(&gs_libs.n, memory_order_relaxed);
}

void *gs_real_lib(int lib, _Atomic(void *) *slots, const char *symbol)
{
    if (lib < 1 || lib > atomic_load_explicit(&gs_libs.n, memory_order_acquire))
        return NULL;
    void *f = atomic_load_explicit(&slots[lib - 1], memory_order_acquire);
    if (f)
        return f;
    f = gs_lookup_in(gs_libs.path[lib - 1], symbol);
    if (f)
        atomic_store_explicit(&slots[lib - 1], f, memory_order_release);
    return f;
}

void *gs_real_lib_entry(int lib, unsigned e)
{
    return gs_real_lib(lib, gs_libs.entry[e], gs_entries[e].symbol);
}

/* A forked child keeps the tables but not a lock another thread of the parent may have held at the fork. */
static void gs_real_atfork_child(void)
{
    pthread_mutex_init(&gs_real_lock, NULL);
    pthread_mutex_init(&gs_libs.lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_real_atfork_child);

/* Calls from inside a CPU library (site.h, gs_site_cpu_library): whether the code a call returns to lies in an
 * object that defines a routine of the table itself, so that the call is that library's own. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <unistd.h>

#include "log/site.h"

/* The addresses that a loaded object's segments span, found by the address its mapping starts at. */
typedef struct {
    uintptr_t base, lo, hi;
} gs_span_t;

static int gs_span_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    gs_span_t *s = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            lo = a < lo ? a : lo;
            hi = a + info->dlpi_phdr[i].p_memsz > hi ? a + info->dlpi_phdr[i].p_memsz : hi;
        }
    lo &= ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1); /* the mapping starts at the page */
    if (s->base < lo || s->base >= hi)
        return 0;
    s->lo = lo, s->hi = hi;
    return 1;
}

/* Whether the loaded object whose base address is base defines a symbol of the routine table itself, not
 * through a dependency (dlsym on its handle searches those too) and not gpushim.  A symbol found is the
 * object's own when its address lies within the object's segments: dladdr would say so too, but it reads the
 * symbol table of the object it finds from start to end (NumPy's module leads every look-up to OpenBLAS's,
 * and the process's first large call took 30 ms more on the H200 machine). */
static bool gs_object_defines_routines(const char *path, const void *base)
{
    Dl_info self;
    gs_span_t span = {.base = (uintptr_t)base};
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h || !dladdr((void *)gs_site_cpu_library, &self) || self.dli_fbase == base ||
        !dl_iterate_phdr(gs_span_of, &span)) {
        if (h)
            dlclose(h);
        return false;
    }
    bool found = false;
    for (unsigned e = 0; e < GS_NENTRIES && !found; e++) {
        uintptr_t p = (uintptr_t)dlsym(h, gs_entries[e].symbol);
        found = p >= span.lo && p < span.hi;
    }
    dlclose(h);
    return found;
}

/* Return addresses asked about: ret[h] -> 1 (a CPU library's) or 2 (not), and the objects they lay in, by base
 * address, with the same answer, so that an object's symbols are looked up once however many places in it
 * call.  Never removed; full, an address or object is looked up each time.  The look-ups run without the lock:
 * dlopen takes the loader's lock, which a thread in a library's constructor holds while its BLAS calls come
 * here. */
#define GS_NRET 1024
#define GS_NOBJ 64
static struct {
    pthread_mutex_t lock;
    uintptr_t ret[GS_NRET];
    uint8_t lib[GS_NRET];
    const void *obj[GS_NOBJ];
    uint8_t obj_lib[GS_NOBJ];
    int nobj;
} gs_rets = {.lock = PTHREAD_MUTEX_INITIALIZER};
/* The last answer of each thread: a loop calls from one place. */
static _Thread_local uintptr_t gs_ret_last __attribute__((tls_model("initial-exec")));
static _Thread_local bool gs_ret_last_lib __attribute__((tls_model("initial-exec")));

/* The slot of ip in gs_rets: its own, a free one, or GS_NRET when full; under the lock. */
static size_t gs_ret_slot(uintptr_t ip)
{
    size_t h = (ip >> 4) * 0x9e3779b97f4a7c15ull >> 54;
    for (size_t k = 0; k < GS_NRET; k++, h = (h + 1) % GS_NRET)
        if (!gs_rets.ret[h] || gs_rets.ret[h] == ip)
            return h;
    return GS_NRET;
}

/* The answer for the object at base, 1 or 2, or 0 when not known; under the lock. */
static uint8_t gs_obj_known(const void *base)
{
    for (int i = 0; i < gs_rets.nobj; i++)
        if (gs_rets.obj[i] == base)
            return gs_rets.obj_lib[i];
    return 0;
}

/* Whether the code at return address ip is in a CPU library, looked up (not cached by address). */
static bool gs_ret_lookup(uintptr_t ip)
{
    Dl_info d;
    if (!dladdr((void *)(ip - 1), &d) || !d.dli_fname)
        return false;
    pthread_mutex_lock(&gs_rets.lock);
    uint8_t known = gs_obj_known(d.dli_fbase);
    pthread_mutex_unlock(&gs_rets.lock);
    if (known)
        return known == 1;
    bool lib = gs_object_defines_routines(d.dli_fname, d.dli_fbase);
    pthread_mutex_lock(&gs_rets.lock);
    if (!gs_obj_known(d.dli_fbase) && gs_rets.nobj < GS_NOBJ)
        gs_rets.obj[gs_rets.nobj] = d.dli_fbase, gs_rets.obj_lib[gs_rets.nobj++] = lib ? 1 : 2;
    pthread_mutex_unlock(&gs_rets.lock);
    return lib;
}

bool gs_site_cpu_library(const void *ret)
{
    uintptr_t ip = (uintptr_t)ret;
    if (ip == gs_ret_last)
        return gs_ret_last_lib;
    int err = errno;
    pthread_mutex_lock(&gs_rets.lock);
    size_t h = gs_ret_slot(ip);
    uint8_t known = h < GS_NRET && gs_rets.ret[h] == ip ? gs_rets.lib[h] : 0;
    pthread_mutex_unlock(&gs_rets.lock);
    bool lib = known == 1;
    if (!known) {
        lib = gs_ret_lookup(ip);
        pthread_mutex_lock(&gs_rets.lock);
        if ((h = gs_ret_slot(ip)) < GS_NRET)
            gs_rets.ret[h] = ip, gs_rets.lib[h] = lib ? 1 : 2;
        pthread_mutex_unlock(&gs_rets.lock);
    }
    gs_ret_last = ip, gs_ret_last_lib = lib;
    errno = err;
    return lib;
}

/* In a forked child: the table's lock, which another thread of the parent may have held. */
static void gs_rets_atfork_child(void)
{
    pthread_mutex_init(&gs_rets.lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_rets_atfork_child);

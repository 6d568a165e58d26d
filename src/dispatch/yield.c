/* Sharing the device with the program's own GPU work (PyTorch, CuPy, JAX in the same process).  The residency
 * cache may hold tens of GB between calls; a framework that then asks for most of the device must not fail
 * because of it.  So the CUDA allocation functions a framework calls are interposed: each is passed on to the
 * definition the caller would have bound without the shim, and when it fails for lack of memory the shim
 * gives back the device memory it holds between calls (the backend's release) and the allocation is tried
 * once more.  Never while the calling thread is inside a GPU call of the shim's (cuBLAS, cuSOLVER and cuFFT
 * allocate through these too): that call handles its own shortage. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"

/* Counts the bytes given back and says so once in the log. */
static atomic_ullong gs_yielded;

/* The definition of name that the object at caller binds without the shim: its own dependencies' (a Python
 * extension module loaded RTLD_LOCAL has its CUDA library out of the global scope), else that of the first
 * loaded object whose file name starts with lib (libcudart.so, libcuda.so), never self. */
typedef struct {
    const char *name, *lib;
    void *self, *found;
} gs_next_t;

static void *gs_next_in(const char *path, const gs_next_t *w)
{
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *f = dlsym(h, w->name);
    dlclose(h);
    return f == w->self ? NULL : f;
}

static int gs_next_scan(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    gs_next_t *w = arg;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, w->lib, strlen(w->lib)) == 0)
        w->found = gs_next_in(info->dlpi_name, w);
    return w->found != NULL;
}

static void *gs_next(const char *name, const char *lib, void *self, const void *caller)
{
    gs_next_t w = {name, lib, self, NULL};
    Dl_info info;
    struct link_map *lm = NULL;
    if (dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) && lm && lm->l_name[0])
        w.found = gs_next_in(lm->l_name, &w);
    if (!w.found)
        dl_iterate_phdr(gs_next_scan, &w);
    return w.found;
}

/* Gives back what the shim holds on the device between calls, after an allocation of the program's failed;
 * true when something was given back, so that the allocation is worth trying again.  Waits for a call of the
 * shim's on another thread to end: the memory is the calls' own while they run. */
static bool gs_yield(void)
{
    if (gs_gpu_mine || atomic_load_explicit(&gs.gpu_state, memory_order_acquire) != GS_GPU_UP)
        return false;
    pthread_mutex_lock(&gs.gpu_lock);
    size_t freed = gs_backend->release();
    pthread_mutex_unlock(&gs.gpu_lock);
    if (freed && atomic_fetch_add(&gs_yielded, freed) == 0) {
        char v[32];
        snprintf(v, sizeof v, "%zu", freed);
        gs_log_event_with("yield", "device memory given back to the program's own allocation", "bytes", v);
    }
    return freed > 0;
}

/* The interposed allocation function fn: the caller's own definition, and on out-of-memory a yield and one
 * more try.  The runtime keeps the first failure as its last error, which the caller's next check would
 * read: a retry that succeeds clears it (clear).  3, where no CUDA library is loaded to pass the call to, is
 * "not initialised" in both APIs. */
#define GS_YIELDING(ret, fn, lib, oom, params, args, clear) \
    GS_EXPORT ret fn params \
    { \
        const void *caller = __builtin_return_address(0); \
        ret (*next) params = (ret(*) params)gs_next(#fn, lib, (void *)fn, caller); \
        if (!next) \
            return (ret)3; \
        ret st = next args; \
        if (st != (oom) || !gs_yield()) \
            return st; \
        st = next args; \
        if (st == 0) \
            clear(caller); \
        return st; \
    }

/* Clears the caller's runtime's last error (the driver API keeps none). */
static void gs_clear_runtime(const void *caller)
{
    void *last = gs_next("cudaGetLastError", "libcudart.so", NULL, caller);
    if (last)
        ((cudaError_t(*)(void))last)();
}
static void gs_clear_none(const void *caller) { (void)caller; }

GS_YIELDING(cudaError_t, cudaMalloc, "libcudart.so", cudaErrorMemoryAllocation, (void **p, size_t bytes), (p, bytes),
            gs_clear_runtime)
GS_YIELDING(cudaError_t, cudaMallocAsync, "libcudart.so", cudaErrorMemoryAllocation,
            (void **p, size_t bytes, cudaStream_t s), (p, bytes, s), gs_clear_runtime)
GS_YIELDING(CUresult, cuMemAlloc_v2, "libcuda.so", CUDA_ERROR_OUT_OF_MEMORY, (CUdeviceptr * p, size_t bytes),
            (p, bytes), gs_clear_none)
GS_YIELDING(CUresult, cuMemCreate, "libcuda.so", CUDA_ERROR_OUT_OF_MEMORY,
            (CUmemGenericAllocationHandle * h, size_t bytes, const CUmemAllocationProp *prop,
             unsigned long long flags),
            (h, bytes, prop, flags), gs_clear_none)

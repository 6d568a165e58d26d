/* Sharing the device with the program's own GPU work (PyTorch, CuPy, JAX in the same process).  The residency
 * cache may hold tens of GB between calls; a framework that then asks for most of the device must not fail
 * because of it.  So the CUDA allocation functions a framework reaches are interposed: each is passed on to the
 * definition the caller would have had without the shim, and when it fails for lack of memory the shim gives
 * back the device memory it holds between calls (the backend's release) and the allocation is tried once
 * more.  Never while the calling thread is inside a GPU call of the shim's (cuBLAS, cuSOLVER and cuFFT
 * allocate through these too): that call handles its own shortage.
 *
 * A framework reaches them in one of two ways.  Linked to the CUDA runtime (PyTorch), it calls cudaMalloc by
 * name, which the preloaded shim defines.  With the runtime linked in statically (CuPy, JAX's XLA, and the CUDA
 * libraries themselves), it asks the driver for its entry points: dlsym of cuGetProcAddress in libcuda.so.1,
 * then cuGetProcAddress of each function.  So dlsym is interposed too, on x86-64, and answers the driver
 * functions below with the shim's, and the shim's cuGetProcAddress does the same for what it returns. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"

#undef cuGetProcAddress /* cuda.h's name for cuGetProcAddress_v2; the driver still has the four-argument one */
GS_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags);

/* Counts the bytes given back and says so once in the log. */
static atomic_ullong gs_yielded;

/* ---- finding the real definitions -------------------------------------------------------------------- */

/* The definition of name that the object at caller binds without the shim: its own dependencies' (a Python
 * extension module loaded RTLD_LOCAL has its CUDA runtime out of the global scope), else that of the first
 * loaded object whose file name starts with lib, never self. */
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

/* The driver functions the shim answers for, with its own definitions (below). */
#define GS_DRIVER_HOOKS(X) X(cuMemAlloc_v2) X(cuMemAllocAsync) X(cuMemCreate) X(cuGetProcAddress) X(cuGetProcAddress_v2)
enum {
#define GS_X_ENUM(f) GS_DRV_##f,
    GS_DRIVER_HOOKS(GS_X_ENUM)
#undef GS_X_ENUM
        GS_DRV_N
};
static const char *const gs_drv_names[GS_DRV_N] = {
#define GS_X_NAME(f) #f,
    GS_DRIVER_HOOKS(GS_X_NAME)
#undef GS_X_NAME
};

/* The C library's dlsym, which the interposed one passes every other lookup to (GLIBC_2.34, or libdl's before
 * that); set by gs_dlsym_pick before its first use.  Looked up first as the next definition after the shim's,
 * without dlopen: AddressSanitizer's runtime, preloaded ahead of the shim (make asan), calls dlsym before its
 * own dlopen works.  A shim loaded with dlopen after the C library (`import gpushim`) may find none next: then
 * the C library's by name (tests/t_wheel.sh). */
GS_HIDDEN void *(*gs_dlsym_libc)(void *, const char *);

GS_NO_ASAN static void *(*gs_libc_dlsym(void))(void *, const char *)
{
    void *(*f)(void *, const char *) = __atomic_load_n(&gs_dlsym_libc, __ATOMIC_ACQUIRE);
    if (f)
        return f;
    static const char *const where[][2] = {{"libc.so.6", "GLIBC_2.34"}, {"libdl.so.2", "GLIBC_2.2.5"}};
    for (size_t i = 0; !f && i < sizeof where / sizeof where[0]; i++)
        *(void **)&f = dlvsym(RTLD_NEXT, "dlsym", where[i][1]);
    for (size_t i = 0; !f && i < sizeof where / sizeof where[0]; i++) {
        void *h = dlopen(where[i][0], RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            *(void **)&f = dlvsym(h, "dlsym", where[i][1]);
            dlclose(h);
        }
    }
    __atomic_store_n(&gs_dlsym_libc, f, __ATOMIC_RELEASE);
    return f;
}

/* libcuda.so.1's own definition of hook i, once that library is loaded (NULL before), kept. */
static void *gs_driver_fn(int i)
{
    static void *fn[GS_DRV_N];
    void *f = __atomic_load_n(&fn[i], __ATOMIC_ACQUIRE);
    void *h;
    if (f || !gs_libc_dlsym() || !(h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)))
        return f;
    f = gs_libc_dlsym()(h, gs_drv_names[i]);
    dlclose(h);
    __atomic_store_n(&fn[i], f, __ATOMIC_RELEASE);
    return f;
}

/* f, or the shim's own definition where f is the driver's definition of a hook. */
static void *gs_swap(void *f)
{
    static void *const ours[GS_DRV_N] = {
#define GS_X_OURS(name) (void *)name,
        GS_DRIVER_HOOKS(GS_X_OURS)
#undef GS_X_OURS
    };
    for (int i = 0; f && i < GS_DRV_N; i++)
        if (f == gs_driver_fn(i))
            return ours[i];
    return f;
}

/* The interposed dlsym's decision (the assembly below calls it with dlsym's arguments): the answer for a hook's
 * name, swapped; GS_PASS for every other lookup, which the assembly hands to the C library's dlsym by a jump,
 * so that the C library sees its caller's return address (RTLD_NEXT's meaning depends on it). */
#define GS_PASS ((void *)-1)
GS_HIDDEN GS_NO_ASAN __attribute__((used)) void *gs_dlsym_pick(void *handle, const char *name)
{
    void *(*real)(void *, const char *) = gs_libc_dlsym();
    if (!real || !name || name[0] != 'c' || name[1] != 'u' || handle == RTLD_NEXT)
        return GS_PASS;
    for (int i = 0; i < GS_DRV_N; i++)
        if (strcmp(name, gs_drv_names[i]) == 0)
            return gs_swap(real(handle, name));
    return GS_PASS;
}

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    endbr64\n"
        "    push %rdi\n"
        "    push %rsi\n"
        "    sub $8, %rsp\n" /* the stack aligned to 16 bytes for the call */
        "    call gs_dlsym_pick\n"
        "    add $8, %rsp\n"
        "    pop %rsi\n"
        "    pop %rdi\n"
        "    cmp $-1, %rax\n"
        "    je 1f\n"
        "    ret\n"
        "1:  jmp *gs_dlsym_libc(%rip)\n"
        ".size dlsym, .-dlsym\n");
#endif

/* ---- giving way ------------------------------------------------------------------------------------- */

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

/* The interposed allocation function fn, its real definition found by find: on out-of-memory a yield and one
 * more try.  The runtime keeps the first failure as its last error, which the caller's next check would
 * read: a retry that succeeds clears it (clear).  3, where no CUDA library is loaded to pass the call to, is
 * "not initialised" in both APIs. */
#define GS_YIELDING(ret, fn, oom, params, args, find, clear) \
    GS_EXPORT ret fn params \
    { \
        const void *caller = __builtin_return_address(0); \
        ret (*next) params = (ret(*) params)(find); \
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
#define GS_RUNTIME(fn) gs_next(#fn, "libcudart.so", (void *)fn, caller)
#define GS_DRIVER(fn) gs_driver_fn(GS_DRV_##fn)

/* Clears the caller's runtime's last error (the driver API keeps none). */
static void gs_clear_runtime(const void *caller)
{
    void *last = gs_next("cudaGetLastError", "libcudart.so", NULL, caller);
    if (last)
        ((cudaError_t(*)(void))last)();
}
static void gs_clear_none(const void *caller) { (void)caller; }

GS_YIELDING(cudaError_t, cudaMalloc, cudaErrorMemoryAllocation, (void **p, size_t bytes), (p, bytes),
            GS_RUNTIME(cudaMalloc), gs_clear_runtime)
GS_YIELDING(cudaError_t, cudaMallocAsync, cudaErrorMemoryAllocation, (void **p, size_t bytes, cudaStream_t s),
            (p, bytes, s), GS_RUNTIME(cudaMallocAsync), gs_clear_runtime)
GS_YIELDING(CUresult, cuMemAlloc_v2, CUDA_ERROR_OUT_OF_MEMORY, (CUdeviceptr * p, size_t bytes), (p, bytes),
            GS_DRIVER(cuMemAlloc_v2), gs_clear_none)
GS_YIELDING(CUresult, cuMemAllocAsync, CUDA_ERROR_OUT_OF_MEMORY, (CUdeviceptr * p, size_t bytes, CUstream s),
            (p, bytes, s), GS_DRIVER(cuMemAllocAsync), gs_clear_none)
GS_YIELDING(CUresult, cuMemCreate, CUDA_ERROR_OUT_OF_MEMORY,
            (CUmemGenericAllocationHandle * h, size_t bytes, const CUmemAllocationProp *prop,
             unsigned long long flags),
            (h, bytes, prop, flags), GS_DRIVER(cuMemCreate), gs_clear_none)

/* The program's own cudaDeviceReset destroys all that the shim holds on the device (streams, events, handles,
 * scratch, cached copies, pinned staging): before passing it on, the shim forgets its device memory without
 * calling CUDA and gives the GPU up for the process, after a call of another thread's on it has finished
 * (tests/t_races.sh, "reset"). */
GS_EXPORT cudaError_t cudaDeviceReset(void)
{
    const void *caller = __builtin_return_address(0);
    cudaError_t (*next)(void) = (cudaError_t(*)(void))GS_RUNTIME(cudaDeviceReset);
    if (!next)
        return (cudaError_t)3;
    if (!gs_gpu_mine) {
        pthread_mutex_lock(&gs.gpu_lock);
        if (atomic_load_explicit(&gs.gpu_state, memory_order_relaxed) == GS_GPU_UP) {
            gs_life_run(GS_LIFE_DEVICE_RESET);
            snprintf(gs.gpu_why, sizeof gs.gpu_why, "the program reset the device (cudaDeviceReset)");
            atomic_store_explicit(&gs.gpu_state, GS_GPU_FAILED, memory_order_release);
            gs_log_event("gpu_off", gs.gpu_why);
        }
        pthread_mutex_unlock(&gs.gpu_lock);
    }
    return next();
}

/* The driver's entry points, as it gives them, the hooks' swapped for the shim's. */
GS_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags)
{
    CUresult (*real)(const char *, void **, int, cuuint64_t) = gs_driver_fn(GS_DRV_cuGetProcAddress);
    CUresult st = real ? real(symbol, pfn, cuda_version, flags) : CUDA_ERROR_NOT_INITIALIZED;
    if (st == CUDA_SUCCESS && pfn)
        *pfn = gs_swap(*pfn);
    return st;
}

GS_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cuda_version, cuuint64_t flags,
                                       CUdriverProcAddressQueryResult *status)
{
    CUresult (*real)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) =
        gs_driver_fn(GS_DRV_cuGetProcAddress_v2);
    CUresult st = real ? real(symbol, pfn, cuda_version, flags, status) : CUDA_ERROR_NOT_INITIALIZED;
    if (st == CUDA_SUCCESS && pfn)
        *pfn = gs_swap(*pfn);
    return st;
}

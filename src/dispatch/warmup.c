/* The GPU's bring-up and its state: brought up once, remembered when that fails.  Under GPUSHIM_WARMUP=auto,
 * lazy or eager on a background thread: CUDA's runtime, the context, the streams, cuBLAS and the staging buffers,
 * then each family's library that calls have wanted (cuSOLVER, cuFFT), while the calls that want them run on
 * the CPU; under off, by the first call that wants the GPU (gpu.c).  The thread starts once the call that
 * wanted the GPU has returned, unless that call waits for it: a bring-up slows the CPU library's calls that run
 * meanwhile (the loader's lock, the kernel's page-table work), by up to 4 times on the H200 machine, whatever
 * the thread's priority; at the idle priority it did not finish at all in a process that kept every core
 * busy.  A fork waits for a bring-up under way, so that no child inherits one half done (and the child never
 * uses the GPU: gpu.c); so does an exit. */
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include "dispatch/dispatch.h"
#include "gpushim.h"

const gs_backend_t *const gs_backend = &gs_cuda_backend;

void gs_gpu_disable(const char *what, const char *detail)
{
    snprintf(gs.gpu_why, sizeof gs.gpu_why, "%s: %s", what, detail);
    atomic_store_explicit(&gs.gpu_state, GS_GPU_FAILED, memory_order_release);
    gs_log_event("gpu_off", gs.gpu_why);
    if (!gs.opt.quiet)
        gs_notice("%s; running everything on the CPU", gs.gpu_why);
}

void gs_gpu_up_locked(int (*step)(void))
{
    int s = atomic_load_explicit(&gs.gpu_state, memory_order_relaxed);
    if (s != GS_GPU_UNTRIED && s != GS_GPU_STARTING)
        return;
    uint64_t t0 = gs_now_ns();
    char why[sizeof gs.gpu_why - 32] = "";
    if (gs_backend->up(why, sizeof why, step) == GS_OK) {
        size_t len = strlen(why);
        snprintf(why + len, sizeof why - len, "; up in %.0f ms", (double)(gs_now_ns() - t0) * 1e-6);
        atomic_store_explicit(&gs.gpu_state, GS_GPU_UP, memory_order_release);
        /* (the device by its PCI address: the same on every rank that uses it, whatever the ordinal) */
        gs_log_event_with("gpu", why, "pci", gs.gpu_pci);
    } else
        gs_gpu_disable("no usable GPU", why);
}

bool gs_gpu_ready(int family)
{
    int s = atomic_load_explicit(&gs.gpu_state, memory_order_acquire);
    /* A family without a step of its own (BLAS) was ready with the device: a GPU that a LAPACK call brought up
     * left sk_decomposition's products of X (40000 x 3000) on the CPU, each predicted to wait a tenth of a
     * bring-up for nothing, 11 calls and 0.8 s (H100, 2026-12-07). */
    return s == GS_GPU_FAILED ||
           (s == GS_GPU_UP && (!(gs_backend->prepared >> family & 1) ||
                               atomic_load_explicit(&gs.gpu_ready[family], memory_order_acquire) == 2));
}

double gs_gpu_left(const gs_call_t *c)
{
    /* The routine's first GPU call in the process loads its kernels (first_us), on top of any bring-up. */
    const gs_rule_t *r = &gs_rules[c->routine];
    double first = atomic_load_explicit(&gs.gpu_used[c->routine], memory_order_relaxed) ? 0 : r->first_us * 1e-6;
    int family = gs_ops[gs_routines[c->routine].op].family;
    if (gs_gpu_ready(family))
        return first;
    double expect = r->bringup_us * 1e-6;
    /* Once the GPU is up, a family still needs its library's start (cuSOLVER's or cuFFT's took about 10 ms on
     * the H200 machine; cuBLAS comes up with the GPU): counted as a tenth of the whole. */
    if (atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_UP)
        expect /= 10;
    uint64_t t = atomic_load_explicit(&gs.gpu_wanted_ns[family], memory_order_relaxed);
    double left = expect - (t ? (double)(gs_now_ns() - t) * 1e-9 : 0);
    return first + (left > expect / 10 ? left : expect / 10); /* late: some of it is surely still to come */
}

/* A fork or an exit waits this long at most for a bring-up under way. */
#define GS_WARM_JOIN_S 10

static struct {
    pthread_mutex_t lock; /* guards the rest */
    pthread_cond_t done;  /* broadcast when a step of the bring-up ends */
    unsigned want;        /* families wanted, bit per gs_family_id_t */
    double gained[GS_NFAMILIES]; /* GPUSHIM_WARMUP=auto: seconds the GPU would have saved before the bring-up */
    bool running;         /* the thread is alive */
    bool joinable;        /* thread ran and is not joined yet: its end (thread-local destructors) may be to come */
    pthread_t thread;
    bool exiting;         /* the program is exiting: no further step starts */
} gs_w = {.lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

/* The first family wanted and not ready, or -1. */
static int gs_warm_next(void)
{
    for (int f = 0; f < GS_NFAMILIES; f++)
        if ((gs_w.want >> f & 1) && !gs_gpu_ready(f))
            return f;
    return -1;
}

/* The reasons of a call that the bring-up sends to the CPU: under way, or not begun (GPUSHIM_WARMUP=auto). */
static const char GS_WARM_STARTING[] = "gpu starting (CUDA is being brought up on a background thread)";
static const char GS_WARM_NOT_YET[] =
    "gpu not started: the calls that wanted it have not yet lost what its bring-up takes";

/* The time s seconds from now, for pthread_cond_timedwait. */
static struct timespec gs_warm_until(double s)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    double end = (double)t.tv_sec + t.tv_nsec * 1e-9 + (s < 1e6 ? s : 1e6);
    t.tv_sec = (time_t)end;
    t.tv_nsec = (long)((end - (double)t.tv_sec) * 1e9);
    return t;
}

/* With gs_w.lock held: waits for the thread to end, GS_WARM_JOIN_S at most, and joins it once it has.  Its
 * end still runs the CUDA libraries' thread-local destructors and gives back its allocator's cache, which
 * neither an exit's library destructors nor a fork may overlap: a child forked meanwhile inherits the locks
 * the thread holds there, and an allocator without fork handlers never releases them (AddressSanitizer's
 * runtime of GCC 12: the child hung in its first free; tests/t_asan.sh, "the bring-up's thread ending as the
 * program forks").  A thread still inside a step after GS_WARM_JOIN_S is left running.  The thread takes no
 * lock of gs_w's on its way out. */
static void gs_warm_join_locked(void)
{
    struct timespec until = gs_warm_until(GS_WARM_JOIN_S);
    while (gs_w.running && pthread_cond_timedwait(&gs_w.done, &gs_w.lock, &until) == 0)
        ;
    if (!gs_w.running && gs_w.joinable)
        pthread_join(gs_w.thread, NULL), gs_w.joinable = false;
}

/* At exit: the bring-up stops after the step under way, which exit waits for, so that the CUDA libraries' own
 * exit handlers and destructors never run while the thread is inside them (exits during a bring-up crashed
 * without this on the H200 machine). */
static void gs_warm_atexit(void)
{
    pthread_mutex_lock(&gs_w.lock);
    gs_w.exiting = true;
    gs_warm_join_locked();
    pthread_mutex_unlock(&gs_w.lock);
}

/* The CUDA libraries register exit handlers as they load and start (C++ destructors of their static objects),
 * on the bring-up thread: exit runs those before gs_warm_atexit, registered earlier, so a program exiting during
 * a step would destroy objects the step is using (Python's exits crashed so on the H200 machine).  So after
 * each handler the thread registers, one of gs_warm_atexit's is registered: exit runs handlers last registered
 * first, so each of the libraries' handlers runs after one that waited for the step under way.  No table of
 * wrappers is kept: the CUDA 13 libraries register thousands (cuBLAS with cuBLASLt about 12,600 as they load,
 * cuSOLVER 3,700, cuFFT 300; tests/t_warmup.sh, "exit in a library's step").  The added ones belong to no
 * library (dso NULL): unloading one (dlclose) runs its own handlers only. */
static _Thread_local bool gs_warm_self;

static void gs_warm_barrier(void *unused)
{
    (void)unused;
    gs_warm_atexit();
}

/* The C library's definition of an interposed function, looked up once into *slot.  Not instrumented, nor
 * __register_atfork: another library's constructor may call it before AddressSanitizer's runtime, preloaded
 * ahead of the shim, has set up its shadow memory (scipy-openblas's does: tests/t_asan.sh). */
GS_NO_ASAN static void *gs_warm_libc(_Atomic(void *) *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_relaxed);
    if (!f)
        atomic_store_explicit(slot, f = dlsym(RTLD_NEXT, name), memory_order_relaxed);
    return f;
}

GS_EXPORT int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    static _Atomic(void *) real;
    int (*next)(void (*)(void *), void *, void *) =
        (int (*)(void (*)(void *), void *, void *))gs_warm_libc(&real, "__cxa_atexit");
    if (!next)
        return -1;
    int rc = next(fn, arg, dso);
    if (rc == 0 && gs_warm_self)
        next(gs_warm_barrier, NULL, NULL);
    return rc;
}

/* Between two steps of the bring-up: non-zero when the program is exiting. */
static int gs_warm_step(void)
{
    pthread_mutex_lock(&gs_w.lock);
    bool stop = gs_w.exiting;
    pthread_mutex_unlock(&gs_w.lock);
    return stop;
}

static void *gs_warm_main(void *arg)
{
    (void)arg;
    gs_msg_defer = gs_warm_self = true;
    while (!gs_warm_step()) {
        pthread_mutex_lock(&gs_w.lock);
        int f = gs_warm_next();
        pthread_mutex_unlock(&gs_w.lock);
        if (f < 0)
            break;
        pthread_mutex_lock(&gs.gpu_lock);
        gs_gpu_up_locked(gs_warm_step);
        pthread_mutex_unlock(&gs.gpu_lock);
        if (atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_UP && gs_backend->prepare &&
            !gs_warm_step())
            gs_backend->prepare(f);
        atomic_store_explicit(&gs.gpu_ready[f], 2, memory_order_release);
        pthread_mutex_lock(&gs_w.lock);
        pthread_cond_broadcast(&gs_w.done);
        pthread_mutex_unlock(&gs_w.lock);
    }
    pthread_mutex_lock(&gs_w.lock);
    gs_w.running = false;
    pthread_cond_broadcast(&gs_w.done);
    pthread_mutex_unlock(&gs_w.lock);
    return NULL;
}

int gs_warm_start(int family)
{
    int rc = GS_OK;
    pthread_mutex_lock(&gs_w.lock);
    unsigned char zero = 0;
    if (atomic_compare_exchange_strong(&gs.gpu_ready[family], &zero, 1))
        atomic_store_explicit(&gs.gpu_wanted_ns[family], gs_now_ns(), memory_order_relaxed);
    gs_w.want |= 1u << family;
    if (!gs_w.running && !gs_w.exiting && gs_warm_next() >= 0) {
        /* Before the thread exists: an exit from now on waits for it (gs_warm_atexit). */
        atexit(gs_warm_atexit);
        int untried = GS_GPU_UNTRIED;
        atomic_compare_exchange_strong(&gs.gpu_state, &untried, GS_GPU_STARTING);
        /* The thread blocks every signal, so that the program's handlers run on its own threads only. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        if (gs_w.joinable) /* a thread of an earlier bring-up, ended (it takes no lock on its way out) */
            pthread_join(gs_w.thread, NULL);
        gs_w.running = gs_w.joinable = pthread_create(&gs_w.thread, NULL, gs_warm_main, NULL) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        rc = gs_w.running ? GS_OK : GS_ENODEV; /* then the call brings the GPU up itself */
    }
    pthread_mutex_unlock(&gs_w.lock);
    return rc;
}

/* The share of the CPU's time that the GPU, bring-up included, must stay under for a call to wait for it: a
 * margin for a bring-up slower than the policy says. */
#define GS_WARM_MARGIN 0.8

/* Whether the call should wait for the bring-up: forced onto the GPU, or the model (c->pred_*, bring-up
 * included) puts the GPU below GS_WARM_MARGIN of the CPU's time.  Then *deadline_s is how long waiting can
 * still pay. */
static bool gs_warm_worth(const gs_call_t *c, double *deadline_s)
{
    if (gs.opt.offload == GS_OFFLOAD_ALWAYS)
        return *deadline_s = INFINITY, true;
    if (!(c->pred_cpu > 0 && c->pred_gpu > 0 && c->pred_gpu < c->pred_cpu * GS_WARM_MARGIN))
        return false;
    *deadline_s = c->pred_cpu * GS_WARM_MARGIN - (c->pred_gpu - c->pred_wait);
    return *deadline_s > 0;
}

/* Started by a call that did not wait, once it has returned: its CPU library then computed undisturbed. */
void gs_warm_later(int family)
{
    gs_warm_start(family);
}

/* Whether a call that does not wait should start its family's bring-up.  Under GPUSHIM_WARMUP=auto, once the
 * time that the family's calls would have gained on the GPU (by the model; c's included) reaches what the
 * bring-up takes: a bring-up slows the CPU calls that run meanwhile about as much as it lasts, so that a
 * program too short to win it back runs as fast as without gpushim, and a longer one loses at most twice the
 * bring-up (the break-even of renting and buying).  A call without predictions starts it at once. */
static bool gs_warm_due(const gs_call_t *c, int family)
{
    if (gs.opt.warmup != GS_WARMUP_AUTO || atomic_load_explicit(&gs.gpu_ready[family], memory_order_relaxed) ||
        !(c->pred_cpu > 0 && c->pred_gpu > 0))
        return true;
    double gain = c->pred_cpu - (c->pred_gpu - c->pred_wait);
    pthread_mutex_lock(&gs_w.lock);
    gs_w.gained[family] += gain > 0 ? gain : 0;
    bool due = gs_w.gained[family] >= c->pred_wait;
    pthread_mutex_unlock(&gs_w.lock);
    return due;
}

bool gs_warm_why(const char *why) { return why == GS_WARM_STARTING || why == GS_WARM_NOT_YET; }

int gs_warm_want(gs_call_t *c, int family)
{
    double wait_s;
    if (!gs_warm_worth(c, &wait_s)) {
        c->why = GS_WARM_NOT_YET;
        if (gs_warm_due(c, family))
            c->after = gs_warm_later, c->after_arg = family, c->why = GS_WARM_STARTING;
        return GS_ENODEV;
    }
    if (gs_warm_start(family) != GS_OK)
        return GS_OK; /* no thread: the caller brings the GPU up itself */
    struct timespec until = gs_warm_until(wait_s);
    pthread_mutex_lock(&gs_w.lock);
    while (!gs_gpu_ready(family) && gs_w.running && pthread_cond_timedwait(&gs_w.done, &gs_w.lock, &until) == 0)
        ;
    pthread_mutex_unlock(&gs_w.lock);
    if (gs_gpu_ready(family))
        return GS_OK;
    c->why = GS_WARM_STARTING;
    return GS_ENODEV;
}

GS_EXPORT int gpushim_gpu_wait(double seconds)
{
    struct timespec until = gs_warm_until(seconds > 0 ? seconds : 0);
    pthread_mutex_lock(&gs_w.lock);
    unsigned pending = 0; /* the families whose calls wanted the GPU before it was worth starting */
    for (int f = 0; f < GS_NFAMILIES; f++)
        pending |= (unsigned)(gs_w.gained[f] > 0) << f;
    pthread_mutex_unlock(&gs_w.lock);
    for (int f = 0; f < GS_NFAMILIES; f++)
        if (pending >> f & 1)
            gs_warm_start(f);
    pthread_mutex_lock(&gs_w.lock);
    while (gs_w.running && gs_warm_next() >= 0 && pthread_cond_timedwait(&gs_w.done, &gs_w.lock, &until) == 0)
        ;
    bool ready = atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_UP && gs_warm_next() < 0;
    pthread_mutex_unlock(&gs_w.lock);
    return ready;
}

/* Before a fork: a bring-up under way finishes first (for GS_WARM_JOIN_S at most), and none starts until
 * the fork is done. */
static void gs_warm_prepare(void)
{
    pthread_mutex_lock(&gs_w.lock);
    gs_warm_join_locked();
}
GS_LIFE_HOOK(GS_LIFE_FORK_PREPARE, gs_warm_prepare);

/* The same for fork handlers: a library loaded by the bring-up registers its own, which run before
 * gpushim's, and whose prepare may take a lock that the bring-up then waits for (the stand-in's does:
 * tests/t_warmup.sh, "fork").  Prepare handlers also run last registered first: after each one the thread
 * registers, one that waits for the bring-up is registered. */
static void gs_warm_fork_join(void)
{
    pthread_mutex_lock(&gs_w.lock);
    gs_warm_join_locked();
    pthread_mutex_unlock(&gs_w.lock);
}

GS_EXPORT GS_NO_ASAN int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso)
{
    static _Atomic(void *) real;
    int (*next)(void (*)(void), void (*)(void), void (*)(void), void *) =
        (int (*)(void (*)(void), void (*)(void), void (*)(void), void *))gs_warm_libc(&real, "__register_atfork");
    if (!next)
        return -1;
    int rc = next(prepare, parent, child, dso);
    if (rc == 0 && gs_warm_self && prepare)
        next(gs_warm_fork_join, NULL, NULL, NULL);
    return rc;
}

static void gs_warm_parent(void)
{
    pthread_mutex_unlock(&gs_w.lock);
}
GS_LIFE_HOOK(GS_LIFE_FORK_PARENT, gs_warm_parent);

static void gs_warm_child(void)
{
    pthread_mutex_init(&gs_w.lock, NULL);
    pthread_cond_init(&gs_w.done, NULL);
    gs_w.running = gs_w.joinable = false; /* no thread in the child */
    gs_w.want = 0;
    memset(gs_w.gained, 0, sizeof gs_w.gained);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_warm_child);

/* Stand-in for libcudart: device memory, pinned host memory, copies, streams, events and device queries on the
 * host, with pointer checks, transfer counts and fault injection (standin.h).  Work on a stream is queued and
 * runs only at synchronisation points, in an order a seeded pseudo-random scheduler picks among the orders
 * CUDA allows, so that a missing event wait or an early reuse of a pinned buffer gives wrong data. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "standin.h"

enum { STREAM_LIVE = 0x57ea, STREAM_DEAD = 0x57ed, EVENT_LIVE = 0xe7e7, EVENT_DEAD = 0xe7ed };

#define MAX_ALLOCS 4096
#define MAX_PINNED 1024  /* cudaHostAlloc blocks and cudaHostRegister ranges together */
#define MAX_STREAMS 256  /* slots are never reused, so a stale handle stays recognisably dead */
#define MAX_EVENTS 4096  /* slots are reused after cudaEventDestroy */
#define MAX_FAILS 16
#define MAX_SEEN 256     /* functions that can be failed, counted for GS_STANDIN_CALLS */
#define MAX_PENDING 4096 /* queued operations (all streams) beyond which some are run early */

/* One cudaEventRecord.  Shared (reference counted) by the queued record operation, the event while this is
 * its latest record, and every queued wait that captured it, so re-recording or destroying the event never
 * changes what an earlier cudaStreamWaitEvent waits for. */
typedef struct token {
    int done;                   /* the record has run (or was discarded) */
    int refs;
    struct CUstream_st *stream; /* where the record is queued while not done */
} token_t;

/* One queued operation. */
typedef struct op {
    struct op *next;
    enum { OP_COPY, OP_CALL, OP_RECORD, OP_WAIT } kind;
    token_t *tok;       /* RECORD: the record it completes; WAIT: the record it waits for */
    void (*run)(void *);                    /* CALL: run(arg) */
    void *dst;                              /* COPY: a 2D copy */
    const void *src;
    size_t dpitch, spitch, width, height;
    max_align_t arg[];  /* CALL: the caller's argument, copied */
} op_t;

struct CUstream_st {
    int magic;
    int dev;           /* the device current when it was made: work on it must be made with that one current */
    op_t *head, *tail; /* FIFO of queued operations */
};

struct CUevent_st {
    int magic;
    token_t *last; /* the latest record, or NULL when never recorded */
};

/* Every field from allocs to rng is guarded by lock; the counters are atomics; the fault table and pid are
 * written once under lock by init_locked. */
static struct {
    pthread_mutex_t lock;
    struct {
        char *p;
        size_t size;
        int dev; /* the device current at cudaMalloc: only work on that device may use it */
    } allocs[MAX_ALLOCS];
    int allocs_top; /* allocs and pinned hold nothing from these on: the scans stop there */
    size_t used[16]; /* bytes allocated on each device (the last: 15 and up), each of GS_STANDIN_MEM */
    struct {
        char *p;
        size_t size;
        int registered; /* 1: a cudaHostRegister range, 0: a cudaHostAlloc block */
    } pinned[MAX_PINNED];
    int pinned_top;
    size_t pinned_bytes; /* live cudaHostAlloc bytes */
    struct CUstream_st streams[MAX_STREAMS];
    int nstreams;
    struct CUevent_st events[MAX_EVENTS];
    unsigned long pending; /* operations queued on all streams */
    uint64_t rng;
    struct {
        char name[80];
        long nth, calls;
    } fails[MAX_FAILS];
    int nfails;
    struct {
        const char *name; /* the function's name, a literal of the stand-in's */
        long calls;
    } seen[MAX_SEEN];     /* every function standin_fail was asked about, for GS_STANDIN_CALLS */
    int nseen;
    int sticky, failed;
    int last_error;    /* an injected runtime failure not yet taken by cudaGetLastError (the runtime's last error) */
    pid_t pid;
    int inited;
    unsigned long seed;
    atomic_ulong h2d_bytes, d2h_bytes, h2d_copies, d2h_copies, allocs_n, frees_n, violations, blas_calls;
    atomic_ulong pinned_max, pinned_allocs, registers, pageable_copies, async_copies, events_n, ops_run,
        pending_max, discarded;
    atomic_ulong fft_plans, fft_execs;
    atomic_ulong blas_by_dev[4]; /* library calls made with device 0..3 current (the last: 3 and up) */
    atomic_ulong fft_by_dev[4];  /* cuFFT executes queued likewise */
    atomic_long fft_live;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t mem_limit(void)
{
    const char *s = getenv("GS_STANDIN_MEM");
    return s ? strtoull(s, NULL, 0) : (size_t)64 << 30;
}

/* Device dev's allocated bytes; with the lock held. */
static size_t *mem_used(int dev)
{
    return &S.used[dev < 15 ? dev : 15];
}

/* Never takes the lock, so it may be called with or without it held. */
__attribute__((format(printf, 1, 2))) static void violation(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "standin: VIOLATION: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    S.violations++;
}

/* splitmix64 spreads small seeds (1, 2, 3 …) into unrelated starting states; xorshift64* then steps. */
static void seed_rng(unsigned long seed)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    S.rng = (z ^ (z >> 31)) | 1;
}

static uint64_t rnd(void)
{
    S.rng ^= S.rng >> 12;
    S.rng ^= S.rng << 25;
    S.rng ^= S.rng >> 27;
    return S.rng * 0x2545f4914f6cdd1dULL;
}

/* Called under S.lock. */
static void init_locked(void)
{
    if (S.inited)
        return;
    S.inited = 1;
    S.pid = getpid();
    const char *seed = getenv("GS_STANDIN_SEED");
    S.seed = seed ? strtoul(seed, NULL, 0) : 1;
    seed_rng(S.seed);
    const char *f = getenv("GS_STANDIN_FAIL");
    S.sticky = getenv("GS_STANDIN_STICKY") && atoi(getenv("GS_STANDIN_STICKY"));
    while (f && *f && S.nfails < MAX_FAILS) {
        const char *end = strchr(f, ',');
        size_t len = end ? (size_t)(end - f) : strlen(f);
        char item[80];
        snprintf(item, sizeof item, "%.*s", (int)len, f);
        char *colon = strchr(item, ':');
        S.fails[S.nfails].nth = colon ? atol(colon + 1) : 0;
        if (colon)
            *colon = 0;
        snprintf(S.fails[S.nfails].name, sizeof S.fails[0].name, "%s", item);
        S.nfails++;
        f = end ? end + 1 : NULL;
    }
}

static void lock(void)
{
    pthread_mutex_lock(&S.lock);
    init_locked();
}

static void unlock(void) { pthread_mutex_unlock(&S.lock); }

/* A fork while another thread holds the lock would leave the child's copy locked forever: hold it across
 * fork.  (Any call in the child is still a violation: standin_fail.) */
static void atfork_prepare(void) { pthread_mutex_lock(&S.lock); }
static void atfork_release(void) { pthread_mutex_unlock(&S.lock); }
__attribute__((constructor)) static void setup(void)
{
    pthread_atfork(atfork_prepare, atfork_release, atfork_release);
}

int standin_fail(const char *fn)
{
    lock();
    if (getpid() != S.pid)
        violation("%s called in a forked child", fn);
    int fail = S.failed && S.sticky, k = 0;
    while (k < S.nseen && strcmp(S.seen[k].name, fn) != 0)
        k++;
    if (k < MAX_SEEN) {
        S.seen[k].name = fn;
        S.seen[k].calls++;
        S.nseen += k == S.nseen;
    }
    for (int i = 0; i < S.nfails && !fail; i++)
        if (strcmp(S.fails[i].name, fn) == 0) {
            long n = ++S.fails[i].calls;
            fail = S.fails[i].nth == 0 || S.fails[i].nth == n;
        }
    if (fail)
        S.failed = 1;
    if (fail && strncmp(fn, "cuda", 4) == 0) /* the runtime keeps its failures as the last error */
        S.last_error = 1;
    unlock();
    return fail;
}

int standin_take_last_error(void)
{
    lock();
    int e = S.last_error;
    S.last_error = 0;
    unlock();
    return e;
}

cudaError_t cudaGetLastError(void) { return standin_take_last_error() ? cudaErrorUnknown : cudaSuccess; }

void standin_violation(const char *fn, const char *what) { violation("%s: %s", fn, what); }

static _Thread_local int current_device; /* per thread, as the runtime's */

void standin_count_blas(void)
{
    S.blas_calls++;
    S.blas_by_dev[current_device < 3 ? current_device : 3]++;
}

int standin_current_device(void) { return current_device; }

void standin_count_fft(enum standin_fft_event e)
{
    switch (e) {
    case STANDIN_FFT_CREATE: S.fft_live++; break;
    case STANDIN_FFT_DESTROY: S.fft_live--; break;
    case STANDIN_FFT_PLAN: S.fft_plans++; break;
    case STANDIN_FFT_EXEC:
        S.fft_execs++;
        S.fft_by_dev[current_device < 3 ? current_device : 3]++;
        break;
    }
}

unsigned long standin_violations(void) { return S.violations; }

unsigned long standin_pending(void)
{
    lock();
    unsigned long n = S.pending;
    unlock();
    return n;
}

/* ---- memory bookkeeping (all under S.lock) ------------------------------------------------------------- */

static int find_alloc(const void *p, size_t bytes)
{
    const char *c = p;
    for (int i = 0; i < S.allocs_top; i++)
        if (S.allocs[i].p && c >= S.allocs[i].p && c + bytes <= S.allocs[i].p + S.allocs[i].size)
            return i;
    return -1;
}

static int overlaps_device(const char *p, size_t bytes)
{
    for (int i = 0; i < S.allocs_top; i++)
        if (S.allocs[i].p && p < S.allocs[i].p + S.allocs[i].size && S.allocs[i].p < p + bytes)
            return 1;
    return 0;
}

/* Index of the cudaHostAlloc block or cudaHostRegister range that overlaps [p, p + bytes), or -1. */
static int find_pinned_overlap(const char *p, size_t bytes)
{
    for (int i = 0; i < S.pinned_top; i++)
        if (S.pinned[i].p && p < S.pinned[i].p + S.pinned[i].size && S.pinned[i].p < p + bytes)
            return i;
    return -1;
}

/* True when [p, p + bytes) lies inside one block or range: a copy from it may run asynchronously. */
static int is_pinned(const void *p, size_t bytes)
{
    const char *c = p;
    for (int i = 0; i < S.pinned_top; i++)
        if (S.pinned[i].p && c >= S.pinned[i].p && c + bytes <= S.pinned[i].p + S.pinned[i].size)
            return 1;
    return 0;
}

/* Device memory of the device current now: with several devices, each pointer belongs to one. */
static int check_device_locked(const void *p, size_t bytes, const char *fn, const char *what)
{
    int i = find_alloc(p, bytes);
    if (i >= 0 && S.allocs[i].dev == current_device)
        return 0;
    if (i >= 0)
        violation("%s: %s is device %d's memory, used with device %d current", fn, what, S.allocs[i].dev,
                  current_device);
    else
        violation("%s: %s is not device memory from cudaMalloc (or runs past its end)", fn, what);
    return -1;
}

static int check_host_locked(const void *p, const char *fn, const char *what)
{
    if (find_alloc(p, 1) < 0)
        return 0;
    violation("%s: %s should be host memory but is device memory", fn, what);
    return -1;
}

int standin_check_device(const void *p, size_t bytes, const char *fn, const char *what)
{
    lock();
    int rc = check_device_locked(p, bytes, fn, what);
    unlock();
    return rc;
}

int standin_check_host(const void *p, const char *fn, const char *what)
{
    lock();
    int rc = check_host_locked(p, fn, what);
    unlock();
    return rc;
}

/* ---- handles (under S.lock) ---------------------------------------------------------------------------
 * Handles are checked by address against the stand-in's own tables before anything is read through them, so
 * a garbage or stale handle is reported instead of crashing. */

static int stream_ok(cudaStream_t s)
{
    uintptr_t u = (uintptr_t)s, b = (uintptr_t)S.streams;
    return u >= b && u < b + (uintptr_t)S.nstreams * sizeof S.streams[0] && (u - b) % sizeof S.streams[0] == 0 &&
           s->magic == STREAM_LIVE;
}

/* NULL (stream 0) is a valid stream. */
static int bad_stream(cudaStream_t s, const char *fn)
{
    if (!s || stream_ok(s))
        return 0;
    violation("%s: %p is not a live stream from cudaStreamCreateWithFlags", fn, (void *)s);
    return 1;
}

/* Work queued on a live stream (copies, library calls) is made with the stream's device current. */
static int bad_work_stream(cudaStream_t s, const char *fn)
{
    if (bad_stream(s, fn))
        return 1;
    if (!s || s->dev == current_device)
        return 0;
    violation("%s: work on a stream of device %d with device %d current", fn, s->dev, current_device);
    return 1;
}

static int bad_event(cudaEvent_t e, const char *fn)
{
    uintptr_t u = (uintptr_t)e, b = (uintptr_t)S.events;
    if (u >= b && u < b + sizeof S.events && (u - b) % sizeof S.events[0] == 0 && e->magic == EVENT_LIVE)
        return 0;
    violation("%s: %p is not a live event from cudaEventCreateWithFlags", fn, (void *)e);
    return 1;
}

/* ---- the queues and the scheduler (all under S.lock) ---------------------------------------------------
 * Why it cannot deadlock: a wait only ever captures a record that was already queued, so every wait comes
 * after the record it waits for in the global order of queueing.  The queue head that was queued first is
 * therefore always ready (its record, if any, is not still queued behind it), and following a blocked head to
 * the stream holding its record always reaches earlier-queued operations, so the chain ends at a ready head. */

static void tok_unref(token_t *t)
{
    if (t && --t->refs == 0)
        free(t);
}

static int ready(const struct CUstream_st *s)
{
    return s->head && (s->head->kind != OP_WAIT || s->head->tok->done);
}

/* Runs o (whose stream dependencies are met) and drops its reference to a token. */
static void run_op(op_t *o)
{
    switch (o->kind) {
    case OP_COPY:
        for (size_t r = 0; r < o->height; r++)
            memcpy((char *)o->dst + r * o->dpitch, (const char *)o->src + r * o->spitch, o->width);
        break;
    case OP_CALL: o->run(o->arg); break;
    case OP_RECORD: o->tok->done = 1; break;
    case OP_WAIT: break;
    }
    tok_unref(o->tok);
}

static op_t *pop(struct CUstream_st *s)
{
    op_t *o = s->head;
    s->head = o->next;
    if (!s->head)
        s->tail = NULL;
    S.pending--;
    return o;
}

static void run_head(struct CUstream_st *s)
{
    op_t *o = pop(s);
    run_op(o);
    free(o);
    S.ops_run++;
}

/* A ready stream chosen uniformly, or NULL when nothing is queued. */
static struct CUstream_st *random_ready(void)
{
    struct CUstream_st *r[MAX_STREAMS];
    int n = 0;
    for (int i = 0; i < S.nstreams; i++)
        if (ready(&S.streams[i]))
            r[n++] = &S.streams[i];
    return n ? r[(rnd() >> 32) % (uint64_t)n] : NULL;
}

/* Runs one operation that brings the head of s (non-empty) closer to running: the operation it needs first,
 * or, on a coin toss, any ready operation anywhere.  The mix keeps independent streams racing: the goal's
 * dependencies run only when needed, while unrelated work sometimes slips in before and sometimes not. */
static void step_toward(struct CUstream_st *s)
{
    while (!ready(s))
        s = s->head->tok->stream; /* blocked on a record still queued there (the comment above says why) */
    if (rnd() >> 63) {
        struct CUstream_st *r = random_ready();
        if (r)
            s = r;
    }
    run_head(s);
}

static void drain_all(void)
{
    while (S.pending) {
        struct CUstream_st *s = random_ready();
        if (!s) {
            violation("stand-in internal error: %lu operations queued, none ready", S.pending);
            return;
        }
        run_head(s);
    }
}

static void drain_stream(struct CUstream_st *s)
{
    while (s->head)
        step_toward(s);
}

static void drain_token(token_t *t)
{
    while (!t->done)
        step_toward(t->stream);
}

/* An injected failure at a synchronisation point models a device fault: the queued work is lost.  Records
 * count as complete so nothing waits for them forever. */
static void discard_all(void)
{
    for (int i = 0; i < S.nstreams; i++)
        while (S.streams[i].head) {
            op_t *o = pop(&S.streams[i]);
            if (o->kind == OP_RECORD)
                o->tok->done = 1;
            tok_unref(o->tok);
            free(o);
            S.discarded++;
        }
}

static cudaError_t sync_fault(void)
{
    lock();
    discard_all();
    unlock();
    return cudaErrorLaunchFailure;
}

static op_t *new_op(int kind, size_t argsize)
{
    op_t *o = calloc(1, sizeof *o + argsize);
    if (!o) {
        fprintf(stderr, "standin: out of host memory\n");
        abort();
    }
    o->kind = kind;
    return o;
}

/* Appends o to s (live, not NULL).  Past MAX_PENDING queued operations, runs random ready ones down to three
 * quarters of it, as a GPU would have made progress meanwhile: memory stays bounded. */
static void push(struct CUstream_st *s, op_t *o)
{
    if (s->tail)
        s->tail->next = o;
    else
        s->head = o;
    s->tail = o;
    if (++S.pending > S.pending_max)
        S.pending_max = S.pending;
    if (S.pending > MAX_PENDING)
        while (S.pending > MAX_PENDING / 4 * 3)
            run_head(random_ready());
}

int standin_enqueue(cudaStream_t s, void (*run)(void *arg), const void *arg, size_t size)
{
    lock();
    int rc = bad_work_stream(s, "standin_enqueue (a cuBLAS, cuSOLVER or cuFFT call on its handle's stream)") ? -1 : 0;
    if (rc == 0 && !s) {
        drain_all();
        run((void *)arg);
        S.ops_run++;
    } else if (rc == 0) {
        op_t *o = new_op(OP_CALL, size);
        o->run = run;
        memcpy(o->arg, arg, size);
        push(s, o);
    }
    unlock();
    return rc;
}

/* ---- report ------------------------------------------------------------------------------------------- */

/* Entries of the folder /proc/self/NAME, less skip (the process's file descriptors or its threads). */
static long proc_entries(const char *name, long skip)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/%s", name);
    DIR *d = opendir(path);
    long n = -skip;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Read without the lock: at exit no other thread should be calling in, and a torn count is harmless.  fds and
 * threads are the process's open file descriptors (less the report's and the count's own) and threads at exit,
 * for leak checks. */
__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("GS_STANDIN_REPORT");
    if (!path || !S.inited)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    unsigned long live = 0, pinned_live = 0, registered_live = 0;
    for (int i = 0; i < MAX_ALLOCS; i++)
        live += S.allocs[i].p != NULL;
    for (int i = 0; i < MAX_PINNED; i++)
        if (S.pinned[i].p)
            *(S.pinned[i].registered ? &registered_live : &pinned_live) += 1;
    long fds = proc_entries("fd", 2), threads = proc_entries("task", 0);
    /* Keys keep their order; new ones go before violations, which stays last (tests/lib.sh reads any key). */
    fprintf(f,
            "pid=%d h2d_bytes=%lu d2h_bytes=%lu h2d_copies=%lu d2h_copies=%lu allocs=%lu frees=%lu live=%lu "
            "blas_calls=%lu pinned_max=%lu pinned_allocs=%lu pinned_live=%lu registers=%lu registered_live=%lu "
            "pageable_copies=%lu async_copies=%lu events=%lu ops_run=%lu pending_max=%lu unfinished=%lu "
            "discarded=%lu seed=%lu fft_plans=%lu fft_execs=%lu fft_live=%ld fds=%ld threads=%ld "
            "blas_by_dev=%lu/%lu/%lu/%lu fft_by_dev=%lu/%lu/%lu/%lu violations=%lu\n",
            (int)getpid(), S.h2d_bytes, S.d2h_bytes, S.h2d_copies, S.d2h_copies, S.allocs_n, S.frees_n, live,
            S.blas_calls, S.pinned_max, S.pinned_allocs, pinned_live, S.registers, registered_live,
            S.pageable_copies, S.async_copies, S.events_n, S.ops_run, S.pending_max, S.pending, S.discarded,
            S.seed, S.fft_plans, S.fft_execs, S.fft_live, fds, threads, S.blas_by_dev[0], S.blas_by_dev[1],
            S.blas_by_dev[2], S.blas_by_dev[3], S.fft_by_dev[0], S.fft_by_dev[1], S.fft_by_dev[2], S.fft_by_dev[3],
            S.violations);
    fclose(f);
}

/* GS_STANDIN_CALLS: how often each function that can be failed was called ("NAME COUNT" lines), the injection
 * points of a fault sweep (tests/t_faults.sh). */
__attribute__((destructor)) static void report_calls(void)
{
    const char *path = getenv("GS_STANDIN_CALLS");
    FILE *f = path && S.inited ? fopen(path, "a") : NULL;
    if (!f)
        return;
    for (int i = 0; i < S.nseen; i++)
        fprintf(f, "%s %ld\n", S.seen[i].name, S.seen[i].calls);
    fclose(f);
}

/* ---- devices ------------------------------------------------------------------------------------------ */

/* The CUDA version this stand-in's runtime claims (the Makefile builds a CUDA 12 one too), and its driver's. */
#ifndef STANDIN_RUNTIME
#define STANDIN_RUNTIME 13000
#endif
static int driver_version(void)
{
    const char *s = getenv("GS_STANDIN_DRIVER");
    return s ? atoi(s) : STANDIN_RUNTIME;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    *version = STANDIN_RUNTIME;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
    *version = driver_version();
    return cudaSuccess;
}

/* ---- the libraries' starts and exits ------------------------------------------------------------------ */

/* Each library's constructor registers as many exit handlers as the real one does as it loads (the C++
 * destructors of its static objects): the last registered, which exit runs first, marks the library torn
 * down.  A start still under way when any library is torn down ran under an exit that destroyed the state it
 * uses (a heap corruption in the real libraries: tests/t_warmup.sh, "exit in a library's step"). */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
extern void *__dso_handle;
static const char *_Atomic standin_torn_lib;
static void standin_exit_noop(void) {}
static void standin_exit_torn(void *lib) { atomic_store(&standin_torn_lib, (const char *)lib); }

void standin_exit_handlers(const char *lib, int count)
{
    for (int i = 1; i < count; i++)
        atexit(standin_exit_noop);
    __cxa_atexit(standin_exit_torn, (void *)lib, &__dso_handle);
}

/* A library's start that takes ms milliseconds, allocating and freeing meanwhile as a real one does (loading,
 * building its tables), then checks that no library was torn down under it. */
void standin_start(const char *fn, int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long r = 0x9e3779b97f4a7c15UL;
    void *held[64] = {0};
    for (long spent = 0; spent < ms; spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000) {
        for (int i = 0; i < 64; i++) {
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            free(held[i]);
            if ((held[i] = malloc(16 + r % 65536)))
                memset(held[i], 0x5a, 16);
        }
        usleep(1000);
        clock_gettime(CLOCK_MONOTONIC, &t);
    }
    for (int i = 0; i < 64; i++)
        free(held[i]);
    const char *torn = atomic_load(&standin_torn_lib);
    if (torn)
        violation("%s ran on after %s's exit handlers", fn, torn);
}

/* GS_STANDIN_<NAME>_MS, or 0. */
int standin_start_ms(const char *var)
{
    const char *s = getenv(var);
    return s ? atoi(s) : 0;
}

/* As the real runtime: no driver, or one of an older major version, is cudaErrorInsufficientDriver; an empty or
 * negative CUDA_VISIBLE_DEVICES hides every device. */
static cudaError_t devices(int *count);

cudaError_t cudaGetDeviceCount(int *count)
{
    /* GS_STANDIN_UP_MS: the first call takes that long, as a real driver's start does, and registers the
     * runtime's exit handler, as the real runtime does as it starts. */
    static atomic_int started;
    int up = standin_start_ms("GS_STANDIN_UP_MS");
    if (up && !atomic_exchange(&started, 1)) {
        standin_exit_handlers("the runtime", 1);
        standin_start("cudaGetDeviceCount", up);
    }
    if (standin_fail("cudaGetDeviceCount"))
        return cudaErrorUnknown;
    return devices(count);
}

/* The devices there are, as cudaGetDeviceCount gives them, without its injected failure (the stand-in's own
 * functions ask it, and a fault injected into cudaGetDeviceCount is the program's call's). */
static cudaError_t devices(int *count)
{
    if (driver_version() / 1000 < STANDIN_RUNTIME / 1000)
        return cudaErrorInsufficientDriver;
    const char *s = getenv("GS_STANDIN_DEVICES"), *visible = getenv("CUDA_VISIBLE_DEVICES");
    *count = s ? atoi(s) : 1;
    if (visible && (!*visible || *visible == '-'))
        *count = 0;
    return *count ? cudaSuccess : cudaErrorNoDevice;
}

/* The device's PCI address: a physical device's, that of the CUDA_VISIBLE_DEVICES entry the ordinal names (its
 * number, where the entry is one), so that ranks bound to different entries see different GPUs. */
cudaError_t cudaDeviceGetPCIBusId(char *out, int len, int device)
{
    int n = 0, physical = device;
    if (devices(&n) != cudaSuccess || device < 0 || device >= n || len < 13)
        return cudaErrorInvalidValue;
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    for (int i = 0; v && i < device && (v = strchr(v, ',')); i++)
        v++;
    if (v && *v >= '0' && *v <= '9')
        physical = atoi(v);
    snprintf(out, (size_t)len, "0000:%02x:00.0", (physical + 1) & 0xff);
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    int n = 0;
    if (standin_fail("cudaSetDevice") || devices(&n) != cudaSuccess || device >= n)
        return cudaErrorInvalidDevice;
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    if (standin_fail("cudaDeviceSynchronize"))
        return sync_fault();
    lock();
    drain_all();
    unlock();
    return cudaSuccess;
}

/* As the real one, destroys everything the process had made, at once (another thread's use of the device meanwhile
 * is the caller's error): queued work is dropped, device memory freed, host registrations dropped, streams and
 * events dead (a later use of one is a violation), and pinned blocks unmapped, here made inaccessible and kept,
 * so that a later touch faults as it does after the real reset rather than landing in a reused heap block.  The
 * next call starts afresh (tests/t_races.sh, "reset"). */
cudaError_t cudaDeviceReset(void)
{
    if (standin_fail("cudaDeviceReset"))
        return cudaErrorUnknown;
    lock();
    discard_all();
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (S.allocs[i].p) {
            free(S.allocs[i].p);
            S.allocs[i].p = NULL;
            S.frees_n++;
        }
    memset(S.used, 0, sizeof S.used);
    for (int i = 0; i < MAX_PINNED; i++)
        if (S.pinned[i].p && !S.pinned[i].registered)
            mprotect(S.pinned[i].p, (S.pinned[i].size + 4095) & ~(size_t)4095, PROT_NONE);
    memset(S.pinned, 0, sizeof S.pinned);
    S.pinned_bytes = 0;
    S.allocs_top = S.pinned_top = 0;
    for (int i = 0; i < S.nstreams; i++)
        S.streams[i].magic = STREAM_DEAD;
    for (int i = 0; i < MAX_EVENTS; i++)
        if (S.events[i].magic == EVENT_LIVE) {
            tok_unref(S.events[i].last);
            S.events[i].last = NULL;
            S.events[i].magic = EVENT_DEAD;
        }
    unlock();
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    if (standin_fail("cudaMemGetInfo"))
        return cudaErrorLaunchFailure;
    if (!free_bytes || !total)
        return cudaErrorInvalidValue;
    lock();
    size_t limit = mem_limit();
    *total = limit;
    size_t used = *mem_used(current_device);
    *free_bytes = used < limit ? limit - used : 0;
    unlock();
    return cudaSuccess;
}

/* ---- device memory ------------------------------------------------------------------------------------ */

cudaError_t cudaMalloc(void **p, size_t size)
{
    if (standin_fail("cudaMalloc"))
        return cudaErrorMemoryAllocation;
    lock();
    cudaError_t rc = cudaErrorMemoryAllocation;
    size_t *used = mem_used(current_device);
    if (*used + size <= mem_limit()) {
        for (int i = 0; i < MAX_ALLOCS; i++)
            if (!S.allocs[i].p) {
                /* Poisoned, so that a result read from memory nobody wrote shows up as NaN.  With slack past the
                 * end, not counted: OpenBLAS's kernels, which run the stand-in's cuSOLVER, read up to one stride
                 * past a strided vector's last element, a column of the matrix holding a row vector (a quarter of
                 * the size covers a matrix of four columns or more).  That is harmless in a program's heap and
                 * fatal at the end of a mapping: an exact-sized block of the residency cache, under t_lapack's
                 * fixed mmap threshold. */
                char *m = aligned_alloc(256, (size + size / 4 + 65536 + 255) & ~(size_t)255);
                if (!m)
                    break;
                memset(m, 0xff, size);
                S.allocs[i].p = m;
                S.allocs_top = i + 1 > S.allocs_top ? i + 1 : S.allocs_top;
                S.allocs[i].size = size;
                S.allocs[i].dev = current_device;
                *used += size;
                S.allocs_n++;
                *p = m;
                rc = cudaSuccess;
                break;
            }
    }
    if (rc != cudaSuccess) /* the runtime keeps it as the last error, as it does an injected one */
        S.last_error = 1;
    unlock();
    return rc;
}

/* Synchronises like the real one: queued work may still use the memory. */
cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    lock();
    drain_all();
    int i = find_alloc(p, 1);
    if (i >= 0 && S.allocs[i].p == p) {
        free(p);
        *mem_used(S.allocs[i].dev) -= S.allocs[i].size;
        S.allocs[i].p = NULL;
        S.frees_n++;
    }
    unlock();
    if (i < 0)
        violation("cudaFree: %p is not a pointer from cudaMalloc", p);
    return i < 0 ? cudaErrorInvalidValue : cudaSuccess;
}

/* ---- pinned host memory ------------------------------------------------------------------------------- */

static int free_pinned_slot(void)
{
    for (int i = 0; i < MAX_PINNED; i++)
        if (!S.pinned[i].p) {
            S.pinned_top = i + 1 > S.pinned_top ? i + 1 : S.pinned_top;
            return i;
        }
    return -1;
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags)
{
    if (standin_fail("cudaHostAlloc"))
        return cudaErrorMemoryAllocation;
    if (!p || flags & ~(unsigned)(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return cudaErrorInvalidValue;
    *p = NULL;
    if (size == 0)
        return cudaSuccess;
    lock();
    cudaError_t rc = cudaErrorMemoryAllocation;
    int i = free_pinned_slot();
    /* Poisoned like device memory: reading staging nobody filled yet gives NaN. */
    char *m = i < 0 ? NULL : aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    if (m) {
        memset(m, 0xff, size);
        S.pinned[i].p = m;
        S.pinned[i].size = size;
        S.pinned[i].registered = 0;
        S.pinned_bytes += size;
        if (S.pinned_bytes > S.pinned_max)
            S.pinned_max = S.pinned_bytes;
        S.pinned_allocs++;
        *p = m;
        rc = cudaSuccess;
    }
    unlock();
    return rc;
}

/* Synchronises like the real one. */
cudaError_t cudaFreeHost(void *p)
{
    if (standin_fail("cudaFreeHost"))
        return sync_fault();
    if (!p)
        return cudaSuccess;
    lock();
    drain_all();
    int i = find_pinned_overlap(p, 1);
    int ok = i >= 0 && S.pinned[i].p == p && !S.pinned[i].registered;
    if (ok) {
        free(p);
        S.pinned_bytes -= S.pinned[i].size;
        S.pinned[i].p = NULL;
    }
    unlock();
    if (!ok)
        violation("cudaFreeHost: %p is not a pointer from cudaHostAlloc", p);
    return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/* Registration keeps the memory's contents (it is the caller's memory); copies from it become asynchronous. */
cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags)
{
    if (standin_fail("cudaHostRegister"))
        return cudaErrorMemoryAllocation;
    unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterIoMemory |
                     cudaHostRegisterReadOnly;
    if (!p || !size || flags & ~known)
        return cudaErrorInvalidValue;
    lock();
    cudaError_t rc = cudaSuccess;
    int i;
    if (overlaps_device(p, size)) {
        violation("cudaHostRegister: [%p, +%zu) overlaps device memory", p, size);
        rc = cudaErrorInvalidValue;
    } else if (find_pinned_overlap(p, size) >= 0) {
        rc = cudaErrorHostMemoryAlreadyRegistered;
    } else if ((i = free_pinned_slot()) < 0) {
        rc = cudaErrorMemoryAllocation;
    } else {
        S.pinned[i].p = p;
        S.pinned[i].size = size;
        S.pinned[i].registered = 1;
        S.registers++;
    }
    unlock();
    return rc;
}

/* Synchronises: queued copies may still use the range. */
cudaError_t cudaHostUnregister(void *p)
{
    if (standin_fail("cudaHostUnregister"))
        return sync_fault();
    lock();
    drain_all();
    int i = p ? find_pinned_overlap(p, 1) : -1;
    int ok = i >= 0 && S.pinned[i].p == p && S.pinned[i].registered;
    if (ok)
        S.pinned[i].p = NULL;
    unlock();
    if (!ok)
        violation("cudaHostUnregister: %p does not start a range from cudaHostRegister", p);
    return ok ? cudaSuccess : cudaErrorHostMemoryNotRegistered;
}

/* ---- copies ------------------------------------------------------------------------------------------- */

static cudaError_t copy_locked(const char *fn, void *dst, size_t dpitch, const void *src, size_t spitch,
                               size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (bad_work_stream(stream, fn))
        return cudaErrorInvalidResourceHandle;
    if (height == 0 || width == 0)
        return cudaSuccess;
    if (width > dpitch || width > spitch)
        return cudaErrorInvalidPitchValue;
    size_t dext = dpitch * (height - 1) + width, sext = spitch * (height - 1) + width;
    const void *host = NULL; /* the host side, if any */
    size_t hext = 0;
    int bad = 0;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        bad = check_device_locked(dst, dext, fn, "destination") | check_host_locked(src, fn, "source");
        host = src, hext = sext;
        break;
    case cudaMemcpyDeviceToHost:
        bad = check_device_locked(src, sext, fn, "source") | check_host_locked(dst, fn, "destination");
        host = dst, hext = dext;
        break;
    case cudaMemcpyDeviceToDevice:
        bad = check_device_locked(src, sext, fn, "source") | check_device_locked(dst, dext, fn, "destination");
        break;
    default:
        violation("%s: copy kind %d is not used by gpushim", fn, (int)kind);
        bad = 1;
    }
    if (bad)
        return cudaErrorInvalidValue;
    /* Counted at the call, whether the copy runs now or later. */
    if (kind == cudaMemcpyHostToDevice) {
        S.h2d_bytes += width * height;
        S.h2d_copies++;
    } else if (kind == cudaMemcpyDeviceToHost) {
        S.d2h_bytes += width * height;
        S.d2h_copies++;
    }
    op_t c = {.kind = OP_COPY, .dst = dst, .src = src, .dpitch = dpitch, .spitch = spitch, .width = width,
              .height = height};
    int pageable = host && !is_pinned(host, hext);
    S.pageable_copies += pageable;
    if (!stream) {
        drain_all();
        run_op(&c);
    } else if (pageable) { /* the real runtime stages pageable memory synchronously, after earlier work */
        drain_stream(stream);
        run_op(&c);
    } else {
        op_t *o = new_op(OP_COPY, 0);
        *o = c;
        push(stream, o);
        S.async_copies++;
    }
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (standin_fail("cudaMemcpy2DAsync"))
        return cudaErrorLaunchFailure;
    lock();
    cudaError_t rc = copy_locked("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream);
    unlock();
    return rc;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (standin_fail("cudaMemcpyAsync"))
        return cudaErrorLaunchFailure;
    lock();
    cudaError_t rc = copy_locked("cudaMemcpyAsync", dst, count, src, count, count, 1, kind, stream);
    unlock();
    return rc;
}

typedef struct {
    void *dst;
    int value;
    size_t count;
} memset_t;

static void run_memset(void *arg)
{
    const memset_t *m = arg;
    memset(m->dst, m->value, m->count);
}

/* Queued like a kernel: the bytes are set when the stream reaches it. */
cudaError_t cudaMemsetAsync(void *dst, int value, size_t count, cudaStream_t stream)
{
    if (standin_fail("cudaMemsetAsync"))
        return cudaErrorLaunchFailure;
    if (count && standin_check_device(dst, count, "cudaMemsetAsync", "destination"))
        return cudaErrorInvalidValue;
    memset_t m = {dst, value, count};
    return standin_enqueue(stream, run_memset, &m, sizeof m) ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* ---- streams ------------------------------------------------------------------------------------------ */

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    if (standin_fail("cudaStreamCreateWithFlags"))
        return cudaErrorUnknown;
    if (flags & ~(unsigned)cudaStreamNonBlocking)
        return cudaErrorInvalidValue;
    lock();
    cudaError_t rc = cudaErrorMemoryAllocation;
    if (S.nstreams < MAX_STREAMS) {
        struct CUstream_st *s = &S.streams[S.nstreams++];
        s->magic = STREAM_LIVE;
        s->dev = current_device;
        *stream = s;
        rc = cudaSuccess;
    }
    unlock();
    return rc;
}

/* Like the real one, returns at once: queued work still runs later. */
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (standin_fail("cudaStreamDestroy"))
        return cudaErrorLaunchFailure;
    lock();
    int bad = !stream || bad_stream(stream, "cudaStreamDestroy");
    if (!bad)
        stream->magic = STREAM_DEAD;
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    if (standin_fail("cudaStreamSynchronize"))
        return sync_fault();
    lock();
    int bad = bad_stream(stream, "cudaStreamSynchronize");
    if (!bad && stream)
        drain_stream(stream);
    else if (!bad)
        drain_all();
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* Runs one to three operations toward the stream's end, then says whether it is empty: polling terminates. */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    if (standin_fail("cudaStreamQuery"))
        return sync_fault();
    lock();
    cudaError_t rc = cudaSuccess;
    if (bad_stream(stream, "cudaStreamQuery")) {
        rc = cudaErrorInvalidResourceHandle;
    } else if (!stream) {
        drain_all();
    } else {
        for (uint64_t k = 1 + (rnd() >> 32) % 3; k-- && stream->head;)
            step_toward(stream);
        rc = stream->head ? cudaErrorNotReady : cudaSuccess;
    }
    unlock();
    return rc;
}

/* ---- events ------------------------------------------------------------------------------------------- */

static cudaError_t event_create(const char *fn, cudaEvent_t *event, unsigned int flags)
{
    if (standin_fail(fn))
        return cudaErrorMemoryAllocation;
    if (!event || flags & ~(unsigned)(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
        return cudaErrorInvalidValue;
    lock();
    cudaError_t rc = cudaErrorMemoryAllocation;
    for (int i = 0; i < MAX_EVENTS; i++)
        if (S.events[i].magic != EVENT_LIVE) {
            S.events[i].magic = EVENT_LIVE;
            S.events[i].last = NULL;
            S.events_n++;
            *event = &S.events[i];
            rc = cudaSuccess;
            break;
        }
    unlock();
    return rc;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    return event_create("cudaEventCreateWithFlags", event, flags);
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return event_create("cudaEventCreate", event, 0); }

/* Like the real one, returns at once: a queued record, and waits on it, still complete later. */
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (standin_fail("cudaEventDestroy"))
        return cudaErrorLaunchFailure;
    lock();
    int bad = bad_event(event, "cudaEventDestroy");
    if (!bad) {
        tok_unref(event->last);
        event->last = NULL;
        event->magic = EVENT_DEAD;
    }
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (standin_fail("cudaEventRecord"))
        return cudaErrorLaunchFailure;
    lock();
    int bad = bad_event(event, "cudaEventRecord") || bad_stream(stream, "cudaEventRecord");
    if (!bad) {
        token_t *t = calloc(1, sizeof *t);
        if (!t)
            abort();
        t->refs = 1; /* the event's */
        tok_unref(event->last);
        event->last = t;
        if (!stream) {
            drain_all();
            t->done = 1;
        } else {
            op_t *o = new_op(OP_RECORD, 0);
            o->tok = t;
            t->refs++; /* the record operation's */
            t->stream = stream;
            push(stream, o);
        }
    }
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* Captures the event's latest record now: a later cudaEventRecord of the same event does not change what this
 * waits for.  Waiting for a never-recorded event, or a completed record, is a no-op. */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (standin_fail("cudaStreamWaitEvent"))
        return cudaErrorLaunchFailure;
    if (flags & ~(unsigned)cudaEventWaitExternal)
        return cudaErrorInvalidValue;
    lock();
    int bad = bad_stream(stream, "cudaStreamWaitEvent") || bad_event(event, "cudaStreamWaitEvent");
    token_t *t = bad ? NULL : event->last;
    if (t && !t->done) {
        if (!stream) {
            drain_all();
        } else {
            op_t *o = new_op(OP_WAIT, 0);
            o->tok = t;
            t->refs++;
            push(stream, o);
        }
    }
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* Runs until the latest record (at the time of the call) has run. */
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    if (standin_fail("cudaEventSynchronize"))
        return sync_fault();
    lock();
    int bad = bad_event(event, "cudaEventSynchronize");
    if (!bad && event->last)
        drain_token(event->last); /* the lock is held throughout, so the event cannot drop its token meanwhile */
    unlock();
    return bad ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* Runs one to three operations toward the latest record, then says whether it has run: polling terminates. */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    if (standin_fail("cudaEventQuery"))
        return sync_fault();
    lock();
    cudaError_t rc = cudaSuccess;
    if (bad_event(event, "cudaEventQuery")) {
        rc = cudaErrorInvalidResourceHandle;
    } else if (event->last) {
        token_t *t = event->last;
        for (uint64_t k = 1 + (rnd() >> 32) % 3; k-- && !t->done;)
            step_toward(t->stream);
        rc = t->done ? cudaSuccess : cudaErrorNotReady;
    }
    unlock();
    return rc;
}

const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorHostMemoryAlreadyRegistered: return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    default: return "stand-in error";
    }
}

/* The transfer engine (xfer.h): a pool of copy threads and a ring of pinned staging buffers, both made once
 * at the first GPU call and kept.  A matrix region is cut into pieces of whole columns (or parts of one long
 * column); each piece takes a staging buffer, so the number of buffers bounds the work in flight.  Upload
 * pieces are packed by the copy threads, which then queue the copy themselves.  Download pieces are queued
 * by the caller; one waiter thread waits for their copies in the order they were queued (the download stream
 * completes them in that order) and hands each to the copy threads to unpack, ahead of any packing, so that
 * no copy thread sits idle waiting for the GPU.  Each buffer carries an event recorded after its last copy:
 * nobody writes a buffer whose previous copy may still be running.  Each device has an engine of its own
 * (gs_xfer, indexed like gs_devices), whose threads work on that device. */
#include <signal.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memory/hostreg.h"
#include "memory/xfer.h"

#define GS_XFER_MAXBUF 64
#define GS_XFER_MAXTHREADS 64
#define GS_XFER_CHUNK ((size_t)8 << 20) /* preferred staging buffer size */
#define GS_XFER_MINPIECE ((size_t)256 << 10)

typedef struct {
    char *p;
    cudaEvent_t ev; /* recorded after the last copy into or out of p */
} gs_stage_t;

typedef enum { GS_PACK, GS_UNPACK } gs_task_kind_t;

typedef struct {
    gs_task_kind_t kind;
    gs_stage_t *buf;
    char *host;
    size_t width, ld, cols;
    char *dev; /* GS_PACK: where the piece goes */
    size_t dpitch;
    gs_xjob_t *job;
} gs_task_t;

/* A FIFO of tasks; each queued task holds a buffer, so GS_XFER_MAXBUF slots suffice. */
typedef struct {
    gs_task_t t[GS_XFER_MAXBUF];
    int head, count;
} gs_queue_t;

typedef struct {
    int dev;              /* the device slot; written once at start */
    pthread_mutex_t lock; /* guards everything below that changes after start, and every job's fields */
    pthread_cond_t work;  /* a task was queued in unpack or pack */
    pthread_cond_t wait;  /* a task was queued in arriving */
    pthread_cond_t freed; /* a buffer came back */
    pthread_cond_t done;  /* a job's pending count reached 0 */
    int state;            /* 0 not started, 2 staging without threads yet, 1 staging, -1 direct copies; written
                           * under the GPU lock */
    char *mem;            /* the staging buffers' pinned memory */
    int nthreads;         /* copy threads; written once at start */
    size_t chunk;         /* bytes per buffer; written once at start */
    gs_stage_t buf[GS_XFER_MAXBUF];
    gs_stage_t *free[GS_XFER_MAXBUF];
    int nfree;
    gs_queue_t arriving;  /* downloads whose copy may not have completed: the waiter's */
    gs_queue_t unpack;    /* downloads that have arrived: the copy threads', first */
    gs_queue_t pack;      /* uploads: the copy threads' */
} gs_engine_t;

static gs_engine_t gs_xfer[GS_DEVICES_MAX] = {
    [0 ... GS_DEVICES_MAX - 1] = {
        .lock = PTHREAD_MUTEX_INITIALIZER,
        .work = PTHREAD_COND_INITIALIZER,
        .wait = PTHREAD_COND_INITIALIZER,
        .freed = PTHREAD_COND_INITIALIZER,
        .done = PTHREAD_COND_INITIALIZER,
    },
};

static void gs_queue_push(gs_queue_t *q, const gs_task_t *t)
{
    q->t[(q->head + q->count++) % GS_XFER_MAXBUF] = *t;
}

static gs_task_t gs_queue_pop(gs_queue_t *q)
{
    gs_task_t t = q->t[q->head];
    q->head = (q->head + 1) % GS_XFER_MAXBUF;
    q->count--;
    return t;
}

/* Copies n bytes with non-temporal stores: the destination (staging, or the user's output) is not read again
 * soon, and skipping the read-for-ownership of every written line saves a quarter of the memory traffic,
 * which is what bounds these copies.  memcpy does this only for copies larger than the caches. */
static void gs_copy_stream(char *dst, const char *src, size_t n)
{
#ifdef __SSE2__
    size_t head = (16 - (uintptr_t)dst % 16) % 16;
    if (n >= 256 + head) {
        memcpy(dst, src, head);
        dst += head, src += head, n -= head;
        for (; n >= 64; dst += 64, src += 64, n -= 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)src), b = _mm_loadu_si128((const __m128i *)src + 1),
                    c = _mm_loadu_si128((const __m128i *)src + 2), d = _mm_loadu_si128((const __m128i *)src + 3);
            _mm_stream_si128((__m128i *)dst, a);
            _mm_stream_si128((__m128i *)dst + 1, b);
            _mm_stream_si128((__m128i *)dst + 2, c);
            _mm_stream_si128((__m128i *)dst + 3, d);
        }
    }
#endif
    memcpy(dst, src, n);
}

/* Copies cols columns of width bytes; the stores are made visible (sfence) before it returns, since another
 * thread or the copy engine reads them next. */
static void gs_xfer_copy_cols(char *dst, size_t dld, const char *src, size_t sld, size_t width, size_t cols)
{
    if (dld == width && sld == width)
        gs_copy_stream(dst, src, width * cols);
    else
        for (size_t j = 0; j < cols; j++)
            gs_copy_stream(dst + j * dld, src + j * sld, width);
#ifdef __SSE2__
    _mm_sfence();
#endif
}

static int gs_xfer_run(gs_call_t *c, const gs_task_t *t)
{
    gs_stage_t *b = t->buf;
    if (t->kind == GS_UNPACK) { /* the waiter has seen its copy complete */
        gs_xfer_copy_cols(t->host, t->ld, b->p, t->width, t->width, t->cols);
        return GS_OK;
    }
    GS_CUDA(c, cudaEventSynchronize, (b->ev));
    gs_xfer_copy_cols(b->p, t->width, t->host, t->ld, t->width, t->cols);
    GS_CUDA(c, cudaMemcpy2DAsync, (t->dev, t->dpitch, b->p, t->width, t->width, t->cols, cudaMemcpyHostToDevice,
                                   gs_dev(c)->up));
    int st = GS_CALLED(cudaEventRecord, (b->ev, gs_dev(c)->up));
    if (st != 0) {
        /* Without its event the copy queued could still be reading the buffer when it is filled again. */
        gs_cuda.cudaStreamSynchronize(gs_dev(c)->up);
        return gs_cuda_error(c, "cudaEventRecord", st, __FILE__, __LINE__);
    }
    return GS_OK;
}

/* Called with the lock held when a task has ended. */
static void gs_xfer_task_done(gs_engine_t *x, const gs_task_t *t, int rc, const char *why)
{
    gs_xjob_t *j = t->job;
    if (rc != GS_OK && j->err == GS_OK) {
        j->err = rc;
        snprintf(j->why, sizeof j->why, "%s", why);
    }
    x->free[x->nfree++] = t->buf;
    pthread_cond_signal(&x->freed);
    if (--j->pending == 0)
        pthread_cond_broadcast(&x->done);
}

static bool gs_xfer_ready(const gs_engine_t *x) { return x->unpack.count > 0 || x->pack.count > 0; }

/* Runs one queued task, unpacking first; called and returns with the lock held. */
static void gs_xfer_run_one(gs_engine_t *x)
{
    gs_task_t t = gs_queue_pop(x->unpack.count ? &x->unpack : &x->pack);
    /* After a failure the rest of the job is abandoned: no copy is queued and no user memory written. */
    bool skip = t.job->err != GS_OK;
    pthread_mutex_unlock(&x->lock);
    gs_call_t c = {.why = "", .dev = (uint8_t)x->dev};
    int rc = skip ? GS_OK : gs_xfer_run(&c, &t);
    pthread_mutex_lock(&x->lock);
    gs_xfer_task_done(x, &t, rc, c.why);
}

static void *gs_xfer_worker(void *arg)
{
    gs_engine_t *x = arg;
    gs_cuda.cudaSetDevice(gs_devices[x->dev].ordinal); /* a failure shows in the first task's CUDA call */
    pthread_mutex_lock(&x->lock);
    for (;;) {
        while (!gs_xfer_ready(x))
            pthread_cond_wait(&x->work, &x->lock);
        gs_xfer_run_one(x);
    }
    return NULL;
}

static void *gs_xfer_waiter(void *arg)
{
    gs_engine_t *x = arg;
    gs_cuda.cudaSetDevice(gs_devices[x->dev].ordinal);
    pthread_mutex_lock(&x->lock);
    for (;;) {
        while (x->arriving.count == 0)
            pthread_cond_wait(&x->wait, &x->lock);
        gs_task_t t = gs_queue_pop(&x->arriving);
        bool skip = t.job->err != GS_OK;
        pthread_mutex_unlock(&x->lock);
        gs_call_t c = {.why = ""};
        int st = skip ? 0 : GS_CALLED(cudaEventSynchronize, (t.buf->ev));
        int rc = st ? gs_cuda_error(&c, "cudaEventSynchronize", st, __FILE__, __LINE__) : GS_OK;
        pthread_mutex_lock(&x->lock);
        if (rc != GS_OK || skip) {
            gs_xfer_task_done(x, &t, rc, c.why);
        } else {
            gs_queue_push(&x->unpack, &t);
            pthread_cond_signal(&x->work);
        }
    }
    return NULL;
}

/* Falls back to direct copies, telling the user once why. */
static void gs_xfer_direct(gs_engine_t *x, const char *why)
{
    if (!gs.opt.quiet)
        gs_msg("%s; copying from pageable memory instead (slower)", why);
    x->state = -1;
}

void gs_xfer_start(int dev)
{
    gs_engine_t *x = &gs_xfer[dev];
    if (x->state != 0)
        return;
    x->dev = dev;
    size_t pinned = gs.opt.pinned > 1e15 ? (size_t)1e15 : (size_t)gs.opt.pinned;
    int nbuf = (int)(pinned / GS_XFER_CHUNK);
    nbuf = nbuf < 4 ? 4 : nbuf > GS_XFER_MAXBUF ? GS_XFER_MAXBUF : nbuf;
    size_t chunk = pinned / (size_t)nbuf & ~(size_t)0xffff;
    if (chunk == 0) {
        gs_xfer_direct(x, "GPUSHIM_PINNED is less than 256 KiB");
        return;
    }
    char *mem;
    int st = GS_CALLED(cudaHostAlloc, ((void **)&mem, chunk * (size_t)nbuf, cudaHostAllocPortable));
    char why[240];
    if (st != 0) {
        gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches (backend/cuda_call.c) */
        snprintf(why, sizeof why, "cannot allocate %zu bytes of pinned memory (GPUSHIM_PINNED; cudaHostAlloc: %s)",
                 chunk * (size_t)nbuf, gs_cuda.cudaGetErrorString(st));
        gs_xfer_direct(x, why);
        return;
    }
    for (int i = 0; i < nbuf; i++) {
        x->buf[i].p = mem + (size_t)i * chunk;
        if ((st = GS_CALLED(cudaEventCreateWithFlags, (&x->buf[i].ev, cudaEventDisableTiming))) != 0) {
            gs_cuda.cudaFreeHost(mem); /* the events made so far are small and stay */
            snprintf(why, sizeof why, "cannot create CUDA events for staging (cudaEventCreateWithFlags: %s)",
                     gs_cuda.cudaGetErrorString(st));
            gs_xfer_direct(x, why);
            return;
        }
        x->free[i] = &x->buf[i];
    }
    x->nfree = nbuf;
    x->chunk = chunk;
    x->mem = mem;
    x->state = 2;
}

/* The copy threads, made by the engine's first copy rather than at bring-up, which may be on gpushim's own
 * thread (dispatch/warmup.c): they take the attributes of a thread of the program's.  With the GPU lock held. */
static void gs_xfer_spawn(gs_engine_t *x)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int want = gs.opt.copy_threads > 0 ? gs.opt.copy_threads : cpus < 1 ? 1 : cpus > 16 ? 16 : (int)cpus;
    if (want > GS_XFER_MAXTHREADS)
        want = GS_XFER_MAXTHREADS;
    /* The threads block every signal, so that the program's handlers run on its own threads only. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int made = -1; /* the waiter first */
    for (; made < want; made++) {
        pthread_t t;
        if (pthread_create(&t, NULL, made < 0 ? gs_xfer_waiter : gs_xfer_worker, x) != 0)
            break;
        pthread_detach(t);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (made <= 0) { /* a waiter without copy threads is harmless: it only ever sees an empty queue */
        gs_cuda.cudaFreeHost(x->mem);
        gs_xfer_direct(x, "cannot start copy threads");
        return;
    }
    x->nthreads = made;
    x->state = 1;
}

/* The engine of c's device, about to copy: its copy threads start at its first copy. */
static gs_engine_t *gs_xfer_copying(const gs_call_t *c)
{
    gs_engine_t *x = &gs_xfer[c->dev];
    if (x->state == 2)
        gs_xfer_spawn(x);
    return x;
}

/* Pieces of a region: whole columns when a column fits a piece, else parts of one column. */
typedef struct {
    const gs_hreg_t *h;
    size_t piece; /* bytes, a multiple of 16 so that parts of a column start on an element */
    size_t c0, r0;
} gs_xiter_t;

/* Regions are cut so that every copy thread gets a piece, in staging buffers of at most chunk bytes. */
static gs_xiter_t gs_xiter(const gs_engine_t *x, const gs_hreg_t *h)
{
    size_t piece = h->width * h->cols / (size_t)x->nthreads;
    piece = piece < GS_XFER_MINPIECE ? GS_XFER_MINPIECE : piece > x->chunk ? x->chunk : piece;
    return (gs_xiter_t){.h = h, .piece = piece & ~(size_t)15};
}

/* The next piece: byte offset r0 in its columns, first column c0, width w and column count n. */
static bool gs_xiter_next(gs_xiter_t *it, size_t *r0, size_t *c0, size_t *w, size_t *n)
{
    const gs_hreg_t *h = it->h;
    if (it->c0 >= h->cols)
        return false;
    *r0 = it->r0;
    *c0 = it->c0;
    if (h->width <= it->piece) {
        size_t per = it->piece / h->width;
        *w = h->width;
        *n = per < h->cols - it->c0 ? per : h->cols - it->c0;
        it->c0 += *n;
    } else {
        *w = it->piece < h->width - it->r0 ? it->piece : h->width - it->r0;
        *n = 1;
        it->r0 += *w;
        if (it->r0 == h->width)
            it->r0 = 0, it->c0++;
    }
    return true;
}

static gs_stage_t *gs_xfer_acquire(gs_engine_t *x)
{
    pthread_mutex_lock(&x->lock);
    while (x->nfree == 0)
        pthread_cond_wait(&x->freed, &x->lock);
    gs_stage_t *b = x->free[--x->nfree];
    pthread_mutex_unlock(&x->lock);
    return b;
}

static void gs_xfer_release(gs_engine_t *x, gs_stage_t *b)
{
    pthread_mutex_lock(&x->lock);
    x->free[x->nfree++] = b;
    pthread_cond_signal(&x->freed);
    pthread_mutex_unlock(&x->lock);
}

static void gs_xfer_submit(gs_engine_t *x, const gs_task_t *t)
{
    pthread_mutex_lock(&x->lock);
    t->job->pending++;
    if (t->kind == GS_PACK) {
        gs_queue_push(&x->pack, t);
        pthread_cond_signal(&x->work);
    } else {
        gs_queue_push(&x->arriving, t);
        pthread_cond_signal(&x->wait);
    }
    pthread_mutex_unlock(&x->lock);
}

int gs_xfer_put(gs_call_t *c, char *dev, size_t dpitch, const gs_hreg_t *h)
{
    if (h->width == 0 || h->cols == 0)
        return GS_OK;
    gs_engine_t *x = gs_xfer_copying(c);
    c->bytes_h2d += h->width * h->cols;
    if (x->state < 0 || gs_hostreg_has(h->host, gs_hreg_extent(h))) {
        GS_CUDA(c, cudaMemcpy2DAsync, (dev, dpitch, h->host, h->ld, h->width, h->cols, cudaMemcpyHostToDevice,
                                       gs_dev(c)->up));
        return GS_OK;
    }
    gs_xjob_t j = {0};
    gs_xiter_t it = gs_xiter(x, h);
    size_t r0, c0, w, n;
    while (gs_xiter_next(&it, &r0, &c0, &w, &n))
        gs_xfer_submit(x, &(gs_task_t){.kind = GS_PACK, .buf = gs_xfer_acquire(x), .host = h->host + r0 + c0 * h->ld,
                                       .width = w, .ld = h->ld, .cols = n, .dev = dev + r0 + c0 * dpitch,
                                       .dpitch = dpitch, .job = &j});
    return gs_xfer_finish(c, &j);
}

int gs_xfer_get(gs_call_t *c, gs_xjob_t *j, const gs_hreg_t *h, const char *dev, size_t dpitch)
{
    if (h->width == 0 || h->cols == 0)
        return GS_OK;
    gs_engine_t *x = gs_xfer_copying(c);
    cudaStream_t down = gs_dev(c)->down;
    c->bytes_d2h += h->width * h->cols;
    if (x->state < 0 || gs_hostreg_has(h->host, gs_hreg_extent(h))) {
        j->direct = true;
        GS_CUDA(c, cudaMemcpy2DAsync, (h->host, h->ld, dev, dpitch, h->width, h->cols, cudaMemcpyDeviceToHost, down));
        return GS_OK;
    }
    gs_xiter_t it = gs_xiter(x, h);
    size_t r0, c0, w, n;
    while (gs_xiter_next(&it, &r0, &c0, &w, &n)) {
        gs_stage_t *b = gs_xfer_acquire(x);
        const char *src = dev + r0 + c0 * dpitch;
        /* The buffer's last upload may still be reading it. */
        int st = GS_CALLED(cudaStreamWaitEvent, (down, b->ev, 0));
        const char *name = "cudaStreamWaitEvent";
        if (st == 0 &&
            (st = GS_CALLED(cudaMemcpy2DAsync, (b->p, w, src, dpitch, w, n, cudaMemcpyDeviceToHost, down))) != 0)
            name = "cudaMemcpy2DAsync";
        bool queued = st == 0;
        if (queued && (st = GS_CALLED(cudaEventRecord, (b->ev, down))) != 0)
            name = "cudaEventRecord";
        if (st != 0) {
            /* A copy queued without its event could land in the buffer after its next use has filled it. */
            if (queued)
                gs_cuda.cudaStreamSynchronize(down);
            gs_xfer_release(x, b);
            return gs_cuda_error(c, name, st, __FILE__, __LINE__);
        }
        gs_xfer_submit(x, &(gs_task_t){.kind = GS_UNPACK, .buf = b, .host = h->host + r0 + c0 * h->ld, .width = w,
                                       .ld = h->ld, .cols = n, .job = j});
    }
    return GS_OK;
}

int gs_xfer_finish(gs_call_t *c, gs_xjob_t *j)
{
    gs_engine_t *x = &gs_xfer[c->dev];
    if (x->state < 0)
        j->direct = true;
    /* The calling thread copies too while it waits: one more pair of hands. */
    pthread_mutex_lock(&x->lock);
    while (j->pending > 0) {
        if (gs_xfer_ready(x))
            gs_xfer_run_one(x);
        else
            pthread_cond_wait(&x->done, &x->lock);
    }
    pthread_mutex_unlock(&x->lock);
    if (j->err != GS_OK)
        gs_call_why(c, "%s", j->why);
    /* Direct downloads must have landed, or failed, before the call returns, on error paths too: the CPU
     * may be about to write the same memory. */
    int st = j->direct ? GS_CALLED(cudaStreamSynchronize, (gs_dev(c)->down)) : 0;
    if (st != 0 && j->err == GS_OK)
        return gs_cuda_error(c, "cudaStreamSynchronize", st, __FILE__, __LINE__);
    return j->err;
}

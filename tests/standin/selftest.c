/* Self-test of the CUDA stand-in (tests/standin): queued work is deferred to synchronisation points, the
 * scheduler reorders streams that no event orders, waits capture the record current at the call, cuFFT's
 * transforms match a naive DFT, and the errors, faults, bounds, threads and report behave as standin.h says.
 * Run with no argument: it runs itself once per scenario and seed (a fresh process each, so the seed and the
 * report are per run) and exits 1 if any check failed, printing each failure. */
#ifndef _GNU_SOURCE /* the Makefile's TEST_CFLAGS define it */
#define _GNU_SOURCE
#endif
#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "standin.h"

static int failures;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            failures++; \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__); \
            printf("\n"); \
            fflush(stdout); \
        } \
    } while (0)
/* A call that must return 0 (cudaSuccess, CUBLAS_STATUS_SUCCESS). */
#define OK(call) CHECK((int)(call) == 0, "%s returned %d", #call, (int)(call))
/* A call that must return status e. */
#define IS(e, call) \
    do { \
        int rc_ = (int)(call); \
        CHECK(rc_ == (int)(e), "%s returned %d, expected %s (%d)", #call, rc_, #e, (int)(e)); \
    } while (0)

enum { N = 4 }; /* matrices are N x N doubles */
#define BYTES (N * N * sizeof(double))

static void fill(double *m, double v)
{
    for (int i = 0; i < N * N; i++)
        m[i] = v + i;
}

/* 1: every element is v + i;  0: some element differs;  -1: some element is NaN (poisoned memory). */
static int holds(const double *m, double v)
{
    int ok = 1;
    for (int i = 0; i < N * N; i++) {
        if (isnan(m[i]))
            return -1;
        ok &= m[i] == v + i;
    }
    return ok;
}

/* Reads device memory at once through a pageable copy on an idle stream, so that nothing queued runs. */
static void peek(double *out, const void *d, cudaStream_t idle)
{
    OK(cudaMemcpy2DAsync(out, BYTES, d, BYTES, BYTES, 1, cudaMemcpyDeviceToHost, idle));
}

static void h2d(void *d, const void *h, cudaStream_t s)
{
    OK(cudaMemcpy2DAsync(d, BYTES, h, BYTES, BYTES, 1, cudaMemcpyHostToDevice, s));
}

static void d2h(void *h, const void *d, cudaStream_t s)
{
    OK(cudaMemcpy2DAsync(h, BYTES, d, BYTES, BYTES, 1, cudaMemcpyDeviceToHost, s));
}

/* C = alpha A I on h's stream. */
static void copy_gemm(cublasHandle_t h, double alpha, const double *dA, const double *dI, double *dC)
{
    double beta = 0;
    OK(cublasDgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, dA, N, dI, N, &beta, dC, N));
}

static double *device(void)
{
    void *d = NULL;
    OK(cudaMalloc(&d, BYTES));
    return d;
}

static double *pinned(void)
{
    void *h = NULL;
    OK(cudaHostAlloc(&h, BYTES, 0));
    return h;
}

static cudaStream_t stream(void)
{
    cudaStream_t s = NULL;
    OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return s;
}

static cudaEvent_t event(void)
{
    cudaEvent_t e = NULL;
    OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    return e;
}

/* The identity, on the device, uploaded synchronously. */
static double *identity(cudaStream_t s)
{
    double I[N * N] = {0}, *dI = device();
    for (int i = 0; i < N; i++)
        I[i + i * N] = 1;
    h2d(dI, I, s);
    return dI;
}

/* Appended to the report by scenarios whose report the driver checks ("expect KEY=VALUE …"): what the
 * stand-in's own line, written after it at exit, must say. */
__attribute__((format(printf, 1, 2))) static void expect(const char *fmt, ...)
{
    const char *path = getenv("GS_STANDIN_REPORT");
    FILE *f = path ? fopen(path, "a") : NULL;
    if (f) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(f, "expect ");
        vfprintf(f, fmt, ap);
        fprintf(f, "\n");
        va_end(ap);
        fclose(f);
    }
}

/* ---- scenario "basic": everything deterministic, in one process -------------------------------------- */

static int basic(void)
{
    unsigned long hostallocs = 0, registers = 0, events = 0, v0 = standin_violations();
    double out[N * N];
    cudaStream_t up = stream(), comp = stream(), down = stream(), idle = stream();
    cublasHandle_t h;
    OK(cublasCreate_v2(&h));
    OK(cublasSetStream_v2(h, comp));
    double *d = device(), *d2 = device(), *dC = device(), *dI = identity(idle);
    double *hp = pinned(), *hq = pinned();
    hostallocs += 2;

    /* Pinned memory is poisoned. */
    CHECK(isnan(hp[0]) && isnan(hp[N * N - 1]), "cudaHostAlloc memory is not poisoned");

    /* Deferral: an upload from pinned memory overwritten before synchronisation delivers the new data. */
    fill(hp, 1);
    h2d(d, hp, up);
    CHECK(standin_pending() == 1, "a pinned upload was not queued (%lu pending)", standin_pending());
    fill(hp, 2);
    OK(cudaStreamSynchronize(up));
    CHECK(standin_pending() == 0, "cudaStreamSynchronize left work queued");
    peek(out, d, idle);
    CHECK(holds(out, 2) == 1, "a pinned upload read its buffer at the call, not when it ran");

    /* ... and with cudaEventSynchronize before reusing the buffer, each upload delivers its own data. */
    cudaEvent_t staged = event();
    events++;
    fill(hp, 10);
    h2d(d, hp, up);
    OK(cudaEventRecord(staged, up));
    OK(cudaEventSynchronize(staged));
    fill(hp, 20);
    h2d(d2, hp, up);
    OK(cudaStreamSynchronize(up));
    peek(out, d, idle);
    CHECK(holds(out, 10) == 1, "the first upload through a reused pinned buffer is wrong after an event sync");
    peek(out, d2, idle);
    CHECK(holds(out, 20) == 1, "the second upload through a reused pinned buffer is wrong");

    /* A pageable copy runs at the call. */
    double pg[N * N];
    fill(pg, 3);
    h2d(d, pg, up);
    CHECK(standin_pending() == 0, "a pageable upload was queued");
    fill(pg, 4);
    OK(cudaStreamSynchronize(up));
    peek(out, d, idle);
    CHECK(holds(out, 3) == 1, "a pageable upload did not copy at the call");

    /* A pageable copy first runs its own stream's queue. */
    fill(hp, 5);
    h2d(d, hp, up);
    d2h(out, d, up);
    CHECK(holds(out, 5) == 1, "a pageable download did not run its stream's earlier upload first");

    /* Registered memory: not poisoned, copies from it are queued, cudaHostUnregister drains. */
    double *reg = malloc(4096);
    fill(reg, 7);
    OK(cudaHostRegister(reg, 4096, cudaHostRegisterDefault));
    registers++;
    CHECK(holds(reg, 7) == 1, "cudaHostRegister changed the memory");
    h2d(d, reg, up);
    CHECK(standin_pending() == 1, "an upload from registered memory was not queued");
    fill(reg, 8);
    OK(cudaHostUnregister(reg));
    CHECK(standin_pending() == 0, "cudaHostUnregister did not synchronise");
    peek(out, d, idle);
    CHECK(holds(out, 8) == 1, "an upload from registered memory was not deferred");

    /* A download into pinned memory is queued too. */
    fill(hq, 9);
    d2h(hq, d, down);
    CHECK(holds(hq, 9) == 1, "a pinned download ran at the call");
    cudaEvent_t got = event();
    events++;
    OK(cudaEventRecord(got, down));
    OK(cudaEventSynchronize(got));
    CHECK(holds(hq, 8) == 1, "cudaEventSynchronize did not run the download before its record");

    /* cuBLAS calls are queued, with their scalars read at the call. */
    fill(hp, 1);
    h2d(d, hp, up);
    OK(cudaStreamSynchronize(up));
    double alpha = 2, beta = 0;
    OK(cublasDgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &alpha, d, N, dI, N, &beta, dC, N));
    alpha = 100, beta = 5;
    CHECK(standin_pending() == 1, "a cuBLAS call was not queued");
    peek(out, dC, idle);
    CHECK(holds(out, 0) == -1, "a queued cuBLAS call wrote its result at the call");
    OK(cudaStreamSynchronize(comp));
    peek(out, dC, idle);
    for (int i = 0; i < N * N; i++)
        out[i] /= 2;
    CHECK(holds(out, 1) == 1, "a cuBLAS call did not use the scalars as they were at the call");

    /* A handle with no stream set runs on stream 0: at once, after everything queued. */
    cublasHandle_t h0;
    OK(cublasCreate_v2(&h0));
    fill(hp, 6);
    h2d(d, hp, up);
    copy_gemm(h0, 1, d, dI, dC);
    CHECK(standin_pending() == 0, "a cuBLAS call on stream 0 was queued");
    peek(out, dC, idle);
    CHECK(holds(out, 6) == 1, "a cuBLAS call on stream 0 did not run after the queued upload");
    OK(cublasDestroy_v2(h0));
    IS(CUBLAS_STATUS_NOT_INITIALIZED, cublasSetStream_v2(h0, comp));

    /* Stream 0 copies drain everything, then run at once, pinned or not. */
    fill(hp, 11);
    h2d(d2, hp, up);
    fill(hq, 12);
    h2d(d, hq, NULL);
    CHECK(standin_pending() == 0, "a copy on stream 0 left work queued");
    peek(out, d2, idle);
    CHECK(holds(out, 11) == 1, "a copy on stream 0 did not run the other streams first");

    /* cudaEventQuery: success for a never-recorded event; NotReady while the record is queued; polling ends. */
    cudaEvent_t q = event();
    events++;
    IS(cudaSuccess, cudaEventQuery(q));
    for (int i = 0; i < 10; i++)
        h2d(d, hp, up);
    OK(cudaEventRecord(q, up));
    IS(cudaErrorNotReady, cudaEventQuery(q));
    int polls = 1;
    while (cudaEventQuery(q) == cudaErrorNotReady && polls < 100)
        polls++;
    CHECK(polls < 100, "polling cudaEventQuery never completed");
    IS(cudaSuccess, cudaEventQuery(q));
    OK(cudaEventRecord(q, NULL));
    IS(cudaSuccess, cudaEventQuery(q));

    /* cudaStreamQuery likewise. */
    for (int i = 0; i < 10; i++)
        h2d(d, hp, up);
    IS(cudaErrorNotReady, cudaStreamQuery(up));
    for (polls = 1; cudaStreamQuery(up) == cudaErrorNotReady && polls < 100;)
        polls++;
    CHECK(polls < 100 && standin_pending() == 0, "polling cudaStreamQuery never completed");

    /* Waiting for a never-recorded event is a no-op. */
    cudaEvent_t never = event();
    events++;
    OK(cudaStreamWaitEvent(comp, never, 0));
    CHECK(standin_pending() == 0, "a wait for a never-recorded event was queued");

    /* A wait captures the record current at the call: here, waiting for the later record instead would make
     * a cycle (comp waits for up's second record, which waits for comp's own record). */
    cudaEvent_t e = event(), back = event();
    events += 2;
    fill(hp, 13);
    h2d(d, hp, up);
    OK(cudaEventRecord(e, up));
    OK(cudaStreamWaitEvent(comp, e, 0));
    OK(cudaEventRecord(back, comp));
    OK(cudaStreamWaitEvent(up, back, 0));
    OK(cudaEventRecord(e, up));
    unsigned long vbefore = standin_violations();
    OK(cudaDeviceSynchronize());
    CHECK(standin_violations() == vbefore && standin_pending() == 0, "a re-recorded event deadlocked a wait");

    /* Destroying an event with a record queued: the record and the waits for it still complete. */
    cudaEvent_t gone = event();
    events++;
    h2d(d, hp, up);
    OK(cudaEventRecord(gone, up));
    OK(cudaStreamWaitEvent(comp, gone, 0));
    OK(cudaEventDestroy(gone));
    OK(cudaStreamSynchronize(comp));
    CHECK(standin_violations() == vbefore, "a destroyed event's queued record went wrong");

    /* cudaFree and cudaFreeHost synchronise. */
    double *tmp = device();
    h2d(d, hp, up);
    OK(cudaFree(tmp));
    CHECK(standin_pending() == 0, "cudaFree did not synchronise");
    double *tmph = pinned();
    hostallocs++;
    h2d(d, hp, up);
    OK(cudaFreeHost(tmph));
    CHECK(standin_pending() == 0, "cudaFreeHost did not synchronise");

    /* cudaMemGetInfo: total is GS_STANDIN_MEM, free is what cudaMalloc left. */
    size_t fr = 0, tot = 0, fr2 = 0;
    OK(cudaMemGetInfo(&fr, &tot));
    const char *mem = getenv("GS_STANDIN_MEM");
    CHECK(mem && tot == strtoull(mem, NULL, 0), "cudaMemGetInfo total %zu, GS_STANDIN_MEM %s", tot, mem);
    CHECK(fr == tot - 4 * BYTES, "cudaMemGetInfo free %zu, expected %zu", fr, tot - 4 * BYTES);
    void *big = NULL;
    OK(cudaMalloc(&big, 1 << 20));
    OK(cudaMemGetInfo(&fr2, &tot));
    CHECK(fr2 == fr - (1 << 20), "cudaMemGetInfo free did not drop by a cudaMalloc");
    OK(cudaFree(big));
    OK(cudaMemGetInfo(&fr2, &tot));
    CHECK(fr2 == fr, "cudaMemGetInfo free did not come back after cudaFree");

    /* Errors that are not violations. */
    double *reg2 = malloc(8192);
    OK(cudaHostRegister(reg2, 4096, 0));
    registers++;
    IS(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister(reg2 + 8, 16, 0));
    IS(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister((char *)reg2 - 8, 16, 0));
    IS(cudaErrorHostMemoryAlreadyRegistered, cudaHostRegister(hp + 1, 8, 0));
    OK(cudaHostRegister((char *)reg2 + 4096, 4096, 0)); /* adjacent, not overlapping */
    registers++;
    IS(cudaErrorInvalidValue, cudaHostRegister(reg2, 0, 0));
    IS(cudaErrorInvalidValue, cudaHostRegister(reg2, 16, 0x100));
    void *bad = NULL;
    IS(cudaErrorInvalidValue, cudaHostAlloc(&bad, 16, 0x100));
    IS(cudaErrorInvalidValue, cudaStreamWaitEvent(comp, e, 0x100));
    cudaEvent_t no_event;
    IS(cudaErrorInvalidValue, cudaEventCreateWithFlags(&no_event, 0x100));
    CHECK(standin_violations() == v0, "%lu violations where none was expected", standin_violations() - v0);

    /* Violations: each bad call below records exactly one. */
    unsigned long deliberate = 0, v1 = standin_violations();
#define VIOLATES(e, call) \
    do { \
        IS(e, call); \
        deliberate++; \
        CHECK(standin_violations() == v1 + deliberate, "%s did not record a violation", #call); \
    } while (0)
    VIOLATES(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(pg));
    VIOLATES(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(reg2 + 1));
    VIOLATES(cudaErrorHostMemoryNotRegistered, cudaHostUnregister(hp));
    VIOLATES(cudaErrorInvalidValue, cudaFreeHost(reg2));
    VIOLATES(cudaErrorInvalidValue, cudaFreeHost(pg));
    VIOLATES(cudaErrorInvalidValue, cudaHostRegister(d + 1, 8, 0));
    int junk[16] = {0};
    VIOLATES(cudaErrorInvalidResourceHandle, cudaEventRecord((cudaEvent_t)(void *)junk, up));
    VIOLATES(cudaErrorInvalidResourceHandle, cudaEventQuery(gone));
    VIOLATES(cudaErrorInvalidResourceHandle, cudaStreamSynchronize((cudaStream_t)(void *)junk));
    VIOLATES(cudaErrorInvalidResourceHandle, cudaStreamWaitEvent((cudaStream_t)(void *)junk, e, 0));
    VIOLATES(cudaErrorInvalidValue, /* runs past the end of d; nothing is copied */
             cudaMemcpy2DAsync(d, BYTES + 8, pg, BYTES + 8, BYTES + 8, 1, cudaMemcpyHostToDevice, up));
    VIOLATES(-1, standin_enqueue((cudaStream_t)(void *)junk, NULL, NULL, 0));
    cudaStream_t dead = stream();
    OK(cudaStreamDestroy(dead));
    VIOLATES(cudaErrorInvalidResourceHandle, cudaStreamSynchronize(dead));

    OK(cudaHostUnregister(reg2));
    OK(cudaHostUnregister((char *)reg2 + 4096));
    OK(cudaFreeHost(hp));
    OK(cudaFreeHost(hq));
    OK(cudaFree(d));
    OK(cudaFree(d2));
    OK(cudaFree(dC));
    OK(cudaFree(dI));
    free(reg);
    free(reg2);
    CHECK(standin_pending() == 0, "work still queued at the end");
    expect("pinned_allocs=%lu registers=%lu events=%lu violations=%lu", hostallocs, registers, events,
           standin_violations());
    return failures != 0;
}

/* ---- scenario "hazard": an upload on one stream, cuBLAS on another, with or without the event wait ------- */

/* Exit status 0: the result is right; 10: poisoned (the GEMM ran before the upload); 1: anything else. */
static int hazard(int wait)
{
    cudaStream_t up = stream(), comp = stream();
    cudaEvent_t uploaded = event();
    cublasHandle_t h;
    OK(cublasCreate_v2(&h));
    OK(cublasSetStream_v2(h, comp));
    double *dA = device(), *dC = device(), *dI = identity(comp), *hA = pinned(), *hC = pinned();
    fill(hA, 1);
    h2d(dA, hA, up);
    OK(cudaEventRecord(uploaded, up));
    if (wait)
        OK(cudaStreamWaitEvent(comp, uploaded, 0));
    copy_gemm(h, 1, dA, dI, dC);
    d2h(hC, dC, comp);
    OK(cudaStreamSynchronize(comp));
    int r = holds(hC, 1);
    if (failures)
        return 1;
    return r == 1 ? 0 : r == -1 ? 10 : 1;
}

/* ---- scenario "capture": a wait captures the record current at the call ------------------------------- */

/* up: copy 1 into d, record e, copy 2 into d, record e again.  down waits for the first record (the wait is
 * made between the two records), then downloads d.  Exit status 0: got 1; 10: got 2 (the scheduler ran the
 * second copy first, as it may); 1: poisoned or anything else (the wait was not honoured). */
static int capture(void)
{
    cudaStream_t up = stream(), down = stream();
    cudaEvent_t e = event();
    double *d = device(), *h1 = pinned(), *h2 = pinned(), *hout = pinned();
    fill(h1, 1);
    fill(h2, 2);
    h2d(d, h1, up);
    OK(cudaEventRecord(e, up));
    OK(cudaStreamWaitEvent(down, e, 0));
    d2h(hout, d, down);
    h2d(d, h2, up);
    OK(cudaEventRecord(e, up));
    OK(cudaStreamSynchronize(down));
    if (failures)
        return 1;
    return holds(hout, 1) == 1 ? 0 : holds(hout, 2) == 1 ? 10 : 1;
}

/* ---- scenario "fault": a failure injected at a synchronisation point discards queued work -------------- */

/* Run with GS_STANDIN_FAIL=cudaStreamSynchronize:1,cudaHostAlloc:3,cudaHostRegister,cudaEventQuery:1. */
static int fault(void)
{
    cudaStream_t up = stream(), comp = stream(), idle = stream();
    cudaEvent_t e = event();
    double *d = device(), *hp = pinned(), *hq = pinned(), out[N * N];
    void *p = NULL;
    IS(cudaErrorMemoryAllocation, cudaHostAlloc(&p, 64, 0));
    IS(cudaErrorMemoryAllocation, cudaHostRegister(out, sizeof out, 0));
    fill(hp, 1);
    h2d(d, hp, up);
    OK(cudaEventRecord(e, up));
    OK(cudaStreamWaitEvent(comp, e, 0));
    IS(cudaErrorLaunchFailure, cudaStreamSynchronize(up));
    CHECK(standin_pending() == 0, "a failed synchronisation left work queued");
    peek(out, d, idle);
    CHECK(holds(out, 1) == -1, "work discarded by a failed synchronisation ran anyway");
    OK(cudaEventSynchronize(e));
    OK(cudaStreamSynchronize(comp));
    h2d(d, hp, up);
    OK(cudaEventRecord(e, up));
    IS(cudaErrorLaunchFailure, cudaEventQuery(e));
    IS(cudaSuccess, cudaEventQuery(e));
    OK(cudaFreeHost(hp));
    OK(cudaFreeHost(hq));
    OK(cudaFree(d));
    expect("discarded=%d", 5); /* upload, record and wait; then upload and record */
    return failures != 0;
}

/* ---- scenario "bound": queued work stays bounded ------------------------------------------------------ */

static int bound(void)
{
    enum { COPIES = 10000 };
    cudaStream_t up = stream(), idle = stream();
    double *d = NULL, *hp = NULL;
    OK(cudaMalloc((void **)&d, COPIES * sizeof *d));
    OK(cudaHostAlloc((void **)&hp, COPIES * sizeof *hp, 0));
    unsigned long most = 0;
    for (int i = 0; i < COPIES; i++) {
        hp[i] = i;
        OK(cudaMemcpy2DAsync(d + i, 8, hp + i, 8, 8, 1, cudaMemcpyHostToDevice, up));
        unsigned long n = standin_pending();
        most = n > most ? n : most;
    }
    CHECK(most <= 4096 && most >= 3072, "%lu operations queued at most, expected 3072 to 4096", most);
    OK(cudaStreamSynchronize(up));
    double *out = malloc(COPIES * sizeof *out);
    OK(cudaMemcpy2DAsync(out, COPIES * 8, d, COPIES * 8, COPIES * 8, 1, cudaMemcpyDeviceToHost, idle));
    int wrong = 0;
    for (int i = 0; i < COPIES; i++)
        wrong += out[i] != i;
    CHECK(!wrong, "%d of %d copies wrong", wrong, COPIES);
    free(out);
    return failures != 0;
}

/* ---- scenario "threads": a pipeline in the shim's shape, from three threads -------------------------- */

/* Two upload workers stage tiles through one pinned buffer each (cudaEventSynchronize before reusing it)
 * onto a shared upload stream; the main thread waits for each tile's event on the compute stream and runs
 * cuBLAS; a download worker waits for each result's event and copies it out through its own pinned buffer.
 * Every result must be right, whatever the seed.  The variants leave one step out, as a buggy shim would:
 * "noreuse" reuses a staging buffer without cudaEventSynchronize, "nowait" runs cuBLAS without waiting for
 * the upload; they exit 10 when some tile is wrong, which the driver requires for some seed. */
enum { TILES = 48, UPLOADERS = 2 };
static struct {
    cudaStream_t up, comp, down;
    cudaEvent_t uploaded[TILES], computed[TILES], fetched;
    double *dA[TILES], *dC[TILES], *dI;
    atomic_int up_ready[TILES], comp_ready[TILES];
    const char *variant; /* "", "noreuse" or "nowait" */
    double *stage[UPLOADERS][TILES / UPLOADERS];
    double result[TILES][N * N];
} P;

/* Each uploader cycles through a ring of pinned staging buffers, two normally; in "nowait" one per tile, so
 * that no cudaEventSynchronize of its own runs the uploads early and hides the missing wait. */
static void *uploader(void *arg)
{
    enum { RING = TILES / UPLOADERS };
    int w = (int)(intptr_t)arg, sync = strcmp(P.variant, "noreuse") != 0;
    int ring = strcmp(P.variant, "nowait") == 0 ? RING : 2, last[RING];
    double **stage = P.stage[w];
    for (int k = 0; k < ring; k++)
        stage[k] = pinned(), last[k] = -1;
    for (int t = w, k = 0; t < TILES; t += UPLOADERS, k = (k + 1) % ring) {
        if (last[k] >= 0 && sync)
            OK(cudaEventSynchronize(P.uploaded[last[k]])); /* the staging buffer is free again */
        fill(stage[k], 100 * t);
        h2d(P.dA[t], stage[k], P.up);
        OK(cudaEventRecord(P.uploaded[t], P.up));
        atomic_store(&P.up_ready[t], 1);
        last[k] = t;
    }
    return NULL; /* the staging buffers stay, as the shim's do: cudaFreeHost would synchronise */
}

static void *downloader(void *arg)
{
    (void)arg;
    double *stage = pinned();
    for (int t = 0; t < TILES; t++) {
        while (!atomic_load(&P.comp_ready[t]))
            sched_yield();
        OK(cudaStreamWaitEvent(P.down, P.computed[t], 0));
        d2h(stage, P.dC[t], P.down);
        OK(cudaEventRecord(P.fetched, P.down));
        OK(cudaEventSynchronize(P.fetched));
        memcpy(P.result[t], stage, BYTES);
    }
    OK(cudaFreeHost(stage));
    return NULL;
}

static int threads(const char *variant)
{
    P.variant = variant;
    P.up = stream(), P.comp = stream(), P.down = stream();
    P.dI = identity(P.comp);
    P.fetched = event();
    for (int t = 0; t < TILES; t++) {
        P.uploaded[t] = event(), P.computed[t] = event();
        P.dA[t] = device(), P.dC[t] = device();
    }
    cublasHandle_t h;
    OK(cublasCreate_v2(&h));
    OK(cublasSetStream_v2(h, P.comp));
    pthread_t th[UPLOADERS + 1];
    for (int w = 0; w < UPLOADERS; w++)
        pthread_create(&th[w], NULL, uploader, (void *)(intptr_t)w);
    pthread_create(&th[UPLOADERS], NULL, downloader, NULL);
    for (int t = 0; t < TILES; t++) {
        while (!atomic_load(&P.up_ready[t]))
            sched_yield();
        if (strcmp(variant, "nowait") != 0)
            OK(cudaStreamWaitEvent(P.comp, P.uploaded[t], 0));
        copy_gemm(h, 1, P.dA[t], P.dI, P.dC[t]);
        OK(cudaEventRecord(P.computed[t], P.comp));
        atomic_store(&P.comp_ready[t], 1);
    }
    for (int w = 0; w <= UPLOADERS; w++)
        pthread_join(th[w], NULL);
    for (int w = 0; w < UPLOADERS; w++)
        for (int k = 0; k < TILES / UPLOADERS && P.stage[w][k]; k++)
            OK(cudaFreeHost(P.stage[w][k]));
    int wrong = 0;
    for (int t = 0; t < TILES; t++)
        wrong += holds(P.result[t], 100 * t) != 1;
    CHECK(!wrong || *variant, "%d of %d tiles wrong", wrong, TILES);
    return failures ? 1 : wrong ? 10 : 0;
}

/* ---- scenario "fork": a call from a forked child is a violation in the child's report ---------------- */

static int forked(void)
{
    int n = 0;
    OK(cudaGetDeviceCount(&n));
    pid_t pid = fork();
    if (pid == 0) {
        cudaEvent_t e;
        cudaEventCreateWithFlags(&e, 0);
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return failures != 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

/* ---- scenario "devices": two devices, each allocation, stream and handle its own ------------------------ */

/* Under GS_STANDIN_DEVICES=2: work made with the device its memory, stream or handle belongs to is accepted;
 * the same with the other device current is a violation, one per misuse. */
static int devices(void)
{
    int n = 0;
    OK(cudaGetDeviceCount(&n));
    CHECK(n == 2, "%d devices, expected 2", n);
    double h[N * N], *d0 = NULL, *d1 = NULL;
    fill(h, 1);
    OK(cudaSetDevice(1));
    OK(cudaMalloc((void **)&d1, BYTES));
    cudaStream_t s1 = stream();
    cublasHandle_t h1;
    OK(cublasCreate_v2(&h1));
    OK(cublasSetStream_v2(h1, s1));
    OK(cudaMemcpy2DAsync(d1, 8 * N, h, 8 * N, 8 * N, N, cudaMemcpyHostToDevice, s1));
    double one = 1, zero = 0;
    OK(cublasDgemm_v2_64(h1, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, d1, N, d1, N, &zero, d1, N));
    OK(cudaStreamSynchronize(s1));
    CHECK(standin_violations() == 0, "%lu violations on device 1's own work", standin_violations());
    OK(cudaSetDevice(0));
    OK(cudaMalloc((void **)&d0, BYTES));
    cudaMemcpy2DAsync(d1, 8 * N, h, 8 * N, 8 * N, N, cudaMemcpyHostToDevice, s1);   /* s1 with device 0 current */
    CHECK(standin_violations() == 1, "a copy on device 1's stream with device 0 current: %lu violations",
          standin_violations());
    cudaMemcpy2DAsync(d1, 8 * N, h, 8 * N, 8 * N, N, cudaMemcpyHostToDevice, NULL);  /* device 1's memory */
    CHECK(standin_violations() == 2, "a copy into device 1's memory with device 0 current: %lu violations",
          standin_violations());
    OK(cudaSetDevice(1));
    cublasDgemm_v2_64(h1, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, d0, N, d1, N, &zero, d1, N); /* d0: device 0's */
    CHECK(standin_violations() == 3, "device 0's memory in device 1's GEMM: %lu violations", standin_violations());
    OK(cudaStreamSynchronize(s1));
    OK(cudaFree(d0));
    OK(cudaFree(d1));
    return failures != 0;
}

/* ---- scenario "fft": cuFFT's transforms against a naive DFT, its checks and its report --------------- */

static cudaStream_t fft_idle; /* nothing is ever queued here: copies through it run at once */

static void *dmalloc(size_t bytes)
{
    void *d = NULL;
    OK(cudaMalloc(&d, bytes));
    return d;
}

static void put(void *d, const void *h, size_t bytes)
{
    OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, fft_idle));
}

static void get(void *h, const void *d, size_t bytes)
{
    OK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, fft_idle));
}

/* out = the unnormalised DFT of the n0 x n1 complex array in (interleaved, the last index fastest). */
static void dft2(const double *in, double *out, int n0, int n1, int sign)
{
    for (int k0 = 0; k0 < n0; k0++)
        for (int k1 = 0; k1 < n1; k1++) {
            double re = 0, im = 0;
            for (int x0 = 0; x0 < n0; x0++)
                for (int x1 = 0; x1 < n1; x1++) {
                    double t = sign * 2 * M_PI * ((double)k0 * x0 / n0 + (double)k1 * x1 / n1);
                    const double *v = in + 2 * (x0 * n1 + x1);
                    re += v[0] * cos(t) - v[1] * sin(t);
                    im += v[0] * sin(t) + v[1] * cos(t);
                }
            out[2 * (k0 * n1 + k1)] = re, out[2 * (k0 * n1 + k1) + 1] = im;
        }
}

/* The largest |a - b| over n values, relative to the largest |b|; 1e9 when a value is NaN. */
static double rel_err(const double *a, const double *b, int n)
{
    double e = 0, m = 1e-300;
    for (int i = 0; i < n; i++) {
        if (isnan(a[i]))
            return 1e9;
        e = fmax(e, fabs(a[i] - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return e / m;
}

static double wave(int i) { return sin(0.7 * i) + 0.1 * i - 0.5 * cos(1.9 * i * i); }

static unsigned long fft_plans, fft_execs;

static cufftHandle fft_plan(int rank, long long *n, long long *ie, long long is, long long id, long long *oe,
                            long long os, long long od, cufftType t, long long batch, int autoalloc, size_t *ws)
{
    cufftHandle h = 0;
    OK(cufftCreate(&h));
    if (!autoalloc)
        OK(cufftSetAutoAllocation(h, 0));
    OK(cufftMakePlanMany64(h, rank, n, ie, is, id, oe, os, od, t, batch, ws));
    fft_plans++;
    return h;
}

/* A 2-D Z2Z, out of place then in place back; the basic layout ignores the strides given with it. */
static void fft_z2z(cudaStream_t comp)
{
    enum { A0 = 5, A1 = 6, AN = A0 * A1 };
    double x[2 * AN], want[2 * AN], got[2 * AN];
    for (int i = 0; i < 2 * AN; i++)
        x[i] = wave(i);
    dft2(x, want, A0, A1, -1);
    long long n[2] = {A0, A1};
    size_t ws = 0, ws2 = 0;
    cufftHandle z = fft_plan(2, n, NULL, 3, 999, NULL, 7, 1, CUFFT_Z2Z, 1, 1, &ws);
    CHECK(ws > 0, "a Z2Z plan reported no work area");
    OK(cufftGetSize(z, &ws2));
    CHECK(ws2 == ws, "cufftGetSize said %zu, the plan %zu", ws2, ws);
    OK(cufftSetStream(z, comp));
    double *dx = dmalloc(sizeof x), *dy = dmalloc(sizeof x);
    put(dx, x, sizeof x);
    OK(cufftExecZ2Z(z, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, CUFFT_FORWARD));
    fft_execs++;
    CHECK(standin_pending() == 1, "an execute was not queued (%lu pending)", standin_pending());
    get(got, dy, sizeof got);
    CHECK(isnan(got[0]), "an execute's result was there before a synchronisation");
    OK(cudaStreamSynchronize(comp));
    get(got, dy, sizeof got);
    CHECK(rel_err(got, want, 2 * AN) < 1e-12, "2-D Z2Z: error %g", rel_err(got, want, 2 * AN));
    get(got, dx, sizeof got);
    CHECK(rel_err(got, x, 2 * AN) == 0, "an out-of-place Z2Z changed its input");
    OK(cufftExecZ2Z(z, (cufftDoubleComplex *)dy, (cufftDoubleComplex *)dy, CUFFT_INVERSE));
    fft_execs++;
    OK(cudaStreamSynchronize(comp));
    get(got, dy, sizeof got);
    for (int i = 0; i < 2 * AN; i++)
        want[i] = AN * x[i];
    CHECK(rel_err(got, want, 2 * AN) < 1e-12, "in-place inverse Z2Z: error %g", rel_err(got, want, 2 * AN));
    OK(cufftDestroy(z));
    OK(cudaFree(dx));
    OK(cudaFree(dy));
}

/* In place with the output at stride 2: FFTW has no plan for that, so the stand-in goes through a buffer. */
static void fft_restride(cudaStream_t comp)
{
    enum { L = 8 };
    double x[2 * L], want[2 * L], got[4 * L];
    for (int i = 0; i < 2 * L; i++)
        x[i] = wave(3 * i);
    dft2(x, want, 1, L, -1);
    long long n[1] = {L}, ie[1] = {L}, oe[1] = {L};
    size_t ws = 0;
    cufftHandle z = fft_plan(1, n, ie, 1, L, oe, 2, 2 * L, CUFFT_Z2Z, 1, 1, &ws);
    OK(cufftSetStream(z, comp));
    double *d = dmalloc(sizeof got);
    put(d, x, sizeof x);
    OK(cufftExecZ2Z(z, (cufftDoubleComplex *)d, (cufftDoubleComplex *)d, CUFFT_FORWARD));
    fft_execs++;
    OK(cudaStreamSynchronize(comp));
    get(got, d, sizeof got);
    for (int k = 0; k < L; k++)
        got[2 * k] = got[4 * k], got[2 * k + 1] = got[4 * k + 1];
    CHECK(rel_err(got, want, 2 * L) < 1e-12, "in-place Z2Z to stride 2: error %g", rel_err(got, want, 2 * L));
    OK(cufftDestroy(z));
    OK(cudaFree(d));
}

/* A batch of two 3 x 4 D2Z, the input strided (every other double, rows of 5, batches 31 apart) and the
 * output padded (rows of 4 complex, batches 13 apart), with a work area of the caller's. */
static void fft_d2z(cudaStream_t comp)
{
    enum { B0 = 3, B1 = 4, BH = B1 / 2 + 1, BATCH = 2, IS = 2, IE = 5, ID = 31, OE = 4, OD = 13 };
    enum { IN = (BATCH - 1) * ID + ((B0 - 1) * IE + B1 - 1) * IS + 1, OUT = (BATCH - 1) * OD + (B0 - 1) * OE + BH };
    double x[IN], y[2 * (OUT + 1)], v[2 * B0 * B1], want[2 * B0 * B1]; /* y: and the last row's padding */
    for (int i = 0; i < IN; i++)
        x[i] = 1000 + i; /* what lies between the elements must not enter the transform */
    for (int i = 0; i < 2 * (OUT + 1); i++)
        y[i] = 777;
    long long n[2] = {B0, B1}, ie[2] = {B0, IE}, oe[2] = {B0, OE};
    size_t ws = 0;
    cufftHandle h = fft_plan(2, n, ie, IS, ID, oe, 1, OD, CUFFT_D2Z, BATCH, 0, &ws);
    for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < B0; i++)
            for (int j = 0; j < B1; j++)
                x[b * ID + (i * IE + j) * IS] = wave(100 * b + 10 * i + j);
    double *dx = dmalloc(sizeof x), *dy = dmalloc(sizeof y), *dw = dmalloc(ws), zero[64] = {0};
    put(dx, x, sizeof x);
    put(dy, y, sizeof y);
    put(dw, zero, ws < sizeof zero ? ws : sizeof zero);
    OK(cufftSetWorkArea(h, dw));
    OK(cufftSetStream(h, comp));
    OK(cufftExecD2Z(h, dx, (cufftDoubleComplex *)dy));
    fft_execs++;
    OK(cudaStreamSynchronize(comp));
    get(y, dy, sizeof y);
    for (int b = 0; b < BATCH; b++) {
        for (int i = 0; i < B0 * B1; i++)
            v[2 * i] = x[b * ID + (i / B1 * IE + i % B1) * IS], v[2 * i + 1] = 0;
        dft2(v, want, B0, B1, -1);
        double e = 0;
        for (int i = 0; i < B0; i++)
            for (int k = 0; k < OE; k++) {
                const double *g = y + 2 * (b * OD + i * OE + k), *w = want + 2 * (i * B1 + k);
                if (k < BH)
                    e = fmax(e, fmax(fabs(g[0] - w[0]), fabs(g[1] - w[1])));
                else
                    CHECK(g[0] == 777 && g[1] == 777, "D2Z wrote the padding at batch %d, row %d", b, i);
            }
        CHECK(e < 1e-12, "batched strided D2Z, batch %d: error %g", b, e);
    }
    double xin[IN], w0[2];
    get(xin, dx, sizeof xin);
    CHECK(memcmp(xin, x, sizeof x) == 0, "an out-of-place D2Z changed its input or its gaps");
    get(w0, dw, sizeof w0);
    CHECK(isnan(w0[0]), "the work area was not poisoned after the execute");
    OK(cufftDestroy(h));
    OK(cudaFree(dx));
    OK(cudaFree(dy));
    OK(cudaFree(dw));
}

/* C2R in place (single precision, the basic layout's padding of the real side) on stream 0, which runs at
 * once; then Z2D out of place, whose input is poisoned after it. */
static void fft_c2r(void)
{
    enum { L = 8, LH = L / 2 + 1, BATCH = 2 };
    double x[BATCH][2 * L], X[BATCH][2 * L];
    float buf[BATCH * 2 * LH];
    for (int b = 0; b < BATCH; b++) {
        for (int i = 0; i < L; i++)
            x[b][2 * i] = wave(b * L + i), x[b][2 * i + 1] = 0;
        dft2(x[b], X[b], 1, L, -1);
        for (int k = 0; k < 2 * LH; k++)
            buf[b * 2 * LH + k] = (float)X[b][k];
    }
    long long n[1] = {L};
    size_t ws = 0;
    cufftHandle h = fft_plan(1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2R, BATCH, 1, &ws);
    float *d = dmalloc(sizeof buf);
    put(d, buf, sizeof buf);
    OK(cufftExecC2R(h, (cufftComplex *)d, d));
    fft_execs++;
    CHECK(standin_pending() == 0, "an execute on stream 0 was queued");
    get(buf, d, sizeof buf);
    double e = 0;
    for (int b = 0; b < BATCH; b++)
        for (int i = 0; i < L; i++)
            e = fmax(e, fabs(buf[b * 2 * LH + i] - L * x[b][2 * i]) / L);
    CHECK(e < 1e-5, "in-place C2R: error %g", e);
    OK(cufftDestroy(h));
    OK(cudaFree(d));

    double *dz = dmalloc(2 * LH * sizeof(double)), *dr = dmalloc(L * sizeof(double)), r[L], z[2 * LH];
    h = fft_plan(1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2D, 1, 1, &ws);
    put(dz, X[0], sizeof z);
    OK(cufftExecZ2D(h, (cufftDoubleComplex *)dz, dr));
    fft_execs++;
    get(r, dr, sizeof r);
    get(z, dz, sizeof z);
    e = 0;
    for (int i = 0; i < L; i++)
        e = fmax(e, fabs(r[i] - L * x[0][2 * i]));
    CHECK(e < 1e-12, "out-of-place Z2D: error %g", e);
    CHECK(isnan(z[0]) && isnan(z[2 * LH - 1]), "an out-of-place Z2D's input was not poisoned");
    OK(cufftDestroy(h));
    OK(cudaFree(dz));
    OK(cudaFree(dr));
}

/* Each bad call records exactly one violation, returns its error and queues nothing. */
static void fft_bad(cudaStream_t comp)
{
    unsigned long v1 = standin_violations(), deliberate = 0;
#define FFT_VIOLATES(e, call) \
    do { \
        IS(e, call); \
        deliberate++; \
        CHECK(standin_violations() == v1 + deliberate, "%s did not record one violation", #call); \
        CHECK(standin_pending() == 0, "%s queued work", #call); \
    } while (0)
    enum { L = 16 };
    long long n[1] = {L};
    size_t ws = 0;
    cufftHandle z = fft_plan(1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, 1, &ws);
    OK(cufftSetStream(z, comp));
    cufftDoubleComplex *a = dmalloc(L * 16), *b = dmalloc(L * 16), *small = dmalloc(L * 16 - 16), host[L];
    cufftDoubleComplex *two = dmalloc(2 * L * 16); /* room for overlapping regions */
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftExecZ2Z(z, a, host, CUFFT_FORWARD));
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftExecZ2Z(z, a, small, CUFFT_FORWARD));
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftExecZ2Z(z, two, two + 1, CUFFT_FORWARD));
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftExecZ2Z(z, a, b, 0));
    FFT_VIOLATES(CUFFT_INVALID_TYPE, cufftExecC2C(z, (cufftComplex *)a, (cufftComplex *)b, CUFFT_FORWARD));
    FFT_VIOLATES(CUFFT_INVALID_TYPE, cufftExecZ2D(z, a, (double *)b));
    FFT_VIOLATES(CUFFT_INVALID_PLAN, cufftMakePlanMany64(z, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftSetAutoAllocation(z, 0));
    FFT_VIOLATES(CUFFT_INVALID_PLAN, cufftExecZ2Z(12345, a, b, CUFFT_FORWARD));
    cudaStream_t dead = stream();
    OK(cudaStreamDestroy(dead));
    OK(cufftSetStream(z, dead));
    FFT_VIOLATES(CUFFT_EXEC_FAILED, cufftExecZ2Z(z, a, b, CUFFT_FORWARD));
    OK(cufftDestroy(z));
    FFT_VIOLATES(CUFFT_INVALID_PLAN, cufftExecZ2Z(z, a, b, CUFFT_FORWARD));
    FFT_VIOLATES(CUFFT_INVALID_PLAN, cufftDestroy(z));

    cufftHandle u = 0;
    OK(cufftCreate(&u));
    FFT_VIOLATES(CUFFT_INVALID_PLAN, cufftExecZ2Z(u, a, b, CUFFT_FORWARD));
    long long zero[1] = {0};
    FFT_VIOLATES(CUFFT_INVALID_SIZE, cufftMakePlanMany64(u, 1, zero, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    OK(cufftSetAutoAllocation(u, 0));
    OK(cufftMakePlanMany64(u, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    fft_plans++;
    FFT_VIOLATES(CUFFT_NO_WORKSPACE, cufftExecZ2Z(u, a, b, CUFFT_FORWARD));
    void *w = dmalloc(ws - 8);
    OK(cufftSetWorkArea(u, w));
    FFT_VIOLATES(CUFFT_INVALID_VALUE, cufftExecZ2Z(u, a, b, CUFFT_FORWARD));
    OK(cufftDestroy(u));
    OK(cudaFree(w));
    OK(cudaFree(a));
    OK(cudaFree(b));
    OK(cudaFree(small));
    OK(cudaFree(two));
#undef FFT_VIOLATES
}

static int fft(void)
{
    int v = 0;
    OK(cufftGetVersion(&v));
    CHECK(v == 12000, "cufftGetVersion said %d, expected 12000 (CUDA 13's cuFFT)", v);
    cudaStream_t comp = stream();
    fft_idle = stream();
    unsigned long v0 = standin_violations();
    fft_z2z(comp);
    fft_restride(comp);
    fft_d2z(comp);
    fft_c2r();
    CHECK(standin_violations() == v0, "%lu violations where none was expected", standin_violations() - v0);
    fft_bad(comp);
    CHECK(standin_pending() == 0, "work still queued at the end");
    expect("fft_plans=%lu fft_execs=%lu fft_live=0 live=0 violations=%lu", fft_plans, fft_execs,
           standin_violations());
    return failures != 0;
}

/* ---- scenario "fftfault": cuFFT's injected failures --------------------------------------------------- */

/* Run with GS_STANDIN_FAIL=cufftGetVersion:1,cufftCreate:2,cufftMakePlanMany64:1,cudaMalloc:1,cufftSetStream:1,
 * cufftGetSize:1,cufftExecZ2Z:1,cufftSetAutoAllocation:1,cufftSetWorkArea:1,cufftDestroy:1. */
static int fftfault(void)
{
    enum { L = 8 };
    int v = 0;
    IS(CUFFT_INTERNAL_ERROR, cufftGetVersion(&v));
    OK(cufftGetVersion(&v));
    cufftHandle a = 0, b = 0, c = 0;
    OK(cufftCreate(&a));
    IS(CUFFT_ALLOC_FAILED, cufftCreate(&b));
    long long n[1] = {L};
    size_t ws = 0;
    IS(CUFFT_ALLOC_FAILED, cufftMakePlanMany64(a, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    CHECK(cudaGetLastError() == cudaSuccess, "a failure of cuFFT's own left a runtime error pending");
    IS(CUFFT_ALLOC_FAILED, cufftMakePlanMany64(a, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    /* The workspace's failed cudaMalloc stays the runtime's last error, and an execute would report it as its
     * own failure (cufft.c): until cudaGetLastError takes it. */
    CHECK(cudaGetLastError() != cudaSuccess, "a failed cudaMalloc left no runtime error pending");
    CHECK(cudaGetLastError() == cudaSuccess, "cudaGetLastError did not clear the pending error");
    OK(cufftMakePlanMany64(a, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    cudaStream_t comp = stream();
    fft_idle = stream();
    IS(CUFFT_INTERNAL_ERROR, cufftSetStream(a, comp));
    OK(cufftSetStream(a, comp));
    IS(CUFFT_INTERNAL_ERROR, cufftGetSize(a, &ws));
    OK(cufftGetSize(a, &ws));
    double x[2 * L], want[2 * L], y[2 * L];
    for (int i = 0; i < 2 * L; i++)
        x[i] = wave(i);
    dft2(x, want, 1, L, -1);
    double *dx = dmalloc(sizeof x), *dy = dmalloc(sizeof x);
    put(dx, x, sizeof x);
    IS(CUFFT_EXEC_FAILED, cufftExecZ2Z(a, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, CUFFT_FORWARD));
    CHECK(standin_pending() == 0, "a failed execute queued work");
    OK(cudaStreamSynchronize(comp));
    get(y, dy, sizeof y);
    CHECK(isnan(y[0]), "a failed execute wrote its output");
    OK(cufftExecZ2Z(a, (cufftDoubleComplex *)dx, (cufftDoubleComplex *)dy, CUFFT_FORWARD));
    OK(cudaStreamSynchronize(comp));
    get(y, dy, sizeof y);
    CHECK(rel_err(y, want, 2 * L) < 1e-12, "Z2Z after a failed one: error %g", rel_err(y, want, 2 * L));
    OK(cufftCreate(&c));
    IS(CUFFT_INTERNAL_ERROR, cufftSetAutoAllocation(c, 0));
    OK(cufftSetAutoAllocation(c, 0));
    OK(cufftMakePlanMany64(c, 1, n, NULL, 1, 0, NULL, 1, 0, CUFFT_Z2Z, 1, &ws));
    IS(CUFFT_INTERNAL_ERROR, cufftSetWorkArea(c, dx));
    IS(CUFFT_INTERNAL_ERROR, cufftDestroy(a));
    OK(cufftDestroy(a));
    OK(cudaFree(dx));
    OK(cudaFree(dy));
    /* c is left alive: the report's fft_live shows the leak. */
    expect("fft_plans=2 fft_execs=1 fft_live=1 violations=0");
    return failures != 0;
}

/* ---- the driver ---------------------------------------------------------------------------------------- */

static const char *self;
static char report[256];

/* Runs this program with mode and arg, under env (NAME=VALUE … or NULL) and GS_STANDIN_SEED=seed, the report
 * going to a fresh file; returns the exit status (or 128 + signal).  Its stderr (the stand-in's violation
 * messages, many of them deliberate) is shown only when the status is neither 0 (passed) nor 10 (showed the
 * hazard it looks for). */
static int run(const char *mode, const char *arg, unsigned seed, const char *env)
{
    char err[300];
    snprintf(err, sizeof err, "%s.err", report);
    unlink(report);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(err, "w", stderr))
            _exit(127);
        char s[32], e[512];
        snprintf(s, sizeof s, "%u", seed);
        setenv("GS_STANDIN_SEED", s, 1);
        setenv("GS_STANDIN_REPORT", report, 1);
        setenv("GS_STANDIN_MEM", "1073741824", 1);
        snprintf(e, sizeof e, "%s", env ? env : "");
        for (char *save = NULL, *kv = strtok_r(e, " ", &save); kv; kv = strtok_r(NULL, " ", &save))
            putenv(strdup(kv));
        alarm(60);
        execl(self, self, mode, arg, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    FILE *f = status != 0 && status != 10 ? fopen(err, "r") : NULL;
    char line[1024];
    if (f)
        printf("-- %s %s (seed %u) exited with status %d; its stderr:\n", mode, arg, seed, status);
    while (f && fgets(line, sizeof line, f))
        printf("   %s", line);
    if (f)
        fclose(f);
    unlink(err);
    return status;
}

/* The value of key in the report line starting with prefix ("pid=" or "expect "), or -1. */
static long field(const char *prefix, const char *key, int nth)
{
    FILE *f = fopen(report, "r");
    char line[2048], pat[64];
    long v = -1;
    snprintf(pat, sizeof pat, " %s=", key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, prefix, strlen(prefix)) == 0 && nth-- == 0) {
            char *p = strstr(line, pat);
            if (p)
                v = strtol(p + strlen(pat), NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

static void expect_field(const char *key)
{
    long want = field("expect ", key, 0), got = field("pid=", key, 0);
    CHECK(want >= 0 && got == want, "report %s=%ld, expected %ld", key, got, want);
}

static int driver(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(report, sizeof report, "%s/gs-standin-selftest.%d.report", tmp && *tmp ? tmp : "/tmp", (int)getpid());

    CHECK(run("basic", "", 1, NULL) == 0, "scenario basic failed");
    static const char *keys[] = {"h2d_bytes", "d2h_bytes", "h2d_copies", "d2h_copies", "allocs", "frees", "live",
                                 "blas_calls", "pinned_max", "pinned_allocs", "pinned_live", "registers",
                                 "registered_live", "pageable_copies", "async_copies", "events", "ops_run",
                                 "pending_max", "unfinished", "discarded", "seed", "fft_plans", "fft_execs",
                                 "fft_live", "violations"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        CHECK(field("pid=", keys[i], 0) >= 0, "report has no %s", keys[i]);
    FILE *f = fopen(report, "r");
    char line[2048] = "";
    while (f && fgets(line, sizeof line, f) && strncmp(line, "pid=", 4) != 0)
        ;
    if (f)
        fclose(f);
    CHECK(strstr(line, " violations=") && !strchr(strstr(line, " violations=") + 1, ' '),
          "violations= is not the last key of the report: %s", line);
    expect_field("pinned_allocs");
    expect_field("registers");
    expect_field("events");
    expect_field("violations");
    CHECK(field("pid=", "pinned_max", 0) >= (long)(3 * BYTES), "pinned_max below the peak of cudaHostAlloc");
    CHECK(field("pid=", "pinned_live", 0) == 0 && field("pid=", "registered_live", 0) == 0 &&
              field("pid=", "live", 0) == 0 && field("pid=", "unfinished", 0) == 0,
          "pinned, registered or device memory or queued work left at exit");
    CHECK(field("pid=", "pageable_copies", 0) > 0 && field("pid=", "async_copies", 0) > 0 &&
              field("pid=", "ops_run", 0) > 0 && field("pid=", "seed", 0) == 1,
          "pageable_copies, async_copies, ops_run or seed wrong");

    /* Without the event wait the scheduler must be able to run the GEMM before the upload; with it, never. */
    int poisoned = 0, right = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        int with = run("hazard", "wait", seed, NULL), without = run("hazard", "nowait", seed, NULL);
        CHECK(with == 0, "seed %u: GEMM after an event wait saw wrong data (status %d)", seed, with);
        CHECK(without == 0 || without == 10, "seed %u: hazard without wait ended with status %d", seed, without);
        poisoned += without == 10;
        right += without == 0;
        CHECK(run("hazard", "nowait", seed, NULL) == without, "seed %u: the same seed gave another order", seed);
    }
    CHECK(poisoned > 0, "no seed in 1..20 ran the GEMM before an upload it did not wait for");
    CHECK(right > 0, "no seed in 1..20 ran the upload first without a wait: the scheduler is not random");
    printf("hazard without wait: %d of 20 seeds poisoned, %d right\n", poisoned, right);

    /* The wait captures the first record: some seed gets 1 (never only 2), none gets poison. */
    int first = 0, second = 0;
    for (unsigned seed = 1; seed <= 20; seed++) {
        int r = run("capture", "", seed, NULL);
        CHECK(r == 0 || r == 10, "seed %u: capture ended with status %d", seed, r);
        first += r == 0;
        second += r == 10;
    }
    CHECK(first > 0, "no seed downloaded before the second copy: the wait waited for a later record");
    printf("capture: %d of 20 seeds saw the first copy, %d the second\n", first, second);

    CHECK(run("fault", "", 1, "GS_STANDIN_FAIL=cudaStreamSynchronize:1,cudaHostAlloc:3,cudaHostRegister,"
                              "cudaEventQuery:1") == 0,
          "scenario fault failed");
    expect_field("discarded");

    CHECK(run("bound", "", 1, NULL) == 0, "scenario bound failed");
    CHECK(field("pid=", "pending_max", 0) <= 4097, "pending_max %ld above the bound",
          field("pid=", "pending_max", 0));

    for (unsigned seed = 1; seed <= 5; seed++)
        CHECK(run("threads", "", seed, NULL) == 0, "seed %u: scenario threads failed", seed);
    CHECK(field("pid=", "violations", 0) == 0, "scenario threads: violations");
    static const char *bugs[] = {"noreuse", "nowait"};
    for (int b = 0; b < 2; b++) {
        int caught = 0;
        for (unsigned seed = 1; seed <= 5; seed++) {
            int r = run("threads", bugs[b], seed, NULL);
            CHECK(r == 0 || r == 10, "seed %u: scenario threads %s ended with status %d", seed, bugs[b], r);
            caught += r == 10;
        }
        CHECK(caught > 0, "threads %s: the missing synchronisation gave right results for seeds 1..5", bugs[b]);
        printf("threads %s: wrong tiles for %d of 5 seeds\n", bugs[b], caught);
    }

    CHECK(run("fft", "", 1, NULL) == 0, "scenario fft failed");
    static const char *fft_keys[] = {"fft_plans", "fft_execs", "fft_live", "live", "violations"};
    for (size_t i = 0; i < sizeof fft_keys / sizeof *fft_keys; i++)
        expect_field(fft_keys[i]);
    CHECK(run("fftfault", "", 1,
              "GS_STANDIN_FAIL=cufftGetVersion:1,cufftCreate:2,cufftMakePlanMany64:1,cudaMalloc:1,"
              "cufftSetStream:1,cufftGetSize:1,cufftExecZ2Z:1,cufftSetAutoAllocation:1,cufftSetWorkArea:1,"
              "cufftDestroy:1") == 0,
          "scenario fftfault failed");
    for (size_t i = 0; i < sizeof fft_keys / sizeof *fft_keys; i++)
        if (strcmp(fft_keys[i], "live") != 0)
            expect_field(fft_keys[i]);

    CHECK(run("devices", "", 1, "GS_STANDIN_DEVICES=2") == 0, "scenario devices failed");
    CHECK(field("pid=", "violations", 0) == 3, "scenario devices: %ld violations, expected 3",
          field("pid=", "violations", 0));

    CHECK(run("fork", "", 1, NULL) == 0, "scenario fork failed");
    long parent = field("pid=", "violations", 1), child = field("pid=", "violations", 0);
    CHECK(child == 1 && parent == 0, "fork: child violations %ld (want 1), parent %ld (want 0)", child, parent);

    unlink(report);
    printf("standin selftest: %s\n", failures ? "FAILED" : "passed");
    return failures != 0;
}

int main(int argc, char **argv)
{
    self = "/proc/self/exe";
    if (argc < 2)
        return driver();
    const char *mode = argv[1], *arg = argc > 2 ? argv[2] : "";
    if (!strcmp(mode, "basic"))
        return basic();
    if (!strcmp(mode, "hazard"))
        return hazard(!strcmp(arg, "wait"));
    if (!strcmp(mode, "capture"))
        return capture();
    if (!strcmp(mode, "fault"))
        return fault();
    if (!strcmp(mode, "bound"))
        return bound();
    if (!strcmp(mode, "threads"))
        return threads(arg);
    if (!strcmp(mode, "fork"))
        return forked();
    if (!strcmp(mode, "fft"))
        return fft();
    if (!strcmp(mode, "devices"))
        return devices();
    if (!strcmp(mode, "fftfault"))
        return fftfault();
    fprintf(stderr, "usage: %s [basic | hazard wait|nowait | capture | fault | bound | threads [noreuse|nowait] | "
            "fork | fft | fftfault | devices]\n",
            argv[0]);
    return 2;
}

/* Stand-in for libcudart: device memory, copies, streams and device queries on the host, with pointer checks,
 * transfer counts and fault injection (standin.h). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "standin.h"

struct CUstream_st {
    int magic;
};

#define MAX_ALLOCS 4096
#define MAX_FAILS 16

static struct {
    pthread_mutex_t lock;
    struct {
        char *p;
        size_t size;
    } allocs[MAX_ALLOCS];
    size_t used;
    struct {
        char name[80];
        long nth, calls;
    } fails[MAX_FAILS];
    int nfails;
    int sticky, failed;
    pid_t pid;
    int inited;
    atomic_ulong h2d_bytes, d2h_bytes, h2d_copies, d2h_copies, allocs_n, frees_n, violations, blas_calls;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t mem_limit(void)
{
    const char *s = getenv("GS_STANDIN_MEM");
    return s ? strtoull(s, NULL, 0) : (size_t)64 << 30;
}

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

/* Called under S.lock. */
static void init_locked(void)
{
    if (S.inited)
        return;
    S.inited = 1;
    S.pid = getpid();
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

int standin_fail(const char *fn)
{
    pthread_mutex_lock(&S.lock);
    init_locked();
    if (getpid() != S.pid)
        violation("%s called in a forked child", fn);
    int fail = S.failed && S.sticky;
    for (int i = 0; i < S.nfails && !fail; i++)
        if (strcmp(S.fails[i].name, fn) == 0) {
            long n = ++S.fails[i].calls;
            fail = S.fails[i].nth == 0 || S.fails[i].nth == n;
        }
    if (fail)
        S.failed = 1;
    pthread_mutex_unlock(&S.lock);
    return fail;
}

void standin_violation(const char *fn, const char *what)
{
    violation("%s: %s", fn, what);
}

void standin_count_blas(void)
{
    S.blas_calls++;
}

static int find_alloc(const void *p, size_t bytes)
{
    const char *c = p;
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (S.allocs[i].p && c >= S.allocs[i].p && c + bytes <= S.allocs[i].p + S.allocs[i].size)
            return i;
    return -1;
}

int standin_check_device(const void *p, size_t bytes, const char *fn, const char *what)
{
    pthread_mutex_lock(&S.lock);
    int i = find_alloc(p, bytes);
    pthread_mutex_unlock(&S.lock);
    if (i < 0)
        violation("%s: %s is not device memory from cudaMalloc (or runs past its end)", fn, what);
    return i < 0 ? -1 : 0;
}

int standin_check_host(const void *p, const char *fn, const char *what)
{
    pthread_mutex_lock(&S.lock);
    int i = find_alloc(p, 1);
    pthread_mutex_unlock(&S.lock);
    if (i >= 0)
        violation("%s: %s should be host memory but is device memory", fn, what);
    return i >= 0 ? -1 : 0;
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("GS_STANDIN_REPORT");
    if (!path || !S.inited)
        return;
    FILE *f = fopen(path, "a");
    if (!f)
        return;
    unsigned long live = 0;
    for (int i = 0; i < MAX_ALLOCS; i++)
        live += S.allocs[i].p != NULL;
    fprintf(f,
            "pid=%d h2d_bytes=%lu d2h_bytes=%lu h2d_copies=%lu d2h_copies=%lu allocs=%lu frees=%lu live=%lu "
            "blas_calls=%lu violations=%lu\n",
            (int)getpid(), S.h2d_bytes, S.d2h_bytes, S.h2d_copies, S.d2h_copies, S.allocs_n, S.frees_n, live,
            S.blas_calls, S.violations);
    fclose(f);
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (standin_fail("cudaGetDeviceCount"))
        return cudaErrorUnknown;
    if (getenv("GS_STANDIN_NODRIVER"))
        return cudaErrorInsufficientDriver;
    const char *s = getenv("GS_STANDIN_DEVICES");
    *count = s ? atoi(s) : 1;
    return *count ? cudaSuccess : cudaErrorNoDevice;
}

static int current_device;

cudaError_t cudaGetDevice(int *device)
{
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    int n = 0;
    if (standin_fail("cudaSetDevice") || cudaGetDeviceCount(&n) != cudaSuccess || device >= n)
        return cudaErrorInvalidDevice;
    current_device = device;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t size)
{
    if (standin_fail("cudaMalloc"))
        return cudaErrorMemoryAllocation;
    pthread_mutex_lock(&S.lock);
    cudaError_t rc = cudaErrorMemoryAllocation;
    if (S.used + size <= mem_limit()) {
        for (int i = 0; i < MAX_ALLOCS; i++)
            if (!S.allocs[i].p) {
                /* Poisoned, so that a result read from memory nobody wrote shows up as NaN. */
                char *m = aligned_alloc(256, (size + 255) & ~(size_t)255);
                if (!m)
                    break;
                memset(m, 0xff, size);
                S.allocs[i].p = m;
                S.allocs[i].size = size;
                S.used += size;
                S.allocs_n++;
                *p = m;
                rc = cudaSuccess;
                break;
            }
    }
    pthread_mutex_unlock(&S.lock);
    return rc;
}

cudaError_t cudaFree(void *p)
{
    if (!p)
        return cudaSuccess;
    pthread_mutex_lock(&S.lock);
    int i = find_alloc(p, 1);
    if (i >= 0 && S.allocs[i].p == p) {
        free(p);
        S.used -= S.allocs[i].size;
        S.allocs[i].p = NULL;
        S.frees_n++;
    }
    pthread_mutex_unlock(&S.lock);
    if (i < 0)
        violation("cudaFree: %p is not a pointer from cudaMalloc", p);
    return i < 0 ? cudaErrorInvalidValue : cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream)
{
    const char *fn = "cudaMemcpy2DAsync";
    if (standin_fail(fn))
        return cudaErrorLaunchFailure;
    if (stream && stream->magic != 0x57ea)
        violation("%s: not a stream from cudaStreamCreate", fn);
    if (height == 0 || width == 0)
        return cudaSuccess;
    if (width > dpitch || width > spitch)
        return cudaErrorInvalidPitchValue;
    size_t dext = dpitch * (height - 1) + width, sext = spitch * (height - 1) + width;
    int bad = 0;
    switch (kind) {
    case cudaMemcpyHostToDevice:
        bad = standin_check_device(dst, dext, fn, "destination") | standin_check_host(src, fn, "source");
        break;
    case cudaMemcpyDeviceToHost:
        bad = standin_check_device(src, sext, fn, "source") | standin_check_host(dst, fn, "destination");
        break;
    case cudaMemcpyDeviceToDevice:
        bad = standin_check_device(src, sext, fn, "source") | standin_check_device(dst, dext, fn, "destination");
        break;
    default:
        violation("%s: copy kind %d is not used by gpushim", fn, (int)kind);
        bad = 1;
    }
    if (bad)
        return cudaErrorInvalidValue;
    for (size_t r = 0; r < height; r++)
        memcpy((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
    if (kind == cudaMemcpyHostToDevice) {
        S.h2d_bytes += width * height;
        S.h2d_copies++;
    } else if (kind == cudaMemcpyDeviceToHost) {
        S.d2h_bytes += width * height;
        S.d2h_copies++;
    }
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    (void)flags;
    if (standin_fail("cudaStreamCreateWithFlags"))
        return cudaErrorUnknown;
    static struct CUstream_st streams[64];
    static atomic_int next;
    int i = atomic_fetch_add(&next, 1);
    if (i >= 64)
        return cudaErrorMemoryAllocation;
    streams[i].magic = 0x57ea;
    *stream = &streams[i];
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    return standin_fail("cudaStreamSynchronize") ? cudaErrorLaunchFailure : cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    return standin_fail("cudaDeviceSynchronize") ? cudaErrorLaunchFailure : cudaSuccess;
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
    default: return "stand-in error";
    }
}

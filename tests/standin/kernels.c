/* The stand-in's CUDA libraries of kernels (standin.h): cudaLibraryLoadData takes a fatbin (its magic number
 * checked) and gives one library, whose kernels are gpushim's permutation, scale and finite-check kernels
 * (kernels/permute.h, kernels/scale.h, kernels/finite.h), found by name and run by cudaLaunchKernel on the host,
 * queued on their stream like any other work.  Their arguments are checked as the device would fault on them:
 * both sides' reach inside one live allocation, the sides apart. */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "finite.h"
#include "permute.h"
#include "scale.h"
#include "standin.h"

#define FATBIN_MAGIC 0xBA55ED50u

/* The permutations, then the scales (SCALE0 on), then the finite checks (FINITE0 on). */
static const char *const kernel_names[] = {"gs_permute4", "gs_permute8", "gs_permute16", "gs_scale4",
                                           "gs_scale8",   "gs_finite4",  "gs_finite8"};
static const size_t kernel_sizes[] = {4, 8, 16, 4, 8, 4, 8};
enum { KERNELS = 7, SCALE0 = 3, FINITE0 = 5 };
/* A library and its kernels are addresses in these, which no other handle has. */
static char library_token, kernel_tokens[KERNELS];

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                void **jitOptionsValues, unsigned int numJitOptions,
                                enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                unsigned int numLibraryOptions)
{
    (void)jitOptions, (void)jitOptionsValues, (void)numJitOptions;
    (void)libraryOptions, (void)libraryOptionValues, (void)numLibraryOptions;
    if (standin_fail("cudaLibraryLoadData"))
        return cudaErrorInvalidKernelImage;
    uint32_t magic = 0;
    if (!library || !code)
        return standin_violation("cudaLibraryLoadData", "a NULL library or image"), cudaErrorInvalidValue;
    memcpy(&magic, code, sizeof magic);
    if (magic != FATBIN_MAGIC)
        return standin_violation("cudaLibraryLoadData", "the image is not a fatbin"), cudaErrorInvalidKernelImage;
    *library = (cudaLibrary_t)(void *)&library_token;
    return cudaSuccess;
}

cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name)
{
    if (standin_fail("cudaLibraryGetKernel"))
        return cudaErrorSymbolNotFound;
    if ((void *)library != &library_token)
        return standin_violation("cudaLibraryGetKernel", "not a library"), cudaErrorInvalidResourceHandle;
    for (int i = 0; i < KERNELS; i++)
        if (strcmp(name, kernel_names[i]) == 0) {
            *pKernel = (cudaKernel_t)(void *)&kernel_tokens[i];
            return cudaSuccess;
        }
    return cudaErrorSymbolNotFound;
}

typedef struct {
    const char *src;
    char *dst;
    size_t es;
    gs_permute_t p;
} permute_job_t;

static void run_permute(void *arg)
{
    const permute_job_t *j = arg;
    for (long long i = 0; i < j->p.total; i++) {
        long long r = i, s = 0, d = 0;
        for (int k = j->p.nd - 1; k >= 0; k--) {
            long long x = r % j->p.n[k];
            r /= j->p.n[k];
            s += x * j->p.src[k];
            d += x * j->p.dst[k];
        }
        memcpy(j->dst + d * (long long)j->es, j->src + s * (long long)j->es, j->es);
    }
}

typedef struct {
    char *x;
    size_t es;
    gs_scale_t p;
} scale_job_t;

static void run_scale(void *arg)
{
    const scale_job_t *j = arg;
    for (long long i = 0; i < j->p.n; i++) {
        double f = i & 1 ? j->p.im : j->p.re;
        if (j->es == 4) {
            float v;
            memcpy(&v, j->x + i * 4, 4);
            v *= (float)f;
            memcpy(j->x + i * 4, &v, 4);
        } else {
            double v;
            memcpy(&v, j->x + i * 8, 8);
            v *= f;
            memcpy(j->x + i * 8, &v, 8);
        }
    }
}

/* A scale's launch (kernel k, args as the library passes them): checked, then queued. */
static cudaError_t launch_scale(int k, void **args, cudaStream_t stream)
{
    static const char fn[] = "cudaLaunchKernel";
    scale_job_t j = {*(char **)args[0], kernel_sizes[k], *(const gs_scale_t *)args[1]};
    if (j.p.n < 1)
        return standin_violation(fn, "a scale of no elements"), cudaErrorInvalidValue;
    if (standin_check_device(j.x, (size_t)j.p.n * j.es, fn, "the scaled array"))
        return cudaErrorIllegalAddress;
    return standin_enqueue(stream, run_scale, &j, sizeof j) ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

typedef struct {
    const char *x;
    size_t es;
    gs_finite_t p;
    int *flag;
} finite_job_t;

static void run_finite(void *arg)
{
    const finite_job_t *j = arg;
    for (long long c = 0; c < j->p.cols; c++)
        for (long long r = 0; r < j->p.rows; r++) {
            const char *e = j->x + (c * j->p.ld + r) * (long long)j->es;
            float f;
            double d;
            if (j->es == 4 ? (memcpy(&f, e, 4), !isfinite(f)) : (memcpy(&d, e, 8), !isfinite(d)))
                *j->flag = 1;
        }
}

/* A finite check's launch: the matrix and the flag checked, then queued. */
static cudaError_t launch_finite(int k, void **args, cudaStream_t stream)
{
    static const char fn[] = "cudaLaunchKernel";
    finite_job_t j = {*(const char **)args[0], kernel_sizes[k], *(const gs_finite_t *)args[1], *(int **)args[2]};
    if (j.p.rows < 1 || j.p.cols < 1 || j.p.ld < j.p.rows)
        return standin_violation(fn, "a finite check of no elements, or ld below rows"), cudaErrorInvalidValue;
    if (standin_check_device(j.x, (size_t)((j.p.cols - 1) * j.p.ld + j.p.rows) * j.es, fn, "the checked matrix") ||
        standin_check_device(j.flag, sizeof(int), fn, "the finite check's flag"))
        return cudaErrorIllegalAddress;
    return standin_enqueue(stream, run_finite, &j, sizeof j) ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

/* Bytes from a side's first element to the end of its last one (strides >= 0, as the library passes). */
static size_t reach(const gs_permute_t *p, const long long *stride, size_t es)
{
    long long last = 0;
    for (int k = 0; k < p->nd; k++)
        last += (p->n[k] - 1) * stride[k];
    return (size_t)(last + 1) * es;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream)
{
    static const char fn[] = "cudaLaunchKernel";
    if (standin_fail(fn))
        return cudaErrorLaunchFailure;
    int k = -1;
    for (int i = 0; i < KERNELS; i++)
        if (func == &kernel_tokens[i])
            k = i;
    if (k < 0)
        return standin_violation(fn, "not a kernel of a loaded library"), cudaErrorInvalidDeviceFunction;
    if (gridDim.x == 0 || blockDim.x == 0 || blockDim.x > 1024 || sharedMem)
        return standin_violation(fn, "a launch configuration the kernel does not take"), cudaErrorInvalidValue;
    if (k >= FINITE0)
        return launch_finite(k, args, stream);
    if (k >= SCALE0)
        return launch_scale(k, args, stream);
    permute_job_t j = {*(const char **)args[0], *(char **)args[1], kernel_sizes[k], *(const gs_permute_t *)args[2]};
    if (j.p.nd < 1 || j.p.nd > GS_PERMUTE_DIMS)
        return standin_violation(fn, "a permutation of no dimensions or too many"), cudaErrorInvalidValue;
    long long total = 1;
    for (int i = 0; i < j.p.nd; i++) {
        if (j.p.n[i] < 1 || j.p.src[i] < 0 || j.p.dst[i] < 0)
            return standin_violation(fn, "a size below 1 or a negative stride"), cudaErrorInvalidValue;
        total *= j.p.n[i];
    }
    if (total != j.p.total)
        return standin_violation(fn, "total is not the product of the sizes"), cudaErrorInvalidValue;
    size_t rs = reach(&j.p, j.p.src, j.es), rd = reach(&j.p, j.p.dst, j.es);
    if (standin_check_device(j.src, rs, fn, "the permutation's source (as its strides reach)") ||
        standin_check_device(j.dst, rd, fn, "the permutation's destination (as its strides reach)"))
        return cudaErrorIllegalAddress;
    if (j.src < j.dst + rd && j.dst < j.src + rs)
        return standin_violation(fn, "the permutation's source and destination overlap"), cudaErrorInvalidValue;
    return standin_enqueue(stream, run_permute, &j, sizeof j) ? cudaErrorInvalidResourceHandle : cudaSuccess;
}

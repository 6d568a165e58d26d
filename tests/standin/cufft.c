/* Stand-in for libcufft: the plans and executes gpushim uses, computed on "device" memory of the stand-in
 * runtime by the reference FFTW.  FFTW is opened with dlmopen in a link namespace of its own, out of reach of
 * LD_PRELOAD, so that gpushim never sees those calls.  Each call checks its plan, the plan's type, the device
 * regions its layout touches and its work area; an execute is queued on the plan's stream (standin_enqueue),
 * so results appear only after a synchronisation, and the work area, and the input of an out-of-place c2r,
 * are poisoned after it, as the real cuFFT may leave them.  A test double only. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <dlfcn.h>
#include <fftw3.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"

/* The soname's major version (the Makefile builds 12 for CUDA 13, 11 for CUDA 12). */
#ifndef STANDIN_CUFFT_MAJOR
#define STANDIN_CUFFT_MAJOR 12
#endif

enum { PLAN_LIVE = 0xff70, PLAN_DEAD = 0xff7d, RANK = 3 };

/* One side (input or output) of a transform, counted in elements of that side's type.  Dimensions are
 * right-aligned in RANK: a transform of rank r uses [RANK - r, RANK); the others have size 1. */
typedef struct {
    long long d[RANK];  /* elements along each dimension on this side (n/2+1 last on a complex side of r2c) */
    long long st[RANK]; /* the stride of each dimension */
    long long dist;     /* from one transform of the batch to the next */
    size_t esize;
} side_t;

/* One handle.  n and the embeds are right-aligned like side_t's dimensions. */
typedef struct {
    int magic;
    int made;      /* cufftMakePlanMany64 succeeded */
    int dev;       /* the device current when it did, which its executes need current too */
    int autoalloc; /* the plan allocates its own work area (the default) */
    cufftType type;
    int rank;
    long long n[RANK], inembed[RANK], onembed[RANK], istride, idist, ostride, odist, batch;
    int basic; /* inembed or onembed was NULL: the basic layout, the other advanced parameters ignored */
    size_t work_size;
    void *auto_work, *user_work;
    cudaStream_t stream;
} plan_t;

/* Handles are indices + 1 into plans; a slot is never reused, so a stale handle stays recognisably dead.
 * Everything is guarded by lock, which is taken before the runtime's own lock, never after. */
static struct {
    pthread_mutex_t lock;
    plan_t **plans;
    int n, cap;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A fork while another thread holds the lock would leave the child's copy locked forever: hold it across fork,
 * as the runtime does its own.  This library's handlers are registered after the runtime's, so they take P.lock
 * first: the same order as every call. */
static void atfork_prepare(void) { pthread_mutex_lock(&P.lock); }
static void atfork_release(void) { pthread_mutex_unlock(&P.lock); }
__attribute__((constructor)) static void setup(void)
{
    pthread_atfork(atfork_prepare, atfork_release, atfork_release);
    standin_exit_handlers("cuFFT", 300); /* as many as the real cuFFT registers as it loads (standin.h) */
}

/* The reference FFTW's functions, both precisions; loaded once under P.lock at the first plan, used only by
 * queued executes. */
static struct {
    __typeof__(fftw_plan_guru64_dft) *dft;
    __typeof__(fftw_plan_guru64_dft_r2c) *r2c;
    __typeof__(fftw_plan_guru64_dft_c2r) *c2r;
    __typeof__(fftw_execute) *execute;
    __typeof__(fftw_destroy_plan) *destroy;
} D;
static struct {
    __typeof__(fftwf_plan_guru64_dft) *dft;
    __typeof__(fftwf_plan_guru64_dft_r2c) *r2c;
    __typeof__(fftwf_plan_guru64_dft_c2r) *c2r;
    __typeof__(fftwf_execute) *execute;
    __typeof__(fftwf_destroy_plan) *destroy;
} F;

static void *fftw_sym(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f) {
        fprintf(stderr, "cufft stand-in: %s is missing\n", name);
        abort();
    }
    return f;
}

/* Both libraries in one new namespace: the second is opened into the first one's. */
static void load_fftw(void)
{
    static int loaded;
    if (loaded)
        return;
    Lmid_t ns;
    void *hd = dlmopen(LM_ID_NEWLM, "libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
    void *hf = hd && dlinfo(hd, RTLD_DI_LMID, &ns) == 0 ? dlmopen(ns, "libfftw3f.so.3", RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!hf) {
        fprintf(stderr, "cufft stand-in: cannot open libfftw3.so.3 and libfftw3f.so.3: %s\n", dlerror());
        abort();
    }
    D.dft = (__typeof__(D.dft))fftw_sym(hd, "fftw_plan_guru64_dft");
    D.r2c = (__typeof__(D.r2c))fftw_sym(hd, "fftw_plan_guru64_dft_r2c");
    D.c2r = (__typeof__(D.c2r))fftw_sym(hd, "fftw_plan_guru64_dft_c2r");
    D.execute = (__typeof__(D.execute))fftw_sym(hd, "fftw_execute");
    D.destroy = (__typeof__(D.destroy))fftw_sym(hd, "fftw_destroy_plan");
    F.dft = (__typeof__(F.dft))fftw_sym(hf, "fftwf_plan_guru64_dft");
    F.r2c = (__typeof__(F.r2c))fftw_sym(hf, "fftwf_plan_guru64_dft_r2c");
    F.c2r = (__typeof__(F.c2r))fftw_sym(hf, "fftwf_plan_guru64_dft_c2r");
    F.execute = (__typeof__(F.execute))fftw_sym(hf, "fftwf_execute");
    F.destroy = (__typeof__(F.destroy))fftw_sym(hf, "fftwf_destroy_plan");
    loaded = 1;
}

static int is_double(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
static int real_in(cufftType t) { return t == CUFFT_R2C || t == CUFFT_D2Z; }
static int real_out(cufftType t) { return t == CUFFT_C2R || t == CUFFT_Z2D; }

/* The layout of one side.  In the basic layout every dimension is packed, except that the real side of an
 * in-place real transform has 2 (n/2+1) elements in its last dimension (cuFFT's padding). */
static side_t side_of(const plan_t *p, int is_real, int inplace, const long long *embed, long long stride,
                      long long dist)
{
    side_t s = {.esize = (is_double(p->type) ? 8u : 4u) * (is_real ? 1u : 2u)};
    long long em[RANK];
    int lo = RANK - p->rank, halved = !is_real && (real_in(p->type) || real_out(p->type));
    for (int q = 0; q < RANK; q++) {
        s.d[q] = q < lo ? 1 : p->n[q];
        if (q == RANK - 1 && halved)
            s.d[q] = p->n[q] / 2 + 1;
        em[q] = p->basic || q <= lo ? s.d[q] : embed[q];
    }
    if (p->basic && is_real && inplace)
        em[RANK - 1] = 2 * (p->n[RANK - 1] / 2 + 1);
    if (p->basic)
        stride = 1, dist = em[0] * em[1] * em[2];
    s.st[RANK - 1] = stride;
    for (int q = RANK - 2; q >= 0; q--)
        s.st[q] = s.st[q + 1] * em[q + 1];
    s.dist = dist;
    return s;
}

/* Bytes from a side's first element to the end of its last, over the batch. */
static size_t extent(const side_t *s, long long batch)
{
    long long last = (batch - 1) * s->dist;
    for (int q = 0; q < RANK; q++)
        last += (s->d[q] - 1) * s->st[q];
    return (size_t)(last + 1) * s->esize;
}

/* The same dimensions packed. */
static side_t packed(const side_t *s)
{
    side_t p = *s;
    p.st[RANK - 1] = 1;
    for (int q = RANK - 2; q >= 0; q--)
        p.st[q] = p.st[q + 1] * p.d[q + 1];
    p.dist = p.st[0] * p.d[0];
    return p;
}

/* Every element of side a in pa: copied from the same element of side b in pb, or poisoned when pb is NULL. */
static void each(const side_t *a, char *pa, const side_t *b, const char *pb, long long batch)
{
    for (long long k = 0; k < batch; k++)
        for (long long i = 0; i < a->d[0]; i++)
            for (long long j = 0; j < a->d[1]; j++)
                for (long long l = 0; l < a->d[2]; l++) {
                    char *to = pa + (size_t)(k * a->dist + i * a->st[0] + j * a->st[1] + l * a->st[2]) * a->esize;
                    if (pb)
                        memcpy(to, pb + (size_t)(k * b->dist + i * b->st[0] + j * b->st[1] + l * b->st[2]) * b->esize,
                               a->esize);
                    else
                        memset(to, 0xff, a->esize); /* a NaN in either precision */
                }
}

/* One execute, everything captured at the call. */
typedef struct {
    const char *fn;
    cufftType type;
    int rank, sign;
    long long n[RANK], batch;
    side_t in, out;
    void *idata, *odata, *work;
    size_t work_size;
} job_t;

/* FFTW plans the transform from in to out (laid out as o), runs it and destroys the plan; -1 when FFTW has no
 * plan for the layout.  FFTW_ESTIMATE leaves the arrays alone while planning.  Only queued jobs call this, all
 * under the runtime's lock, so the planner (not thread-safe) never runs twice at once. */
static int fftw_run(const job_t *j, void *in, void *out, const side_t *o)
{
    fftw_iodim64 dims[RANK], many = {.n = j->batch, .is = j->in.dist, .os = o->dist};
    int r = j->rank;
    for (int k = 0; k < r; k++) {
        int q = RANK - r + k;
        dims[k] = (fftw_iodim64){.n = j->n[q], .is = j->in.st[q], .os = o->st[q]};
    }
    if (is_double(j->type)) {
        fftw_plan p = j->type == CUFFT_Z2Z   ? D.dft(r, dims, 1, &many, in, out, j->sign, FFTW_ESTIMATE)
                      : j->type == CUFFT_D2Z ? D.r2c(r, dims, 1, &many, in, out, FFTW_ESTIMATE)
                                             : D.c2r(r, dims, 1, &many, in, out, FFTW_ESTIMATE);
        if (!p)
            return -1;
        D.execute(p);
        D.destroy(p);
    } else {
        fftwf_plan p = j->type == CUFFT_C2C   ? F.dft(r, dims, 1, &many, in, out, j->sign, FFTW_ESTIMATE)
                       : j->type == CUFFT_R2C ? F.r2c(r, dims, 1, &many, in, out, FFTW_ESTIMATE)
                                              : F.c2r(r, dims, 1, &many, in, out, FFTW_ESTIMATE);
        if (!p)
            return -1;
        F.execute(p);
        F.destroy(p);
    }
    return 0;
}

/* Runs when the stream reaches the execute.  When FFTW cannot plan the layout directly (in place with other
 * strides out than in, say), the result goes through a packed buffer and is then scattered into the output's
 * layout.  Planned directly, results are bit for bit the CPU FFTW's for the same plan. */
static void run(void *arg)
{
    const job_t *j = arg;
    int inplace = j->idata == j->odata;
    side_t tight = packed(&j->out);
    char *tmp = NULL;
    int rc = fftw_run(j, j->idata, j->odata, &j->out);
    if (rc && (tmp = malloc(extent(&tight, j->batch))) != NULL)
        rc = fftw_run(j, j->idata, tmp, &tight);
    if (rc) {
        standin_violation(j->fn, "the stand-in could not compute this transform (FFTW has no plan for it)");
        each(&j->out, j->odata, NULL, NULL, j->batch);
    } else if (tmp) {
        each(&j->out, j->odata, &tight, tmp, j->batch);
    }
    free(tmp);
    if (!inplace && real_out(j->type)) /* the real cuFFT may overwrite the input of a c2r */
        each(&j->in, j->idata, NULL, NULL, j->batch);
    memset(j->work, 0xff, j->work_size);
}

/* The live handle h, or NULL with a violation.  Under P.lock. */
static plan_t *live(cufftHandle h, const char *fn)
{
    if (h >= 1 && h <= P.n && P.plans[h - 1]->magic == PLAN_LIVE)
        return P.plans[h - 1];
    standin_violation(fn, h >= 1 && h <= P.n ? "the plan was destroyed" : "not a handle from cufftCreate");
    return NULL;
}

/* ---- handles and plans --------------------------------------------------------------------------------- */

cufftResult cufftCreate(cufftHandle *handle)
{
    if (standin_fail("cufftCreate"))
        return CUFFT_ALLOC_FAILED;
    pthread_mutex_lock(&P.lock);
    if (P.n == P.cap) {
        P.cap = P.cap ? 2 * P.cap : 64;
        P.plans = realloc(P.plans, (size_t)P.cap * sizeof *P.plans);
    }
    plan_t *p = P.plans ? calloc(1, sizeof *p) : NULL;
    if (!p) {
        fprintf(stderr, "cufft stand-in: out of host memory\n");
        abort();
    }
    p->magic = PLAN_LIVE;
    p->autoalloc = 1;
    P.plans[P.n++] = p;
    *handle = P.n;
    pthread_mutex_unlock(&P.lock);
    standin_count_fft(STANDIN_FFT_CREATE);
    return CUFFT_SUCCESS;
}

/* The layout's checks, and p filled from the arguments.  CUFFT_SUCCESS, or an error with a violation: gpushim
 * never means to pass a plan that cuFFT refuses. */
static cufftResult describe(plan_t *p, const char *fn, int rank, const long long *n, const long long *inembed,
                            long long istride, long long idist, const long long *onembed, long long ostride,
                            long long odist, cufftType type, long long batch)
{
    if (type != CUFFT_C2C && type != CUFFT_Z2Z && !real_in(type) && !real_out(type))
        return standin_violation(fn, "not a cufftType"), CUFFT_INVALID_TYPE;
    if (rank < 1 || rank > RANK || !n || batch < 1)
        return standin_violation(fn, "rank not 1 to 3, or batch below 1"), CUFFT_INVALID_SIZE;
    p->type = type, p->rank = rank, p->batch = batch, p->basic = !inembed || !onembed;
    p->istride = istride, p->idist = idist, p->ostride = ostride, p->odist = odist;
    int lo = RANK - rank;
    for (int k = 0; k < RANK; k++) {
        p->n[k] = k < lo ? 1 : n[k - lo];
        p->inembed[k] = k < lo || !inembed ? 1 : inembed[k - lo];
        p->onembed[k] = k < lo || !onembed ? 1 : onembed[k - lo];
        if (p->n[k] < 1)
            return standin_violation(fn, "a transform size below 1"), CUFFT_INVALID_SIZE;
    }
    if (p->basic)
        return CUFFT_SUCCESS;
    if (istride < 1 || ostride < 1 || (batch > 1 && (idist < 1 || odist < 1)))
        return standin_violation(fn, "a stride or distance below 1"), CUFFT_INVALID_VALUE;
    side_t in = side_of(p, real_in(type), 0, p->inembed, istride, idist);
    side_t out = side_of(p, real_out(type), 0, p->onembed, ostride, odist);
    for (int k = lo + 1; k < RANK; k++) /* embed[0] is not used */
        if (p->inembed[k] < in.d[k] || p->onembed[k] < out.d[k])
            return standin_violation(fn, "an embed smaller than the transform along it"), CUFFT_INVALID_SIZE;
    return CUFFT_SUCCESS;
}

/* The work size reported, and required of a caller's work area: one complex element per element of the
 * transform, so that a caller must budget it; none with GS_STANDIN_FFT_WORK=0, as the real cuFFT reports for
 * some plans (H200: the out-of-place c2c 512^3). */
static size_t work_bytes(const plan_t *p)
{
    const char *w = getenv("GS_STANDIN_FFT_WORK");
    if (w && atoi(w) == 0)
        return 0;
    return (size_t)(p->batch * p->n[0] * p->n[1] * p->n[2]) * (is_double(p->type) ? 16u : 8u);
}

cufftResult cufftMakePlanMany64(cufftHandle plan, int rank, long long int *n, long long int *inembed,
                                long long int istride, long long int idist, long long int *onembed,
                                long long int ostride, long long int odist, cufftType type, long long int batch,
                                size_t *workSize)
{
    static const char fn[] = "cufftMakePlanMany64";
    if (standin_fail(fn))
        return CUFFT_ALLOC_FAILED;
    pthread_mutex_lock(&P.lock);
    load_fftw();
    plan_t *p = live(plan, fn);
    cufftResult rc = p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
    if (p && p->made) {
        standin_violation(fn, "the handle already has a plan (cufftCreate a new one)");
        rc = CUFFT_INVALID_PLAN;
    }
    plan_t q = p ? *p : (plan_t){0};
    if (rc == CUFFT_SUCCESS)
        rc = describe(&q, fn, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch);
    if (rc == CUFFT_SUCCESS) {
        q.work_size = work_bytes(&q);
        /* Allocated at planning like the real one's, from the runtime: it counts against the device's memory. */
        if (q.autoalloc && !q.user_work && cudaMalloc(&q.auto_work, q.work_size) != cudaSuccess)
            rc = CUFFT_ALLOC_FAILED;
    }
    if (rc == CUFFT_SUCCESS) {
        q.made = 1;
        q.dev = standin_current_device();
        *p = q;
        if (workSize)
            *workSize = q.work_size;
    }
    pthread_mutex_unlock(&P.lock);
    if (rc == CUFFT_SUCCESS)
        standin_count_fft(STANDIN_FFT_PLAN);
    return rc;
}

/* Frees the plan's own work area; cudaFree first runs everything queued, which may still use it. */
cufftResult cufftDestroy(cufftHandle plan)
{
    if (standin_fail("cufftDestroy"))
        return CUFFT_INTERNAL_ERROR;
    pthread_mutex_lock(&P.lock);
    plan_t *p = live(plan, "cufftDestroy");
    if (p) {
        cudaFree(p->auto_work);
        p->auto_work = NULL;
        p->magic = PLAN_DEAD;
    }
    pthread_mutex_unlock(&P.lock);
    if (p)
        standin_count_fft(STANDIN_FFT_DESTROY);
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

/* The setters' common start: the injected failure, then under P.lock (which the setter releases) p, the live
 * handle h or NULL, and rc, the status for it. */
#define SETTER(fn, h) \
    if (standin_fail(fn)) \
        return CUFFT_INTERNAL_ERROR; \
    pthread_mutex_lock(&P.lock); \
    plan_t *p = live(h, fn); \
    cufftResult rc = p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;

/* The stream is checked when an execute is queued on it. */
cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    SETTER("cufftSetStream", plan)
    if (p)
        p->stream = stream;
    pthread_mutex_unlock(&P.lock);
    return rc;
}

/* Only before planning: the real cuFFT has allocated the work area by then. */
cufftResult cufftSetAutoAllocation(cufftHandle plan, int autoAllocate)
{
    SETTER("cufftSetAutoAllocation", plan)
    if (p && p->made) {
        standin_violation("cufftSetAutoAllocation", "called after the plan was made, where it has no effect");
        rc = CUFFT_INVALID_VALUE;
    } else if (p) {
        p->autoalloc = autoAllocate != 0;
    }
    pthread_mutex_unlock(&P.lock);
    return rc;
}

/* As the real one, frees the plan's own work area if it had one.  The area is checked at each execute. */
cufftResult cufftSetWorkArea(cufftHandle plan, void *workArea)
{
    SETTER("cufftSetWorkArea", plan)
    if (p) {
        cudaFree(p->auto_work);
        p->auto_work = NULL;
        p->user_work = workArea;
    }
    pthread_mutex_unlock(&P.lock);
    return rc;
}

cufftResult cufftGetSize(cufftHandle plan, size_t *workSize)
{
    SETTER("cufftGetSize", plan)
    if (p)
        *workSize = p->made ? p->work_size : 0;
    pthread_mutex_unlock(&P.lock);
    return rc;
}

cufftResult cufftGetVersion(int *version)
{
    if (standin_fail("cufftGetVersion"))
        return CUFFT_INTERNAL_ERROR;
    *version = STANDIN_CUFFT_MAJOR * 1000;
    return CUFFT_SUCCESS;
}

cufftResult cufftGetProperty(libraryPropertyType type, int *value)
{
    if (standin_fail("cufftGetProperty"))
        return CUFFT_INTERNAL_ERROR;
    if (type != MAJOR_VERSION && type != MINOR_VERSION && type != PATCH_LEVEL)
        return CUFFT_INVALID_TYPE;
    *value = type == MAJOR_VERSION ? STANDIN_CUFFT_MAJOR : 0;
    return CUFFT_SUCCESS;
}

/* ---- executes ------------------------------------------------------------------------------------------- */

static int overlap(const char *a, size_t na, const char *b, size_t nb) { return a < b + nb && b < a + na; }

/* Under P.lock: the checks, then the job queued on the plan's stream. */
static cufftResult exec_locked(cufftHandle h, const char *fn, cufftType type, void *in, void *out, int sign)
{
    plan_t *p = live(h, fn);
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (!p->made)
        return standin_violation(fn, "executed before cufftMakePlanMany64 made the plan"), CUFFT_INVALID_PLAN;
    if (p->dev != standin_current_device())
        return standin_violation(fn, "the plan was made with another device current"), CUFFT_INVALID_PLAN;
    if (p->type != type)
        return standin_violation(fn, "the plan is of another type"), CUFFT_INVALID_TYPE;
    if ((type == CUFFT_C2C || type == CUFFT_Z2Z) && sign != CUFFT_FORWARD && sign != CUFFT_INVERSE)
        return standin_violation(fn, "direction neither CUFFT_FORWARD nor CUFFT_INVERSE"), CUFFT_INVALID_VALUE;
    job_t j = {.fn = fn, .type = type, .rank = p->rank, .sign = sign, .batch = p->batch, .idata = in,
               .odata = out, .work = p->user_work ? p->user_work : p->auto_work, .work_size = p->work_size};
    memcpy(j.n, p->n, sizeof j.n);
    j.in = side_of(p, real_in(type), in == out, p->inembed, p->istride, p->idist);
    j.out = side_of(p, real_out(type), in == out, p->onembed, p->ostride, p->odist);
    size_t ib = extent(&j.in, j.batch), ob = extent(&j.out, j.batch);
    if (standin_check_device(in, ib, fn, "the input (as its layout spans it)") ||
        standin_check_device(out, ob, fn, "the output (as its layout spans it)"))
        return CUFFT_INVALID_VALUE;
    if (in != out && overlap(in, ib, out, ob))
        return standin_violation(fn, "input and output overlap without being the same (in place)"),
               CUFFT_INVALID_VALUE;
    if (!j.work)
        return standin_violation(fn, "auto-allocation off and no cufftSetWorkArea"), CUFFT_NO_WORKSPACE;
    /* The work area is the caller's own device memory even when the plan needs none, and neither operand's: the
     * real cuFFT failed every execute whose empty work area began where the output did (H200, RESULTS.md). */
    size_t wb = j.work_size ? j.work_size : 1;
    if (standin_check_device(j.work, wb, fn, "the work area (of the size the plan reported, at least a byte)"))
        return CUFFT_INVALID_VALUE;
    if (overlap(j.work, wb, in, ib) || overlap(j.work, wb, out, ob))
        return standin_violation(fn, "the work area overlaps the input or the output"), CUFFT_EXEC_FAILED;
    if (standin_enqueue(p->stream, run, &j, sizeof j))
        return CUFFT_EXEC_FAILED;
    return CUFFT_SUCCESS;
}

/* An injected failure returns before anything is queued.  So does a runtime error left pending by an earlier
 * call: cuFFT reads the runtime's last error after its launches and reports it as its own (H200, bench/fft.sh
 * at ab52928: one execute in a loop failed so after a failed allocation was retried). */
static cufftResult exec(cufftHandle h, const char *fn, cufftType type, void *in, void *out, int sign)
{
    if (standin_fail(fn) || standin_take_last_error())
        return CUFFT_EXEC_FAILED;
    pthread_mutex_lock(&P.lock);
    cufftResult rc = exec_locked(h, fn, type, in, out, sign);
    pthread_mutex_unlock(&P.lock);
    if (rc == CUFFT_SUCCESS)
        standin_count_fft(STANDIN_FFT_EXEC);
    return rc;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex *idata, cufftComplex *odata, int direction)
{
    return exec(plan, "cufftExecC2C", CUFFT_C2C, idata, odata, direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleComplex *odata, int direction)
{
    return exec(plan, "cufftExecZ2Z", CUFFT_Z2Z, idata, odata, direction);
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal *idata, cufftComplex *odata)
{
    return exec(plan, "cufftExecR2C", CUFFT_R2C, idata, odata, CUFFT_FORWARD);
}

cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal *idata, cufftDoubleComplex *odata)
{
    return exec(plan, "cufftExecD2Z", CUFFT_D2Z, idata, odata, CUFFT_FORWARD);
}

cufftResult cufftExecC2R(cufftHandle plan, cufftComplex *idata, cufftReal *odata)
{
    return exec(plan, "cufftExecC2R", CUFFT_C2R, idata, odata, CUFFT_INVERSE);
}

cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex *idata, cufftDoubleReal *odata)
{
    return exec(plan, "cufftExecZ2D", CUFFT_Z2D, idata, odata, CUFFT_INVERSE);
}

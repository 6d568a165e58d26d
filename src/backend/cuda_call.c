/* One call on the device (cuda_call.h): the device made current, the operands bound to the residency cache
 * (cache.c) and registered (hostreg.c), copied through the transfer engine (xfer.c) into scratch memory unless
 * the cache holds them, the body run, and the outputs copied back only after the computation has completed
 * without error. */
#include "backend/cuda_call.h"
#include "memory/hostreg.h"
#include "memory/origin.h"

/* Device memory kept between calls for operands, at most. */
#define GS_SCRATCH_KEEP ((size_t)4 << 30)
/* Device memory left free for cuBLAS's workspace and the program's own GPU work, at most. */
#define GS_RESERVE ((size_t)256 << 20)

static void gs_cuda_scratch_free(gs_device_t *dv)
{
    if (dv->scratch)
        gs_cuda.cudaFree(dv->scratch);
    dv->scratch = NULL;
    dv->scratch_size = 0;
}

int gs_cuda_scratch(gs_call_t *c, size_t bytes)
{
    gs_device_t *dv = gs_dev(c);
    if (bytes <= dv->scratch_size)
        return GS_OK;
    gs_cuda_scratch_free(dv);
    /* Cached operands the call does not use give way when memory runs short; the failure that said so must
     * not stay pending as the runtime's last error, which the libraries read after their launches. */
    while (GS_CALLED(cudaMalloc, ((void **)&dv->scratch, bytes)) != cudaSuccess) {
        gs_cuda.cudaGetLastError();
        if (gs_cache_trim(c->dev, bytes) == 0) {
            GS_CUDA(c, cudaMalloc, ((void **)&dv->scratch, bytes));
            break; /* (the loop's own test would allocate again, losing this block: tests/t_faults.sh) */
        }
    }
    dv->scratch_size = bytes;
    return GS_OK;
}

size_t gs_cuda_release(void)
{
    gs_current_t was; /* was.dev: the program's device, whose allocation failed */
    gs_current_save(&was);
    size_t freed = 0;
    for (int i = 0; i < atomic_load(&gs_ndevices); i++) {
        gs_device_t *dv = &gs_devices[i];
        if (dv->ordinal != was.dev || gs_cuda.cudaSetDevice(dv->ordinal) != cudaSuccess)
            continue;
        freed += dv->scratch_size + gs_cache_trim(i, SIZE_MAX);
        gs_cuda_scratch_free(dv);
    }
    gs_current_restore(&was);
    return freed;
}

int gs_cuda_once(gs_call_t *c, gs_once_t *o, int (*open)(char *why, size_t n), const char *then)
{
    if (o->state == 0) {
        o->state = open(o->why, sizeof o->why) == GS_OK ? 1 : -1;
        if (o->state < 0 && !gs.opt.quiet)
            gs_msg("%s; %s", o->why, then);
    }
    if (o->state == 1)
        return GS_OK;
    c->why = o->why;
    return GS_ENODEV;
}

int gs_cuda_budget(gs_call_t *c, size_t *bytes)
{
    size_t free, total;
    GS_CUDA(c, cudaMemGetInfo, (&free, &total));
    size_t reserve = total / 16 < GS_RESERVE ? total / 16 : GS_RESERVE;
    free += gs_dev(c)->scratch_size + gs_cache_evictable(c->dev);
    *bytes = free > reserve ? free - reserve : 0;
    if (gs.opt.device_memory >= 0 && gs.opt.device_memory < (double)*bytes)
        *bytes = (size_t)gs.opt.device_memory;
    return GS_OK;
}

int gs_cuda_operands(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, const gs_cbind_t *b, int n,
                     size_t es, size_t extra, char **dextra, char **d, int64_t *ld)
{
    gs_device_t *dv = gs_dev(c);
    size_t off[GS_OPERANDS_MAX], total = 0, budget;
    for (int i = 0; i < n; i++) {
        off[i] = total;
        total += b[i].dev ? 0 : gs_round256((size_t)o[i].rows * (size_t)o[i].cols * es);
    }
    size_t xoff = total;
    total += gs_round256(extra);
    int rc = gs_cuda_budget(c, &budget);
    if (rc != GS_OK)
        return rc;
    if (total > budget) {
        gs_call_why(c, "gpu: needs %zu bytes of device memory, %zu available", total, budget);
        return GS_ENOMEM;
    }
    if ((rc = gs_cuda_scratch(c, total)) != GS_OK)
        return rc;
    if (dextra)
        *dextra = dv->scratch + xoff;
    for (int i = 0; i < n; i++) {
        d[i] = b[i].dev ? b[i].dev : dv->scratch + off[i];
        ld[i] = o[i].rows > 0 ? o[i].rows : 1;
        if (o[i].in && !b[i].hit && (rc = gs_xfer_put(c, d[i], (size_t)ld[i] * es, &h[i])) != GS_OK)
            return rc;
    }
    GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_UP], dv->up));
    GS_CUDA(c, cudaStreamWaitEvent, (dv->stream, dv->ev[GS_EV_UP], 0));
    return GS_OK;
}

/* The outputs copied again, one plain copy each on the compute stream, after the copy back failed: the results
 * are still on the device, and the user's memory may hold part of them. */
static int gs_cuda_outputs_again(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, int n, size_t es,
                                 char *const *d, const int64_t *ld)
{
    cudaStream_t s = gs_dev(c)->stream;
    gs_cuda.cudaGetLastError();
    for (int i = 0; i < n; i++)
        if (o[i].out && h[i].width && h[i].cols)
            GS_CUDA(c, cudaMemcpy2DAsync, (h[i].host, h[i].ld, d[i], (size_t)ld[i] * es, h[i].width, h[i].cols,
                                           cudaMemcpyDeviceToHost, s));
    GS_CUDA(c, cudaStreamSynchronize, (s));
    return GS_OK;
}

int gs_cuda_outputs(gs_call_t *c, const gs_operand_t *o, const gs_hreg_t *h, int n, size_t es, char *const *d,
                    const int64_t *ld)
{
    /* Nothing is written to user memory before the computation is known to have succeeded. */
    GS_CUDA(c, cudaStreamSynchronize, (gs_dev(c)->stream));
    gs_xjob_t j = {0};
    int rc = GS_OK;
    for (int i = 0; i < n && rc == GS_OK; i++)
        if (o[i].out)
            rc = gs_xfer_get(c, &j, &h[i], d[i], (size_t)ld[i] * es);
    int rc2 = gs_xfer_finish(c, &j);
    if ((rc = rc != GS_OK ? rc : rc2) == GS_OK)
        return GS_OK;
    /* A copy back that failed may have written part of an operand that is also an input, which the CPU
     * library, making the call again, would then read: the results are copied again instead. */
    char first[GS_WHY_MAX];
    snprintf(first, sizeof first, "%s", c->why ? c->why : "");
    if (gs_cuda_outputs_again(c, o, h, n, es, d, ld) == GS_OK) {
        gs_call_why(c, "results copied back again after: %s", first);
        return GS_OK;
    }
    int inout = 0;
    while (inout < n && !(o[inout].in && o[inout].out))
        inout++;
    if (inout < n)
        gs_notice("%s: the GPU failed while copying its results back (%s), and again on a second try: the CPU "
                  "library makes the call again, and an input it also writes may hold part of the GPU's results",
                  gs_routines[c->routine].name, first);
    return rc;
}

void gs_cuda_traffic(gs_call_t *c, const gs_operands_t *ops, gs_traffic_t *t)
{
    *t = (gs_traffic_t){0};
    for (int i = 0; i < ops->n; i++) {
        const gs_operand_t *o = &ops->o[i];
        gs_hreg_t h = gs_operand_hreg(o, ops->es);
        double bytes = (double)h.width * (double)h.cols;
        t->touched += bytes;
        gs_cexpect_t x = {0};
        if (!(ops->scratch_only >> i & 1))
            x = gs_cache_expect(&h, ops->fresh >> i & 1);
        bool kept = o->in && !o->out && x.again; /* read only, and the cache keeps it: gs_cuda_bind */
        c->known |= (uint8_t)(kept << i);
        /* A resident input is not copied in: one only read when the cache keeps it, one also written always
         * (the cache holds outputs, so that chains find them: gs_cache_take). */
        bool held = x.resident && (kept || o->out);
        double moved = bytes * ((o->in && !held) + o->out);
        t->resident += o->in && held ? bytes : 0;
        /* Memory seen before is registered at its second use, when large enough (hostreg.c), and copied
         * directly from then on; the first time, through staging. */
        bool back = x.seen > 0 && bytes >= GS_HOSTREG_MIN;
        *(back ? &t->registered : &t->staged) += moved;
        t->in += o->in && !held ? bytes : 0;
        t->registered_out += back && o->out ? bytes : 0;
        t->reg += back && x.seen == 1 ? bytes : 0;
        if (kept && !x.resident) {
            t->invest += bytes;
            t->again = x.seen > t->again ? x.seen : t->again;
        }
    }
}

/* Binds the n operands o to the residency cache (regions h, entries b) and registers those it does not hold. */
static void gs_cuda_bind(gs_call_t *c, const gs_operands_t *ops, gs_hreg_t *h, gs_cbind_t *b)
{
    const gs_operand_t *o = ops->o;
    size_t total = 0, budget = 0;
    uint64_t t0 = gs_now_ns(); /* the cache's own time, in the log as track_us */
    gs_cache_call(c->dev);
    for (int i = 0; i < ops->n; i++) {
        h[i] = gs_operand_hreg(&o[i], ops->es);
        total += gs_round256((size_t)o[i].rows * (size_t)o[i].cols * ops->es);
    }
    /* Operands are cached only when the call runs with all of them on the device (not GEMM out of core). */
    bool fits = gs_cuda_budget(c, &budget) == GS_OK && total <= budget;
    for (int i = 0; i < ops->n; i++)
        gs_cache_bind(c->dev, &h[i], o[i].in, o[i].out, c->known >> i & 1, gs_origin_of(c),
                      fits && !(ops->scratch_only >> i & 1),
                      &b[i]);
    c->track_ns = gs_now_ns() - t0;
    gs_hostreg_call();
    for (int i = 0; i < ops->n; i++)
        if (!b[i].hit) /* operands seen before are registered now, so that their copies skip staging */
            gs_hostreg_use(h[i].host, gs_hreg_extent(&h[i]));
}

int gs_cuda_run(gs_call_t *c, const gs_operands_t *ops, gs_cuda_body_fn *body, const void *arg)
{
    gs_device_t *dv = gs_dev(c);
    gs_current_t was;
    gs_current_save(&was);
    int st = GS_CALLED(cudaSetDevice, (dv->ordinal));
    if (st != cudaSuccess) {
        gs_current_restore(&was);
        return gs_cuda_error(c, "cudaSetDevice", st, __FILE__, __LINE__);
    }
    gs_hreg_t h[GS_OPERANDS_MAX];
    gs_cbind_t b[GS_OPERANDS_MAX];
    gs_cuda_bind(c, ops, h, b);
    int rc = body(c, arg, ops->o, h, b, ops->n);
    uint64_t t0 = gs_now_ns();
    gs_cache_end(c, b, ops->n, rc == GS_OK);
    c->track_ns += gs_now_ns() - t0;
    if (rc != GS_OK) /* the log counts bytes of calls that ran on the GPU */
        c->bytes_h2d = c->bytes_d2h = c->bytes_saved = 0;
    if (dv->scratch_size > GS_SCRATCH_KEEP || rc == GS_ENOMEM)
        gs_cuda_scratch_free(dv);
    gs_current_restore(&was);
    return rc;
}

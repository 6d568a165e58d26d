/* FFTW executes on cuFFT (cuda_fft.h): an execute's arrays moved as the family's operands (families/fftw/fftw.c)
 * by cuda_call.c, the transform run by the cached plan of its geometry with the workspace carved after the
 * operands (and, for a layout cuFFT lacks, its contiguous copies after the workspace), the output scaled on the
 * device where the Python layer asks (NumPy's norm) and copied back only once the transform has succeeded. */
#include <math.h>

#include "backend/cuda_fft.h"
#include "backend/cuda_kernels.h"
#include "backend/cuda_split.h"

/* Queues the transform of plan h from in to out (device memory) on the compute stream.  FFTW's signs are
 * cuFFT's directions (FFTW_FORWARD = CUFFT_FORWARD = -1), and neither normalises. */
static int gs_fft_exec(gs_call_t *c, const gs_fftw_geom_t *g, cufftHandle h, void *in, void *out)
{
    bool z = g->prec == GS_P_Z;
    switch (g->kind) {
    case GS_FFTW_DFT:
        if (z)
            GS_FFT(c, cufftExecZ2Z, (h, in, out, g->sign));
        else
            GS_FFT(c, cufftExecC2C, (h, in, out, g->sign));
        break;
    case GS_FFTW_R2C:
        if (z)
            GS_FFT(c, cufftExecD2Z, (h, in, out));
        else
            GS_FFT(c, cufftExecR2C, (h, in, out));
        break;
    default:
        if (z)
            GS_FFT(c, cufftExecZ2D, (h, in, out));
        else
            GS_FFT(c, cufftExecC2R, (h, in, out));
    }
    return GS_OK;
}

/* Bytes of an element of g's input (out false) or output: real for r2c's input and c2r's output, else complex. */
static size_t gs_fft_elem(const gs_fftw_geom_t *g, bool out)
{
    size_t rs = gs_prec_size(g->prec) / 2;
    return g->kind == (out ? GS_FFTW_C2R : GS_FFTW_R2C) ? rs : 2 * rs;
}

/* A plan of strides no advanced layout expresses (g->perm): the input gathered into lay's contiguous form at
 * xin, transformed into xout, scattered into the output's layout at out, all on the compute stream. */
static int gs_fft_permuted(gs_call_t *c, const gs_fftw_geom_t *g, cufftHandle h, const char *in, char *out,
                           char *xin, char *xout)
{
    int rc = gs_kernel_permute(c, in, xin, &g->gather, gs_fft_elem(g, false));
    if (rc == GS_OK && (rc = gs_fft_exec(c, g, h, xin, xout)) == GS_OK)
        rc = gs_kernel_permute(c, xout, out, &g->scatter, gs_fft_elem(g, true));
    return rc;
}

/* Device bytes of the contiguous input and output of a plan through the kernels (g->perm), each rounded. */
static size_t gs_fft_contiguous_bytes(const gs_fftw_geom_t *g, size_t *in_bytes)
{
    const gs_fftw_layout_t *l = &g->lay;
    *in_bytes = gs_round256((size_t)(l->idist * l->batch) * gs_fft_elem(g, false));
    return *in_bytes + gs_round256((size_t)(l->odist * l->batch) * gs_fft_elem(g, true));
}

/* The reals of the output's span at out multiplied by p's factors, where they are not 1: the family takes a
 * scaled call only when that span holds nothing but the output's elements (families/fftw/arrays.c). */
static int gs_fft_scale(gs_call_t *c, const gs_fftw_t *p, int64_t reals, char *out)
{
    if (p->scale[0] == 1 && p->scale[1] == 1)
        return GS_OK;
    gs_scale_t s = {reals, p->scale[0], p->scale[1]};
    return gs_kernel_scale(c, out, &s, gs_prec_size(p->g.prec) / 2);
}

/* Bytes of input that each part of a pipelined execute reads at least, and its parts at most. */
#define GS_FFT_PIPE_MIN ((int64_t)16 << 20)
#define GS_FFT_PIPE_PARTS 8

/* An execute in parts on one device, blocks of its transforms, each uploaded, transformed and downloaded while
 * the next is uploaded: the copies each way overlap, where whole they would take their sum. */
typedef struct {
    int parts;
    int64_t per;           /* transforms of each part but the last */
    int64_t dist[2], one[2]; /* gs_split_fft_dim's */
    gs_fftw_geom_t g[2];   /* the geometry of the first part and of the last */
} gs_fft_pipe_t;

/* Whether execute p runs pipelined, in pp's parts: out of place with an output it writes whole, so that a part's
 * results may reach the user's memory before the next part has computed (should that part fail, the CPU's
 * redo of the whole call overwrites them), and at least two parts of GS_FFT_PIPE_MIN bytes. */
static bool gs_fft_pipe(const gs_fftw_t *p, gs_fft_pipe_t *pp)
{
    const gs_fftw_geom_t *g = &p->g;
    int64_t batch = g->inplace || g->gaps ? 0 : gs_split_fft_dim(p, pp->dist, pp->one);
    if (batch < 2)
        return false;
    int64_t bytes = ((batch - 1) * pp->dist[0] + pp->one[0]) * (int64_t)(gs_prec_size(g->prec) / 2);
    int64_t parts = bytes / GS_FFT_PIPE_MIN < GS_FFT_PIPE_PARTS ? bytes / GS_FFT_PIPE_MIN : GS_FFT_PIPE_PARTS;
    if (parts < 2)
        return false;
    pp->per = (batch + parts - 1) / parts;
    pp->parts = (int)((batch + pp->per - 1) / pp->per);
    pp->g[0] = pp->g[1] = *g;
    pp->g[0].lay.batch = pp->per;
    pp->g[1].lay.batch = batch - (pp->parts - 1) * pp->per;
    return true;
}

/* Part k of pp, on the device arrays d (input, output; plan's workspace set): its input uploaded from region h[0]
 * unless resident, the transform queued after it, its output scaled, and its download to h[1] queued after that
 * in job j. */
static int gs_fft_part(gs_call_t *c, const gs_fftw_t *p, const gs_fft_pipe_t *pp, int k, const gs_fft_plan_t *plan,
                       const gs_hreg_t *h, bool upload, char *const d[2], gs_xjob_t *j)
{
    gs_device_t *dv = gs_dev(c);
    const gs_fftw_geom_t *g = &pp->g[k == pp->parts - 1];
    size_t rs = gs_prec_size(g->prec) / 2, off[2], len[2];
    for (int s = 0; s < 2; s++) {
        off[s] = (size_t)(k * pp->per * pp->dist[s]) * rs;
        len[s] = (size_t)((g->lay.batch - 1) * pp->dist[s] + pp->one[s]) * rs;
    }
    if (upload) {
        gs_hreg_t in = {h[0].host + off[0], len[0], len[0], 1};
        int rc = gs_xfer_put(c, d[0] + off[0], len[0], &in);
        if (rc != GS_OK)
            return rc;
        GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_UP], dv->up));
        GS_CUDA(c, cudaStreamWaitEvent, (dv->stream, dv->ev[GS_EV_UP], 0));
    }
    int rc = gs_fft_exec(c, g, plan->h, d[0] + off[0], d[1] + off[1]);
    gs_fft_plan_ran(c->dev, g, rc == GS_OK);
    if (rc != GS_OK || (rc = gs_fft_scale(c, p, (int64_t)(len[1] / rs), d[1] + off[1])) != GS_OK)
        return rc;
    GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_DONE], dv->stream));
    GS_CUDA(c, cudaStreamWaitEvent, (dv->down, dv->ev[GS_EV_DONE], 0));
    gs_hreg_t out = {h[1].host + off[1], len[1], len[1], 1};
    return gs_xfer_get(c, j, &out, d[1] + off[1], len[1]);
}

/* The pipelined execute (gs_fft_pipe): the operands' device memory (the input's uploads left to the parts),
 * then each part in turn, every download finished before it returns. */
static int gs_fft_piped(gs_call_t *c, const gs_fftw_t *p, const gs_fft_pipe_t *pp, const gs_operand_t *o,
                        const gs_hreg_t *h, gs_cbind_t *b)
{
    gs_fft_plan_t plan[2];
    int rc = GS_OK;
    for (int i = 0; i < 2 && rc == GS_OK; i++)
        rc = gs_fft_plan(c, &pp->g[i], &plan[i]);
    if (rc != GS_OK)
        return rc;
    size_t work = plan[0].work > plan[1].work ? plan[0].work : plan[1].work;
    gs_operand_t q[2] = {o[0], o[1]};
    q[0].in = false;
    char *d[2], *w;
    int64_t ld[2];
    if ((rc = gs_cuda_operands(c, q, h, b, 2, gs_prec_size(p->g.prec) / 2, gs_round256(work ? work : 1), &w, d,
                               ld)) != GS_OK)
        return rc;
    for (int i = 0; i < 2; i++)
        GS_FFT(c, cufftSetWorkArea, (plan[i].h, w));
    gs_cuda.cudaGetLastError(); /* as gs_fft_body says */
    gs_xjob_t j = {0};
    for (int k = 0; k < pp->parts && rc == GS_OK; k++)
        rc = gs_fft_part(c, p, pp, k, &plan[k == pp->parts - 1], h, !b[0].hit, d, &j);
    int rc2 = gs_xfer_finish(c, &j);
    return rc != GS_OK ? rc : rc2;
}

static int gs_fft_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b,
                       int n)
{
    const gs_fftw_geom_t *g = &((const gs_fftw_t *)arg)->g;
    gs_fft_plan_t plan;
    gs_fft_pipe_t pp;
    int rc = gs_fft_up(c);
    if (rc == GS_OK && gs_fft_pipe(arg, &pp))
        return gs_fft_piped(c, arg, &pp, o, h, b);
    if (rc == GS_OK)
        rc = gs_fft_plan(c, g, &plan);
    if (rc != GS_OK)
        return rc;
    size_t es = gs_prec_size(g->prec) / 2;
    /* A plan that needs no workspace still gets one of the scratch's own bytes: an empty area would begin at the
     * scratch's end, which may be where a cached output begins, and cuFFT then fails every execute (H200, the
     * 512^3 loop of bench/fft.sh; tests/t_fftw.sh, "plans that need no work area"). */
    size_t work = gs_round256(plan.work ? plan.work : 1), xin = 0;
    size_t xall = g->perm ? gs_fft_contiguous_bytes(g, &xin) : 0;
    char *d[2] = {NULL, NULL}, *w = NULL;
    int64_t ld[2] = {1, 1};
    if ((rc = gs_cuda_operands(c, o, h, b, n, es, work + xall, &w, d, ld)) != GS_OK)
        return rc;
    /* The workspace moves with the scratch memory, so it is set for every execute. */
    GS_FFT(c, cufftSetWorkArea, (plan.h, w));
    /* cuFFT takes a runtime error left pending (a failed allocation that was retried, a refused registration)
     * for a failure of its own launch: it is cleared first (tests/t_fftw.sh, "a pending runtime error"). */
    gs_cuda.cudaGetLastError();
    char *out = n == 1 ? d[0] : d[1];
    rc = g->perm ? gs_fft_permuted(c, g, plan.h, d[0], out, w + work, w + work + xin)
                 : gs_fft_exec(c, g, plan.h, d[0], out);
    gs_fft_plan_ran(c->dev, g, rc == GS_OK);
    if (rc == GS_OK)
        rc = gs_fft_scale(c, arg, o[n - 1].rows, out);
    /* A part of a split call whose output is read too (in place) writes it once every part has computed. */
    if (rc == GS_OK && o[n - 1].in)
        rc = gs_split_synced(c);
    if (rc != GS_OK)
        return rc;
    return gs_cuda_outputs(c, o, h, n, es, d, ld);
}

int gs_cuda_fft(gs_call_t *c, const void *args, const gs_operands_t *o)
{
    int parts = gs_split_parts(c, args);
    return parts > 1 ? gs_split_run(c, args, o, gs_fft_body, parts) : gs_cuda_run(c, o, gs_fft_body, args);
}

double gs_cuda_fft_setup(const gs_call_t *c, const void *args)
{
    const gs_fftw_geom_t *g = &((const gs_fftw_t *)args)->g;
    /* Slot 0 runs the call, or its first part when it is split. */
    int parts = gs_split_parts(c, args);
    gs_fftw_t first;
    gs_fft_pipe_t pp;
    if (parts > 1) {
        gs_split_fft(args, 0, parts, &first);
        g = &first.g;
    } else if (gs_fft_pipe(args, &pp)) {
        g = &pp.g[0];
    }
    switch (gs_fft_plan_state(0, g)) {
    case GS_FFT_READY: return 0;
    case GS_FFT_FAILING: return INFINITY;
    default: return 1.0 / (1.0 + g->execs);
    }
}

void gs_cuda_fft_traffic(const gs_call_t *c, const void *args, gs_traffic_t *t)
{
    gs_fft_pipe_t pp;
    if (gs_ops[gs_routines[c->routine].op].family != GS_FAMILY_FFTW || t->devices > 1 || !gs_fft_pipe(args, &pp))
        return;
    /* While a part comes down the next goes up, but for the first part's upload and the last one's download.  A
     * download into registered memory (an output used before) runs beside the uploads; one that is staged gains
     * nothing, the copy threads' unpacking into fresh pages bounding it (H100, bench/RESULTS.md, 2026-12-07). */
    double in = t->in, out = t->registered_out;
    t->overlap = (in < out ? in : out) * (1 - 1.0 / pp.parts);
}

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

/* The output's span at out (o, its operand) multiplied by p's factors, where they are not 1: the family takes a
 * scaled call only when that span holds nothing but the output's elements (families/fftw/arrays.c). */
static int gs_fft_scale(gs_call_t *c, const gs_fftw_t *p, const gs_operand_t *o, char *out)
{
    if (p->scale[0] == 1 && p->scale[1] == 1)
        return GS_OK;
    gs_scale_t s = {o->rows, p->scale[0], p->scale[1]};
    return gs_kernel_scale(c, out, &s, gs_prec_size(p->g.prec) / 2);
}

static int gs_fft_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b,
                       int n)
{
    const gs_fftw_geom_t *g = &((const gs_fftw_t *)arg)->g;
    gs_fft_plan_t plan;
    int rc = gs_fft_up(c);
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
        rc = gs_fft_scale(c, arg, &o[n - 1], out);
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
    if (parts > 1) {
        gs_split_fft(args, 0, parts, &first);
        g = &first.g;
    }
    switch (gs_fft_plan_state(0, g)) {
    case GS_FFT_READY: return 0;
    case GS_FFT_FAILING: return INFINITY;
    default: return 1.0 / (1.0 + g->execs);
    }
}

/* A plan's geometry as one advanced layout (FFTW's plan_many form, the one cuFFT takes): up to three transform
 * dimensions nested row-major on each side, and one batch dimension with a distance; or the reason no such
 * layout expresses it.  Computed once per plan, when the planner registers it (planners.c), so that an execute
 * pays only for a copy. */
#include <string.h>

#include "families/fftw/fftw.h"

/* Sorts dims by input stride, largest first (insertion sort, stable: a handful of dimensions). */
static void gs_fftw_sort(gs_fftw_dim_t *d, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && d[j - 1].is < d[j].is; j--) {
            gs_fftw_dim_t t = d[j];
            d[j] = d[j - 1], d[j - 1] = t;
        }
}

/* The batch: the howmany dimensions of more than one transform, merged where one distance expresses two (the
 * outer's strides are the inner's times its size, on both sides).  Returns the number left: 0 or 1 is a
 * layout. */
static int gs_fftw_batch(const gs_fftw_geom_t *g, gs_fftw_dim_t *h)
{
    int nh = 0;
    for (int i = g->rank; i < g->rank + g->howmany_rank; i++)
        if (g->dims[i].n != 1)
            h[nh++] = g->dims[i];
    gs_fftw_sort(h, nh);
    for (int i = nh - 1; i > 0; i--)
        if (h[i - 1].is == h[i].n * h[i].is && h[i - 1].os == h[i].n * h[i].os) {
            h[i].n *= h[i - 1].n;
            memmove(&h[i - 1], &h[i], (size_t)(nh - i) * sizeof *h);
            nh--;
        }
    return nh;
}

/* Physical size a dimension needs on one side: n, or n / 2 + 1 in the last dimension of an r2c or c2r's
 * complex side. */
static int64_t gs_fftw_need(const gs_fftw_geom_t *g, const gs_fftw_layout_t *l, int i, bool complex_side)
{
    return g->kind != GS_FFTW_DFT && complex_side && i == l->rank - 1 ? l->n[i] / 2 + 1 : l->n[i];
}

/* The nesting of the transform dimensions t (outermost first) on each side: every stride a multiple of the
 * next inner one, by at least that dimension's size. */
static const char *gs_fftw_nest(const gs_fftw_geom_t *g, gs_fftw_layout_t *l, const gs_fftw_dim_t *t)
{
    bool ci = g->kind != GS_FFTW_R2C, co = g->kind != GS_FFTW_C2R;
    l->istride = t[l->rank - 1].is, l->ostride = t[l->rank - 1].os;
    if (l->istride == 0 || l->ostride == 0)
        return "zero stride";
    for (int i = 0; i < l->rank; i++)
        l->n[i] = t[i].n;
    l->inembed[0] = l->n[0], l->onembed[0] = l->n[0];
    for (int i = 1; i < l->rank; i++) {
        if (t[i - 1].is % t[i].is || t[i - 1].os % t[i].os)
            return "strides no advanced layout expresses";
        l->inembed[i] = t[i - 1].is / t[i].is, l->onembed[i] = t[i - 1].os / t[i].os;
        /* Smaller: the dimensions overlap, or the output's run in another order than the input's. */
        if (l->inembed[i] < gs_fftw_need(g, l, i, ci) || l->onembed[i] < gs_fftw_need(g, l, i, co))
            return "strides no advanced layout expresses";
    }
    return NULL;
}

/* An in-place plan needs one layout read as both sides: the same strides for a complex DFT; for r2c and c2r
 * FFTW's padded layout, unit strides in the last dimension and every outer stride and the distance twice as
 * many reals as complex elements. */
static const char *gs_fftw_inplace(const gs_fftw_geom_t *g, const gs_fftw_layout_t *l)
{
    if (g->kind == GS_FFTW_DFT) {
        bool same = l->istride == l->ostride && (l->batch == 1 || l->idist == l->odist);
        for (int i = 1; i < l->rank; i++)
            same &= l->inembed[i] == l->onembed[i];
        return same ? NULL : "in place with two layouts";
    }
    bool r2c = g->kind == GS_FFTW_R2C;
    int64_t real_dist = r2c ? l->idist : l->odist, cplx_dist = r2c ? l->odist : l->idist;
    const int64_t *real_nembed = r2c ? l->inembed : l->onembed, *cplx_nembed = r2c ? l->onembed : l->inembed;
    bool padded = l->istride == 1 && l->ostride == 1 && (l->batch == 1 || real_dist == 2 * cplx_dist);
    if (l->rank > 1)
        padded &= real_nembed[l->rank - 1] == 2 * cplx_nembed[l->rank - 1];
    for (int i = 1; i < l->rank - 1; i++)
        padded &= real_nembed[i] == cplx_nembed[i];
    return padded ? NULL : "in place without FFTW's padded layout";
}

const char *gs_fftw_layout(const gs_fftw_geom_t *g, gs_fftw_layout_t *l)
{
    memset(l, 0, sizeof *l);
    if (g->truncated || g->rank > 3)
        return "rank above 3";
    if (g->rank < 1)
        return "rank 0";
    for (int i = 0; i < g->rank + g->howmany_rank; i++) {
        if (g->dims[i].n <= 0)
            return "empty transform";
        if (g->dims[i].is < 0 || g->dims[i].os < 0)
            return "negative stride";
    }
    gs_fftw_dim_t h[GS_FFTW_DIMS_MAX], t[3];
    int nh = gs_fftw_batch(g, h);
    if (nh > 1)
        return "howmany rank above 1";
    l->batch = nh ? h[0].n : 1;
    l->idist = nh ? h[0].is : 0, l->odist = nh ? h[0].os : 0;
    /* Dimensions of size 1 change nothing but the last of an r2c or c2r; a complex DFT is the same in any order
     * of its dimensions, so they are taken by input stride, which puts a column-major plan in row-major form. */
    int last = g->kind == GS_FFTW_DFT ? -1 : g->rank - 1;
    for (int i = 0; i < g->rank; i++)
        if (g->dims[i].n != 1 || i == last)
            t[l->rank++] = g->dims[i];
    if (l->rank == 0)
        t[l->rank++] = g->dims[0];
    if (g->kind == GS_FFTW_DFT)
        gs_fftw_sort(t, l->rank);
    const char *why = gs_fftw_nest(g, l, t);
    if (why)
        return why;
    /* One transform still needs distances cuFFT accepts (it refuses 0): those of a contiguous batch. */
    if (nh == 0) {
        l->idist = l->istride, l->odist = l->ostride;
        for (int i = 0; i < l->rank; i++)
            l->idist *= l->inembed[i], l->odist *= l->onembed[i];
    }
    return g->inplace ? gs_fftw_inplace(g, l) : NULL;
}

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

/* ---- the contiguous form, for gpushim's permutation kernels (kernels/permute.cu) ------------------------ */

/* The dimensions of g in the contiguous form, outermost first: the howmany ones of more than one point, then
 * the transform's, those of one point left out but the last of an r2c or c2r (and the last of a transform
 * that has no other); the number of howmany ones into *nh.  Each side's size (complex side: n / 2 + 1 in an
 * r2c or c2r's last dimension) into ni and no. */
static int gs_fftw_cdims(const gs_fftw_geom_t *g, gs_fftw_dim_t *d, int64_t *ni, int64_t *no, int *nh)
{
    int n = 0, last = g->kind == GS_FFTW_DFT ? -1 : g->rank - 1;
    for (int i = g->rank; i < g->rank + g->howmany_rank; i++)
        if (g->dims[i].n != 1)
            d[n++] = g->dims[i];
    *nh = n;
    for (int i = 0; i < g->rank; i++)
        if (g->dims[i].n != 1 || i == last || (i == g->rank - 1 && n == *nh))
            d[n++] = g->dims[i];
    for (int i = 0; i < n; i++) {
        bool halved = g->kind != GS_FFTW_DFT && i == n - 1;
        ni[i] = halved && g->kind == GS_FFTW_C2R ? d[i].n / 2 + 1 : d[i].n;
        no[i] = halved && g->kind == GS_FFTW_R2C ? d[i].n / 2 + 1 : d[i].n;
    }
    return n;
}

/* Whether the output's elements are all distinct: taken by stride, each stride beyond the last element that
 * the dimensions inside it reach (a sufficient test; a transposed or permuted layout passes). */
static bool gs_fftw_distinct(const gs_fftw_dim_t *d, const int64_t *no, int n)
{
    gs_fftw_dim_t s[GS_FFTW_DIMS_MAX];
    int k = 0;
    for (int i = 0; i < n; i++)
        if (no[i] > 1)
            s[k] = d[i], s[k++].n = no[i];
    for (int i = 1; i < k; i++) /* by output stride, smallest first */
        for (int j = i; j > 0 && s[j - 1].os > s[j].os; j--) {
            gs_fftw_dim_t t = s[j];
            s[j] = s[j - 1], s[j - 1] = t;
        }
    int64_t reach = 0;
    for (int i = 0; i < k; i++) {
        if (s[i].os <= reach)
            return false;
        reach += (s[i].n - 1) * s[i].os;
    }
    return true;
}

bool gs_fftw_out_distinct(const gs_fftw_geom_t *g)
{
    gs_fftw_dim_t d[GS_FFTW_DIMS_MAX];
    int64_t ni[GS_FFTW_DIMS_MAX], no[GS_FFTW_DIMS_MAX];
    int nh;
    return gs_fftw_distinct(d, no, gs_fftw_cdims(g, d, ni, no, &nh));
}

bool gs_fftw_contiguous(const gs_fftw_geom_t *g, gs_fftw_layout_t *l)
{
    if (g->inplace || g->truncated || g->rank < 1 || g->rank > 3)
        return false;
    for (int i = 0; i < g->rank + g->howmany_rank; i++)
        if (g->dims[i].n <= 0 || (g->dims[i].n > 1 && (g->dims[i].is <= 0 || g->dims[i].os <= 0)))
            return false;
    gs_fftw_dim_t d[GS_FFTW_DIMS_MAX];
    int64_t ni[GS_FFTW_DIMS_MAX], no[GS_FFTW_DIMS_MAX];
    int nh, n = gs_fftw_cdims(g, d, ni, no, &nh);
    if (n - nh > 3 || !gs_fftw_distinct(d, no, n))
        return false;
    memset(l, 0, sizeof *l);
    l->rank = n - nh;
    l->istride = l->ostride = 1;
    l->idist = l->odist = l->batch = 1;
    for (int i = 0; i < n; i++) {
        if (i < nh) {
            l->batch *= d[i].n;
            continue;
        }
        int k = i - nh;
        l->n[k] = d[i].n, l->inembed[k] = ni[i], l->onembed[k] = no[i];
        l->idist *= ni[i], l->odist *= no[i];
    }
    return true;
}

void gs_fftw_perms(const gs_fftw_geom_t *g, gs_permute_t *gather, gs_permute_t *scatter)
{
    gs_fftw_dim_t d[GS_FFTW_DIMS_MAX];
    int64_t ni[GS_FFTW_DIMS_MAX], no[GS_FFTW_DIMS_MAX];
    int nh, n = gs_fftw_cdims(g, d, ni, no, &nh);
    memset(gather, 0, sizeof *gather);
    memset(scatter, 0, sizeof *scatter);
    gather->nd = scatter->nd = n;
    gather->total = scatter->total = 1;
    for (int i = n - 1; i >= 0; i--) { /* the contiguous side's strides: the sizes inside each dimension */
        gather->n[i] = ni[i], scatter->n[i] = no[i];
        gather->src[i] = d[i].is, scatter->dst[i] = d[i].os;
        gather->dst[i] = gather->total, scatter->src[i] = scatter->total;
        gather->total *= ni[i], scatter->total *= no[i];
    }
}

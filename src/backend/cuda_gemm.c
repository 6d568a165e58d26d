/* GEMM on the GPU in tiles (cuda_gemm.h), so that uploading the next blocks of A and B, computing, and
 * downloading finished tiles of C overlap: C = alpha op(A) op(B) + beta C in tiles of C (mb x nb) and, when k
 * is much larger than m and n, slices of k (kb), on the device's three streams (up, compute, down), ordered by
 * events only.  Two plans: resident, and out of core (gs_gemm_resident, gs_gemm_out_of_core). */
#include <string.h>

#include "backend/cuda_cublas.h"
#include "backend/cuda_gemm.h"
#include "backend/cuda_split.h"

typedef struct {
    const gs_blas_t *p;
    size_t es;
    bool ta, tb;                 /* A, B stored transposed (op T or C) */
    bool resident, read_c;       /* plan; beta != 0 */
    bool hit[3];                 /* A, B, C are on the device already (residency cache): no uploads */
    int64_t mb, nb, kb, mt, nt, kt;
    char *da, *db, *dc;          /* device: whole matrices (resident) or two slots each */
    size_t slot_a, slot_b, slot_c; /* bytes per slot: a whole matrix when resident */
    _Alignas(16) unsigned char one[16]; /* beta = 1 in the routine's precision, for the later k slices */
    gs_xjob_t job;               /* the downloads of C */
} gs_gemm_t;

/* One block as the engine moves it: host region, device address and device leading dimension. */
typedef struct {
    gs_hreg_t h;
    char *dev;
    int64_t ld;
} gs_block_t;

static int64_t gs_min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t gs_ceil(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The block of a stored matrix (host base m, leading dimension ld) with rows r0.. and columns c0.., placed on
 * the device in a whole copy (dld = stored rows) or at the start of a slot (dld = slot rows). */
static gs_block_t gs_gemm_block(const gs_gemm_t *g, const void *m, int64_t ld, int64_t r0, int64_t c0, int64_t rows,
                                int64_t cols, char *dev, int64_t dld, bool whole)
{
    size_t es = g->es;
    gs_block_t b = {{(char *)m + ((size_t)r0 + (size_t)c0 * (size_t)ld) * es, (size_t)rows * es, (size_t)ld * es,
                     (size_t)cols},
                    whole ? dev + ((size_t)r0 + (size_t)c0 * (size_t)dld) * es : dev,
                    dld};
    return b;
}

/* Rows r0.. and columns c0.. of op(X), where X is stored transposed when t. */
static gs_block_t gs_gemm_op_block(const gs_gemm_t *g, const void *x, int64_t ld, bool t, int64_t r0, int64_t nr,
                                   int64_t c0, int64_t nc, char *dev, int64_t dld)
{
    return t ? gs_gemm_block(g, x, ld, c0, r0, nc, nr, dev, dld, g->resident)
             : gs_gemm_block(g, x, ld, r0, c0, nr, nc, dev, dld, g->resident);
}

/* Block (bi, bj) of op(A) (blocks of mb x kb) or of op(B) (kb x nb); q is the slot out of core. */
static gs_block_t gs_gemm_ab(const gs_gemm_t *g, bool is_b, int64_t bi, int64_t bj, int q)
{
    const gs_blas_t *p = g->p;
    bool t = is_b ? g->tb : g->ta;
    int64_t rb = is_b ? g->kb : g->mb, cb = is_b ? g->nb : g->kb, rows = is_b ? p->k : p->m, cols = is_b ? p->n : p->k;
    int64_t r0 = bi * rb, c0 = bj * cb;
    char *dev = is_b ? g->db + (size_t)q * g->slot_b : g->da + (size_t)q * g->slot_a;
    return gs_gemm_op_block(g, is_b ? p->b : p->a, is_b ? p->ldb : p->lda, t, r0, gs_min64(rb, rows - r0), c0,
                            gs_min64(cb, cols - c0), dev, g->resident ? (t ? cols : rows) : (t ? cb : rb));
}

/* Block (i, l) of op(A), (l, j) of op(B), (i, j) of C. */
static gs_block_t gs_gemm_a(const gs_gemm_t *g, int64_t i, int64_t l, int q) { return gs_gemm_ab(g, false, i, l, q); }
static gs_block_t gs_gemm_b(const gs_gemm_t *g, int64_t l, int64_t j, int q) { return gs_gemm_ab(g, true, l, j, q); }

static gs_block_t gs_gemm_c(const gs_gemm_t *g, int64_t i, int64_t j, int q)
{
    const gs_blas_t *p = g->p;
    int64_t i0 = i * g->mb, j0 = j * g->nb, mi = gs_min64(g->mb, p->m - i0), nj = gs_min64(g->nb, p->n - j0);
    return gs_gemm_block(g, p->c, p->ldc, i0, j0, mi, nj, g->dc + (size_t)q * g->slot_c, g->resident ? p->m : g->mb,
                         g->resident);
}

static int gs_gemm_put(gs_call_t *c, const gs_gemm_t *g, const gs_block_t *b)
{
    return gs_xfer_put(c, b->dev, (size_t)b->ld * g->es, &b->h);
}

/* Makes the compute stream wait for every upload queued so far. */
static int gs_gemm_fence_up(gs_call_t *c)
{
    gs_device_t *dv = gs_dev(c);
    GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_UP], dv->up));
    GS_CUDA(c, cudaStreamWaitEvent, (dv->stream, dv->ev[GS_EV_UP], 0));
    return GS_OK;
}

/* Queues the download of a final tile after the computation queued so far. */
static int gs_gemm_get(gs_call_t *c, gs_gemm_t *g, const gs_block_t *cb)
{
    gs_device_t *dv = gs_dev(c);
    GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_DONE], dv->stream));
    GS_CUDA(c, cudaStreamWaitEvent, (dv->down, dv->ev[GS_EV_DONE], 0));
    return gs_xfer_get(c, &g->job, &cb->h, cb->dev, (size_t)cb->ld * g->es);
}

/* C(i, j) += A(i, l) B(l, j), with beta on the first slice. */
static int gs_gemm_compute(gs_call_t *c, const gs_gemm_t *g, const gs_block_t *a, const gs_block_t *b,
                           const gs_block_t *cb, int64_t l)
{
    gs_blas_t q = *g->p;
    q.m = (int64_t)(cb->h.width / g->es);
    q.n = (int64_t)cb->h.cols;
    q.k = gs_min64(g->kb, q.k - l * g->kb);
    char *const d[3] = {a->dev, b->dev, cb->dev};
    const int64_t ld[3] = {a->ld, b->ld, cb->ld};
    return gs_cuda_compute(c, &q, l == 0 ? g->p->beta : g->one, d, ld);
}

/* One tile of the resident plan at slice l: its panels are on the device already. */
static int gs_gemm_tile(gs_call_t *c, gs_gemm_t *g, int64_t i, int64_t j, int64_t l, bool stream_out)
{
    gs_block_t a = gs_gemm_a(g, i, l, 0), b = gs_gemm_b(g, l, j, 0), cb = gs_gemm_c(g, i, j, 0);
    int rc;
    if (l == 0 && g->read_c && !g->hit[2] &&
        ((rc = gs_gemm_put(c, g, &cb)) != GS_OK || (rc = gs_gemm_fence_up(c)) != GS_OK))
        return rc;
    if ((rc = gs_gemm_compute(c, g, &a, &b, &cb, l)) != GS_OK)
        return rc;
    return l == g->kt - 1 && stream_out ? gs_gemm_get(c, g, &cb) : GS_OK;
}

/* Resident plan: A, B and C all fit on the device.  Blocks are uploaded once, in a growing square (row panel s
 * of A, then column panel s of B), and each tile is computed as soon as its two panels are there.  Operands
 * the residency cache holds are used where they are, and not uploaded when unchanged (cache.h).  The host
 * waits for nothing but the packing of the blocks it uploads, which the copy threads do while the GPU
 * computes. */
static int gs_gemm_resident(gs_call_t *c, gs_gemm_t *g)
{
    /* When C is read (beta != 0), no tile is written back before every tile has been computed: a failure
     * part-way must leave C as it was, for the CPU to redo the call. */
    bool stream_out = !g->read_c;
    int64_t steps = g->mt > g->nt ? g->mt : g->nt;
    int rc = GS_OK;
    for (int64_t l = 0; l < g->kt; l++)
        for (int64_t s = 0; s < steps; s++) {
            if (s < g->mt) {
                gs_block_t a = gs_gemm_a(g, s, l, 0);
                if (!g->hit[0] && ((rc = gs_gemm_put(c, g, &a)) != GS_OK || (rc = gs_gemm_fence_up(c)) != GS_OK))
                    return rc;
                for (int64_t j = 0; j < gs_min64(s, g->nt); j++)
                    if ((rc = gs_gemm_tile(c, g, s, j, l, stream_out)) != GS_OK)
                        return rc;
            }
            if (s < g->nt) {
                gs_block_t b = gs_gemm_b(g, l, s, 0);
                if (!g->hit[1] && ((rc = gs_gemm_put(c, g, &b)) != GS_OK || (rc = gs_gemm_fence_up(c)) != GS_OK))
                    return rc;
                for (int64_t i = 0; i < gs_min64(s + 1, g->mt); i++)
                    if ((rc = gs_gemm_tile(c, g, i, s, l, stream_out)) != GS_OK)
                        return rc;
            }
        }
    if (stream_out)
        return GS_OK;
    GS_CUDA(c, cudaStreamSynchronize, (gs_dev(c)->stream));
    if ((rc = gs_split_computed(c)) != GS_OK)
        return rc;
    gs_block_t whole = gs_gemm_block(g, g->p->c, g->p->ldc, 0, 0, g->p->m, g->p->n, g->dc, g->p->m, true);
    return gs_xfer_get(c, &g->job, &whole.h, whole.dev, (size_t)whole.ld * g->es);
}

/* Frees C's slot cq for the next tile once the copy out of its tile, queued on the down stream, is done.  (A
 * function of its own, so that GPUSHIM_FAULT's site rules can fail this record apart from the blocks' ones:
 * tests/t_faults.sh.) */
static int gs_gemm_cslot_free(gs_call_t *c, int cq)
{
    gs_device_t *dv = gs_dev(c);
    GS_CUDA(c, cudaEventRecord, (dv->ev[GS_EV_CSLOT0 + cq], dv->down));
    return GS_OK;
}

/* Out-of-core plan: the operands do not fit, and beta = 0 (gs_gemm_plan).  Each step uploads one block of A
 * and one of B into one of two slots while the other slot computes; C tiles use two slots too.  Like
 * cuBLASXt, it never fails for lack of device memory unless even the smallest tiles do not fit. */
static int gs_gemm_out_of_core(gs_call_t *c, gs_gemm_t *g)
{
    gs_device_t *dv = gs_dev(c);
    cudaEvent_t *ev = dv->ev;
    int q = 0, cq = 0, rc;
    for (int64_t i = 0; i < g->mt; i++)
        for (int64_t j = 0; j < g->nt; j++, cq ^= 1) {
            gs_block_t cb = gs_gemm_c(g, i, j, cq);
            /* The slot's previous tile must have been copied out before it is overwritten. */
            GS_CUDA(c, cudaStreamWaitEvent, (dv->stream, ev[GS_EV_CSLOT0 + cq], 0));
            for (int64_t l = 0; l < g->kt; l++, q ^= 1) {
                /* The slot's previous blocks must have been used before they are overwritten. */
                GS_CUDA(c, cudaStreamWaitEvent, (dv->up, ev[GS_EV_SLOT0 + q], 0));
                gs_block_t a = gs_gemm_a(g, i, l, q), b = gs_gemm_b(g, l, j, q);
                if ((rc = gs_gemm_put(c, g, &a)) != GS_OK || (rc = gs_gemm_put(c, g, &b)) != GS_OK ||
                    (rc = gs_gemm_fence_up(c)) != GS_OK || (rc = gs_gemm_compute(c, g, &a, &b, &cb, l)) != GS_OK)
                    return rc;
                GS_CUDA(c, cudaEventRecord, (ev[GS_EV_SLOT0 + q], dv->stream));
            }
            if ((rc = gs_gemm_get(c, g, &cb)) != GS_OK || (rc = gs_gemm_cslot_free(c, cq)) != GS_OK)
                return rc;
        }
    return GS_OK;
}

/* The tile's side along a dimension of length len, when the other dimension of C is other: t, or, when C
 * is skinny (other < t), longer so that the tile keeps its area, but no longer than a quarter of len. */
static int64_t gs_tile_side(int64_t t, int64_t len, int64_t other)
{
    if (gs.opt.tile == 0 && other < t) {
        int64_t want = t * (t / other), quarter = ((len + 3) / 4 + 255) / 256 * 256;
        t = want < quarter ? want : quarter > t ? quarter : t;
    }
    return gs_min64(t, len);
}

/* Chooses tile sizes and the plan, and takes the device memory. */
static int gs_gemm_plan(gs_call_t *c, gs_gemm_t *g, gs_cbind_t *cb)
{
    const gs_blas_t *p = g->p;
    int64_t big = p->m > p->n ? p->m : p->n;
    /* About four tiles a side, so that the last panel's tiles, computed after all copies in, are few, and
     * tiles of 1024 to 2048, the fastest on the H200 (bench/RESULTS.md). */
    int64_t t = (big / 4 + 255) / 256 * 256;
    t = gs.opt.tile > 0 ? gs.opt.tile : t < 1024 ? 1024 : t > 2048 ? 2048 : t;
    int64_t mb = gs_tile_side(t, p->m, p->n), nb = gs_tile_side(t, p->n, p->m), kb = p->k;
    if (p->k > 2 * big && p->k > t) /* slice a long k, so that computing starts before A and B are all in */
        kb = (p->k + 7) / 8 > t ? (p->k + 7) / 8 : t;
    size_t budget, es = g->es;
    int rc = gs_cuda_budget(c, &budget);
    if (rc != GS_OK)
        return rc;
    /* Resident: one slot each, holding the whole matrix (in scratch memory unless the cache holds it).  Out of
     * core: two slots each of blocks; halve the longest of the tile's sides and the slice until they fit. */
    g->slot_a = cb[0].dev ? 0 : gs_round256((size_t)p->m * (size_t)p->k * es);
    g->slot_b = cb[1].dev ? 0 : gs_round256((size_t)p->k * (size_t)p->n * es);
    g->slot_c = cb[2].dev ? 0 : gs_round256((size_t)p->m * (size_t)p->n * es);
    g->resident = g->slot_a + g->slot_b + g->slot_c <= budget;
    /* Out of core, tiles of C go back to the host as they are done: with beta != 0 a failure part-way would
     * leave C half updated, and the CPU's redo of the call would read that C.  Such a call runs on the CPU. */
    if (!g->resident && g->read_c) {
        gs_call_why(c, "gpu: C does not fit beside A and B, and beta != 0 (out of core, a failure part-way "
                    "would leave C half written)");
        return GS_ENOMEM;
    }
    for (int i = 0; i < 3; i++)
        cb[i].unused = !g->resident;
    size_t slots = g->resident ? 1 : 2;
    while (!g->resident) {
        g->slot_a = gs_round256((size_t)mb * (size_t)kb * es);
        g->slot_b = gs_round256((size_t)kb * (size_t)nb * es);
        g->slot_c = gs_round256((size_t)mb * (size_t)nb * es);
        if (2 * (g->slot_a + g->slot_b + g->slot_c) <= budget)
            break;
        if (mb <= 16 && nb <= 16 && kb <= 16) {
            gs_call_why(c, "gpu: even 16 x 16 tiles need more than the %zu bytes of device memory available",
                        budget);
            return GS_ENOMEM;
        }
        int64_t *longest = kb >= mb && kb >= nb ? &kb : mb >= nb ? &mb : &nb;
        *longest = (*longest + 1) / 2;
    }
    g->mb = mb;
    g->nb = nb;
    g->kb = gs_min64(kb, p->k);
    g->mt = gs_ceil(p->m, g->mb);
    g->nt = gs_ceil(p->n, g->nb);
    g->kt = gs_ceil(p->k, g->kb);
    if ((rc = gs_cuda_scratch(c, slots * (g->slot_a + g->slot_b + g->slot_c))) != GS_OK)
        return rc;
    g->da = gs_dev(c)->scratch;
    g->db = g->da + slots * g->slot_a;
    g->dc = g->db + slots * g->slot_b;
    if (g->resident) {
        char **d[3] = {&g->da, &g->db, &g->dc};
        for (int i = 0; i < 3; i++) {
            *d[i] = cb[i].dev ? cb[i].dev : *d[i];
            g->hit[i] = cb[i].hit;
        }
    }
    return GS_OK;
}

int gs_cuda_gemm(gs_call_t *c, const gs_blas_t *p, gs_cbind_t *cb)
{
    gs_gemm_t g = {.p = p, .es = gs_prec_size(p->prec), .ta = p->trans != 'N', .tb = p->transb != 'N'};
    g.read_c = !gs_scalar_is_zero(p->beta, p->prec, false);
    if (p->prec == GS_P_S || p->prec == GS_P_C)
        memcpy(g.one, &(float){1}, sizeof(float));
    else
        memcpy(g.one, &(double){1}, sizeof(double));
    int rc = gs_gemm_plan(c, &g, cb);
    if (rc == GS_OK)
        rc = g.resident ? gs_gemm_resident(c, &g) : gs_gemm_out_of_core(c, &g);
    /* The copy threads may still be writing tiles of C: wait for them on every path. */
    int rc2 = gs_xfer_finish(c, &g.job);
    return rc != GS_OK ? rc : rc2;
}

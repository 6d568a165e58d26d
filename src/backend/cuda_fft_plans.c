/* Each device's cuFFT plans (cuda_fft.h), keyed by the transform's geometry: kind, precision and advanced
 * layout, not the FFTW plan, which the program may destroy after one execute.  A small table per device,
 * least recently used out.  Plans are made and destroyed under the GPU lock; the table's own lock lets the
 * policy ask from any thread whether a geometry has a plan, and whether its executes keep failing
 * (gs_fft_plan_state). */
#include <string.h>

#include "backend/cuda_fft.h"

/* Plans kept per device, at most. */
#define GS_FFT_PLANS 32
/* The key's words: kind, precision, rank, then the layout's sizes, nembeds, strides, distances and batch. */
#define GS_FFT_KEY 17

typedef struct {
    int64_t key[GS_FFT_KEY];
    gs_fft_plan_t plan;
    uint64_t used; /* the table's clock at the last use; 0: the slot is free */
    uint8_t fails; /* executes that cuFFT failed in a row (GS_FFT_FAILS) */
} gs_fft_slot_t;

static gs_fft_slot_t gs_fft_slots[GS_DEVICES_MAX][GS_FFT_PLANS]; /* guarded by gs_fft_lock */
static uint64_t gs_fft_clock;                                    /* guarded by gs_fft_lock */
static pthread_mutex_t gs_fft_lock = PTHREAD_MUTEX_INITIALIZER;

static void gs_fft_key(const gs_fftw_geom_t *g, int64_t *k)
{
    const gs_fftw_layout_t *l = &g->lay;
    int64_t v[GS_FFT_KEY] = {g->kind, g->prec, l->rank, l->n[0], l->n[1], l->n[2], l->inembed[1], l->inembed[2],
                             l->onembed[1], l->onembed[2], l->istride, l->ostride, l->idist, l->odist, l->batch};
    memcpy(k, v, sizeof v);
}

/* The slot of key on dev, or NULL.  With gs_fft_lock held. */
static gs_fft_slot_t *gs_fft_find(int dev, const int64_t *key)
{
    for (int i = 0; i < GS_FFT_PLANS; i++)
        if (gs_fft_slots[dev][i].used && memcmp(gs_fft_slots[dev][i].key, key, sizeof(int64_t) * GS_FFT_KEY) == 0)
            return &gs_fft_slots[dev][i];
    return NULL;
}

int gs_fft_plan_state(int dev, const gs_fftw_geom_t *g)
{
    int64_t key[GS_FFT_KEY];
    gs_fft_key(g, key);
    pthread_mutex_lock(&gs_fft_lock);
    const gs_fft_slot_t *s = gs_fft_find(dev, key);
    int state = !s ? GS_FFT_NONE : s->fails >= GS_FFT_FAILS ? GS_FFT_FAILING : GS_FFT_READY;
    pthread_mutex_unlock(&gs_fft_lock);
    return state;
}

void gs_fft_plan_ran(int dev, const gs_fftw_geom_t *g, bool ok)
{
    int64_t key[GS_FFT_KEY];
    gs_fft_key(g, key);
    pthread_mutex_lock(&gs_fft_lock);
    gs_fft_slot_t *s = gs_fft_find(dev, key);
    if (s)
        s->fails = ok ? 0 : (uint8_t)(s->fails + (s->fails < GS_FFT_FAILS));
    pthread_mutex_unlock(&gs_fft_lock);
}

/* Frees slot s (destroying its plan); with the GPU lock held. */
static void gs_fft_drop(gs_fft_slot_t *s)
{
    pthread_mutex_lock(&gs_fft_lock);
    cufftHandle h = s->plan.h;
    s->used = 0;
    pthread_mutex_unlock(&gs_fft_lock);
    gs_fft.cufftDestroy(h);
}

/* A free slot of dev, the least recently used one freed if none is. */
static gs_fft_slot_t *gs_fft_free_slot(int dev)
{
    gs_fft_slot_t *lru = &gs_fft_slots[dev][0];
    for (int i = 0; i < GS_FFT_PLANS; i++) {
        gs_fft_slot_t *s = &gs_fft_slots[dev][i];
        if (!s->used)
            return s;
        if (s->used < lru->used)
            lru = s;
    }
    gs_fft_drop(lru);
    return lru;
}

/* The cuFFT type of a geometry's kind and precision. */
static cufftType gs_fft_type(const gs_fftw_geom_t *g)
{
    bool z = g->prec == GS_P_Z;
    return g->kind == GS_FFTW_DFT ? (z ? CUFFT_Z2Z : CUFFT_C2C)
           : g->kind == GS_FFTW_R2C ? (z ? CUFFT_D2Z : CUFFT_R2C)
                                    : (z ? CUFFT_Z2D : CUFFT_C2R);
}

/* Makes g's plan into *h: 0, or cuFFT's status, with h destroyed and *fn the function that failed. */
static int gs_fft_make(gs_call_t *c, const gs_fftw_geom_t *g, cufftHandle *h, size_t *work, const char **fn)
{
    const gs_fftw_layout_t *l = &g->lay;
    long long n[3], in[3], on[3];
    for (int i = 0; i < 3; i++)
        n[i] = l->n[i], in[i] = l->inembed[i], on[i] = l->onembed[i];
    *fn = "cufftCreate";
    int st = GS_CALL("cufftCreate", gs_fft.cufftCreate(h));
    if (st != CUFFT_SUCCESS)
        return st;
    *fn = "cufftSetAutoAllocation";
    st = GS_CALL("cufftSetAutoAllocation", gs_fft.cufftSetAutoAllocation(*h, 0));
    if (st == CUFFT_SUCCESS) {
        *fn = "cufftMakePlanMany64";
        st = GS_CALL("cufftMakePlanMany64",
                     gs_fft.cufftMakePlanMany64(*h, l->rank, n, in, l->istride, l->idist, on, l->ostride, l->odist,
                                                gs_fft_type(g), l->batch, work));
    }
    if (st == CUFFT_SUCCESS) {
        *fn = "cufftSetStream";
        st = GS_CALL("cufftSetStream", gs_fft.cufftSetStream(*h, gs_dev(c)->stream));
    }
    if (st == CUFFT_SUCCESS)
        return CUFFT_SUCCESS;
    gs_fft.cufftDestroy(*h);
    return st;
}

int gs_fft_plan(gs_call_t *c, const gs_fftw_geom_t *g, gs_fft_plan_t *plan)
{
    int64_t key[GS_FFT_KEY];
    gs_fft_key(g, key);
    pthread_mutex_lock(&gs_fft_lock);
    gs_fft_slot_t *s = gs_fft_find(c->dev, key);
    if (s) {
        s->used = ++gs_fft_clock;
        *plan = s->plan;
    }
    pthread_mutex_unlock(&gs_fft_lock);
    if (s)
        return GS_OK;
    s = gs_fft_free_slot(c->dev);
    gs_fft_plan_t p = {0};
    const char *fn;
    int st = gs_fft_make(c, g, &p.h, &p.work, &fn);
    /* The device's memory may be held by other plans' tables: give them all back once. */
    if (st == CUFFT_ALLOC_FAILED) {
        for (int i = 0; i < GS_FFT_PLANS; i++)
            if (gs_fft_slots[c->dev][i].used)
                gs_fft_drop(&gs_fft_slots[c->dev][i]);
        st = gs_fft_make(c, g, &p.h, &p.work, &fn);
    }
    if (st != CUFFT_SUCCESS)
        return gs_cuda_error(c, fn, st, __FILE__, __LINE__);
    pthread_mutex_lock(&gs_fft_lock);
    memcpy(s->key, key, sizeof key);
    s->plan = p;
    s->used = ++gs_fft_clock;
    pthread_mutex_unlock(&gs_fft_lock);
    *plan = p;
    return GS_OK;
}

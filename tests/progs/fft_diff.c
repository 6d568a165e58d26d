/* A differential test of FFTW3 under the shim: random plans of every planner kind, rank, layout, flag and
 * execute, each result compared with a reference FFTW that no preloaded library can see (the same libraries
 * opened again with dlmopen in a namespace of their own).  tests/t_fftdiff.sh runs it plain, under the shim
 * and with every eligible execute forced onto the GPU path; tests/gpu/run.sh (group fft) on the real cuFFT.
 *
 * usage: fft_diff SEED COUNT [--case ID] [--max-points N] [--big] [--expect FILE] [-v]
 *                            [--corrupt value|guard]
 *   Prints a line per case, "case ID description err=E tol=T ratio=E/T PASS" (or "FAIL: why"), then how many
 *   cases had each feature ("coverage NAME COUNT"), the worst ratio and a summary; exit status 1 if any case
 *   failed.  Each case's choices come from SEED and its ID alone: --case ID runs that one (-v adds its
 *   dimensions, n:is:os).  --max-points caps points x howmany of an execute (default 65536; 4194304 with
 *   --big, which also draws larger sizes).  --expect FILE writes, for each execute in order, where
 *   GPUSHIM_OFFLOAD=always must run it: "ID ROUTINE gpu", "ID ROUTINE cpu REASON", "ID ROUTINE cpu" (for one
 *   reason or another) or "ID ROUTINE any".  --corrupt value changes one element of each result by a
 *   thousandth of its norm before the comparison, --corrupt guard writes a real past the end of each output
 *   array: every case must then fail (the test's check of itself). */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

/* The tolerance: relative L2 error at most TOL_K * eps * log2(N + 1), N the points of one transform.
 * Higham (Accuracy and Stability of Numerical Algorithms, Theorem 24.2) bounds a radix-2 FFT's relative error
 * by about log2(N) * (mu + 4 sqrt(2) u), u = eps / 2 and mu the twiddles' error: about 3.3 eps log2 N with
 * accurate twiddles.  The result and the reference each carry such an error, hence 2 x 3.3, rounded up to 8
 * for FFTW's and cuFFT's other algorithms (Rader's and Bluestein's for prime sizes) and r2c/c2r's pre- and
 * post-processing.  Typical errors are far below it (FFTW's rms error grows as sqrt(log N)). */
#define TOL_K 8.0

enum { K_DFT, K_R2C, K_C2R };
enum { PL_BASIC, PL_MANY, PL_GURU, PL_GURU64 };
enum { EX_OWN, EX_SAME, EX_OTHER }; /* execute; new-array execute of the plan's alignment; of another one */
enum { LAY_NESTED, LAY_FREE, LAY_COLLAPSE, LAY_SPLIT }; /* guru layouts (nested: as plan_many's) */

typedef struct {
    int id, prec, kind, sign, planner, basic_form, layout;
    int rank, hrank, n[4];
    fftw_iodim64 d[4], h[2]; /* the geometry as guru64 has it: the planner's arguments translated */
    bool inplace, nembed, interleaved, threads, large, permuted;
    bool measure; /* FFTW_MEASURE (which is 0) */
    int howmany, inembed[4], onembed[4], istride, ostride, idist, odist; /* plan_many's arguments */
    unsigned flags;
    int off; /* the plan's arrays lie this many reals past a 64-byte boundary */
    int nexec, exec[4];
    uint64_t data_seed; /* of the random input */
} case_t;

/* One precision's functions (fft_diff.h). */
typedef struct {
    const char *pfx;
    size_t es;
    double eps;
    void *(*plan)(const case_t *c, void *in, void *out);
    void (*exec)(const case_t *c, void *plan, bool own, void *in, void *out);
    void (*destroy)(void *plan);
    void (*threads)(int n);
    int (*align)(void *p);
    int (*ref_load)(void *h);
    void *(*ref_plan)(int kind, int sign, int rank, const fftw_iodim64 *d, int hrank, const fftw_iodim64 *h,
                      void *in, void *out);
    void (*ref_exec)(void *plan);
    void (*ref_destroy)(void *plan);
} api_t;

#define R double
#define P(x) fftw_##x
#define PFX "fftw_"
#include "fft_diff.h"
#undef R
#undef P
#undef PFX

#define R float
#define P(x) fftwf_##x
#define PFX "fftwf_"
#include "fft_diff.h"
#undef R
#undef P
#undef PFX

static const api_t *const apis[2] = {&fftw_api, &fftwf_api};

/* The options (main). */
static int64_t maxpts_opt;
static bool big_opt, verbose_opt;
static int corrupt_opt; /* --corrupt value (1) or guard (2) */
static FILE *expect_file;

/* ---- random choices: each case's from the seed and its id alone --------------------------------------- */

typedef struct {
    uint64_t s;
} rng_t;

static uint64_t next(rng_t *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rnd(rng_t *r, int n) { return (int)(next(r) % (uint64_t)n); }
static double uni(rng_t *r) { return (double)(next(r) >> 11) / 9007199254740992.0 * 2 - 1; }

/* ---- coverage: how many cases had each feature -------------------------------------------------------- */

#define COVERAGE(X) \
    X(prec_double) X(prec_float) X(c2c_forward) X(c2c_backward) X(r2c) X(c2r) X(rank1) X(rank2) X(rank3) \
    X(rank4) X(basic) X(basic_rank_n) X(many) X(many_nembed_null) X(many_nembed) X(stride_gt1) \
    X(interleaved) X(howmany_gt1) X(guru) X(guru64) X(guru_hm0) X(guru_hm2_collapse) X(guru_hm2_split) \
    X(guru_free) X(guru_permuted) X(in_place) X(in_place_padded) X(out_of_place) X(offset_array) X(measure) \
    X(preserve_input) X(unaligned) X(exec_execute) X(exec_new_same) X(exec_new_other) X(threads) \
    X(size_prime) X(size_pow2) X(size_odd) X(size_large) X(null_plan)
#define X(name) COV_##name,
enum { COVERAGE(X) COV_N };
#undef X
#define X(name) #name,
static const char *const cov_names[] = {COVERAGE(X)};
#undef X
static long cov[COV_N];

/* ---- the sample ------------------------------------------------------------------------------------------ */

static const int primes[] = {97, 251, 1009, 4099, 65537};

static bool is_prime_size(int n)
{
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++)
        if (n == primes[i])
            return true;
    return false;
}

/* One dimension of a transform of rank rank: small, odd, even, a power of two or a large prime. */
static int pick_dim(rng_t *r, int rank, bool big)
{
    static const int maxexp[2][5] = {{0, 12, 7, 5, 3}, {0, 20, 10, 7, 3}};
    int p = rnd(r, 100);
    if (rank == 4)
        return 2 + rnd(r, 5);
    if (rank == 1 && p < 12)
        return primes[rnd(r, big ? 5 : 4)];
    if (rank <= 3 && p < 16)
        return primes[rnd(r, rank == 2 ? 2 : 1)];
    if (p < 35)
        return 2 + rnd(r, 15);
    if (p < 55)
        return 3 + 2 * rnd(r, 49);
    if (p < 72)
        return 4 + 2 * rnd(r, 62);
    return 1 << (1 + rnd(r, maxexp[big][rank]));
}

/* The sizes of one transform, points x howmany at most maxpts: the largest dimension halved until they fit. */
static void pick_sizes(case_t *c, rng_t *r, int64_t maxpts, bool big)
{
    static const int large[2][4][3] = {{{0}, {65536}, {128, 128}, {32, 32, 32}},
                                       {{0}, {1 << 20}, {1024, 1024}, {128, 128, 128}}};
    for (int i = 0; i < c->rank; i++)
        c->n[i] = c->large ? large[big][c->rank][i] : pick_dim(r, c->rank, big);
    for (;;) {
        int64_t pts = c->howmany;
        int m = 0;
        for (int i = 0; i < c->rank; i++) {
            pts *= c->n[i];
            m = c->n[i] > c->n[m] ? i : m;
        }
        if (pts <= maxpts || c->n[m] <= 2)
            return;
        c->n[m] /= 2;
    }
}

/* Dimension i's size on one side (0 input, 1 output): the complex side of r2c and c2r has n / 2 + 1 in the
 * last one; padded: FFTW's in-place r2c and c2r pad the real side's last to 2 (n / 2 + 1). */
static int64_t side_n(const case_t *c, int i, int side, bool padded)
{
    bool cplx = side ? c->kind != K_C2R : c->kind != K_R2C;
    if (c->kind == K_DFT || i < c->rank - 1)
        return c->n[i];
    if (cplx)
        return c->n[i] / 2 + 1;
    return padded && c->inplace ? 2 * (c->n[i] / 2 + 1) : c->n[i];
}

/* Dimension i's physical size on one side as plan_many takes it: its nembed, or the default. */
static int64_t phys(const case_t *c, int i, int side)
{
    if (c->nembed)
        return side ? c->onembed[i] : c->inembed[i];
    return side_n(c, i, side, true);
}

static int64_t volume(const case_t *c, int side)
{
    int64_t v = 1;
    for (int i = 0; i < c->rank; i++)
        v *= phys(c, i, side);
    return v;
}

/* The guru64 geometry of plan_many's arguments (row-major: each dimension's stride is the stride times the
 * physical sizes after it), as FFTW's manual defines them. */
static void derive(case_t *c)
{
    int64_t is = c->istride, os = c->ostride;
    for (int i = c->rank - 1; i >= 0; i--) {
        c->d[i] = (fftw_iodim64){c->n[i], is, os};
        is *= phys(c, i, 0);
        os *= phys(c, i, 1);
    }
    c->h[0] = (fftw_iodim64){c->howmany, c->idist, c->odist};
    c->hrank = 1;
}

/* nembed for plan_many: padded by 0 to 2; in place both sides describe one array (the real side's last
 * dimension twice the complex side's). */
static void pick_nembed(case_t *c, rng_t *r)
{
    int cside = c->kind == K_R2C ? 1 : 0; /* the complex side of r2c and c2r */
    for (int i = 0; i < c->rank; i++) {
        if (!c->inplace) {
            c->inembed[i] = (int)side_n(c, i, 0, false) + rnd(r, 3);
            c->onembed[i] = (int)side_n(c, i, 1, false) + rnd(r, 3);
        } else if (c->kind == K_DFT) {
            c->inembed[i] = c->onembed[i] = c->n[i] + rnd(r, 3);
        } else {
            int e = (int)side_n(c, i, cside, false) + rnd(r, 3);
            int re = i == c->rank - 1 ? 2 * e : e;
            c->inembed[i] = cside == 0 ? e : re;
            c->onembed[i] = cside == 1 ? e : re;
        }
    }
}

/* plan_many's strides, nembed and distances for howmany transforms, then the geometry: batches one after
 * another (distance at least a transform's volume), or interleaved (distance 1, stride at least howmany). */
static void many_layout(case_t *c, rng_t *r, int howmany, bool interleave)
{
    c->howmany = howmany;
    c->istride = rnd(r, 100) < 70 ? 1 : 2 + rnd(r, 2);
    c->ostride = c->inplace ? c->istride : rnd(r, 100) < 70 ? 1 : 2 + rnd(r, 2);
    c->nembed = rnd(r, 100) < 40;
    if (c->nembed)
        pick_nembed(c, r);
    c->interleaved = interleave && !c->inplace && howmany > 1 && rnd(r, 100) < 25;
    if (c->inplace && c->kind != K_DFT) {
        int cside = c->kind == K_R2C ? 1 : 0;
        int dc = (int)volume(c, cside) * c->istride + rnd(r, 3);
        c->idist = cside == 0 ? dc : 2 * dc;
        c->odist = cside == 1 ? dc : 2 * dc;
    } else {
        c->idist = (int)volume(c, 0) * c->istride + rnd(r, 3);
        c->odist = c->inplace ? c->idist : (int)volume(c, 1) * c->ostride + rnd(r, 3);
    }
    if (c->interleaved) {
        c->idist = 1;
        c->istride = howmany + rnd(r, 2);
        if (rnd(r, 2)) {
            c->odist = 1;
            c->ostride = howmany + rnd(r, 2);
        } else {
            c->odist = (int)volume(c, 1) * c->ostride + rnd(r, 3);
            /* Debian's libfftw3f 3.3.10 reads out of bounds and crashes on an interleaved input (distance 1,
             * howmany 4 or 8) with an odd output distance, planned ESTIMATE or MEASURE: kept clear of. */
            c->odist += c->prec && (c->odist & 1);
        }
    }
    derive(c);
}

/* Two howmany dimensions from one: inner h1 at the distances, outer h0 at h1 times them (collapse: one
 * distance spans both) or past them by a gap (split: no single distance does); in random order. */
static void two_howmany(case_t *c, rng_t *r, int h0, int h1, bool split)
{
    fftw_iodim64 in = {h1, c->idist, c->odist};
    int64_t gi = 0, go = 0;
    if (split) {
        int g = 1 + rnd(r, 2);
        bool rside_in = c->kind == K_R2C; /* in place r2c/c2r: the real side's gap twice the complex side's */
        gi = c->inplace && c->kind != K_DFT ? (rside_in ? 2 * g : g) : g;
        go = c->inplace ? (c->kind == K_DFT ? g : rside_in ? g : 2 * g) : rnd(r, 3);
    }
    fftw_iodim64 out = {h0, h1 * c->idist + gi, h1 * c->odist + go};
    int first = rnd(r, 2);
    c->h[first] = out;
    c->h[1 - first] = in;
    c->hrank = 2;
    c->howmany = h0 * h1;
}

/* A random order of rank dimensions in perm, the identity only if it may be. */
static void shuffle(int *perm, int rank, bool identity, rng_t *r)
{
    for (int i = 0; i < rank; i++)
        perm[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int j = rnd(r, i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    if (!identity && perm[0] == 0 && perm[1] == 1) /* (rank 2 or 3: then it is the identity) */
        perm[0] = 1, perm[1] = 0;
}

/* A layout plan_many cannot describe: the output (and maybe the input) row-major in another order of the
 * dimensions, as a transposing guru plan has; or (permuted) a complex DFT's both sides in one other order, as
 * a column-major program's plan, which is plan_many's with the dimensions reordered. */
static void free_layout(case_t *c, rng_t *r)
{
    int perm[2][4];
    c->permuted = c->kind == K_DFT && rnd(r, 2);
    shuffle(perm[0], c->rank, !c->permuted && rnd(r, 2), r);
    if (c->permuted)
        memcpy(perm[1], perm[0], sizeof perm[0]);
    else
        shuffle(perm[1], c->rank, false, r);
    int64_t st[2] = {1, 1};
    for (int k = c->rank - 1; k >= 0; k--)
        for (int s = 0; s < 2; s++) {
            int i = perm[s][k];
            c->d[i].n = c->n[i];
            *(s ? &c->d[i].os : &c->d[i].is) = st[s];
            st[s] *= side_n(c, i, s, false);
        }
    c->h[0] = (fftw_iodim64){c->howmany, st[0], st[1]};
    c->hrank = 1;
}

static void pick_layout(case_t *c, rng_t *r, int64_t maxpts, bool big)
{
    int h0 = 2 + rnd(r, 2), h1 = 2 + rnd(r, 2);
    c->howmany = c->planner == PL_BASIC || c->large ? 1
               : c->layout == LAY_COLLAPSE || c->layout == LAY_SPLIT ? h0 * h1 : 1 + rnd(r, 6);
    pick_sizes(c, r, maxpts, big);
    if (c->planner == PL_BASIC) {
        c->basic_form = c->rank > 3 || rnd(r, 3) == 0; /* the rank-n planner, or the rank's own */
        c->istride = c->ostride = 1, c->nembed = false;
        c->idist = (int)volume(c, 0), c->odist = (int)volume(c, 1);
        derive(c);
    } else if (c->layout == LAY_FREE) {
        free_layout(c, r);
    } else if (c->layout == LAY_COLLAPSE) {
        many_layout(c, r, h0 * h1, true);
        two_howmany(c, r, h0, h1, false);
    } else if (c->layout == LAY_SPLIT) {
        many_layout(c, r, h1, false);
        two_howmany(c, r, h0, h1, true);
    } else {
        many_layout(c, r, c->howmany, true);
        if (c->planner != PL_MANY && c->howmany == 1 && rnd(r, 2))
            c->hrank = 0;
    }
}

static int64_t points(const case_t *c)
{
    int64_t p = 1;
    for (int i = 0; i < c->rank; i++)
        p *= c->n[i];
    return p;
}

/* Case id of the sample seed: every choice drawn from (seed, id). */
static void gen_case(case_t *c, uint64_t seed, int id, int64_t maxpts, bool big)
{
    rng_t r = {seed * 0x2545F4914F6CDD1Dull ^ (uint64_t)id * 0x9E3779B97F4A7C15ull};
    next(&r);
    memset(c, 0, sizeof *c);
    c->id = id;
    c->prec = rnd(&r, 2);
    int k = rnd(&r, 4);
    c->kind = k < 2 ? K_DFT : k - 1;
    c->sign = c->kind == K_R2C || (c->kind == K_DFT && k == 0) ? FFTW_FORWARD : FFTW_BACKWARD;
    c->threads = rnd(&r, 100) < 3;
    int p = rnd(&r, 100);
    c->rank = p < 35 ? 1 : p < 65 ? 2 : p < 90 ? 3 : 4;
    p = rnd(&r, 100);
    c->planner = c->threads ? (p < 50 ? PL_BASIC : PL_MANY)
               : p < 30 ? PL_BASIC : p < 55 ? PL_MANY : p < 78 ? PL_GURU : PL_GURU64;
    c->inplace = rnd(&r, 100) < 35;
    c->large = !c->threads && c->rank <= 3 && rnd(&r, 100) < 4;
    p = rnd(&r, 100);
    if (c->planner >= PL_GURU && !c->large)
        c->layout = p < 18 && !c->inplace && c->rank >= 2 ? LAY_FREE : p < 32 ? LAY_COLLAPSE
                  : p < 46 ? LAY_SPLIT : LAY_NESTED;
    pick_layout(c, &r, maxpts, big);
    c->flags = FFTW_ESTIMATE;
    bool prime = false; /* (MEASURE of a large prime size takes FFTW up to half a second) */
    for (int i = 0; i < c->rank; i++)
        prime |= is_prime_size(c->n[i]);
    if (!c->threads && !prime && points(c) * c->howmany <= 2048 && rnd(&r, 100) < 25)
        c->flags = FFTW_MEASURE, c->measure = true;
    if (c->kind == K_C2R && !c->inplace && c->rank == 1 && rnd(&r, 2))
        c->flags |= FFTW_PRESERVE_INPUT; /* (FFTW has no input-preserving multi-dimensional c2r) */
    if (!c->threads && rnd(&r, 100) < 25)
        c->flags |= FFTW_UNALIGNED;
    c->off = rnd(&r, 100) < 25;
    c->data_seed = next(&r);
    if (c->threads) {
        c->nexec = 4;
        for (int i = 0; i < 4; i++)
            c->exec[i] = EX_SAME;
        return;
    }
    c->nexec = 1 + rnd(&r, 3);
    c->exec[0] = rnd(&r, 100) < 80 ? EX_OWN : EX_SAME;
    for (int i = 1; i < c->nexec; i++)
        c->exec[i] = (c->flags & FFTW_UNALIGNED) && rnd(&r, 2) ? EX_OTHER : rnd(&r, 2) ? EX_SAME : EX_OWN;
}

/* Where GPUSHIM_OFFLOAD=always must run an execute, in the family's order of checks (src/families/fftw/
 * fftw.c): "gpu", "cpu REASON", "cpu" for some reason, or "any" where the GPU path may take the layout or
 * decline it. */
static const char *expect(const case_t *c, int ex)
{
    if (c->rank > 3)
        return "cpu rank above 3";
    /* (out of place, two howmany dimensions that no distance merges and a transposing layout go to the GPU
     * through gpushim's permutation kernels when no advanced layout expresses them) */
    if (c->hrank > 1 && c->layout == LAY_SPLIT && c->inplace)
        return "cpu howmany rank above 1";
    /* (an in-place r2c or c2r with strides has no advanced layout that cuFFT documents: the CPU for new arrays
     * of another alignment, for one reason or the other) */
    bool maybe = c->inplace && c->kind != K_DFT && c->istride > 1;
    if (ex == EX_OTHER)
        return maybe ? "cpu" : "cpu new arrays of another alignment";
    return maybe ? "any" : "gpu";
}

static const char *routine(const case_t *c, int ex)
{
    static const char *const names[] = {"execute_dft", "execute_dft_r2c", "execute_dft_c2r"};
    return ex == EX_OWN ? "execute" : names[c->kind];
}

static void count_coverage(const case_t *c)
{
    static const int kinds[] = {COV_c2c_forward, COV_r2c, COV_c2r};
    static const int ranks[] = {COV_rank1, COV_rank2, COV_rank3, COV_rank4};
    static const int planners[] = {COV_basic, COV_many, COV_guru, COV_guru64};
    static const int execs[] = {COV_exec_execute, COV_exec_new_same, COV_exec_new_other};
    cov[c->prec ? COV_prec_float : COV_prec_double]++;
    cov[c->kind == K_DFT && c->sign > 0 ? COV_c2c_backward : kinds[c->kind]]++;
    cov[ranks[c->rank - 1]]++;
    cov[planners[c->planner]]++;
    cov[COV_basic_rank_n] += c->planner == PL_BASIC && c->basic_form;
    if (c->planner == PL_MANY)
        cov[c->nembed ? COV_many_nembed : COV_many_nembed_null]++;
    cov[COV_stride_gt1] += c->planner != PL_BASIC && c->layout != LAY_FREE && (c->istride > 1 || c->ostride > 1);
    cov[COV_interleaved] += c->interleaved;
    cov[COV_howmany_gt1] += c->howmany > 1;
    cov[COV_guru_hm0] += c->hrank == 0;
    cov[COV_guru_hm2_collapse] += c->hrank == 2 && c->layout == LAY_COLLAPSE;
    cov[COV_guru_hm2_split] += c->hrank == 2 && c->layout == LAY_SPLIT;
    cov[COV_guru_free] += c->layout == LAY_FREE && !c->permuted;
    cov[COV_guru_permuted] += c->permuted;
    cov[c->inplace ? COV_in_place : COV_out_of_place]++;
    cov[COV_in_place_padded] += c->inplace && c->kind != K_DFT;
    cov[COV_offset_array] += c->off;
    cov[COV_measure] += c->measure;
    cov[COV_preserve_input] += (c->flags & FFTW_PRESERVE_INPUT) != 0;
    cov[COV_unaligned] += (c->flags & FFTW_UNALIGNED) != 0;
    bool seen[3] = {false};
    for (int i = 0; i < c->nexec; i++)
        seen[c->exec[i]] = true;
    for (int i = 0; i < 3; i++)
        cov[execs[i]] += seen[i];
    cov[COV_threads] += c->threads;
    bool prime = false, pow2 = false, odd = false;
    for (int i = 0; i < c->rank; i++) {
        prime |= is_prime_size(c->n[i]);
        pow2 |= (c->n[i] & (c->n[i] - 1)) == 0;
        odd |= c->n[i] & 1;
    }
    cov[COV_size_prime] += prime;
    cov[COV_size_pow2] += pow2;
    cov[COV_size_odd] += odd;
    cov[COV_size_large] += points(c) >= 16384;
}

/* The case in words, enough to see what failed (--case ID reproduces it). */
static void describe(const case_t *c, char *s, size_t size, bool verbose)
{
    static const char *const kinds[] = {"c2c", "r2c", "c2r"};
    static const char *const planners[] = {"basic", "many", "guru", "guru64"};
    static const char *const layouts[] = {"", " free", " hm2-collapse", " hm2-split", " permuted"};
    static const char ex_letters[] = "ESO";
    size_t m = 0;
#define ADD(...) (m += (size_t)snprintf(s + m, m < size ? size - m : 0, __VA_ARGS__))
    ADD("%s %s%s %s%s%s rank=%d n=", apis[c->prec]->pfx, kinds[c->kind], c->kind ? "" : c->sign < 0 ? "-" : "+",
        planners[c->planner], c->planner == PL_BASIC && c->basic_form ? "-n" : "",
        layouts[c->permuted ? 4 : c->layout], c->rank);
    for (int i = 0; i < c->rank; i++)
        ADD("%s%d", i ? "x" : "", c->n[i]);
    ADD(" hm=%d%s", c->howmany, c->hrank == 0 ? "(rank 0)" : "");
    if (c->planner == PL_MANY)
        ADD(" stride=%d/%d dist=%d/%d%s%s", c->istride, c->ostride, c->idist, c->odist, c->nembed ? " nembed" : "",
            c->interleaved ? " interleaved" : "");
    ADD(" %s%s %s%s%s%s", c->inplace ? "in" : "out", c->off ? " off=1" : "",
        c->measure ? "measure" : "estimate", c->flags & FFTW_PRESERVE_INPUT ? "+preserve" : "",
        c->flags & FFTW_UNALIGNED ? "+unaligned" : "", c->threads ? " threads=2x4" : "");
    ADD(" exec=");
    for (int i = 0; i < c->nexec; i++)
        ADD("%c", ex_letters[c->exec[i]]);
    if (verbose) {
        ADD(" dims=");
        for (int i = 0; i < c->rank + c->hrank; i++) {
            const fftw_iodim64 *d = i < c->rank ? &c->d[i] : &c->h[i - c->rank];
            ADD("%s%td:%td:%td", i == c->rank ? "|" : i ? "," : "", d->n, d->is, d->os);
        }
    }
#undef ADD
}

/* ---- the elements each side touches ---------------------------------------------------------------------- */

typedef struct {
    bool cplx;
    size_t count;    /* elements */
    ptrdiff_t *pos;  /* each one's index in elements of the side's type (complex or real) */
    size_t span;     /* reals from the array's start to past the last one touched */
    uint8_t *mask;   /* span reals: 1 where the side touches */
    bool overlap;    /* two elements at one place: a bad sample */
} side_t;

static void make_side(const case_t *c, int s, side_t *sd)
{
    int64_t nn[6], st[6];
    int nd = 0;
    memset(sd, 0, sizeof *sd);
    sd->cplx = s ? c->kind != K_C2R : c->kind != K_R2C;
    for (int i = 0; i < c->rank + c->hrank; i++, nd++) {
        const fftw_iodim64 *d = i < c->rank ? &c->d[i] : &c->h[i - c->rank];
        nn[nd] = i < c->rank ? side_n(c, i, s, false) : d->n;
        st[nd] = s ? d->os : d->is;
    }
    size_t count = 1;
    for (int i = 0; i < nd; i++)
        count *= (size_t)nn[i];
    sd->count = count;
    sd->pos = malloc(count * sizeof *sd->pos);
    int64_t idx[6] = {0}, p = 0, maxp = 0;
    for (size_t k = 0; k < count; k++) { /* an odometer over the dimensions, the last fastest */
        sd->pos[k] = p;
        maxp = p > maxp ? p : maxp;
        for (int j = nd - 1; j >= 0; j--) {
            p += st[j];
            if (++idx[j] < nn[j])
                break;
            p -= st[j] * nn[j];
            idx[j] = 0;
        }
    }
    int w = sd->cplx ? 2 : 1;
    sd->span = (size_t)(maxp + 1) * (size_t)w;
    sd->mask = calloc(sd->span, 1);
    for (size_t k = 0; k < count; k++)
        for (int j = 0; j < w; j++) {
            sd->overlap |= sd->mask[sd->pos[k] * w + j];
            sd->mask[sd->pos[k] * w + j] = 1;
        }
}

static void free_side(side_t *sd)
{
    free(sd->pos);
    free(sd->mask);
}

/* ---- arrays ---------------------------------------------------------------------------------------------- */

#define GUARD 8 /* reals past the last element, checked untouched too */

typedef struct {
    char *base, *arr; /* the allocation (64-byte aligned) and the array, off reals into it */
    size_t reals, es;
    int off;
} buf_t;

static void buf_alloc(buf_t *b, size_t es, int off, size_t span)
{
    b->es = es, b->off = off;
    b->reals = (size_t)off + span + GUARD;
    b->base = aligned_alloc(64, (b->reals * es + 63) / 64 * 64);
    b->arr = b->base + (size_t)off * es;
}

static double get(const char *arr, size_t es, ptrdiff_t i)
{
    return es == sizeof(double) ? ((const double *)arr)[i] : ((const float *)arr)[i];
}

static void put(char *arr, size_t es, ptrdiff_t i, double v)
{
    if (es == sizeof(double))
        ((double *)arr)[i] = v;
    else
        ((float *)arr)[i] = (float)v;
}

/* What a case's executes share: its sides, the reference's plan and arrays, and for c2r the reference r2c
 * that makes Hermitian input (FFTW's and cuFFT's c2r differ on input that is not). */
typedef struct {
    const case_t *c;
    const api_t *a;
    side_t in, out;
    void *rplan, *hplan;
    buf_t rin, rout, hreal, hcplx;
    size_t hcount;
    size_t ispan; /* reals of the input array: in place, the larger side's */
    rng_t r;
} ctx_t;

/* The reference r2c whose output is the c2r's input: from random reals in row-major order (hreal) to the c2r's
 * input elements, at their places (hcplx). */
static void *h_plan(ctx_t *x)
{
    const case_t *c = x->c;
    fftw_iodim64 d[4], h[2];
    int64_t st = 1;
    for (int i = c->rank - 1; i >= 0; i--) {
        d[i] = (fftw_iodim64){c->n[i], st, c->d[i].is};
        st *= c->n[i];
    }
    for (int i = c->hrank - 1; i >= 0; i--) {
        h[i] = (fftw_iodim64){c->h[i].n, st, c->h[i].is};
        st *= c->h[i].n;
    }
    x->hcount = (size_t)st;
    buf_alloc(&x->hreal, x->a->es, 0, x->hcount);
    buf_alloc(&x->hcplx, x->a->es, 0, x->in.span);
    return x->a->ref_plan(K_R2C, FFTW_FORWARD, c->rank, d, c->hrank, h, x->hreal.arr, x->hcplx.arr);
}

static void fill_all(buf_t *b, double v)
{
    for (size_t i = 0; i < b->reals; i++)
        put(b->base, b->es, (ptrdiff_t)i, v);
}

/* Input for one execute in ib (the output array ob, which may be ib, filled with a sentinel as the rest of
 * both): random values, or for c2r the reference's r2c of random reals. */
static void prepare(ctx_t *x, buf_t *ib, buf_t *ob)
{
    size_t es = x->a->es;
    fill_all(ib, 777.25);
    if (ob->base != ib->base)
        fill_all(ob, 777.25);
    if (x->c->kind == K_C2R) {
        for (size_t i = 0; i < x->hcount; i++)
            put(x->hreal.arr, es, (ptrdiff_t)i, uni(&x->r));
        x->a->ref_exec(x->hplan);
        for (size_t k = 0; k < x->in.count; k++)
            memcpy(ib->arr + (size_t)x->in.pos[k] * 2 * es, x->hcplx.arr + (size_t)x->in.pos[k] * 2 * es,
                   2 * es);
        return;
    }
    int w = x->in.cplx ? 2 : 1;
    for (size_t k = 0; k < x->in.count; k++)
        for (int j = 0; j < w; j++)
            put(ib->arr, es, x->in.pos[k] * w + j, uni(&x->r));
}

static char *save(const buf_t *b)
{
    char *s = malloc(b->reals * b->es);
    memcpy(s, b->base, b->reals * b->es);
    return s;
}

/* The first real of b that changed from saved where neither mask allows it, or -1. */
static ptrdiff_t changed(const buf_t *b, const char *saved, const side_t *m1, const side_t *m2)
{
    for (size_t q = 0; q < b->reals; q++) {
        ptrdiff_t a = (ptrdiff_t)q - b->off;
        bool in1 = m1 && a >= 0 && (size_t)a < m1->span && m1->mask[a];
        bool in2 = m2 && a >= 0 && (size_t)a < m2->span && m2->mask[a];
        if (in1 || in2)
            continue;
        if (memcmp(b->base + q * b->es, saved + q * b->es, b->es) != 0)
            return a;
    }
    return -1;
}

/* One execute's result against the reference's on the same input (sin: ib as it was before): the relative L2
 * error, or a negative value with why set when the execute wrote where it must not. */
static double verify(ctx_t *x, const buf_t *ib, const buf_t *ob, const char *sin, const char *sout, char *why,
                     size_t wn)
{
    const case_t *c = x->c;
    size_t es = x->a->es;
    memcpy(x->rin.arr, sin + (size_t)ib->off * es, x->in.span * es);
    x->a->ref_exec(x->rplan);
    int w = x->out.cplx ? 2 : 1;
    double d2 = 0, r2 = 0;
    for (size_t k = 0; k < x->out.count * (size_t)w; k++) {
        double r = get(x->rout.arr, es, x->out.pos[k / (size_t)w] * w + (ptrdiff_t)(k % (size_t)w));
        r2 += r * r;
    }
    if (corrupt_opt == 1) /* one element off by a thousandth of the result's norm */
        put(ob->arr, es, x->out.pos[0] * w, get(ob->arr, es, x->out.pos[0] * w) + 1e-3 * sqrt(r2));
    if (corrupt_opt == 2) /* a write past the arrays' ends */
        put(ob->base, es, (ptrdiff_t)ob->reals - 1, 0.5);
    for (size_t k = 0; k < x->out.count * (size_t)w; k++) {
        ptrdiff_t i = x->out.pos[k / (size_t)w] * w + (ptrdiff_t)(k % (size_t)w);
        double y = get(ob->arr, es, i), r = get(x->rout.arr, es, i);
        d2 += (y - r) * (y - r);
    }
    bool destroys = c->kind == K_C2R && !(c->flags & FFTW_PRESERVE_INPUT);
    ptrdiff_t q;
    if (ib->base == ob->base) {
        if ((q = changed(ib, sin, &x->in, &x->out)) != -1)
            return snprintf(why, wn, "wrote outside its elements (real %td of the array)", q), -1;
    } else {
        if ((q = changed(ib, sin, destroys ? &x->in : NULL, NULL)) != -1)
            return snprintf(why, wn, "changed its input (real %td)", q), -1;
        if ((q = changed(ob, sout, &x->out, NULL)) != -1)
            return snprintf(why, wn, "wrote outside its output elements (real %td)", q), -1;
    }
    return r2 > 0 ? sqrt(d2 / r2) : sqrt(d2);
}

/* ---- one case -------------------------------------------------------------------------------------------- */

typedef struct {
    ctx_t *x;
    void *plan;
    buf_t *ib, *ob;
} job_t;

static void *thread_exec(void *arg)
{
    job_t *j = arg;
    j->x->a->exec(j->x->c, j->plan, false, j->ib->arr, j->ob->arr);
    return NULL;
}

/* An execute's arrays: the plan's own, or new ones (of the plan's offset, or the other). */
static void exec_arrays(ctx_t *x, int ex, buf_t *pi, buf_t *po, buf_t *ib, buf_t *ob)
{
    if (ex == EX_OWN) {
        *ib = *pi, *ob = *po;
        return;
    }
    int off = ex == EX_SAME ? x->c->off : !x->c->off;
    buf_alloc(ib, x->a->es, off, x->ispan);
    if (x->c->inplace)
        *ob = *ib;
    else
        buf_alloc(ob, x->a->es, off, x->out.span);
}

static void exec_free(int ex, buf_t *ib, buf_t *ob)
{
    if (ex == EX_OWN)
        return;
    if (ob->base != ib->base)
        free(ob->base);
    free(ib->base);
}

/* FFTW's rule for new arrays: the plan's alignment, unless it was planned FFTW_UNALIGNED (then EX_OTHER's). */
static bool alignment_as_meant(ctx_t *x, int ex, const buf_t *pi, const buf_t *po, const buf_t *ib,
                               const buf_t *ob)
{
    if (ex == EX_OWN)
        return true;
    bool same = x->a->align(ib->arr) == x->a->align(pi->arr) && x->a->align(ob->arr) == x->a->align(po->arr);
    return ex == EX_SAME ? same : !same && (x->c->flags & FFTW_UNALIGNED);
}

/* The case's executes, each checked; the worst error's ratio to the tolerance, or -1 with why set. */
static double run_execs(ctx_t *x, void *plan, buf_t *pi, buf_t *po, double tol, char *why, size_t wn)
{
    const case_t *c = x->c;
    int nb = c->nexec;
    buf_t ib[4], ob[4];
    char *sin[4], *sout[4];
    double worst = 0; /* (-1 once an execute failed otherwise than by its error) */
    for (int b = 0; b < nb; b++) {
        exec_arrays(x, c->exec[b], pi, po, &ib[b], &ob[b]);
        if (!alignment_as_meant(x, c->exec[b], pi, po, &ib[b], &ob[b]))
            snprintf(why, wn, "internal: arrays of execute %d not of the alignment meant", b), worst = -1;
        prepare(x, &ib[b], &ob[b]);
        sin[b] = save(&ib[b]);
        sout[b] = ob[b].base != ib[b].base ? save(&ob[b]) : NULL;
        if (!c->threads) { /* one after another; a thread case's four at once, below */
            x->a->exec(c, plan, c->exec[b] == EX_OWN, ib[b].arr, ob[b].arr);
            double e = verify(x, &ib[b], &ob[b], sin[b], sout[b], why, wn);
            worst = worst < 0 || e < 0 ? -1 : fmax(worst, isnan(e) ? INFINITY : e / tol);
        }
    }
    if (c->threads) {
        pthread_t t[4];
        job_t j[4];
        for (int b = 0; b < nb; b++) {
            j[b] = (job_t){x, plan, &ib[b], &ob[b]};
            pthread_create(&t[b], NULL, thread_exec, &j[b]);
        }
        for (int b = 0; b < nb; b++)
            pthread_join(t[b], NULL);
        for (int b = 0; b < nb; b++) {
            double e = verify(x, &ib[b], &ob[b], sin[b], sout[b], why, wn);
            worst = worst < 0 || e < 0 ? -1 : fmax(worst, isnan(e) ? INFINITY : e / tol);
        }
    }
    for (int b = 0; b < nb; b++) {
        free(sin[b]);
        free(sout[b]);
        exec_free(c->exec[b], &ib[b], &ob[b]);
    }
    return worst;
}

static void expect_lines(const case_t *c)
{
    if (!expect_file)
        return;
    for (int b = 0; b < c->nexec; b++)
        fprintf(expect_file, "%d %s%s %s\n", c->id, apis[c->prec]->pfx, routine(c, c->exec[b]),
                expect(c, c->exec[b]));
}

/* The case's plan through the program's FFTW and the reference's, then its executes; the worst ratio, or -1
 * with why set. */
static double run_planned(ctx_t *x, double *err, double tol, char *why, size_t wn)
{
    const case_t *c = x->c;
    double ratio = -1;
    buf_t pi, po;
    buf_alloc(&pi, x->a->es, c->off, x->ispan);
    if (c->inplace)
        po = pi;
    else
        buf_alloc(&po, x->a->es, c->off, x->out.span);
    if (c->threads)
        x->a->threads(2);
    void *plan = x->a->plan(c, pi.arr, po.arr);
    if (c->threads)
        x->a->threads(1);
    buf_alloc(&x->rin, x->a->es, 0, x->in.span);
    buf_alloc(&x->rout, x->a->es, 0, x->out.span);
    x->rplan = x->a->ref_plan(c->kind, c->sign, c->rank, c->d, c->hrank, c->h, x->rin.arr, x->rout.arr);
    x->hplan = c->kind == K_C2R ? h_plan(x) : NULL;
    if (!plan || !x->rplan || (c->kind == K_C2R && !x->hplan)) {
        snprintf(why, wn, "%s returned NULL", plan ? "the reference's planner" : "the planner");
        cov[COV_null_plan] += !plan;
    } else {
        ratio = run_execs(x, plan, &pi, &po, tol, why, wn);
        *err = ratio >= 0 ? ratio * tol : -1;
        if (ratio > 1)
            snprintf(why, wn, "error above tolerance");
        expect_lines(c);
    }
    if (plan)
        x->a->destroy(plan);
    if (x->rplan)
        x->a->ref_destroy(x->rplan);
    if (x->hplan)
        x->a->ref_destroy(x->hplan);
    if (c->kind == K_C2R) {
        free(x->hreal.base);
        free(x->hcplx.base);
    }
    free(x->rin.base);
    free(x->rout.base);
    if (!c->inplace)
        free(po.base);
    free(pi.base);
    return ratio;
}

/* One case: true when it passed; its worst error (relative L2), the tolerance and their ratio. */
static bool run_case(const case_t *c, double *err, double *tol, double *ratio, char *why, size_t wn)
{
    ctx_t x = {.c = c, .a = apis[c->prec], .r = {c->data_seed}};
    make_side(c, 0, &x.in);
    make_side(c, 1, &x.out);
    x.ispan = c->inplace && x.out.span > x.in.span ? x.out.span : x.in.span;
    *ratio = *err = -1;
    *tol = TOL_K * x.a->eps * log2((double)points(c) + 1);
    if (x.in.overlap || x.out.overlap)
        snprintf(why, wn, "internal: two elements of a side at one place");
    else
        *ratio = run_planned(&x, err, *tol, why, wn);
    free_side(&x.in);
    free_side(&x.out);
    return *ratio >= 0 && *ratio <= 1;
}

/* ---- the reference's namespace, and main ----------------------------------------------------------------- */

/* Opens libfftw3 and libfftw3f in one new namespace, where neither a preloaded library nor the program's own
 * FFTW is: 0, or -1 with a message. */
static int load_reference(void)
{
    void *h = dlmopen(LM_ID_NEWLM, "libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
    Lmid_t lm;
    if (!h || dlinfo(h, RTLD_DI_LMID, &lm) != 0) {
        fprintf(stderr, "fft_diff: dlmopen libfftw3.so.3: %s\n", dlerror());
        return -1;
    }
    void *hf = dlmopen(lm, "libfftw3f.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!hf) {
        fprintf(stderr, "fft_diff: dlmopen libfftw3f.so.3: %s\n", dlerror());
        return -1;
    }
    if (fftw_api.ref_load(h) || fftwf_api.ref_load(hf)) {
        fprintf(stderr, "fft_diff: the reference lacks a function\n");
        return -1;
    }
    /* The reference must be another copy than the one the program (and the shim) calls. */
    void *base = dlopen("libfftw3.so.3", RTLD_LAZY | RTLD_NOLOAD);
    if (!base || dlsym(base, "fftw_execute") == dlsym(h, "fftw_execute")) {
        fprintf(stderr, "fft_diff: the reference is not a separate copy of FFTW\n");
        return -1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: fft_diff SEED COUNT [--case ID] [--max-points N] [--big] [--expect FILE] [-v]"
                    " [--corrupt value|guard]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    uint64_t seed = strtoull(argv[1], NULL, 0);
    int count = atoi(argv[2]), only = -1;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            only = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-points") == 0 && i + 1 < argc)
            maxpts_opt = strtoll(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--big") == 0)
            big_opt = true;
        else if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
            if (!(expect_file = fopen(argv[++i], "w")))
                return perror(argv[i]), 2;
        } else if (strcmp(argv[i], "-v") == 0)
            verbose_opt = true;
        else if (strcmp(argv[i], "--corrupt") == 0 && i + 1 < argc && strcmp(argv[i + 1], "value") == 0)
            corrupt_opt = 1, i++;
        else if (strcmp(argv[i], "--corrupt") == 0 && i + 1 < argc && strcmp(argv[i + 1], "guard") == 0)
            corrupt_opt = 2, i++;
        else
            return usage();
    }
    if (maxpts_opt <= 0)
        maxpts_opt = big_opt ? 1 << 22 : 1 << 16;
    /* (the threads libraries' setup comes before any other call of FFTW, as their manual asks) */
    if (!fftw_init_threads() || !fftwf_init_threads() || load_reference() != 0)
        return 2;
    int failed = 0, ran = 0, worst_id = -1;
    double worst_ratio = 0;
    for (int id = only >= 0 ? only : 0; id < (only >= 0 ? only + 1 : count); id++) {
        case_t c;
        gen_case(&c, seed, id, maxpts_opt, big_opt);
        count_coverage(&c);
        char d[512], why[160] = "";
        describe(&c, d, sizeof d, verbose_opt);
        printf("case %d %s", id, d); /* first, so that a crash shows which case it was */
        fflush(stdout);
        double err, tol, ratio;
        bool ok = run_case(&c, &err, &tol, &ratio, why, sizeof why);
        printf(" err=%.2e tol=%.2e ratio=%.3f %s%s%s\n", err, tol, ratio, ok ? "PASS" : "FAIL", ok ? "" : ": ",
               why);
        fflush(stdout);
        failed += !ok, ran++;
        if (ratio > worst_ratio)
            worst_ratio = ratio, worst_id = id;
    }
    for (int i = 0; i < COV_N; i++)
        printf("coverage %s %ld\n", cov_names[i], cov[i]);
    printf("tolerance %g * eps * log2(N + 1); worst ratio %.3f (case %d)\n", TOL_K, worst_ratio, worst_id);
    printf("cases %d passed %d failed %d\n", ran, ran - failed, failed);
    if (expect_file)
        fclose(expect_file);
    fftw_cleanup_threads();
    fftwf_cleanup_threads();
    return failed ? 1 : 0;
}

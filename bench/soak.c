/* A soak test of gpushim (issue 24, item 6), run under LD_PRELOAD: for SECONDS, random calls of many routines
 * the shim interposes (Level-3 and Level-2 BLAS, LAPACK, FFTW executes) on a pool of buffers that live across
 * calls, with in-place updates, frees and reallocations between them, each call's output compared with the CPU
 * library's own result, computed on copies of its inputs by OpenBLAS and FFTW opened a second time, with
 * dlmopen, in a link namespace of their own, which no preloaded library reaches (as tests/progs/fft_diff.c
 * does).  bench/soak.sh runs it in pieces on the GPU; tests/t_soak.sh on the CUDA stand-in.
 *
 * usage: soak SECONDS SEED [--small N] [--large LO:HI] [--large-share P] [--max-flops F] [--fft-small LO:HI]
 *             [--fft-large LO:HI] [--progress S] [--repeat P] [--calls N] [--only GENERATOR,...]
 *   --small: the largest small dimension (default 200); --large: big dimensions (default 500:4000) drawn for a
 *   share P of the calls (default 0.1); --max-flops: each call's dimensions halved until its arithmetic fits
 *   (default 4e11); --fft-small, --fft-large: log2 of the points of an FFT (default 4:12 and 14:22);
 *   --progress: seconds between progress lines on stderr (default 30); --repeat: the chance that a call is the
 *   previous one again, on the same buffers (default 0.3); --calls: stop after N calls of the generators below
 *   (getrf and getrs together are one) if the time has not run out first; --only: those generators alone
 *   (gemm, dsyrk, zherk, dtrsm, dtrmm, dsymm, dgemv, dgesv, zgesv, lu, dpotrf, dgeqrf, dsyevd, dgesvd, dgesdd,
 *   fft).  SOAK_PLANT=K perturbs one output of every K-th call before its comparison, which must then count it
 *   as a mismatch (the test of the test).
 * stdout: "calls ROUTINE N" for each routine (as the offload log names it), "event NAME N", the first
 * mismatches ("mismatch ..."), then one line "soak seed=... calls=... mismatches=... planted=..." with the
 * memory figures.  Exit status 1 on any mismatch, 2 when the reference cannot be loaded or the usage is bad. */
#include <dlfcn.h>
#include <float.h>
#include <link.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fftw3.h>

/* ---- the routines, as the program calls them: the shim's under LD_PRELOAD, else OpenBLAS's ------------- */

/* Fortran BLAS and LAPACK, LP64, with the hidden lengths of their character arguments. */
void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *, const double *,
            const int *, const double *, const int *, const double *, double *, const int *, size_t, size_t);
void cgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
void zgemm_(const char *, const char *, const int *, const int *, const int *, const void *, const void *,
            const int *, const void *, const int *, const void *, void *, const int *, size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void zherk_(const char *, const char *, const int *, const int *, const double *, const void *, const int *,
            const double *, void *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dsymm_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *, size_t, size_t);
void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *, const double *,
            const int *, const double *, double *, const int *, size_t);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void zgesv_(const int *, const int *, void *, const int *, int *, void *, const int *, int *);
void dgetrf_(const int *, const int *, double *, const int *, int *, int *);
void dgetrs_(const char *, const int *, const int *, const double *, const int *, const int *, double *,
             const int *, int *, size_t);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);
void dgeqrf_(const int *, const int *, double *, const int *, double *, double *, const int *, int *);
void dsyevd_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *,
             int *, const int *, int *, size_t, size_t);
void dgesvd_(const char *, const char *, const int *, const int *, double *, const int *, double *, double *,
             const int *, double *, const int *, double *, const int *, int *, size_t, size_t);
void dgesdd_(const char *, const int *, const int *, double *, const int *, double *, double *, const int *,
             double *, const int *, double *, const int *, int *, int *, size_t);
/* CBLAS (OpenBLAS's cblas.h is not needed: its enumerations are ints, 101 row-major and 102 column-major). */
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                 int);
void cblas_cgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                 void *, int);
void cblas_zgemm(int, int, int, int, int, int, const void *, const void *, int, const void *, int, const void *,
                 void *, int);

/* The reference: the same functions from the second namespace.  REF(which, f) is the program's f for which 0,
 * the reference's for 1. */
#define REF_BLAS(X)                                                                                              \
    X(sgemm_) X(dgemm_) X(cgemm_) X(zgemm_) X(cblas_sgemm) X(cblas_dgemm) X(cblas_cgemm) X(cblas_zgemm) X(dsyrk_) \
    X(zherk_) X(dtrsm_) X(dtrmm_) X(dsymm_) X(dgemv_) X(dgesv_) X(zgesv_) X(dgetrf_) X(dgetrs_) X(dpotrf_)     \
    X(dgeqrf_) X(dsyevd_) X(dgesvd_) X(dgesdd_)
#define REF_FFTW(X)                                                                                              \
    X(fftw_plan_dft_1d) X(fftw_plan_dft_2d) X(fftw_plan_dft_r2c_1d) X(fftw_plan_dft_r2c_2d) X(fftw_execute)     \
    X(fftw_destroy_plan) X(fftwf_plan_dft_1d) X(fftwf_plan_dft_2d) X(fftwf_plan_dft_r2c_1d)                      \
    X(fftwf_plan_dft_r2c_2d) X(fftwf_execute) X(fftwf_destroy_plan)
#define X(f) __typeof__(&f) f;
static struct {
    REF_BLAS(X) REF_FFTW(X)
} ref;
#undef X
#define REF(which, f) ((which) ? ref.f : f)

/* The routines counted, by the names the offload log gives them (tests/t_soak.sh compares the two counts). */
#define ROUTINES(X)                                                                                              \
    X(sgemm) X(dgemm) X(cgemm) X(zgemm) X(dsyrk) X(zherk) X(dtrsm) X(dtrmm) X(dsymm) X(dgemv) X(dgesv) X(zgesv)   \
    X(dgetrf) X(dgetrs) X(dpotrf) X(dgeqrf) X(dsyevd) X(dgesvd) X(dgesdd) X(fftw_execute) X(fftwf_execute)      \
    X(fftw_execute_dft) X(fftwf_execute_dft) X(fftw_execute_dft_r2c) X(fftwf_execute_dft_r2c)
#define X(r) R_##r,
enum { ROUTINES(X) NR };
#undef X
#define X(r) #r,
static const char *const rname[NR] = {ROUTINES(X)};
#undef X
static long calls[NR];

/* What happened to the pool between and before calls. */
#define EVENTS(X)                                                                                                \
    X(repeat) X(refill) X(touch) X(grow) X(free_malloc) X(same_size) X(realloc) X(same_address) X(fft_plans)     \
    X(qr_signs)
#define X(e) EV_##e,
enum { EVENTS(X) NEV };
#undef X
#define X(e) #e,
static const char *const evname[NEV] = {EVENTS(X)};
#undef X
static long events[NEV];

/* ---- options, random numbers, clock ---------------------------------------------------------------------- */

static struct {
    int small, lo, hi, fft_small[2], fft_large[2];
    double large_share, max_flops, progress, repeat;
    long calls, plant; /* --calls; SOAK_PLANT */
} opt = {200, 500, 4000, {4, 12}, {14, 22}, 0.1, 4e11, 30, 0.3, 0, 0};

static uint64_t rng_state;
static uint64_t next64(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rnd(int n) { return n > 0 ? (int)(next64() % (uint64_t)n) : 0; }
static double uni(void) { return (double)(next64() >> 11) / 9007199254740992.0 - 0.5; } /* [-0.5, 0.5) */
static bool chance(double p) { return (double)(next64() >> 11) / 9007199254740992.0 < p; }

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void die(const char *what)
{
    fprintf(stderr, "soak: %s\n", what);
    exit(2);
}

/* ---- elements: precision 0 to 3 is s, d, c, z; arrays are handled as their real components ---------------- */

static const size_t RPE[4] = {1, 1, 2, 2}; /* reals per element */
static const size_t RSZ[4] = {4, 8, 4, 8}; /* bytes per real */
static double rget(int p, const void *a, size_t i)
{
    return RSZ[p] == 4 ? (double)((const float *)a)[i] : ((const double *)a)[i];
}
static void rset(int p, void *a, size_t i, double v)
{
    if (RSZ[p] == 4)
        ((float *)a)[i] = (float)v;
    else
        ((double *)a)[i] = v;
}
static double eps(int p) { return RSZ[p] == 4 ? FLT_EPSILON : DBL_EPSILON; }
/* Elements from the first to the last of a rows x cols matrix of leading dimension ld. */
static size_t span(int rows, int cols, int ld) { return rows > 0 && cols > 0 ? (size_t)ld * (cols - 1) + rows : 0; }
static size_t mbytes(int p, int rows, int cols, int ld) { return span(rows, cols, ld) * RPE[p] * RSZ[p]; }

/* The largest finite |real component| of a rows x cols matrix. */
static double amax(int p, const void *a, int rows, int cols, int ld)
{
    double m = 0;
    size_t rr = (size_t)rows * RPE[p], lr = (size_t)ld * RPE[p];
    for (int j = 0; j < cols; j++)
        for (size_t i = 0; i < rr; i++) {
            double v = fabs(rget(p, a, j * lr + i));
            if (isfinite(v) && v > m)
                m = v;
        }
    return m;
}

/* The largest |x - y| over the real components of a rows x cols matrix: NaN against NaN is equal, NaN or an
 * infinity against anything else infinite; *at gets the element (column-major index) where it is. */
static double mdiff(int p, const void *x, const void *y, int rows, int cols, int ld, long *at)
{
    double m = 0;
    size_t rr = (size_t)rows * RPE[p], lr = (size_t)ld * RPE[p];
    *at = -1;
    for (int j = 0; j < cols; j++)
        for (size_t i = 0; i < rr; i++) {
            double a = rget(p, x, j * lr + i), b = rget(p, y, j * lr + i), d;
            if (isnan(a) || isnan(b))
                d = isnan(a) && isnan(b) ? 0 : INFINITY;
            else if (isinf(a) || isinf(b))
                d = a == b ? 0 : INFINITY;
            else
                d = fabs(a - b);
            if (d > m || (d == INFINITY && *at < 0))
                m = d, *at = (long)(j * (size_t)ld + i / RPE[p]);
        }
    return m;
}

/* ---- the current call, its comparisons and mismatches ---------------------------------------------------- */

enum { MAX_SHOWN = 8, MAX_STDERR = 50 };
static struct {
    long n;         /* calls of the generators so far (one generator call may make two routine calls) */
    char desc[200]; /* the routine and its arguments */
    bool plant;     /* perturb one output of this call */
    bool bad;       /* a mismatch counted for this call */
} cur;
static long mismatches, planted;
static double worst_ratio;
static char shown[MAX_SHOWN][600];

/* Where the shim ran the last call: the last call record's where and why, read back from the offload log
 * through gpushim_log_flush and gpushim_log_path (found with dlsym: none without the shim). */
static void where_last(char *out, size_t n)
{
    int (*flush)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "gpushim_log_flush");
    const char *(*path)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "gpushim_log_path");
    snprintf(out, n, "where unknown");
    FILE *f = flush && path && flush() && path() ? fopen(path(), "r") : NULL;
    if (!f)
        return;
    char line[8192], last[8192] = "";
    while (fgets(line, sizeof line, f))
        if (strstr(line, "\"routine\""))
            strcpy(last, line);
    fclose(f);
    const char *w = strstr(last, "\"where\":\""), *y = strstr(last, "\"why\":\"");
    if (w && y)
        snprintf(out, n, "%.3s, %.*s", w + 9, (int)strcspn(y + 7, "\""), y + 7);
}

/* One comparison of the current call: err against bound, for the output named what; a call with a mismatch
 * counts once and is described (the first ones kept for the summary, up to MAX_STDERR on stderr). */
static void expect(const char *what, double err, double bound, long at)
{
    double r = bound > 0 ? err / bound : err > 0 ? INFINITY : 0;
    if (r > worst_ratio)
        worst_ratio = r;
    if (err <= bound)
        return;
    if (!cur.bad) {
        cur.bad = true;
        mismatches++;
    }
    if (mismatches > MAX_STDERR && mismatches > MAX_SHOWN)
        return;
    char where[120], line[600];
    where_last(where, sizeof where);
    snprintf(line, sizeof line, "call %ld %s: %s differs by %.3g at element %ld, bound %.3g (%s)", cur.n, cur.desc,
             what, err, at, bound, where);
    if (mismatches <= MAX_SHOWN)
        strcpy(shown[mismatches - 1], line);
    fprintf(stderr, "soak: mismatch: %s\n", line);
}

/* Compares output x with the reference's y over a rows x cols matrix: at most tol times scale apart. */
static void cmp_mat(const char *what, int p, const void *x, const void *y, int rows, int cols, int ld, double scale,
                    double tol)
{
    long at;
    double e = mdiff(p, x, y, rows, cols, ld, &at);
    expect(what, e, tol * scale, at);
}

/* SOAK_PLANT: one element of output x (a rows x cols matrix) changed by half its largest value and more, once per
 * planted call, before the comparisons. */
static void plant(int p, void *x, int rows, int cols, int ld)
{
    if (!cur.plant || rows < 1 || cols < 1)
        return;
    cur.plant = false;
    planted++;
    /* (a number: NaN, such as syrk's other triangle of a C that held NaN, would stay NaN) */
    long e = (long)rows * cols, k = rnd((int)(e < INT32_MAX ? e : INT32_MAX)), n = 0;
    size_t i = 0;
    do
        i = (size_t)ld * (size_t)(k % e / rows) + (size_t)(k % e % rows), k++;
    while (!isfinite(rget(p, x, i * RPE[p])) && ++n < e);
    rset(p, x, i * RPE[p], rget(p, x, i * RPE[p]) + 0.5 * (amax(p, x, rows, cols, ld) + 1));
}

/* The tolerances.  BLAS: an element of a product of inner dimension k carries rounding errors of about
 * sqrt(k) eps times the operands' scale when they sum terms of random signs (k eps at worst), on each side;
 * 32 eps sqrt(k + 1) of the result's scale (the reference's largest element, plus what alpha's and beta's
 * terms could contribute) leaves room for cuBLAS's other order of summation and blocking and catches any
 * wrong element (a stale operand, a wrong transpose) by orders of magnitude.  LAPACK: the inputs are well
 * conditioned (dominant diagonals) or the checks backward-stable residuals, whose errors grow with n eps; 64
 * eps (n + 1).  FFT: tests/progs/fft_diff.c's relative L2 bound, 8 eps log2(N + 1). */
static double tol_blas(int p, int k) { return 32 * eps(p) * sqrt(k + 1.0); }
static double tol_lapack(int p, int n) { return 64 * eps(p) * (n + 1.0); }
static double tol_fft(int p, double n) { return 8 * eps(p) * log2(n + 1); }

/* ---- the pool: buffers that live across calls, what they hold, and the memory events --------------------- */

/* What a buffer holds, from its start: nothing known; random numbers; NaN (an output array that beta = 0 must
 * not read); a symmetric matrix with a dominant positive diagonal (for trsm, trmm, potrf: well conditioned and
 * positive definite); a symmetric one; a matrix with a dominant element in each column, at rows a
 * permutation picks (gesv, getrf, geqrf: partial pivoting has no close choices); getrf's factors; pivots. */
enum { F_NONE, F_GEN, F_NAN, F_DD, F_SYM, F_PERM, F_LU, F_IPIV };
enum { NBUF = 12, LIMIT = 1000 }; /* buffers; larger values are written anew before they are used again */
typedef struct {
    char *p;
    size_t cap;
    int prec, form, rows, cols, ld, aux; /* aux: F_LU's pivot buffer */
    size_t reals;                        /* reals from the start that hold the form's values */
} buf_t;
static buf_t pool[NBUF];

/* The program's FFTW plans, kept for later executes, on pool buffers (fft_drop destroys those on a buffer). */
static void fft_drop(const void *p);

static void retag(int b, int prec, int form, int rows, int cols, int ld)
{
    buf_t *x = &pool[b];
    x->prec = prec, x->form = form, x->rows = rows, x->cols = cols, x->ld = ld, x->aux = -1;
    x->reals = span(rows, cols, ld) * RPE[prec];
}

/* The buffer b now at address p with capacity cap; what it holds kept up to keep bytes. */
static void moved(int b, char *p, size_t cap, size_t keep)
{
    buf_t *x = &pool[b];
    if (p == x->p)
        events[EV_same_address]++;
    x->p = p, x->cap = cap;
    if (x->reals * RSZ[x->prec] > keep)
        x->form = x->form == F_GEN ? F_GEN : F_NONE, x->reals = keep / RSZ[x->prec];
}

/* Pool buffer b with room for bytes: a larger one from realloc when it has not, its data kept. */
static char *ensure(int b, size_t bytes)
{
    buf_t *x = &pool[b];
    if (bytes == 0)
        bytes = 1;
    if (x->cap >= bytes)
        return x->p;
    size_t cap = bytes + bytes / 8 * (size_t)rnd(3), keep = x->cap;
    fft_drop(x->p);
    char *p = realloc(x->p, cap);
    if (!p)
        die("out of memory");
    events[EV_grow]++;
    moved(b, p, cap, keep);
    return p;
}

/* A memory event on a random buffer: freed and another size taken from malloc, freed and the same size taken
 * again (often the same address: what a stale device copy would be found under), or realloc to another size. */
static void memory_event(void)
{
    int b = rnd(NBUF);
    buf_t *x = &pool[b];
    if (!x->p)
        return;
    fft_drop(x->p);
    int kind = rnd(3);
    size_t cap = kind == 1 ? x->cap : (size_t)((double)x->cap * (0.3 + 1.4 * (double)rnd(1000) / 1000)) + 64;
    char *old = x->p, *p;
    if (kind < 2) {
        free(old);
        p = malloc(cap);
        events[kind ? EV_same_size : EV_free_malloc]++;
    } else {
        p = realloc(old, cap);
        events[EV_realloc]++;
    }
    if (!p)
        die("out of memory");
    moved(b, p, cap, kind < 2 ? 0 : cap < x->cap ? cap : x->cap);
    if (kind < 2)
        x->form = F_NONE, x->reals = 0;
}

static void fill_gen(int p, void *a, size_t reals)
{
    for (size_t i = 0; i < reals; i++)
        rset(p, a, i, uni());
}

/* The structured forms, real (d) or complex (z) for F_PERM; n x n unless m x n. */
static void fill_sym(int p, void *a, int n, int ld, bool dominant)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            double v = i == j && dominant ? 1 + fabs(uni()) : dominant ? uni() / n : uni();
            rset(p, a, (size_t)j * ld + i, v);
            rset(p, a, (size_t)i * ld + j, v);
        }
}

static void fill_perm(int p, void *a, int m, int n, int ld)
{
    int big = m > n ? m : n, *perm = malloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    for (int i = 0; i < m; i++)
        perm[i] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = rnd(i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    size_t rpe = RPE[p];
    for (int j = 0; j < n; j++) {
        for (size_t i = 0; i < (size_t)m * rpe; i++)
            rset(p, a, (size_t)j * ld * rpe + i, uni() / big);
        if (j < m)
            rset(p, a, ((size_t)j * ld + perm[j]) * rpe, 1 + fabs(uni()));
    }
    free(perm);
}

/* An in-place update that keeps buffer b's form: all scaled, one element or a run of them (random numbers);
 * a diagonal element (F_DD); a symmetric pair (F_SYM); a column scaled (F_PERM, which keeps its pivots). */
static void touch(int b)
{
    buf_t *x = &pool[b];
    int p = x->prec, n = x->rows, ld = x->ld;
    events[EV_touch]++;
    if (x->form == F_GEN && rnd(3) == 0) {
        for (size_t i = 0; i < x->reals; i++)
            rset(p, x->p, i, rget(p, x->p, i) * 0.5);
    } else if (x->form == F_GEN) {
        size_t i = (size_t)rnd((int)(x->reals < INT32_MAX ? x->reals : INT32_MAX));
        size_t len = rnd(2) ? 1 : 1 + (size_t)rnd((int)(x->reals / 8 < INT32_MAX ? x->reals / 8 : INT32_MAX));
        for (; i < x->reals && len; i++, len--)
            rset(p, x->p, i, uni());
    } else if (x->form == F_DD) {
        int i = rnd(n);
        rset(p, x->p, (size_t)i * ld + i, 1 + fabs(uni()));
    } else if (x->form == F_SYM) {
        int i = rnd(n), j = rnd(n);
        double v = uni();
        rset(p, x->p, (size_t)j * ld + i, v), rset(p, x->p, (size_t)i * ld + j, v);
    } else if (x->form == F_PERM) {
        int j = rnd(x->cols);
        double f = 0.5 + 1.5 * (double)rnd(1000) / 1000;
        for (size_t i = 0; i < (size_t)n * RPE[p]; i++)
            rset(p, x->p, (size_t)j * ld * RPE[p] + i, rget(p, x->p, (size_t)j * ld * RPE[p] + i) * f);
    }
}

/* Pool buffer b as an input: a rows x cols matrix of precision p, leading dimension ld, in form f.  Data that
 * already are such a matrix are kept (what the residency cache serves), sometimes changed in place first (what
 * it must notice); others are written anew. */
static void *in_mat(int b, int p, int f, int rows, int cols, int ld)
{
    buf_t *x = &pool[b];
    size_t reals = span(rows, cols, ld) * RPE[p];
    char *a = ensure(b, reals * RSZ[p]);
    bool finite = x->form == F_GEN || x->form == F_DD || x->form == F_SYM || x->form == F_PERM || x->form == F_LU;
    bool keep = x->prec == p && x->reals >= reals &&
                (f == F_GEN ? finite : x->form == f && x->rows == rows && x->cols == cols && x->ld == ld);
    if (keep && x->form != F_LU && x->form != F_NAN && chance(0.25))
        touch(b);
    if (keep)
        return a;
    events[EV_refill]++;
    if (f == F_GEN || f == F_NAN) {
        if (f == F_GEN)
            fill_gen(p, a, reals);
        else
            for (size_t i = 0; i < reals; i++)
                rset(p, a, i, NAN);
        retag(b, p, f, rows, cols, ld);
        pool[b].rows = (int)(reals / RPE[p]), pool[b].cols = 1, pool[b].ld = pool[b].rows;
        return a;
    }
    fill_gen(p, a, reals); /* (the padding between columns too: nothing in the buffer is left unset) */
    if (f == F_PERM)
        fill_perm(p, a, rows, cols, ld);
    else
        fill_sym(p, a, rows, ld, f == F_DD);
    retag(b, p, f, rows, cols, ld);
    return a;
}

/* Pool buffer b as an output of bytes: the routine writes them, so what it held is not known any more. */
static void *out_buf(int b, size_t bytes)
{
    void *p = ensure(b, bytes);
    pool[b].form = F_NONE, pool[b].reals = 0;
    return p;
}

/* After a call: output buffer b holds a rows x cols matrix of random-like numbers, unless they grew too large
 * or one is not a number (syrk's other triangle of a C that held NaN): then they are written anew before their
 * next use as an input. */
static void produced(int b, int p, int rows, int cols, int ld, int form)
{
    bool tame = true;
    for (size_t i = 0, n = span(rows, cols, ld) * RPE[p]; i < n && tame; i++)
        tame = fabs(rget(p, pool[b].p, i)) < LIMIT; /* (false for NaN, in the padding between columns too) */
    retag(b, p, tame ? form : F_NONE, rows, cols, ld);
    if (form == F_GEN) /* as one column, which any shape's input may use */
        pool[b].rows = (int)span(rows, cols, ld), pool[b].cols = 1, pool[b].ld = pool[b].rows;
}

/* Copies for the reference, in scratch slots kept across calls. */
enum { NSCR = 8 };
static struct {
    char *p;
    size_t cap;
} scr[NSCR];
static void *scratch(int s, size_t bytes)
{
    if (scr[s].cap < bytes) {
        free(scr[s].p);
        scr[s].cap = bytes + bytes / 4;
        if (!(scr[s].p = malloc(scr[s].cap)))
            die("out of memory");
    }
    return scr[s].p;
}
static void *dup(int s, const void *a, size_t bytes) { return memcpy(scratch(s, bytes ? bytes : 1), a, bytes); }

/* ---- calls ----------------------------------------------------------------------------------------------- */

/* One call of a generator, drawn or the last one again (same arguments, same buffers). */
typedef struct {
    int gen, prec, variant;
    bool big;
    char o[4];                   /* option letters in argument order; FFT: kind, placement, execute */
    int m, n, k, lda, ldb, ldc, inc[2];
    double al[2], be[2];
    int b[6], nb;                /* pool buffers of the operands, and how many */
    bool again;                  /* the previous call made again */
} call_t;

/* Whether pool buffer b is one of c's operands. */
static bool operand(const call_t *c, int b)
{
    for (int i = 0; i < c->nb; i++)
        if (c->b[i] == b)
            return true;
    return false;
}

/* Distinct pool buffers for c's k operands. */
static void pick(call_t *c, int k)
{
    for (c->nb = 0; c->nb < k; c->nb++) {
        int b;
        do
            b = rnd(NBUF);
        while (operand(c, b));
        c->b[c->nb] = b;
    }
}

static double shim_s, ref_s; /* seconds in the shim's calls and in the reference's */
#define TIMED(acc, stmt)                                                                                         \
    do {                                                                                                         \
        double t0_ = now();                                                                                      \
        stmt;                                                                                                    \
        acc += now() - t0_;                                                                                      \
    } while (0)

static bool big_allowed;

/* A dimension: mostly small (sometimes 0: a call with nothing to do), in a big call from the large range. */
static int dim(const call_t *c, bool first)
{
    if (c->big && (first || chance(0.6)))
        return opt.lo + rnd(opt.hi - opt.lo + 1);
    return rnd(50) == 0 ? 0 : 1 + rnd(opt.small);
}

/* A leading dimension for rows, sometimes padded. */
static int lead(int rows) { return (rows > 0 ? rows : 1) + (rnd(4) == 0 ? 1 + rnd(16) : 0); }

/* Halves the largest of *a, *b, *c until flops(...) of c's precision (a complex one's four times a real one's)
 * is within --max-flops. */
static void fit(const call_t *c, double (*flops)(double, double, double), int *a, int *b, int *cc)
{
    while ((c->prec >= 2 ? 4 : 1) * flops(*a, *b, *cc) > opt.max_flops) {
        int *m = *a >= *b && *a >= *cc ? a : *b >= *cc ? b : cc;
        *m /= 2;
    }
}

static void scalars(call_t *c, bool beta)
{
    c->al[0] = chance(0.3) ? 1 : 2 * uni(), c->al[1] = c->prec >= 2 ? 2 * uni() : 0;
    c->be[0] = !beta || chance(0.25) ? 0 : chance(0.25) ? 1 : 2 * uni(), c->be[1] = c->prec >= 2 ? uni() : 0;
    if (c->be[0] == 0)
        c->be[1] = 0;
}
static double cabs2(const double *z) { return hypot(z[0], z[1]); }

/* ---- Level-3 and Level-2 BLAS ---------------------------------------------------------------------------- */

static double f_gemm(double m, double n, double k) { return 2 * m * n * k; }

static void d_gemm(call_t *c)
{
    c->prec = rnd(4);
    c->o[0] = "NTC"[rnd(c->prec >= 2 ? 3 : 2)], c->o[1] = "NTC"[rnd(c->prec >= 2 ? 3 : 2)];
    c->m = dim(c, true), c->n = dim(c, false), c->k = dim(c, false);
    fit(c, f_gemm, &c->m, &c->n, &c->k);
    c->lda = lead(c->o[0] == 'N' ? c->m : c->k), c->ldb = lead(c->o[1] == 'N' ? c->k : c->n), c->ldc = lead(c->m);
    scalars(c, true);
    c->variant = rnd(10) < 3 ? 1 + rnd(2) : 0; /* CBLAS, column-major (1) or row-major (2) */
    if (c->be[0] == 0 && chance(0.3))
        c->variant |= 4; /* C holds NaN, which beta = 0 must not read */
    pick(c, 3);
}

/* gemm of c's precision through the program's (which 0) or the reference's Fortran or CBLAS entry.  A row-major
 * CBLAS call of B^T A^T is the column-major A B. */
static void x_gemm(int which, const call_t *c, const void *a, const void *b, void *cc)
{
    float fa[2] = {(float)c->al[0], (float)c->al[1]}, fb[2] = {(float)c->be[0], (float)c->be[1]};
    int v = c->variant & 3, ta = c->o[0] == 'N' ? 111 : c->o[0] == 'T' ? 112 : 113;
    int tb = c->o[1] == 'N' ? 111 : c->o[1] == 'T' ? 112 : 113;
    if (v == 0) {
        const char *x = c->o, *y = c->o + 1;
        switch (c->prec) {
        case 0: REF(which, sgemm_)(x, y, &c->m, &c->n, &c->k, fa, a, &c->lda, b, &c->ldb, fb, cc, &c->ldc, 1, 1); break;
        case 1: REF(which, dgemm_)(x, y, &c->m, &c->n, &c->k, c->al, a, &c->lda, b, &c->ldb, c->be, cc, &c->ldc, 1, 1);
            break;
        case 2: REF(which, cgemm_)(x, y, &c->m, &c->n, &c->k, fa, a, &c->lda, b, &c->ldb, fb, cc, &c->ldc, 1, 1); break;
        default: REF(which, zgemm_)(x, y, &c->m, &c->n, &c->k, c->al, a, &c->lda, b, &c->ldb, c->be, cc, &c->ldc, 1, 1);
        }
        return;
    }
    int lay = v == 1 ? 102 : 101, m = v == 1 ? c->m : c->n, n = v == 1 ? c->n : c->m;
    int t1 = v == 1 ? ta : tb, t2 = v == 1 ? tb : ta, l1 = v == 1 ? c->lda : c->ldb, l2 = v == 1 ? c->ldb : c->lda;
    const void *p1 = v == 1 ? a : b, *p2 = v == 1 ? b : a;
    switch (c->prec) {
    case 0: REF(which, cblas_sgemm)(lay, t1, t2, m, n, c->k, fa[0], p1, l1, p2, l2, fb[0], cc, c->ldc); break;
    case 1: REF(which, cblas_dgemm)(lay, t1, t2, m, n, c->k, c->al[0], p1, l1, p2, l2, c->be[0], cc, c->ldc); break;
    case 2: REF(which, cblas_cgemm)(lay, t1, t2, m, n, c->k, fa, p1, l1, p2, l2, fb, cc, c->ldc); break;
    default: REF(which, cblas_zgemm)(lay, t1, t2, m, n, c->k, c->al, p1, l1, p2, l2, c->be, cc, c->ldc);
    }
}

/* The scale of alpha op(A) op(B) + beta C's elements: the reference's largest, and what each term could give. */
static double scale3(int p, const void *ref_c, int m, int n, int ldc, double al, double amx, double bmx, int k,
                     double be, double cmx)
{
    return amax(p, ref_c, m, n, ldc) + al * amx * bmx * sqrt(k + 1.0) + be * cmx + DBL_MIN;
}

static void r_gemm(call_t *c)
{
    int p = c->prec, ra = c->o[0] == 'N' ? c->m : c->k, ca = c->o[0] == 'N' ? c->k : c->m;
    int rb = c->o[1] == 'N' ? c->k : c->n, cb = c->o[1] == 'N' ? c->n : c->k;
    snprintf(cur.desc, sizeof cur.desc, "%cgemm%s %.2s m=%d n=%d k=%d lda=%d ldb=%d ldc=%d beta=%g", "sdcz"[p],
             (c->variant & 3) == 0 ? "" : (c->variant & 3) == 1 ? " (cblas)" : " (cblas row-major)", c->o, c->m,
             c->n, c->k, c->lda, c->ldb, c->ldc, c->be[0]);
    void *a = in_mat(c->b[0], p, F_GEN, ra, ca, c->lda), *b = in_mat(c->b[1], p, F_GEN, rb, cb, c->ldb);
    void *cc = in_mat(c->b[2], p, c->variant & 4 ? F_NAN : F_GEN, c->m, c->n, c->ldc);
    size_t bc = mbytes(p, c->m, c->n, c->ldc);
    void *sa = dup(0, a, mbytes(p, ra, ca, c->lda)), *sb = dup(1, b, mbytes(p, rb, cb, c->ldb)), *sc = dup(2, cc, bc);
    double cmx = c->be[0] == 0 && c->be[1] == 0 ? 0 : amax(p, cc, c->m, c->n, c->ldc);
    calls[R_sgemm + p]++;
    TIMED(shim_s, x_gemm(0, c, a, b, cc));
    TIMED(ref_s, x_gemm(1, c, sa, sb, sc));
    plant(p, cc, c->m, c->n, c->ldc);
    double s = scale3(p, sc, c->m, c->n, c->ldc, cabs2(c->al), amax(p, sa, ra, ca, c->lda),
                      amax(p, sb, rb, cb, c->ldb), c->k, cabs2(c->be), cmx);
    cmp_mat("C", p, cc, sc, c->m, c->n, c->ldc, s, tol_blas(p, c->k));
    produced(c->b[2], p, c->m, c->n, c->ldc, F_GEN);
}

static double f_syrk(double n, double k, double unused) { return (void)unused, n * n * k; }

/* dsyrk (prec 1) and zherk (prec 3): C = alpha op(A) op(A)^T or ^H + beta C in one triangle. */
static void d_syrk(call_t *c, int prec)
{
    int one = 1;
    c->prec = prec;
    c->o[0] = "UL"[rnd(2)], c->o[1] = prec == 1 ? "NT"[rnd(2)] : "NC"[rnd(2)];
    c->n = dim(c, true), c->k = dim(c, false);
    fit(c, f_syrk, &c->n, &c->k, &one);
    c->lda = lead(c->o[1] == 'N' ? c->n : c->k), c->ldc = lead(c->n);
    c->prec = 1, scalars(c, true), c->prec = prec; /* herk's alpha and beta are real */
    c->variant = c->be[0] == 0 && chance(0.3) ? 4 : 0;
    pick(c, 2);
}

static void x_syrk(int which, const call_t *c, const void *a, void *cc)
{
    if (c->prec == 1)
        REF(which, dsyrk_)(c->o, c->o + 1, &c->n, &c->k, c->al, a, &c->lda, c->be, cc, &c->ldc, 1, 1);
    else
        REF(which, zherk_)(c->o, c->o + 1, &c->n, &c->k, c->al, a, &c->lda, c->be, cc, &c->ldc, 1, 1);
}

static void r_syrk(call_t *c)
{
    int p = c->prec, ra = c->o[1] == 'N' ? c->n : c->k, ca = c->o[1] == 'N' ? c->k : c->n;
    snprintf(cur.desc, sizeof cur.desc, "%s %.2s n=%d k=%d lda=%d ldc=%d beta=%g", p == 1 ? "dsyrk" : "zherk", c->o,
             c->n, c->k, c->lda, c->ldc, c->be[0]);
    void *a = in_mat(c->b[0], p, F_GEN, ra, ca, c->lda);
    void *cc = in_mat(c->b[1], p, c->variant & 4 ? F_NAN : F_GEN, c->n, c->n, c->ldc);
    void *sa = dup(0, a, mbytes(p, ra, ca, c->lda)), *sc = dup(2, cc, mbytes(p, c->n, c->n, c->ldc));
    double cmx = c->be[0] == 0 ? 0 : amax(p, cc, c->n, c->n, c->ldc), amx = amax(p, sa, ra, ca, c->lda);
    calls[p == 1 ? R_dsyrk : R_zherk]++;
    TIMED(shim_s, x_syrk(0, c, a, cc));
    TIMED(ref_s, x_syrk(1, c, sa, sc));
    plant(p, cc, c->n, c->n, c->ldc);
    double s = scale3(p, sc, c->n, c->n, c->ldc, fabs(c->al[0]), amx, amx, c->k, fabs(c->be[0]), cmx);
    cmp_mat("C", p, cc, sc, c->n, c->n, c->ldc, s, tol_blas(p, c->k));
    produced(c->b[1], p, c->n, c->n, c->ldc, F_GEN);
}

static double f_tr(double m, double n, double unused) { return (void)unused, m * n * (m > n ? m : n); }

/* dtrsm (variant 0) and dtrmm (1): B = alpha op(A)^-1 B or alpha op(A) B, A triangular, on either side. */
static void d_trsm(call_t *c, int variant)
{
    int one = 1;
    c->prec = 1, c->variant = variant;
    c->o[0] = "LR"[rnd(2)], c->o[1] = "UL"[rnd(2)], c->o[2] = "NTC"[rnd(3)], c->o[3] = "NU"[rnd(2)];
    c->m = dim(c, true), c->n = dim(c, false);
    fit(c, f_tr, &c->m, &c->n, &one);
    c->lda = lead(c->o[0] == 'L' ? c->m : c->n), c->ldb = lead(c->m);
    scalars(c, false);
    pick(c, 2);
}

static void x_trsm(int which, const call_t *c, const void *a, void *b)
{
    if (c->variant == 0)
        REF(which, dtrsm_)(c->o, c->o + 1, c->o + 2, c->o + 3, &c->m, &c->n, c->al, a, &c->lda, b, &c->ldb, 1, 1, 1, 1);
    else
        REF(which, dtrmm_)(c->o, c->o + 1, c->o + 2, c->o + 3, &c->m, &c->n, c->al, a, &c->lda, b, &c->ldb, 1, 1, 1, 1);
}

static void r_trsm(call_t *c)
{
    int ka = c->o[0] == 'L' ? c->m : c->n;
    snprintf(cur.desc, sizeof cur.desc, "%s %.4s m=%d n=%d lda=%d ldb=%d alpha=%g", c->variant ? "dtrmm" : "dtrsm",
             c->o, c->m, c->n, c->lda, c->ldb, c->al[0]);
    void *a = in_mat(c->b[0], 1, F_DD, ka, ka, c->lda), *b = in_mat(c->b[1], 1, F_GEN, c->m, c->n, c->ldb);
    void *sa = dup(0, a, mbytes(1, ka, ka, c->lda)), *sb = dup(1, b, mbytes(1, c->m, c->n, c->ldb));
    double bmx = amax(1, b, c->m, c->n, c->ldb);
    calls[c->variant ? R_dtrmm : R_dtrsm]++;
    TIMED(shim_s, x_trsm(0, c, a, b));
    TIMED(ref_s, x_trsm(1, c, sa, sb));
    plant(1, b, c->m, c->n, c->ldb);
    /* (the dominant diagonal keeps op(A)^-1's elements, like op(A)'s, below about 2) */
    double s = scale3(1, sb, c->m, c->n, c->ldb, fabs(c->al[0]), 2, bmx, ka, 0, 0);
    cmp_mat("B", 1, b, sb, c->m, c->n, c->ldb, s, tol_blas(1, ka));
    produced(c->b[1], 1, c->m, c->n, c->ldb, F_GEN);
}

static void d_symm(call_t *c)
{
    int one = 1;
    c->prec = 1;
    c->o[0] = "LR"[rnd(2)], c->o[1] = "UL"[rnd(2)];
    c->m = dim(c, true), c->n = dim(c, false);
    fit(c, f_tr, &c->m, &c->n, &one);
    c->lda = lead(c->o[0] == 'L' ? c->m : c->n), c->ldb = lead(c->m), c->ldc = lead(c->m);
    scalars(c, true);
    pick(c, 3);
}

static void r_symm(call_t *c)
{
    int ka = c->o[0] == 'L' ? c->m : c->n;
    snprintf(cur.desc, sizeof cur.desc, "dsymm %.2s m=%d n=%d lda=%d ldb=%d ldc=%d beta=%g", c->o, c->m, c->n, c->lda,
             c->ldb, c->ldc, c->be[0]);
    void *a = in_mat(c->b[0], 1, F_GEN, ka, ka, c->lda), *b = in_mat(c->b[1], 1, F_GEN, c->m, c->n, c->ldb);
    void *cc = in_mat(c->b[2], 1, F_GEN, c->m, c->n, c->ldc);
    void *sa = dup(0, a, mbytes(1, ka, ka, c->lda)), *sb = dup(1, b, mbytes(1, c->m, c->n, c->ldb));
    void *sc = dup(2, cc, mbytes(1, c->m, c->n, c->ldc));
    double cmx = amax(1, cc, c->m, c->n, c->ldc);
    calls[R_dsymm]++;
    TIMED(shim_s, dsymm_(c->o, c->o + 1, &c->m, &c->n, c->al, a, &c->lda, b, &c->ldb, c->be, cc, &c->ldc, 1, 1));
    TIMED(ref_s, ref.dsymm_(c->o, c->o + 1, &c->m, &c->n, c->al, sa, &c->lda, sb, &c->ldb, c->be, sc, &c->ldc, 1, 1));
    plant(1, cc, c->m, c->n, c->ldc);
    double s = scale3(1, sc, c->m, c->n, c->ldc, fabs(c->al[0]), amax(1, sa, ka, ka, c->lda),
                      amax(1, sb, c->m, c->n, c->ldb), ka, fabs(c->be[0]), cmx);
    cmp_mat("C", 1, cc, sc, c->m, c->n, c->ldc, s, tol_blas(1, ka));
    produced(c->b[2], 1, c->m, c->n, c->ldc, F_GEN);
}

/* gemv, whose matrix the GPU path takes only when it is resident: repeats of the same call find it there. */
static void d_gemv(call_t *c)
{
    int one = 1;
    static const int incs[] = {1, 1, 1, 2, -1};
    c->prec = 1;
    c->o[0] = "NT"[rnd(2)];
    c->m = c->big ? 4 * dim(c, true) : dim(c, true), c->n = dim(c, false);
    fit(c, f_gemm, &c->m, &c->n, &one);
    c->lda = lead(c->m), c->inc[0] = incs[rnd(5)], c->inc[1] = incs[rnd(5)];
    scalars(c, true);
    pick(c, 3);
}

static void r_gemv(call_t *c)
{
    int lx = c->o[0] == 'N' ? c->n : c->m, ly = c->o[0] == 'N' ? c->m : c->n;
    int sx = (int)span(lx, 1, 1) * abs(c->inc[0]) - (abs(c->inc[0]) - 1) * (lx > 0),
        sy = (int)span(ly, 1, 1) * abs(c->inc[1]) - (abs(c->inc[1]) - 1) * (ly > 0);
    snprintf(cur.desc, sizeof cur.desc, "dgemv %c m=%d n=%d lda=%d incx=%d incy=%d beta=%g", c->o[0], c->m, c->n,
             c->lda, c->inc[0], c->inc[1], c->be[0]);
    void *a = in_mat(c->b[0], 1, F_GEN, c->m, c->n, c->lda), *x = in_mat(c->b[1], 1, F_GEN, sx, 1, sx);
    void *y = in_mat(c->b[2], 1, F_GEN, sy, 1, sy);
    void *sa = dup(0, a, mbytes(1, c->m, c->n, c->lda)), *sxx = dup(1, x, mbytes(1, sx, 1, sx));
    void *syy = dup(2, y, mbytes(1, sy, 1, sy));
    double ymx = amax(1, y, sy, 1, sy);
    calls[R_dgemv]++;
    TIMED(shim_s, dgemv_(c->o, &c->m, &c->n, c->al, a, &c->lda, x, &c->inc[0], c->be, y, &c->inc[1], 1));
    TIMED(ref_s, ref.dgemv_(c->o, &c->m, &c->n, c->al, sa, &c->lda, sxx, &c->inc[0], c->be, syy, &c->inc[1], 1));
    plant(1, y, sy, 1, sy);
    double s = scale3(1, syy, sy, 1, sy, fabs(c->al[0]), amax(1, sa, c->m, c->n, c->lda), amax(1, sxx, sx, 1, sx),
                      lx, fabs(c->be[0]), ymx);
    cmp_mat("y", 1, y, syy, sy, 1, sy, s, tol_blas(1, lx));
    produced(c->b[2], 1, sy, 1, sy, F_GEN);
}

/* ---- LAPACK ---------------------------------------------------------------------------------------------- */

static double f_lu(double n, double r, double unused) { return (void)unused, n * n * n / 1.5 + 2 * n * n * r; }

/* gesv, d (prec 1) or z (3): A X = B with A's dominant elements in permuted rows. */
static void d_gesv(call_t *c, int prec)
{
    int one = 1;
    c->prec = prec;
    /* (nrhs = 0 now and then: OpenBLAS's gesv then returns at once, leaving A, where LAPACK factors it) */
    c->n = dim(c, true), c->k = rnd(16) == 0 ? 0 : rnd(4) == 0 ? 1 + dim(c, false) : 1 + rnd(8);
    fit(c, f_lu, &c->n, &c->k, &one);
    c->lda = lead(c->n), c->ldb = lead(c->n);
    pick(c, 3);
}

/* Compares pivots (ints), which the dominant elements make unique. */
static void cmp_piv(const int *x, const int *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i] != y[i])
            return expect("ipiv", fabs((double)x[i] - y[i]), 0, i);
}

static void cmp_info(int x, int y) { expect("info", fabs((double)x - y), 0, 0); }

static void r_gesv(call_t *c)
{
    int p = c->prec, n = c->n, info = 0, rinfo = 0;
    snprintf(cur.desc, sizeof cur.desc, "%cgesv n=%d nrhs=%d lda=%d ldb=%d", "sdcz"[p], n, c->k, c->lda, c->ldb);
    void *a = in_mat(c->b[0], p, F_PERM, n, n, c->lda), *b = in_mat(c->b[1], p, F_GEN, n, c->k, c->ldb);
    /* (the pivots as they were: a CPU library may leave them, as OpenBLAS does when nrhs = 0) */
    int *ipiv = out_buf(c->b[2], sizeof(int) * (size_t)(n + 1)), *rpiv = dup(3, ipiv, sizeof(int) * (size_t)n);
    void *sa = dup(0, a, mbytes(p, n, n, c->lda)), *sb = dup(1, b, mbytes(p, n, c->k, c->ldb));
    calls[p == 1 ? R_dgesv : R_zgesv]++;
    if (p == 1) {
        TIMED(shim_s, dgesv_(&n, &c->k, a, &c->lda, ipiv, b, &c->ldb, &info));
        TIMED(ref_s, ref.dgesv_(&n, &c->k, sa, &c->lda, rpiv, sb, &c->ldb, &rinfo));
    } else {
        TIMED(shim_s, zgesv_(&n, &c->k, a, &c->lda, ipiv, b, &c->ldb, &info));
        TIMED(ref_s, ref.zgesv_(&n, &c->k, sa, &c->lda, rpiv, sb, &c->ldb, &rinfo));
    }
    plant(p, b, n, c->k, c->ldb);
    cmp_info(info, rinfo);
    cmp_piv(ipiv, rpiv, n);
    cmp_mat("LU", p, a, sa, n, n, c->lda, amax(p, sa, n, n, c->lda) + DBL_MIN, tol_lapack(p, n));
    cmp_mat("X", p, b, sb, n, c->k, c->ldb, amax(p, sb, n, c->k, c->ldb) + DBL_MIN, tol_lapack(p, n));
    produced(c->b[0], p, n, n, c->lda, F_GEN);
    produced(c->b[1], p, n, c->k, c->ldb, F_GEN);
}

/* getrf then getrs (variant 0), or getrs alone on factors an earlier getrf left in the pool (1). */
static void d_lu(call_t *c)
{
    int one = 1;
    c->prec = 1, c->variant = 0;
    c->o[0] = "NTC"[rnd(3)];
    c->n = dim(c, true), c->k = 1 + rnd(8);
    for (int b = 0; b < NBUF; b++)
        if (pool[b].form == F_LU && chance(0.5)) {
            c->variant = 1, c->b[0] = b, c->b[1] = pool[b].aux, c->n = pool[b].rows, c->lda = pool[b].ld;
            c->nb = 2;
            do
                c->b[2] = rnd(NBUF);
            while (operand(c, c->b[2]));
            c->nb = 3;
            c->ldb = lead(c->n);
            return;
        }
    fit(c, f_lu, &c->n, &c->k, &one);
    c->lda = lead(c->n), c->ldb = lead(c->n);
    pick(c, 3);
}

/* Whether buffer b still holds getrf's factors of n x n with leading dimension ld, and its pivots. */
static bool lu_there(int b, int n, int ld)
{
    const buf_t *x = &pool[b];
    return x->form == F_LU && x->rows == n && x->ld == ld && x->aux >= 0 && pool[x->aux].form == F_IPIV &&
           pool[x->aux].rows == n && pool[x->aux].aux == b;
}

static void r_lu(call_t *c)
{
    int n = c->n, info = 0, rinfo = 0;
    if (c->again && lu_there(c->b[0], n, c->lda))
        c->variant = 1; /* (again: another solve with the factors, as lu_solve after lu_factor) */
    else if (c->variant == 1 && !lu_there(c->b[0], n, c->lda))
        c->variant = 0;
    if (c->variant == 1) { /* (the factors' own pivots, and B on a third buffer) */
        c->b[1] = pool[c->b[0]].aux;
        while (c->b[2] == c->b[0] || c->b[2] == c->b[1])
            c->b[2] = rnd(NBUF);
    }
    snprintf(cur.desc, sizeof cur.desc, "%s n=%d nrhs=%d lda=%d ldb=%d trans=%c", c->variant ? "dgetrs"
             : "dgetrf+dgetrs", n, c->k, c->lda, c->ldb, c->o[0]);
    double *a = c->variant ? (double *)pool[c->b[0]].p : in_mat(c->b[0], 1, F_PERM, n, n, c->lda);
    int *ipiv = c->variant ? (int *)pool[c->b[1]].p : out_buf(c->b[1], sizeof(int) * (size_t)(n + 1));
    int *rpiv = scratch(3, sizeof(int) * (size_t)(n + 1));
    double *sa = dup(0, a, mbytes(1, n, n, c->lda));
    if (c->variant)
        memcpy(rpiv, ipiv, sizeof(int) * (size_t)n);
    else {
        calls[R_dgetrf]++;
        TIMED(shim_s, dgetrf_(&n, &n, a, &c->lda, ipiv, &info));
        TIMED(ref_s, ref.dgetrf_(&n, &n, sa, &c->lda, rpiv, &rinfo));
        cmp_info(info, rinfo);
        cmp_piv(ipiv, rpiv, n);
        cmp_mat("LU", 1, a, sa, n, n, c->lda, amax(1, sa, n, n, c->lda) + DBL_MIN, tol_lapack(1, n));
        retag(c->b[0], 1, F_LU, n, n, c->lda), pool[c->b[0]].aux = c->b[1];
        retag(c->b[1], 1, F_IPIV, n, 1, n), pool[c->b[1]].aux = c->b[0], pool[c->b[1]].reals = (size_t)(n + 1) / 2;
    }
    double *b = in_mat(c->b[2], 1, F_GEN, n, c->k, c->ldb), *sb = dup(1, b, mbytes(1, n, c->k, c->ldb));
    calls[R_dgetrs]++;
    TIMED(shim_s, dgetrs_(c->o, &n, &c->k, a, &c->lda, ipiv, b, &c->ldb, &info, 1));
    TIMED(ref_s, ref.dgetrs_(c->o, &n, &c->k, sa, &c->lda, rpiv, sb, &c->ldb, &rinfo, 1));
    plant(1, b, n, c->k, c->ldb);
    cmp_info(info, rinfo);
    cmp_mat("X", 1, b, sb, n, c->k, c->ldb, amax(1, sb, n, c->k, c->ldb) + DBL_MIN, tol_lapack(1, n));
    produced(c->b[2], 1, n, c->k, c->ldb, F_GEN);
}

static double f_cube(double n, double unused, double unused2) { return (void)unused, (void)unused2, 10 * n * n * n; }

/* potrf, geqrf, syevd, gesvd, gesdd: their dimensions (a square n for the first three, m x n for the rest). */
static void d_fact(call_t *c, int gen_square)
{
    int one = 1, one2 = 1;
    c->prec = 1;
    c->m = dim(c, true), c->n = gen_square ? c->m : dim(c, false);
    if (gen_square)
        fit(c, f_cube, &c->m, &one, &one2), c->n = c->m;
    else
        fit(c, f_gemm, &c->m, &c->n, &one);
    c->lda = lead(c->m), c->ldb = lead(c->m), c->ldc = lead(c->n);
    c->o[0] = "UL"[rnd(2)], c->o[1] = "NV"[rnd(2)];
    pick(c, 4);
}

static void r_potrf(call_t *c)
{
    int n = c->n, info = 0, rinfo = 0;
    snprintf(cur.desc, sizeof cur.desc, "dpotrf %c n=%d lda=%d", c->o[0], n, c->lda);
    double *a = in_mat(c->b[0], 1, F_DD, n, n, c->lda), *sa = dup(0, a, mbytes(1, n, n, c->lda));
    calls[R_dpotrf]++;
    TIMED(shim_s, dpotrf_(c->o, &n, a, &c->lda, &info, 1));
    TIMED(ref_s, ref.dpotrf_(c->o, &n, sa, &c->lda, &rinfo, 1));
    plant(1, a, n, n, c->lda);
    cmp_info(info, rinfo);
    cmp_mat("A", 1, a, sa, n, n, c->lda, amax(1, sa, n, n, c->lda) + DBL_MIN, tol_lapack(1, n));
    produced(c->b[0], 1, n, n, c->lda, F_GEN);
}

/* The LWORK for the size a workspace query returned in WORK(1) (rounded down there: one more). */
static int lwork_of(double w) { return (int)w + 1; }

/* geqrf through the program's (which 0) or the reference's entry, with a workspace query first. */
static void x_geqrf(int which, call_t *c, double *a, double *tau, int *info)
{
    double q;
    int lw = -1;
    if (!which)
        calls[R_dgeqrf]++;
    REF(which, dgeqrf_)(&c->m, &c->n, a, &c->lda, tau, &q, &lw, info);
    lw = lwork_of(q);
    double *w = malloc(sizeof(double) * (size_t)lw);
    if (!which)
        calls[R_dgeqrf]++;
    TIMED(*(which ? &ref_s : &shim_s), REF(which, dgeqrf_)(&c->m, &c->n, a, &c->lda, tau, w, &lw, info));
    free(w);
}

/* geqrf: R row by row up to its signs (cuSOLVER and LAPACK reflect the same way, so a sign that differs is
 * counted, not failed), and the reflectors and tau where every sign agrees. */
static void r_geqrf(call_t *c)
{
    int m = c->m, n = c->n, k = m < n ? m : n, info = 0, rinfo = 0, flips = 0;
    snprintf(cur.desc, sizeof cur.desc, "dgeqrf m=%d n=%d lda=%d", m, n, c->lda);
    double *a = in_mat(c->b[0], 1, F_PERM, m, n, c->lda), *sa = dup(0, a, mbytes(1, m, n, c->lda));
    double *tau = out_buf(c->b[1], sizeof(double) * (size_t)(k + 1)), *rtau = scratch(1, sizeof(double) * (k + 1));
    x_geqrf(0, c, a, tau, &info);
    x_geqrf(1, c, sa, rtau, &rinfo);
    plant(1, a, k, n, c->lda);
    cmp_info(info, rinfo);
    double s = amax(1, sa, k, n, c->lda) + DBL_MIN, e = 0;
    long at = -1;
    for (int i = 0; i < k; i++) {
        double f = (a[(size_t)i * c->lda + i] < 0) == (sa[(size_t)i * c->lda + i] < 0) ? 1 : -1;
        flips += f < 0;
        for (int j = i; j < n; j++) {
            double d = fabs(f * a[(size_t)j * c->lda + i] - sa[(size_t)j * c->lda + i]);
            if (!(d <= e))
                e = d, at = (long)j * c->lda + i;
        }
    }
    expect("R", e, tol_lapack(1, m > n ? m : n) * s, at);
    events[EV_qr_signs] += flips > 0;
    if (!flips) {
        cmp_mat("A", 1, a, sa, m, n, c->lda, s, tol_lapack(1, m > n ? m : n));
        cmp_mat("tau", 1, tau, rtau, k, 1, k, 2, tol_lapack(1, m > n ? m : n));
    }
    produced(c->b[0], 1, m, n, c->lda, F_GEN);
}

/* max |X^T X - I| of an r x c matrix's columns (trans 'T') or rows (trans 'N': X X^T), by the reference. */
static double orth_err(const double *x, int r, int c, int ld, char trans)
{
    int q = trans == 'T' ? c : r, kk = trans == 'T' ? r : c;
    double one = 1, zero = 0, e = 0, *g = scratch(6, sizeof(double) * (size_t)q * q + 8);
    if (q == 0 || kk == 0)
        return 0;
    char ta = trans, tb = trans == 'T' ? 'N' : 'T';
    ref.dgemm_(&ta, &tb, &q, &q, &kk, &one, x, &ld, x, &ld, &zero, g, &q, 1, 1);
    for (int j = 0; j < q; j++)
        for (int i = 0; i < q; i++) {
            double d = fabs(g[(size_t)j * q + i] - (i == j));
            e = d > e || isnan(d) ? d : e;
        }
    return e;
}

/* max |A0 - U diag(s) VT| (A0 m x n, U m x k, VT k x n) relative to s's largest, by the reference. */
static double svd_resid(double *a0, int m, int n, int lda, const double *u, int ldu, const double *s,
                        const double *vt, int ldvt, int k)
{
    double *us = scratch(7, sizeof(double) * (size_t)m * k + 8), one = 1, mone = -1, e = 0;
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            us[(size_t)j * m + i] = u[(size_t)j * ldu + i] * s[j];
    if (m > 0 && n > 0 && k > 0)
        ref.dgemm_("N", "N", &m, &n, &k, &mone, us, &m, vt, &ldvt, &one, a0, &lda, 1, 1);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double d = fabs(a0[(size_t)j * lda + i]);
            e = d > e || isnan(d) ? d : e;
        }
    return e;
}

static void x_syevd(int which, call_t *c, double *a, double *w, int *info)
{
    double q;
    int qi, lw = -1, li = -1;
    if (!which)
        calls[R_dsyevd]++;
    REF(which, dsyevd_)(c->o + 1, c->o, &c->n, a, &c->lda, w, &q, &lw, &qi, &li, info, 1, 1);
    lw = lwork_of(q), li = qi + 1;
    double *wk = malloc(sizeof(double) * (size_t)lw);
    int *iw = malloc(sizeof(int) * (size_t)li);
    if (!which)
        calls[R_dsyevd]++;
    TIMED(*(which ? &ref_s : &shim_s),
          REF(which, dsyevd_)(c->o + 1, c->o, &c->n, a, &c->lda, w, wk, &lw, iw, &li, info, 1, 1));
    free(wk);
    free(iw);
}

/* syevd: the eigenvalues against the reference's; with vectors (jobz V), A Z - Z diag(w) and Z^T Z - I, since
 * vectors of close eigenvalues are not unique. */
static void r_syevd(call_t *c)
{
    int n = c->n, info = 0, rinfo = 0;
    snprintf(cur.desc, sizeof cur.desc, "dsyevd %c%c n=%d lda=%d", c->o[1], c->o[0], n, c->lda);
    double *a = in_mat(c->b[0], 1, F_SYM, n, n, c->lda), *a0 = dup(5, a, mbytes(1, n, n, c->lda));
    double *sa = dup(0, a, mbytes(1, n, n, c->lda)), *w = out_buf(c->b[1], sizeof(double) * (size_t)(n + 1));
    double *rw = scratch(1, sizeof(double) * (size_t)(n + 1));
    x_syevd(0, c, a, w, &info);
    x_syevd(1, c, sa, rw, &rinfo);
    plant(1, w, n, 1, n);
    cmp_info(info, rinfo);
    double s = amax(1, rw, n, 1, n) + DBL_MIN, tol = tol_lapack(1, n);
    cmp_mat("w", 1, w, rw, n, 1, n, s, tol);
    if (c->o[1] == 'V' && n > 0 && !info) {
        double one = 1, zero = 0, *az = scratch(2, sizeof(double) * (size_t)n * n), e = 0;
        ref.dgemm_("N", "N", &n, &n, &n, &one, a0, &c->lda, a, &c->lda, &zero, az, &n, 1, 1);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double d = fabs(az[(size_t)j * n + i] - a[(size_t)j * c->lda + i] * w[j]);
                e = d > e || isnan(d) ? d : e;
            }
        expect("A Z - Z diag(w)", e, tol * s, -1);
        expect("Z^T Z - I", orth_err(a, n, n, c->lda, 'T'), tol, -1);
        produced(c->b[0], 1, n, n, c->lda, F_GEN);
    } else
        pool[c->b[0]].form = F_NONE; /* (LAPACK leaves A destroyed; gpushim leaves it as it was) */
    produced(c->b[1], 1, n, 1, n, F_GEN);
}

/* gesvd (variant 0: jobu = jobvt, N or S, or one of each) and gesdd (1: jobz N or S): A = U diag(s) VT. */
static void x_svd(int which, call_t *c, double *a, double *s, double *u, double *vt, int *info)
{
    int mn = c->m < c->n ? c->m : c->n, lw = -1, *iw = malloc(sizeof(int) * (size_t)(8 * mn + 1));
    double q;
    int r = c->variant ? R_dgesdd : R_dgesvd;
    for (int pass = 0; pass < 2; pass++) {
        double *w = pass ? malloc(sizeof(double) * (size_t)lw) : &q;
        if (!which)
            calls[r]++;
        double t0 = now();
        if (c->variant)
            REF(which, dgesdd_)(c->o, &c->m, &c->n, a, &c->lda, s, u, &c->ldb, vt, &c->ldc, w, &lw, iw, info, 1);
        else
            REF(which, dgesvd_)(c->o, c->o + 1, &c->m, &c->n, a, &c->lda, s, u, &c->ldb, vt, &c->ldc, w, &lw, info,
                                1, 1);
        if (pass)
            *(which ? &ref_s : &shim_s) += now() - t0, free(w);
        else
            lw = lwork_of(q);
    }
    free(iw);
}

static void d_svd(call_t *c, int variant)
{
    d_fact(c, 0);
    c->variant = variant;
    c->o[0] = "NS"[rnd(2)], c->o[1] = variant || rnd(3) ? c->o[0] : "NS"[rnd(2)];
    int mn = c->m < c->n ? c->m : c->n;
    c->ldc = lead(mn);
}

static void r_svd(call_t *c)
{
    int m = c->m, n = c->n, k = m < n ? m : n, info = 0, rinfo = 0;
    bool wu = c->o[0] == 'S', wv = c->o[c->variant ? 0 : 1] == 'S';
    snprintf(cur.desc, sizeof cur.desc, "%s %.*s m=%d n=%d lda=%d ldu=%d ldvt=%d", c->variant ? "dgesdd" : "dgesvd",
             c->variant ? 1 : 2, c->o, m, n, c->lda, c->ldb, c->ldc);
    double *a = in_mat(c->b[0], 1, F_GEN, m, n, c->lda), *a0 = dup(5, a, mbytes(1, m, n, c->lda));
    double *sa = dup(0, a, mbytes(1, m, n, c->lda)), *s = out_buf(c->b[1], sizeof(double) * (size_t)(k + 1));
    double *u = out_buf(c->b[2], mbytes(1, m, k, c->ldb) + 8), *vt = out_buf(c->b[3], mbytes(1, k, n, c->ldc) + 8);
    double *rs = scratch(1, sizeof(double) * (size_t)(k + 1)), *ru = scratch(2, mbytes(1, m, k, c->ldb) + 8);
    double *rvt = scratch(3, mbytes(1, k, n, c->ldc) + 8);
    x_svd(0, c, a, s, u, vt, &info);
    x_svd(1, c, sa, rs, ru, rvt, &rinfo);
    plant(1, s, k, 1, k);
    cmp_info(info, rinfo);
    double sm = amax(1, rs, k, 1, k) + DBL_MIN, tol = tol_lapack(1, m > n ? m : n);
    cmp_mat("s", 1, s, rs, k, 1, k, sm, tol);
    if (!info && wu)
        expect("U^T U - I", orth_err(u, m, k, c->ldb, 'T'), tol, -1);
    if (!info && wv)
        expect("VT VT^T - I", orth_err(vt, k, n, c->ldc, 'N'), tol, -1);
    if (!info && wu && wv)
        expect("A - U diag(s) VT", svd_resid(a0, m, n, c->lda, u, c->ldb, s, vt, c->ldc, k), tol * sm, -1);
    pool[c->b[0]].form = F_NONE; /* (A is destroyed) */
    produced(c->b[1], 1, k, 1, k, F_GEN);
    pool[c->b[2]].form = pool[c->b[3]].form = F_NONE;
}

/* ---- FFTW ------------------------------------------------------------------------------------------------ */

/* The program's plans, kept for their buffers' lives: executed again (the shim keeps its cuFFT plan per
 * geometry) and with new arrays of the same alignment. */
enum { NPLAN = 16 };
static struct {
    void *plan;
    int prec, rank, n0, n1, sign, b_in, b_out;
    char kind;
    void *in, *out;
    long used;
} plans[NPLAN];

static void fft_destroy(int i)
{
    if (plans[i].prec)
        fftw_destroy_plan(plans[i].plan);
    else
        fftwf_destroy_plan(plans[i].plan);
    plans[i].plan = NULL;
}

static void fft_drop(const void *p)
{
    for (int i = 0; i < NPLAN; i++)
        if (plans[i].plan && p && (plans[i].in == p || plans[i].out == p))
            fft_destroy(i);
}

/* A plan (which 0: the program's FFTW, through the shim; 1: the reference's) of c's geometry on in, out:
 * prec 1 double, 0 single; kind 'c' c2c, 'r' r2c; rank 1 (m = 1) or 2; FFTW_ESTIMATE leaves the arrays alone. */
static void *fft_plan(int which, const call_t *c, void *in, void *out)
{
    unsigned f = FFTW_ESTIMATE;
    int s = c->inc[0];
    if (c->prec) {
        if (c->o[0] == 'r')
            return c->k == 1 ? REF(which, fftw_plan_dft_r2c_1d)(c->n, in, out, f)
                             : REF(which, fftw_plan_dft_r2c_2d)(c->m, c->n, in, out, f);
        return c->k == 1 ? REF(which, fftw_plan_dft_1d)(c->n, in, out, s, f)
                         : REF(which, fftw_plan_dft_2d)(c->m, c->n, in, out, s, f);
    }
    if (c->o[0] == 'r')
        return c->k == 1 ? REF(which, fftwf_plan_dft_r2c_1d)(c->n, in, out, f)
                         : REF(which, fftwf_plan_dft_r2c_2d)(c->m, c->n, in, out, f);
    return c->k == 1 ? REF(which, fftwf_plan_dft_1d)(c->n, in, out, s, f)
                     : REF(which, fftwf_plan_dft_2d)(c->m, c->n, in, out, s, f);
}

static void d_fft(call_t *c)
{
    c->prec = rnd(2), c->k = 1 + rnd(2);
    c->o[0] = "cr"[rnd(2)], c->o[1] = rnd(3) == 0 ? 'I' : 'O', c->o[2] = rnd(3) == 0 ? 'N' : 'E';
    c->inc[0] = rnd(2) ? FFTW_FORWARD : FFTW_BACKWARD;
    const int *r = c->big ? opt.fft_large : opt.fft_small;
    int e = r[0] + rnd(r[1] - r[0] + 1), e0 = c->k == 2 ? 1 + rnd(e - 1 > 0 ? e - 1 : 1) : 0;
    c->m = 1 << e0, c->n = 1 << (e - e0);
    if (chance(0.2)) /* a size of other radices */
        c->n = c->n / 4 * 3 + (rnd(2) ? 0 : 5 * (c->n >= 8));
    if (c->n < 2)
        c->n = 2;
    pick(c, 4);
}

/* The plan for c on buffers (in, out), made when none is kept. */
static int fft_find(const call_t *c, int bi, int bo, void *in, void *out)
{
    int free_i = -1, lru = 0;
    for (int i = 0; i < NPLAN; i++) {
        if (plans[i].plan && plans[i].prec == c->prec && plans[i].kind == c->o[0] && plans[i].rank == c->k &&
            plans[i].n0 == c->m && plans[i].n1 == c->n && plans[i].sign == c->inc[0] && plans[i].in == in &&
            plans[i].out == out)
            return i;
        if (!plans[i].plan)
            free_i = i;
        else if (plans[i].used < plans[lru].used)
            lru = i;
    }
    int i = free_i >= 0 ? free_i : lru;
    if (plans[i].plan)
        fft_destroy(i);
    plans[i].plan = fft_plan(0, c, in, out);
    if (!plans[i].plan)
        die("FFTW made no plan");
    events[EV_fft_plans]++;
    plans[i].prec = c->prec, plans[i].kind = c->o[0], plans[i].rank = c->k, plans[i].n0 = c->m, plans[i].n1 = c->n;
    plans[i].sign = c->inc[0], plans[i].b_in = bi, plans[i].b_out = bo, plans[i].in = in, plans[i].out = out;
    return i;
}

/* FFTW's alignment of an array, as its new-array executes require it equal to the plan's arrays'. */
static int align(int prec, void *p) { return prec ? fftw_alignment_of(p) : fftwf_alignment_of(p); }

/* A kept plan of c's geometry on other buffers than bi and bo, with arrays of the same alignment, or -1. */
static int fft_other(const call_t *c, void *in, void *out)
{
    for (int i = 0; i < NPLAN; i++)
        if (plans[i].plan && plans[i].prec == c->prec && plans[i].kind == c->o[0] && plans[i].rank == c->k &&
            plans[i].n0 == c->m && plans[i].n1 == c->n && plans[i].sign == c->inc[0] && plans[i].in != in &&
            plans[i].out != out && plans[i].in != out && plans[i].out != in &&
            (plans[i].in == plans[i].out) == (in == out) &&
            align(c->prec, plans[i].in) == align(c->prec, in) && align(c->prec, plans[i].out) == align(c->prec, out))
            return i;
    return -1;
}

/* Executes plan i on (in, out): its own arrays (fftw_execute) or new ones (fftw_execute_dft and _r2c). */
static void fft_exec(int i, bool own, void *in, void *out)
{
    static const int r[2][3] = {{R_fftwf_execute, R_fftwf_execute_dft, R_fftwf_execute_dft_r2c},
                                {R_fftw_execute, R_fftw_execute_dft, R_fftw_execute_dft_r2c}};
    calls[r[plans[i].prec][own ? 0 : plans[i].kind == 'c' ? 1 : 2]]++;
    double t0 = now();
    if (plans[i].prec && own)
        fftw_execute(plans[i].plan);
    else if (plans[i].prec)
        plans[i].kind == 'c' ? fftw_execute_dft(plans[i].plan, in, out) : fftw_execute_dft_r2c(plans[i].plan, in, out);
    else if (own)
        fftwf_execute(plans[i].plan);
    else
        plans[i].kind == 'c' ? fftwf_execute_dft(plans[i].plan, in, out)
                             : fftwf_execute_dft_r2c(plans[i].plan, in, out);
    shim_s += now() - t0;
}

/* The relative L2 distance of x from y over n complex elements of precision p (2 c, 3 z), NaN against NaN
 * counting as equal, against anything else as infinitely far; *at gets the farthest element. */
static double l2rel(int p, const void *x, const void *y, size_t n, long *at)
{
    double d = 0, s = 0, big = -1;
    for (size_t i = 0; i < n * 2; i++) {
        double a = rget(p, x, i), b = rget(p, y, i), e = isnan(a) && isnan(b) ? 0 : (a - b) * (a - b);
        d += isfinite(e) ? e : INFINITY, s += isfinite(b) ? b * b : 0;
        if (!(e <= big))
            big = isfinite(e) ? e : INFINITY, *at = (long)(i / 2);
    }
    return sqrt(d) / (sqrt(s) + DBL_MIN);
}

static void r_fft(call_t *c)
{
    bool r2c = c->o[0] == 'r', inplace = c->o[1] == 'I';
    int cp = c->prec ? 3 : 2, rp = c->prec ? 1 : 0, nc = r2c ? c->n / 2 + 1 : c->n; /* complex per row */
    size_t cout = (size_t)c->m * nc, rin = r2c ? (size_t)c->m * (inplace ? 2 * nc : c->n) : 2 * cout;
    int ip = r2c ? rp : cp, bi = c->b[0], bo = inplace ? c->b[0] : c->b[1];
    snprintf(cur.desc, sizeof cur.desc, "%s %s %dx%d %s %s%s", c->prec ? "fftw" : "fftwf", r2c ? "r2c" : "c2c",
             c->m, c->n, inplace ? "in place" : "out of place", c->inc[0] < 0 ? "forward" : "backward",
             c->o[2] == 'N' ? ", new arrays" : "");
    size_t ob = cout * 2 * RSZ[cp], ib = inplace && ob > rin * RSZ[ip] ? ob : rin * RSZ[ip];
    int b2 = c->b[2], b3 = inplace ? b2 : c->b[3];
    if (c->o[2] == 'N') /* (another pair of buffers for a plan that executes on new arrays) */
        ensure(b2, ib), ensure(b3, inplace ? ib : ob);
    void *in = in_mat(bi, ip, F_GEN, (int)(rin / RPE[ip]), 1, (int)(rin / RPE[ip]));
    void *out = inplace ? ensure(bi, ib) : out_buf(bo, ob);
    in = pool[bi].p; /* (ensure may have moved it) */
    int i = c->o[2] == 'N' ? fft_other(c, in, out) : -1;
    char *in2 = pool[b2].p, *out2 = pool[b3].p;
    if (i < 0 && c->o[2] == 'N' && align(c->prec, in2) == align(c->prec, in) &&
        align(c->prec, out2) == align(c->prec, out))
        i = fft_find(c, b2, b3, in2, out2);
    bool own = i < 0 || plans[i].in == in;
    if (own)
        i = fft_find(c, bi, bo, in, out);
    plans[i].used = cur.n;
    void *sin = dup(0, in, rin * RSZ[ip]), *sout = inplace ? sin : scratch(1, ob);
    void *rplan = fft_plan(1, c, sin, sout);
    if (!rplan)
        die("the reference FFTW made no plan");
    fft_exec(i, own, in, out);
    TIMED(ref_s, c->prec ? ref.fftw_execute(rplan) : ref.fftwf_execute(rplan));
    c->prec ? ref.fftw_destroy_plan(rplan) : ref.fftwf_destroy_plan(rplan);
    plant(cp, out, (int)cout, 1, (int)cout);
    long at = -1;
    double e = l2rel(cp, out, sout, cout, &at);
    expect("out", e, tol_fft(cp, (double)c->m * c->n), at);
    produced(bo, cp, (int)cout, 1, (int)cout, F_GEN);
}

/* ---- the generators, memory figures, and the loop -------------------------------------------------------- */

enum { G_GEMM, G_SYRK, G_HERK, G_TRSM, G_TRMM, G_SYMM, G_GEMV, G_DGESV, G_ZGESV, G_LU, G_POTRF, G_GEQRF, G_SYEVD,
       G_GESVD, G_GESDD, G_FFT, NG };
/* Each generator's weight in the draw (gemm's four precisions and FFTW's eight kinds of execute weigh more), and
 * its name for --only, which sets the others' weights to 0. */
static int weight[NG] = {24, 5, 5, 5, 5, 5, 8, 4, 3, 5, 4, 4, 3, 2, 3, 20};
static const char *const gname[NG] = {"gemm", "dsyrk", "zherk", "dtrsm", "dtrmm", "dsymm", "dgemv", "dgesv", "zgesv",
                                      "lu", "dpotrf", "dgeqrf", "dsyevd", "dgesvd", "dgesdd", "fft"};
/* Each generator's share of the large range (the slowest routines on the CPU reference get less). */
static const double reach[NG] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, .75, .4, .6, 1};

static void draw(int g, call_t *c)
{
    memset(c, 0, sizeof *c);
    c->gen = g;
    c->big = big_allowed && chance(opt.large_share);
    int hi = opt.hi;
    opt.hi = opt.lo + (int)((opt.hi - opt.lo) * reach[g]);
    switch (g) {
    case G_GEMM: d_gemm(c); break;
    case G_SYRK: d_syrk(c, 1); break;
    case G_HERK: d_syrk(c, 3); break;
    case G_TRSM: d_trsm(c, 0); break;
    case G_TRMM: d_trsm(c, 1); break;
    case G_SYMM: d_symm(c); break;
    case G_GEMV: d_gemv(c); break;
    case G_DGESV: d_gesv(c, 1); break;
    case G_ZGESV: d_gesv(c, 3); break;
    case G_LU: d_lu(c); break;
    case G_POTRF: case G_GEQRF: case G_SYEVD: d_fact(c, g != G_GEQRF); break;
    case G_GESVD: d_svd(c, 0); break;
    case G_GESDD: d_svd(c, 1); break;
    default: d_fft(c);
    }
    opt.hi = hi;
}

/* The next call after c: c again (a program's loop), half the time with one operand after the first on
 * another buffer (A X over many X); or (first: there is no c yet) a new one of a generator drawn by weight. */
static void next_call(call_t *c, bool first)
{
    c->again = !first && chance(opt.repeat);
    if (c->again) {
        events[EV_repeat]++;
        if (c->nb > 1 && chance(0.5)) {
            int i = 1 + rnd(c->nb - 1), b;
            do
                b = rnd(NBUF);
            while (operand(c, b));
            c->b[i] = b;
        }
        return;
    }
    int wsum = 0, g = 0;
    for (int i = 0; i < NG; i++)
        wsum += weight[i];
    for (int w = rnd(wsum); w >= weight[g];)
        w -= weight[g++];
    draw(g, c);
}

static void run(call_t *c)
{
    switch (c->gen) {
    case G_GEMM: r_gemm(c); break;
    case G_SYRK: case G_HERK: r_syrk(c); break;
    case G_TRSM: case G_TRMM: r_trsm(c); break;
    case G_SYMM: r_symm(c); break;
    case G_GEMV: r_gemv(c); break;
    case G_DGESV: case G_ZGESV: r_gesv(c); break;
    case G_LU: r_lu(c); break;
    case G_POTRF: r_potrf(c); break;
    case G_GEQRF: r_geqrf(c); break;
    case G_SYEVD: r_syevd(c); break;
    case G_GESVD: case G_GESDD: r_svd(c); break;
    default: r_fft(c);
    }
}

static long rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb < 0 ? -1 : kb / 1024;
}

static int find_cudart(struct dl_phdr_info *info, size_t size, void *path)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "/libcudart.so")) {
        snprintf(path, 4096, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Device memory in use (total less free, cudaMemGetInfo of the CUDA runtime the shim loaded), in MB, or -1 when
 * no runtime is loaded yet or it answers with an error: never loads or starts CUDA itself. */
static long dev_mb(void)
{
    static int (*getinfo)(size_t *, size_t *);
    if (!getinfo) {
        char path[4096] = "";
        dl_iterate_phdr(find_cudart, path);
        void *h = path[0] ? dlopen(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
        if (h)
            getinfo = (int (*)(size_t *, size_t *))dlsym(h, "cudaMemGetInfo");
    }
    size_t free_b = 0, total = 0;
    if (!getinfo || getinfo(&free_b, &total) != 0)
        return -1;
    return (long)((total - free_b) >> 20);
}

static void mb(char *out, size_t n, long v)
{
    if (v < 0)
        snprintf(out, n, "n/a");
    else
        snprintf(out, n, "%ld", v);
}

/* ---- the reference's namespace --------------------------------------------------------------------------- */

static int count_objects(struct link_map *l, bool *shim)
{
    int n = 0;
    while (l && l->l_prev)
        l = l->l_prev;
    for (; l; l = l->l_next, n++)
        if (strstr(l->l_name, "/libgpushim") || strncmp(l->l_name, "libgpushim", 10) == 0) /* (not its folder) */
            *shim = true, fprintf(stderr, "soak: the reference's namespace holds %s\n", l->l_name);
    return n;
}

/* OpenBLAS and FFTW (both precisions) opened again in one new link namespace, which LD_PRELOAD does not reach,
 * every function the reference calls resolved there; then checked: no object of that namespace is gpushim,
 * and each function is another than the program's own (the shim's under LD_PRELOAD, else the first copy's). */
static void load_reference(void)
{
    static const char *const libs[] = {"libopenblas.so.0", "libfftw3.so.3", "libfftw3f.so.3"};
    void *h[3];
    Lmid_t lm = LM_ID_NEWLM;
    for (int i = 0; i < 3; i++) {
        if (!(h[i] = dlmopen(lm, libs[i], RTLD_NOW | RTLD_LOCAL))) {
            fprintf(stderr, "soak: dlmopen %s: %s\n", libs[i], dlerror());
            exit(2);
        }
        if (i == 0 && dlinfo(h[0], RTLD_DI_LMID, &lm) != 0)
            die("dlinfo of the reference's namespace");
    }
    bool missing = false, same = false;
    void *f;
#define X(fn)                                                                                                    \
    f = dlsym(h[0], #fn);                                                                                        \
    f = f ? f : dlsym(h[1], #fn);                                                                                \
    f = f ? f : dlsym(h[2], #fn);                                                                                \
    missing |= !f;                                                                                               \
    if (f && (f == (void *)&fn || f == dlsym(RTLD_DEFAULT, #fn))) {                                              \
        fprintf(stderr, "soak: the reference's %s is the program's (%p)\n", #fn, f);                            \
        same = true;                                                                                             \
    }                                                                                                            \
    memcpy(&ref.fn, &f, sizeof f);
    REF_BLAS(X) REF_FFTW(X)
#undef X
    struct link_map *l;
    bool shim = false;
    if (missing || dlinfo(h[0], RTLD_DI_LINKMAP, &l) != 0)
        die("the reference lacks a function");
    int n = count_objects(l, &shim);
    if (shim || same)
        die("the reference is not a separate copy: it would go through the shim");
    Dl_info di;
    dladdr((void *)ref.dgemm_, &di);
    printf("reference: namespace %ld of %d objects, none of them gpushim; its dgemm_ in %s at %p, the program's at"
           " %p\n", (long)lm, n, di.dli_fname, (void *)ref.dgemm_, dlsym(RTLD_DEFAULT, "dgemm_"));
}

/* ---- main ------------------------------------------------------------------------------------------------ */

static int usage(void)
{
    fprintf(stderr, "usage: soak SECONDS SEED [--small N] [--large LO:HI] [--large-share P] [--max-flops F]"
                     " [--fft-small LO:HI] [--fft-large LO:HI] [--progress S] [--repeat P] [--calls N]\n"
                    "            [--only GENERATOR,...]\n");
    return 2;
}

static bool range(const char *s, int *lo, int *hi) { return sscanf(s, "%d:%d", lo, hi) == 2 && *lo > 0 && *hi >= *lo; }

/* --only NAME,...: the other generators' weights set to 0; false when a name is not one. */
static bool only(const char *list)
{
    int keep[NG] = {0};
    for (const char *p = list; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        int g = 0;
        while (g < NG && (strlen(gname[g]) != n || strncmp(gname[g], p, n)))
            g++;
        if (g == NG)
            return false;
        keep[g] = 1, p += n;
    }
    for (int g = 0; g < NG; g++)
        weight[g] *= keep[g];
    return true;
}

static int options(int argc, char **argv)
{
    for (int i = 3; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "--small") && (opt.small = atoi(v)) > 0)
            continue;
        if (!strcmp(a, "--large") && range(v, &opt.lo, &opt.hi))
            continue;
        if (!strcmp(a, "--large-share") && (opt.large_share = atof(v)) >= 0)
            continue;
        if (!strcmp(a, "--max-flops") && (opt.max_flops = atof(v)) > 0)
            continue;
        if (!strcmp(a, "--fft-small") && range(v, &opt.fft_small[0], &opt.fft_small[1]))
            continue;
        if (!strcmp(a, "--fft-large") && range(v, &opt.fft_large[0], &opt.fft_large[1]))
            continue;
        if (!strcmp(a, "--progress") && (opt.progress = atof(v)) > 0)
            continue;
        if (!strcmp(a, "--calls") && (opt.calls = atol(v)) > 0)
            continue;
        if (!strcmp(a, "--repeat") && (opt.repeat = atof(v)) >= 0 && opt.repeat <= 1)
            continue;
        if (!strcmp(a, "--only") && only(v))
            continue;
        return -1;
    }
    return 0;
}

static long total_calls(void)
{
    long n = 0;
    for (int r = 0; r < NR; r++)
        n += calls[r];
    return n;
}

static void progress(double t)
{
    char d[32];
    mb(d, sizeof d, dev_mb());
    fprintf(stderr, "soak: %.0f s, %ld calls, %ld mismatches, RSS %ld MB, device %s MB\n", t, total_calls(),
            mismatches, rss_mb(), d);
}

static void summary(uint64_t seed, double t, long rss0, long rss1, long dev0, long dev1)
{
    for (int r = 0; r < NR; r++)
        printf("calls %s %ld\n", rname[r], calls[r]);
    for (int e = 0; e < NEV; e++)
        printf("event %s %ld\n", evname[e], events[e]);
    for (long i = 0; i < mismatches && i < MAX_SHOWN; i++)
        printf("mismatch %s\n", shown[i]);
    char d0[32], d1[32];
    mb(d0, sizeof d0, dev0);
    mb(d1, sizeof d1, dev1);
    printf("soak seed=%llu seconds=%.1f calls=%ld generated=%ld mismatches=%ld planted=%ld worst_ratio=%.3g"
           " shim_s=%.1f ref_s=%.1f rss_start_mb=%ld rss_end_mb=%ld dev_start_mb=%s dev_end_mb=%s\n",
           (unsigned long long)seed, t, total_calls(), cur.n, mismatches, planted, worst_ratio, shim_s, ref_s, rss0,
           rss1, d0, d1);
}

int main(int argc, char **argv)
{
    if (argc < 3 || options(argc, argv) < 0)
        return usage();
    double seconds = atof(argv[1]);
    uint64_t seed = strtoull(argv[2], NULL, 0);
    rng_state = seed * 0x2545F4914F6CDD1Dull + 1;
    const char *pl = getenv("SOAK_PLANT");
    opt.plant = pl ? atol(pl) : 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    load_reference();
    call_t c;
    long rss0 = rss_mb(), dev0 = -1;
    double t0 = now(), t = 0, next = opt.progress, big_s = 0;
    while ((t = now() - t0) < seconds && (!opt.calls || cur.n < opt.calls)) {
        if (t >= next)
            progress(t), next += opt.progress;
        /* (no big call when less time is left than twice the longest one so far took, so that a piece ends near
         * its time, and not after a long stretch of small calls only) */
        big_allowed = seconds - t > 2 * big_s + 1;
        if (chance(0.08))
            memory_event();
        next_call(&c, cur.n == 0);
        cur.n++, cur.bad = false;
        cur.plant = opt.plant > 0 && cur.n % opt.plant == 0;
        double t1 = now();
        run(&c);
        if (c.big && now() - t1 > big_s)
            big_s = now() - t1;
        if (dev0 < 0)
            dev0 = dev_mb(); /* (the first figure once the shim has brought CUDA up) */
    }
    progress(t);
    summary(seed, t, rss0, rss_mb(), dev0, dev_mb());
    return mismatches ? 1 : 0;
}

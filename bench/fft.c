/* The C side of the FFT benchmark (bench/fft.sh): plans and times FFTW3 transforms through FFTW's C API, double
 * (fftw_) and single (fftwf_) precision, and prints one JSON line per case: the time of whole executes as a
 * user times them, and a check of the result (Parseval's identity; sampled outputs against the reference that
 * the first mode saved).  Whatever answers fftw_* is the dynamic linker's choice: the system's FFTW, or cuFFTW
 * or gpushim preloaded in front of it.  FFTW's header is not needed: the few prototypes are declared below.
 *
 * usage: fft [OPTION | CASE]...   each option applies to the cases after it
 *   --mode NAME        label of the output lines          --prec d|s|ds   precisions to run each case in [ds]
 *   --alloc malloc|fftw   arrays from malloc or the precision's fftw_malloc [malloc]
 *   --repeat R         timed runs after one warm-up [3]    --threads N   FFTW's threads [online CPUs]
 *   --plan estimate|measure   [estimate]   --timelimit S   FFTW's planning time limit (measure) [none]
 *   --flags fftw|cufftw   whose values the planner flags take (cuFFTW's differ) [fftw]
 *   --wisdom PREFIX    import PREFIX-d.wisdom and PREFIX-s.wisdom, export them after every case
 *   --ref DIR          sampled outputs: checked against DIR/CASE-P.ref, or written with --save-ref
 *   --small-s S        seconds per timed batch of a small case [0.1]   --probe   small cases: 3 executes, no timing
 *   --log PATH         recorded in the lines (the gpushim log of this process, for the report)
 * CASE: c2c:D  r2c:D  c2r:D (D = N, NxN or NxNxN, out of place, forward but c2r) | many:HxN (H 1-D c2c of N,
 *   plan_many_dft) | tr:D (c2c whose output has its dimensions in reverse order, a transposing guru64
 *   plan) | small:D (c2c executed back to back, time per execute) | step:D:S (S steps of forward c2c,
 *   a pointwise multiply on the CPU and backward c2c, after one warm-up step; time per step). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pool.h"
#include "settle.h"

/* ---- FFTW's API, both precisions: plans are opaque pointers, complex arrays pairs of reals ---------------- */
typedef void *plan_t;
typedef struct {
    ptrdiff_t n, is, os;
} iodim64_t; /* fftw_iodim64 */
#define FFTW_API(P)                                                                                           \
    extern int P##init_threads(void);                                                                         \
    extern void P##plan_with_nthreads(int);                                                                   \
    extern void P##set_timelimit(double);                                                                     \
    extern int P##import_wisdom_from_filename(const char *);                                                  \
    extern int P##export_wisdom_to_filename(const char *);                                                    \
    extern plan_t P##plan_dft(int, const int *, void *, void *, int, unsigned);                               \
    extern plan_t P##plan_dft_r2c(int, const int *, void *, void *, unsigned);                                \
    extern plan_t P##plan_dft_c2r(int, const int *, void *, void *, unsigned);                                \
    extern plan_t P##plan_many_dft(int, const int *, int, void *, const int *, int, int, void *, const int *, \
                                   int, int, int, unsigned);                                                  \
    extern plan_t P##plan_guru64_dft(int, const iodim64_t *, int, const iodim64_t *, void *, void *, int,      \
                                     unsigned);                                                               \
    extern void P##execute(plan_t);                                                                           \
    extern void P##destroy_plan(plan_t);                                                                      \
    extern void *P##malloc(size_t);                                                                           \
    extern void P##free(void *);
FFTW_API(fftw_)
FFTW_API(fftwf_)
extern const char fftw_version[];

typedef struct {
    char code; /* 'd' or 's' */
    int single;
    int (*init_threads)(void);
    void (*plan_with_nthreads)(int);
    void (*set_timelimit)(double);
    int (*import_wisdom)(const char *);
    int (*export_wisdom)(const char *);
    plan_t (*plan_dft)(int, const int *, void *, void *, int, unsigned);
    plan_t (*plan_r2c)(int, const int *, void *, void *, unsigned);
    plan_t (*plan_c2r)(int, const int *, void *, void *, unsigned);
    plan_t (*plan_many)(int, const int *, int, void *, const int *, int, int, void *, const int *, int, int, int,
                        unsigned);
    plan_t (*plan_guru64)(int, const iodim64_t *, int, const iodim64_t *, void *, void *, int, unsigned);
    void (*execute)(plan_t);
    void (*destroy)(plan_t);
    void *(*alloc)(size_t);
    void (*release)(void *);
} api_t;

#define API_OF(P, c, s)                                                                                        \
    {c, s, P##init_threads, P##plan_with_nthreads, P##set_timelimit, P##import_wisdom_from_filename,           \
     P##export_wisdom_to_filename, P##plan_dft, P##plan_dft_r2c, P##plan_dft_c2r, P##plan_many_dft,           \
     P##plan_guru64_dft, P##execute, P##destroy_plan, P##malloc, P##free}
static const api_t apis[2] = {API_OF(fftw_, 'd', 0), API_OF(fftwf_, 's', 1)};

/* Planner flags: FFTW's own values (fftw3.h), and cuFFTW's (cufftw.h), which differ. */
enum { FFTW_FWD = -1, FFTW_BWD = 1 };
enum { FFTW_MEASURE_ = 0, FFTW_ESTIMATE_ = 1u << 6, CUFFTW_ESTIMATE_ = 0x01, CUFFTW_MEASURE_ = 0x02 };

/* ---- what to run --------------------------------------------------------------------------------------- */
enum { K_C2C, K_R2C, K_C2R, K_MANY, K_SMALL, K_STEP, K_TR };
static const char *const kind_names[] = {"c2c", "r2c", "c2r", "many", "small", "step", "tr"};

typedef struct {
    int kind, rank, n[3], howmany, steps;
    const char *text; /* as given */
} case_t;

typedef struct {
    const char *mode, *wisdom, *ref, *log;
    char precs[3];
    int use_fftw_malloc, repeat, threads, measure, cufftw_flags, save_ref, probe;
    double timelimit, small_s;
} ctx_t;

enum { SAMPLES = 4096 }; /* outputs sampled for the reference */

static double get(const void *x, size_t i, int single)
{
    return single ? (double)((const float *)x)[i] : ((const double *)x)[i];
}

static void put(void *x, size_t i, int single, double v)
{
    if (single)
        ((float *)x)[i] = (float)v;
    else
        ((double *)x)[i] = v;
}

/* ---- checks -------------------------------------------------------------------------------------------- */

/* Sum of squares of count reals from x + first, in blocks so that the rounding stays small at 2^28 terms. */
static long double sumsq(const void *x, size_t first, size_t count, int single)
{
    long double total = 0;
    for (size_t b = first; b < first + count; b += 4096) {
        size_t e = b + 4096 < first + count ? b + 4096 : first + count;
        double s = 0;
        if (single)
            for (size_t i = b; i < e; i++)
                s += (double)((const float *)x)[i] * (double)((const float *)x)[i];
        else
            for (size_t i = b; i < e; i++)
                s += ((const double *)x)[i] * ((const double *)x)[i];
        total += s;
    }
    return total;
}

/* Energy of the full spectrum that a half one (rows of nl / 2 + 1 complex values) stands for: every element
 * counts twice but the first of a row and, for even nl, the last, which have no mirror image. */
static long double energy_half(const void *x, size_t rows, int nl, int single)
{
    size_t h = (size_t)nl / 2 + 1;
    long double e = 2 * sumsq(x, 0, 2 * rows * h, single);
    for (size_t r = 0; r < rows; r++) {
        e -= sumsq(x, 2 * r * h, 2, single);
        if (nl % 2 == 0 && h > 1)
            e -= sumsq(x, 2 * (r * h + h - 1), 2, single);
    }
    return e;
}

/* Makes a half spectrum the r2c output of a real array: the planes whose last index is 0 or nl / 2 (even nl)
 * become Hermitian, X[k] = conj(X[-k]), as c2r requires (other data gives each library its own answer). */
static void make_hermitian(void *x, const case_t *c, int single)
{
    int nl = c->n[c->rank - 1], n0 = c->rank == 3 ? c->n[0] : 1, n1 = c->rank >= 2 ? c->n[c->rank - 2] : 1;
    size_t h = (size_t)nl / 2 + 1;
    int planes[2] = {0, nl / 2}, np = nl % 2 == 0 && nl >= 2 ? 2 : 1;
    for (int q = 0; q < np; q++)
        for (int k0 = 0; k0 < n0; k0++)
            for (int k1 = 0; k1 < n1; k1++) {
                size_t i = ((size_t)k0 * n1 + k1) * h + planes[q];
                size_t j = ((size_t)((n0 - k0) % n0) * n1 + (n1 - k1) % n1) * h + planes[q];
                if (i > j)
                    continue;
                double re = (get(x, 2 * i, single) + get(x, 2 * j, single)) * 0.5;
                double im = (get(x, 2 * i + 1, single) - get(x, 2 * j + 1, single)) * 0.5;
                put(x, 2 * i, single, re), put(x, 2 * i + 1, single, im);
                put(x, 2 * j, single, re), put(x, 2 * j + 1, single, -im);
            }
}

/* The outputs sampled for the reference: all of them up to SAMPLES, else SAMPLES spread over the array. */
static size_t sample_count(size_t m)
{
    return m < SAMPLES ? m : SAMPLES;
}

static size_t sample_index(size_t j, size_t m)
{
    return m <= SAMPLES ? j : (j * 1000003u + 7u) % m;
}

/* Saves or checks the sampled output y (m elements, complex or real): the relative 2-norm error against the
 * reference (NAN when y has one), or -1 when there is none (saved now, or absent). */
static double check_ref(const ctx_t *cx, const char *id, const void *y, size_t m, int cplx, int single)
{
    size_t k = sample_count(m);
    double s[2 * SAMPLES], r[2 * SAMPLES];
    for (size_t j = 0; j < k; j++) {
        size_t i = sample_index(j, m);
        s[2 * j] = get(y, cplx ? 2 * i : i, single);
        s[2 * j + 1] = cplx ? get(y, 2 * i + 1, single) : 0.0;
    }
    if (!cx->ref)
        return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.ref", cx->ref, id);
    FILE *f = fopen(path, cx->save_ref ? "wb" : "rb");
    if (!f)
        return -1;
    size_t got = cx->save_ref ? fwrite(s, sizeof(double), 2 * k, f) : fread(r, sizeof(double), 2 * k, f);
    fclose(f);
    if (cx->save_ref || got != 2 * k)
        return -1;
    double num = 0, den = 0;
    for (size_t j = 0; j < 2 * k; j++)
        num += (s[j] - r[j]) * (s[j] - r[j]), den += r[j] * r[j];
    return sqrt(num / (den > 0 ? den : 1));
}

/* ---- the pointwise multiply of the time-stepping loop, on every thread ----------------------------------- */
typedef struct {
    void *b;
    const double *k;
    size_t lo, hi;
    int single;
} mul_t;

static void *mul_part(void *arg)
{
    mul_t *m = arg;
    if (m->single) {
        float *b = m->b;
        for (size_t i = m->lo; i < m->hi; i++)
            b[2 * i] *= (float)m->k[i], b[2 * i + 1] *= (float)m->k[i];
    } else {
        double *b = m->b;
        for (size_t i = m->lo; i < m->hi; i++)
            b[2 * i] *= m->k[i], b[2 * i + 1] *= m->k[i];
    }
    return NULL;
}

/* b[i] *= k[i] for n complex b, split over nt threads (this one included; a part whose thread did not start
 * is done here). */
static void multiply(void *b, const double *k, size_t n, int single, int nt)
{
    enum { MAXT = 256 };
    pthread_t t[MAXT];
    mul_t part[MAXT];
    int started[MAXT];
    nt = nt < 1 ? 1 : nt > MAXT ? MAXT : nt;
    for (int i = 0; i < nt; i++) {
        part[i] = (mul_t){b, k, n * (size_t)i / (size_t)nt, n * (size_t)(i + 1) / (size_t)nt, single};
        started[i] = i > 0 && pthread_create(&t[i], NULL, mul_part, &part[i]) == 0;
    }
    for (int i = 0; i < nt; i++)
        if (!started[i])
            mul_part(&part[i]);
    for (int i = 1; i < nt; i++)
        if (started[i])
            pthread_join(t[i], NULL);
}

/* ---- one case ------------------------------------------------------------------------------------------ */
typedef struct {
    size_t points;      /* of one transform */
    size_t in_n, out_n; /* elements of each side */
    int in_cplx, out_cplx;
} geom_t;

static geom_t geom_of(const case_t *c)
{
    size_t pts = 1;
    for (int i = 0; i < c->rank; i++)
        pts *= (size_t)c->n[i];
    int nl = c->n[c->rank - 1];
    size_t half = pts / (size_t)nl * ((size_t)nl / 2 + 1);
    switch (c->kind) {
    case K_R2C:
        return (geom_t){pts, pts, half, 0, 1};
    case K_C2R:
        return (geom_t){pts, half, pts, 1, 0};
    case K_MANY:
        return (geom_t){pts, pts * (size_t)c->howmany, pts * (size_t)c->howmany, 1, 1};
    default:
        return (geom_t){pts, pts, pts, 1, 1};
    }
}

/* Reals in n elements of a side. */
static size_t reals(size_t n, int cplx)
{
    return cplx ? 2 * n : n;
}

static void *alloc(const ctx_t *cx, const api_t *a, size_t bytes)
{
    return cx->use_fftw_malloc ? a->alloc(bytes) : malloc(bytes);
}

static void release(const ctx_t *cx, const api_t *a, void *p)
{
    if (p)
        cx->use_fftw_malloc ? a->release(p) : free(p);
}

static unsigned plan_flags(const ctx_t *cx)
{
    if (cx->cufftw_flags)
        return cx->measure ? CUFFTW_MEASURE_ : CUFFTW_ESTIMATE_;
    return cx->measure ? FFTW_MEASURE_ : FFTW_ESTIMATE_;
}

/* The case's plan (sign for the c2c ones), after the process's planner settings. */
static plan_t make_plan(const ctx_t *cx, const api_t *a, const case_t *c, void *in, void *out, int sign)
{
    unsigned f = plan_flags(cx);
    a->plan_with_nthreads(cx->threads);
    if (!cx->cufftw_flags && cx->timelimit > 0)
        a->set_timelimit(cx->timelimit);
    switch (c->kind) {
    case K_R2C:
        return a->plan_r2c(c->rank, c->n, in, out, f);
    case K_C2R:
        return a->plan_c2r(c->rank, c->n, in, out, f);
    case K_MANY:
        return a->plan_many(1, c->n, c->howmany, in, NULL, 1, c->n[0], out, NULL, 1, c->n[0], FFTW_FWD, f);
    case K_TR: { /* the input row-major, the output row-major in the reverse order of the dimensions */
        iodim64_t d[3];
        ptrdiff_t is = 1, os = 1;
        for (int i = c->rank - 1; i >= 0; i--)
            d[i].n = c->n[i], d[i].is = is, is *= c->n[i];
        for (int i = 0; i < c->rank; i++)
            d[i].os = os, os *= c->n[i];
        return a->plan_guru64(c->rank, d, 0, NULL, in, out, sign, f);
    }
    default:
        return a->plan_dft(c->rank, c->n, in, out, sign, f);
    }
}

static void fill_input(const case_t *c, const geom_t *g, void *in, int single)
{
    pool_fill(in, reals(g->in_n, g->in_cplx), single, 0);
    if (c->kind == K_C2R)
        make_hermitian(in, c, single);
}

/* The energy of a side of the case, in the full spectrum's terms for a half one; by Parseval's identity the
 * output's is the input's times the points of one transform. */
static long double energy(const case_t *c, const void *x, size_t n, int cplx, int single)
{
    if (!cplx || (c->kind != K_R2C && c->kind != K_C2R))
        return sumsq(x, 0, reals(n, cplx), single);
    int nl = c->n[c->rank - 1];
    return energy_half(x, n / ((size_t)nl / 2 + 1), nl, single);
}

/* The case's name (the same in every mode and precision) and its reference file's. */
static void case_name(const case_t *c, char *buf, size_t len)
{
    int o = snprintf(buf, len, "%s-", kind_names[c->kind]);
    if (c->kind == K_MANY)
        o += snprintf(buf + o, len - (size_t)o, "%dx", c->howmany);
    for (int i = 0; i < c->rank; i++)
        o += snprintf(buf + o, len - (size_t)o, i ? "x%d" : "%d", c->n[i]);
    if (c->kind == K_STEP)
        snprintf(buf + o, len - (size_t)o, "-%d", c->steps);
}

static void ref_id(const case_t *c, const api_t *a, char *buf, size_t len)
{
    case_name(c, buf, len);
    size_t o = strlen(buf);
    snprintf(buf + o, len - o, "-%c", a->code);
}

/* ---- output -------------------------------------------------------------------------------------------- */
/* An error for the progress lines: "-" for -1 (none). */
static const char *show(char *buf, size_t len, double v)
{
    if (v == -1)
        return "-";
    snprintf(buf, len, "%.1e", v);
    return buf;
}

static void jnum(const char *name, double v)
{
    if (isfinite(v))
        printf(",\"%s\":%.6g", name, v);
    else
        printf(",\"%s\":null", name);
}

static void head(const ctx_t *cx, const api_t *a, const case_t *c)
{
    char name[256];
    case_name(c, name, sizeof name);
    printf("{\"mode\":\"%s\",\"case\":\"%s\",\"kind\":\"%s\",\"dims\":[", cx->mode, name, kind_names[c->kind]);
    for (int i = 0; i < c->rank; i++)
        printf(i ? ",%d" : "%d", c->n[i]);
    printf("],\"howmany\":%d,\"prec\":\"%c\",\"alloc\":\"%s\",\"plan\":\"%s\",\"threads\":%d", c->howmany,
           a->code, cx->use_fftw_malloc ? "fftw_malloc" : "malloc", cx->measure ? "measure" : "estimate",
           cx->threads);
    if (c->kind == K_STEP)
        printf(",\"steps\":%d", c->steps);
    if (cx->log)
        printf(",\"log\":\"%s\"", cx->log);
}

static void fail_line(const ctx_t *cx, const api_t *a, const case_t *c, const char *why)
{
    head(cx, a, c);
    printf(",\"error\":\"%s\"}\n", why);
    fflush(stdout);
    fprintf(stderr, "fft %s %c %s: %s\n", cx->mode, a->code, c->text, why);
}

/* The check's fields: err against the reference (-1: none, NAN: not a number), Parseval's relative error
 * (-1: not checked); "WRONG" when either is over the precision's tolerance. */
static int verdict(const ctx_t *cx, const api_t *a, double err, double pars)
{
    double tol = a->single ? 1e-4 : 1e-10;
    int bad = (err != -1 && !(err <= tol)) || (pars != -1 && !(pars <= tol));
    const char *ref = !cx->ref ? "none" : cx->save_ref ? "saved" : err == -1 ? "absent" : "checked";
    jnum("err", err == -1 ? NAN : err);
    jnum("parseval", pars == -1 ? NAN : pars);
    printf(",\"tol\":%.0e,\"ref\":\"%s\",\"check\":\"%s\"", tol, ref, bad ? "WRONG" : "ok");
    return bad;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Best and median of n times in seconds, as milliseconds. */
static void best_median(double *t, int n, double *best, double *median)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *best = 1e3 * t[0];
    *median = 1e3 * (n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]));
}

static double parseval(const case_t *c, const geom_t *g, long double ein, const void *out, int single)
{
    long double eout = energy(c, out, g->out_n, g->out_cplx, single), want = ein * (long double)g->points;
    return want > 0 ? (double)fabsl(eout - want) / (double)want : -1;
}

static double check_out(const ctx_t *cx, const api_t *a, const case_t *c, const geom_t *g, const void *out)
{
    char id[300];
    ref_id(c, a, id, sizeof id);
    return check_ref(cx, id, out, g->out_n, g->out_cplx, a->single);
}

/* ---- the three ways a case is timed --------------------------------------------------------------------- */
enum { MAX_REPEAT = 100 };

typedef struct {
    geom_t g;
    void *in, *out;
    plan_t plan;
    double plan_ms;
    long double ein; /* the input's energy, for Parseval's identity */
} setup_t;

static void finish(const ctx_t *cx, const api_t *a, setup_t *s)
{
    if (s->plan)
        a->destroy(s->plan);
    release(cx, a, s->in);
    release(cx, a, s->out);
}

/* Arrays and the plan of a one-plan case, the input written after planning (measure overwrites it) and its
 * energy taken; 0, or -1 after its error line, with nothing left to release. */
static int prepare(const ctx_t *cx, const api_t *a, const case_t *c, setup_t *s)
{
    s->g = geom_of(c);
    size_t es = a->single ? sizeof(float) : sizeof(double);
    s->in = alloc(cx, a, es * reals(s->g.in_n, s->g.in_cplx));
    s->out = alloc(cx, a, es * reals(s->g.out_n, s->g.out_cplx));
    s->plan = NULL;
    if (!s->in || !s->out) {
        fail_line(cx, a, c, "out of host memory");
        goto fail;
    }
    double t0 = now();
    s->plan = make_plan(cx, a, c, s->in, s->out, FFTW_FWD);
    s->plan_ms = 1e3 * (now() - t0);
    if (!s->plan) {
        fail_line(cx, a, c, "the planner returned NULL");
        goto fail;
    }
    fill_input(c, &s->g, s->in, a->single);
    s->ein = energy(c, s->in, s->g.in_n, s->g.in_cplx, a->single);
    return 0;
fail:
    finish(cx, a, s);
    return -1;
}

/* A large transform: one warm-up execute, then repeat timed ones, the input rewritten before each (untimed):
 * every execute reads input that the CPU has just written, as in a program that transforms new data. */
static int run_large(const ctx_t *cx, const api_t *a, const case_t *c)
{
    setup_t s;
    if (prepare(cx, a, c, &s))
        return 1;
    double t[MAX_REPEAT + 1], best, median;
    for (int r = 0; r <= cx->repeat; r++) {
        if (r)
            fill_input(c, &s.g, s.in, a->single);
        double t0 = now();
        a->execute(s.plan);
        t[r] = now() - t0;
        if (r == 0 && bench_settle())
            a->execute(s.plan);
    }
    double first = 1e3 * t[0];
    best_median(t + 1, cx->repeat, &best, &median);
    double err = check_out(cx, a, c, &s.g, s.out), pars = parseval(c, &s.g, s.ein, s.out, a->single);
    head(cx, a, c);
    printf(",\"plan_ms\":%.4g,\"first_ms\":%.4g,\"best_ms\":%.4g,\"median_ms\":%.4g,\"runs\":%d", s.plan_ms, first,
           best, median, cx->repeat);
    int bad = verdict(cx, a, err, pars);
    printf("}\n");
    fflush(stdout);
    char e1[32], e2[32];
    fprintf(stderr, "fft %s %c %s: plan %.0f ms, first %.1f ms, best %.2f ms, err %s, parseval %s%s\n", cx->mode,
            a->code, c->text, s.plan_ms, first, best, show(e1, sizeof e1, err), show(e2, sizeof e2, pars),
            bad ? "  WRONG" : "");
    finish(cx, a, &s);
    return bad;
}

/* A small transform executed back to back on the same arrays: the time per execute, the best of repeat
 * batches each about small_s seconds long.  With probe, three executes and no timing (a run under the log). */
static int run_small(const ctx_t *cx, const api_t *a, const case_t *c)
{
    setup_t s;
    if (prepare(cx, a, c, &s))
        return 1;
    double t0 = now(), t[MAX_REPEAT], best, median;
    a->execute(s.plan);
    double first = now() - t0;
    if (bench_settle())
        a->execute(s.plan);
    long iters = 2, k = 0;
    if (!cx->probe) {
        t0 = now();
        do
            a->execute(s.plan), k++;
        while (now() - t0 < cx->small_s / 10 && k < 1000000);
        double per = (now() - t0) / (double)k;
        iters = (long)(cx->small_s / per);
        iters = iters < 3 ? 3 : iters > 10000000 ? 10000000 : iters;
    }
    for (int r = 0; r < (cx->probe ? 1 : cx->repeat); r++) {
        t0 = now();
        for (long i = 0; i < iters; i++)
            a->execute(s.plan);
        t[r] = (now() - t0) / (double)iters;
    }
    best_median(t, cx->probe ? 1 : cx->repeat, &best, &median);
    double err = check_out(cx, a, c, &s.g, s.out), pars = parseval(c, &s.g, s.ein, s.out, a->single);
    head(cx, a, c);
    if (cx->probe)
        printf(",\"probe\":true");
    printf(",\"plan_ms\":%.4g,\"first_ms\":%.4g,\"best_ms\":%.4g,\"median_ms\":%.4g,\"runs\":%d,\"execs\":%ld",
           s.plan_ms, 1e3 * first, best, median, cx->probe ? 1 : cx->repeat, iters);
    int bad = verdict(cx, a, err, pars);
    printf("}\n");
    fflush(stdout);
    if (cx->probe)
        fprintf(stderr, "fft %s %c %s: probed (3 executes)%s\n", cx->mode, a->code, c->text, bad ? "  WRONG" : "");
    else
        fprintf(stderr, "fft %s %c %s: %ld executes x %d, best %.4g us per execute%s\n", cx->mode, a->code,
                c->text, iters, cx->repeat, 1e3 * best, bad ? "  WRONG" : "");
    finish(cx, a, &s);
    return bad;
}

/* The multiply's factors, in (0.5, 1] / n: a filter that keeps the values bounded over the steps. */
static void kernel(double *k, size_t n)
{
    for (size_t i = 0, j = 7777; i < n; i++, j = j + 1 == POOL ? 0 : j + 1)
        k[i] = (0.75 + 0.25 * pool_d[j]) / (double)n;
}

static void step_line(const ctx_t *cx, const api_t *a, const case_t *c, double plan_ms, const double *t,
                      double first, double lo, double hi, double err)
{
    double S = c->steps;
    head(cx, a, c);
    printf(",\"plan_ms\":%.4g,\"first_ms\":%.4g,\"step_ms\":%.4g,\"min_ms\":%.4g,\"max_ms\":%.4g", plan_ms,
           1e3 * first, 1e3 * (t[0] + t[1] + t[2]) / S, 1e3 * lo, 1e3 * hi);
    printf(",\"fwd_ms\":%.4g,\"mul_ms\":%.4g,\"inv_ms\":%.4g,\"runs\":%d", 1e3 * t[0] / S, 1e3 * t[1] / S,
           1e3 * t[2] / S, c->steps);
    int bad = verdict(cx, a, err, -1);
    printf("}\n");
    fflush(stdout);
    char e[32];
    fprintf(stderr, "fft %s %c %s: %.2f ms per step (forward %.2f, multiply %.2f, backward %.2f), err %s%s\n",
            cx->mode, a->code, c->text, 1e3 * (t[0] + t[1] + t[2]) / S, 1e3 * t[0] / S, 1e3 * t[1] / S,
            1e3 * t[2] / S, show(e, sizeof e, err), bad ? "  WRONG" : "");
}

/* The time-stepping loop: x -> forward -> y, y *= k on the CPU, y -> backward -> x, one warm-up step and then
 * steps timed ones; checked on the final x. */
static int run_step(const ctx_t *cx, const api_t *a, const case_t *c)
{
    geom_t g = geom_of(c);
    size_t n = g.points, bytes = (a->single ? 2 * sizeof(float) : 2 * sizeof(double)) * n;
    void *x = alloc(cx, a, bytes), *y = alloc(cx, a, bytes);
    double *k = malloc(n * sizeof *k);
    plan_t fwd = NULL, inv = NULL;
    int bad = 1;
    if (!x || !y || !k) {
        fail_line(cx, a, c, "out of host memory");
        goto out;
    }
    double t0 = now();
    fwd = make_plan(cx, a, c, x, y, FFTW_FWD);
    inv = fwd ? make_plan(cx, a, c, y, x, FFTW_BWD) : NULL;
    double plan_ms = 1e3 * (now() - t0);
    if (!inv) {
        fail_line(cx, a, c, "the planner returned NULL");
        goto out;
    }
    pool_fill(x, 2 * n, a->single, 0);
    kernel(k, n);
    double t[3] = {0, 0, 0}, first = -1, lo = INFINITY, hi = 0;
    for (int s = 0; s <= c->steps; s++) {
        double t1 = now();
        a->execute(fwd);
        double t2 = now();
        multiply(y, k, n, a->single, cx->threads);
        double t3 = now();
        a->execute(inv);
        double t4 = now();
        if (s == 0) { /* the warm-up step; under gpushim once more, from the same input: the GPU's first */
            if (first < 0) {
                first = t4 - t1;
                if (bench_settle())
                    pool_fill(x, 2 * n, a->single, 0), s = -1;
            }
            continue;
        }
        t[0] += t2 - t1, t[1] += t3 - t2, t[2] += t4 - t3;
        lo = fmin(lo, t4 - t1), hi = fmax(hi, t4 - t1);
    }
    char id[300];
    ref_id(c, a, id, sizeof id);
    double err = check_ref(cx, id, x, n, 1, a->single);
    step_line(cx, a, c, plan_ms, t, first, lo, hi, err);
    bad = 0;
out:
    if (inv)
        a->destroy(inv);
    if (fwd)
        a->destroy(fwd);
    release(cx, a, x);
    release(cx, a, y);
    free(k);
    return bad;
}

/* ---- the command line ---------------------------------------------------------------------------------- */
static int parse_case(const char *s, case_t *c)
{
    memset(c, 0, sizeof *c);
    c->text = s, c->howmany = 1, c->kind = -1;
    const char *p = strchr(s, ':');
    for (int k = 0; p && k <= K_TR; k++)
        if ((size_t)(p - s) == strlen(kind_names[k]) && !strncmp(s, kind_names[k], (size_t)(p - s)))
            c->kind = k;
    if (c->kind < 0)
        return -1;
    long v[4];
    int nv = 0;
    char *e = (char *)p;
    do {
        v[nv++] = strtol(e + 1, &e, 10);
        if (v[nv - 1] < 1 || v[nv - 1] > 1L << 30)
            return -1;
    } while (*e == 'x' && nv < 3);
    if (c->kind == K_STEP) {
        if (*e != ':')
            return -1;
        c->steps = (int)strtol(e + 1, &e, 10);
        if (c->steps < 1)
            return -1;
    }
    if (*e || (c->kind == K_MANY && nv != 2))
        return -1;
    if (c->kind == K_MANY)
        c->howmany = (int)v[0], v[0] = v[1], nv = 1;
    c->rank = nv;
    for (int i = 0; i < nv; i++)
        c->n[i] = (int)v[i];
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: fft [--mode NAME] [--prec d|s|ds] [--alloc malloc|fftw] [--repeat R] [--threads N] "
                    "[--plan estimate|measure] [--timelimit S] [--flags fftw|cufftw] [--wisdom PREFIX] "
                    "[--ref DIR [--save-ref]] [--small-s S] [--probe] [--log PATH] CASE...\n"
                    "  CASE: c2c:D r2c:D c2r:D many:HxN tr:D small:D step:D:S, D = N, NxN or NxNxN\n");
    exit(2);
}

static void wisdom(const ctx_t *cx, int save)
{
    if (!cx->wisdom || cx->cufftw_flags)
        return;
    for (int i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s-%c.wisdom", cx->wisdom, apis[i].code);
        if (save)
            apis[i].export_wisdom(path);
        else if (access(path, R_OK) == 0 && !apis[i].import_wisdom(path))
            fprintf(stderr, "fft: could not read the wisdom in %s\n", path);
    }
}

/* Once, before the first case: FFTW's threads, the saved wisdom, and a line naming the FFTW in use. */
static void setup(const ctx_t *cx)
{
    for (int i = 0; i < 2; i++)
        if (!apis[i].init_threads())
            fprintf(stderr, "fft: %cfftw init_threads failed\n", apis[i].code);
    wisdom(cx, 0);
    printf("{\"meta_prog\":{\"mode\":\"%s\",\"fftw_version\":\"%s\",\"threads\":%d,\"pid\":%ld}}\n", cx->mode,
           fftw_version, cx->threads, (long)getpid());
    fflush(stdout);
}

/* The option at argv[i] (and its value, i advanced past it) into cx; 0, or -1 when it is not one. */
static int option(ctx_t *cx, int argc, char **argv, int *i)
{
    const char *o = argv[*i];
    if (!strcmp(o, "--save-ref") || !strcmp(o, "--probe")) {
        *(o[2] == 's' ? &cx->save_ref : &cx->probe) = 1;
        return 0;
    }
    if (*i + 1 >= argc)
        return -1;
    const char *v = argv[++*i];
    if (!strcmp(o, "--mode"))
        cx->mode = v;
    else if (!strcmp(o, "--prec") && strspn(v, "ds") == strlen(v) && strlen(v) <= 2 && *v)
        snprintf(cx->precs, sizeof cx->precs, "%s", v);
    else if (!strcmp(o, "--alloc") && (!strcmp(v, "malloc") || !strcmp(v, "fftw")))
        cx->use_fftw_malloc = !strcmp(v, "fftw");
    else if (!strcmp(o, "--repeat") && atoi(v) >= 1 && atoi(v) <= MAX_REPEAT)
        cx->repeat = atoi(v);
    else if (!strcmp(o, "--threads") && atoi(v) >= 1)
        cx->threads = atoi(v);
    else if (!strcmp(o, "--plan") && (!strcmp(v, "estimate") || !strcmp(v, "measure")))
        cx->measure = !strcmp(v, "measure");
    else if (!strcmp(o, "--timelimit"))
        cx->timelimit = atof(v);
    else if (!strcmp(o, "--flags") && (!strcmp(v, "fftw") || !strcmp(v, "cufftw")))
        cx->cufftw_flags = !strcmp(v, "cufftw");
    else if (!strcmp(o, "--wisdom"))
        cx->wisdom = v;
    else if (!strcmp(o, "--ref"))
        cx->ref = v;
    else if (!strcmp(o, "--small-s") && atof(v) > 0)
        cx->small_s = atof(v);
    else if (!strcmp(o, "--log"))
        cx->log = v;
    else
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    ctx_t cx = {.mode = "fftw", .precs = "ds", .repeat = 3, .threads = cpus > 0 ? (int)cpus : 1, .small_s = 0.1};
    int started = 0;
    pool_init();
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--", 2)) {
            if (option(&cx, argc, argv, &i))
                usage();
            continue;
        }
        case_t c;
        if (parse_case(argv[i], &c)) {
            fprintf(stderr, "fft: bad case '%s'\n", argv[i]);
            usage();
        }
        if (!started++)
            setup(&cx);
        for (const char *p = cx.precs; *p; p++) {
            const api_t *a = &apis[*p == 's'];
            if (c.kind == K_SMALL)
                run_small(&cx, a, &c);
            else if (c.kind == K_STEP)
                run_step(&cx, a, &c);
            else
                run_large(&cx, a, &c);
            wisdom(&cx, 1);
        }
    }
    return 0;
}

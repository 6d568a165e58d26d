/* Calls every interposed BLAS routine through one symbol spelling (spelling.h): all four precisions, the
 * Fortran entry and the CBLAS entry in both layouts, every option letter, odd leading dimensions, empty
 * dimensions, alpha = 0, and beta = 0 with NaN in C (which must then not be read).  Every output array,
 * padding included, goes to a result file (results.h) for blas_cmp to compare with a run without the shim.
 *
 *   blas_all FILE             run the cases; print "gpu_eligible=N", the calls that have work for a GPU;
 *                             with BLAS_ALL_LARGE=1 also sizes in the hundreds (too slow for the stand-in)
 *   blas_all --invalid FILE   calls with invalid arguments, BLAS and LAPACK: the library's xerbla must report
 *                             each one exactly as it does without the shim, LAPACK's INFO be the same, and the
 *                             outputs stay untouched */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "spelling.h"

enum { S, D, C, Z };
enum { FORT, COLMAJ, ROWMAJ }; /* the Fortran entry, CBLAS column-major, CBLAS row-major */
enum { ROW = 101, COL = 102, NOTRANS = 111, UPPER = 121, NONUNIT = 131, LEFT = 141 };

static const size_t esz[] = {4, 8, 8, 16};
static const char *const pname = "sdcz";
static const char *const cname[] = {"F", "col", "row"};

/* ---- prototypes, typed as each spelling's library defines them ---- */
typedef void f_gemm_t(const char *, const char *, const blasint *, const blasint *, const blasint *, const void *,
                      const void *, const blasint *, const void *, const blasint *, const void *, void *,
                      const blasint *, size_t, size_t);
typedef void f_symm_t(const char *, const char *, const blasint *, const blasint *, const void *, const void *,
                      const blasint *, const void *, const blasint *, const void *, void *, const blasint *, size_t,
                      size_t);
typedef void f_syrk_t(const char *, const char *, const blasint *, const blasint *, const void *, const void *,
                      const blasint *, const void *, void *, const blasint *, size_t, size_t);
typedef void f_syr2k_t(const char *, const char *, const blasint *, const blasint *, const void *, const void *,
                       const blasint *, const void *, const blasint *, const void *, void *, const blasint *, size_t,
                       size_t);
typedef void f_trmm_t(const char *, const char *, const char *, const char *, const blasint *, const blasint *,
                      const void *, const void *, const blasint *, void *, const blasint *, size_t, size_t, size_t,
                      size_t);
typedef void f_gemv_t(const char *, const blasint *, const blasint *, const void *, const void *, const blasint *,
                      const void *, const blasint *, const void *, void *, const blasint *, size_t);
extern f_gemm_t F77(sgemm), F77(dgemm), F77(cgemm), F77(zgemm);
extern f_symm_t F77(ssymm), F77(dsymm), F77(csymm), F77(zsymm), F77(chemm), F77(zhemm);
extern f_syrk_t F77(ssyrk), F77(dsyrk), F77(csyrk), F77(zsyrk), F77(cherk), F77(zherk);
extern f_syr2k_t F77(ssyr2k), F77(dsyr2k), F77(csyr2k), F77(zsyr2k), F77(cher2k), F77(zher2k);
extern f_trmm_t F77(strmm), F77(dtrmm), F77(ctrmm), F77(ztrmm), F77(strsm), F77(dtrsm), F77(ctrsm), F77(ztrsm);
extern f_gemv_t F77(sgemv), F77(dgemv), F77(cgemv), F77(zgemv);

#define I blasint /* in the prototypes below */
#define CB_GEMM(n, T) void CB(n)(int, int, int, I, I, I, T, const void *, I, const void *, I, T, void *, I);
#define CB_SYMM(n, T) void CB(n)(int, int, int, I, I, T, const void *, I, const void *, I, T, void *, I);
#define CB_SYRK(n, A, B) void CB(n)(int, int, int, I, I, A, const void *, I, B, void *, I);
#define CB_SYR2K(n, A, B) void CB(n)(int, int, int, I, I, A, const void *, I, const void *, I, B, void *, I);
#define CB_TRMM(n, T) void CB(n)(int, int, int, int, int, I, I, T, const void *, I, void *, I);
#define CB_GEMV(n, T) void CB(n)(int, int, I, I, T, const void *, I, const void *, I, T, void *, I);
typedef const void *cptr;
CB_GEMM(sgemm, float) CB_GEMM(dgemm, double) CB_GEMM(cgemm, cptr) CB_GEMM(zgemm, cptr)
CB_SYMM(ssymm, float) CB_SYMM(dsymm, double) CB_SYMM(csymm, cptr) CB_SYMM(zsymm, cptr)
CB_SYMM(chemm, cptr) CB_SYMM(zhemm, cptr)
CB_SYRK(ssyrk, float, float) CB_SYRK(dsyrk, double, double) CB_SYRK(csyrk, cptr, cptr)
CB_SYRK(zsyrk, cptr, cptr) CB_SYRK(cherk, float, float) CB_SYRK(zherk, double, double)
CB_SYR2K(ssyr2k, float, float) CB_SYR2K(dsyr2k, double, double) CB_SYR2K(csyr2k, cptr, cptr)
CB_SYR2K(zsyr2k, cptr, cptr) CB_SYR2K(cher2k, cptr, float) CB_SYR2K(zher2k, cptr, double)
CB_TRMM(strmm, float) CB_TRMM(dtrmm, double) CB_TRMM(ctrmm, cptr) CB_TRMM(ztrmm, cptr)
CB_TRMM(strsm, float) CB_TRMM(dtrsm, double) CB_TRMM(ctrsm, cptr) CB_TRMM(ztrsm, cptr)
CB_GEMV(sgemv, float) CB_GEMV(dgemv, double) CB_GEMV(cgemv, cptr) CB_GEMV(zgemv, cptr)
float CB(sdot)(I, const void *, I, const void *, I);
double CB(ddot)(I, const void *, I, const void *, I);
void CB(cdotu_sub)(I, const void *, I, const void *, I, void *);
void CB(zdotu_sub)(I, const void *, I, const void *, I, void *);
void CB(cdotc_sub)(I, const void *, I, const void *, I, void *);
void CB(zdotc_sub)(I, const void *, I, const void *, I, void *);
void CB(saxpy)(I, float, const void *, I, void *, I);
void CB(daxpy)(I, double, const void *, I, void *, I);
void CB(caxpy)(I, const void *, const void *, I, void *, I);
void CB(zaxpy)(I, const void *, const void *, I, void *, I);

/* ---- data ---- */
static unsigned long rng = 12345;
static double rnd(void)
{
    rng = rng * 6364136223846793005ul + 1442695040888963407ul;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* A scalar in every precision's representation. */
typedef struct {
    float f[2];
    double d[2];
} scal_t;
static scal_t mk(double re, double im) { return (scal_t){{(float)re, (float)im}, {re, im}}; }
static const void *sp(const scal_t *s, int p) { return p == S || p == C ? (const void *)s->f : (const void *)s->d; }

/* A stored matrix: buffer of ld x outer elements, as the call's layout sees it. */
typedef struct {
    void *a;
    I ld, outer;
} mat_t;

/* A matrix of r x c logical elements for convention conv, filled with values in [-1, 1] (or NaN), padding
 * included; `boost` is added to the real part of diagonal elements. */
static mat_t mat(int p, int conv, I r, I c, int nan, double scale, double boost)
{
    mat_t m = {0, (conv == ROWMAJ ? c : r) + 3, conv == ROWMAJ ? r : c};
    size_t n = (size_t)m.ld * (size_t)(m.outer > 0 ? m.outer : 1);
    int cplx = p >= C;
    m.a = malloc(n * esz[p]);
    for (size_t i = 0; i < n * (size_t)(1 + cplx); i++) {
        double v = nan ? NAN : rnd() * scale;
        if (p == S || p == C)
            ((float *)m.a)[i] = (float)v;
        else
            ((double *)m.a)[i] = v;
    }
    for (I i = 0; !nan && i < r && i < c; i++) {
        size_t k = (size_t)(i + i * m.ld) * (size_t)(1 + cplx);
        if (p == S || p == C)
            ((float *)m.a)[k] += (float)boost;
        else
            ((double *)m.a)[k] += boost;
    }
    return m;
}

static FILE *out;
static long eligible;

static void emit(const char *label, int p, mat_t m)
{
    result_write(out, label, p, m.a, (int64_t)m.ld * (m.outer > 0 ? m.outer : 1) * (p >= C ? 2 : 1));
}

static int cbt(char t) { return NOTRANS + (t == 'T') + 2 * (t == 'C'); }
static int cbu(char u) { return UPPER + (u == 'L'); }
static int cbd(char d) { return NONUNIT + (d == 'U'); }
static int cbs(char s) { return LEFT + (s == 'R'); }
static int lay(int conv) { return conv == ROWMAJ ? ROW : COL; }

/* ---- one case per operation ---- */
static void do_gemm(int p, int conv, char ta, char tb, I m, I n, I k, scal_t al, int beta0)
{
    scal_t be = beta0 ? mk(0, 0) : mk(0.5, -0.25);
    mat_t A = mat(p, conv, ta == 'N' ? m : k, ta == 'N' ? k : m, 0, 1, 0);
    mat_t B = mat(p, conv, tb == 'N' ? k : n, tb == 'N' ? n : k, 0, 1, 0);
    mat_t Cm = mat(p, conv, m, n, beta0, 1, 0);
    const void *a = sp(&al, p), *b = sp(&be, p);
    if (conv == FORT) {
        f_gemm_t *f[] = {F77(sgemm), F77(dgemm), F77(cgemm), F77(zgemm)};
        f[p](&ta, &tb, &m, &n, &k, a, A.a, &A.ld, B.a, &B.ld, b, Cm.a, &Cm.ld, 1, 1);
    } else if (p == S) {
        CB(sgemm)(lay(conv), cbt(ta), cbt(tb), m, n, k, al.f[0], A.a, A.ld, B.a, B.ld, be.f[0], Cm.a, Cm.ld);
    } else if (p == D) {
        CB(dgemm)(lay(conv), cbt(ta), cbt(tb), m, n, k, al.d[0], A.a, A.ld, B.a, B.ld, be.d[0], Cm.a, Cm.ld);
    } else {
        (p == C ? CB(cgemm) : CB(zgemm))(lay(conv), cbt(ta), cbt(tb), m, n, k, a, A.a, A.ld, B.a, B.ld, b, Cm.a,
                                         Cm.ld);
    }
    char label[120];
    snprintf(label, sizeof label, "%cgemm %s %c%c %dx%dx%d a%g b%d", pname[p], cname[conv], ta, tb, (int)m, (int)n,
             (int)k, al.d[0], beta0);
    emit(label, p, Cm);
    eligible += m > 0 && n > 0 && k > 0 && (al.d[0] != 0 || al.d[1] != 0);
    free(A.a), free(B.a), free(Cm.a);
}

static void do_symm(int p, int herm, int conv, char side, char uplo, I m, I n, scal_t al, int beta0)
{
    scal_t be = beta0 ? mk(0, 0) : mk(0.5, -0.25);
    I ka = side == 'L' ? m : n;
    mat_t A = mat(p, conv, ka, ka, 0, 1, 0), B = mat(p, conv, m, n, 0, 1, 0), Cm = mat(p, conv, m, n, beta0, 1, 0);
    const void *a = sp(&al, p), *b = sp(&be, p);
    if (conv == FORT) {
        f_symm_t *f[] = {F77(ssymm), F77(dsymm), herm ? F77(chemm) : F77(csymm), herm ? F77(zhemm) : F77(zsymm)};
        f[p](&side, &uplo, &m, &n, a, A.a, &A.ld, B.a, &B.ld, b, Cm.a, &Cm.ld, 1, 1);
    } else if (p == S) {
        CB(ssymm)(lay(conv), cbs(side), cbu(uplo), m, n, al.f[0], A.a, A.ld, B.a, B.ld, be.f[0], Cm.a, Cm.ld);
    } else if (p == D) {
        CB(dsymm)(lay(conv), cbs(side), cbu(uplo), m, n, al.d[0], A.a, A.ld, B.a, B.ld, be.d[0], Cm.a, Cm.ld);
    } else {
        __typeof__(CB(csymm)) *f = p == C ? (herm ? CB(chemm) : CB(csymm)) : (herm ? CB(zhemm) : CB(zsymm));
        f(lay(conv), cbs(side), cbu(uplo), m, n, a, A.a, A.ld, B.a, B.ld, b, Cm.a, Cm.ld);
    }
    char label[120];
    snprintf(label, sizeof label, "%c%s %s %c%c %dx%d a%g b%d", pname[p], herm ? "hemm" : "symm", cname[conv], side,
             uplo, (int)m, (int)n, al.d[0], beta0);
    emit(label, p, Cm);
    eligible += m > 0 && n > 0 && (al.d[0] != 0 || al.d[1] != 0);
    free(A.a), free(B.a), free(Cm.a);
}

/* syrk (two = 0) and syr2k (two = 1), symmetric or Hermitian */
static void do_rk(int p, int herm, int two, int conv, char uplo, char tr, I n, I k, scal_t al, int beta0)
{
    scal_t be = beta0 ? mk(0, 0) : mk(0.5, herm ? 0 : -0.25);
    if (herm && !two)
        al.f[1] = 0, al.d[1] = 0;
    I r = tr == 'N' ? n : k, c = tr == 'N' ? k : n;
    mat_t A = mat(p, conv, r, c, 0, 1, 0), B = mat(p, conv, r, c, 0, 1, 0), Cm = mat(p, conv, n, n, beta0, 1, 0);
    const void *a = sp(&al, p), *b = sp(&be, p);
    int L = lay(conv);
    if (conv == FORT && !two) {
        f_syrk_t *f[] = {F77(ssyrk), F77(dsyrk), herm ? F77(cherk) : F77(csyrk), herm ? F77(zherk) : F77(zsyrk)};
        f[p](&uplo, &tr, &n, &k, a, A.a, &A.ld, b, Cm.a, &Cm.ld, 1, 1);
    } else if (conv == FORT) {
        f_syr2k_t *f[] = {F77(ssyr2k), F77(dsyr2k), herm ? F77(cher2k) : F77(csyr2k),
                          herm ? F77(zher2k) : F77(zsyr2k)};
        f[p](&uplo, &tr, &n, &k, a, A.a, &A.ld, B.a, &B.ld, b, Cm.a, &Cm.ld, 1, 1);
    } else if (!two) {
        if (p == S)
            CB(ssyrk)(L, cbu(uplo), cbt(tr), n, k, al.f[0], A.a, A.ld, be.f[0], Cm.a, Cm.ld);
        else if (p == D)
            CB(dsyrk)(L, cbu(uplo), cbt(tr), n, k, al.d[0], A.a, A.ld, be.d[0], Cm.a, Cm.ld);
        else if (herm && p == C)
            CB(cherk)(L, cbu(uplo), cbt(tr), n, k, al.f[0], A.a, A.ld, be.f[0], Cm.a, Cm.ld);
        else if (herm)
            CB(zherk)(L, cbu(uplo), cbt(tr), n, k, al.d[0], A.a, A.ld, be.d[0], Cm.a, Cm.ld);
        else
            (p == C ? CB(csyrk) : CB(zsyrk))(L, cbu(uplo), cbt(tr), n, k, a, A.a, A.ld, b, Cm.a, Cm.ld);
    } else {
        if (p == S)
            CB(ssyr2k)(L, cbu(uplo), cbt(tr), n, k, al.f[0], A.a, A.ld, B.a, B.ld, be.f[0], Cm.a, Cm.ld);
        else if (p == D)
            CB(dsyr2k)(L, cbu(uplo), cbt(tr), n, k, al.d[0], A.a, A.ld, B.a, B.ld, be.d[0], Cm.a, Cm.ld);
        else if (herm && p == C)
            CB(cher2k)(L, cbu(uplo), cbt(tr), n, k, a, A.a, A.ld, B.a, B.ld, be.f[0], Cm.a, Cm.ld);
        else if (herm)
            CB(zher2k)(L, cbu(uplo), cbt(tr), n, k, a, A.a, A.ld, B.a, B.ld, be.d[0], Cm.a, Cm.ld);
        else
            (p == C ? CB(csyr2k) : CB(zsyr2k))(L, cbu(uplo), cbt(tr), n, k, a, A.a, A.ld, B.a, B.ld, b, Cm.a, Cm.ld);
    }
    char label[120];
    snprintf(label, sizeof label, "%c%s%s %s %c%c %dx%d a%g b%d", pname[p], herm ? "her" : "syr", two ? "2k" : "k",
             cname[conv], uplo, tr, (int)n, (int)k, al.d[0], beta0);
    emit(label, p, Cm);
    eligible += n > 0 && k > 0 && (al.d[0] != 0 || al.d[1] != 0);
    free(A.a), free(B.a), free(Cm.a);
}

/* trmm (solve = 0) and trsm (solve = 1) */
static void do_tr(int p, int solve, int conv, char side, char uplo, char ta, char diag, I m, I n, scal_t al)
{
    I ka = side == 'L' ? m : n;
    /* well conditioned for the solves: small off-diagonal entries, a heavy diagonal */
    mat_t A = mat(p, conv, ka, ka, 0, solve ? 1.0 / (ka + 1) : 1, solve ? 4 : 0), B = mat(p, conv, m, n, 0, 1, 0);
    const void *a = sp(&al, p);
    if (conv == FORT) {
        f_trmm_t *f[] = {F77(strmm), F77(dtrmm), F77(ctrmm), F77(ztrmm), F77(strsm), F77(dtrsm), F77(ctrsm),
                         F77(ztrsm)};
        f[p + 4 * solve](&side, &uplo, &ta, &diag, &m, &n, a, A.a, &A.ld, B.a, &B.ld, 1, 1, 1, 1);
    } else {
        int L = lay(conv), s = cbs(side), u = cbu(uplo), t = cbt(ta), dg = cbd(diag);
        if (p == S)
            (solve ? CB(strsm) : CB(strmm))(L, s, u, t, dg, m, n, al.f[0], A.a, A.ld, B.a, B.ld);
        else if (p == D)
            (solve ? CB(dtrsm) : CB(dtrmm))(L, s, u, t, dg, m, n, al.d[0], A.a, A.ld, B.a, B.ld);
        else if (p == C)
            (solve ? CB(ctrsm) : CB(ctrmm))(L, s, u, t, dg, m, n, a, A.a, A.ld, B.a, B.ld);
        else
            (solve ? CB(ztrsm) : CB(ztrmm))(L, s, u, t, dg, m, n, a, A.a, A.ld, B.a, B.ld);
    }
    char label[120];
    snprintf(label, sizeof label, "%ctr%s %s %c%c%c%c %dx%d a%g", pname[p], solve ? "sm" : "mm", cname[conv], side,
             uplo, ta, diag, (int)m, (int)n, al.d[0]);
    emit(label, p, B);
    eligible += m > 0 && n > 0 && (al.d[0] != 0 || al.d[1] != 0);
    free(A.a), free(B.a);
}

/* Level 2 and 1.  gemv can run on the GPU (but a complex row-major conjugate transpose, which cuBLAS lacks);
 * the rest is forwarded to the CPU library, called here so that every spelling is exercised. */
static void do_level12(int p, int conv)
{
    I m = 5, n = 4, inc = 2;
    scal_t al = mk(1.5, 0.5), be = mk(0.5, -0.25);
    for (const char *t = "NTC"; *t; t++) {
        eligible += !(p >= C && conv == ROWMAJ && *t == 'C');
        I lx = *t == 'N' ? n : m, ly = *t == 'N' ? m : n;
        mat_t A = mat(p, conv, m, n, 0, 1, 0), x = mat(p, FORT, lx * inc, 1, 0, 1, 0), y = mat(p, FORT, ly * inc, 1, 0, 1, 0);
        if (conv == FORT) {
            f_gemv_t *f[] = {F77(sgemv), F77(dgemv), F77(cgemv), F77(zgemv)};
            f[p](t, &m, &n, sp(&al, p), A.a, &A.ld, x.a, &inc, sp(&be, p), y.a, &inc, 1);
        } else if (p == S) {
            CB(sgemv)(lay(conv), cbt(*t), m, n, al.f[0], A.a, A.ld, x.a, inc, be.f[0], y.a, inc);
        } else if (p == D) {
            CB(dgemv)(lay(conv), cbt(*t), m, n, al.d[0], A.a, A.ld, x.a, inc, be.d[0], y.a, inc);
        } else {
            (p == C ? CB(cgemv) : CB(zgemv))(lay(conv), cbt(*t), m, n, sp(&al, p), A.a, A.ld, x.a, inc, sp(&be, p),
                                             y.a, inc);
        }
        char label[120];
        snprintf(label, sizeof label, "%cgemv %s %c", pname[p], cname[conv], *t);
        emit(label, p, y);
        free(A.a), free(x.a), free(y.a);
    }
    if (conv != COLMAJ)
        return;
    mat_t x = mat(p, FORT, 7, 1, 0, 1, 0), y = mat(p, FORT, 7, 1, 0, 1, 0);
    double r[4] = {0, 0, 0, 0};
    if (p == S)
        r[0] = CB(sdot)(3, x.a, 2, y.a, 2);
    else if (p == D)
        r[0] = CB(ddot)(3, x.a, 2, y.a, 2);
    else if (p == C) {
        float u[2], v[2];
        CB(cdotu_sub)(3, x.a, 2, y.a, 2, u);
        CB(cdotc_sub)(3, x.a, 2, y.a, 2, v);
        r[0] = u[0], r[1] = u[1], r[2] = v[0], r[3] = v[1];
    } else {
        CB(zdotu_sub)(3, x.a, 2, y.a, 2, r);
        CB(zdotc_sub)(3, x.a, 2, y.a, 2, r + 2);
    }
    char label[40];
    snprintf(label, sizeof label, "%cdot", pname[p]);
    result_write(out, label, D, r, 4);
    if (p == S)
        CB(saxpy)(3, al.f[0], x.a, 2, y.a, 2);
    else if (p == D)
        CB(daxpy)(3, al.d[0], x.a, 2, y.a, 2);
    else
        (p == C ? CB(caxpy) : CB(zaxpy))(3, sp(&al, p), x.a, 2, y.a, 2);
    snprintf(label, sizeof label, "%caxpy", pname[p]);
    emit(label, p, y);
    free(x.a), free(y.a);
}

/* {20, 17, 300}: k much larger than m and n, which the tiled GEMM cuts into slices of k (tests/t_tiles.sh). */
static const I sizes[][3] = {{5, 4, 3}, {7, 1, 6}, {1, 6, 2}, {4, 5, 1}, {13, 11, 9}, {0, 3, 4}, {3, 0, 2}, {4, 5, 0},
                             {20, 17, 300}, {257, 130, 301}};
static size_t nsizes = sizeof sizes / sizeof sizes[0] - 1; /* the last one only with BLAS_ALL_LARGE=1 */

static void run_all(void)
{
    scal_t alphas[] = {mk(1.5, 0.5), mk(0, 0)};
    for (int p = S; p <= Z; p++)
        for (int conv = FORT; conv <= ROWMAJ; conv++) {
            for (size_t z = 0; z < nsizes; z++)
                for (int ai = 0; ai < 2; ai++) {
                    if (ai && z) /* alpha = 0 once per precision and convention */
                        continue;
                    scal_t al = alphas[ai];
                    I m = sizes[z][0], n = sizes[z][1], k = sizes[z][2];
                    for (int b0 = 0; b0 < 2; b0++) {
                        for (const char *ta = "NTC"; *ta; ta++)
                            for (const char *tb = "NTC"; *tb; tb++)
                                do_gemm(p, conv, *ta, *tb, m, n, k, al, b0);
                        for (int herm = 0; herm <= (p >= C); herm++)
                            for (const char *s = "LR"; *s; s++)
                                for (const char *u = "UL"; *u; u++)
                                    do_symm(p, herm, conv, *s, *u, m, n, al, b0);
                        for (int herm = 0; herm <= (p >= C); herm++)
                            for (int two = 0; two < 2; two++)
                                for (const char *u = "UL"; *u; u++)
                                    for (const char *t = herm ? "NC" : p >= C ? "NT" : "NTC"; *t; t++)
                                        do_rk(p, herm, two, conv, *u, *t, m, k, al, b0);
                    }
                    for (int solve = 0; solve < 2; solve++)
                        for (const char *s = "LR"; *s; s++)
                            for (const char *u = "UL"; *u; u++)
                                for (const char *t = "NTC"; *t; t++)
                                    for (const char *dg = "NU"; *dg; dg++)
                                        do_tr(p, solve, conv, *s, *u, *t, *dg, m, n, al);
                }
            do_level12(p, conv);
        }
}

/* LAPACK, in the same spelling (the same library provides it). */
void F77(dgetrf)(const I *, const I *, double *, const I *, I *, I *);
void F77(dpotrf)(const char *, const I *, double *, const I *, I *, size_t);
void F77(dgesv)(const I *, const I *, double *, const I *, I *, double *, const I *, I *);
void F77(dgeqrf)(const I *, const I *, double *, const I *, double *, double *, const I *, I *);
void F77(zheevd)(const char *, const char *, const I *, void *, const I *, double *, void *, const I *, double *,
                 const I *, I *, const I *, I *, size_t, size_t);

/* LAPACK calls with one invalid argument each, which the library's xerbla reports and INFO says; INFO is
 * printed.  Matrices of n columns. */
static void run_invalid_lapack(I m, I n)
{
    I neg = -1, one = 1, lw = 64, info = 0, ipiv[8];
    double tau[8], work[128], w[8], rwork[64];
    mat_t A = mat(D, FORT, 8, 8, 0, 1, 8), B = mat(D, FORT, 8, 8, 0, 1, 0), Zm = mat(Z, FORT, 8, 8, 0, 1, 8);
    F77(dgetrf)(&neg, &n, A.a, &A.ld, ipiv, &info); /* m < 0 */
    printf("dgetrf info %d\n", (int)info);
    F77(dpotrf)("X", &n, A.a, &A.ld, &info, 1); /* uplo */
    printf("dpotrf info %d\n", (int)info);
    F77(dgesv)(&n, &one, A.a, &one, ipiv, B.a, &B.ld, &info); /* lda < n */
    printf("dgesv info %d\n", (int)info);
    F77(dgeqrf)(&m, &n, A.a, &A.ld, tau, work, &one, &info); /* lwork < n */
    printf("dgeqrf info %d\n", (int)info);
    F77(zheevd)("Q", "U", &n, Zm.a, &Zm.ld, w, work, &lw, rwork, &lw, ipiv, &one, &info, 1, 1); /* jobz */
    printf("zheevd info %d\n", (int)info);
    emit("invalid lapack A", D, A);
    emit("invalid lapack B", D, B);
    free(A.a), free(B.a), free(Zm.a);
}

/* Each call below has one invalid argument, which the library's xerbla must report (7 BLAS, then negative
 * sizes, then 5 LAPACK: 14 in all); and two valid calls with NULL where the reference reads nothing. */
static void run_invalid(void)
{
    I m = 4, n = 3, k = 2, bad = 1;
    scal_t al = mk(1, 0), be = mk(0, 0);
    mat_t A = mat(D, FORT, 8, 8, 0, 1, 0), B = mat(D, FORT, 8, 8, 0, 1, 0), Cm = mat(Z, FORT, 8, 8, 0, 1, 0);
    F77(dgemm)("N", "N", &m, &n, &k, al.d, A.a, &bad, B.a, &B.ld, be.d, Cm.a, &Cm.ld, 1, 1); /* lda < m */
    CB(dgemm)(99, NOTRANS, NOTRANS, m, n, k, 1.0, A.a, A.ld, B.a, B.ld, 0.0, Cm.a, Cm.ld);   /* layout */
    CB(zherk)(COL, UPPER, NOTRANS + 1, n, k, 1.0, A.a, A.ld, 0.0, Cm.a, Cm.ld);              /* herk with 'T' */
    F77(ztrsm)("L", "U", "N", "X", &m, &n, al.d, A.a, &A.ld, Cm.a, &Cm.ld, 1, 1, 1, 1);     /* diag */
    F77(ssyr2k)("Q", "N", &n, &k, al.f, A.a, &A.ld, B.a, &B.ld, be.f, Cm.a, &Cm.ld, 1, 1);   /* uplo */
    CB(csymm)(COL, 999, UPPER, m, n, al.f, A.a, A.ld, B.a, B.ld, be.f, Cm.a, Cm.ld);         /* side */
    CB(dtrmm)(ROW, LEFT, UPPER, NOTRANS, NONUNIT, m, n, 1.0, A.a, 1, B.a, B.ld);            /* lda < m */
    I neg = -1, zero = 0;
    F77(dgemm)("N", "N", &neg, &n, &k, al.d, A.a, &A.ld, B.a, &B.ld, be.d, Cm.a, &Cm.ld, 1, 1);  /* m < 0 */
    CB(dsyrk)(COL, UPPER, NOTRANS, -2, k, 1.0, A.a, A.ld, 0.0, Cm.a, Cm.ld);                  /* n < 0 */
    /* Valid: nothing to compute, or k = 0 (C = beta C, A and B unread). */
    F77(dgemm)("N", "N", &zero, &zero, &zero, al.d, NULL, &bad, NULL, &bad, be.d, NULL, &bad, 1, 1);
    F77(dgemm)("N", "N", &m, &n, &zero, al.d, NULL, &A.ld, NULL, &B.ld, be.d, B.a, &B.ld, 1, 1);
    fflush(stdout);
    run_invalid_lapack(m, n);
    fflush(stdout);
    emit("invalid C", Z, Cm);
    emit("invalid B", D, B);
    free(A.a), free(B.a), free(Cm.a);
}

int main(int argc, char **argv)
{
    int invalid = argc > 2 && strcmp(argv[1], "--invalid") == 0;
    const char *path = argv[argc - 1];
    if (argc < 2 || !(out = fopen(path, "wb"))) {
        fprintf(stderr, "usage: blas_all [--invalid] RESULT-FILE\n");
        return 2;
    }
    if (getenv("BLAS_ALL_LARGE") && atoi(getenv("BLAS_ALL_LARGE")))
        nsizes++;
    if (invalid)
        run_invalid();
    else
        run_all();
    fclose(out);
    if (!invalid)
        printf("gpu_eligible=%ld\n", eligible);
    return 0;
}

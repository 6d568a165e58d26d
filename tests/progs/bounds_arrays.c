/* The bounds of the writes of the Python layer's C entries, gpushim_linalg and gpushim_fft (include/gpushim.h,
 * src/WRITES.md), checked with guard bands (guard.h) as tests/progs/bounds.c checks the BLAS, LAPACK and FFTW
 * entries': every array a call is given lies between two bands of canary bytes, the gaps of an output (the
 * padding of a matrix with a larger leading dimension, the elements between those of a strided transform's
 * output) hold canary bytes, and after each call nothing outside the output's elements may have changed, no byte
 * of an input; a call the entry does not do (it returns 0: the policy, the GPU's failure, a form it does not take)
 * may change no byte at all.  At the end every array must be as its call left it.  The entries are looked up in
 * the process (the library preloaded), as the Python layer finds them.
 *
 *   bounds_arrays [corrupt] GROUP...   GROUP: linalg, fft
 * Prints "FAIL: CASE: ARRAY: ..." per array written out of bounds, "note: CASE: done N, meant M" where the call
 * was or was not done other than the case means under GPUSHIM_OFFLOAD=always, then "gpu_expected=N" and
 * "bounds: C cases, V violations"; exit status 1 on any violation, 2 without the library.  corrupt: as bounds.c's,
 * every case must fail. */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpushim.h"
#include "guard.h"

typedef int linalg_t(const char *, const char *, const char *, int, const gpushim_array_t *, int);
typedef int fft_t(const char *, const char *, const gpushim_array_t *, const gpushim_array_t *,
                  const gpushim_array_t *, int, const int *, double, int);
static linalg_t *linalg;
static fft_t *fft;

/* The bytes of an element of NumPy's type t ('i': int32). */
static size_t esize(char t)
{
    return t == 'f' || t == 'i' ? 4 : t == 'd' || t == 'F' ? 8 : 16;
}

/* The offset in elements of element k (C order of the indexes) of x, whose strides are in elements. */
static int64_t offset(const gpushim_array_t *x, int64_t k)
{
    int64_t off = 0;
    for (int d = x->ndim - 1; d >= 0; d--)
        off += k % x->shape[d] * x->strides[d], k /= x->shape[d];
    return off;
}

static int64_t count(const gpushim_array_t *x)
{
    int64_t n = 1;
    for (int d = 0; d < x->ndim; d++)
        n *= x->shape[d];
    return n;
}

/* Strides in elements of an array of shape in layout how: 'C' or 'F' order, 'P' and 'Q' the same with 3
 * elements of padding after each innermost line (a larger leading dimension), 'S' C order with every stride
 * doubled (a gap after each element). */
static void layout(char how, int ndim, const int64_t *shape, int64_t *st)
{
    int64_t s = 1;
    for (int k = 0; k < ndim; k++) { /* the innermost dimension first */
        int d = how == 'F' || how == 'Q' ? k : ndim - 1 - k;
        st[d] = how == 'S' ? 2 * s : s;
        s *= k == 0 && (how == 'P' || how == 'Q') ? shape[d] + 3 : shape[d];
    }
}

/* A new array of the case: type t, shape, layout how, its elements filled (boost added to a matrix's diagonal,
 * whose imaginary parts are zero; zero: every element 0), its gaps left canary bytes.  Strides are returned in
 * bytes, as NumPy's. */
static gpushim_array_t array(const char *name, char t, int ndim, const int64_t *shape, char how, double boost,
                             int zero)
{
    gpushim_array_t x = {.dtype = t, .ndim = ndim};
    size_t es = esize(t);
    int64_t span = 1, n;
    memcpy(x.shape, shape, (size_t)ndim * sizeof *shape);
    layout(how, ndim, shape, x.strides);
    for (int d = 0; d < ndim; d++)
        span += (shape[d] - 1) * x.strides[d];
    x.data = arr(name, (size_t)span * es);
    n = count(&x);
    for (int64_t k = 0; k < n; k++) {
        char *e = (char *)x.data + offset(&x, k) * (int64_t)es;
        int diag = ndim == 2 && k / shape[1] == k % shape[1];
        double v[2] = {zero ? 0 : rnd() + (diag ? boost : 0), zero || diag ? 0 : rnd()};
        for (int i = 0; i < (t == 'F' || t == 'D' ? 2 : 1); i++)
            if (t == 'f' || t == 'F')
                ((float *)(void *)e)[i] = (float)v[i];
            else
                ((double *)(void *)e)[i] = v[i];
    }
    for (int d = 0; d < ndim; d++)
        x.strides[d] *= (int64_t)es;
    return x;
}

/* Every element of x is the call's to write, its gaps not. */
static void may_all(const gpushim_array_t *x)
{
    size_t es = esize(x->dtype);
    gpushim_array_t e = *x;
    for (int d = 0; d < e.ndim; d++)
        e.strides[d] /= (int64_t)es;
    for (int64_t k = 0, n = count(&e); k < n; k++)
        may(x->data, (size_t)offset(&e, k) * es, es);
}

/* The case's call made: nothing of it written when it was not done; its arrays checked. */
static void finish(int rc, int meant)
{
    if (rc != meant)
        printf("note: %s: done %d, meant %d\n", label, rc, meant);
    if (!rc)
        may_none();
    done(meant);
}

/* ---- gpushim_linalg: X, W and D within their elements; A and B never written ---- */
static const int64_t N = 6, K = 3;

/* The real type of t's precision. */
static char real_of(char t)
{
    return t == 'F' ? 'f' : t == 'D' ? 'd' : t;
}

/* op on A (n x n, layout la, boost on its diagonal; singular: every element 0) with, for solve, B (k columns,
 * layout lb; k 0: a vector of n), into W (n reals: eigh, eigvalsh) or D (n of t: slogdet), and X (B's shape, or
 * n x n; layout lx; none for eigvalsh and slogdet). */
static void linalg_case(const char *l, const char *op, const char *uplo, char t, char la, char lb, int64_t k,
                        char lx, double boost, int singular, int meant)
{
    char api[64];
    gpushim_array_t x[3];
    int64_t sq[2] = {N, N}, rhs[2] = {N, k}, vec[1] = {N};
    int n = 0, solve = strcmp(op, "solve") == 0, eig = strncmp(op, "eig", 3) == 0, nox = !strcmp(op, "eigvalsh");
    snprintf(api, sizeof api, "%s.linalg.%s", strcmp(op, "cho_factor") == 0 ? "scipy" : "numpy", op);
    begin(l);
    x[n++] = array("A", t, 2, sq, la, boost, singular);
    if (solve)
        x[n++] = array("B", t, k ? 2 : 1, k ? rhs : vec, lb, 0, 0);
    if (eig || !strcmp(op, "slogdet"))
        x[n++] = array(eig ? "W" : "D", eig ? real_of(t) : t, 1, vec, 'C', 0, 0);
    if (!nox && strcmp(op, "slogdet"))
        x[n++] = solve ? array("X", t, k ? 2 : 1, k ? rhs : vec, lx, 0, 0) : array("X", t, 2, sq, lx, 0, 0);
    for (int i = solve ? 2 : 1; i < n; i++)
        may_all(&x[i]);
    arm();
    finish(linalg(api, op, uplo, n, x, 0), meant);
}

/* svd (job "A": every vector; "S": min(m, n)) or svdvals of A (m x n, layout la; zero: every element 0) into W
 * (min(m, n) reals) and, for svd, U (m x m or m x min(m, n)) and Vh (n x n or min(m, n) x n), both of layout lo. */
static void svd_case(const char *l, const char *op, const char *job, char t, int64_t m, int64_t n, char la, char lo,
                     int zero, int meant)
{
    gpushim_array_t x[4];
    int64_t k = m < n ? m : n, all = job[0] == 'A', sa[2] = {m, n}, sw[1] = {k};
    int64_t su[2] = {m, all ? m : k}, sv[2] = {all ? n : k, n};
    int nx = strcmp(op, "svd") == 0 ? 4 : 2;
    begin(l);
    x[0] = array("A", t, 2, sa, la, 0, zero);
    x[1] = array("W", real_of(t), 1, sw, 'C', 0, 0);
    if (nx == 4) {
        x[2] = array("U", t, 2, su, lo, 0, 0);
        x[3] = array("Vh", t, 2, sv, lo, 0, 0);
    }
    for (int i = 1; i < nx; i++)
        may_all(&x[i]);
    arm();
    finish(linalg("numpy.linalg.svd", op, job, nx, x, 0), meant);
}

/* qr (job "A": Q m x m and R m x n; "S": min(m, n) of Q's columns and R's rows) or qr_r (R alone) of A (m x n,
 * layout la; zero: every element 0) into R and Q, both of layout lo; qr_raw: into H (m x n, layout lo) and TAU
 * (min(m, n) elements). */
static void qr_case(const char *l, const char *op, const char *job, char t, int64_t m, int64_t n, char la, char lo,
                    int zero, int meant)
{
    gpushim_array_t x[3];
    int raw = strcmp(op, "qr_raw") == 0;
    int64_t k = job[0] == 'A' ? m : m < n ? m : n, sa[2] = {m, n}, sq[2] = {m, k}, sr[2] = {k, n};
    int64_t st[1] = {m < n ? m : n};
    int nx = strcmp(op, "qr_r") == 0 ? 2 : 3;
    begin(l);
    x[0] = array("A", t, 2, sa, la, 0, zero);
    if (nx == 3)
        x[1] = raw ? array("H", t, 2, sa, lo, 0, 0) : array("Q", t, 2, sq, lo, 0, 0);
    x[nx - 1] = raw ? array("TAU", t, 1, st, 'C', 0, 0) : array("R", t, 2, sr, lo, 0, 0);
    for (int i = 1; i < nx; i++)
        may_all(&x[i]);
    arm();
    finish(linalg("numpy.linalg.qr", op, job, nx, x, 0), meant);
}

/* lstsq of A (m x n, layout la) and B (m x k, layout lb; k 0: a vector of m) into X (max(m, n) x k, or a vector;
 * layout lo), W (min(m, n) reals) and the rank (one int32), the cut-off C an epsilon (-1). */
static void lstsq_case(const char *l, char t, int64_t m, int64_t n, int64_t k, char la, char lb, char lo, int meant)
{
    gpushim_array_t x[6];
    int64_t sa[2] = {m, n}, sb[2] = {m, k}, sx[2] = {m > n ? m : n, k}, one[1] = {1}, sw[1] = {m < n ? m : n};
    begin(l);
    x[0] = array("A", t, 2, sa, la, 0, 0);
    x[1] = array("B", t, k ? 2 : 1, sb, lb, 0, 0);
    x[2] = array("C", real_of(t), 1, one, 'C', 0, 0);
    if (t == 'f' || t == 'F')
        *(float *)x[2].data = -1;
    else
        *(double *)x[2].data = -1;
    x[3] = array("X", t, k ? 2 : 1, sx, lo, 0, 0);
    x[4] = array("W", real_of(t), 1, sw, 'C', 0, 0);
    x[5] = (gpushim_array_t){.data = arr("R", 4), .dtype = 'i', .ndim = 1, .shape = {1}, .strides = {4}};
    for (int i = 3; i < 6; i++)
        may_all(&x[i]);
    arm();
    finish(linalg("numpy.linalg.lstsq", "lstsq", "N", 6, x, 0), meant);
}

/* A case's label, kept to the end of the program (check_kept names the case). */
__attribute__((format(printf, 1, 2))) static const char *lab(const char *fmt, ...)
{
    static char labels[64][96];
    static int n;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(labels[n % 64], sizeof labels[0], fmt, ap);
    va_end(ap);
    return labels[n++ % 64];
}

static void linalg_group(void)
{
    for (const char *t = "fdFD"; *t; t++) {
        linalg_case(lab("solve %c, B n x 3 F, X padded F", *t), "solve", "L", *t, 'C', 'F', K, 'Q', N, 0, 1);
        linalg_case(lab("solve %c, B a vector", *t), "solve", "L", *t, 'F', 'C', 0, 'C', N, 0, 1);
        linalg_case(lab("inv %c, X padded C", *t), "inv", "L", *t, 'C', 0, 0, 'P', N, 0, 1);
        linalg_case(lab("cholesky L %c, X padded F", *t), "cholesky", "L", *t, 'C', 0, 0, 'Q', 2 * N, 0, 1);
        linalg_case(lab("cholesky U %c, A F, X padded C", *t), "cholesky", "U", *t, 'F', 0, 0, 'P', 2 * N, 0, 1);
        linalg_case(lab("cho_factor U %c, X padded C", *t), "cho_factor", "U", *t, 'C', 0, 0, 'P', 2 * N, 0, 1);
        linalg_case(lab("eigh L %c, A F, X padded C", *t), "eigh", "L", *t, 'F', 0, 0, 'P', 0, 0, 1);
        linalg_case(lab("eigh U %c, X padded C", *t), "eigh", "U", *t, 'C', 0, 0, 'P', 0, 0, 1);
        linalg_case(lab("eigvalsh U %c", *t), "eigvalsh", "U", *t, 'C', 0, 0, 0, 0, 0, 1);
        linalg_case(lab("slogdet %c", *t), "slogdet", "L", *t, 'C', 0, 0, 0, N, 0, 1);
        svd_case(lab("svd S %c, tall, U and Vh padded C", *t), "svd", "S", *t, N + 2, N, 'C', 'P', 0, 1);
        svd_case(lab("svd A %c, wide F, U and Vh padded F", *t), "svd", "A", *t, N, N + 2, 'F', 'Q', 0, 1);
        svd_case(lab("svd A %c, tall F, U and Vh padded C", *t), "svd", "A", *t, N + 2, N, 'F', 'P', 0, 1);
        svd_case(lab("svd S %c, wide, U and Vh padded F", *t), "svd", "S", *t, N, N + 2, 'C', 'Q', 0, 1);
        svd_case(lab("svdvals %c, wide", *t), "svdvals", "N", *t, N, N + 2, 'C', 0, 0, 1);
        qr_case(lab("qr S %c, tall, Q and R padded C", *t), "qr", "S", *t, N + 2, N, 'C', 'P', 0, 1);
        qr_case(lab("qr A %c, tall F, Q and R padded F", *t), "qr", "A", *t, N + 2, N, 'F', 'Q', 0, 1);
        qr_case(lab("qr A %c, wide, Q and R padded F", *t), "qr", "A", *t, N, N + 2, 'C', 'Q', 0, 1);
        qr_case(lab("qr_r A %c, tall, R padded C", *t), "qr_r", "A", *t, N + 2, N, 'F', 'P', 0, 1);
        qr_case(lab("qr_raw %c, wide, H padded F", *t), "qr_raw", "R", *t, N, N + 2, 'C', 'Q', 0, 1);
        qr_case(lab("qr_raw %c, tall F, H padded C", *t), "qr_raw", "R", *t, N + 2, N, 'F', 'P', 0, 1);
        lstsq_case(lab("lstsq %c, tall, B C, X padded F", *t), *t, N + 2, N, K, 'C', 'C', 'Q', 1);
        lstsq_case(lab("lstsq %c, wide F, B F, X padded C", *t), *t, N, N + 2, K, 'F', 'F', 'P', 1);
        lstsq_case(lab("lstsq %c, square, B a vector", *t), *t, N, N, 0, 'C', 'C', 'C', 1);
    }
    /* calls not done, which must write nothing: found singular or not positive definite on the GPU, and forms
     * the entry does not take */
    linalg_case("solve d, A singular", "solve", "L", 'd', 'C', 'F', K, 'F', 0, 1, 0);
    linalg_case("inv D, A singular", "inv", "L", 'D', 'F', 0, 0, 'C', 0, 1, 0);
    linalg_case("cholesky L d, not positive definite", "cholesky", "L", 'd', 'C', 0, 0, 'F', -2.0 * N, 0, 0);
    linalg_case("inv d, X strided in both dimensions", "inv", "L", 'd', 'C', 0, 0, 'S', N, 0, 0);
    linalg_case("eigh L D, A C order, X F order", "eigh", "L", 'D', 'C', 0, 0, 'F', 0, 0, 0);
    svd_case("svd S d, A zero", "svd", "S", 'd', N + 2, N, 'C', 'C', 1, 0);
    svd_case("svd S z, U and Vh strided in both dimensions", "svd", "S", 'D', N + 2, N, 'C', 'S', 0, 0);
    svd_case("svd X d, no such job", "svd", "X", 'd', N, N, 'C', 'C', 0, 0);
    qr_case("qr S d, A zero", "qr", "S", 'd', N + 2, N, 'C', 'C', 1, 0);
    qr_case("qr S z, Q and R strided in both dimensions", "qr", "S", 'D', N + 2, N, 'C', 'S', 0, 0);
    lstsq_case("lstsq d, X strided in both dimensions", 'd', N + 2, N, K, 'C', 'C', 'S', 0);
    qr_case("qr_raw d, A zero", "qr_raw", "R", 'd', N + 2, N, 'C', 'C', 1, 0);
}

/* ---- gpushim_fft: out within its elements, its gaps as they were; in never written ---- */

/* op on in (type t, shape, layout li) along the axes into out (layout lo), scaled by scale; with pad, in is
 * pad elements shorter along the first axis, which the library pads with zeros into its own buffer. */
static void fft_case(const char *l, const char *op, char t, int ndim, const int64_t *shape, int naxes,
                     const int *axes, char li, char lo, double scale, int pad, int meant)
{
    int c2r = strcmp(op, "irfft") == 0, r2c = !c2r && strcmp(op, "fft") && strcmp(op, "ifft");
    int64_t ishape[GPUSHIM_MAX_DIMS], oshape[GPUSHIM_MAX_DIMS], last = shape[axes[naxes - 1]];
    char ct = t == 'f' || t == 'F' ? 'F' : 'D', rt = real_of(ct);
    memcpy(ishape, shape, (size_t)ndim * sizeof *shape);
    memcpy(oshape, shape, (size_t)ndim * sizeof *shape);
    if (c2r)
        ishape[axes[naxes - 1]] = last / 2 + 1;
    if (r2c)
        oshape[axes[naxes - 1]] = last / 2 + 1;
    begin(l);
    int64_t fshape[GPUSHIM_MAX_DIMS];
    memcpy(fshape, ishape, sizeof fshape);
    fshape[axes[0]] -= pad;
    gpushim_array_t in = array("in", r2c ? rt : ct, ndim, fshape, li, 0, 0), whole = in;
    gpushim_array_t out = array("out", c2r ? rt : ct, ndim, oshape, lo, 0, 0);
    memcpy(whole.shape, ishape, sizeof whole.shape);
    whole.data = NULL;
    may_all(&out);
    arm();
    char api[32];
    snprintf(api, sizeof api, "numpy.fft.%s", op);
    finish(fft(api, op, pad ? &whole : &in, pad ? &in : NULL, &out, naxes, axes, scale, 1), meant);
}

static void fft_group(void)
{
    static const int64_t s2[2] = {6, 16}, r2[2] = {5, 30}, s3[3] = {4, 8, 6}, b3[3] = {3, 4, 10};
    static const int a1[1] = {1}, a0[1] = {0}, a01[2] = {0, 1}, a02[2] = {0, 2}, a12[2] = {1, 2},
                     a201[3] = {2, 0, 1}, a2[1] = {2};
    fft_case("fft D 6x16 axis 1", "fft", 'D', 2, s2, 1, a1, 'C', 'C', 1, 0, 1);
    fft_case("fft F 6x16 axis 1, out strided", "fft", 'F', 2, s2, 1, a1, 'C', 'S', 1, 0, 1);
    fft_case("fft D 6x16 axis 0, in strided, out padded F", "fft", 'D', 2, s2, 1, a0, 'S', 'Q', 1, 0, 1);
    fft_case("ifft D 4x8x6 axes 0 2, out F, 1/24", "ifft", 'D', 3, s3, 2, a02, 'C', 'F', 1.0 / 24, 0, 1);
    fft_case("fft D 4x8x6 axes 2 0 1, out F, ortho", "fft", 'D', 3, s3, 3, a201, 'P', 'F', 1 / sqrt(192), 0, 1);
    fft_case("fft D 3x4x10 axis 2, out padded", "fft", 'D', 3, b3, 1, a2, 'C', 'P', 1, 0, 1);
    fft_case("rfft d 5x30 axis 1, out padded", "rfft", 'd', 2, r2, 1, a1, 'C', 'P', 1, 0, 1);
    fft_case("rfft f 5x30 axes 0 1, out F, 1/150", "rfft", 'f', 2, r2, 2, a01, 'F', 'F', 1.0 / 150, 0, 1);
    fft_case("rfft d 3x4x10 axes 1 2, out strided", "rfft", 'd', 3, b3, 2, a12, 'C', 'S', 1, 0, 1);
    fft_case("irfft D 5x30 axis 1, out strided", "irfft", 'D', 2, r2, 1, a1, 'C', 'S', 1, 0, 1);
    fft_case("irfft F 3x4x10 axes 1 2, out F, 1/40", "irfft", 'F', 3, b3, 2, a12, 'C', 'F', 1.0 / 40, 0, 1);
    fft_case("irfft D 5x30 axis 1, out padded, in padded", "irfft", 'D', 2, r2, 1, a1, 'P', 'P', 1, 0, 1);
    fft_case("ihfft d 6x16 axis 1, 1/16", "ihfft", 'd', 2, s2, 1, a1, 'C', 'C', 1.0 / 16, 0, 1);
    fft_case("ihfft f 4x8x6 axes 0 2, out F, 1/24", "ihfft", 'f', 3, s3, 2, a02, 'F', 'F', 1.0 / 24, 0, 1);
    /* inputs shorter than the transform, padded with zeros in the library's buffer: from is only read */
    fft_case("fft D 6x16 axis 1, in 6x11 padded", "fft", 'D', 2, s2, 1, a1, 'C', 'C', 1, 5, 1);
    fft_case("rfft d 5x30 axes 0 1, in 3x30 strided padded, out F", "rfft", 'd', 2, r2, 2, a01, 'S', 'F', 1, 2, 1);
    fft_case("irfft D 3x4x10 axes 1 2, in 3x1x6 padded, 1/40", "irfft", 'D', 3, b3, 2, a12, 'C', 'C', 1.0 / 40, 3,
             1);
    /* a factor other than 1 on an output with gaps: not done, nothing written */
    fft_case("fft D 6x16 axis 1, out strided, 1/16", "fft", 'D', 2, s2, 1, a1, 'C', 'S', 1.0 / 16, 0, 0);
    fft_case("ihfft d 6x16 axis 1, out padded", "ihfft", 'd', 2, s2, 1, a1, 'C', 'P', 1.0 / 16, 0, 0);
    fft_case("irfft D 5x30 axis 1, out padded, 1/30", "irfft", 'D', 2, r2, 1, a1, 'C', 'P', 1.0 / 30, 0, 0);
}

int main(int argc, char **argv)
{
    int any = 0;
    linalg = (linalg_t *)dlsym(RTLD_DEFAULT, "gpushim_linalg");
    fft = (fft_t *)dlsym(RTLD_DEFAULT, "gpushim_fft");
    if (!linalg || !fft)
        return fprintf(stderr, "bounds_arrays: no gpushim_linalg or gpushim_fft: preload libgpushim.so\n"), 2;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "corrupt") == 0)
            corrupt = 1;
        else if (strcmp(argv[i], "linalg") == 0)
            linalg_group(), any = 1;
        else if (strcmp(argv[i], "fft") == 0)
            fft_group(), any = 1;
        else
            any = -1;
    }
    if (any != 1)
        return fprintf(stderr, "usage: bounds_arrays [corrupt] linalg|fft...\n"), 2;
    check_kept();
    printf("gpu_expected=%d\nbounds: %d cases, %d violations\n", gpu_expected, cases, violations);
    return violations != 0;
}

/* ?copy in every precision, Fortran and CBLAS, against BLAS's definition computed here: gathers and scatters
 * (numpy.linalg's pattern), negative and zero increments, overlapping vectors, small calls; from several
 * threads at once; in a parent, a forked child and a grandchild.  Data are random bit patterns (NaN payloads
 * among them), the whole output buffer is compared byte for byte, so an element moved wrongly, or one written
 * that BLAS leaves alone, fails.  Usage: copies; exit status 0 when every case matched. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void scopy_(const int *, const void *, const int *, void *, const int *);
void dcopy_(const int *, const void *, const int *, void *, const int *);
void ccopy_(const int *, const void *, const int *, void *, const int *);
void zcopy_(const int *, const void *, const int *, void *, const int *);
void cblas_scopy(int, const void *, int, void *, int);
void cblas_dcopy(int, const void *, int, void *, int);
void cblas_ccopy(int, const void *, int, void *, int);
void cblas_zcopy(int, const void *, int, void *, int);

typedef void fcopy(const int *, const void *, const int *, void *, const int *);
typedef void ccopy(int, const void *, int, void *, int);
static fcopy *const f77[4] = {scopy_, dcopy_, ccopy_, zcopy_};
static ccopy *const cbl[4] = {cblas_scopy, cblas_dcopy, cblas_ccopy, cblas_zcopy};
static const size_t esz[4] = {4, 8, 8, 16};

typedef struct {
    int n, incx, incy;
    int overlap; /* y inside x's buffer, shifted by one element */
} pattern_t;

static const pattern_t patterns[] = {
    {3000, 777, 1, 0},  /* gather, as numpy.linalg copies into Fortran order */
    {3000, 1, 513, 0},  /* scatter, as it copies back */
    {2500, -300, 301, 0}, {2500, 400, -1, 0}, {4096, 64, 64, 0},
    {100, 500, 1, 0},   /* small: the CPU library's */
    {2000, 0, 600, 0},  /* zero increment: x(1) everywhere */
    {2000, 600, 0, 0},  /* the last element of x into y(1) */
    {2000, 64, 64, 1},  /* interleaved in one buffer */
    {1500, 1, 1, 0}, {0, 500, 1, 0}, {-3, 500, 1, 0},
};

static void randomise(unsigned char *b, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = (unsigned char)(seed >> 56);
    }
}

static size_t span(int n, int inc) { return n > 0 ? (size_t)(n - 1) * (size_t)abs(inc) + 1 : 1; }

/* BLAS's copy, element by element in its order. */
static void reference(size_t es, int n, const unsigned char *x, int incx, unsigned char *y, int incy)
{
    long ix = incx < 0 ? (long)(1 - n) * incx : 0, iy = incy < 0 ? (long)(1 - n) * incy : 0;
    for (int i = 0; i < n; i++, ix += incx, iy += incy)
        memmove(y + (size_t)iy * es, x + (size_t)ix * es, es);
}

/* One case: 0 when the call's whole buffer equals the reference's. */
static int one(int prec, int cblas, const pattern_t *pt, uint64_t seed)
{
    size_t es = esz[prec], sx = span(pt->n, pt->incx) * es, sy = span(pt->n, pt->incy) * es;
    size_t total = pt->overlap ? (sx > sy ? sx : sy) + es : sx + sy;
    unsigned char *got = malloc(total), *want = malloc(total);
    randomise(got, total, seed);
    memcpy(want, got, total);
    size_t yoff = pt->overlap ? es : sx;
    reference(es, pt->n, want, pt->incx, want + yoff, pt->incy);
    if (cblas)
        cbl[prec](pt->n, got, pt->incx, got + yoff, pt->incy);
    else
        f77[prec](&pt->n, got, &pt->incx, got + yoff, &pt->incy);
    int bad = memcmp(got, want, total) != 0;
    free(got);
    free(want);
    return bad;
}

static int all(uint64_t seed, const char *who)
{
    int bad = 0;
    for (int prec = 0; prec < 4; prec++)
        for (int cblas = 0; cblas < 2; cblas++)
            for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++)
                if (one(prec, cblas, &patterns[i], seed + i)) {
                    printf("%s: %c%s n=%d incx=%d incy=%d differs from BLAS's copy\n", who, "sdcz"[prec],
                           cblas ? " (cblas)" : "", patterns[i].n, patterns[i].incx, patterns[i].incy);
                    bad = 1;
                }
    return bad;
}

static void *thread(void *arg)
{
    static const char *const names[] = {"thread 0", "thread 1", "thread 2", "thread 3"};
    intptr_t k = (intptr_t)arg;
    return (void *)(intptr_t)all(100 + (uint64_t)k, names[k]);
}

static int wait_ok(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(void)
{
    int bad = all(1, "main");
    pthread_t t[4];
    for (intptr_t k = 0; k < 4; k++)
        pthread_create(&t[k], NULL, thread, (void *)k);
    for (int k = 0; k < 4; k++) {
        void *r;
        pthread_join(t[k], &r);
        bad |= r != NULL;
    }
    pid_t child = fork();
    if (child == 0) {
        int cbad = all(2, "child");
        pid_t grandchild = fork();
        if (grandchild == 0)
            _exit(all(3, "grandchild"));
        _exit(cbad | !wait_ok(grandchild));
    }
    bad |= !wait_ok(child);
    bad |= all(4, "main after fork");
    printf("copies: %s\n", bad ? "FAILED" : "every case equals BLAS's copy");
    return bad;
}

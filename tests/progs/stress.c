/* Many threads calling BLAS, LAPACK and FFTW at once (issue 24, tests/t_races.sh): each thread makes CALLS calls
 * of a deterministic mix (dgemm, zgemm, sgemm, dtrsm, dsyrk, dgesv, dpotrf, fftw_execute of its own plan,
 * fftw_execute_dft of a shared plan on its own arrays), mostly small, one in 256 large, reading shared operands
 * and writing private outputs.  Each call's output is reduced to a checksum; the file holds one record per
 * thread and operation, for blas_cmp.  With --fork K, thread 0 forks a child every K calls while the others are
 * busy: the child checks two products against plain loops, forks a grandchild that does the same, and both
 * exit through exit() (the shim's exit path in a child of a busy process).
 * usage: stress FILE [THREADS [CALLS]] [--fork K] */
#include <fftw3.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "results.h"

void sgemm_(const char *, const char *, const int *, const int *, const int *, const float *, const float *,
            const int *, const float *, const int *, const float *, float *, const int *, size_t, size_t);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *, const double *,
            const double *, const int *, double *, const int *, size_t, size_t, size_t, size_t);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, double *, const int *, size_t, size_t);
void dgesv_(const int *, const int *, double *, const int *, int *, double *, const int *, int *);
void dpotrf_(const char *, const int *, double *, const int *, int *, size_t);

enum { NMAX = 128, FN = 64, FN_LARGE = 4096, MAX_THREADS = 64 };
enum { DGEMM, ZGEMM, SGEMM, DTRSM, DSYRK, DGESV, DPOTRF, FFT_OWN, FFT_SHARED, NOPS };
static const char *const op_name[NOPS] = {"dgemm", "zgemm",  "sgemm",         "dtrsm",          "dsyrk",
                                          "dgesv", "dpotrf", "fftw_execute", "fftw_execute_dft"};

/* Shared operands, written by the main thread before the workers start and only read by them. */
static double A[NMAX * NMAX], Bm[NMAX * NMAX], T[NMAX * NMAX], G[NMAX * NMAX], P[NMAX * NMAX];
static double Z[2 * NMAX * NMAX], Zb[2 * NMAX * NMAX];
static float S[NMAX * NMAX], Sb[NMAX * NMAX];
/* FFTW's planner is not thread-safe: every plan is made by the main thread up front.  shared_plan[f] is executed
 * by every thread on arrays of its own (fftw_execute_dft), each thread's own plans (job_t) on theirs. */
static fftw_plan shared_plan[2];
static const int fft_n[2] = {FN, FN_LARGE};

typedef struct {
    int id, calls;
    double *sum[NOPS]; /* the checksums of the thread's calls of each operation, in order */
    int nsum[NOPS];
    double *c, *z, *w;   /* private outputs: NMAX x NMAX doubles, complex doubles, a work copy */
    float *s;
    int ipiv[NMAX];
    fftw_complex *in[2], *out[2], *in2[2], *out2[2]; /* own plan's arrays; arrays for the shared plan */
    fftw_plan own[2];
    int forks, fork_failures;
} job_t;

static int threads = 16, calls = 10000, fork_every;

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The checksum of an output: a weighted sum, so that a moved or swapped element changes it. */
static double checksum(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * (1 + (double)(i % 7) * 0.125);
    return s;
}

static double checksum_f(const float *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * (1 + (double)(i % 7) * 0.125);
    return s;
}

/* A square copy of the leading n x n block of the shared m (leading dimension NMAX) into w. */
static void copy_block(double *w, const double *m, int n)
{
    for (int j = 0; j < n; j++)
        memcpy(w + (size_t)j * n, m + (size_t)j * NMAX, sizeof *w * (size_t)n);
}

/* One call: operation op with sizes from h; returns its checksum. */
static double call(job_t *j, int op, uint64_t h)
{
    int large = (h >> 40) % 256 == 0;
    int n = large ? 96 + (int)((h >> 8) % 33) : 4 + (int)((h >> 8) % 37);
    int k = large ? 96 + (int)((h >> 16) % 33) : 1 + (int)((h >> 16) % 40), info = 0, ld = NMAX, two = 2;
    const char *ta = (h >> 24) & 1 ? "T" : "N", *tb = (h >> 25) & 1 ? "T" : "N";
    double one = 1, zero = 0, half = 0.5;
    switch (op) {
    case DGEMM: /* C (n x n, ld n) = A B, both read from the shared matrices at their leading dimension */
        dgemm_(ta, tb, &n, &n, &k, &one, A, &ld, Bm, &ld, &zero, j->c, &n, 1, 1);
        return checksum(j->c, (size_t)n * n);
    case ZGEMM: {
        double al[2] = {0.5, -0.25}, be[2] = {0, 0};
        zgemm_(ta, tb, &n, &n, &k, al, Z, &ld, Zb, &ld, be, j->z, &n, 1, 1);
        return checksum(j->z, 2 * (size_t)n * n);
    }
    case SGEMM: {
        float fone = 1, fzero = 0;
        sgemm_(ta, tb, &n, &n, &k, &fone, S, &ld, Sb, &ld, &fzero, j->s, &n, 1, 1);
        return checksum_f(j->s, (size_t)n * n);
    }
    case DTRSM: /* X T = B or T X = B with the shared upper triangle T, B copied from the shared Bm */
        copy_block(j->c, Bm, n);
        dtrsm_((h >> 26) & 1 ? "L" : "R", "U", ta, "N", &n, &n, &half, T, &ld, j->c, &n, 1, 1, 1, 1);
        return checksum(j->c, (size_t)n * n);
    case DSYRK: /* C (n x n) = A A^T, the lower triangle; the upper stays zero */
        memset(j->c, 0, sizeof *j->c * (size_t)n * n);
        dsyrk_("L", ta, &n, &k, &one, A, &ld, &zero, j->c, &n, 1, 1);
        return checksum(j->c, (size_t)n * n);
    case DGESV: /* G X = B, G diagonally dominant, on private copies */
        copy_block(j->w, G, n);
        copy_block(j->c, Bm, n);
        dgesv_(&n, &two, j->w, &n, j->ipiv, j->c, &n, &info);
        return checksum(j->c, 2 * (size_t)n) + info;
    case DPOTRF: /* the Cholesky factor of a private copy of the shared positive definite P */
        copy_block(j->w, P, n);
        dpotrf_("L", &n, j->w, &n, &info, 1);
        return checksum(j->w, (size_t)n * n) + info;
    case FFT_OWN:
    case FFT_SHARED: {
        int f = large, len = fft_n[f];
        fftw_complex *in = op == FFT_OWN ? j->in[f] : j->in2[f], *out = op == FFT_OWN ? j->out[f] : j->out2[f];
        for (int i = 0; i < len; i++)
            in[i][0] = sin(0.01 * (double)(i + n)), in[i][1] = cos(0.03 * (double)(i * k));
        if (op == FFT_OWN)
            fftw_execute(j->own[f]);
        else
            fftw_execute_dft(shared_plan[f], in, out);
        return checksum(&out[0][0], 2 * (size_t)len);
    }
    }
    return 0;
}

/* C = A B of order n, from seeds, against plain loops: whether they agree.  For a forked child. */
static int product_right(int n, unsigned seed)
{
    double *a = malloc(sizeof *a * (size_t)n * n * 4), *b = a + (size_t)n * n, *c = b + (size_t)n * n,
           *r = c + (size_t)n * n, big = 1;
    fill(a, (size_t)n * n, seed);
    fill(b, (size_t)n * n, seed + 1);
    square_dgemm(n, seed, c);
    for (int col = 0; col < n; col++)
        for (int row = 0; row < n; row++) {
            double s = 0;
            for (int l = 0; l < n; l++)
                s += a[row + (size_t)l * n] * b[l + (size_t)col * n];
            r[row + (size_t)col * n] = s;
            big = fabs(s) > big ? fabs(s) : big;
        }
    int ok = 1;
    for (size_t i = 0; i < (size_t)n * n; i++)
        ok &= fabs(c[i] - r[i]) <= 1e-10 * big;
    free(a);
    return ok;
}

static int wait_ok(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A forked child's work: a small product and one of the order the GPU takes in the parent, then the same in a
 * grandchild; each process leaves through exit(), the shim's exit path in a child of a busy process. */
static void child(unsigned seed)
{
    int ok = product_right(48, seed) && product_right(160, seed + 7);
    pid_t g = fork();
    if (g == 0)
        exit(product_right(48, seed + 1) && product_right(160, seed + 8) ? 0 : 1);
    ok &= g > 0 && wait_ok(g);
    exit(ok ? 0 : 1);
}

static void *run(void *arg)
{
    job_t *j = arg;
    for (int i = 0; i < j->calls; i++) {
        uint64_t h = mix((uint64_t)j->id << 32 | (uint64_t)i);
        int op = (int)(h % NOPS);
        j->sum[op][j->nsum[op]++] = call(j, op, h);
        if (fork_every && j->id == 0 && i % fork_every == fork_every - 1) {
            pid_t pid = fork();
            if (pid == 0)
                child((unsigned)i);
            j->forks++;
            j->fork_failures += pid < 0 || !wait_ok(pid);
        }
    }
    return NULL;
}

static void setup_shared(void)
{
    fill(A, NMAX * NMAX, 1);
    fill(Bm, NMAX * NMAX, 2);
    fill(Z, 2 * NMAX * NMAX, 3);
    fill(Zb, 2 * NMAX * NMAX, 4);
    for (int i = 0; i < NMAX * NMAX; i++) {
        S[i] = (float)A[i];
        Sb[i] = (float)Bm[i];
    }
    for (int c = 0; c < NMAX; c++)
        for (int r = 0; r < NMAX; r++) {
            T[r + c * NMAX] = r < c ? A[r + c * NMAX] : r == c ? NMAX / 2 : 0;
            G[r + c * NMAX] = A[r + c * NMAX] + (r == c ? NMAX : 0);
            double s = r == c ? NMAX : 0;
            for (int l = 0; l < NMAX; l++)
                s += A[r + l * NMAX] * A[c + l * NMAX];
            P[r + c * NMAX] = s;
        }
}

static void setup_job(job_t *j)
{
    for (int op = 0; op < NOPS; op++)
        j->sum[op] = calloc((size_t)j->calls, sizeof(double));
    j->c = malloc(sizeof(double) * NMAX * NMAX);
    j->w = malloc(sizeof(double) * NMAX * NMAX);
    j->z = malloc(sizeof(double) * 2 * NMAX * NMAX);
    j->s = malloc(sizeof(float) * NMAX * NMAX);
    for (int f = 0; f < 2; f++) {
        j->in[f] = fftw_alloc_complex((size_t)fft_n[f]);
        j->out[f] = fftw_alloc_complex((size_t)fft_n[f]);
        j->in2[f] = fftw_alloc_complex((size_t)fft_n[f]);
        j->out2[f] = fftw_alloc_complex((size_t)fft_n[f]);
        j->own[f] = fftw_plan_dft_1d(fft_n[f], j->in[f], j->out[f], FFTW_FORWARD, FFTW_ESTIMATE);
    }
}

int main(int argc, char **argv)
{
    int pos = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fork") == 0 && i + 1 < argc)
            fork_every = atoi(argv[++i]);
        else if (pos == 0 && ++pos)
            path = argv[i];
        else if (pos == 1 && ++pos)
            threads = atoi(argv[i]);
        else if (pos == 2 && ++pos)
            calls = atoi(argv[i]);
    }
    FILE *f = path ? fopen(path, "wb") : NULL;
    if (!f || threads < 1 || threads > MAX_THREADS || calls < 1 || fork_every < 0)
        return fprintf(stderr, "usage: stress FILE [THREADS [CALLS]] [--fork K]\n"), 2;
    setup_shared();
    static job_t jobs[MAX_THREADS];
    for (int f2 = 0; f2 < 2; f2++) {
        fftw_complex *in = fftw_alloc_complex((size_t)fft_n[f2]), *out = fftw_alloc_complex((size_t)fft_n[f2]);
        shared_plan[f2] = fftw_plan_dft_1d(fft_n[f2], in, out, FFTW_FORWARD, FFTW_ESTIMATE);
    }
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < threads; i++) {
        jobs[i].id = i;
        jobs[i].calls = calls;
        setup_job(&jobs[i]);
    }
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, run, &jobs[i]) != 0)
            return fprintf(stderr, "stress: cannot start thread %d\n", i), 1;
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    int rc = 0;
    for (int i = 0; i < threads; i++) {
        for (int op = 0; op < NOPS; op++) {
            char label[64];
            snprintf(label, sizeof label, "thread %d %s", i, op_name[op]);
            if (op == SGEMM) { /* single precision's tolerance: the checksums as floats */
                float *fs = malloc(sizeof *fs * (size_t)jobs[i].nsum[op] + 1);
                for (int c = 0; c < jobs[i].nsum[op]; c++)
                    fs[c] = (float)jobs[i].sum[op][c];
                result_write(f, label, 0, fs, jobs[i].nsum[op]);
                free(fs);
            } else {
                result_write(f, label, 1, jobs[i].sum[op], jobs[i].nsum[op]);
            }
        }
        if (jobs[i].forks)
            fprintf(stderr, "stress: %d forks, %d failed\n", jobs[i].forks, jobs[i].fork_failures);
        rc |= jobs[i].fork_failures != 0;
    }
    return (fclose(f) != 0) | rc;
}

/* Calls during the GPU's background bring-up (tests/t_warmup.sh).  Usage: warmup CALLS PAUSE_MS [MODE], MODE one
 * of: fork (after the first call, a child makes two calls and exits; the parent waits for it, then goes on),
 * exit (returns from main PAUSE_MS after the first call, with the bring-up under way), dgetrf (the calls after
 * the first are LU factorisations, whose family brings up cuSOLVER on top), wait (gpushim_gpu_wait, before the
 * first call with no time to wait and after it for PAUSE_MS, each result on stderr; the calls after it without
 * pause), lu_exit (every call an LU factorisation of order 1024, the CPU library's threads busy for a while:
 * the first starts the bring-up of cuBLAS and cuSOLVER, the others run back to back beside it, and main returns
 * PAUSE_MS after the first, with the bring-up under way), svd (every call the singular value decomposition of a
 * 3000 x 800 matrix, which the built-in policy predicts seconds for on the CPU), svd_dgemm (the first call that
 * SVD, the others products).  Each call is a 128 x 128
 * DGEMM (or DGETRF), PAUSE_MS apart; prints one line per call with its result's checksum, so that runs with and
 * without the shim can be compared. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s, double *u,
             const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork, int *info,
             size_t len);

#define N 128
#define N_LONG 1024

static double sum(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

static void lu_of(int n, unsigned seed, const char *who, int call)
{
    static double a[N_LONG * N_LONG];
    static int ipiv[N_LONG];
    int info = 0;
    fill(a, (size_t)n * n, seed);
    for (int i = 0; i < n; i++)
        a[i * n + i] += n;
    dgetrf_(&n, &n, a, &n, ipiv, &info);
    printf("%s %d dgetrf %d %.10e\n", who, call, info, sum(a, n * n));
}

static void lu(unsigned seed, const char *who, int call) { lu_of(N, seed, who, call); }

/* The SVD with the thin vectors ('S', as scikit-learn's PCA asks); the checksum is of the singular values, which
 * unlike the vectors' signs are the same whoever computes them. */
static void svd(unsigned seed, const char *who, int call)
{
    enum { M = 3000, K = 800 };
    int m = M, n = K, lwork = -1, info = 0;
    static int iwork[8 * K];
    double *a = malloc(sizeof(double) * M * K), *u = malloc(sizeof(double) * M * K), vt[1], s[K], q = 0;
    dgesdd_("S", &m, &n, a, &m, s, u, &m, vt, &n, &q, &lwork, iwork, &info, 1);
    lwork = (int)q;
    double *work = malloc(sizeof(double) * (size_t)lwork), *v = malloc(sizeof(double) * K * K);
    fill(a, (size_t)M * K, seed);
    dgesdd_("S", &m, &n, a, &m, s, u, &m, v, &n, work, &lwork, iwork, &info, 1);
    printf("%s %d dgesdd %d %.10e\n", who, call, info, sum(s, K));
    free(a), free(u), free(v), free(work);
}

/* Milliseconds on the monotonic clock. */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void product(unsigned seed, const char *who, int call)
{
    static double c[N * N];
    square_dgemm(N, seed, c);
    printf("%s %d dgemm %.10e\n", who, call, sum(c, N * N));
}

/* gpushim_gpu_wait(seconds), looked up so that the program runs without the shim too: -1 without it. */
static int gpu_wait(double seconds)
{
    int (*wait)(double) = (int (*)(double))dlsym(RTLD_DEFAULT, "gpushim_gpu_wait");
    return wait ? wait(seconds) : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int calls = atoi(argv[1]), pause_ms = atoi(argv[2]);
    const char *mode = argc > 3 ? argv[3] : "";
    int waits = strcmp(mode, "wait") == 0;
    if (waits)
        fprintf(stderr, "before %d\n", gpu_wait(0));
    if (strcmp(mode, "lu_exit") == 0) {
        double t0 = 0;
        for (int i = 0; i < calls; i++) {
            lu_of(N_LONG, (unsigned)i, "main", i);
            t0 = i ? t0 : now_ms();
        }
        fflush(stdout);
        double left = pause_ms - (now_ms() - t0);
        if (left > 0)
            usleep((useconds_t)(left * 1000));
        return 0;
    }
    for (int i = 0; i < calls; i++) {
        if (strcmp(mode, "svd") == 0 || (i == 0 && strcmp(mode, "svd_dgemm") == 0))
            svd((unsigned)i, "main", i);
        else if (i > 0 && strcmp(mode, "dgetrf") == 0)
            lu((unsigned)i, "main", i);
        else
            product((unsigned)i, "main", i);
        fflush(stdout);
        if (i == 0 && waits) {
            fprintf(stderr, "after %d\n", gpu_wait(pause_ms * 1e-3));
            pause_ms = 0;
        }
        if (i == 0 && strcmp(mode, "exit") == 0) {
            usleep((useconds_t)pause_ms * 1000);
            return 0;
        }
        if (i == 0 && strcmp(mode, "fork") == 0) {
            pid_t pid = fork();
            if (pid == 0) {
                product(100, "child", 0);
                product(101, "child", 1);
                fflush(stdout);
                _exit(0);
            }
            int st = 0;
            if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return 1;
        }
        usleep((useconds_t)pause_ms * 1000);
    }
    return 0;
}

/* What cuSOLVER itself takes, data already on the device: the three SVD algorithms for a square float64 matrix
 * with every singular vector (what numpy.linalg.svd asks of gesdd), with their accuracy, and LU with a solve.
 * Decides which SVD the shim uses and what is left of a LAPACK call's time for the copies.
 * build: cc -O2 -I/usr/local/cuda/include bench/solver_probe.c -L/usr/local/cuda/lib64 -lcusolver -lcublas -lcudart
 * usage: solver_probe [N_SVD [N_LU [NRHS]]]   (defaults 4096 8192 64; LU with each getrf algorithm)
 *        solver_probe values M N [M N ...]  (singular values alone, M >= N: gesvd against gesvdp)
 *        solver_probe grid                   (which small shapes and special matrices gesvdp refuses) */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) \
    do { \
        int st_ = (int)(x); \
        if (st_) { \
            fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, st_); \
            exit(1); \
        } \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static cusolverDnHandle_t sol;
static cusolverDnParams_t par;
static cublasHandle_t blas;
static double *dev(size_t n)
{
    double *p;
    CK(cudaMalloc((void **)&p, n * sizeof *p));
    return p;
}

/* ||A - U diag(s) VT||_F / ||A||_F and ||U^T U - I||_F / sqrt(n), on the device. */
static void check(const double *a, const double *u, const double *s, const double *vt, int n, double *res,
                  double *orth)
{
    size_t nn = (size_t)n * n;
    double *us = dev(nn), *r = dev(nn), *hs = malloc(n * sizeof *hs), one = 1, mone = -1, zero = 0, na, nr;
    CK(cudaMemcpy(hs, s, n * sizeof *hs, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(us, u, nn * sizeof *us, cudaMemcpyDeviceToDevice));
    for (int j = 0; j < n; j++)
        CK(cublasDscal(blas, n, &hs[j], us + (size_t)j * n, 1));
    CK(cudaMemcpy(r, a, nn * sizeof *r, cudaMemcpyDeviceToDevice));
    CK(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &mone, us, n, vt, n, &one, r, n));
    CK(cublasDnrm2(blas, (int)nn, a, 1, &na));
    CK(cublasDnrm2(blas, (int)nn, r, 1, &nr));
    *res = nr / na;
    CK(cublasDgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, u, n, u, n, &zero, r, n));
    double *eye = calloc(nn, sizeof *eye);
    for (int i = 0; i < n; i++)
        eye[(size_t)i * n + i] = 1;
    CK(cudaMemcpy(us, eye, nn * sizeof *us, cudaMemcpyHostToDevice));
    CK(cublasDaxpy(blas, (int)nn, &mone, us, 1, r, 1));
    CK(cublasDnrm2(blas, (int)nn, r, 1, &nr));
    *orth = nr / sqrt(n);
    cudaFree(us);
    cudaFree(r);
    free(hs);
    free(eye);
}

static void report(const char *name, double ms, const double *a, const double *u, const double *s,
                   const double *vt, const double *sref, int n)
{
    double res, orth, ds = 0, *h = malloc(2 * n * sizeof *h);
    check(a, u, s, vt, n, &res, &orth);
    CK(cudaMemcpy(h, s, n * sizeof *h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h + n, sref, n * sizeof *h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        ds = fmax(ds, fabs(h[i] - h[n + i]) / h[n]);
    printf("svd n=%d %-8s %9.1f ms  residual %.2e  orthogonality %.2e  max|s - s_gesvd|/s_max %.2e\n", n, name, ms,
           res, orth, ds);
    free(h);
}

static void svd(int n)
{
    size_t nn = (size_t)n * n, dw, hw;
    double *a = dev(nn), *w = dev(nn), *u = dev(nn), *vt = dev(nn), *v = dev(nn), *s = dev(n), *sref = dev(n);
    double *ha = malloc(nn * sizeof *ha), one = 1, zero = 0, err;
    int *info = (int *)dev(1);
    srand(1);
    for (size_t i = 0; i < nn; i++)
        ha[i] = rand() / (double)RAND_MAX - 0.5;
    CK(cudaMemcpy(a, ha, nn * sizeof *ha, cudaMemcpyHostToDevice));
    void *dbuf = NULL, *hbuf = NULL;

    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemcpy(w, a, nn * sizeof *w, cudaMemcpyDeviceToDevice));
        CK(cusolverDnXgesvd_bufferSize(sol, par, 'A', 'A', n, n, CUDA_R_64F, w, n, CUDA_R_64F, sref, CUDA_R_64F, u, n,
                                       CUDA_R_64F, vt, n, CUDA_R_64F, &dw, &hw));
        dbuf = dev(dw / 8 + 1);
        hbuf = malloc(hw + 1);
        CK(cudaDeviceSynchronize());
        double t = now();
        CK(cusolverDnXgesvd(sol, par, 'A', 'A', n, n, CUDA_R_64F, w, n, CUDA_R_64F, sref, CUDA_R_64F, u, n,
                            CUDA_R_64F, vt, n, CUDA_R_64F, dbuf, dw, hbuf, hw, info));
        CK(cudaDeviceSynchronize());
        t = now() - t;
        cudaFree(dbuf);
        free(hbuf);
        if (rep)
            report("gesvd", 1e3 * t, a, u, sref, vt, sref, n);
    }

    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemcpy(w, a, nn * sizeof *w, cudaMemcpyDeviceToDevice));
        CK(cusolverDnXgesvdp_bufferSize(sol, par, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, CUDA_R_64F, w, n, CUDA_R_64F, s,
                                        CUDA_R_64F, u, n, CUDA_R_64F, v, n, CUDA_R_64F, &dw, &hw));
        dbuf = dev(dw / 8 + 1);
        hbuf = malloc(hw + 1);
        CK(cudaDeviceSynchronize());
        double t = now();
        CK(cusolverDnXgesvdp(sol, par, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, CUDA_R_64F, w, n, CUDA_R_64F, s,
                             CUDA_R_64F, u, n, CUDA_R_64F, v, n, CUDA_R_64F, dbuf, dw, hbuf, hw, info, &err));
        /* gesvdp returns V; LAPACK returns V^T */
        CK(cublasDgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, v, n, &zero, vt, n, vt, n));
        CK(cudaDeviceSynchronize());
        t = now() - t;
        cudaFree(dbuf);
        free(hbuf);
        if (rep)
            report("gesvdp", 1e3 * t, a, u, s, vt, sref, n);
    }

    gesvdjInfo_t j;
    CK(cusolverDnCreateGesvdjInfo(&j));
    for (int rep = 0; rep < 2; rep++) {
        int lw;
        CK(cudaMemcpy(w, a, nn * sizeof *w, cudaMemcpyDeviceToDevice));
        CK(cusolverDnDgesvdj_bufferSize(sol, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, w, n, s, u, n, v, n, &lw, j));
        double *work = dev((size_t)lw);
        CK(cudaDeviceSynchronize());
        double t = now();
        CK(cusolverDnDgesvdj(sol, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, w, n, s, u, n, v, n, work, lw, info, j));
        CK(cublasDgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &one, v, n, &zero, vt, n, vt, n));
        CK(cudaDeviceSynchronize());
        t = now() - t;
        cudaFree(work);
        if (rep)
            report("gesvdj", 1e3 * t, a, u, s, vt, sref, n);
    }
    cudaFree(a), cudaFree(w), cudaFree(u), cudaFree(vt), cudaFree(v), cudaFree(s), cudaFree(sref), cudaFree(info);
    free(ha);
}

static void lu(int n, int nrhs)
{
    size_t nn = (size_t)n * n, dw, hw;
    double *a = dev(nn), *b = dev((size_t)n * nrhs), *h = malloc(nn * sizeof *h);
    int64_t *ipiv;
    int *info = (int *)dev(1);
    CK(cudaMalloc((void **)&ipiv, n * sizeof *ipiv));
    for (size_t i = 0; i < nn; i++)
        h[i] = rand() / (double)RAND_MAX - 0.5;
    double *lu0 = malloc(nn * sizeof *lu0), *lu1 = malloc(nn * sizeof *lu1);
    for (int rep = 0; rep < 6; rep++) {
        int alg = rep / 3; /* CUSOLVER_ALG_0, then CUSOLVER_ALG_1 */
        CK(cusolverDnSetAdvOptions(par, CUSOLVERDN_GETRF, alg ? CUSOLVER_ALG_1 : CUSOLVER_ALG_0));
        CK(cudaMemcpy(a, h, nn * sizeof *h, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(b, h, (size_t)n * nrhs * sizeof *h, cudaMemcpyHostToDevice));
        CK(cusolverDnXgetrf_bufferSize(sol, par, n, n, CUDA_R_64F, a, n, CUDA_R_64F, &dw, &hw));
        void *dbuf = dev(dw / 8 + 1), *hbuf = malloc(hw + 1);
        CK(cudaDeviceSynchronize());
        double t0 = now();
        CK(cusolverDnXgetrf(sol, par, n, n, CUDA_R_64F, a, n, ipiv, CUDA_R_64F, dbuf, dw, hbuf, hw, info));
        CK(cudaDeviceSynchronize());
        double t1 = now();
        CK(cusolverDnXgetrs(sol, par, CUBLAS_OP_N, n, nrhs, CUDA_R_64F, a, n, ipiv, CUDA_R_64F, b, n, info));
        CK(cudaDeviceSynchronize());
        double t2 = now();
        if (rep % 3)
            printf("lu n=%d algorithm %d: getrf %.1f ms, getrs %d rhs %.1f ms\n", n, alg, 1e3 * (t1 - t0), nrhs,
                   1e3 * (t2 - t1));
        CK(cudaMemcpy(alg ? lu1 : lu0, a, nn * sizeof *h, cudaMemcpyDeviceToHost));
        cudaFree(dbuf);
        free(hbuf);
    }
    double d = 0, m = 0;
    for (size_t i = 0; i < nn; i++)
        d = fmax(d, fabs(lu0[i] - lu1[i])), m = fmax(m, fabs(lu0[i]));
    printf("lu n=%d: max |LU_alg1 - LU_alg0| / max |LU_alg0| = %.2e\n", n, d / m);
    CK(cusolverDnSetAdvOptions(par, CUSOLVERDN_GETRF, CUSOLVER_ALG_0));
    cudaFree(a), cudaFree(b), cudaFree(ipiv), cudaFree(info);
    free(h), free(lu0), free(lu1);
}

/* Singular values alone of an m x n float64 matrix: gesvd without vectors against gesvdp without vectors, the
 * latter handed scratch U and V (with NULL ones it made an illegal memory access on the H200). */
static void svd_values(int m, int n)
{
    size_t mn = (size_t)(m < n ? m : n), dw, hw;
    double *a = dev((size_t)m * n), *w = dev((size_t)m * n), *u = dev((size_t)m * mn), *v = dev((size_t)n * mn);
    double *s = dev(mn), *sref = dev(mn), *ha = malloc((size_t)m * n * sizeof *ha), err = -1, t;
    double *hs = malloc(2 * mn * sizeof *hs);
    int *info = (int *)dev(1);
    for (size_t i = 0; i < (size_t)m * n; i++)
        ha[i] = rand() / (double)RAND_MAX - 0.5;
    CK(cudaMemcpy(a, ha, (size_t)m * n * sizeof *ha, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemcpy(w, a, (size_t)m * n * sizeof *w, cudaMemcpyDeviceToDevice));
        CK(cusolverDnXgesvd_bufferSize(sol, par, 'N', 'N', m, n, CUDA_R_64F, w, m, CUDA_R_64F, sref, CUDA_R_64F, u,
                                       m, CUDA_R_64F, v, n, CUDA_R_64F, &dw, &hw));
        void *dbuf = dev(dw / 8 + 1), *hbuf = malloc(hw + 1);
        CK(cudaDeviceSynchronize());
        t = now();
        CK(cusolverDnXgesvd(sol, par, 'N', 'N', m, n, CUDA_R_64F, w, m, CUDA_R_64F, sref, CUDA_R_64F, u, m,
                            CUDA_R_64F, v, n, CUDA_R_64F, dbuf, dw, hbuf, hw, info));
        CK(cudaDeviceSynchronize());
        if (rep)
            printf("values m=%d n=%d gesvd  %9.1f ms\n", m, n, 1e3 * (now() - t));
        cudaFree(dbuf);
        free(hbuf);
    }
    for (int rep = 0; rep < 2; rep++) {
        CK(cudaMemcpy(w, a, (size_t)m * n * sizeof *w, cudaMemcpyDeviceToDevice));
        CK(cusolverDnXgesvdp_bufferSize(sol, par, CUSOLVER_EIG_MODE_NOVECTOR, 1, m, n, CUDA_R_64F, w, m, CUDA_R_64F,
                                        s, CUDA_R_64F, u, m, CUDA_R_64F, v, n, CUDA_R_64F, &dw, &hw));
        void *dbuf = dev(dw / 8 + 1), *hbuf = malloc(hw + 1);
        CK(cudaDeviceSynchronize());
        t = now();
        CK(cusolverDnXgesvdp(sol, par, CUSOLVER_EIG_MODE_NOVECTOR, 1, m, n, CUDA_R_64F, w, m, CUDA_R_64F, s,
                             CUDA_R_64F, u, m, CUDA_R_64F, v, n, CUDA_R_64F, dbuf, dw, hbuf, hw, info, &err));
        CK(cudaDeviceSynchronize());
        t = now() - t;
        cudaFree(dbuf);
        free(hbuf);
        CK(cudaMemcpy(hs, s, mn * sizeof *hs, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hs + mn, sref, mn * sizeof *hs, cudaMemcpyDeviceToHost));
        double ds = 0;
        for (size_t i = 0; i < mn; i++)
            ds = fmax(ds, fabs(hs[i] - hs[mn + i]) / hs[mn]);
        if (rep)
            printf("values m=%d n=%d gesvdp %9.1f ms  h_err_sigma %.2e  max|s - s_gesvd|/s_max %.2e\n", m, n,
                   1e3 * t, err, ds);
    }
    cudaFree(a), cudaFree(w), cudaFree(u), cudaFree(v), cudaFree(s), cudaFree(sref), cudaFree(info);
    free(ha), free(hs);
}

/* gesvdp's status over small shapes, both jobs and both econ values, in float64 and complex128, each followed
 * by a gesvd on the same handle (does a refusal leave the device usable?): prints the combinations that fail. */
static void svdp_grid(void)
{
    static const int dims[] = {1, 2, 3, 4, 5, 8, 10, 16, 30, 40, 64, 100, 300};
    static const cudaDataType types[] = {CUDA_R_64F, CUDA_C_64F};
    int nd = sizeof dims / sizeof *dims, bad = 0, tried = 0;
    double *a = dev(2 * 300 * 300), *u = dev(2 * 300 * 300), *v = dev(2 * 300 * 300), *s = dev(300);
    int *info = (int *)dev(1);
    double *h = malloc(2 * 300 * 300 * sizeof *h);
    for (int i = 0; i < 2 * 300 * 300; i++)
        h[i] = rand() / (double)RAND_MAX - 0.5;
    for (int t = 0; t < 2; t++)
        for (int vec = 0; vec < 2; vec++)
            for (int econ = 0; econ < 2; econ++)
                for (int im = 0; im < nd; im++)
                    for (int in = 0; in <= im; in++) {
                        int64_t m = dims[im], n = dims[in];
                        size_t dw = 0, hw = 0;
                        double err = -1;
                        cusolverEigMode_t jz = vec ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
                        CK(cudaMemcpy(a, h, (size_t)(2 * m * n) * sizeof *h, cudaMemcpyHostToDevice));
                        int st = cusolverDnXgesvdp_bufferSize(sol, par, jz, econ, m, n, types[t], a, m, CUDA_R_64F,
                                                              s, types[t], u, m, types[t], v, n, types[t], &dw, &hw);
                        void *dbuf = st ? NULL : dev(dw / 8 + 1), *hbuf = st ? NULL : malloc(hw + 1);
                        if (!st)
                            st = 100 + cusolverDnXgesvdp(sol, par, jz, econ, m, n, types[t], a, m, CUDA_R_64F, s,
                                                         types[t], u, m, types[t], v, n, types[t], dbuf, dw, hbuf, hw,
                                                         info, &err);
                        int sync = cudaDeviceSynchronize(), after = 0;
                        cudaFree(dbuf);
                        free(hbuf);
                        if (st != 100 || sync) { /* does the device still work? */
                            CK(cudaMemcpy(a, h, (size_t)(m * n) * sizeof *h, cudaMemcpyHostToDevice));
                            CK(cusolverDnXgesvd_bufferSize(sol, par, 'N', 'N', m, n, CUDA_R_64F, a, m, CUDA_R_64F, s,
                                                           CUDA_R_64F, u, m, CUDA_R_64F, v, n, CUDA_R_64F, &dw, &hw));
                            dbuf = dev(dw / 8 + 1), hbuf = malloc(hw + 1);
                            after = cusolverDnXgesvd(sol, par, 'N', 'N', m, n, CUDA_R_64F, a, m, CUDA_R_64F, s,
                                                     CUDA_R_64F, u, m, CUDA_R_64F, v, n, CUDA_R_64F, dbuf, dw, hbuf,
                                                     hw, info);
                            after = after ? after : 1000 + cudaDeviceSynchronize();
                            cudaFree(dbuf);
                            free(hbuf);
                            printf("gesvdp %s vec=%d econ=%d m=%ld n=%ld: status %d (bufferSize if < 100) sync %d; "
                                   "gesvd after it: %d (1000 = fine)\n", t ? "Z" : "D", vec, econ, (long)m, (long)n,
                                   st % 100, sync, after);
                            bad++;
                        } else if (err != 0) {
                            printf("gesvdp %s vec=%d econ=%d m=%ld n=%ld: h_err_sigma %.3g\n", t ? "Z" : "D", vec,
                                   econ, (long)m, (long)n, err);
                        }
                        tried++;
                    }
    printf("gesvdp grid: %d of %d combinations failed\n", bad, tried);
}

/* gesvdp on the special matrices of LAPACK's SVD tests (n = 40, float64, every vector): zero, identity,
 * diagonal with half its entries zero, rank one; its status, h_err_sigma, and whether the device still works. */
static void svdp_special(void)
{
    int n = 40;
    size_t nn = (size_t)n * n, dw, hw;
    double *a = dev(nn), *u = dev(nn), *v = dev(nn), *s = dev(n), *h = calloc(nn, sizeof *h);
    int *info = (int *)dev(1), hinfo = -1;
    const char *names[] = {"zero", "identity", "half-zero diagonal", "rank one"};
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < nn; i++)
            h[i] = kind == 3 ? (double)(i % n + 1) * (double)(i / n + 1) : 0;
        for (int i = 0; kind == 1 || kind == 2 ? i < n : 0; i++)
            h[(size_t)i * n + i] = kind == 1 || i % 2 ? 1 : 0;
        CK(cudaMemcpy(a, h, nn * sizeof *h, cudaMemcpyHostToDevice));
        double err = -1;
        int st = cusolverDnXgesvdp_bufferSize(sol, par, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, CUDA_R_64F, a, n,
                                              CUDA_R_64F, s, CUDA_R_64F, u, n, CUDA_R_64F, v, n, CUDA_R_64F, &dw, &hw);
        void *dbuf = dev(dw / 8 + 1), *hbuf = malloc(hw + 1);
        if (!st)
            st = cusolverDnXgesvdp(sol, par, CUSOLVER_EIG_MODE_VECTOR, 0, n, n, CUDA_R_64F, a, n, CUDA_R_64F, s,
                                   CUDA_R_64F, u, n, CUDA_R_64F, v, n, CUDA_R_64F, dbuf, dw, hbuf, hw, info, &err);
        int sync = cudaDeviceSynchronize();
        cudaMemcpy(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost);
        int after = cudaMemset(a, 0, nn * sizeof *h);
        after = after ? after : cudaDeviceSynchronize();
        printf("gesvdp on the %s matrix: status %d, sync %d, info %d, h_err_sigma %.3g; device after it: %d\n",
               names[kind], st, sync, hinfo, err, after);
        cudaFree(dbuf);
        free(hbuf);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "grid")) {
        CK(cusolverDnCreate(&sol));
        CK(cusolverDnCreateParams(&par));
        svdp_grid();
        svdp_special();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "values")) {
        CK(cusolverDnCreate(&sol));
        CK(cusolverDnCreateParams(&par));
        for (int i = 2; i + 1 < argc; i += 2)
            svd_values(atoi(argv[i]), atoi(argv[i + 1]));
        return 0;
    }
    int nsvd = argc > 1 ? atoi(argv[1]) : 4096, nlu = argc > 2 ? atoi(argv[2]) : 8192,
        nrhs = argc > 3 ? atoi(argv[3]) : 64;
    CK(cusolverDnCreate(&sol));
    CK(cusolverDnCreateParams(&par));
    CK(cublasCreate(&blas));
    if (nlu > 0)
        lu(nlu, nrhs);
    if (nsvd > 0)
        svd(nsvd);
    return 0;
}

/* LAPACK on the GPU through cuSOLVER (and cuBLAS's trsm for the triangular solves).  cuSOLVER is opened at the
 * first LAPACK call that goes to the GPU.  A call's matrices go through the residency cache and the transfer
 * engine like BLAS operands; pivots, Householder scalars and eigenvalues travel as small copies.  INFO is
 * read back before anything is written to user memory: when it is not 0 the call is made again by the CPU
 * library (GS_ELAPACK), so that the outputs of a singular or failing case are exactly LAPACK's. */
#include <cusolverDn.h>
#include <dlfcn.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/backend.h"
#include "backend/cuda_call.h"

#define GS_CUSOLVER_FUNCS(X) \
    X(cusolverDnCreate) X(cusolverDnSetStream) X(cusolverDnCreateParams) X(cusolverDnXgetrf_bufferSize) \
    X(cusolverDnXgetrf) X(cusolverDnXgetrs) X(cusolverDnXpotrf_bufferSize) X(cusolverDnXpotrf) X(cusolverDnXpotrs) \
    X(cusolverDnXgeqrf_bufferSize) X(cusolverDnXgeqrf) X(cusolverDnXsyevd_bufferSize) X(cusolverDnXsyevd) \
    X(cusolverDnXgesvd_bufferSize) X(cusolverDnXgesvd) X(cusolverDnXtrtri_bufferSize) X(cusolverDnXtrtri) \
    X(cusolverDnXgeev_bufferSize) X(cusolverDnXgeev) X(cusolverDnXgesvdp_bufferSize) X(cusolverDnXgesvdp)

/* Routines cuSOLVER has only per precision, with 32-bit sizes; [1] is the workspace-size function. */
enum { GS_SOL_POTRI, GS_SOL_ORGQR, GS_SOL_ORMQR, GS_SOL_N };
static const char *const gs_sol_names[GS_SOL_N][GS_NPREC] = {
    {"cusolverDnSpotri", "cusolverDnDpotri", "cusolverDnCpotri", "cusolverDnZpotri"},
    {"cusolverDnSorgqr", "cusolverDnDorgqr", "cusolverDnCungqr", "cusolverDnZungqr"},
    {"cusolverDnSormqr", "cusolverDnDormqr", "cusolverDnCunmqr", "cusolverDnZunmqr"},
};
/* Their signatures with every matrix as void: the same ABI as each precision's own prototype. */
typedef cusolverStatus_t gs_potri_bs_fn(cusolverDnHandle_t, cublasFillMode_t, int, void *, int, int *);
typedef cusolverStatus_t gs_potri_fn(cusolverDnHandle_t, cublasFillMode_t, int, void *, int, void *, int, int *);
typedef cusolverStatus_t gs_orgqr_bs_fn(cusolverDnHandle_t, int, int, int, const void *, int, const void *, int *);
typedef cusolverStatus_t gs_orgqr_fn(cusolverDnHandle_t, int, int, int, void *, int, const void *, void *, int,
                                     int *);
typedef cusolverStatus_t gs_ormqr_bs_fn(cusolverDnHandle_t, cublasSideMode_t, cublasOperation_t, int, int, int,
                                        const void *, int, const void *, const void *, int, int *);
typedef cusolverStatus_t gs_ormqr_fn(cusolverDnHandle_t, cublasSideMode_t, cublasOperation_t, int, int, int,
                                     const void *, int, const void *, void *, int, void *, int, int *);
typedef cublasStatus_t gs_geam_fn(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t, const void *,
                                  const void *, int64_t, const void *, const void *, int64_t, void *, int64_t);

/* cuSOLVER's state; written under the GPU lock. */
static struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUSOLVER_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    void *fn[GS_SOL_N][GS_NPREC][2];
    cusolverDnHandle_t handle;
    cusolverDnParams_t params;
    int state; /* 0: not tried, 1: up, -1: failed (reason in why) */
    char why[200];
} gs_sol;

#define GS_SOL(c, fn, args) GS_TRY(c, #fn, gs_sol.fn args)

/* Opens cuSOLVER (major 12 with CUDA 13's runtime, 11 with CUDA 12's) and makes its handle. */
static int gs_sol_up(gs_call_t *c)
{
    if (gs_sol.state == 0) {
        gs_sol.state = -1;
        void *h = gs_cuda_open("cusolver", gs_cuda_major - 1, gs_sol.why, sizeof gs_sol.why);
        if (!h)
            goto failed;
#define GS_X_LOAD(f) \
    if (!(*(void **)&gs_sol.f = dlsym(h, #f))) { \
        snprintf(gs_sol.why, sizeof gs_sol.why, "%s is missing from cuSOLVER", #f); \
        goto failed; \
    }
        GS_CUSOLVER_FUNCS(GS_X_LOAD)
#undef GS_X_LOAD
        for (int i = 0; i < GS_SOL_N; i++)
            for (int p = 0; p < GS_NPREC; p++) {
                char name[64];
                snprintf(name, sizeof name, "%s_bufferSize", gs_sol_names[i][p]);
                gs_sol.fn[i][p][0] = dlsym(h, gs_sol_names[i][p]);
                gs_sol.fn[i][p][1] = dlsym(h, name);
                if (!gs_sol.fn[i][p][0] || !gs_sol.fn[i][p][1]) {
                    snprintf(gs_sol.why, sizeof gs_sol.why, "%s is missing from cuSOLVER", gs_sol_names[i][p]);
                    goto failed;
                }
            }
        if (gs_sol.cusolverDnCreate(&gs_sol.handle) || gs_sol.cusolverDnSetStream(gs_sol.handle, gs_cuda.stream) ||
            gs_sol.cusolverDnCreateParams(&gs_sol.params)) {
            snprintf(gs_sol.why, sizeof gs_sol.why, "cuSOLVER cannot start");
            goto failed;
        }
        gs_sol.state = 1;
    }
    if (gs_sol.state == 1)
        return GS_OK;
    c->why = gs_sol.why;
    return GS_ENODEV;
failed:
    if (!gs.opt.quiet)
        gs_msg("%s; LAPACK runs on the CPU", gs_sol.why);
    c->why = gs_sol.why;
    return GS_ENODEV;
}

static const cudaDataType gs_dtype[GS_NPREC] = {CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F};
static const cudaDataType gs_rtype[GS_NPREC] = {CUDA_R_32F, CUDA_R_64F, CUDA_R_32F, CUDA_R_64F};
static cublasFillMode_t gs_fill(char u) { return u == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static cublasOperation_t gs_op(char t)
{
    return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
}
static cusolverEigMode_t gs_eig(char job) { return job == 'V' ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR; }

/* Copies bytes between host and device on the compute stream (small arrays: pivots, scalars, INFO). */
static int gs_small_copy(gs_call_t *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    GS_CUDA(c, cudaMemcpy2DAsync, (dst, bytes, src, bytes, bytes, 1, kind, gs_cuda.stream));
    return GS_OK;
}

/* The scalar 1 in a precision's layout (a complex one is 1 and 0), and 0 in any, for cuBLAS's host scalars. */
static const _Alignas(16) float gs_one_f[2] = {1, 0};
static const _Alignas(16) double gs_one_d[2] = {1, 0}, gs_zero[2] = {0, 0};
static const void *gs_one(int prec) { return prec == GS_P_S || prec == GS_P_C ? (const void *)gs_one_f : gs_one_d; }

/* The device memory of one call besides its matrices, carved from one block. */
typedef struct {
    char *work;   /* cuSOLVER's device workspace */
    size_t work_bytes;
    int64_t *ipiv; /* pivots, 64-bit */
    char *vec;    /* tau, or eigenvalues or singular values (2n reals for real geev) */
    char *copy;   /* getri: the LU factors, while A becomes the identity and then the inverse */
    int *info;    /* two INFO values */
    bool svdp;    /* the SVD by gesvdp (gs_svdp_econ) */
} gs_dmem_t;

/* min(m, n) of the call. */
static int64_t gs_lapack_mn(const gs_lapack_t *p) { return p->m < p->n ? p->m : p->n; }

/* How gesvdp serves an SVD: its econ argument (0: every vector, 1: min(m, n) of them, or none), or -1 when
 * gesvd serves it: the jobs for U and VT differ, or no vectors are wanted of a matrix under GS_SVDP_VALUES_MIN.
 * gesvdp (polar decomposition and syevd) is faster than gesvd (QR iteration) on large matrices on the H200:
 * 279 against 1752 ms at n = 4096 with every vector, and for the singular values alone 79 against 220 ms at
 * 8192 x 2048, 258 against 595 at 4096 and 28 against 88 at 1024.  Its cost per call is ms, though (10.7 ms
 * at 400 x 400 without vectors); the default policy sends the values alone to the GPU from about 1550. */
enum { GS_SVDP_VALUES_MIN = 1024 };
static int gs_svdp_econ(const gs_lapack_t *p)
{
    char ju = p->job1, jv = p->op == GS_OP_gesdd ? p->job1 : p->job2;
    return ju != jv || (ju == 'N' && gs_lapack_mn(p) < GS_SVDP_VALUES_MIN) ? -1 : ju != 'A';
}

static cusolverEigMode_t gs_svdp_mode(const gs_lapack_t *p)
{
    return p->job1 == 'N' ? CUSOLVER_EIG_MODE_NOVECTOR : CUSOLVER_EIG_MODE_VECTOR;
}

/* Columns of the V that gesvdp returns. */
static int64_t gs_svdp_nv(const gs_lapack_t *p) { return p->job1 == 'A' ? p->n : gs_lapack_mn(p); }

/* Device elements gesvdp needs besides its workspace: V (transposed into VT afterwards), a copy of A, from which
 * gesvd starts again when gesvdp had to perturb A, and without vectors a scratch U: gesvdp writes to U and V
 * even then (handed NULL ones, it made an illegal memory access on the H200). */
static size_t gs_svdp_extra(const gs_lapack_t *p)
{
    return (size_t)(p->n * gs_svdp_nv(p) + p->m * p->n + (p->job1 == 'N' ? p->m * gs_lapack_mn(p) : 0));
}

/* The SVD that gelsd makes: of the mn x mn matrix that a square A, or the R of A = QR (m > n) or of A^H = QR
 * (m < n) leaves, with mn vectors each side. */
static gs_lapack_t gs_gelsd_svd(const gs_lapack_t *p)
{
    int64_t mn = gs_lapack_mn(p);
    return (gs_lapack_t){.op = GS_OP_gesdd, .prec = p->prec, .m = mn, .n = mn, .job1 = 'S'};
}

/* Device bytes gelsd needs besides its workspace: tau, R, U, VT, an mn x nrhs product and A^H when m < n,
 * then what its SVD needs (gs_svdp_extra), each part from a multiple of 256 bytes. */
static size_t gs_gelsd_extra(const gs_lapack_t *p, bool svdp, size_t es)
{
    gs_lapack_t s = gs_gelsd_svd(p);
    size_t mn = (size_t)s.n;
    return gs_round256(mn * es) + 3 * gs_round256(mn * mn * es) + gs_round256(mn * (size_t)p->nrhs * es) +
           (p->m < p->n ? gs_round256((size_t)p->m * (size_t)p->n * es) : 0) + (svdp ? gs_svdp_extra(&s) * es : 0);
}

/* The workspace cuSOLVER needs for p (device bytes, host bytes); *svdp tells whether gesvdp serves an SVD. */
static int gs_sol_work(gs_call_t *c, const gs_lapack_t *p, int64_t ld0, int64_t ld1, size_t *dev, size_t *host,
                       bool *svdp)
{
    cusolverDnHandle_t h = gs_sol.handle;
    cusolverDnParams_t q = gs_sol.params;
    cudaDataType t = gs_dtype[p->prec], r = gs_rtype[p->prec];
    int64_t m = p->m, n = p->n;
    size_t es = gs_prec_size(p->prec);
    int lw = 0;
    *dev = *host = 0;
    *svdp = false;
    switch (p->op) {
    case GS_OP_getrf:
    case GS_OP_gesv:
        if (p->op == GS_OP_gesv)
            m = n;
        GS_SOL(c, cusolverDnXgetrf_bufferSize, (h, q, m, n, t, NULL, ld0, t, dev, host));
        break;
    case GS_OP_potrf:
    case GS_OP_posv:
        GS_SOL(c, cusolverDnXpotrf_bufferSize, (h, q, gs_fill(p->uplo), n, t, NULL, ld0, t, dev, host));
        break;
    case GS_OP_potri:
        GS_TRY(c, gs_sol_names[GS_SOL_POTRI][p->prec],
               ((gs_potri_bs_fn *)gs_sol.fn[GS_SOL_POTRI][p->prec][1])(h, gs_fill(p->uplo), (int)n, NULL, (int)ld0,
                                                                         &lw));
        *dev = (size_t)lw * es;
        break;
    case GS_OP_geqrf:
    case GS_OP_gels:
    case GS_OP_gelsd: {
        /* gelsd with m < n factors A^H (n x m, leading dimension n) and applies its Q untransposed */
        bool wide = p->op == GS_OP_gelsd && m < n;
        int64_t qm = wide ? n : m, qn = wide ? m : n, qld = wide ? n : ld0;
        size_t d2 = 0, h2 = 0;
        GS_SOL(c, cusolverDnXgeqrf_bufferSize, (h, q, qm, qn, t, NULL, qld, t, NULL, t, dev, host));
        if (p->op != GS_OP_geqrf) {
            GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][p->prec],
                   ((gs_ormqr_bs_fn *)gs_sol.fn[GS_SOL_ORMQR][p->prec][1])(
                       h, CUBLAS_SIDE_LEFT, wide ? CUBLAS_OP_N : gs_prec_complex(p->prec) ? CUBLAS_OP_C : CUBLAS_OP_T,
                       (int)qm, (int)p->nrhs, (int)qn, NULL, (int)qld, NULL, NULL, (int)ld1, &lw));
            *dev = *dev > (size_t)lw * es ? *dev : (size_t)lw * es;
        }
        if (p->op == GS_OP_gelsd) {
            gs_lapack_t s = gs_gelsd_svd(p);
            int rc = gs_sol_work(c, &s, s.n, s.n, &d2, &h2, svdp);
            if (rc != GS_OK)
                return rc;
        }
        *dev = *dev > d2 ? *dev : d2;
        *host = *host > h2 ? *host : h2;
        break;
    }
    case GS_OP_orgqr:
        GS_TRY(c, gs_sol_names[GS_SOL_ORGQR][p->prec],
               ((gs_orgqr_bs_fn *)gs_sol.fn[GS_SOL_ORGQR][p->prec][1])(h, (int)m, (int)n, (int)p->k, NULL, (int)ld0,
                                                                         NULL, &lw));
        *dev = (size_t)lw * es;
        break;
    case GS_OP_ormqr:
        GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][p->prec],
               ((gs_ormqr_bs_fn *)gs_sol.fn[GS_SOL_ORMQR][p->prec][1])(h, p->side == 'L' ? CUBLAS_SIDE_LEFT
                                                                                         : CUBLAS_SIDE_RIGHT,
                                                                         gs_op(p->trans), (int)m, (int)n, (int)p->k,
                                                                         NULL, (int)ld0, NULL, NULL, (int)ld1, &lw));
        *dev = (size_t)lw * es;
        break;
    case GS_OP_syevd:
    case GS_OP_syev:
        GS_SOL(c, cusolverDnXsyevd_bufferSize,
               (h, q, gs_eig(p->job1), gs_fill(p->uplo), n, t, NULL, ld0, r, NULL, t, dev, host));
        break;
    case GS_OP_gesdd:
    case GS_OP_gesvd: {
        signed char ju = (signed char)p->job1, jv = (signed char)(p->op == GS_OP_gesdd ? p->job1 : p->job2);
        GS_SOL(c, cusolverDnXgesvd_bufferSize,
               (h, q, ju, jv, m, n, t, NULL, ld0, r, NULL, t, NULL, m > 0 ? m : 1, t, NULL, n > 0 ? n : 1, t, dev,
                host));
        /* gesvd's workspace too: it takes over when gesvdp perturbs A.  A size gesvdp refuses leaves gesvd. */
        size_t pdev, phost;
        int econ = gs_svdp_econ(p);
        if (econ >= 0 && gs_sol.cusolverDnXgesvdp_bufferSize(h, q, gs_svdp_mode(p), econ, m, n, t, NULL, ld0,
                                                              r, NULL, t, NULL, m > 0 ? m : 1, t, NULL,
                                                              n > 0 ? n : 1, t, &pdev, &phost) == 0) {
            *svdp = true;
            *dev = *dev > pdev ? *dev : pdev;
            *host = *host > phost ? *host : phost;
        }
        break;
    }
    case GS_OP_geev: {
        cudaDataType w = gs_prec_complex(p->prec) ? t : r; /* real matrices: 2n reals, wr then wi */
        GS_SOL(c, cusolverDnXgeev_bufferSize,
               (h, q, CUSOLVER_EIG_MODE_NOVECTOR, gs_eig(p->job2), n, t, NULL, ld0, w, NULL, t, NULL, n > 0 ? n : 1, t,
                NULL, n > 0 ? n : 1, t, dev, host));
        break;
    }
    case GS_OP_trtri:
        GS_SOL(c, cusolverDnXtrtri_bufferSize,
               (h, gs_fill(p->uplo), p->diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n, t, NULL, ld0, dev,
                host));
        break;
    default: /* getrs, getri, potrs, trtrs need none */
        break;
    }
    return GS_OK;
}

/* Length in elements of the vector output or input (tau, eigenvalues, singular values), and whether it is real. */
static int64_t gs_vec_len(const gs_lapack_t *p, bool *real)
{
    int64_t mn = gs_lapack_mn(p);
    *real = false;
    switch (p->op) {
    case GS_OP_geqrf:
    case GS_OP_gels: return mn;
    case GS_OP_orgqr:
    case GS_OP_ormqr: return p->k;
    case GS_OP_syevd:
    case GS_OP_syev: *real = true; return p->n;
    case GS_OP_gesdd:
    case GS_OP_gesvd:
    case GS_OP_gelsd: *real = true; return mn;
    case GS_OP_geev: *real = !gs_prec_complex(p->prec); return *real ? 2 * p->n : p->n;
    default: return 0;
    }
}

static bool gs_has_pivots(int op) { return op == GS_OP_getrf || op == GS_OP_getrs || op == GS_OP_gesv || op == GS_OP_getri; }

/* The SVD by gesvdp, which returns V and waits for the device.  When gesvdp refuses the call, or had to
 * perturb A by more than the rounding LAPACK allows (a singular value near zero: h_err_sigma above eps times
 * the largest), A is put back and *done stays 0 for gesvd to compute it. */
static int gs_sol_svdp(gs_call_t *c, const gs_lapack_t *p, const gs_dmem_t *x, char *const *d, const int64_t *ld,
                       void *hwork, size_t hbytes, int *done)
{
    cudaDataType t = gs_dtype[p->prec], r = gs_rtype[p->prec];
    int64_t m = p->m, n = p->n, mn = gs_lapack_mn(p), nv = gs_svdp_nv(p);
    size_t es = gs_prec_size(p->prec), rs = gs_prec_complex(p->prec) ? es / 2 : es;
    bool vecs = p->job1 != 'N';
    char *v = x->copy, *a0 = v + (size_t)(n * nv) * es, *u = vecs ? d[1] : a0 + (size_t)(m * n) * es;
    double err = 0, smax = 0;
    GS_CUDA(c, cudaMemcpy2DAsync, (a0, (size_t)m * es, d[0], (size_t)ld[0] * es, (size_t)m * es, (size_t)n,
                                   cudaMemcpyDeviceToDevice, gs_cuda.stream));
    /* A status other than success leaves the SVD to gesvd too, rather than failing the call. */
    cusolverStatus_t st = gs_sol.cusolverDnXgesvdp(gs_sol.handle, gs_sol.params, gs_svdp_mode(p), gs_svdp_econ(p),
                                                   m, n, t, d[0], ld[0], r, x->vec, t, u, vecs ? ld[1] : m > 0 ? m : 1,
                                                   t, v, n > 0 ? n : 1, t, x->work, x->work_bytes, hwork, hbytes,
                                                   x->info, &err);
    if (st == CUSOLVER_STATUS_SUCCESS && mn > 0) {
        float f;
        GS_CUDA(c, cudaMemcpy2DAsync, (rs == 4 ? (void *)&f : (void *)&smax, rs, x->vec, rs, rs, 1,
                                       cudaMemcpyDeviceToHost, gs_cuda.stream));
        GS_CUDA(c, cudaStreamSynchronize, (gs_cuda.stream));
        if (rs == 4)
            smax = f;
    }
    if (st != CUSOLVER_STATUS_SUCCESS || !(err <= (rs == 4 ? FLT_EPSILON : DBL_EPSILON) * smax)) {
        GS_CUDA(c, cudaMemcpy2DAsync, (d[0], (size_t)ld[0] * es, a0, (size_t)m * es, (size_t)m * es, (size_t)n,
                                       cudaMemcpyDeviceToDevice, gs_cuda.stream));
        return GS_OK;
    }
    *done = 1;
    if (mn == 0 || !vecs)
        return GS_OK;
    const void *one = gs_one(p->prec), *zero = gs_zero;
    GS_TRY(c, gs_geam_names[p->prec],
           ((gs_geam_fn *)gs_cuda.geam[p->prec])(gs_cuda.handle, gs_prec_complex(p->prec) ? CUBLAS_OP_C : CUBLAS_OP_T,
                                                 CUBLAS_OP_N, nv, n, one, v, n, zero, d[2], ld[2], d[2], ld[2]));
    return GS_OK;
}

/* An SVD: A in d[0], the singular values into x->vec, and U and VT where wanted in the next matrices of d.
 * gesvdp computes it where gs_sol_work chose it, and gesvd where it did not or gesvdp gave the call back. */
static int gs_sol_svd(gs_call_t *c, const gs_lapack_t *p, const gs_dmem_t *x, char *const *d, const int64_t *ld,
                      void *hwork, size_t hbytes)
{
    cudaDataType t = gs_dtype[p->prec], r = gs_rtype[p->prec];
    int64_t m = p->m, n = p->n;
    signed char ju = (signed char)p->job1, jv = (signed char)(p->op == GS_OP_gesdd ? p->job1 : p->job2);
    int iu = ju != 'N' ? 1 : 0, iv = jv != 'N' ? 1 + iu : 0, done = 0;
    if (x->svdp) {
        int rc = gs_sol_svdp(c, p, x, d, ld, hwork, hbytes, &done);
        if (rc != GS_OK)
            return rc;
    }
    if (!done)
        GS_SOL(c, cusolverDnXgesvd, (gs_sol.handle, gs_sol.params, ju, jv, m, n, t, d[0], ld[0], r, x->vec, t,
                                     iu ? d[iu] : NULL, iu ? ld[iu] : m > 0 ? m : 1, t, iv ? d[iv] : NULL,
                                     iv ? ld[iv] : n > 0 ? n : 1, t, x->work, x->work_bytes, hwork, hbytes, x->info));
    return GS_OK;
}

/* Least squares as gelsd computes them.  A square A is decomposed as it is.  When m > n, A = QR and B becomes
 * Q^H B, whose rows n to m then hold the residual as LAPACK's do; when m < n, A^H = QR, so that A = R^H Q^H and
 * the minimum-norm solution is Q times that of R^H.  R's triangle is copied out as the product triu(R) I.  With
 * R (or A) = U S V^H, the solution of A (or R) is V S^+ U^H B and that of R^H is U S^+ V^H B, where S^+ drops
 * the singular values at or below rcond times the largest (machine precision for an rcond outside (0, 1)), as
 * xLALSD does.  S^+ is applied on the host, which needs the singular values for the rank anyway: hs receives
 * them and hc the mn x nrhs product; hones holds mn ones.  A non-zero INFO leaves the rest undone, for the
 * caller to see. */
static int gs_sol_gelsd(gs_call_t *c, const gs_lapack_t *p, const gs_dmem_t *x, char *const *d, const int64_t *ld,
                        void *hwork, size_t hbytes, const char *hones, char *hs, char *hc, int64_t *rank)
{
    cusolverDnHandle_t h = gs_sol.handle;
    cusolverDnParams_t q = gs_sol.params;
    cudaDataType t = gs_dtype[p->prec];
    int64_t m = p->m, n = p->n, mn = gs_lapack_mn(p), nr = p->nrhs;
    size_t es = gs_prec_size(p->prec), sq = gs_round256((size_t)(mn * mn) * es);
    bool single = p->prec == GS_P_S || p->prec == GS_P_C, wide = m < n;
    cublasOperation_t ht = gs_prec_complex(p->prec) ? CUBLAS_OP_C : CUBLAS_OP_T;
    gs_cublas_gemm_fn *gemm = (gs_cublas_gemm_fn *)gs_cuda.blas[GS_OP_gemm][p->prec];
    const char *gemm_name = gs_cublas_names[GS_OP_gemm][p->prec];
    const void *one = gs_one(p->prec), *zero = gs_zero;
    char *tau = x->copy, *rt = tau + gs_round256((size_t)mn * es), *u = rt + sq, *vt = u + sq, *cm = vt + sq;
    char *at = cm + gs_round256((size_t)(mn * nr) * es), *a = d[0];
    int64_t lda = ld[0], qm = wide ? n : m, qld = wide ? n : ld[0];
    gs_ormqr_fn *ormqr = (gs_ormqr_fn *)gs_sol.fn[GS_SOL_ORMQR][p->prec][0];
    const char *ormqr_name = gs_sol_names[GS_SOL_ORMQR][p->prec];
    int lw = (int)(x->work_bytes / es);
    if (wide)
        GS_TRY(c, gs_geam_names[p->prec],
               ((gs_geam_fn *)gs_cuda.geam[p->prec])(gs_cuda.handle, ht, CUBLAS_OP_N, n, m, one, d[0], ld[0], zero,
                                                     at, n, at, n));
    if (m != n) {
        char *f = wide ? at : d[0];
        GS_SOL(c, cusolverDnXgeqrf, (h, q, qm, mn, t, f, qld, t, tau, t, x->work, x->work_bytes, hwork, hbytes,
                                     x->info));
        if (!wide)
            GS_TRY(c, ormqr_name, ormqr(h, CUBLAS_SIDE_LEFT, ht, (int)m, (int)nr, (int)n, f, (int)qld, tau, d[1],
                                        (int)ld[1], x->work, lw, x->info + 1));
        else /* A, which gelsd destroys, is left holding the factored A^H, transposed back */
            GS_TRY(c, gs_geam_names[p->prec],
                   ((gs_geam_fn *)gs_cuda.geam[p->prec])(gs_cuda.handle, ht, CUBLAS_OP_N, m, n, one, at, n, zero,
                                                         d[0], ld[0], d[0], ld[0]));
        /* the identity in u, which the SVD overwrites afterwards */
        GS_CUDA(c, cudaMemsetAsync, (u, 0, (size_t)(mn * mn) * es, gs_cuda.stream));
        GS_CUDA(c, cudaMemcpy2DAsync, (u, (size_t)(mn + 1) * es, hones, es, es, (size_t)mn, cudaMemcpyHostToDevice,
                                       gs_cuda.stream));
        GS_TRY(c, gs_cublas_names[GS_OP_trmm][p->prec],
               ((gs_cublas_trmm_fn *)gs_cuda.blas[GS_OP_trmm][p->prec])(gs_cuda.handle, CUBLAS_SIDE_LEFT,
                                                                        CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                                                        CUBLAS_DIAG_NON_UNIT, mn, mn, one, f, qld, u,
                                                                        mn, rt, mn));
        a = rt, lda = mn;
    }
    gs_lapack_t s = gs_gelsd_svd(p);
    gs_dmem_t sx = *x;
    sx.copy = at + (wide ? gs_round256((size_t)(m * n) * es) : 0);
    char *sd[3] = {a, u, vt};
    int64_t sld[3] = {lda, mn, mn};
    int rc = gs_sol_svd(c, &s, &sx, sd, sld, hwork, hbytes);
    if (rc != GS_OK)
        return rc;
    /* the mn x nrhs product: U^H B, or V^H B for R^H */
    GS_TRY(c, gemm_name, gemm(gs_cuda.handle, wide ? CUBLAS_OP_N : ht, CUBLAS_OP_N, mn, nr, mn, one, wide ? vt : u,
                              mn, d[1], ld[1], zero, cm, mn));
    int info[2];
    size_t rs = single ? 4 : 8;
    if ((rc = gs_small_copy(c, info, x->info, sizeof info, cudaMemcpyDeviceToHost)) != GS_OK ||
        (rc = gs_small_copy(c, hs, x->vec, (size_t)mn * rs, cudaMemcpyDeviceToHost)) != GS_OK ||
        (rc = gs_small_copy(c, hc, cm, (size_t)(mn * nr) * es, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (gs_cuda.stream));
    if (info[0] || info[1])
        return GS_OK;
    /* in the routine's precision, as LAPACK compares */
    double eps = single ? FLT_EPSILON / 2 : DBL_EPSILON / 2, rcnd = p->rcond <= 0 || p->rcond >= 1 ? eps : p->rcond;
    double smax = single ? ((float *)hs)[0] : ((double *)hs)[0];
    double tol = single ? (double)((float)rcnd * (float)smax) : rcnd * smax;
    *rank = 0;
    for (int64_t i = 0; i < mn; i++)
        *rank += (single ? ((float *)hs)[i] : ((double *)hs)[i]) > tol;
    /* row i of the product divided by singular value i, or zero; a complex element is two reals */
    size_t parts = es / rs, e = 0;
    for (int64_t j = 0; j < nr; j++)
        for (int64_t i = 0; i < mn; i++) {
            double sv = single ? ((float *)hs)[i] : ((double *)hs)[i];
            for (size_t k = 0; k < parts; k++, e++)
                if (single)
                    ((float *)hc)[e] = sv > tol ? ((float *)hc)[e] / (float)sv : 0;
                else
                    ((double *)hc)[e] = sv > tol ? ((double *)hc)[e] / sv : 0;
        }
    if ((rc = gs_small_copy(c, cm, hc, (size_t)(mn * nr) * es, cudaMemcpyHostToDevice)) != GS_OK)
        return rc;
    GS_TRY(c, gemm_name, gemm(gs_cuda.handle, wide ? CUBLAS_OP_N : ht, CUBLAS_OP_N, mn, nr, mn, one, wide ? u : vt,
                              mn, cm, mn, zero, d[1], ld[1]));
    if (wide) { /* X = Q (Y; 0) */
        for (int64_t j = 0; j < nr; j++)
            GS_CUDA(c, cudaMemsetAsync, (d[1] + (size_t)(j * ld[1] + m) * es, 0, (size_t)(n - m) * es, gs_cuda.stream));
        GS_TRY(c, ormqr_name, ormqr(h, CUBLAS_SIDE_LEFT, CUBLAS_OP_N, (int)n, (int)nr, (int)m, at, (int)n, tau, d[1],
                                    (int)ld[1], x->work, lw, x->info + 1));
    }
    return GS_OK;
}

/* The computation, queued on the compute stream; d and ld are where the matrices are. */
static int gs_sol_compute(gs_call_t *c, const gs_lapack_t *p, const gs_dmem_t *x, char *const *d, const int64_t *ld,
                          void *hwork, size_t hbytes)
{
    cusolverDnHandle_t h = gs_sol.handle;
    cusolverDnParams_t q = gs_sol.params;
    cudaDataType t = gs_dtype[p->prec], r = gs_rtype[p->prec];
    int64_t m = p->m, n = p->n;
    size_t es = gs_prec_size(p->prec);
    int lw = (int)(x->work_bytes / es);
    const void *one = gs_one(p->prec);
    switch (p->op) {
    case GS_OP_getrf:
        GS_SOL(c, cusolverDnXgetrf, (h, q, m, n, t, d[0], ld[0], x->ipiv, t, x->work, x->work_bytes, hwork, hbytes,
                                     x->info));
        break;
    case GS_OP_gesv:
        GS_SOL(c, cusolverDnXgetrf, (h, q, n, n, t, d[0], ld[0], x->ipiv, t, x->work, x->work_bytes, hwork, hbytes,
                                     x->info));
        GS_SOL(c, cusolverDnXgetrs, (h, q, CUBLAS_OP_N, n, p->nrhs, t, d[0], ld[0], x->ipiv, t, d[1], ld[1],
                                     x->info + 1));
        break;
    case GS_OP_getrs:
        GS_SOL(c, cusolverDnXgetrs, (h, q, gs_op(p->trans), n, p->nrhs, t, d[0], ld[0], x->ipiv, t, d[1], ld[1],
                                     x->info));
        break;
    case GS_OP_getri: { /* inv(A) solves LU X = I */
        size_t bytes = (size_t)n * (size_t)n * es;
        GS_CUDA(c, cudaMemcpy2DAsync, (x->copy, bytes, d[0], bytes, bytes, 1, cudaMemcpyDeviceToDevice, gs_cuda.stream));
        GS_CUDA(c, cudaMemsetAsync, (d[0], 0, bytes, gs_cuda.stream));
        GS_CUDA(c, cudaMemcpy2DAsync, (d[0], (size_t)(n + 1) * es, hwork, es, es, (size_t)n, cudaMemcpyHostToDevice,
                                       gs_cuda.stream));
        GS_SOL(c, cusolverDnXgetrs, (h, q, CUBLAS_OP_N, n, n, t, x->copy, n, x->ipiv, t, d[0], ld[0], x->info));
        break;
    }
    case GS_OP_potrf:
    case GS_OP_posv:
        GS_SOL(c, cusolverDnXpotrf, (h, q, gs_fill(p->uplo), n, t, d[0], ld[0], t, x->work, x->work_bytes, hwork,
                                     hbytes, x->info));
        if (p->op == GS_OP_potrf)
            break;
        __attribute__((fallthrough)); /* posv solves with the factor */
    case GS_OP_potrs:
        GS_SOL(c, cusolverDnXpotrs, (h, q, gs_fill(p->uplo), n, p->nrhs, t, d[0], ld[0], t, d[1], ld[1], x->info + 1));
        break;
    case GS_OP_potri:
        GS_TRY(c, gs_sol_names[GS_SOL_POTRI][p->prec],
               ((gs_potri_fn *)gs_sol.fn[GS_SOL_POTRI][p->prec][0])(h, gs_fill(p->uplo), (int)n, d[0], (int)ld[0],
                                                                      x->work, lw, x->info));
        break;
    case GS_OP_geqrf:
    case GS_OP_gels:
        GS_SOL(c, cusolverDnXgeqrf, (h, q, m, n, t, d[0], ld[0], t, x->vec, t, x->work, x->work_bytes, hwork, hbytes,
                                     x->info));
        if (p->op == GS_OP_geqrf)
            break;
        GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][p->prec],
               ((gs_ormqr_fn *)gs_sol.fn[GS_SOL_ORMQR][p->prec][0])(
                   h, CUBLAS_SIDE_LEFT, gs_prec_complex(p->prec) ? CUBLAS_OP_C : CUBLAS_OP_T, (int)m, (int)p->nrhs,
                   (int)n, d[0], (int)ld[0], x->vec, d[1], (int)ld[1], x->work, lw, x->info + 1));
        GS_TRY(c, gs_cublas_names[GS_OP_trsm][p->prec],
               ((gs_cublas_trsm_fn *)gs_cuda.blas[GS_OP_trsm][p->prec])(
                   gs_cuda.handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, n,
                   p->nrhs, one, d[0], ld[0], d[1], ld[1]));
        break;
    case GS_OP_orgqr:
        GS_TRY(c, gs_sol_names[GS_SOL_ORGQR][p->prec],
               ((gs_orgqr_fn *)gs_sol.fn[GS_SOL_ORGQR][p->prec][0])(h, (int)m, (int)n, (int)p->k, d[0], (int)ld[0],
                                                                      x->vec, x->work, lw, x->info));
        break;
    case GS_OP_ormqr:
        GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][p->prec],
               ((gs_ormqr_fn *)gs_sol.fn[GS_SOL_ORMQR][p->prec][0])(
                   h, p->side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, gs_op(p->trans), (int)m, (int)n,
                   (int)p->k, d[0], (int)ld[0], x->vec, d[1], (int)ld[1], x->work, lw, x->info));
        break;
    case GS_OP_syevd:
    case GS_OP_syev:
        GS_SOL(c, cusolverDnXsyevd, (h, q, gs_eig(p->job1), gs_fill(p->uplo), n, t, d[0], ld[0], r, x->vec, t,
                                     x->work, x->work_bytes, hwork, hbytes, x->info));
        break;
    case GS_OP_gesdd:
    case GS_OP_gesvd: return gs_sol_svd(c, p, x, d, ld, hwork, hbytes);
    case GS_OP_geev: {
        cudaDataType w = gs_prec_complex(p->prec) ? t : r;
        bool vr = p->job2 == 'V';
        GS_SOL(c, cusolverDnXgeev, (h, q, CUSOLVER_EIG_MODE_NOVECTOR, gs_eig(p->job2), n, t, d[0], ld[0], w, x->vec,
                                    t, NULL, n > 0 ? n : 1, t, vr ? d[1] : NULL, vr ? ld[1] : n > 0 ? n : 1, t,
                                    x->work, x->work_bytes, hwork, hbytes, x->info));
        break;
    }
    case GS_OP_trtrs:
        GS_TRY(c, gs_cublas_names[GS_OP_trsm][p->prec],
               ((gs_cublas_trsm_fn *)gs_cuda.blas[GS_OP_trsm][p->prec])(
                   gs_cuda.handle, CUBLAS_SIDE_LEFT, gs_fill(p->uplo), gs_op(p->trans),
                   p->diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n, p->nrhs, one, d[0], ld[0], d[1],
                   ld[1]));
        break;
    case GS_OP_trtri:
        GS_SOL(c, cusolverDnXtrtri, (h, gs_fill(p->uplo), p->diag == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, n,
                                     t, d[0], ld[0], x->work, x->work_bytes, hwork, hbytes, x->info));
        break;
    default:
        gs_call_why(c, "gpu error: no cuSOLVER path for %s", gs_op_names[p->op]);
        return GS_EGPU;
    }
    return GS_OK;
}

/* Queues the copy of R's diagonal (n elements of the device matrix a, leading dimension ld) to host: gels
 * leaves a call whose R has an exact zero there (INFO > 0) to the CPU library. */
static int gs_r_diagonal(gs_call_t *c, const gs_lapack_t *p, const char *a, int64_t ld, char *host)
{
    size_t es = gs_prec_size(p->prec);
    GS_CUDA(c, cudaMemcpy2DAsync, (host, es, a, (size_t)(ld + 1) * es, es, (size_t)p->n, cudaMemcpyDeviceToHost,
                                   gs_cuda.stream));
    return GS_OK;
}

/* trtri's result: the triangle LAPACK defines (without a unit diagonal), copied into A through host memory
 * host; the rest of A is left as it was, as LAPACK leaves it (xlintst's DSY tests keep data there). */
static int gs_tri_out(gs_call_t *c, const gs_lapack_t *p, const char *dev, char *host)
{
    size_t es = gs_prec_size(p->prec), n = (size_t)p->n;
    GS_CUDA(c, cudaMemcpy2DAsync, (host, n * es, dev, n * es, n * es, n, cudaMemcpyDeviceToHost, gs_cuda.stream));
    GS_CUDA(c, cudaStreamSynchronize, (gs_cuda.stream));
    c->bytes_d2h += n * n * es;
    size_t skip = p->diag == 'U';
    for (size_t j = 0; j < n; j++) {
        size_t lo = p->uplo == 'U' ? 0 : j + skip, hi = p->uplo == 'U' ? j + 1 - skip : n;
        if (hi > lo)
            memcpy((char *)p->a + (j * (size_t)p->lda + lo) * es, host + (j * n + lo) * es, (hi - lo) * es);
    }
    return GS_OK;
}

static int gs_sol_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b, int n)
{
    const gs_lapack_t *p = arg;
    size_t es = gs_prec_size(p->prec);
    int rc = gs_sol_up(c);
    if (rc != GS_OK)
        return rc;
    /* Device leading dimensions are the operands' rows (compact copies). */
    int64_t ld0 = o[0].rows > 0 ? o[0].rows : 1, ld1 = n > 1 && o[1].rows > 0 ? o[1].rows : 1;
    size_t dwork, hbytes;
    bool svdp;
    if ((rc = gs_sol_work(c, p, ld0, ld1, &dwork, &hbytes, &svdp)) != GS_OK)
        return rc;
    bool real;
    int64_t nvec = gs_vec_len(p, &real), npiv = gs_has_pivots(p->op) ? (p->m > p->n ? p->m : p->n) : 0;
    size_t vbytes = (size_t)nvec * (real ? es / (gs_prec_complex(p->prec) ? 2 : 1) : es);
    size_t cbytes = p->op == GS_OP_getri   ? (size_t)p->n * (size_t)p->n * es
                    : p->op == GS_OP_gelsd ? gs_gelsd_extra(p, svdp, es)
                    : svdp                 ? gs_svdp_extra(p) * es
                                           : 0;
    size_t off_ipiv = gs_round256(dwork), off_vec = off_ipiv + gs_round256((size_t)npiv * 8),
           off_copy = off_vec + gs_round256(vbytes), off_info = off_copy + gs_round256(cbytes);
    /* Host memory: cuSOLVER's host workspace (or getri's diagonal of ones), pivots, the vector, R's diagonal
     * (gelsd: n ones), and trtri's triangle or gelsd's U^H B. */
    size_t hwork_bytes = p->op == GS_OP_getri ? (size_t)p->n * es : hbytes;
    size_t tbytes = (size_t)p->n * (size_t)(p->op == GS_OP_trtri ? p->n : p->op == GS_OP_gelsd ? p->nrhs : 0) * es;
    size_t hsize = hwork_bytes + (size_t)npiv * 8 + vbytes + (size_t)p->n * es + tbytes + 64;
    char *hmem = malloc(hsize), *dx = NULL;
    if (!hmem) {
        gs_call_why(c, "gpu: no host memory for %zu bytes", hsize);
        return GS_ENOMEM;
    }
    char *hwork = hmem, *hpiv = hwork + hwork_bytes, *hvec = hpiv + (size_t)npiv * 8, *hdiag = hvec + vbytes;
    char *d[4] = {NULL, NULL, NULL, NULL};
    int64_t ld[4] = {1, 1, 1, 1};
    int info[2] = {0, 0};
    rc = gs_cuda_operands(c, o, h, b, n, es, off_info + 8, &dx, d, ld);
    if (rc != GS_OK)
        goto out;
    gs_dmem_t x = {dx, dwork, (int64_t *)(dx + off_ipiv), dx + off_vec, dx + off_copy, (int *)(dx + off_info), svdp};
    /* Inputs besides the matrices: pivots in 64 bits, Householder scalars; getri's and gelsd's ones. */
    if (p->op == GS_OP_getrs || p->op == GS_OP_getri) {
        for (int64_t i = 0; i < p->n; i++)
            ((int64_t *)hpiv)[i] = gs_lapack_int(p, p->ipiv, i);
        if ((rc = gs_small_copy(c, x.ipiv, hpiv, (size_t)p->n * 8, cudaMemcpyHostToDevice)) != GS_OK)
            goto out;
    }
    if ((p->op == GS_OP_orgqr || p->op == GS_OP_ormqr) &&
        (rc = gs_small_copy(c, x.vec, p->tau, vbytes, cudaMemcpyHostToDevice)) != GS_OK)
        goto out;
    char *ones = p->op == GS_OP_getri ? hwork : p->op == GS_OP_gelsd ? hdiag : NULL;
    for (int64_t i = 0; ones && i < p->n; i++)
        memcpy(ones + (size_t)i * es, gs_one(p->prec), es);
    int64_t rank = 0;
    if ((rc = gs_small_copy(c, x.info, info, sizeof info, cudaMemcpyHostToDevice)) != GS_OK ||
        (rc = p->op == GS_OP_gelsd
                  ? gs_sol_gelsd(c, p, &x, d, ld, hwork, hbytes, hdiag, hvec, hdiag + (size_t)p->n * es, &rank)
                  : gs_sol_compute(c, p, &x, d, ld, hwork, hbytes)) != GS_OK)
        goto out;
    /* INFO first: nothing is written to user memory unless the device's answer is LAPACK's. */
    if ((rc = gs_small_copy(c, info, x.info, sizeof info, cudaMemcpyDeviceToHost)) != GS_OK)
        goto out;
    if (npiv && p->op != GS_OP_getrs && p->op != GS_OP_getri &&
        (rc = gs_small_copy(c, hpiv, x.ipiv, (size_t)gs_lapack_mn(p) * 8, cudaMemcpyDeviceToHost)) != GS_OK)
        goto out;
    /* (gs_sol_gelsd has read gelsd's singular values already, for its rank) */
    if (vbytes && p->op != GS_OP_orgqr && p->op != GS_OP_ormqr && p->op != GS_OP_gels && p->op != GS_OP_gelsd &&
        (rc = gs_small_copy(c, hvec, x.vec, vbytes, cudaMemcpyDeviceToHost)) != GS_OK)
        goto out;
    if (p->op == GS_OP_gels && (rc = gs_r_diagonal(c, p, d[0], ld[0], hdiag)) != GS_OK)
        goto out;
    int st = gs_cuda.cudaStreamSynchronize(gs_cuda.stream);
    if (st != 0) {
        rc = gs_cuda_error(c, "cudaStreamSynchronize", st, __FILE__, __LINE__);
        goto out;
    }
    bool zero = p->op == GS_OP_gels && gs_has_zero(hdiag, p->n, 1, p->prec);
    if (info[0] != 0 || info[1] != 0 || zero) {
        if (zero)
            gs_call_why(c, "R has a zero on its diagonal: the CPU library gives LAPACK's outputs");
        else
            gs_call_why(c, "INFO = %d on the GPU: the CPU library gives LAPACK's outputs", info[0] ? info[0] : info[1]);
        rc = GS_ELAPACK;
        goto out;
    }
    if (p->op == GS_OP_trtri)
        rc = gs_tri_out(c, p, d[0], hdiag + (size_t)p->n * es);
    else
        rc = gs_cuda_outputs(c, o, h, n, es, d, ld);
    if (rc != GS_OK)
        goto out;
    if (npiv && p->op != GS_OP_getrs && p->op != GS_OP_getri)
        for (int64_t i = 0; i < gs_lapack_mn(p); i++)
            gs_lapack_set_int(p, p->ipiv, i, ((int64_t *)hpiv)[i]);
    if (p->op == GS_OP_gelsd)
        gs_lapack_set_int(p, p->rank, 0, rank);
    if (vbytes && p->op != GS_OP_orgqr && p->op != GS_OP_ormqr && p->op != GS_OP_gels) {
        void *dst = p->op == GS_OP_geqrf ? p->tau : p->w;
        if (p->op == GS_OP_geev && real) { /* wr and wi are separate arrays */
            memcpy(p->w, hvec, vbytes / 2);
            memcpy(p->wi, hvec + vbytes / 2, vbytes / 2);
        } else {
            memcpy(dst, hvec, vbytes);
        }
    }
out:
    free(hmem);
    return rc;
}

int gs_cuda_lapack(gs_call_t *c, const gs_lapack_t *p)
{
    gs_operand_t o[4];
    uint8_t scratch_only;
    int n = gs_lapack_operands(p, o, &scratch_only);
    return gs_cuda_run(c, o, n, gs_prec_size(p->prec), scratch_only, gs_sol_body, p);
}

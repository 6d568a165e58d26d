/* The factorisations and solves of LAPACK on cuSOLVER, each an operation descriptor (cuda_solver.h): LU
 * (getrf, gesv, getrs, getri), the symmetric indefinite factorisation (sytrf, sytrs, sysv), Cholesky (potrf,
 * posv, potrs, potri), QR (geqrf, orgqr, ormqr, and the steps least squares shares), and the triangular solve
 * and inverse (trtrs by cuBLAS's trsm, trtri). */
#include <string.h>

#include "backend/cuda_solver.h"

/* cuSOLVER's per-precision routines (gs_sol.fn) with every matrix as void: the same ABI as each precision's
 * own prototype; _bs is the workspace-size function. */
typedef cusolverStatus_t gs_potri_bs_fn(cusolverDnHandle_t, cublasFillMode_t, int, void *, int, int *);
typedef cusolverStatus_t gs_potri_fn(cusolverDnHandle_t, cublasFillMode_t, int, void *, int, void *, int, int *);
typedef cusolverStatus_t gs_orgqr_bs_fn(cusolverDnHandle_t, int, int, int, const void *, int, const void *, int *);
typedef cusolverStatus_t gs_orgqr_fn(cusolverDnHandle_t, int, int, int, void *, int, const void *, void *, int,
                                     int *);
typedef cusolverStatus_t gs_ormqr_bs_fn(cusolverDnHandle_t, cublasSideMode_t, cublasOperation_t, int, int, int,
                                        const void *, int, const void *, const void *, int, int *);
typedef cusolverStatus_t gs_ormqr_fn(cusolverDnHandle_t, cublasSideMode_t, cublasOperation_t, int, int, int,
                                     const void *, int, const void *, void *, int, void *, int, int *);

typedef cusolverStatus_t gs_sytrf_bs_fn(cusolverDnHandle_t, int, void *, int, int *);
typedef cusolverStatus_t gs_sytrf_fn(cusolverDnHandle_t, cublasFillMode_t, int, void *, int, int *, void *, int,
                                     int *);

/* The workspace of a per-precision routine, in elements, as cuSOLVER's workspace-size functions give it. */
static int gs_lwork(const gs_sol_t *s) { return (int)(s->work_bytes / s->es); }

/* ---- LU ---------------------------------------------------------------------------------------------- */

static int gs_getrf_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXgetrf_bufferSize, (s->h, s->q, p->m, p->n, s->t, NULL, s->ld[0], s->t, &s->work_bytes,
                                            &s->hbytes));
    return GS_OK;
}

static int gs_getrf(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXgetrf, (s->h, s->q, p->m, p->n, s->t, s->d[0], s->ld[0], s->ipiv, s->t, s->work,
                                 s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

static int gs_gesv(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXgetrf, (s->h, s->q, p->n, p->n, s->t, s->d[0], s->ld[0], s->ipiv, s->t, s->work,
                                 s->work_bytes, s->hwork, s->hbytes, s->info));
    GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, CUBLAS_OP_N, p->n, p->nrhs, s->t, s->d[0], s->ld[0], s->ipiv, s->t,
                                 s->d[1], s->ld[1], s->info + 1));
    return GS_OK;
}

static int gs_getrs(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, gs_op(p->trans), p->n, p->nrhs, s->t, s->d[0], s->ld[0], s->ipiv,
                                 s->t, s->d[1], s->ld[1], s->info));
    return GS_OK;
}

/* inv(A) solves LU X = I: the factors are copied to extra, and A becomes the identity, then X. */
static int gs_getri(gs_call_t *c, gs_sol_t *s)
{
    int64_t n = s->p->n;
    size_t es = s->es, bytes = (size_t)n * (size_t)n * es;
    GS_CUDA(c, cudaMemcpy2DAsync, (s->extra, bytes, s->d[0], bytes, bytes, 1, cudaMemcpyDeviceToDevice, s->stream));
    GS_CUDA(c, cudaMemsetAsync, (s->d[0], 0, bytes, s->stream));
    GS_CUDA(c, cudaMemcpy2DAsync, (s->d[0], (size_t)(n + 1) * es, s->hones, es, es, (size_t)n,
                                   cudaMemcpyHostToDevice, s->stream));
    GS_SOL(c, cusolverDnXgetrs, (s->h, s->q, CUBLAS_OP_N, n, n, s->t, s->extra, n, s->ipiv, s->t, s->d[0], s->ld[0],
                                 s->info));
    return GS_OK;
}

static size_t gs_getri_extra(const gs_sol_t *s) { return (size_t)s->p->n * (size_t)s->p->n * s->es; }

const gs_sol_op_t gs_sol_getrf = {.work = gs_getrf_work, .compute = gs_getrf, .flags = GS_SOL_PIV_OUT};
const gs_sol_op_t gs_sol_gesv = {.work = gs_getrf_work, .compute = gs_gesv, .flags = GS_SOL_PIV_OUT};
const gs_sol_op_t gs_sol_getrs = {.compute = gs_getrs, .flags = GS_SOL_PIV_IN};
const gs_sol_op_t gs_sol_getri = {.compute = gs_getri, .extra = gs_getri_extra,
                                  .flags = GS_SOL_PIV_IN | GS_SOL_ONES};

/* ---- symmetric indefinite (Bunch-Kaufman) ----------------------------------------------------------- */

/* The workspaces of sytrf (in elements, 32-bit) and of sytrs, the larger of each side's. */
static int gs_sytrf_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int lw = 0;
    if (p->op != GS_OP_sytrs)
        GS_TRY(c, gs_sol_names[GS_SOL_SYTRF][p->prec],
               ((gs_sytrf_bs_fn *)gs_sol.fn[GS_SOL_SYTRF][p->prec][1])(s->h, (int)p->n, NULL, (int)s->ld[0], &lw));
    s->work_bytes = (size_t)lw * s->es;
    if (p->op == GS_OP_sytrf)
        return GS_OK;
    size_t dev = 0, host = 0;
    GS_SOL(c, cusolverDnXsytrs_bufferSize, (s->h, gs_fill(p->uplo), p->n, p->nrhs, s->t, NULL, s->ld[0], NULL, s->t,
                                            NULL, s->ld[1], &dev, &host));
    s->work_bytes = s->work_bytes > dev ? s->work_bytes : dev;
    s->hbytes = host;
    return GS_OK;
}

/* sytrf, its 32-bit pivots made 64-bit in s->ipiv through the host (sytrs and the caller take those), and
 * the factor's diagonal into hextra, for gs_sytrf_exact. */
static int gs_sytrf(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int *piv32 = (int *)(void *)s->ipiv;
    GS_TRY(c, gs_sol_names[GS_SOL_SYTRF][p->prec],
           ((gs_sytrf_fn *)gs_sol.fn[GS_SOL_SYTRF][p->prec][0])(s->h, gs_fill(p->uplo), (int)p->n, s->d[0],
                                                                (int)s->ld[0], piv32, s->work, gs_lwork(s), s->info));
    size_t n = (size_t)p->n, es = s->es;
    int rc = gs_small_copy(c, s->hpiv, piv32, n * 4, cudaMemcpyDeviceToHost);
    if (rc != GS_OK)
        return rc;
    GS_CUDA(c, cudaMemcpy2DAsync, (s->hextra, es, s->d[0], (size_t)(s->ld[0] + 1) * es, es, n,
                                   cudaMemcpyDeviceToHost, s->stream));
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    /* From the last, so that no 32-bit pivot is overwritten before it is read. */
    for (size_t i = n; i-- > 0;)
        ((int64_t *)(void *)s->hpiv)[i] = ((const int32_t *)(const void *)s->hpiv)[i];
    return gs_small_copy(c, s->ipiv, s->hpiv, n * 8, cudaMemcpyHostToDevice);
}

/* sytrs, once everything queued before it has finished: with many processes sharing the GPU, Xsytrs failed
 * without this wait, as if it read operands the stream had not yet written; with it, tests/gpu/run.sh's group
 * shared passes, time-sliced and under MPS. */
static int gs_sytrs(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    GS_SOL(c, cusolverDnXsytrs, (s->h, gs_fill(p->uplo), p->n, p->nrhs, s->t, s->d[0], s->ld[0], s->ipiv, s->t,
                                 s->d[1], s->ld[1], s->work, s->work_bytes, s->hwork, s->hbytes, s->info + 1));
    return GS_OK;
}

static int gs_sysv(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_sytrf(c, s);
    return rc != GS_OK ? rc : gs_sytrs(c, s);
}

static size_t gs_sytrf_host(const gs_lapack_t *p) { return (size_t)p->n * gs_prec_size(p->prec); }

/* A 1 x 1 block of D that is exactly zero, which LAPACK reports as INFO > 0: cuSOLVER's sytrf does not always
 * (on the H200 it gave INFO = 0 for a matrix whose first column is zero; xlintst's DSY type 3), so the CPU
 * library makes the call again. */
static const char *gs_sytrf_exact(const gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    for (int64_t k = 0; k < p->n; k++)
        if (((const int64_t *)(const void *)s->hpiv)[k] > 0 &&
            gs_scalar_is_zero(s->hextra + (size_t)k * s->es, p->prec, false))
            return "a zero 1 x 1 pivot: LAPACK's INFO from the CPU";
    return NULL;
}

const gs_sol_op_t gs_sol_sytrf = {.work = gs_sytrf_work, .compute = gs_sytrf, .host = gs_sytrf_host,
                                  .exact = gs_sytrf_exact, .flags = GS_SOL_PIV_OUT};
const gs_sol_op_t gs_sol_sytrs = {.work = gs_sytrf_work, .compute = gs_sytrs, .flags = GS_SOL_PIV_IN};
const gs_sol_op_t gs_sol_sysv = {.work = gs_sytrf_work, .compute = gs_sysv, .host = gs_sytrf_host,
                                 .exact = gs_sytrf_exact, .flags = GS_SOL_PIV_OUT};

/* ---- Cholesky ---------------------------------------------------------------------------------------- */

static int gs_potrf_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXpotrf_bufferSize, (s->h, s->q, gs_fill(p->uplo), p->n, s->t, NULL, s->ld[0], s->t,
                                            &s->work_bytes, &s->hbytes));
    return GS_OK;
}

static int gs_potrf(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXpotrf, (s->h, s->q, gs_fill(p->uplo), p->n, s->t, s->d[0], s->ld[0], s->t, s->work,
                                 s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

static int gs_potrs(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXpotrs, (s->h, s->q, gs_fill(p->uplo), p->n, p->nrhs, s->t, s->d[0], s->ld[0], s->t,
                                 s->d[1], s->ld[1], s->info + 1));
    return GS_OK;
}

/* posv solves with the factor. */
static int gs_posv(gs_call_t *c, gs_sol_t *s)
{
    int rc = gs_potrf(c, s);
    return rc != GS_OK ? rc : gs_potrs(c, s);
}

static int gs_potri_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    int lw = 0;
    GS_TRY(c, gs_sol_names[GS_SOL_POTRI][p->prec],
           ((gs_potri_bs_fn *)gs_sol.fn[GS_SOL_POTRI][p->prec][1])(s->h, gs_fill(p->uplo), (int)p->n, NULL,
                                                                    (int)s->ld[0], &lw));
    s->work_bytes = (size_t)lw * s->es;
    return GS_OK;
}

static int gs_potri(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_TRY(c, gs_sol_names[GS_SOL_POTRI][p->prec],
           ((gs_potri_fn *)gs_sol.fn[GS_SOL_POTRI][p->prec][0])(s->h, gs_fill(p->uplo), (int)p->n, s->d[0],
                                                                 (int)s->ld[0], s->work, gs_lwork(s), s->info));
    return GS_OK;
}

const gs_sol_op_t gs_sol_potrf = {.work = gs_potrf_work, .compute = gs_potrf};
const gs_sol_op_t gs_sol_posv = {.work = gs_potrf_work, .compute = gs_posv};
const gs_sol_op_t gs_sol_potrs = {.compute = gs_potrs};
const gs_sol_op_t gs_sol_potri = {.work = gs_potri_work, .compute = gs_potri};

/* ---- QR ---------------------------------------------------------------------------------------------- */

int gs_sol_geqrf_size(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t ld, size_t *dev, size_t *host)
{
    GS_SOL(c, cusolverDnXgeqrf_bufferSize, (s->h, s->q, m, n, s->t, NULL, ld, s->t, NULL, s->t, dev, host));
    return GS_OK;
}

int gs_sol_ormqr_size(gs_call_t *c, const gs_sol_t *s, cublasSideMode_t side, cublasOperation_t t, int64_t m,
                      int64_t n, int64_t k, int64_t lda, int64_t ldc, size_t *dev)
{
    int prec = s->p->prec, lw = 0;
    GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][prec],
           ((gs_ormqr_bs_fn *)gs_sol.fn[GS_SOL_ORMQR][prec][1])(s->h, side, t, (int)m, (int)n, (int)k, NULL, (int)lda,
                                                               NULL, NULL, (int)ldc, &lw));
    *dev = *dev > (size_t)lw * s->es ? *dev : (size_t)lw * s->es;
    return GS_OK;
}

int gs_sol_geqrf_run(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, void *a, int64_t lda, void *tau)
{
    GS_SOL(c, cusolverDnXgeqrf, (s->h, s->q, m, n, s->t, a, lda, s->t, tau, s->t, s->work, s->work_bytes, s->hwork,
                                 s->hbytes, s->info));
    return GS_OK;
}

int gs_sol_ormqr_run(gs_call_t *c, const gs_sol_t *s, cublasSideMode_t side, cublasOperation_t t, int64_t m,
                     int64_t n, int64_t k, const void *a, int64_t lda, const void *tau, void *cm, int64_t ldc,
                     int *info)
{
    int prec = s->p->prec;
    GS_TRY(c, gs_sol_names[GS_SOL_ORMQR][prec],
           ((gs_ormqr_fn *)gs_sol.fn[GS_SOL_ORMQR][prec][0])(s->h, side, t, (int)m, (int)n, (int)k, a, (int)lda, tau,
                                                            cm, (int)ldc, s->work, gs_lwork(s), info));
    return GS_OK;
}

int gs_sol_orgqr_size(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t k, int64_t lda, size_t *dev)
{
    int prec = s->p->prec, lw = 0;
    GS_TRY(c, gs_sol_names[GS_SOL_ORGQR][prec],
           ((gs_orgqr_bs_fn *)gs_sol.fn[GS_SOL_ORGQR][prec][1])(s->h, (int)m, (int)n, (int)k, NULL, (int)lda, NULL,
                                                               &lw));
    *dev = *dev > (size_t)lw * s->es ? *dev : (size_t)lw * s->es;
    return GS_OK;
}

int gs_sol_orgqr_run(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t k, void *a, int64_t lda,
                     const void *tau, int *info)
{
    int prec = s->p->prec;
    GS_TRY(c, gs_sol_names[GS_SOL_ORGQR][prec],
           ((gs_orgqr_fn *)gs_sol.fn[GS_SOL_ORGQR][prec][0])(s->h, (int)m, (int)n, (int)k, a, (int)lda, tau, s->work,
                                                            gs_lwork(s), info));
    return GS_OK;
}

static int gs_orgqr_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    s->work_bytes = 0;
    return gs_sol_orgqr_size(c, s, p->m, p->n, p->k, s->ld[0], &s->work_bytes);
}

static int gs_orgqr(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return gs_sol_orgqr_run(c, s, p->m, p->n, p->k, s->d[0], s->ld[0], s->vec, s->info);
}

static cublasSideMode_t gs_side(char side) { return side == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }

static int gs_ormqr_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return gs_sol_ormqr_size(c, s, gs_side(p->side), gs_op(p->trans), p->m, p->n, p->k, s->ld[0], s->ld[1],
                             &s->work_bytes);
}

static int gs_ormqr(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return gs_sol_ormqr_run(c, s, gs_side(p->side), gs_op(p->trans), p->m, p->n, p->k, s->d[0], s->ld[0], s->vec,
                            s->d[1], s->ld[1], s->info);
}

/* orgqr's and ormqr's k Householder scalars. */
static size_t gs_k_elems(const gs_lapack_t *p) { return (size_t)p->k * gs_prec_size(p->prec); }

const gs_sol_op_t gs_sol_orgqr = {.work = gs_orgqr_work, .compute = gs_orgqr, .vec = gs_k_elems,
                                  .flags = GS_SOL_TAU_IN};
const gs_sol_op_t gs_sol_ormqr = {.work = gs_ormqr_work, .compute = gs_ormqr, .vec = gs_k_elems,
                                  .flags = GS_SOL_TAU_IN};

/* ---- triangular -------------------------------------------------------------------------------------- */

static int gs_trtrs(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    return gs_cublas_trsm(c, p->prec, CUBLAS_SIDE_LEFT, gs_fill(p->uplo), gs_op(p->trans), gs_diag(p->diag), p->n,
                          p->nrhs, gs_one(p->prec), s->d[0], s->ld[0], s->d[1], s->ld[1]);
}

static int gs_trtri_work(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXtrtri_bufferSize, (s->h, gs_fill(p->uplo), gs_diag(p->diag), p->n, s->t, NULL, s->ld[0],
                                            &s->work_bytes, &s->hbytes));
    return GS_OK;
}

static int gs_trtri(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    GS_SOL(c, cusolverDnXtrtri, (s->h, gs_fill(p->uplo), gs_diag(p->diag), p->n, s->t, s->d[0], s->ld[0], s->work,
                                 s->work_bytes, s->hwork, s->hbytes, s->info));
    return GS_OK;
}

static size_t gs_trtri_host(const gs_lapack_t *p) { return (size_t)p->n * (size_t)p->n * gs_prec_size(p->prec); }

/* trtri's result: the triangle LAPACK defines (without a unit diagonal), copied into A through hextra; the
 * rest of A is left as it was, as LAPACK leaves it (xlintst's DSY tests keep data there). */
static int gs_trtri_out(gs_call_t *c, gs_sol_t *s)
{
    const gs_lapack_t *p = s->p;
    size_t es = s->es, n = (size_t)p->n;
    char *host = s->hextra;
    GS_CUDA(c, cudaMemcpy2DAsync, (host, n * es, s->d[0], n * es, n * es, n, cudaMemcpyDeviceToHost, s->stream));
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    c->bytes_d2h += n * n * es;
    size_t skip = p->diag == 'U';
    for (size_t j = 0; j < n; j++) {
        size_t lo = p->uplo == 'U' ? 0 : j + skip, hi = p->uplo == 'U' ? j + 1 - skip : n;
        if (hi > lo)
            memcpy((char *)p->a + (j * (size_t)p->lda + lo) * es, host + (j * n + lo) * es, (hi - lo) * es);
    }
    return GS_OK;
}

const gs_sol_op_t gs_sol_trtrs = {.compute = gs_trtrs};
const gs_sol_op_t gs_sol_trtri = {.work = gs_trtri_work, .compute = gs_trtri, .host = gs_trtri_host,
                                  .out = gs_trtri_out};

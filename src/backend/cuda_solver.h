/* What the LAPACK operations share (cuda_solver.c): cuSOLVER, opened at the first LAPACK call that goes to the
 * GPU, with a handle per device; one call's state (gs_sol_t); an operation's descriptor (gs_sol_op_t), which
 * cuda_lapack.c runs; small helpers.  The operations: cuda_factor.c (factorisations and solves), cuda_eigen.c
 * (eigenvalues), cuda_svd.c (the SVD), cuda_lstsq.c (least squares). */
#ifndef GS_CUDA_SOLVER_H
#define GS_CUDA_SOLVER_H

#include "backend/cuda_call.h"
#include "backend/cuda_cublas.h"
#include "families/lapack/lapack.h"

#define GS_CUSOLVER_FUNCS(X) \
    X(cusolverDnCreate) X(cusolverDnSetStream) X(cusolverDnCreateParams) X(cusolverDnXgetrf_bufferSize) \
    X(cusolverDnXgetrf) X(cusolverDnXgetrs) X(cusolverDnXpotrf_bufferSize) X(cusolverDnXpotrf) X(cusolverDnXpotrs) \
    X(cusolverDnXgeqrf_bufferSize) X(cusolverDnXgeqrf) X(cusolverDnXsyevd_bufferSize) X(cusolverDnXsyevd) \
    X(cusolverDnXgesvd_bufferSize) X(cusolverDnXgesvd) X(cusolverDnXtrtri_bufferSize) X(cusolverDnXtrtri) \
    X(cusolverDnXgeev_bufferSize) X(cusolverDnXgeev) X(cusolverDnXgesvdp_bufferSize) X(cusolverDnXgesvdp) \
    X(cusolverDnXsyevdx_bufferSize) X(cusolverDnXsyevdx) X(cusolverDnXsytrs_bufferSize) X(cusolverDnXsytrs)

/* Routines cuSOLVER has only per precision, with 32-bit sizes (gs_sol_names). */
enum { GS_SOL_POTRI, GS_SOL_ORGQR, GS_SOL_ORMQR, GS_SOL_SYTRF, GS_SOL_N };

/* cuSOLVER's functions, for the process; written under the GPU lock by the first gs_sol_up. */
typedef struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUSOLVER_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    void *fn[GS_SOL_N][GS_NPREC][2]; /* each routine of gs_sol_names, and [1] its workspace-size function */
    int state;                       /* 0: not tried, 1: loaded, -1: failed (reason in why) */
    char why[200];
} gs_solver_t;
GS_HIDDEN extern gs_solver_t gs_sol;
GS_HIDDEN extern const char *const gs_sol_names[GS_SOL_N][GS_NPREC];

#define GS_SOL(c, fn, args) GS_TRY(c, #fn, gs_sol.fn args)

/* Opens cuSOLVER once (major 12 with CUDA 13's runtime, 11 with CUDA 12's), and makes the handle of the
 * call's device on its compute stream.  0; or GS_ENODEV with the reason in c->why, said once on stderr. */
GS_HIDDEN int gs_sol_up(gs_call_t *c);

/* One LAPACK call on the device.  The matrices are the family's operands, in order; the device memory besides
 * them is carved from one block after them, the host memory from the device's host buffer. */
typedef struct {
    const gs_lapack_t *p;
    size_t es;                  /* bytes of an element */
    cudaDataType t, r;          /* the element type, and its real type */
    cusolverDnHandle_t h;       /* the device's */
    cusolverDnParams_t q;
    cudaStream_t stream;        /* the device's compute stream */
    char *d[GS_OPERANDS_MAX];   /* the matrices on the device, leading dimensions ld (their rows) */
    int64_t ld[GS_OPERANDS_MAX];
    char *work;                 /* cuSOLVER's device workspace */
    size_t work_bytes;
    int64_t *ipiv;              /* pivots, 64-bit */
    char *vec;                  /* tau, or eigenvalues or singular values (2n reals for real geev) */
    size_t vec_bytes;
    char *extra;                /* the operation's own device memory (gs_sol_op_t.extra) */
    int *info;                  /* two INFO values */
    bool svdp;                  /* the SVD by gesvdp (cuda_svd.c) */
    char *hwork;                /* cuSOLVER's host workspace */
    size_t hbytes;
    char *hpiv, *hvec;          /* the pivots (64-bit) and the vector, on the host */
    char *hones;                /* n ones, for an operation that asks for them (GS_SOL_ONES) */
    char *hextra;               /* the operation's own host memory (gs_sol_op_t.host) */
    int hinfo[2];               /* INFO on the host */
    int64_t rank;               /* gelsd's effective rank */
    int64_t found;              /* syevdx's eigenvalues found */
} gs_sol_t;

/* A step of an operation: 0, or a negative GS_E* code with the reason in c->why. */
typedef int gs_sol_fn(gs_call_t *c, gs_sol_t *s);

/* What cuda_lapack.c moves for an operation besides its matrices (flags of gs_sol_op_t). */
enum {
    GS_SOL_PIV_IN = 1,    /* p->ipiv's n pivots to the device */
    GS_SOL_PIV_OUT = 2,   /* min(m, n) pivots back into p->ipiv */
    GS_SOL_TAU_IN = 4,    /* p->tau to the vector */
    GS_SOL_TAU_OUT = 8,   /* the vector back into p->tau */
    GS_SOL_W_OUT = 16,    /* the vector back into p->w */
    GS_SOL_VEC_BACK = 32, /* the vector back to hvec, for the operation's done */
    GS_SOL_ONES = 64,     /* hones filled */
    GS_SOL_PIV_DEV = 128, /* pivots on the device only */
    GS_SOL_PIV_BACK = 256, /* pivots on the device, and back to hpiv for the operation's done */
};

/* An operation on cuSOLVER.  Functions that are NULL do nothing, or what the field says. */
typedef struct {
    gs_sol_fn *work;     /* sets work_bytes and hbytes to cuSOLVER's workspace sizes (and svdp) */
    gs_sol_fn *compute;  /* queues the computation on the compute stream, INFO into info */
    size_t (*vec)(const gs_lapack_t *p);     /* bytes of the vector */
    size_t (*extra)(const gs_sol_t *s);      /* bytes of extra, after work */
    size_t (*host)(const gs_lapack_t *p);    /* bytes of hextra */
    const char *(*exact)(const gs_sol_t *s); /* after the device finished: why the CPU library must give the
                                              * outputs, or NULL */
    gs_sol_fn *out;      /* copies the outputs to user memory; NULL: every output matrix (gs_cuda_outputs) */
    void (*done)(gs_sol_t *s); /* writes the outputs besides the matrices and the flags' */
    /* After every output is written: why the caller must make the call itself all the same, or NULL.  Only for
     * the Python layer's operations, whose outputs are fresh arrays that the layer then drops (cuda_arrays.c). */
    const char *(*written)(const gs_sol_t *s);
    uint16_t flags;      /* GS_SOL_* */
} gs_sol_op_t;

/* The operations (cuda_factor.c, cuda_eigen.c, cuda_svd.c, cuda_lstsq.c). */
GS_HIDDEN extern const gs_sol_op_t gs_sol_getrf, gs_sol_gesv, gs_sol_getrs, gs_sol_getri, gs_sol_potrf,
    gs_sol_posv, gs_sol_potrs, gs_sol_potri, gs_sol_geqrf, gs_sol_orgqr, gs_sol_ormqr, gs_sol_trtrs, gs_sol_trtri;
GS_HIDDEN extern const gs_sol_op_t gs_sol_syevd, gs_sol_svd, gs_sol_geev, gs_sol_syevdx;
GS_HIDDEN extern const gs_sol_op_t gs_sol_sytrf, gs_sol_sytrs, gs_sol_sysv;
GS_HIDDEN extern const gs_sol_op_t gs_sol_gels, gs_sol_gelsd;
/* The same operations on NumPy's arrays (gs_lapack_t's arrays: cuda_arrays.c, cuda_arrays_svd.c,
 * cuda_arrays_qr.c, cuda_arrays_lstsq.c). */
GS_HIDDEN extern const gs_sol_op_t gs_sol_arr_gesv, gs_sol_arr_potrf, gs_sol_arr_syevd, gs_sol_arr_getrf,
    gs_sol_arr_getrs, gs_sol_arr_potrs, gs_sol_arr_posv, gs_sol_arr_svd, gs_sol_arr_qr, gs_sol_arr_gelsd;

/* The condition checks of the Python layer's SciPy operations (cuda_rcond.c).  An upper bound of the 1-norm of the
 * n x n matrix stored at x, ld elements apart, as t ('N': itself; 'T': its transpose), each element counted as
 * |re| + |im| (at most sqrt(2) times its modulus); with uplo 'L' or 'U', of the Hermitian matrix that triangle
 * of it defines, as LAPACK's norm of a symmetric matrix reads it (0: the whole matrix).  sums: 2 n doubles of
 * scratch.  NaN when an element counted is.  Runs on the team of core/team.h where it is free. */
GS_HIDDEN double gs_rc_norm1(const char *x, int64_t n, int64_t ld, char t, char uplo, int prec, double *sums);
/* The estimate's state: A's factors on the device (fac, ld: getrf's, with s->ipiv, or potrf's triangle p->uplo
 * for posv), a device vector dx, and host vectors x (n elements) and isgn (n ints). */
typedef struct {
    const void *fac;
    int64_t ld;
    char *dx;
    void *x;
    int *isgn;
} gs_rcond_t;
/* LAPACK's estimate of |A^-1|_1 (Higham's method, as gecon and pocon make it through dlacn2 or zlacn2) into
 * *est, from A's factors: a lower bound of the norm, seldom below a third of it.  0, or an error code. */
GS_HIDDEN int gs_rc_estimate(gs_call_t *c, gs_sol_t *s, const gs_rcond_t *e, double *est);

/* QR steps that least squares shares with geqrf and ormqr (cuda_factor.c): geqrf's workspace for an m x n
 * matrix (leading dimension ld), into dev and host bytes; ormqr's (Q from k reflectors of an m x n C), as the
 * larger of it and *dev; and the two computations. */
GS_HIDDEN int gs_sol_geqrf_size(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t ld, size_t *dev,
                                size_t *host);
GS_HIDDEN int gs_sol_ormqr_size(gs_call_t *c, const gs_sol_t *s, cublasSideMode_t side, cublasOperation_t t,
                                int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldc, size_t *dev);
GS_HIDDEN int gs_sol_geqrf_run(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, void *a, int64_t lda,
                               void *tau);
/* orgqr's workspace (Q, m x n, from k reflectors, leading dimension lda) as the larger of it and *dev, and its
 * computation, INFO into info. */
GS_HIDDEN int gs_sol_orgqr_size(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t k, int64_t lda,
                                size_t *dev);
GS_HIDDEN int gs_sol_orgqr_run(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t k, void *a, int64_t lda,
                               const void *tau, int *info);
GS_HIDDEN int gs_sol_ormqr_run(gs_call_t *c, const gs_sol_t *s, cublasSideMode_t side, cublasOperation_t t,
                               int64_t m, int64_t n, int64_t k, const void *a, int64_t lda, const void *tau,
                               void *cm, int64_t ldc, int *info);
/* The SVD that least squares shares (cuda_svd.c): its workspace, its computation (A in d[0], the values into
 * vec, U and VT where wanted in the next matrices of d), and the device bytes of extra that it needs for itself
 * (by gesvdp where svdp says so), at the start of extra.  An answer with both vectors is tested
 * (cuda_svdp_check.c); one that fails, from gesvd, is GS_EEXACT: the CPU library makes the call. */
GS_HIDDEN int gs_sol_svd_size(gs_call_t *c, gs_sol_t *s);
GS_HIDDEN int gs_sol_svd_run(gs_call_t *c, gs_sol_t *s);
GS_HIDDEN size_t gs_sol_svd_own(const gs_lapack_t *p, bool svdp, size_t es);
/* The test of an SVD's answer (cuda_svdp_check.c): A's copy a (m x n, leading dimension m), U (k columns meant)
 * and V (n x k meant), or its transpose VT (k rows meant) where vt says so, and the test's device scratch of
 * gs_svdp_check_bytes. */
typedef struct {
    const void *a, *u, *v;
    int64_t ldu, ldv;
    bool vt;
    char *scratch;
} gs_svdp_parts_t;
GS_HIDDEN size_t gs_svdp_check_bytes(const gs_lapack_t *p, size_t es);
/* The tests' probes and products (cuda_svdp_check.c): the k x GS_SVDP_PROBES host matrix x of values in [-1, 1)
 * and, where sv is given, sx = diag(sv) x; the real trace of a probes' Gram matrix at g; C (rows x probes) =
 * op(A) B + beta C, op(A) rows x k. */
enum { GS_SVDP_PROBES = 4, GS_SVDP_TOL = 10 };
GS_HIDDEN void gs_svdp_probes(int prec, int64_t k, const double *sv, char *x, char *sx);
GS_HIDDEN double gs_svdp_trace(const char *g, int prec, size_t es);
GS_HIDDEN int gs_svdp_mul(gs_call_t *c, int prec, cublasOperation_t t, int64_t rows, int64_t k, const void *a,
                          int64_t lda, const void *b, int64_t ldb, const void *beta, void *cm, int64_t ldc);
/* *ok: the perturbation err that gesvdp reports (0 for gesvd) is within the rounding LAPACK allows and the
 * vectors pass the test; waits for the device.  0, or an error code. */
GS_HIDDEN int gs_svdp_check(gs_call_t *c, const gs_sol_t *s, const gs_svdp_parts_t *v, double err, bool *ok);
/* The test of geqrf's answer (cuda_qr_check.c): A (m x n, stored as op(A) says: ta 'N', or 'T' or 'C' for its
 * transpose or conjugate transpose, leading dimension lda), its factored F (leading dimension ldf) and tau, and
 * the test's device scratch of gs_qr_check_bytes; gs_qr_check_work adds its workspace to *dev (ormqr's). */
typedef struct {
    const void *a, *f, *tau;
    int64_t m, n, lda, ldf;
    char ta;
    char *scratch;
} gs_qr_parts_t;
GS_HIDDEN size_t gs_qr_check_bytes(int64_t m, int64_t n, size_t es);
GS_HIDDEN int gs_qr_check_work(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, int64_t ldf, size_t *dev);
/* *ok: Q R = A and Q is unitary, within rounding; waits for the device.  0, or an error code. */
GS_HIDDEN int gs_qr_check(gs_call_t *c, const gs_sol_t *s, const gs_qr_parts_t *v, bool *ok);
/* geqrf of A (m x n at a, leading dimension lda) into tau, its answer tested (cuda_qr_check.c): A's copy first at
 * mem (m x n, leading dimension m), the test's scratch after it (gs_sol_geqrf_tested_bytes in all, ormqr's
 * workspace by gs_qr_check_work).  An answer that fails is GS_EEXACT, saying why: the CPU library makes the call. */
GS_HIDDEN size_t gs_sol_geqrf_tested_bytes(int64_t m, int64_t n, size_t es);
GS_HIDDEN int gs_sol_geqrf_tested(gs_call_t *c, const gs_sol_t *s, int64_t m, int64_t n, void *a, int64_t lda,
                                  void *tau, char *mem);
/* gelsd's cut-off (cuda_lstsq.c): singular values at or below it count as zero, rcond times the largest, smax (the
 * routine's precision's epsilon times it for an rcond outside (0, 1)), rounded as LAPACK compares; *eps that
 * epsilon. */
GS_HIDDEN double gs_sol_gelsd_cutoff(const gs_lapack_t *p, double smax, double *eps);

/* The Python layer's operations on NumPy's arrays (cuda_arrays.c, cuda_arrays_svd.c, cuda_arrays_qr.c).  Output x
 * of s, rows x cols as it is stored, from op(src) by cuBLAS's geam, op as t says (gs_op: 'N' a copy, 'T' the
 * transpose, 'C' the conjugate transpose), src with leading dimension ld. */
GS_HIDDEN int gs_arr_put(gs_call_t *c, gs_sol_t *s, int x, char t, const void *src, int64_t ld, int64_t rows,
                         int64_t cols);
/* A stored as its transpose (ta 'T') is transposed on the device into the start of extra, which then stands for
 * d[0]: A, m x n, column-major with leading dimension m; gs_arr_own_bytes, those it takes of extra. */
GS_HIDDEN int gs_arr_own(gs_call_t *c, gs_sol_t *s);
GS_HIDDEN size_t gs_arr_own_bytes(const gs_lapack_t *p, size_t es);

/* Copies bytes between host and device on the compute stream (small arrays: pivots, scalars, INFO). */
GS_HIDDEN int gs_small_copy(gs_call_t *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
/* Bytes of a vector of min(m, n) elements, and of min(m, n) reals. */
GS_HIDDEN size_t gs_sol_mn_elems(const gs_lapack_t *p);
GS_HIDDEN size_t gs_sol_mn_reals(const gs_lapack_t *p);

/* min(m, n) of the call. */
static inline int64_t gs_lapack_mn(const gs_lapack_t *p) { return p->m < p->n ? p->m : p->n; }
/* Bytes of a real of precision prec. */
static inline size_t gs_real_size(int prec) { return gs_prec_size(prec) / (gs_prec_complex(prec) ? 2 : 1); }

static inline cublasFillMode_t gs_fill(char u) { return u == 'U' ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }
static inline cublasOperation_t gs_op(char t) { return t == 'N' ? CUBLAS_OP_N : t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C; }
static inline cublasDiagType_t gs_diag(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }
/* op(A) = A^H: C for complex matrices, T for real ones. */
static inline cublasOperation_t gs_op_h(int prec) { return gs_prec_complex(prec) ? CUBLAS_OP_C : CUBLAS_OP_T; }
static inline cusolverEigMode_t gs_eig(char job)
{
    return job == 'V' ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
}

/* The scalars 1 and -1 in a precision's layout (a complex one is 1 and 0), and 0 in any, for cuBLAS's host
 * scalars. */
static inline const void *gs_one(int prec)
{
    static const _Alignas(16) float one_f[2] = {1, 0};
    static const _Alignas(16) double one_d[2] = {1, 0};
    return prec == GS_P_S || prec == GS_P_C ? (const void *)one_f : (const void *)one_d;
}
static inline const void *gs_mone(int prec)
{
    static const _Alignas(16) float mone_f[2] = {-1, 0};
    static const _Alignas(16) double mone_d[2] = {-1, 0};
    return prec == GS_P_S || prec == GS_P_C ? (const void *)mone_f : (const void *)mone_d;
}
static inline const void *gs_zero(void)
{
    static const _Alignas(16) double zero[2] = {0, 0};
    return zero;
}

#endif

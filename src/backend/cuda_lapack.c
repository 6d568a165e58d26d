/* LAPACK on the GPU through cuSOLVER: the table of operation descriptors (cuda_solver.h) and the one body that
 * runs any of them, its matrices moved like BLAS operands (cuda_call.c), pivots, Householder scalars and
 * eigenvalues as small copies.  INFO is read back before anything is written to user memory: when it is not 0
 * the CPU library makes the call again (GS_EEXACT), so that a singular or failing case gives LAPACK's outputs. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_kernels.h"
#include "backend/cuda_lapack.h"
#include "backend/cuda_solver.h"

static const gs_sol_op_t *const gs_sol_ops[GS_NOPS] = {
    [GS_OP_getrf] = &gs_sol_getrf, [GS_OP_gesv] = &gs_sol_gesv,   [GS_OP_getrs] = &gs_sol_getrs,
    [GS_OP_getri] = &gs_sol_getri, [GS_OP_potrf] = &gs_sol_potrf, [GS_OP_posv] = &gs_sol_posv,
    [GS_OP_potrs] = &gs_sol_potrs, [GS_OP_potri] = &gs_sol_potri, [GS_OP_geqrf] = &gs_sol_geqrf,
    [GS_OP_orgqr] = &gs_sol_orgqr, [GS_OP_ormqr] = &gs_sol_ormqr, [GS_OP_trtrs] = &gs_sol_trtrs,
    [GS_OP_trtri] = &gs_sol_trtri, [GS_OP_syev] = &gs_sol_syevd,  [GS_OP_syevd] = &gs_sol_syevd,
    [GS_OP_gesvd] = &gs_sol_svd,   [GS_OP_gesdd] = &gs_sol_svd,   [GS_OP_geev] = &gs_sol_geev,
    [GS_OP_gels] = &gs_sol_gels,   [GS_OP_gelsd] = &gs_sol_gelsd, [GS_OP_syevr] = &gs_sol_syevdx,
    [GS_OP_syevx] = &gs_sol_syevdx, [GS_OP_sytrf] = &gs_sol_sytrf, [GS_OP_sytrs] = &gs_sol_sytrs,
    [GS_OP_sysv] = &gs_sol_sysv,
};
static const gs_sol_op_t *const gs_sol_array_ops[GS_NOPS] = {
    [GS_OP_gesv] = &gs_sol_arr_gesv, [GS_OP_potrf] = &gs_sol_arr_potrf, [GS_OP_syevd] = &gs_sol_arr_syevd,
    [GS_OP_getrf] = &gs_sol_arr_getrf, [GS_OP_getrs] = &gs_sol_arr_getrs, [GS_OP_potrs] = &gs_sol_arr_potrs,
    [GS_OP_posv] = &gs_sol_arr_posv, [GS_OP_gesdd] = &gs_sol_arr_svd, [GS_OP_geqrf] = &gs_sol_arr_qr,
    [GS_OP_gelsd] = &gs_sol_arr_gelsd,
};

/* The descriptor of p's operation: on NumPy's arrays, or on LAPACK's arguments. */
static const gs_sol_op_t *gs_sol_op_of(const gs_lapack_t *p)
{
    return (p->arrays ? gs_sol_array_ops : gs_sol_ops)[p->op];
}

/* Host memory kept between a device's LAPACK calls, at most: a call that needs more (trtri's triangle of a
 * large matrix) gives it back afterwards. */
#define GS_SOL_HOST_KEEP ((size_t)64 << 20)

static size_t gs_round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* The call's host memory, from the device's buffer, which grows when it is too small: cuSOLVER's host
 * workspace, the pivots, the vector, n ones (filled) and the operation's own. */
static int gs_sol_host(gs_call_t *c, gs_sol_t *s, const gs_sol_op_t *op, int64_t npiv)
{
    const gs_lapack_t *p = s->p;
    bool ones = op->flags & GS_SOL_ONES;
    size_t part[5] = {s->hbytes, (size_t)npiv * 8, s->vec_bytes, ones ? (size_t)p->n * s->es : 0,
                      op->host ? op->host(p) : 0};
    char **at[5] = {&s->hwork, &s->hpiv, &s->hvec, &s->hones, &s->hextra};
    size_t total = 64; /* never empty: cuSOLVER is handed a host workspace even of 0 bytes */
    for (int i = 0; i < 5; i++)
        total += gs_round64(part[i]);
    gs_device_t *dv = gs_dev(c);
    if (total > dv->host_size) {
        free(dv->host);
        dv->host_size = 0;
        if (!(dv->host = malloc(total))) {
            gs_call_why(c, "gpu: no host memory for %zu bytes", total);
            return GS_ENOMEM;
        }
        dv->host_size = total;
    }
    char *q = dv->host;
    for (int i = 0; i < 5; i++) {
        *at[i] = q;
        q += gs_round64(part[i]);
    }
    for (int64_t i = 0; ones && i < p->n; i++)
        memcpy(s->hones + (size_t)i * s->es, gs_one(p->prec), s->es);
    return GS_OK;
}

/* Device bytes after the matrices, carved from one block: cuSOLVER's workspace, the pivots, the vector, the
 * operation's own and INFO, which start at off[0..3]. */
static size_t gs_sol_layout(const gs_sol_t *s, int64_t npiv, size_t extra, size_t off[4])
{
    off[0] = gs_round256(s->work_bytes);
    off[1] = off[0] + gs_round256((size_t)npiv * 8);
    off[2] = off[1] + gs_round256(s->vec_bytes);
    off[3] = off[2] + gs_round256(extra);
    return off[3] + 2 * sizeof(int);
}

/* The inputs besides the matrices: pivots in 64 bits, Householder scalars, and INFO zeroed. */
static int gs_sol_inputs(gs_call_t *c, gs_sol_t *s, const gs_sol_op_t *op)
{
    const gs_lapack_t *p = s->p;
    int rc;
    if (op->flags & GS_SOL_PIV_IN) {
        for (int64_t i = 0; i < p->n; i++)
            ((int64_t *)s->hpiv)[i] = gs_lapack_int(p, p->ipiv, i);
        if ((rc = gs_small_copy(c, s->ipiv, s->hpiv, (size_t)p->n * 8, cudaMemcpyHostToDevice)) != GS_OK)
            return rc;
    }
    if ((op->flags & GS_SOL_TAU_IN) &&
        (rc = gs_small_copy(c, s->vec, p->tau, s->vec_bytes, cudaMemcpyHostToDevice)) != GS_OK)
        return rc;
    return gs_small_copy(c, s->info, s->hinfo, sizeof s->hinfo, cudaMemcpyHostToDevice);
}

/* INFO, the pivots and the vector back to the host, once the device has finished. */
static int gs_sol_read(gs_call_t *c, gs_sol_t *s, const gs_sol_op_t *op, int64_t npiv)
{
    int rc = gs_small_copy(c, s->hinfo, s->info, sizeof s->hinfo, cudaMemcpyDeviceToHost);
    if (rc == GS_OK && npiv && (op->flags & (GS_SOL_PIV_OUT | GS_SOL_PIV_BACK)))
        rc = gs_small_copy(c, s->hpiv, s->ipiv, (size_t)gs_lapack_mn(s->p) * 8, cudaMemcpyDeviceToHost);
    if (rc == GS_OK && s->vec_bytes && (op->flags & (GS_SOL_TAU_OUT | GS_SOL_W_OUT | GS_SOL_VEC_BACK)))
        rc = gs_small_copy(c, s->hvec, s->vec, s->vec_bytes, cudaMemcpyDeviceToHost);
    if (rc != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    return GS_OK;
}

/* The outputs besides the matrices, into user memory. */
static void gs_sol_write(gs_sol_t *s, const gs_sol_op_t *op, int64_t npiv)
{
    const gs_lapack_t *p = s->p;
    if (npiv && (op->flags & GS_SOL_PIV_OUT))
        for (int64_t i = 0; i < gs_lapack_mn(p); i++)
            gs_lapack_set_int(p, p->ipiv, i, ((int64_t *)s->hpiv)[i]);
    if (s->vec_bytes && (op->flags & GS_SOL_TAU_OUT))
        memcpy(p->tau, s->hvec, s->vec_bytes);
    if (s->vec_bytes && (op->flags & GS_SOL_W_OUT))
        memcpy(p->w, s->hvec, s->vec_bytes);
    if (op->done)
        op->done(s);
}

/* A call on NumPy's arrays that asks for it (finite): the inputs as uploaded, A and B, looked at on the device
 * for an infinity or a NaN; GS_EEXACT for one, which the original function then reports (SciPy's check_finite),
 * before anything is computed or written.  INFO's word, not yet zeroed, holds the flag. */
static int gs_sol_finite(gs_call_t *c, gs_sol_t *s, const gs_operand_t *o, int n)
{
    const gs_lapack_t *p = s->p;
    int64_t k = gs_prec_complex(p->prec) ? 2 : 1;
    int found = 0, rc;
    GS_CUDA(c, cudaMemsetAsync, (s->info, 0, sizeof(int), s->stream));
    for (int i = 0; i < n; i++) {
        gs_finite_t f = {k * o[i].rows, o[i].cols, k * s->ld[i]};
        if (o[i].in && (rc = gs_kernel_finite(c, s->d[i], &f, s->es / (size_t)k, s->info)) != GS_OK)
            return rc;
    }
    if ((rc = gs_small_copy(c, &found, s->info, sizeof found, cudaMemcpyDeviceToHost)) != GS_OK)
        return rc;
    GS_CUDA(c, cudaStreamSynchronize, (s->stream));
    if (!found)
        return GS_OK;
    gs_call_why(c, "an infinity or a NaN in the input: the original function reports it");
    return GS_EEXACT;
}

static int gs_sol_run(gs_call_t *c, const gs_lapack_t *p, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b,
                      int n)
{
    const gs_sol_op_t *op = gs_sol_op_of(p);
    int rc = gs_sol_up(c);
    if (rc != GS_OK)
        return rc;
    gs_device_t *dv = gs_dev(c);
    gs_sol_t s = {.p = p, .es = gs_prec_size(p->prec), .h = dv->solver, .q = dv->solver_params, .stream = dv->stream};
    static const cudaDataType types[GS_NPREC] = {CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F};
    s.t = types[p->prec], s.r = types[p->prec & 1];
    /* Device leading dimensions are the operands' rows (compact copies). */
    for (int i = 0; i < GS_OPERANDS_MAX; i++)
        s.ld[i] = i < n && o[i].rows > 0 ? o[i].rows : 1;
    if (op->work && (rc = op->work(c, &s)) != GS_OK)
        return rc;
    s.vec_bytes = op->vec ? op->vec(p) : 0;
    int64_t npiv =
        op->flags & (GS_SOL_PIV_IN | GS_SOL_PIV_OUT | GS_SOL_PIV_DEV | GS_SOL_PIV_BACK) ? gs_max(p->m, p->n) : 0;
    size_t off[4], dbytes = gs_sol_layout(&s, npiv, op->extra ? op->extra(&s) : 0, off);
    char *dx = NULL;
    if ((rc = gs_sol_host(c, &s, op, npiv)) != GS_OK ||
        (rc = gs_cuda_operands(c, o, h, b, n, s.es, dbytes, &dx, s.d, s.ld)) != GS_OK)
        return rc;
    s.work = dx, s.ipiv = (int64_t *)(dx + off[0]), s.vec = dx + off[1], s.extra = dx + off[2];
    s.info = (int *)(dx + off[3]);
    if ((p->finite && (rc = gs_sol_finite(c, &s, o, n)) != GS_OK) || (rc = gs_sol_inputs(c, &s, op)) != GS_OK ||
        (rc = op->compute(c, &s)) != GS_OK || (rc = gs_sol_read(c, &s, op, npiv)) != GS_OK)
        return rc;
    const char *why = op->exact ? op->exact(&s) : NULL;
    if (why || s.hinfo[0] || s.hinfo[1]) {
        if (why)
            gs_call_why(c, "%s", why);
        else
            gs_call_why(c, "INFO = %d on the GPU: the CPU library gives LAPACK's outputs",
                        s.hinfo[0] ? s.hinfo[0] : s.hinfo[1]);
        return GS_EEXACT;
    }
    if ((rc = op->out ? op->out(c, &s) : gs_cuda_outputs(c, o, h, n, s.es, s.d, s.ld)) != GS_OK)
        return rc;
    gs_sol_write(&s, op, npiv);
    if ((why = op->written ? op->written(&s) : NULL) != NULL) {
        gs_call_why(c, "%s", why);
        return GS_EEXACT;
    }
    return GS_OK;
}

static int gs_sol_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h, gs_cbind_t *b, int n)
{
    int rc = gs_sol_run(c, arg, o, h, b, n);
    gs_device_t *dv = gs_dev(c);
    if (dv->host_size > GS_SOL_HOST_KEEP) {
        free(dv->host);
        dv->host = NULL;
        dv->host_size = 0;
    }
    return rc;
}

int gs_cuda_lapack(gs_call_t *c, const void *args, const gs_operands_t *o)
{
    const gs_lapack_t *p = args;
    if (!gs_sol_op_of(p)) {
        gs_call_why(c, "gpu error: no cuSOLVER path for %s", gs_ops[p->op].name);
        return GS_EGPU;
    }
    return gs_cuda_run(c, o, gs_sol_body, args);
}

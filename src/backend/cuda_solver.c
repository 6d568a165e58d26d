/* cuSOLVER (cuda_solver.h): the library opened and its functions resolved once, at the first LAPACK call that
 * goes to the GPU, and a handle made on each device at its first such call; when either fails, LAPACK runs on
 * the CPU, after one notice. */
#include <dlfcn.h>
#include <stdio.h>

#include "backend/cuda_solver.h"

gs_solver_t gs_sol;

const char *const gs_sol_names[GS_SOL_N][GS_NPREC] = {
    {"cusolverDnSpotri", "cusolverDnDpotri", "cusolverDnCpotri", "cusolverDnZpotri"},
    {"cusolverDnSorgqr", "cusolverDnDorgqr", "cusolverDnCungqr", "cusolverDnZungqr"},
    {"cusolverDnSormqr", "cusolverDnDormqr", "cusolverDnCunmqr", "cusolverDnZunmqr"},
    {"cusolverDnSsytrf", "cusolverDnDsytrf", "cusolverDnCsytrf", "cusolverDnZsytrf"},
};

/* Opens cuSOLVER and resolves every function: GS_OK, or GS_ENODEV with the reason in gs_sol.why. */
static int gs_sol_open(void)
{
    void *h = gs_cuda_open("cusolver", gs_cuda_major - 1, gs_sol.why, sizeof gs_sol.why);
    if (!h)
        return GS_ENODEV;
#define GS_X_LOAD(f) \
    if (gs_cuda_sym(h, #f, (void **)&gs_sol.f, "cuSOLVER", gs_sol.why, sizeof gs_sol.why) != GS_OK) \
        return GS_ENODEV;
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
                return GS_ENODEV;
            }
        }
    return GS_OK;
}

/* Why cuSOLVER could not start on a device: the call that failed, and its status. */
static char gs_sol_start_why[120];

/* The handle of device dv on its compute stream. */
static int gs_sol_start(gs_device_t *dv)
{
    const char *name = "cusolverDnCreate";
    int st = GS_CALL("cusolverDnCreate", gs_sol.cusolverDnCreate(&dv->solver));
    if (st == 0) {
        name = "cusolverDnSetStream";
        st = GS_CALL("cusolverDnSetStream", gs_sol.cusolverDnSetStream(dv->solver, dv->stream));
    }
    if (st == 0) {
        name = "cusolverDnCreateParams";
        st = GS_CALL("cusolverDnCreateParams", gs_sol.cusolverDnCreateParams(&dv->solver_params));
    }
    if (st == 0)
        return GS_OK;
    snprintf(gs_sol_start_why, sizeof gs_sol_start_why, "cuSOLVER cannot start (%s: status %d)", name, st);
    return GS_ENODEV;
}

int gs_sol_up(gs_call_t *c)
{
    const char *start_failed = gs_sol_start_why; /* (set by gs_sol_start when it fails) */
    gs_device_t *dv = gs_dev(c);
    if (dv->solver_state == 0) {
        dv->solver_state = -1;
        if (gs_sol.state == 0)
            gs_sol.state = gs_sol_open() == GS_OK ? 1 : -1;
        if (gs_sol.state == 1 && gs_sol_start(dv) == GS_OK)
            dv->solver_state = 1;
        else if (!gs.opt.quiet)
            gs_msg("%s; LAPACK runs on the CPU", gs_sol.state < 0 ? gs_sol.why : start_failed);
    }
    if (dv->solver_state == 1)
        return GS_OK;
    c->why = gs_sol.state < 0 ? gs_sol.why : start_failed;
    return GS_ENODEV;
}

int gs_small_copy(gs_call_t *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    GS_CUDA(c, cudaMemcpy2DAsync, (dst, bytes, src, bytes, bytes, 1, kind, gs_dev(c)->stream));
    return GS_OK;
}

size_t gs_sol_mn_elems(const gs_lapack_t *p) { return (size_t)gs_lapack_mn(p) * gs_prec_size(p->prec); }
size_t gs_sol_mn_reals(const gs_lapack_t *p) { return (size_t)gs_lapack_mn(p) * gs_real_size(p->prec); }

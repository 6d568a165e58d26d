/* The CUDA backend's BLAS operations, its bring-up and its table (gs_cuda_backend), which names every
 * operation's function: Level-3 BLAS and gemv through cuBLAS's 64-bit-size API, each call run by cuda_call.c.
 * GEMM is tiled (cuda_gemm.c); the other routines have their operands on the device in whole.  LAPACK goes
 * through cuSOLVER (cuda_lapack.c). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda_cublas.h"
#include "backend/cuda_fft.h"
#include "backend/cuda_gemm.h"
#include "backend/cuda_lapack.h"
#include "backend/cuda_solver.h"
#include "backend/cuda_split.h"

/* "NAME, device N, PCI P, M MiB, CUDA runtime R, driver CUDA D" (P kept in gs.gpu_pci): the name from the
 * driver's cuDeviceGetName (the runtime loaded libcuda), which a stand-in without a driver lacks. */
static void gs_cuda_describe(char *out, size_t n)
{
    char name[128] = "CUDA device";
    int dev = 0;
    size_t free = 0, total = 0;
    void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    int (*get_name)(char *, int, int) = NULL;
    if (drv)
        *(void **)&get_name = dlsym(drv, "cuDeviceGetName");
    gs_cuda.cudaGetDevice(&dev);
    if (get_name && get_name(name, (int)sizeof name, dev) != 0)
        snprintf(name, sizeof name, "CUDA device");
    if (drv)
        dlclose(drv);
    int mem = GS_CALLED(cudaMemGetInfo, (&free, &total));
    char rt[16], dv[16];
    gs_cuda_version(rt, sizeof rt, gs_cuda.runtime_version);
    gs_cuda_version(dv, sizeof dv, gs_cuda.driver_version);
    if (gs_cuda.cudaDeviceGetPCIBusId(gs.gpu_pci, (int)sizeof gs.gpu_pci, dev) != cudaSuccess)
        gs.gpu_pci[0] = 0;
    char size[80];
    if (mem == cudaSuccess) {
        snprintf(size, sizeof size, "%zu MiB", total >> 20);
    } else {
        gs_cuda.cudaGetLastError(); /* not left pending for the libraries' launches */
        snprintf(size, sizeof size, "memory unknown (cudaMemGetInfo: %s)", gs_cuda.cudaGetErrorString(mem));
    }
    snprintf(out, n, "%s, device %d%s%s, %s, CUDA runtime %s, driver CUDA %s", name, dev,
             gs.gpu_pci[0] ? ", PCI " : "", gs.gpu_pci, size, rt, dv);
}

/* Slot 0, on the device GPUSHIM_DEVICE names or the first of GPUSHIM_DEVICES, and a slot for each other
 * device of that list; a device that cannot be brought up is left out with a notice, and the ones after it. */
static int gs_cuda_up(char *why, size_t n, int (*step)(void))
{
    int ordinal[GS_DEVICES_MAX], want;
    if (gs_cuda_load(why, n, step) != GS_OK || (want = gs_device_list(gs_cuda.ndevices, ordinal, why, n)) == 0)
        return GS_ENODEV;
    gs_call_t c = {.why = "", .dev = 0};
    gs_current_t was; /* the bring-up may run on a program's thread */
    gs_current_save(&was);
    int rc = gs_device_start(&c, 0, ordinal[0]);
    if (rc != GS_OK) {
        snprintf(why, n, "%s", c.why);
    } else if ((rc = gs_cuda_step(step, why, n)) == GS_OK) {
        gs_xfer_start(0);
        int up = 1;
        for (int s = 1; s < want; s++) {
            gs_call_t cs = {.why = "", .dev = (uint8_t)s};
            if (gs_device_start(&cs, s, ordinal[s]) != GS_OK) {
                gs_msg("GPUSHIM_DEVICES: device %d could not be brought up (%s): it is not used, nor the ones "
                       "after it", ordinal[s], cs.why);
                break;
            }
            gs_xfer_start(s);
            up++;
        }
        atomic_store(&gs_ndevices, up);
        gs_cuda.cudaSetDevice(ordinal[0]);
        gs_cuda_describe(why, n);
        size_t len = strlen(why);
        if (up > 1 && len < n)
            snprintf(why + len, n - len, "; and %d more devices for large Level-3 calls", up - 1);
    }
    gs_current_restore(&was);
    return rc == GS_OK ? GS_OK : GS_ENODEV;
}

/* cuSOLVER's handle or cuFFT, set up before the family's first call needs them, on the bring-up thread of
 * dispatch/warmup.c, which is gpushim's own: its current device may be set. */
static void gs_cuda_prepare(int family)
{
    gs_call_t c = {.why = "", .dev = 0};
    if (gs_cuda.cudaSetDevice(gs_devices[0].ordinal) != cudaSuccess)
        return; /* the family's first call finds out and says why */
    if (family == GS_FAMILY_LAPACK)
        gs_sol_up(&c);
    else if (family == GS_FAMILY_FFTW)
        gs_fft_up(&c);
}

/* Only FFTs have a setup of their own: a cuFFT plan. */
static double gs_cuda_setup(const gs_call_t *c, const void *args)
{
    return gs_ops[gs_routines[c->routine].op].family == GS_FAMILY_FFTW ? gs_cuda_fft_setup(c, args) : 0;
}

static int gs_cuda_healthy(void)
{
    gs_current_t was;
    gs_current_save(&was);
    int st = GS_CALLED(cudaSetDevice, (gs_devices[0].ordinal));
    if (st == cudaSuccess)
        st = GS_CALLED(cudaDeviceSynchronize, ());
    gs_current_restore(&was);
    return st == cudaSuccess ? GS_OK : GS_EGPU;
}

/* Any routine in one piece (every Level-3 routine but GEMM, and gemv, whose vectors travel strided on the host,
 * compact on the device): its n operands o on the device in whole, computed, the output copied back; in a
 * part of a split call, the part's operands (cuda_split.h). */
static int gs_cuda_whole(gs_call_t *c, const gs_blas_t *p, const gs_operand_t *o, const gs_hreg_t *h,
                         gs_cbind_t *b, int n)
{
    size_t es = gs_prec_size(p->prec);
    char *d[3] = {NULL, NULL, NULL};
    int64_t ld[3] = {1, 1, 1};
    int rc = gs_cuda_operands(c, o, h, b, n, es, 0, NULL, d, ld);
    if (rc == GS_OK)
        rc = c->part ? gs_split_whole(c, p, d, ld) : gs_cuda_compute(c, p, p->beta, d, ld);
    return rc != GS_OK ? rc : gs_cuda_outputs(c, o, h, n, es, d, ld);
}

static int gs_cuda_blas_body(gs_call_t *c, const void *arg, const gs_operand_t *o, const gs_hreg_t *h,
                             gs_cbind_t *b, int n)
{
    const gs_blas_t *p = arg;
    return p->op == GS_OP_gemm ? gs_cuda_gemm(c, p, b) : gs_cuda_whole(c, p, o, h, b, n);
}

/* What a call of any family would copy (cuda_call.c), and for a call that is split, the devices and their
 * copies; for a pipelined FFT, the copies that overlap. */
static void gs_cuda_backend_traffic(gs_call_t *c, const void *args, const gs_operands_t *o, gs_traffic_t *t)
{
    gs_cuda_traffic(c, o, t);
    gs_split_traffic(c, args, o, t);
    gs_cuda_fft_traffic(c, args, t);
}

/* Every BLAS routine on the GPU. */
static int gs_cuda_blas(gs_call_t *c, const void *args, const gs_operands_t *o)
{
    int parts = gs_split_parts(c, args);
    return parts > 1 ? gs_split_run(c, args, o, gs_cuda_blas_body, parts) : gs_cuda_run(c, o, gs_cuda_blas_body, args);
}

const gs_backend_t gs_cuda_backend = {
    .up = gs_cuda_up,
    .healthy = gs_cuda_healthy,
    .release = gs_cuda_release,
    .traffic = gs_cuda_backend_traffic,
    .setup = gs_cuda_setup,
    .prepare = gs_cuda_prepare,
    .prepared = 1u << GS_FAMILY_LAPACK | 1u << GS_FAMILY_FFTW,
    .op =
        {
            [GS_OP_gemm] = gs_cuda_blas,
            [GS_OP_symm] = gs_cuda_blas,
            [GS_OP_hemm] = gs_cuda_blas,
            [GS_OP_syrk] = gs_cuda_blas,
            [GS_OP_herk] = gs_cuda_blas,
            [GS_OP_syr2k] = gs_cuda_blas,
            [GS_OP_her2k] = gs_cuda_blas,
            [GS_OP_trmm] = gs_cuda_blas,
            [GS_OP_trsm] = gs_cuda_blas,
            [GS_OP_gemv] = gs_cuda_blas,
#define GS_X_LAPACK(op, family, dims) GS_X_LAPACK_##family(op)
#define GS_X_LAPACK_BLAS(op)
#define GS_X_LAPACK_FFTW(op) /* below: only the kinds cuFFT has (not r2r, not split arrays) */
#define GS_X_LAPACK_LAPACK(op) [GS_OP_##op] = gs_cuda_lapack,
#define GS_OP GS_X_LAPACK
#include "core/routines.def"
#undef GS_OP
            [GS_OP_fftexec] = gs_cuda_fft,
            [GS_OP_fftdft] = gs_cuda_fft,
            [GS_OP_fftr2c] = gs_cuda_fft,
            [GS_OP_fftc2r] = gs_cuda_fft,
        },
};

/* The state of each device gpushim uses: one slot per device in gs_devices, indexed by the call's c->dev, so
 * that several GPUs need no new structure.  Slot 0 is the device GPUSHIM_DEVICE names, or the first of
 * GPUSHIM_DEVICES; the others of GPUSHIM_DEVICES follow, in its order.  The functions of the CUDA libraries
 * are the process's (cudalib.h). */
#ifndef GS_DEVICE_H
#define GS_DEVICE_H

#include <cusolverDn.h>

#include "cuda/cudalib.h"

#define GS_DEVICES_MAX 16

/* Events that order a device's streams.  Each is recorded and waited for at once, so one event per kind of
 * edge suffices: cudaStreamWaitEvent captures the record current at the time of the call. */
typedef enum {
    GS_EV_UP,     /* recorded on up after uploads; compute waits */
    GS_EV_DONE,   /* recorded on compute after a tile is final; down waits */
    GS_EV_SLOT0,  /* recorded on compute after the last use of an out-of-core A/B slot; up waits (2 slots) */
    GS_EV_CSLOT0 = GS_EV_SLOT0 + 2, /* recorded on down after a C slot was copied out (2 slots) */
    GS_EV_N = GS_EV_CSLOT0 + 2
} gs_ev_t;

/* One device.  Written with the GPU lock held: at bring-up (ordinal, streams, events, handle: fixed from then
 * on, and read by the transfer engine's threads too) and by the calls on the device (the rest). */
typedef struct {
    int ordinal;                   /* CUDA device ordinal */
    cudaStream_t stream;           /* compute: cuBLAS and cuSOLVER run here */
    cudaStream_t up, down;         /* host to device, device to host (memory/xfer.c) */
    cudaEvent_t ev[GS_EV_N];       /* dependencies between the three streams (gs_ev_t) */
    cublasHandle_t handle;         /* cuBLAS's, on stream */
    char *scratch;                 /* device memory for one call's operands (backend/cuda_call.c) */
    size_t scratch_size;
    cusolverDnHandle_t solver;     /* cuSOLVER's, on stream, made at the first LAPACK call (backend/cuda_solver.c) */
    cusolverDnParams_t solver_params;
    int solver_state;              /* 0: not tried, 1: up, -1: failed */
    char *host;                    /* host memory for one LAPACK call's small arrays and cuSOLVER's host workspace */
    size_t host_size;
} gs_device_t;

GS_HIDDEN extern gs_device_t gs_devices[GS_DEVICES_MAX];
/* Slots up: 1 once the GPU is up, more with GPUSHIM_DEVICES.  Stored once at bring-up, before the GPU is
 * marked up; the policy reads it for any call, before the GPU lock (backend/cuda_split.c). */
GS_HIDDEN extern atomic_int gs_ndevices;

/* The ordinals of the slots to bring up, in slot order, out of count devices: GPUSHIM_DEVICES's that exist
 * (a notice names each that does not), every device for "all", else GPUSHIM_DEVICE's.  Their number; 0 with
 * the reason in why when none is left. */
GS_HIDDEN int gs_device_list(int count, int *ordinal, char *why, size_t n);

/* The device of a call on the GPU path (c->dev, set by the GPU's bring-up). */
static inline gs_device_t *gs_dev(const gs_call_t *c) { return &gs_devices[c->dev]; }

/* Brings slot up on the device of that ordinal, which becomes the thread's current device: its streams,
 * events and cuBLAS handle.  With the GPU lock held, after gs_cuda_load.  0, or negative with the reason in
 * c->why. */
GS_HIDDEN int gs_device_start(gs_call_t *c, int slot, int ordinal);

/* The calling thread's current context (the driver's) or, without the driver's functions, its current device:
 * gpushim's work on a program's thread leaves it as it was, since a framework's current device is its own and
 * a thread that never used CUDA must not be left with a context it did not ask for. */
typedef struct {
    void *ctx;
    int dev;
} gs_current_t;
GS_HIDDEN void gs_current_save(gs_current_t *s);
GS_HIDDEN void gs_current_restore(const gs_current_t *s);

#endif

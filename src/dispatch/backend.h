/* The device backend: a table of function pointers, one member per operation of every family, the
 * operation's normalised arguments passed as they are.  The CPU side needs no member: a call that stays on the
 * CPU goes to the CPU library's own entry with its original arguments (core/real.c), so that results and error
 * reports are the library's own.  The CUDA backend (src/backend/) serves both the real CUDA libraries and the
 * test stand-in, which the shim loads in their place (GPUSHIM_CUDA_LIBDIR), so every line of it runs in CI. */
#ifndef GS_BACKEND_H
#define GS_BACKEND_H

#include "core/gs.h"

/* One matrix operand of a call, as the GPU path must move it. */
typedef struct {
    const void *host;
    int64_t rows, cols, ld; /* elements */
    bool in, out;           /* read from / written to host memory */
} gs_operand_t;

/* The operands of one call: their elements are es bytes; those in scratch_only (bit i for operand i) are
 * changed on the device without the change being copied back (a matrix LAPACK documents as destroyed), so
 * they are never cached.  The family's operands function fills what it needs of a zeroed struct. */
#define GS_OPERANDS_MAX 4
typedef struct {
    gs_operand_t o[GS_OPERANDS_MAX];
    int n;
    size_t es;
    uint8_t scratch_only;
    /* Operands (bit i) whose contents are usually new at every call, as an FFT's input is: their copy is not
     * expected to be saved unless the cache holds them now, and the cache does not track them otherwise. */
    uint8_t fresh;
} gs_operands_t;

/* Contract of every operation: called with the GPU lock held, on the device of c->dev.  args is the family's
 * normalised arguments, o its operands (the family's operands function).  Either completes the call, writing
 * user memory only after the device work has succeeded, and returns 0; or returns a negative GS_E* code, with
 * the reason in c->why, before any user memory was written, so that the caller can run the call on the CPU:
 * GS_EEXACT when the device computed a case whose exact outputs only the CPU library gives (LAPACK's INFO > 0:
 * a singular matrix, say), which leaves the GPU usable.  Adds the bytes it moved to c->bytes_h2d and
 * c->bytes_d2h.  src/WRITES.md lists every write into user memory, its bound, and the few exceptions. */
typedef int gs_op_fn(gs_call_t *c, const void *args, const gs_operands_t *o);

typedef struct {
    /* Brings the device up (on any thread: the GPU's first user, or the bring-up thread of dispatch/warmup.c).
     * 0, with the device named in why ("NAME, device N, M MiB, ..."), or negative with a reason for the user in
     * why.  step, when not NULL, is called between the steps (after each library is loaded, after the context):
     * non-zero from it stops the bring-up there, as failed. */
    int (*up)(char *why, size_t n, int (*step)(void));
    /* After a failed call: 0 when the device still works (the failure was local to that call). */
    int (*healthy)(void);
    /* Frees the device memory kept between calls (the residency cache, scratch buffers) on the calling thread's
     * current device, for the program's own allocation there (dispatch/yield.c); the bytes freed.  GPU lock,
     * device up. */
    size_t (*release)(void);
    /* What a GPU call with arguments args and operands o would copy in and out, into t, and the devices it
     * would be split across: an operand counts as copied unless the residency cache holds it now.  Inputs that came back (an earlier call used them) are marked in c->known:
     * the cache keeps them for the next calls, and their copy is an investment (gs_traffic_t). */
    void (*traffic)(gs_call_t *c, const void *args, const gs_operands_t *o, gs_traffic_t *t);
    /* The one-time setup of a family's library on slot 0 (cuSOLVER's handle, cuFFT), after up, on the bring-up
     * thread and without the GPU lock: no call of the family reaches the device before it returns
     * (dispatch/warmup.c).  A failure is reported once; the family's calls then run on the CPU.  NULL: none. */
    void (*prepare)(int family);
    /* The families (a bit each, by gs_family_id_t) whose library prepare sets up: every other family is ready
     * once the device is up (cuBLAS comes up with it). */
    unsigned prepared;
    /* The share of a one-time setup on the device that the call would bear, for the policy (setup_us): 0 when
     * its shape is set up; for an FFT without a cuFFT plan of its geometry, 1 / (1 + the executes of the same
     * FFTW plan before it), so that a plan executed again and again comes to the GPU once it pays.  Infinite
     * for a shape whose GPU calls keep failing: the call stays on the CPU, even under GPUSHIM_OFFLOAD=always. */
    double (*setup)(const gs_call_t *c, const void *args);
    /* Every operation, indexed by gs_op_t; NULL where the operation stays on the CPU. */
    gs_op_fn *op[GS_NOPS];
} gs_backend_t;

GS_HIDDEN extern const gs_backend_t gs_cuda_backend;
/* The backend in use (dispatch/gpu.c). */
GS_HIDDEN extern const gs_backend_t *const gs_backend;

#endif

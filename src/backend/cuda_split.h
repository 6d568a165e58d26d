/* A large call split across several devices (GPUSHIM_DEVICES): a Level-3 call (GEMM, TRSM, TRMM, SYRK, HERK) by
 * blocks of its output, a batched FFT by its transforms; one part on each device slot that is up, with its own
 * streams, staging and cache (cuda_split.c). */
#ifndef GS_CUDA_SPLIT_H
#define GS_CUDA_SPLIT_H

#include "backend/cuda_call.h"
#include "families/blas/blas.h"
#include "families/fftw/fftw.h"

/* The parts the call of c with arguments args (its family's) is split into, at most the slots up: 1 (not
 * split) unless more than one slot is up and the call is
 * - a GEMM, TRSM, TRMM, SYRK or HERK whose every part would have at least 2048 of the output's columns (or rows);
 * - or an FFT of several transforms (its layout one cuFFT takes, not through gpushim's permutation kernels)
 *   whose every part would read at least 16 MiB, each part's transforms apart from the others' in memory on
 *   both sides. */
GS_HIDDEN int gs_split_parts(const gs_call_t *c, const void *args);

/* What a split adds to a call's traffic t: the devices that compute it, and the copies to every device but the
 * first of what more than one part reads (GEMM's whole factor, TRSM's and TRMM's A, the rows of op(A) that
 * SYRK's and HERK's parts share; an FFT's parts share nothing), counted as staged (the policy charges them at
 * one link's rate, host memory being shared by the links). */
GS_HIDDEN void gs_split_traffic(const gs_call_t *c, const void *args, const gs_operands_t *o, gs_traffic_t *t);

/* The transforms of an FFT that splits by them (across devices, or through one device's pipeline: cuda_fft.c),
 * 0 for one that does not; then dist[s] and one[s] are the real elements from one transform to the next on side
 * s (0 input, 1 output) and the reals one transform spans there. */
GS_HIDDEN int64_t gs_split_fft_dim(const gs_fftw_t *p, int64_t dist[2], int64_t one[2]);
/* Part i of parts of an FFT that gs_split_parts splits: its transforms, the whole call's arrays from the
 * part's first transform on, in part (the layout's batch and arrays set; the rest of the geometry is the
 * whole call's). */
GS_HIDDEN void gs_split_fft(const gs_fftw_t *p, int i, int parts, gs_fftw_t *part);

/* Runs the call in parts (2 or more, from gs_split_parts), each on its slot, body on each (cuda_call.h), and
 * returns once all are done: 0, or the first part's failure, with its reason in c->why. */
GS_HIDDEN int gs_split_run(gs_call_t *c, const void *args, const gs_operands_t *o, gs_cuda_body_fn *body,
                           int parts);

/* A part of any routine but GEMM (which is tiled, cuda_gemm.c), its operands on the device (d, ld as for
 * gs_cuda_compute): computed, and once every part has computed, 0; or the failure, with the reason in c->why.
 * The caller then copies the outputs back. */
GS_HIDDEN int gs_split_whole(gs_call_t *c, const gs_blas_t *p, char *const d[3], const int64_t ld[3]);

/* In a part, before it writes its output: waits until every part has computed its block; 0, or GS_EGPU when
 * another part failed (then nothing is written).  0 at once in a call that is not split. */
GS_HIDDEN int gs_split_computed(gs_call_t *c);
/* The same once the part's device has done the work queued on its compute stream: 0, or the failure. */
GS_HIDDEN int gs_split_synced(gs_call_t *c);

#endif

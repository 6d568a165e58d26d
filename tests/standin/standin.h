/* The test stand-in for the CUDA runtime and cuBLAS: "device" memory is host memory from its own allocator.
 * Every device pointer it is handed is checked against that allocator, every transfer is counted, faults
 * can be injected, and a report is appended at exit.  A test double only: it proves routing, bookkeeping,
 * ordering and failure paths, never GPU speed or GPU correctness.
 *
 * Asynchrony, modelled adversarially (cudart.c has the details):
 *   - Work on a stream from cudaStreamCreateWithFlags is queued, not run: copies whose host side is pinned
 *     (cudaHostAlloc, or inside a cudaHostRegister range), device-to-device copies, cuBLAS calls (on the
 *     handle's stream), cudaEventRecord and cudaStreamWaitEvent.  Arguments are checked, transfers counted and
 *     cuBLAS scalars read at the call; data moves only when the operation runs.  cuSOLVER calls and cuFFT
 *     executes are queued likewise (cusolver.c, cufft.c).
 *   - Queued work runs only at synchronisation points (cudaStreamSynchronize, cudaStreamQuery,
 *     cudaEventSynchronize, cudaEventQuery, cudaDeviceSynchronize, cudaFree, cudaFreeHost, cudaHostUnregister,
 *     cublasDestroy_v2, a pageable copy, anything on stream 0) or when too much is queued.  The next stream
 *     to run is chosen pseudo-randomly, honouring only FIFO order within a stream and cudaStreamWaitEvent, so
 *     a missing dependency gives wrong (often NaN, from poisoned memory) data for some seeds.
 *   - A copy whose host side is pageable first runs its stream's queue, then copies at once.  Stream 0 (NULL)
 *     first runs every queue, then runs at once.
 *   - A failure injected into a synchronisation point models a device fault: all queued work is discarded
 *     (never runs; records count as complete) and the call returns the error.
 *
 * Environment:
 *   GS_STANDIN_REPORT=FILE    append "pid=… h2d_bytes=… d2h_bytes=… … violations=…" at exit
 *   GS_STANDIN_FAIL=F[:N],…   make function F fail on its N-th call (every call when N is 0 or absent)
 *   GS_STANDIN_CALLS=FILE     append "NAME COUNT" at exit for every function that can be failed and was called
 *   GS_STANDIN_STICKY=1       after an injected failure every later call fails too (a lost device)
 *   GS_STANDIN_DEVICES=N      devices reported (default 1; 0 gives cudaErrorNoDevice).  Each allocation and
 *                             stream belongs to the device current when it was made, and is only accepted
 *                             with that device current (a cuFFT plan, the device current when it was made);
 *                             the report's blas_by_dev counts library calls by it, fft_by_dev cuFFT executes
 *   GS_STANDIN_DRIVER=V       the driver's CUDA version (default the runtime's: 13000, or 12080 for the CUDA 12
 *                             build); 0 is no driver, and a major version below the runtime's is refused, as the
 *                             real runtime does; CUDA_VISIBLE_DEVICES empty or negative hides every device
 *   GS_STANDIN_MEM=BYTES      each device's memory size (default 64 GiB)
 *   GS_STANDIN_SEED=N         seed of the scheduler's choices (default 1); the same seed and the same calls
 *                             from one thread give the same order
 *   GS_STANDIN_UP_MS=MS       the first cudaGetDeviceCount takes that long, as a driver's start does
 *   GS_STANDIN_SOLVER_MS=MS   each cusolverDnCreate takes that long, as cuSOLVER's start does
 *   GS_STANDIN_SYEVDX_EXTRA=K cusolverDnXsyevdx reports K more eigenvalues than it found
 *
 * Exits, as the real libraries meet them: each library registers, as it loads, as many exit handlers as the
 * real one (cuBLAS with cuBLASLt about 12,600, cuSOLVER 3,700, cuFFT 300), and a start still running when an
 * exit has run any of them is a violation.
 */
#ifndef GS_STANDIN_H
#define GS_STANDIN_H

#include <stddef.h>
#include <stdint.h>

struct CUstream_st;

/* 0 when [p, p + bytes) lies inside one live allocation of the device current; otherwise records a violation
 * naming fn and what. */
int standin_check_device(const void *p, size_t bytes, const char *fn, const char *what);
/* 0 when p is not device memory (a host pointer); otherwise records a violation. */
int standin_check_host(const void *p, const char *fn, const char *what);
/* True when function fn must fail now (fault injection); counts the call and checks the calling process. */
int standin_fail(const char *fn);
/* Whether a runtime call failed since the last cudaGetLastError, which this clears, as cudaGetLastError does. */
int standin_take_last_error(void);
/* Records a violation: fn did something a real CUDA library would not accept. */
void standin_violation(const char *fn, const char *what);
/* Counts one library call for the report, by the device current (blas_by_dev). */
void standin_count_blas(void);
/* The calling thread's current device (cudaSetDevice). */
int standin_current_device(void);
/* Counts a cuFFT event for the report: a handle made by cufftCreate (fft_live + 1) or destroyed (fft_live - 1),
 * a plan made by cufftMakePlanMany64 (fft_plans + 1), an execute queued (fft_execs + 1). */
enum standin_fft_event { STANDIN_FFT_CREATE, STANDIN_FFT_DESTROY, STANDIN_FFT_PLAN, STANDIN_FFT_EXEC };
void standin_count_fft(enum standin_fft_event e);
/* Queues run(copy of arg) on stream s, to run later under the stand-in's lock; size bytes of arg are copied
 * now.  On stream NULL every queue is run first and then run(arg) at once.  run must not call back into the
 * stand-in, and the memory it touches must stay valid until a synchronisation point (cudaFree is one).
 * 0, or -1 (and a violation) when s is not a live stream. */
int standin_enqueue(struct CUstream_st *s, void (*run)(void *arg), const void *arg, size_t size);

/* Registers count exit handlers for library lib, the last of which marks it torn down (standin_start). */
void standin_exit_handlers(const char *lib, int count);
/* A library's start in function fn: ms milliseconds of allocating and freeing, then a violation if any library
 * was torn down meanwhile.  standin_start_ms reads its length from the variable var (0 when unset). */
void standin_start(const char *fn, int ms);
int standin_start_ms(const char *var);

/* For tests of the stand-in itself (selftest.c): violations so far, and operations queued now. */
unsigned long standin_violations(void);
unsigned long standin_pending(void);

#endif

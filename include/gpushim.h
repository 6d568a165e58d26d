/* gpushim's programming interface.  Programs need none of it: loading libgpushim.so (LD_PRELOAD) is enough.
 * These calls let a program or a test ask the library about itself. */
#ifndef GPUSHIM_H
#define GPUSHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, such as "0.1.0". */
const char *gpushim_version(void);

/* Waits at most seconds for the GPU's bring-up (on a background thread under GPUSHIM_WARMUP=auto, lazy or
 * eager), cuSOLVER's and cuFFT's included where LAPACK or FFTW calls wanted them; starts it first where calls
 * have wanted the GPU but had not yet made it worth starting (auto).  Returns 1 when the GPU is up and ready
 * for every family that wanted it, 0 when it is not: no call has wanted the GPU, there is no usable GPU, the
 * process is a forked child, or the time ran out.  A benchmark calls it after its warm-up calls, so that what
 * it times next is the steady state. */
int gpushim_gpu_wait(double seconds);

/* Writes the records the offload log (GPUSHIM_LOG) holds back, runs of like calls still being summed, so that
 * the log file has every call made so far: for a program that reads its own log as it runs (the Python
 * package's summary() and its notebook magic).  Returns 1, or 0 when no log is written. */
int gpushim_log_flush(void);

/* The file the offload log is written to (GPUSHIM_LOG with %p, %h, %r and %j expanded), or NULL when no log
 * is written.  Initialises the library if no call has yet. */
const char *gpushim_log_path(void);

#ifdef __cplusplus
}
#endif

#endif

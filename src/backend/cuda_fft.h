/* cuFFT for the FFTW family: the library, opened at the first execute that goes to the GPU (cuda_cufft.c); each
 * device's cuFFT plans, cached by the transform's geometry (cuda_fft_plans.c), so that a program that plans,
 * executes and destroys an FFTW plan on every call still makes one cuFFT plan; the execute (cuda_fft.c). */
#ifndef GS_CUDA_FFT_H
#define GS_CUDA_FFT_H

#include <cufft.h>

#include "backend/cuda_call.h"
#include "families/fftw/fftw.h"

#define GS_CUFFT_FUNCS(X) \
    X(cufftCreate) X(cufftDestroy) X(cufftSetStream) X(cufftSetAutoAllocation) X(cufftMakePlanMany64) \
    X(cufftSetWorkArea) X(cufftExecC2C) X(cufftExecZ2Z) X(cufftExecR2C) X(cufftExecD2Z) X(cufftExecC2R) \
    X(cufftExecZ2D) X(cufftGetVersion)

/* cuFFT's functions, for the process; written under the GPU lock by the first gs_fft_up. */
typedef struct {
#define GS_X_MEMBER(f) __typeof__(f) *f;
    GS_CUFFT_FUNCS(GS_X_MEMBER)
#undef GS_X_MEMBER
    gs_once_t loaded;
} gs_cufft_t;
GS_HIDDEN extern gs_cufft_t gs_fft;

#define GS_FFT(c, fn, args) GS_TRY(c, #fn, gs_fft.fn args)

/* Opens cuFFT once (libcufft.so.12 with CUDA 13's runtime, .11 with CUDA 12's).  0; or GS_ENODEV with the
 * reason in c->why, said once on stderr.  With the GPU lock held. */
GS_HIDDEN int gs_fft_up(gs_call_t *c);

/* A cuFFT plan of the call's device: made with auto-allocation off, on the device's compute stream; work bytes
 * of workspace to set before each execute. */
typedef struct {
    cufftHandle h;
    size_t work;
} gs_fft_plan_t;

/* The plan of g's geometry on the call's device, from the cache or made now (the least recently used plan
 * destroyed when the cache is full, every other one when cuFFT runs out of memory making it).  0, or a
 * negative GS_E* code with the reason in c->why.  With the GPU lock held, the device current. */
GS_HIDDEN int gs_fft_plan(gs_call_t *c, const gs_fftw_geom_t *g, gs_fft_plan_t *plan);
/* Whether device slot dev has a plan of g's geometry now, and whether cuFFT failed its last GS_FFT_FAILS
 * executes (a failure the device survives but that comes back for the geometry: the GPU is not tried again for
 * it while the plan is kept).  Any thread. */
enum { GS_FFT_NONE, GS_FFT_READY, GS_FFT_FAILING };
#define GS_FFT_FAILS 2
GS_HIDDEN int gs_fft_plan_state(int dev, const gs_fftw_geom_t *g);
/* Records whether an execute of g's plan on device dev succeeded.  With the GPU lock held. */
GS_HIDDEN void gs_fft_plan_ran(int dev, const gs_fftw_geom_t *g, bool ok);

/* The backend's members for the FFTW executes (gs_backend_t's op and setup). */
GS_HIDDEN int gs_cuda_fft(gs_call_t *c, const void *args, const gs_operands_t *o);
GS_HIDDEN double gs_cuda_fft_setup(const gs_call_t *c, const void *args);
/* For an execute that runs in parts on one device (cuda_fft.c's pipeline), the registered bytes of t copied out
 * while the input goes up: t->overlap.  After gs_split_traffic, whose t->devices says whether the call is split
 * across devices instead.  Nothing for a call of another family. */
GS_HIDDEN void gs_cuda_fft_traffic(const gs_call_t *c, const void *args, gs_traffic_t *t);

#endif

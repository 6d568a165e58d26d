/* After a benchmark's warm-up call: brings up the GPU that the call wanted and waits for it (gpushim_gpu_wait,
 * looked up at run time, so that the program runs without gpushim too).  Under gpushim's default the warm-up
 * ran on the CPU, so that when this returns 1 the benchmark makes its warm-up call once more: the timed calls
 * then follow a first call on the GPU, as a forced run's do, steady state against steady state.  The first
 * call in a fresh process is bench/first_call.py's to measure. */
#ifndef BENCH_SETTLE_H
#define BENCH_SETTLE_H
#include <dlfcn.h>

static inline int bench_settle(void)
{
    int (*wait)(double) = (int (*)(double))dlsym(RTLD_DEFAULT, "gpushim_gpu_wait");
    return wait ? wait(30) : 0;
}
#endif

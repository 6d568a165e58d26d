/* After a benchmark's warm-up calls: waits for the GPU bring-up that they started under gpushim's default
 * GPUSHIM_WARMUP=lazy (gpushim_gpu_wait, looked up at run time, so that the program runs without gpushim too),
 * so that the timed calls meet the steady state that a forced run meets after its own warm-up.  The first call
 * in a fresh process is bench/first_call.py's to measure. */
#ifndef BENCH_SETTLE_H
#define BENCH_SETTLE_H
#include <dlfcn.h>

static inline void bench_settle(void)
{
    int (*wait)(double) = (int (*)(double))dlsym(RTLD_DEFAULT, "gpushim_gpu_wait");
    if (wait)
        wait(30);
}
#endif

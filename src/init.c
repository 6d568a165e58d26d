/* Process-wide state and its life cycle: one-time initialisation on the first call into the library (from any
 * thread, or from another library's constructor before ours ran), fork handling, and the exit summary.  No
 * CUDA work happens here: the GPU is brought up by the first call that wants it (gpu.c).  The constructor
 * only registers the fork handler, so that every forked child runs on the CPU, whether or not its parent had
 * made a call yet. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache.h"
#include "hostreg.h"
#include "site.h"
#include "wp.h"

gs_state_t gs = {
    .log_fd = -1,
    .log_lock = PTHREAD_MUTEX_INITIALIZER,
    .gpu_lock = PTHREAD_MUTEX_INITIALIZER,
};
atomic_int gs_initialised;

static pthread_once_t gs_once = PTHREAD_ONCE_INIT;

uint64_t gs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* In a forked child the parent's CUDA context is unusable and CUDA must not be called at all, so the child
 * runs everything on the CPU (tests/progs/fork.c pins this).  Its counters start from zero, and a log whose
 * name has %p is reopened under the child's pid on its first record. */
static void gs_atfork_child(void)
{
    gs_gpu_atfork_child();
    gs_hostreg_atfork_child();
    gs_cache_atfork_child();
    gs_wp_atfork_child();
    gs_site_atfork_child();
    gs_counters_reset();
    pthread_mutex_init(&gs.log_lock, NULL);
    if (gs.opt.log && strstr(gs.opt.log, "%p"))
        atomic_store(&gs.log_reopen, 1);
}

static void gs_init_once(void)
{
    gs.t_start = gs_now_ns();
    gs_options_read(&gs.opt);
    gs_policy_init();
    gs_log_open();
    atomic_store_explicit(&gs_initialised, 1, memory_order_release);
}

void gs_init_slow(void)
{
    pthread_once(&gs_once, gs_init_once);
}

__attribute__((constructor)) static void gs_constructor(void)
{
    pthread_atfork(NULL, NULL, gs_atfork_child);
}

__attribute__((destructor)) static void gs_destructor(void)
{
    if (!atomic_load(&gs_initialised))
        return;
    gs_log_exit();
    if (gs.opt.summary)
        gs_summary_print();
}

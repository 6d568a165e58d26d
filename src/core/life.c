/* The process's state, its clock and its life cycle: the one gs_state_t, monotonic time, and the hooks that
 * modules register with GS_LIFE_HOOK for initialisation, a forked child and exit.  A leaf: it calls no other
 * module; init.c's initialisation, fork handler and destructor run the hooks through gs_life_run. */
#include <time.h>

#include "core/gs.h"

gs_state_t gs = {
    .log_fd = -1,
    .log_lock = PTHREAD_MUTEX_INITIALIZER,
    .gpu_lock = PTHREAD_MUTEX_INITIALIZER,
};
atomic_int gs_initialised;

uint64_t gs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The linker's bounds of the section that GS_LIFE_HOOK fills. */
GS_HIDDEN extern const gs_life_hook_t __start_gs_life[], __stop_gs_life[];

void gs_life_run(gs_life_t when)
{
    for (const gs_life_hook_t *h = __start_gs_life; h < __stop_gs_life; h++)
        if (h->when == when)
            h->fn();
}

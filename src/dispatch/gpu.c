/* The GPU's state in this process: brought up by the first call that wants it, remembered when that fails,
 * and given up after an error that leaves the device unusable.  Every use of the device holds gpu_lock. */
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"

const gs_backend_t *const gs_backend = &gs_cuda_backend;

static void gs_gpu_disable(const char *what, const char *detail)
{
    snprintf(gs.gpu_why, sizeof gs.gpu_why, "%s: %s", what, detail);
    atomic_store_explicit(&gs.gpu_state, GS_GPU_FAILED, memory_order_release);
    gs_log_event("gpu_off", gs.gpu_why);
    if (!gs.opt.quiet)
        gs_notice("%s; running everything on the CPU", gs.gpu_why);
}

int gs_gpu_acquire(gs_call_t *c)
{
    if (atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_FAILED) {
        c->why = gs.gpu_why;
        return GS_ENODEV;
    }
    pthread_mutex_lock(&gs.gpu_lock);
    if (atomic_load_explicit(&gs.gpu_state, memory_order_relaxed) == GS_GPU_UNTRIED) {
        char why[sizeof gs.gpu_why - 32] = "";
        if (gs_backend->up(why, sizeof why) == GS_OK) {
            atomic_store_explicit(&gs.gpu_state, GS_GPU_UP, memory_order_release);
            gs_log_event("gpu", why);
        } else
            gs_gpu_disable("no usable GPU", why);
    }
    if (atomic_load_explicit(&gs.gpu_state, memory_order_relaxed) != GS_GPU_UP) {
        pthread_mutex_unlock(&gs.gpu_lock);
        c->why = gs.gpu_why;
        return GS_ENODEV;
    }
    c->dev = 0; /* one device today: the CUDA state's first slot */
    return GS_OK;
}

void gs_gpu_release(void)
{
    pthread_mutex_unlock(&gs.gpu_lock);
}

void gs_gpu_failed(gs_call_t *c, int err)
{
    if (err != GS_ENOMEM && gs_backend->healthy() != GS_OK)
        gs_gpu_disable("GPU disabled after an error", c->why);
}

/* In a forked child: the GPU is never used (tests/progs/fork.c pins this). */
static void gs_gpu_atfork_child(void)
{
    pthread_mutex_init(&gs.gpu_lock, NULL);
    strcpy(gs.gpu_why, "no gpu in a forked child");
    atomic_store(&gs.gpu_state, GS_GPU_FAILED);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_gpu_atfork_child);

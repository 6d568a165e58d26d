/* The GPU's use by calls: each takes gpu_lock once the GPU is up (warmup.c brings it up), and an error that
 * leaves the device unusable gives it up for the process. */
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"

_Thread_local bool gs_gpu_mine;

int gs_gpu_coming(gs_call_t *c)
{
    int family = gs_ops[gs_routines[c->routine].op].family;
    if (!gs_gpu_ready(family) && gs.opt.warmup != GS_WARMUP_OFF && gs_warm_want(c, family) != GS_OK)
        return GS_ENODEV;
    return GS_OK;
}

int gs_gpu_acquire(gs_call_t *c)
{
    if (gs_gpu_coming(c) != GS_OK)
        return GS_ENODEV;
    gs_msg_flush(); /* what the bring-up thread had to say, once it is over */
    if (atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_FAILED) {
        c->why = gs.gpu_why;
        return GS_ENODEV;
    }
    pthread_mutex_lock(&gs.gpu_lock);
    gs_gpu_up_locked(NULL); /* GPUSHIM_WARMUP=off, or no bring-up thread could start */
    if (atomic_load_explicit(&gs.gpu_state, memory_order_relaxed) != GS_GPU_UP) {
        pthread_mutex_unlock(&gs.gpu_lock);
        c->why = gs.gpu_why;
        return GS_ENODEV;
    }
    c->dev = 0; /* one device today: the CUDA state's first slot */
    gs_gpu_mine = true;
    return GS_OK;
}

void gs_gpu_release(void)
{
    gs_gpu_mine = false;
    pthread_mutex_unlock(&gs.gpu_lock);
}

void gs_gpu_failed(gs_call_t *c, int err)
{
    if (err != GS_ENOMEM && gs_backend->healthy() != GS_OK)
        gs_gpu_disable("GPU disabled after an error", c->why);
}

/* At exit, from the library's destructor: the CUDA libraries' own exit handlers and destructors have run or are
 * about to, in an order the shim does not control, so every later call (another library's destructor) runs on
 * the CPU (tests/t_races.sh, "exit").  A call on the GPU on another thread finishes first. */
static void gs_gpu_atexit(void)
{
    if (atomic_load_explicit(&gs.gpu_state, memory_order_acquire) == GS_GPU_FAILED)
        return; /* (calls run on the CPU already, for their own reason: a forked child's, a failure's) */
    if (!gs_gpu_mine)
        pthread_mutex_lock(&gs.gpu_lock);
    snprintf(gs.gpu_why, sizeof gs.gpu_why, "the program is exiting");
    atomic_store_explicit(&gs.gpu_state, GS_GPU_FAILED, memory_order_release);
    if (!gs_gpu_mine)
        pthread_mutex_unlock(&gs.gpu_lock);
}
GS_LIFE_HOOK(GS_LIFE_EXIT, gs_gpu_atexit);

/* In a forked child: the GPU is never used (tests/progs/fork.c pins this), and the calls the parent's other
 * threads were making are not the child's. */
static void gs_gpu_atfork_child(void)
{
    atomic_store(&gs.calls_weighed, 0);
    atomic_store(&gs.gpu_queued_ns, 0);
    pthread_mutex_init(&gs.gpu_lock, NULL);
    strcpy(gs.gpu_why, "no gpu in a forked child");
    atomic_store(&gs.gpu_state, GS_GPU_FAILED);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_gpu_atfork_child);

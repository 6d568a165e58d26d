/* Initialisation and the process's life cycle: one-time initialisation on the first call into the library
 * (from any thread, or from another library's constructor before ours ran): options, policy, then the modules'
 * init hooks; the fork handler and the destructor run theirs (life.c).  No CUDA work happens here (gpu.c brings
 * the GPU up at the first call that wants it); the constructor only registers the fork handlers, so that every
 * forked child runs on the CPU, whether or not its parent had made a call yet. */
#include "core/gs.h"

static pthread_once_t gs_once = PTHREAD_ONCE_INIT;

/* In a forked child the parent's CUDA context is unusable and CUDA must not be called at all, so the child
 * runs everything on the CPU (tests/progs/fork.c pins this); each module forgets the parent's state. */
static void gs_atfork_child(void)
{
    gs_life_run(GS_LIFE_FORK_CHILD);
}

static void gs_atfork_prepare(void)
{
    gs_life_run(GS_LIFE_FORK_PREPARE);
}

static void gs_atfork_parent(void)
{
    gs_life_run(GS_LIFE_FORK_PARENT);
}

static void gs_init_once(void)
{
    gs.t_start = gs_now_ns();
    gs_options_read(&gs.opt);
    gs_policy_init();
    /* after the options and the policy, which the hooks read (the log's header records both) */
    gs_life_run(GS_LIFE_INIT);
    atomic_store_explicit(&gs_initialised, 1, memory_order_release);
}

void gs_init_slow(void)
{
    pthread_once(&gs_once, gs_init_once);
}

__attribute__((constructor)) static void gs_constructor(void)
{
    pthread_atfork(gs_atfork_prepare, gs_atfork_parent, gs_atfork_child);
}

__attribute__((destructor)) static void gs_destructor(void)
{
    if (atomic_load(&gs_initialised))
        gs_life_run(GS_LIFE_EXIT);
}

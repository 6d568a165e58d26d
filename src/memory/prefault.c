/* The thread that faults pages in ahead of a run of copies (prefault.h).  It keeps one run: the range from
 * the end of the latest copy's output to GS_PREFAULT_AHEAD bytes after it, which each copy of the run moves
 * on, and faults it in by pieces, asking the kernel first what mapping the pages belong to.  A copy outside
 * the run's range starts another.  The caller only stores the range, and wakes the thread now and then; the
 * thread does the system calls. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memory/prefault.h"
#include "memory/uapi.h"
#include "memory/wp.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Bytes faulted in by one system call: the thread looks for a newer range between them. */
#define GS_PREFAULT_PIECE ((uintptr_t)1 << 20)

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int state;             /* 0: no thread yet, 1: running, -1: none (the kernel cannot do it) */
    uintptr_t from, want;  /* the run: from the end of its first copy to the last request's end */
    uintptr_t last;        /* the end of the run's latest copy */
    uintptr_t done;        /* faulted in (or skipped) up to here */
    bool idle;             /* the thread waits for a request */
    int fd;                /* /proc/self/maps, which the thread asks */
} gs_pf = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .fd = -1};

/* Whether the mapping at addr is private and writable; its end in *end. */
static bool gs_prefault_mapping(int fd, uintptr_t addr, uintptr_t *end)
{
    struct procmap_query q = {.size = sizeof q, .query_addr = addr};
    if (ioctl(fd, PROCMAP_QUERY, &q) != 0)
        return false;
    *end = q.vma_end;
    return (q.vma_flags & PROCMAP_QUERY_VMA_WRITABLE) && !(q.vma_flags & PROCMAP_QUERY_VMA_SHARED);
}

/* Faults in [lo, hi), or the part of it in lo's mapping; false where that mapping is not one to touch, or
 * the kernel refused (a page unmapped meanwhile, a mapping of device memory). */
static bool gs_prefault_range(int fd, uintptr_t lo, uintptr_t *hi)
{
    uintptr_t end;
    if (!gs_prefault_mapping(fd, lo, &end))
        return false;
    *hi = *hi < end ? *hi : end;
    return syscall(SYS_madvise, (void *)lo, *hi - lo, MADV_POPULATE_WRITE) == 0;
}

/* The thread: the mapping is asked for again at every piece, as the program may map something else there. */
static void *gs_prefault_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gs_pf.lock);
    for (;;) {
        /* A run's first piece at once; then by half the range at a time, a system call for many copies. */
        for (gs_pf.idle = true; gs_pf.done > gs_pf.from ? gs_pf.want - gs_pf.done < GS_PREFAULT_AHEAD / 2
                                                        : gs_pf.done >= gs_pf.want;)
            pthread_cond_wait(&gs_pf.wake, &gs_pf.lock);
        gs_pf.idle = false;
        uintptr_t lo = gs_pf.done, hi = gs_pf.want - lo > GS_PREFAULT_PIECE ? lo + GS_PREFAULT_PIECE : gs_pf.want;
        pthread_mutex_unlock(&gs_pf.lock);
        bool ok = gs_prefault_range(gs_pf.fd, lo, &hi);
        pthread_mutex_lock(&gs_pf.lock);
        if (gs_pf.done == lo) /* else another run began meanwhile */
            gs_pf.done = ok ? hi : gs_pf.want;
    }
    return NULL;
}

/* The thread, at the first request; with the lock held.  A kernel that cannot say what a mapping is
 * (PROCMAP_QUERY) or fault pages in (MADV_POPULATE_WRITE) gets none: both are tried on this module's own
 * state, which is private and writable.  The thread blocks every signal, like the team's. */
static void gs_prefault_start(void)
{
    gs_pf.state = -1;
    gs_pf.fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (gs_pf.fd < 0)
        return;
    uintptr_t lo = gs_page_down((uintptr_t)&gs_pf), hi = lo + gs_page;
    pthread_t t;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (gs_prefault_range(gs_pf.fd, lo, &hi) && pthread_create(&t, NULL, gs_prefault_thread, NULL) == 0)
        pthread_detach(t), gs_pf.state = 1;
    else
        close(gs_pf.fd), gs_pf.fd = -1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void gs_prefault_after(const void *end)
{
    uintptr_t lo = gs_page_up((uintptr_t)end), hi = lo + GS_PREFAULT_AHEAD;
    if (hi < lo)
        return;
    pthread_mutex_lock(&gs_pf.lock);
    if (gs_pf.state == 0)
        gs_prefault_start();
    if (gs_pf.state > 0) {
        /* The run's next copy ends a little after its latest; any other starts a run of its own. */
        if (lo <= gs_pf.last || lo > gs_pf.last + GS_PREFAULT_AHEAD)
            gs_pf.from = gs_pf.done = lo;
        else if (gs_pf.done < lo) /* the copies overtook the thread: it goes on after them */
            gs_pf.done = lo;
        gs_pf.last = lo, gs_pf.want = hi;
        if (gs_pf.idle && (gs_pf.done == gs_pf.from || gs_pf.want - gs_pf.done >= GS_PREFAULT_AHEAD / 2))
            pthread_cond_signal(&gs_pf.wake);
    }
    pthread_mutex_unlock(&gs_pf.lock);
}

/* A forked child has no such thread, nor needs the parent's descriptor; it starts one if it copies. */
static void gs_prefault_child(void)
{
    if (gs_pf.fd >= 0)
        close(gs_pf.fd), gs_pf.fd = -1;
    pthread_mutex_init(&gs_pf.lock, NULL);
    pthread_cond_init(&gs_pf.wake, NULL);
    gs_pf.state = 0, gs_pf.from = gs_pf.want = gs_pf.done = gs_pf.last = 0;
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_prefault_child);

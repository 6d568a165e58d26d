/* The team of loop threads (team.h).  A loop is published in one atomic word: its generation and a bitmap of
 * the pieces still to take.  Every thread, the caller's among them, takes a piece by compare-and-swap on that
 * word, its own pieces first (thread t's are 2t and 2t + 1), so that consecutive loops of one size give each
 * thread the same rows, whose cache lines and pages it touched in the loop before; then any piece left.  A
 * worker reads the loop's fields only after taking a piece of its generation, and the caller publishes no
 * other loop before every piece has run, so the fields a worker reads are those of the piece it took.  A
 * worker that misses a loop (asleep, or late) finds no piece left: no loop waits for any worker.  The word
 * alone says which pieces are left: a worker holding an older word, whose loop is done, finds none in it and
 * cannot take one of the next loop (tests/unit, "team"). */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/team.h"

#define GS_TEAM_MAX 16
#define GS_TEAM_PIECES 2 /* pieces per thread: a fast thread takes a slow one's second piece */
/* How long an idle worker waits for the next loop before it sleeps, yielding its core to any thread that is
 * ready: NumPy's copies come microseconds apart (tens with the offload log on), and the LAPACK call after them
 * wants the cores for the CPU library's own threads. */
#define GS_TEAM_SPIN_NS 200000

static struct {
    pthread_mutex_t busy;     /* held by the thread whose loop the team runs (trylock: one loop at a time) */
    pthread_mutex_t lock;     /* with wake: sleeping workers */
    pthread_cond_t wake[GS_TEAM_MAX];
    atomic_bool asleep[GS_TEAM_MAX]; /* worker i sleeps, or is about to */
    int state;                /* 0: no threads yet, 1: started, -1: could not start; guarded by busy */
    int nthreads;             /* workers besides the caller; guarded by busy */
    atomic_int active;        /* workers the current loop wants (the first ones); written before its word */
    _Atomic uint64_t word;    /* generation << 32 | bitmap of the pieces not taken yet (at most 32) */
    atomic_int done;          /* pieces of the current loop that have run */
    gs_team_fn *fn;           /* the current loop: written before its word is published */
    void *arg;
    int64_t n, step;          /* indexes, and indexes per piece */
} gs_team = {.busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER};

static inline uint32_t gs_team_gen(uint64_t w) { return (uint32_t)(w >> 32); }

static inline void gs_team_pause(void)
{
#ifdef __SSE2__
    _mm_pause();
#endif
}

int gs_team_size(void)
{
    if (gs.opt.copy_threads > 0)
        return gs.opt.copy_threads < GS_TEAM_MAX ? gs.opt.copy_threads : GS_TEAM_MAX;
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus < GS_TEAM_MAX ? cpus : GS_TEAM_MAX;
}

/* Takes and runs pieces of loop generation gen while there are any; self is 0 for the caller, 1 + i for
 * worker i. */
static void gs_team_take(uint32_t gen, int self)
{
    uint64_t w = atomic_load_explicit(&gs_team.word, memory_order_acquire);
    while (gs_team_gen(w) == gen) {
        uint32_t left = (uint32_t)w, own = left & (3u << (2 * self % 32));
        if (!left)
            return;
        int i = __builtin_ctz(own ? own : left);
        if (!atomic_compare_exchange_weak_explicit(&gs_team.word, &w, w & ~((uint64_t)1 << i), memory_order_acq_rel,
                                                   memory_order_acquire))
            continue;
        int64_t lo = (int64_t)i * gs_team.step, hi = lo + gs_team.step;
        gs_team.fn(gs_team.arg, lo, hi < gs_team.n ? hi : gs_team.n);
        atomic_fetch_add_explicit(&gs_team.done, 1, memory_order_release);
        w = atomic_load_explicit(&gs_team.word, memory_order_acquire);
    }
}

/* Sleeps until a loop after seen is published and this worker is woken.  Sequentially consistent with the
 * caller's publish-then-look (gs_team_run): either the caller sees the worker asleep and wakes it, or the
 * worker sees the new loop and does not sleep. */
static void gs_team_sleep(int self, uint32_t seen)
{
    pthread_mutex_lock(&gs_team.lock);
    atomic_store(&gs_team.asleep[self], true);
    while (gs_team_gen(atomic_load(&gs_team.word)) == seen)
        pthread_cond_wait(&gs_team.wake[self], &gs_team.lock);
    atomic_store(&gs_team.asleep[self], false);
    pthread_mutex_unlock(&gs_team.lock);
}

/* Worker number self: it takes part in the loops that want it, waits between them a while, and then sleeps; a
 * loop that does not want it leaves it asleep. */
static void *gs_team_worker(void *arg)
{
    int self = (int)(intptr_t)arg;
    uint32_t seen = gs_team_gen(atomic_load_explicit(&gs_team.word, memory_order_acquire));
    uint64_t idle = gs_now_ns();
    for (unsigned spins = 1;; spins++) {
        uint32_t gen = gs_team_gen(atomic_load_explicit(&gs_team.word, memory_order_acquire));
        if (gen != seen) {
            seen = gen;
            if (self < atomic_load(&gs_team.active)) {
                gs_team_take(gen, self + 1);
                idle = gs_now_ns();
            }
            continue;
        }
        gs_team_pause();
        if (spins % 64)
            continue;
        if (gs_now_ns() - idle < GS_TEAM_SPIN_NS)
            sched_yield();
        else
            gs_team_sleep(self, seen);
    }
    return NULL;
}

/* The workers, at the first loop; with busy held.  They block every signal, so that the program's handlers run
 * on its own threads only. */
static void gs_team_start(void)
{
    int want = gs_team_size() - 1, made = 0;
    for (int i = 0; i < GS_TEAM_MAX; i++)
        pthread_cond_init(&gs_team.wake[i], NULL);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; made < want; made++) {
        pthread_t t;
        if (pthread_create(&t, NULL, gs_team_worker, (void *)(intptr_t)made) != 0)
            break;
        pthread_detach(t);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    gs_team.nthreads = made;
    gs_team.state = made > 0 ? 1 : -1;
}

/* Wakes the sleeping workers among the first want. */
static void gs_team_wake(int want)
{
    bool locked = false;
    for (int i = 0; i < want; i++)
        if (atomic_load(&gs_team.asleep[i])) {
            if (!locked)
                pthread_mutex_lock(&gs_team.lock), locked = true;
            pthread_cond_signal(&gs_team.wake[i]);
        }
    if (locked)
        pthread_mutex_unlock(&gs_team.lock);
}

int gs_team_run(gs_team_fn *fn, void *arg, int64_t n, int64_t grain)
{
    if (grain < 1 || n < 2 * grain || pthread_mutex_trylock(&gs_team.busy) != 0)
        return 0;
    if (gs_team.state == 0)
        gs_team_start();
    if (gs_team.state < 0) {
        pthread_mutex_unlock(&gs_team.busy);
        return 0;
    }
    /* A thread for every GS_TEAM_PIECES grains, so that a small loop wakes few workers. */
    int64_t threads = n / grain / GS_TEAM_PIECES, pieces;
    threads = threads < 2 ? 2 : threads > gs_team.nthreads + 1 ? gs_team.nthreads + 1 : threads;
    pieces = n / grain < threads * GS_TEAM_PIECES ? n / grain : threads * GS_TEAM_PIECES;
    gs_team.fn = fn, gs_team.arg = arg, gs_team.n = n, gs_team.step = (n + pieces - 1) / pieces;
    pieces = (n + gs_team.step - 1) / gs_team.step;
    atomic_store(&gs_team.active, (int)threads - 1);
    atomic_store_explicit(&gs_team.done, 0, memory_order_relaxed);
    uint32_t gen = gs_team_gen(atomic_load_explicit(&gs_team.word, memory_order_relaxed)) + 1;
    atomic_store(&gs_team.word, (uint64_t)gen << 32 | (uint32_t)(pieces >= 32 ? ~0u : (1u << pieces) - 1));
    gs_team_wake((int)threads - 1);
    gs_team_take(gen, 0);
    while (atomic_load_explicit(&gs_team.done, memory_order_acquire) < pieces)
        gs_team_pause();
    pthread_mutex_unlock(&gs_team.busy);
    return (int)pieces;
}

/* A forked child has none of the parent's workers, and may have been forked while a loop ran. */
static void gs_team_child(void)
{
    pthread_mutex_init(&gs_team.busy, NULL);
    pthread_mutex_init(&gs_team.lock, NULL);
    for (int i = 0; i < GS_TEAM_MAX; i++)
        atomic_store(&gs_team.asleep[i], false);
    gs_team.state = 0, gs_team.nthreads = 0;
    atomic_store(&gs_team.word, 0);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_team_child);

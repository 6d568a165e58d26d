/* A team of threads that share one CPU loop at a time: the large strided BLAS copies split across the cores
 * (families/blas/copy.c), which one thread runs at the latency of memory, not its bandwidth.  The team starts
 * at its first loop; its threads spin a little while after each loop, since NumPy makes such calls back to
 * back (one per column), and then sleep.  A forked child starts a team of its own if it needs one. */
#ifndef GS_TEAM_H
#define GS_TEAM_H

#include "core/gs.h"

/* One piece of a loop: the indexes lo to hi - 1. */
typedef void gs_team_fn(void *arg, int64_t lo, int64_t hi);

/* Threads a loop may use, the caller's among them: GPUSHIM_COPY_THREADS, else the CPUs this process may run
 * on, at most 16.  1: the team is not used. */
GS_HIDDEN int gs_team_size(void);

/* Runs fn(arg, lo, hi) over [0, n) in pieces of at least grain indexes, on the team and the calling thread,
 * and returns once every piece has run; the number of pieces (at least 2).  0 when it ran nothing, and the
 * caller runs the loop itself: n is below two grains, the team is busy with another thread's loop, or its
 * threads could not start. */
GS_HIDDEN int gs_team_run(gs_team_fn *fn, void *arg, int64_t n, int64_t grain);

#endif

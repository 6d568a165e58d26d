/* The life cycle of one intercepted call (its inline steps are in gs.h): the record of a timed call
 * (counters, log).  A thread-local depth marks the time a thread spends inside the CPU library, so that a
 * call the library makes into an interposed symbol (reference CBLAS calling dgemm_, say) goes straight
 * through (tests/progs/nested.c pins this).  Counters and clocks run only when a log or the summary asks for
 * them: a small call that stays on the CPU then costs a few nanoseconds. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/gs.h"

gs_counter_t gs_counters[GS_NROUTINES];

/* initial-exec: no __tls_get_addr call on every entry; one int fits the static TLS reserve even when the
 * library is opened with dlopen rather than preloaded. */
_Thread_local int gs_depth __attribute__((tls_model("initial-exec")));

void gs_call_record(gs_call_t *c)
{
    uint64_t ns = gs_now_ns() - c->t0;
    gs_counter_t *k = &gs_counters[c->routine];
    atomic_fetch_add_explicit(&k->calls[c->where], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->ns[c->where], ns, memory_order_relaxed);
    if (c->where == GS_WHERE_GPU) {
        atomic_fetch_add_explicit(&k->bytes_h2d, c->bytes_h2d, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->bytes_d2h, c->bytes_d2h, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->bytes_saved, c->bytes_saved, memory_order_relaxed);
    }
    gs_log_call(c, (double)ns * 1e-9);
}

void gs_call_why(gs_call_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why_buf, sizeof c->why_buf, fmt, ap);
    va_end(ap);
    c->why = c->why_buf;
}

/* In a forked child: the counters start from zero. */
static void gs_counters_reset(void)
{
    memset(gs_counters, 0, sizeof gs_counters);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_counters_reset);

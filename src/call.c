/* The life cycle of one intercepted call: begin (initialisation check, nested-call check, clock), the choice
 * of the CPU path, and the end (counters and log record).  A thread-local depth marks the time a thread
 * spends inside the CPU library, so that a call the library makes into an interposed symbol (reference
 * LAPACK calling dgemm_, say) goes straight through (tests/progs/nested.c pins this). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gs.h"

gs_counter_t gs_counters[GS_NROUTINES];

/* initial-exec: no __tls_get_addr call on every entry; one int fits the static TLS reserve even when the
 * library is opened with dlopen rather than preloaded. */
static _Thread_local int gs_depth __attribute__((tls_model("initial-exec")));

bool gs_call_begin(gs_call_t *c, unsigned e)
{
    gs_init();
    c->entry = (uint16_t)e;
    c->routine = gs_entries[e].routine;
    c->nested = gs_depth > 0;
    c->real = NULL;
    if (c->nested)
        return false;
    c->where = GS_WHERE_CPU;
    c->why = "";
    c->bytes_h2d = c->bytes_d2h = 0;
    c->flops = 0;
    c->timed = gs.opt.log || gs.opt.summary;
    if (c->timed)
        c->t0 = gs_now_ns();
    return true;
}

int gs_call_cpu(gs_call_t *c, const char *why)
{
    c->real = gs_real(c->entry);
    if (c->nested)
        return 1;
    c->where = GS_WHERE_CPU;
    c->why = why;
    gs_depth++;
    return 1;
}

void gs_call_end(gs_call_t *c)
{
    if (c->nested)
        return;
    if (c->where == GS_WHERE_CPU)
        gs_depth--;
    uint64_t ns = c->timed ? gs_now_ns() - c->t0 : 0;
    gs_counter_t *k = &gs_counters[c->routine];
    atomic_fetch_add_explicit(&k->calls[c->where], 1, memory_order_relaxed);
    if (c->timed) {
        atomic_fetch_add_explicit(&k->ns[c->where], ns, memory_order_relaxed);
        gs_log_call(c, (double)ns * 1e-9);
    }
    if (c->where == GS_WHERE_GPU) {
        atomic_fetch_add_explicit(&k->bytes_h2d, c->bytes_h2d, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->bytes_d2h, c->bytes_d2h, memory_order_relaxed);
    }
}

void gs_call_why(gs_call_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why_buf, sizeof c->why_buf, fmt, ap);
    va_end(ap);
    c->why = c->why_buf;
}

void gs_counters_reset(void)
{
    memset(gs_counters, 0, sizeof gs_counters);
}

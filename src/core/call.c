/* The life cycle of one intercepted call (its inline steps are in gs.h; the record of a timed call is the
 * log's, log.c).  A thread-local depth marks the time a thread spends inside the CPU library, so that a call
 * the library makes into an interposed symbol (reference CBLAS calling dgemm_, say) goes straight through
 * (tests/progs/nested.c pins this). */
#include <stdarg.h>
#include <stdio.h>

#include "core/gs.h"

/* initial-exec: no __tls_get_addr call on every entry; one int fits the static TLS reserve even when the
 * library is opened with dlopen rather than preloaded. */
_Thread_local int gs_depth __attribute__((tls_model("initial-exec")));

void gs_call_why(gs_call_t *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why_buf, sizeof c->why_buf, fmt, ap);
    va_end(ap);
    c->why = c->why_buf;
}

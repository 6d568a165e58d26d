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

void gs_call_describe(gs_call_t *c, int op, int64_t m, int64_t n, int64_t k, int64_t r, const char *letters,
                      size_t nletters)
{
    c->dim_names = gs_ops[op].dims;
    for (int i = 0; c->dim_names[i]; i++) {
        char d = c->dim_names[i];
        c->dim[i] = d == 'm' ? m : d == 'n' ? n : d == 'k' ? k : r;
    }
    size_t j = 0;
    for (size_t i = 0; i < nletters && j < sizeof c->opts - 1; i++)
        if (letters[i] >= 'A' && letters[i] <= 'Z')
            c->opts[j++] = letters[i];
    c->opts[j] = 0;
}

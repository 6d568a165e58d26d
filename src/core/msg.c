/* Diagnostics on stderr: each message is formatted into a fixed buffer and written with one write(2), so it
 * never allocates, never interleaves with another thread's message, and works inside any library's
 * constructor.  The number of messages per process is capped; notices about the GPU are not. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "core/gs.h"

static atomic_int gs_msg_count;

__attribute__((format(printf, 1, 0))) static void gs_msg_write(const char *fmt, va_list ap)
{
    char buf[640];
    int len = snprintf(buf, sizeof buf, "gpushim: ");
    len += vsnprintf(buf + len, sizeof buf - (size_t)len, fmt, ap);
    if (len > (int)sizeof buf - 2)
        len = (int)sizeof buf - 2;
    buf[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)len);
    (void)w; /* nowhere to report a failed write to stderr */
}

void gs_msg(const char *fmt, ...)
{
    int n = atomic_fetch_add(&gs_msg_count, 1);
    if (n > GS_MSG_MAX)
        return;
    if (n == GS_MSG_MAX)
        fmt = "further messages suppressed";
    va_list ap;
    va_start(ap, fmt);
    gs_msg_write(fmt, ap);
    va_end(ap);
}

void gs_notice(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gs_msg_write(fmt, ap);
    va_end(ap);
}

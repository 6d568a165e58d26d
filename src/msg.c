/* Diagnostics on stderr: each message is formatted into a fixed buffer and written with one write(2), so it
 * never allocates, never interleaves with another thread's message, and works inside any library's
 * constructor.  The number of messages per process is capped. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "gs.h"

static atomic_int gs_msg_count;

void gs_msg(const char *fmt, ...)
{
    int n = atomic_fetch_add(&gs_msg_count, 1);
    if (n > GS_MSG_MAX)
        return;
    char buf[512];
    int len;
    if (n == GS_MSG_MAX) {
        len = snprintf(buf, sizeof buf, "gpushim: further messages suppressed\n");
    } else {
        va_list ap;
        va_start(ap, fmt);
        len = snprintf(buf, sizeof buf, "gpushim: ");
        len += vsnprintf(buf + len, sizeof buf - (size_t)len, fmt, ap);
        va_end(ap);
        if (len > (int)sizeof buf - 2)
            len = (int)sizeof buf - 2;
        buf[len++] = '\n';
    }
    ssize_t w = write(STDERR_FILENO, buf, (size_t)len);
    (void)w; /* nowhere to report a failed write to stderr */
}

/* Diagnostics on stderr: each message is formatted into a fixed buffer and written with one write(2), so it
 * never allocates, never interleaves with another thread's message, and works inside any library's
 * constructor.  The number of messages per process is capped; notices about the GPU are not.  Messages of a
 * thread that defers them (the GPU's bring-up thread) wait until a call writes them (gs_msg_flush): a bring-up
 * cut short by the program's exit then says nothing, rather than blaming the GPU. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/gs.h"

static atomic_int gs_msg_count;
_Thread_local bool gs_msg_defer;
void (*_Atomic gs_msg_sink)(const char *text, size_t len);

/* The line buf of len bytes ("gpushim: ...\n") to stderr and to the sink. */
static void gs_msg_out(const char *buf, size_t len)
{
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w; /* nowhere to report a failed write to stderr */
    void (*sink)(const char *, size_t) = atomic_load(&gs_msg_sink);
    if (sink && len > 10)
        sink(buf + 9, len - 10);
}

/* Messages deferred: a few lines, in order; more are dropped. */
#define GS_MSG_DEFERRED 4
static struct {
    pthread_mutex_t lock;
    char text[GS_MSG_DEFERRED][640];
    size_t len[GS_MSG_DEFERRED];
    int n;
} gs_deferred = {.lock = PTHREAD_MUTEX_INITIALIZER};
static atomic_bool gs_msg_pending;

__attribute__((format(printf, 1, 0))) static void gs_msg_write(const char *fmt, va_list ap)
{
    char buf[640];
    int len = snprintf(buf, sizeof buf, "gpushim: ");
    len += vsnprintf(buf + len, sizeof buf - (size_t)len, fmt, ap);
    if (len > (int)sizeof buf - 2)
        len = (int)sizeof buf - 2;
    buf[len++] = '\n';
    if (gs_msg_defer) {
        pthread_mutex_lock(&gs_deferred.lock);
        if (gs_deferred.n < GS_MSG_DEFERRED) {
            memcpy(gs_deferred.text[gs_deferred.n], buf, (size_t)len);
            gs_deferred.len[gs_deferred.n++] = (size_t)len;
            atomic_store(&gs_msg_pending, true);
        }
        pthread_mutex_unlock(&gs_deferred.lock);
        return;
    }
    gs_msg_out(buf, (size_t)len);
}

void gs_msg_flush(void)
{
    if (!atomic_load_explicit(&gs_msg_pending, memory_order_acquire))
        return;
    pthread_mutex_lock(&gs_deferred.lock);
    for (int i = 0; i < gs_deferred.n; i++)
        gs_msg_out(gs_deferred.text[i], gs_deferred.len[i]);
    gs_deferred.n = 0;
    atomic_store(&gs_msg_pending, false);
    pthread_mutex_unlock(&gs_deferred.lock);
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

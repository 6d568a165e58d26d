/* The offload log's lowest level: one write(2) per record on its O_APPEND descriptor, the event records, and
 * the JSON escaping of every record's strings.  Both the call records (log.c) and the call sites
 * (site_python.c, which reports a change of sites as an event) write through it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/gs.h"

size_t gs_json_escape(char *out, size_t n, const char *s)
{
    size_t j = 0;
    for (; *s && j + 7 < n; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            out[j++] = '\\';
            out[j++] = (char)ch;
        } else if (ch < 0x20) {
            j += (size_t)snprintf(out + j, n - j, "\\u%04x", ch);
        } else {
            out[j++] = (char)ch;
        }
    }
    out[j] = 0;
    return j;
}

void gs_log_write(const char *buf, size_t len)
{
    static atomic_bool reported;
    if (write(gs.log_fd, buf, len) != (ssize_t)len && !atomic_exchange(&reported, true))
        gs_msg("GPUSHIM_LOG: write failed: %s; later records may be missing", strerror(errno));
}

void gs_log_event(const char *event, const char *what)
{
    if (gs.log_fd < 0)
        return;
    char ewhat[600], buf[800];
    gs_json_escape(ewhat, sizeof ewhat, what);
    int len = snprintf(buf, sizeof buf, "{\"t\":%.6f,\"event\":\"%s\",\"what\":\"%s\"}\n",
                       (double)(gs_now_ns() - gs.t_start) * 1e-9, event, ewhat);
    gs_log_write(buf, (size_t)len);
}

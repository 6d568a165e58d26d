/* The log's event records ("gpu", "gpu_off", "sites", "message", ...): each written at once, after what the
 * calling thread's buffer held (runs.c), so that each thread's records and events stay in order. */
#include <stdio.h>

#include "core/gs.h"
#include "log/record.h"

void gs_log_event_with(const char *event, const char *what, const char *key, const char *value)
{
    if (gs.log_fd < 0)
        return;
    gs_log_put_mine();
    char ewhat[600], evalue[100], buf[800];
    gs_json_escape(ewhat, sizeof ewhat, what);
    int len = snprintf(buf, sizeof buf, "{\"t\":%.6f,\"event\":\"%s\",\"what\":\"%s\"",
                       (double)(gs_now_ns() - gs.t_start) * 1e-9, event, ewhat);
    if (key && value && *value) {
        gs_json_escape(evalue, sizeof evalue, value);
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"%s\":\"%s\"", key, evalue);
    }
    len += snprintf(buf + len, sizeof buf - (size_t)len, "}\n");
    gs_log_write(buf, (size_t)len);
}

void gs_log_event(const char *event, const char *what)
{
    gs_log_event_with(event, what, NULL, NULL);
}

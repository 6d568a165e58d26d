/* The offload log's lowest level: one write(2) per record on its O_APPEND descriptor, the call records'
 * format (of one call, or of a run of like calls), the event records, and the JSON escaping of every
 * record's strings.  The call records (log.c, runs.c) and the call sites (site_python.c, which reports a
 * change of sites as an event) write through it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/gs.h"
#include "log/record.h"

static const char *const gs_where_names[] = {"cpu", "gpu"};

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

void gs_log_event_with(const char *event, const char *what, const char *key, const char *value)
{
    if (gs.log_fd < 0)
        return;
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

void gs_log_record(const gs_call_t *c, double seconds, uint32_t calls, const char *site, const char *native)
{
    const gs_routine_info_t *r = &gs_routines[c->routine];
    /* Every field is bounded (the reason by its escaped copy of 256 bytes, the sites and the symbol by theirs,
     * names by the table, numbers by their formats, a transform's shape by its 8 sizes): a record takes under
     * 2050 bytes, so the appends below cannot overrun buf. */
    char why[GS_WHY_MAX + 112], buf[2304], esite[320], enative[220], esym[48];
    gs_json_escape(why, sizeof why, c->why);
    gs_json_escape(esym, sizeof esym, c->api ? c->api : gs_entries[c->entry].symbol);
    gs_json_escape(esite, sizeof esite, site);
    gs_json_escape(enative, sizeof enative, native);
    int len = snprintf(buf, sizeof buf, "{\"t\":%.6f,\"routine\":\"%s\",\"symbol\":\"%s\",\"dtype\":\"%s\"",
                       (double)(c->t0 - gs.t_start) * 1e-9, r->name, esym, gs_dtype_names[r->prec]);
    for (int i = 0; c->dim_names && c->dim_names[i]; i++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"%c\":%lld", c->dim_names[i],
                        (long long)c->dim[i]);
    if (c->shape_rank) { /* a transform: its kind and logical sizes (at most 8, by the FFTW family) */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"kind\":\"%s\",\"shape\":[", c->kind);
        for (int i = 0; i < c->shape_rank && i < 8; i++)
            len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%lld", i ? "," : "", (long long)c->shape[i]);
        len += snprintf(buf + len, sizeof buf - (size_t)len, "]");
    }
    if (c->threads) /* an FFTW plan's threads on the CPU: its own, or its twin's (families/fftw/twin.c) */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"threads\":%u", (unsigned)c->threads);
    len += snprintf(buf + len, sizeof buf - (size_t)len,
                    ",\"opts\":\"%s\",\"flops\":%.6g,\"where\":\"%s\",\"why\":\"%s\",\"seconds\":%.6g,"
                    "\"bytes_h2d\":%llu,\"bytes_d2h\":%llu,\"cache_hits\":%u,\"bytes_saved\":%llu,\"track_us\":%.1f,"
                    "\"tid\":%d",
                    c->opts, c->flops, gs_where_names[c->where], why, seconds,
                    (unsigned long long)c->bytes_h2d, (unsigned long long)c->bytes_d2h, (unsigned)c->cache_hits,
                    (unsigned long long)c->bytes_saved, (double)c->track_ns * 1e-3, (int)gettid());
    if (c->devices > 1) /* a call split across devices (GPUSHIM_DEVICES) */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"devices\":%u", (unsigned)c->devices);
    if (calls > 1) /* a run of like calls (runs.c): the fields above are their sums */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"calls\":%u", (unsigned)calls);
    if (c->pred_cpu >= 0) /* the cost model's prediction of both sides (core/policy.c) */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"predicted_cpu_s\":%.4g,\"predicted_gpu_s\":%.4g",
                        (double)c->pred_cpu, (double)c->pred_gpu);
    if (c->pred_cpu >= 0 && c->pred_wait > 0) /* of predicted_gpu_s, the GPU's bring-up still to come */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"predicted_wait_s\":%.4g", (double)c->pred_wait);
    if (c->pred_cpu >= 0 && c->sharing > 1) /* calls weighed at once, and of predicted_gpu_s, their GPU work */
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"calls_at_once\":%u,\"predicted_queue_s\":%.4g",
                        (unsigned)c->sharing, (double)c->pred_queue);
    if (gs.opt.sites != GS_SITES_OFF)
        len += snprintf(buf + len, sizeof buf - (size_t)len, ",\"site\":\"%s\",\"native\":\"%s\"", esite, enative);
    len += snprintf(buf + len, sizeof buf - (size_t)len, "}\n");
    gs_log_write(buf, (size_t)len);
}

/* The offload log's lowest level: write(2) on its O_APPEND descriptor, the call records' format (of one call, or
 * of a run of like calls), and the JSON escaping of every record's strings.  The threads' buffers of records
 * (runs.c) and the events (event.c) write through it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* A record being formatted into p (cap bytes).  Appending by hand, not with snprintf: glibc takes its slow path
 * for every printf call in a process where a library registered printf handlers, as libquadmath does, which
 * NumPy's wheels and Debian's OpenBLAS bring: a Python call's record cost 2.0 us that way, 1.35 this way
 * (bench/sites.sh; bench/RESULTS.md, 2026-12-05, fifth session). */
typedef struct {
    char *p;
    size_t cap, len;
} gs_out_t;

void gs_copy_str(char *out, size_t n, const char *s)
{
    size_t len = strnlen(s, n - 1);
    memcpy(out, s, len);
    out[len] = 0;
}

static void gs_put(gs_out_t *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n < o->cap)
        memcpy(o->p + o->len, s, n + 1), o->len += n;
}

/* s JSON-escaped, in at most max bytes. */
static void gs_put_esc(gs_out_t *o, const char *s, size_t max)
{
    size_t room = o->cap - o->len;
    if (room > 1)
        o->len += gs_json_escape(o->p + o->len, max < room ? max : room, s);
}

/* ,"key": */
static void gs_put_key(gs_out_t *o, const char *key)
{
    gs_put(o, ",\"");
    gs_put(o, key);
    gs_put(o, "\":");
}

static void gs_put_int(gs_out_t *o, long long v)
{
    char d[24], *e = d + sizeof d - 1;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    *e = 0;
    do
        *--e = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--e = '-';
    gs_put(o, e);
}

/* v by a format strfromd takes ("%.6g"): no printf parsing. */
static void gs_put_num(gs_out_t *o, const char *fmt, double v)
{
    char d[40];
    strfromd(d, sizeof d, fmt, v);
    gs_put(o, d);
}

/* ,"key":v */
static void gs_put_kint(gs_out_t *o, const char *key, long long v)
{
    gs_put_key(o, key);
    gs_put_int(o, v);
}

/* ,"key":v by fmt */
static void gs_put_knum(gs_out_t *o, const char *key, const char *fmt, double v)
{
    gs_put_key(o, key);
    gs_put_num(o, fmt, v);
}

/* ,"key":"value" with value escaped in at most max bytes */
static void gs_put_str(gs_out_t *o, const char *key, const char *value, size_t max)
{
    gs_put_key(o, key);
    gs_put(o, "\"");
    gs_put_esc(o, value, max);
    gs_put(o, "\"");
}

size_t gs_log_format(char *buf, const gs_call_t *c, double seconds, uint32_t calls, const char *site,
                     const char *native)
{
    const gs_routine_info_t *r = &gs_routines[c->routine];
    /* Every field is bounded (the reason by its escaped copy of GS_WHY_MAX + 112 bytes, the sites and the symbol
     * by theirs, names by the table, numbers by their formats, a transform's shape by its 8 sizes): a record
     * takes under 2050 bytes, within GS_RECORD_MAX. */
    gs_out_t o = {buf, GS_RECORD_MAX, 0};
    gs_put(&o, "{\"t\":");
    gs_put_num(&o, "%.6f", (double)(c->t0 - gs.t_start) * 1e-9);
    gs_put_str(&o, "routine", r->name, 64);
    gs_put_str(&o, "symbol", c->api ? c->api : gs_entries[c->entry].symbol, 48);
    gs_put_str(&o, "dtype", gs_dtype_names[r->prec], 64);
    for (int i = 0; c->dim_names && c->dim_names[i]; i++) {
        char key[2] = {c->dim_names[i], 0};
        gs_put_kint(&o, key, (long long)c->dim[i]);
    }
    if (c->shape_rank) { /* a transform: its kind and logical sizes (at most 8, by the FFTW family) */
        gs_put_str(&o, "kind", c->kind, 64);
        gs_put(&o, ",\"shape\":[");
        for (int i = 0; i < c->shape_rank && i < 8; i++) {
            gs_put(&o, i ? "," : "");
            gs_put_int(&o, (long long)c->shape[i]);
        }
        gs_put(&o, "]");
    }
    if (c->threads) /* an FFTW plan's threads on the CPU: its own, or its twin's (families/fftw/twin.c) */
        gs_put_kint(&o, "threads", c->threads);
    gs_put_str(&o, "opts", c->opts, 64);
    gs_put_knum(&o, "flops", "%.6g", c->flops);
    gs_put_str(&o, "where", gs_where_names[c->where], 64);
    gs_put_str(&o, "why", c->why, GS_WHY_MAX + 112);
    gs_put_knum(&o, "seconds", "%.6g", seconds);
    const char *const counts[] = {"bytes_h2d", "bytes_d2h", "cache_hits", "bytes_saved"};
    const unsigned long long count[] = {c->bytes_h2d, c->bytes_d2h, c->cache_hits, c->bytes_saved};
    for (int i = 0; i < 4; i++)
        gs_put_kint(&o, counts[i], (long long)count[i]);
    gs_put_knum(&o, "track_us", "%.1f", (double)c->track_ns * 1e-3);
    gs_put_kint(&o, "tid", gettid());
    if (c->devices > 1) /* a call split across devices (GPUSHIM_DEVICES) */
        gs_put_kint(&o, "devices", c->devices);
    if (calls > 1) /* a run of like calls (runs.c): the fields above are their sums */
        gs_put_kint(&o, "calls", calls);
    /* the cost model's prediction of both sides (core/policy.c); of predicted_gpu_s, the GPU's bring-up still to
     * come; the calls weighed at once, and of predicted_gpu_s, their GPU work */
    const char *const preds[] = {"predicted_cpu_s", "predicted_gpu_s", "predicted_wait_s", "predicted_queue_s"};
    const double pred[] = {c->pred_cpu, c->pred_gpu, c->pred_wait, c->pred_queue};
    const bool shown[] = {c->pred_cpu >= 0, c->pred_cpu >= 0, c->pred_cpu >= 0 && c->pred_wait > 0,
                          c->pred_cpu >= 0 && c->sharing > 1};
    for (int i = 0; i < 4; i++) {
        if (shown[i] && i == 3)
            gs_put_kint(&o, "calls_at_once", c->sharing);
        if (shown[i])
            gs_put_knum(&o, preds[i], "%.4g", pred[i]);
    }
    if (gs.opt.sites != GS_SITES_OFF) {
        gs_put_str(&o, "site", site, 320);
        gs_put_str(&o, "native", native, 220);
    }
    gs_put(&o, "}\n");
    return o.len;
}

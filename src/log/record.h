/* The offload log's call records (write.c), its runs of like calls and the threads' buffers (runs.c), for log.c. */
#ifndef GS_RECORD_H
#define GS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs.h"

/* s into out (n > 0 bytes), cut to fit and terminated: snprintf's "%s" without its cost (write.c, gs_out_t). */
GS_HIDDEN void gs_copy_str(char *out, size_t n, const char *s);
/* The most bytes of a call record. */
#define GS_RECORD_MAX 2304
/* A record of a call that ran on the GPU, or on the CPU for this long or longer, is written at once (gs_log_put),
 * as every record is under GPUSHIM_LOG_EACH=1. */
#define GS_RECORD_NOW_S 1e-3
/* Formats the record of c, which took seconds, into buf (GS_RECORD_MAX bytes); its length.  calls > 1: c stands
 * for a run of that many like calls, and its seconds, flops, bytes and track time are their sums (the record
 * says "calls").  site and native are the call sites, unescaped. */
GS_HIDDEN size_t gs_log_format(char *buf, const gs_call_t *c, double seconds, uint32_t calls, const char *site,
                               const char *native);
/* Formats the record of c (as gs_log_format) and appends it through the calling thread's buffer (gs_log_put). */
GS_HIDDEN void gs_log_record(const gs_call_t *c, double seconds, uint32_t calls, const char *site,
                             const char *native);
/* Appends the record rec (len bytes) to the calling thread's buffer of records (runs.c), which is written with
 * one write(2) when it is full, when its first record is GS_RECORD_HOLD_NS old at the next, when now is true,
 * and when the thread or the process exits: a record costs a copy rather than a system call, and the threads'
 * writes, which the file's lock makes one at a time, are fewer.  A thread without a buffer writes rec at once. */
GS_HIDDEN void gs_log_put(const char *rec, size_t len, bool now);
/* Writes the calling thread's buffer, unless the thread is writing it already (an event or a message from
 * inside that write): before an event, so that each thread's records and events stay in order. */
GS_HIDDEN void gs_log_put_mine(void);
/* Takes c into the calling thread's run when it is like the thread's previous record's call (gs_log_run_head)
 * and that run is under a second old: true, and c needs no record of its own.  Otherwise writes what the run
 * held and returns false. */
GS_HIDDEN bool gs_log_run(const gs_call_t *c, double seconds);
/* Notes c, whose record was just written with these sites, as the head of the calling thread's next run. */
GS_HIDDEN void gs_log_run_head(const gs_call_t *c, const char *site, const char *native);
/* Writes what every thread's run holds (at exit, before the exit record). */
GS_HIDDEN void gs_log_runs_flush(void);
#endif

/* The offload log's call records (write.c) and its runs of like calls (runs.c), for log.c. */
#ifndef GS_RECORD_H
#define GS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/gs.h"

/* s into out (n > 0 bytes), cut to fit and terminated: snprintf's "%s" without its cost (write.c, gs_out_t). */
GS_HIDDEN void gs_copy_str(char *out, size_t n, const char *s);
/* Formats the record of c, which took seconds, and appends it with one write(2).  calls > 1: c stands for a
 * run of that many like calls, and its seconds, flops, bytes and track time are their sums (the record says
 * "calls").  site and native are the call sites, unescaped. */
GS_HIDDEN void gs_log_record(const gs_call_t *c, double seconds, uint32_t calls, const char *site,
                             const char *native);
/* Takes c into the calling thread's run when it is like the thread's previous record's call (gs_log_run_head)
 * and that run is under a second old: true, and c needs no record of its own.  Otherwise writes what the run
 * held and returns false. */
GS_HIDDEN bool gs_log_run(const gs_call_t *c, double seconds);
/* Notes c, whose record was just written with these sites, as the head of the calling thread's next run. */
GS_HIDDEN void gs_log_run_head(const gs_call_t *c, const char *site, const char *native);
/* Writes what every thread's run holds (at exit, before the exit record). */
GS_HIDDEN void gs_log_runs_flush(void);
#endif

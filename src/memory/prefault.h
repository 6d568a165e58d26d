/* Pages faulted in ahead of a run of copies.  numpy.linalg gathers each matrix into a buffer fresh from
 * malloc, one column per ?copy call, and every first write to a page of it is a page fault taken inside the
 * copy, on each of the team's threads at once: at n = 8192 a fifth of the copies' time.  A thread of this
 * module faults the pages that the run's next calls will write in (MADV_POPULATE_WRITE) while the copies run.
 * That leaves the memory's contents as they were, so it is done only in private writable mappings, where
 * nothing but the process sees its pages (a shared one would be marked dirty). */
#ifndef GS_PREFAULT_H
#define GS_PREFAULT_H

#include "core/gs.h"

/* Bytes ahead of a copy's output that are faulted in: a run that ends leaves at most this much of the
 * mapping after its output resident. */
#define GS_PREFAULT_AHEAD ((size_t)8 << 20)

/* A copy has written its output, which ends at end: the pages up to GS_PREFAULT_AHEAD bytes after it are
 * faulted in by the module's thread, started at the first such call, while the caller returns.  Does nothing
 * where the kernel cannot say what the mapping is (PROCMAP_QUERY, Linux 6.11). */
GS_HIDDEN void gs_prefault_after(const void *end);

#endif

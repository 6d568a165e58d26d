/* Noticing writes to host memory, for the residency cache (cache.c): userfaultfd's asynchronous write
 * protection (Linux 6.7).  A protected page stays readable; the first write to it, by any thread or by the
 * kernel itself (read(2) into it, say), is let through by the kernel, which marks the page written.  The
 * PAGEMAP_SCAN ioctl on /proc/self/pagemap then finds written pages by walking the page tables, without
 * touching the memory.  No signal handler and no thread are involved.  src/COHERENCE.md gives the measured
 * alternatives and the reasons for this one.
 *
 * Every function here is called with the GPU lock held, in the process that opened the descriptors (a forked
 * child never uses the cache). */
#ifndef GS_WP_H
#define GS_WP_H

#include "core/gs.h"

/* Opens userfaultfd and /proc/self/pagemap on first use.  0 when writes can be tracked; otherwise negative,
 * with the reason in why (static) on every call. */
GS_HIDDEN int gs_wp_ready(const char **why);

/* Registers the pages of [lo, hi) for write tracking.  0, or negative where they can't be tracked. */
GS_HIDDEN int gs_wp_register(uintptr_t lo, uintptr_t hi);

/* Write-protects every page of [lo, hi) that is written (or not yet protected), calling written(a, b, arg) for
 * each such run of pages [a, b): whatever device copies cover them are stale, and protecting erases the
 * evidence.  0, or negative when the scan failed (then nothing in the range is known to be protected). */
GS_HIDDEN int gs_wp_protect(uintptr_t lo, uintptr_t hi, void (*written)(uintptr_t, uintptr_t, void *), void *arg);

/* Removes the protection of [lo, hi) before gpushim itself writes there; errors are ignored (a page left
 * protected costs a fault, nothing more). */
GS_HIDDEN void gs_wp_unprotect(uintptr_t lo, uintptr_t hi);

/* True when every page of [lo, hi) is tracked, present and unwritten since it was protected, and, when full,
 * private too (not backed by a file or shared memory, which another process could write): a property of the
 * mapping that needs checking once per cached range (a slower scan). */
GS_HIDDEN bool gs_wp_clean(uintptr_t lo, uintptr_t hi, bool full);

/* The page size, and an address rounded down and up to pages. */
GS_HIDDEN extern uintptr_t gs_page;
static inline uintptr_t gs_page_down(uintptr_t a) { return a & ~(gs_page - 1); }
static inline uintptr_t gs_page_up(uintptr_t a) { return (a + gs_page - 1) & ~(gs_page - 1); }

#endif

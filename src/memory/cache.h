/* The residency cache: device copies of operands (the outputs of GPU calls, and inputs from their second use)
 * kept after the call, so that a later call using the same host matrix, unchanged, skips the copy.  An entry is
 * keyed by the host region exactly (address, width, leading dimension, columns); its device copy is compact
 * (leading dimension = rows).  After a call the pages behind each cached operand are write-protected (wp.h), and
 * an entry is used again only if none of its pages has been written, unmapped, remapped or shared since.  Bounded by
 * GPUSHIM_CACHE_MAX bytes of device memory, least recently used first out, and trimmed when a device
 * allocation fails.  src/COHERENCE.md explains the design.  An entry is on one device, the dev argument (the
 * call's device slot, c->dev); the bound and the trimming are per device.
 *
 * Functions marked "GPU lock" are called with it held; the others from any thread. */
#ifndef GS_CACHE_H
#define GS_CACHE_H

#include "memory/xfer.h"

/* Operands smaller than this are copied every time: tracking them costs more than it saves. */
#define GS_CACHE_MIN ((size_t)1 << 20)

/* One operand of a call and its entry. */
typedef struct gs_cbind {
    char *dev;  /* the entry's device memory, or NULL when the operand is not cached in this call */
    bool hit;   /* dev holds the operand's current contents already: no upload */
    bool out;   /* the call writes the operand */
    bool unused; /* set by the caller when the call ran without the entry (GEMM out of core) */
    int slot;   /* the entry; -1 when none */
    uint32_t origin; /* the call's (origin.h), or 0 */
} gs_cbind_t;

/* A new call on device dev begins: the device memory of its entries dropped since goes to the pool (or is freed
 * when the pool is full).  GPU lock. */
GS_HIDDEN void gs_cache_call(int dev);

/* For the policy, what the cache knows of operand h: resident, when it holds a valid copy (on any device); again,
 * when h is cached or was an operand of an earlier call and not resting (a matrix that comes back is expected
 * to come back again: gs_cache_bind then keeps it); seen, the earlier calls that used it.  Notes h as seen.
 * For an operand whose contents are usually new at every call (fresh: gs_operands_t's), again only when h is
 * cached now, and nothing is noted. */
typedef struct {
    bool resident, again;
    uint8_t seen;
} gs_cexpect_t;
GS_HIDDEN gs_cexpect_t gs_cache_expect(const gs_hreg_t *h, bool fresh);

/* Finds or makes the entry on device dev of operand h, which the call reads (in) and/or writes (out), and which
 * an earlier call used too when again (gs_cache_expect said so): b->dev is NULL when h is not cached (cache
 * off, too small, untrackable memory, no room, an input used for the first time, an output origin.h says not to
 * keep, or the call's operands do not all fit on the device: !fits).  origin: the call's (gs_origin_of), or 0.
 * Before gpushim writes an output, every other entry covering its pages is dropped and the pages lose their
 * protection (a copy engine's writes into registered memory leave no trace in the page tables); this is done
 * whether or not the output is cached.  GPU lock. */
GS_HIDDEN void gs_cache_bind(int dev, const gs_hreg_t *h, bool in, bool out, bool again, uint32_t origin, bool fits,
                             gs_cbind_t *b);


/* After the call, with every host write done: on success (ok) each bound entry becomes valid and its pages
 * are protected; otherwise entries whose device copy may differ from the host are dropped.  GPU lock. */
GS_HIDDEN void gs_cache_end(gs_call_t *c, gs_cbind_t *b, int n, bool ok);

/* Bytes of device dev held by its pool and by its entries that the current call does not use, which an
 * allocation may reclaim; and the reclaiming, the pool first, then entries least recently used first, until at
 * least bytes are freed.  Returns the bytes freed.  GPU lock. */
GS_HIDDEN size_t gs_cache_evictable(int dev);
GS_HIDDEN size_t gs_cache_trim(int dev, size_t bytes);

/* The memory [lo, hi) is being freed, unmapped or remapped: drops what overlaps it (memory hooks, any
 * thread; never calls CUDA). */
GS_HIDDEN void gs_cache_forget(uintptr_t lo, uintptr_t hi);

/* True when an entry may lie at or above address lo: the hooks' fast path. */
GS_HIDDEN bool gs_cache_below(uintptr_t lo);

#endif

/* The edges of a cached operand (edge.c): the bytes it has on its first and last page, which it usually shares with
 * other memory.  A neighbour written there (the next array, malloc's header of the next chunk, which every
 * allocation beside it writes) would mark a protected page written and make the device copy look stale, so the
 * cache protects only the pages the operand fills and compares the edges' bytes instead: a copy of them is taken
 * when the entry is protected, and a hit needs them unchanged. */
#ifndef GS_EDGE_H
#define GS_EDGE_H

#include "memory/xfer.h"

/* The pages of region h that are tracked by write protection, [lo, hi): those h fills, and an edge's page too
 * where the edge is too long to copy (pages over 4 KiB). */
GS_HIDDEN void gs_edge_pages(const gs_hreg_t *h, uintptr_t *lo, uintptr_t *hi);

/* For slot (the cache's entry, below GS_EDGE_SLOTS) of region h tracked on [lo, hi): with save, takes the copy of
 * its edges and returns true; otherwise true when the edges equal the copy. */
#define GS_EDGE_SLOTS 256
GS_HIDDEN bool gs_edge_check(int slot, const gs_hreg_t *h, uintptr_t lo, uintptr_t hi, bool save);

#endif

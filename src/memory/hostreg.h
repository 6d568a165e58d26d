/* Host buffers used again, registered with CUDA (page-locked where they are) so that the copy engines read
 * and write them directly at the link's full speed, without staging.  A registration pins the physical pages
 * behind an address range; if the program unmaps or remaps that range (free, realloc, munmap, mremap,
 * madvise, mmap over it, ...), the same addresses get other pages, and a copy through the old registration would
 * move stale data.  So those calls are interposed: each first drops every registration it touches. */
#ifndef GS_HOSTREG_H
#define GS_HOSTREG_H

#include "core/gs.h"

/* Buffers smaller than this are never registered: they stage at full speed already. */
#define GS_HOSTREG_MIN ((size_t)16 << 20)

/* A new call begins: its operands are about to be passed to gs_hostreg_use.  With the GPU lock held. */
GS_HIDDEN void gs_hostreg_call(void);

/* A call is about to copy the operand at [p, p + bytes): registers it if it was seen before, is large and
 * fits GPUSHIM_REGISTERED (evicting the least recently used).  With the GPU lock held. */
GS_HIDDEN void gs_hostreg_use(const void *p, size_t bytes);

/* True when [p, p + bytes) lies inside a live registration.  With the GPU lock held. */
GS_HIDDEN bool gs_hostreg_has(const void *p, size_t bytes);

#endif

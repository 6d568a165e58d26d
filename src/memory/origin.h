/* Where the residency cache's outputs come from (origin.c): whether the results one routine makes at one place are
 * worth keeping on the device, learnt from what the program did with the last ones. */
#ifndef GS_ORIGIN_H
#define GS_ORIGIN_H

#include "core/gs.h"

/* The origin of c's outputs: its routine, the Python function it came through, and its caller's return address;
 * never 0. */
static inline uint32_t gs_origin_of(const gs_call_t *c)
{
    uint64_t h = ((uint64_t)c->routine * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(uintptr_t)c->api ^
                 ((uint64_t)(uintptr_t)c->ret << 7);
    h = (h ^ h >> 29) * 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32) | 1;
}

/* Whether a new output of origin is kept on the device (and its pages protected). */
GS_HIDDEN bool gs_origin_keeps(uint32_t origin);

/* An output of origin is read by a call: rewritten, when the program had changed it since. */
GS_HIDDEN void gs_origin_read(uint32_t origin, bool rewritten);

#endif

/* The bounds of every address range a table tracks (the residency cache's entries, host registrations),
 * published with relaxed atomics for the memory hooks' fast path: a free, munmap or write that misses them
 * needs no look-up under the table's lock, which every free() of the program would otherwise take. */
#ifndef GS_SPAN_H
#define GS_SPAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct {
    atomic_uintptr_t lo, hi; /* hi = 0 when the table tracks nothing */
} gs_span_t;

/* Recomputes s from the table's n slots, with the table's lock held: range(i, &lo, &hi) gives slot i's range
 * and whether it is in use. */
static inline void gs_span_update(gs_span_t *s, int n, bool (*range)(int i, uintptr_t *lo, uintptr_t *hi))
{
    uintptr_t lo = UINTPTR_MAX, hi = 0, a, b;
    for (int i = 0; i < n; i++)
        if (range(i, &a, &b)) {
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
    atomic_store_explicit(&s->lo, lo, memory_order_relaxed);
    atomic_store_explicit(&s->hi, hi, memory_order_relaxed);
}

/* True when [lo, hi) is empty or lies outside every tracked range. */
static inline bool gs_span_misses(gs_span_t *s, uintptr_t lo, uintptr_t hi)
{
    return hi <= lo || lo >= atomic_load_explicit(&s->hi, memory_order_relaxed) ||
           hi <= atomic_load_explicit(&s->lo, memory_order_relaxed);
}

/* True when a tracked range may end above address a. */
static inline bool gs_span_below(gs_span_t *s, uintptr_t a)
{
    return a < atomic_load_explicit(&s->hi, memory_order_relaxed);
}

/* Nothing tracked (a forked child). */
static inline void gs_span_clear(gs_span_t *s)
{
    atomic_store(&s->lo, 0);
    atomic_store(&s->hi, 0);
}

#endif

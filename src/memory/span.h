/* Where the address ranges a table tracks lie (the residency cache's entries, host registrations), published
 * for the memory hooks' fast path: a free, munmap or write that misses every range needs no look-up under the
 * table's lock, which every free() of the program would otherwise take.  The bounds of all the ranges, and the
 * ranges themselves, sorted and merged, for a binary search: NumPy's arrays and small blocks share the heap, so
 * that most frees of a program whose arrays the cache tracks fall between tracked ranges, not outside their
 * bounds (bench/hooks.c).  The ranges are published under a sequence count (a seqlock): a reader that saw them
 * change meanwhile answers "may overlap", and the caller looks under the lock.  The ranges are stored with
 * release and loaded with acquire, which orders them against the count without fences (which ThreadSanitizer
 * does not model), and costs nothing more than plain moves on x86-64. */
#ifndef GS_SPAN_H
#define GS_SPAN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define GS_SPAN_MAX 256 /* ranges: at least the slots of the largest table */

typedef struct {
    atomic_uintptr_t lo, hi; /* hi = 0 when the table tracks nothing */
    atomic_uint seq;         /* odd while the ranges change */
    atomic_int n;
    atomic_uintptr_t r[2 * GS_SPAN_MAX]; /* n ranges [r[2i], r[2i + 1]), sorted, apart from each other */
} gs_span_t;

/* Recomputes s from the table's n slots, with the table's lock held: range(i, &lo, &hi) gives slot i's range
 * and whether it is in use. */
static inline void gs_span_update(gs_span_t *s, int n, bool (*range)(int i, uintptr_t *lo, uintptr_t *hi))
{
    uintptr_t r[2 * GS_SPAN_MAX], a, b;
    int k = 0;
    for (int i = 0; i < n && k < GS_SPAN_MAX; i++) {
        if (!range(i, &a, &b) || a >= b)
            continue;
        int j = k++; /* insertion, by start */
        for (; j > 0 && r[2 * j - 2] > a; j--)
            r[2 * j] = r[2 * j - 2], r[2 * j + 1] = r[2 * j - 1];
        r[2 * j] = a, r[2 * j + 1] = b;
    }
    int m = 0; /* merged: the ranges that overlap or touch become one */
    for (int i = 0; i < k; i++)
        if (m && r[2 * i] <= r[2 * m - 1])
            r[2 * m - 1] = r[2 * i + 1] > r[2 * m - 1] ? r[2 * i + 1] : r[2 * m - 1];
        else
            r[2 * m] = r[2 * i], r[2 * m + 1] = r[2 * i + 1], m++;
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_relaxed);
    for (int i = 0; i < 2 * m; i++)
        atomic_store_explicit(&s->r[i], r[i], memory_order_release);
    atomic_store_explicit(&s->n, m, memory_order_release);
    atomic_store_explicit(&s->lo, m ? r[0] : UINTPTR_MAX, memory_order_release);
    atomic_store_explicit(&s->hi, m ? r[2 * m - 1] : 0, memory_order_release);
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
}

/* True when [lo, hi) is empty or lies outside every tracked range. */
static inline bool gs_span_misses(gs_span_t *s, uintptr_t lo, uintptr_t hi)
{
    if (hi <= lo || lo >= atomic_load_explicit(&s->hi, memory_order_relaxed) ||
        hi <= atomic_load_explicit(&s->lo, memory_order_relaxed))
        return true;
    unsigned seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq & 1)
        return false;
    int n = atomic_load_explicit(&s->n, memory_order_acquire), a = 0, b = n < GS_SPAN_MAX ? n : GS_SPAN_MAX;
    while (a < b) { /* the first range ending above lo */
        int mid = (a + b) / 2;
        if (atomic_load_explicit(&s->r[2 * mid + 1], memory_order_acquire) <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    bool miss = a >= n || a >= GS_SPAN_MAX || atomic_load_explicit(&s->r[2 * a], memory_order_acquire) >= hi;
    return miss && atomic_load_explicit(&s->seq, memory_order_relaxed) == seq;
}

/* True when a tracked range may end above address a. */
static inline bool gs_span_below(gs_span_t *s, uintptr_t a)
{
    return a < atomic_load_explicit(&s->hi, memory_order_relaxed);
}

/* Nothing tracked (a forked child, a reset device), with the table's lock held. */
static inline void gs_span_clear(gs_span_t *s)
{
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_relaxed);
    atomic_store_explicit(&s->n, 0, memory_order_release);
    atomic_store_explicit(&s->lo, 0, memory_order_release);
    atomic_store_explicit(&s->hi, 0, memory_order_release);
    atomic_fetch_add_explicit(&s->seq, 1, memory_order_release);
}

#endif

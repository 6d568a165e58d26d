/* The hooks' filter (memory/span.h): for random tables of ranges, overlapping, touching and apart, and random
 * queries, gs_span_misses says "misses" exactly when no range overlaps the query. */
#include <stdlib.h>

#include "memory/span.h"
#include "unit.h"

#define SPAN_SLOTS 64
static uintptr_t span_lo[SPAN_SLOTS], span_hi[SPAN_SLOTS];
static bool span_used[SPAN_SLOTS];

static bool span_range(int i, uintptr_t *lo, uintptr_t *hi)
{
    *lo = span_lo[i], *hi = span_hi[i];
    return span_used[i];
}

START_TEST(test_span_misses)
{
    static gs_span_t s;
    srand(7);
    long checked = 0;
    for (int table = 0; table < 200; table++) {
        for (int i = 0; i < SPAN_SLOTS; i++) {
            span_used[i] = rand() % 3 != 0;
            span_lo[i] = 0x10000 + (uintptr_t)(rand() % 4000) * 16;
            span_hi[i] = span_lo[i] + (uintptr_t)(rand() % 300) * 16; /* some empty */
        }
        gs_span_update(&s, table % 7 ? SPAN_SLOTS : 0, span_range);
        for (int q = 0; q < 500; q++, checked++) {
            uintptr_t lo = 0x10000 + (uintptr_t)(rand() % 4200) * 16 - 64, hi = lo + (uintptr_t)(rand() % 100) * 8;
            bool overlap = false;
            for (int i = 0; table % 7 && i < SPAN_SLOTS; i++)
                overlap |= lo < hi && span_used[i] && span_lo[i] < span_hi[i] && span_lo[i] < hi && lo < span_hi[i];
            ck_assert_msg(gs_span_misses(&s, lo, hi) == !overlap, "table %d, [%#lx, %#lx): misses %d, overlap %d",
                          table, (unsigned long)lo, (unsigned long)hi, gs_span_misses(&s, lo, hi), overlap);
        }
    }
    gs_span_clear(&s);
    ck_assert(gs_span_misses(&s, 0x10000, 0x20000));
    ck_assert_int_eq(checked, 100000);
}
END_TEST

TCase *gs_test_span(void)
{
    TCase *tc = tcase_create("span");
    tcase_add_test(tc, test_span_misses);
    return tc;
}

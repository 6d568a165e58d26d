/* The edges of cached operands (edge.h). */
#include <string.h>

#include "memory/edge.h"
#include "memory/wp.h"

#define GS_EDGE_MAX 4096

/* Each slot's two edges, first and last; untouched (no memory) until used. */
static unsigned char gs_edges[GS_EDGE_SLOTS][2][GS_EDGE_MAX];

void gs_edge_pages(const gs_hreg_t *h, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t a = (uintptr_t)h->host, b = a + gs_hreg_extent(h);
    *lo = gs_page_up(a) - a <= GS_EDGE_MAX ? gs_page_up(a) : gs_page_down(a);
    *hi = b - gs_page_down(b) <= GS_EDGE_MAX ? gs_page_down(b) : gs_page_up(b);
    if (*lo >= *hi) /* a region within a page or two: all of its pages tracked, no edges */
        *lo = gs_page_down(a), *hi = gs_page_up(b);
}

bool gs_edge_check(int slot, const gs_hreg_t *h, uintptr_t lo, uintptr_t hi, bool save)
{
    uintptr_t a = (uintptr_t)h->host, b = a + gs_hreg_extent(h);
    const unsigned char *from[2] = {(const unsigned char *)a, (const unsigned char *)hi};
    size_t n[2] = {lo > a ? lo - a : 0, b > hi ? b - hi : 0};
    bool same = true;
    for (int k = 0; k < 2; k++) {
        if (save)
            memcpy(gs_edges[slot][k], from[k], n[k]);
        else
            same = same && memcmp(gs_edges[slot][k], from[k], n[k]) == 0;
    }
    return same;
}

/* The large strided copies, split across the team's threads (core/team.h).  numpy.linalg copies each matrix
 * into Fortran order before LAPACK, and the results back, with one ?copy call per column: n elements, n apart
 * on one side, which one thread moves at the latency of memory (one cache line and often one page per
 * element), far below its bandwidth.  Each element is moved as it is, so the result is the CPU library's bit
 * for bit; the pieces are disjoint, so the order does not matter (tests/progs/copies.c pins both). */
#include "core/team.h"
#include "families/blas/blas.h"
#include "memory/prefault.h"

/* Elements below which a copy stays with the CPU library, and at least per piece. */
#define GS_COPY_MIN 2048
#define GS_COPY_GRAIN 256
/* Bytes between the elements of x or y from which a copy is split: closer ones share cache lines, and one
 * thread streams them. */
#define GS_COPY_STRIDE 256

/* Elements from which each element's line is asked for ahead of its move (below). */
#define GS_COPY_AHEAD 8

typedef struct {
    const char *x;
    char *y;
    int64_t incx, incy; /* in bytes */
    int64_t n;
    bool populate;      /* each piece faults in the pages its part of y spans first */
} gs_copy_t;

/* A piece's part of y, [*a, *b): from its first element to the next piece's, or to the end of the last
 * element, so that the pieces' parts leave no page between them; either sign of incy. */
static void gs_copy_span(const gs_copy_t *j, int64_t lo, int64_t hi, int64_t es, const char **a, const char **b)
{
    const char *first = j->y + lo * j->incy, *next = hi < j->n ? j->y + hi * j->incy : NULL;
    const char *last = j->y + (j->n - 1) * j->incy;
    if (j->incy > 0)
        *a = first, *b = next ? next : last + es;
    else
        *a = next ? next + es : last, *b = first + es;
}

/* Elements lo to hi - 1, by the width of an element.  The lines of the element GS_COPY_AHEAD on are asked for
 * while each one moves (y's for writing), so that that many misses are in flight at once: a store that misses
 * waits in the core's store buffer, and a scatter's stores to one line each filled it after a few. */
#define GS_COPY_FN(name, T)                                                                                        \
    static void name(void *arg, int64_t lo, int64_t hi)                                                            \
    {                                                                                                              \
        const gs_copy_t *j = arg;                                                                                  \
        if (j->populate) {                                                                                         \
            const char *a, *b;                                                                                     \
            gs_copy_span(j, lo, hi, (int64_t)sizeof(T), &a, &b);                                                   \
            gs_prefault_now(a, b);                                                                                 \
        }                                                                                                          \
        const char *x = j->x + lo * j->incx;                                                                       \
        char *y = j->y + lo * j->incy;                                                                             \
        int64_t i = lo;                                                                                            \
        for (; i < hi - GS_COPY_AHEAD; i++, x += j->incx, y += j->incy) {                                          \
            __builtin_prefetch(x + GS_COPY_AHEAD * j->incx, 0);                                                    \
            __builtin_prefetch(y + GS_COPY_AHEAD * j->incy, 1);                                                    \
            *(T *)(void *)y = *(const T *)(const void *)x;                                                         \
        }                                                                                                          \
        for (; i < hi; i++, x += j->incx, y += j->incy)                                                            \
            *(T *)(void *)y = *(const T *)(const void *)x;                                                         \
    }

typedef struct {
    uint64_t lo, hi;
} gs_pair_t;

GS_COPY_FN(gs_copy4, uint32_t)
GS_COPY_FN(gs_copy8, uint64_t)
GS_COPY_FN(gs_copy16, gs_pair_t)

/* Where the next column of the latest scatter begins: a scatter that starts there goes on a run of them. */
static _Atomic uintptr_t gs_copy_next;

/* The first element of a vector as BLAS reads it: with a negative increment, element i is at (i - n + 1) inc. */
static const char *gs_copy_base(const void *v, int64_t n, int64_t inc)
{
    return (const char *)v + (inc < 0 ? (1 - n) * inc : 0);
}

static inline int64_t gs_abs(int64_t v) { return v < 0 ? -v : v; }

bool gs_blas_copy(gs_call_t *c, const gs_blas_t *p)
{
    int64_t n = p->n, es = (int64_t)gs_prec_size(p->prec), sx = p->incx * es, sy = p->incy * es;
    /* A zero increment reads or writes one element again and again: its order matters. */
    if (c->nested || n < GS_COPY_MIN || !p->valid || !sx || !sy ||
        (gs_abs(sx) < GS_COPY_STRIDE && gs_abs(sy) < GS_COPY_STRIDE))
        return false;
    gs_copy_t j = {gs_copy_base(p->x, n, sx), (char *)gs_copy_base(p->y, n, sy), sx, sy, n, false};
    /* Overlapping vectors are copied in BLAS's order, by the CPU library.  Either increment's sign, the
     * argument is a vector's lowest address. */
    const char *x0 = p->x, *y0 = p->y;
    const char *x1 = x0 + (n - 1) * gs_abs(sx) + es, *y1 = y0 + (n - 1) * gs_abs(sy) + es;
    if (x0 < y1 && y0 < x1)
        return false;
    gs_team_fn *fn = es == 4 ? gs_copy4 : es == 8 ? gs_copy8 : gs_copy16;
    /* The first of a run of scatters into memory no one has written yet (numpy.linalg's result, fresh from
     * malloc): its elements fall on every page of the result, and each would be a fault of its own, many
     * threads' at once.  The pieces fault their parts in first, the kernel filling the pages in bulk. */
    if (gs_abs(sy) >= GS_COPY_STRIDE) {
        uintptr_t next = atomic_exchange_explicit(&gs_copy_next, (uintptr_t)p->y + (uintptr_t)es, memory_order_relaxed);
        j.populate = next != (uintptr_t)p->y && gs_prefault_fresh(y0, y1);
    }
    int pieces = gs_team_run(fn, &j, n, GS_COPY_GRAIN);
    /* A gather into contiguous memory: the next column's pages, fresh from malloc in numpy.linalg, are
     * faulted in while the caller goes on. */
    if (pieces && sy == es)
        gs_prefault_after(j.y + n * es);
    if (pieces && c->timed)
        gs_call_why(c, "strided copy in %d pieces on several threads", pieces);
    return pieces > 0;
}

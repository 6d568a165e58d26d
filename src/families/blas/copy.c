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

typedef struct {
    const char *x;
    char *y;
    int64_t incx, incy; /* in bytes */
} gs_copy_t;

/* Elements lo to hi - 1, by the width of an element. */
#define GS_COPY_LOOP(T)                                                                                            \
    do {                                                                                                           \
        const char *x = j->x + lo * j->incx;                                                                       \
        char *y = j->y + lo * j->incy;                                                                             \
        for (int64_t i = lo; i < hi; i++, x += j->incx, y += j->incy)                                             \
            *(T *)(void *)y = *(const T *)(const void *)x;                                                         \
    } while (0)

typedef struct {
    uint64_t lo, hi;
} gs_pair_t;

static void gs_copy4(void *arg, int64_t lo, int64_t hi) { const gs_copy_t *j = arg; GS_COPY_LOOP(uint32_t); }
static void gs_copy8(void *arg, int64_t lo, int64_t hi) { const gs_copy_t *j = arg; GS_COPY_LOOP(uint64_t); }
static void gs_copy16(void *arg, int64_t lo, int64_t hi) { const gs_copy_t *j = arg; GS_COPY_LOOP(gs_pair_t); }

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
    gs_copy_t j = {gs_copy_base(p->x, n, sx), (char *)gs_copy_base(p->y, n, sy), sx, sy};
    /* Overlapping vectors are copied in BLAS's order, by the CPU library.  Either increment's sign, the
     * argument is a vector's lowest address. */
    const char *x0 = p->x, *y0 = p->y;
    const char *x1 = x0 + (n - 1) * gs_abs(sx) + es, *y1 = y0 + (n - 1) * gs_abs(sy) + es;
    if (x0 < y1 && y0 < x1)
        return false;
    gs_team_fn *fn = es == 4 ? gs_copy4 : es == 8 ? gs_copy8 : gs_copy16;
    int pieces = gs_team_run(fn, &j, n, GS_COPY_GRAIN);
    /* A gather into contiguous memory: the next column's pages, fresh from malloc in numpy.linalg, are
     * faulted in while the caller goes on. */
    if (pieces && sy == es)
        gs_prefault_after(j.y + n * es);
    if (pieces && c->timed)
        gs_call_why(c, "strided copy in %d pieces on several threads", pieces);
    return pieces > 0;
}

/* Guard bands around the arrays of the bounds test programs (guard.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

static arr_t *open_list, *kept; /* the current case's arrays, and every earlier case's */
const char *label;
int cases, violations, gpu_expected, corrupt;

/* Each array's canary byte is another (an element copied from one array's guard band into another's shows). */
void *arr(const char *name, size_t bytes)
{
    static unsigned char canary = 0xa5;
    arr_t *a = calloc(1, sizeof *a);
    size_t total = bytes + 2 * GUARD;
    if (!a || !(a->mem = malloc(total)) || !(a->was = malloc(total)) || !(a->may = calloc(total, 1))) {
        perror("bounds: malloc");
        exit(2);
    }
    memset(a->mem, canary, total);
    canary = (unsigned char)(canary * 5 + 0x3b);
    a->name = name, a->bytes = bytes, a->next = open_list;
    open_list = a;
    return a->mem + GUARD;
}

static arr_t *find(const void *p)
{
    for (arr_t *a = open_list; a; a = a->next)
        if ((const unsigned char *)p >= a->mem + GUARD && (const unsigned char *)p < a->mem + GUARD + a->bytes)
            return a;
    fprintf(stderr, "bounds: %p is no array of case %s\n", p, label);
    exit(2);
}

void may(void *p, size_t off, size_t len)
{
    arr_t *a = find(p);
    memset(a->may + GUARD + off, 1, len);
}

void may_none(void)
{
    for (arr_t *a = open_list; a; a = a->next)
        memset(a->may, 0, a->bytes + 2 * GUARD);
}

void may_mat(void *p, size_t es, int64_t rows, int64_t cols, int64_t ld)
{
    for (int64_t j = 0; j < cols; j++)
        may(p, (size_t)j * (size_t)ld * es, (size_t)rows * es);
}

void may_vec(void *p, size_t es, int64_t n, int64_t inc)
{
    for (int64_t i = 0; i < n; i++)
        may(p, (size_t)i * (size_t)inc * es, es);
}

void may_tri(void *p, size_t es, char uplo, int64_t n, int64_t ld, int unit)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t lo = uplo == 'U' ? 0 : j + unit, hi = uplo == 'U' ? j + 1 - unit : n;
        if (hi > lo)
            may(p, ((size_t)j * (size_t)ld + (size_t)lo) * es, (size_t)(hi - lo) * es);
    }
}

static uint64_t rng = 88172645463325252ull;

double rnd(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

void fill(void *p, size_t es, int64_t rows, int64_t cols, int64_t ld, double boost)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            char *e = (char *)p + ((size_t)j * (size_t)ld + (size_t)i) * es;
            double v = rnd() + (i == j ? boost : 0);
            if (es == 4)
                *(float *)(void *)e = (float)v;
            else
                ((double *)(void *)e)[0] = v;
            if (es == 16)
                ((double *)(void *)e)[1] = i == j ? 0 : rnd();
        }
}

void *mat(const char *name, size_t es, int64_t rows, int64_t cols, int64_t ld, double boost)
{
    void *p = arr(name, (size_t)ld * (size_t)(cols > 0 ? cols : 1) * es);
    fill(p, es, rows, cols, ld, boost);
    return p;
}

void *copy(const char *name, const void *p, size_t bytes)
{
    void *q = arr(name, bytes);
    memcpy(q, p, bytes);
    return q;
}

void begin(const char *l) { label = l; }

void arm(void)
{
    for (arr_t *a = open_list; a; a = a->next)
        memcpy(a->was, a->mem, a->bytes + 2 * GUARD);
}

/* corrupt: one byte past the end of the last stretch the call may write; of an array it may not write, its
 * first. */
static void spoil(arr_t *a)
{
    size_t total = a->bytes + 2 * GUARD, i = total;
    while (i > 0 && !a->may[i - 1])
        i--;
    if (i < total)
        a->mem[i > 0 ? i : GUARD] ^= 0xff;
}

void done(int gpu)
{
    cases++;
    gpu_expected += gpu;
    while (open_list) {
        arr_t *a = open_list;
        size_t total = a->bytes + 2 * GUARD, bad = 0, first = 0;
        if (corrupt)
            spoil(a);
        for (size_t i = 0; i < total; i++)
            if (!a->may[i] && a->mem[i] != a->was[i] && !bad++)
                first = i;
        if (bad) {
            printf("FAIL: %s: %s: %zu bytes written outside its bound, the first at byte %td of the array\n", label,
                   a->name, bad, (ptrdiff_t)first - GUARD);
            violations++;
        }
        memcpy(a->was, a->mem, total);
        a->label = label;
        open_list = a->next;
        a->next = kept;
        kept = a;
    }
}

void check_kept(void)
{
    for (arr_t *a = kept; a; a = a->next) {
        size_t total = a->bytes + 2 * GUARD;
        if (corrupt)
            a->mem[GUARD] ^= 0xff;
        for (size_t i = 0; i < total; i++)
            if (a->mem[i] != a->was[i]) {
                printf("FAIL: %s: %s: changed after its call returned, at byte %td of the array\n", a->label,
                       a->name, (ptrdiff_t)i - GUARD);
                violations++;
                break;
            }
    }
}

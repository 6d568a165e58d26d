/* A library whose BLAS calls come from a static function and from an exported one (tests/t_sites.sh).  Built
 * in source order (-fno-toplevel-reorder), so the exported sites_before lies just before the static
 * sites_static: once stripped (strip --strip-all keeps .dynsym only), sites_static has no symbol, and the
 * nearest symbol before its code is sites_before, the name a nearest-symbol look-up would give.  Built with
 * SITES_REPLACED, it is the file that replaces the first build on disk while a process runs that: its
 * functions lie elsewhere, so its symbol table would name other functions at the first build's addresses. */
#include "common.h"

void sites_before(double *c);
double sites_exported(void);
double sites_run(void);

static double a[24 * 24], b[24 * 24], c[24 * 24];
static const double one = 1, zero = 0;

#ifdef SITES_REPLACED
/* longer than sites_before and sites_static together: it covers the first build's sites_static */
void sites_pad(double *x, int n);
void sites_pad(double *x, int n)
{
    for (int i = 1; i < n; i++)
        x[i] = x[i - 1] * 0.5 + x[i] * (double)i;
    for (int i = n - 2; i >= 0; i--)
        x[i] = x[i + 1] > x[i] ? x[i + 1] - x[i] : x[i] / (x[i + 1] + 2);
    for (int i = 0; i < n; i++)
        x[i] = x[i] * x[i] - (double)(i % 7) * x[n - 1 - i];
    for (int i = 1; i < n; i++)
        x[i] = x[i] < 0 ? -x[i] : x[i] + x[i - 1] / 3;
}
#endif

void sites_before(double *x)
{
    x[0] += 1;
}

/* 16 x 16: the call a stripped copy logs as libsites.so+0x... */
static __attribute__((noinline)) double sites_static(void)
{
    static const int n = 16;
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    return c[0]; /* work after the call: not a tail call, so this frame is on the stack */
}

/* 24 x 24: named from .dynsym, stripped or not */
double sites_exported(void)
{
    static const int n = 24;
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    return c[0];
}

double sites_run(void)
{
    fill(a, sizeof a / sizeof a[0], 1);
    fill(b, sizeof b / sizeof b[0], 2);
    double s = sites_static();
    sites_before(c);
    return s + sites_exported();
}

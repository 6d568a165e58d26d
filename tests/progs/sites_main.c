/* Calls BLAS from a static function of its own (8 x 8), then through libsites (tests/t_sites.sh); prints
 * what it computed. */
#include <stdio.h>

#include "common.h"

double sites_run(void);

static __attribute__((noinline)) double main_static(void)
{
    static double a[64], b[64], c[64];
    static const int n = 8;
    static const double one = 1, zero = 0;
    fill(a, 64, 3);
    fill(b, 64, 4);
    dgemm_("N", "N", &n, &n, &n, &one, a, &n, b, &n, &zero, c, &n, 1, 1);
    return c[0];
}

int main(void)
{
    double s = main_static();
    printf("%.6f\n", s + sites_run());
    return 0;
}

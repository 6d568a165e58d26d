/* Reference CBLAS implements cblas_dgemm by calling dgemm_ through the PLT, so under the shim the CPU library
 * calls back into an interposed symbol.  That inner call must go straight to the library: it must not be
 * offloaded, counted or logged as a call of its own.  Usage: nested FILE */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int, double, double *,
                 int);
void cblas_dsyrk(int, int, int, int, int, double, const double *, int, double, double *, int);

int main(int argc, char **argv)
{
    enum { N = 80 };
    static double a[N * N], b[N * N], c[N * N], d[N * N];
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    fill(a, N * N, 1);
    fill(b, N * N, 2);
    for (int i = 0; i < 3; i++) {
        cblas_dgemm(102, 111, 112, N, N, N, 1.0, a, N, b, N, 0.0, c, N);
        cblas_dsyrk(101, 121, 111, N, N, 1.0, a, N, 0.0, d, N);
    }
    result_write(f, "nested dgemm", 1, c, N * N);
    result_write(f, "nested dsyrk", 1, d, N * N);
    return fclose(f) != 0;
}

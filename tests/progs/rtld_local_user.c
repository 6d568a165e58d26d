/* A library that uses BLAS, as a Python extension module does; rtld_local_main opens it with RTLD_LOCAL, so
 * the BLAS it brings in is invisible to dlsym(RTLD_NEXT). */
#include <stdio.h>

#include "common.h"
#include "results.h"

int user_run(const char *path);
int user_run(const char *path)
{
    static double c[96 * 96];
    square_dgemm(96, 7, c);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    result_write(f, "rtld_local dgemm", 1, c, 96 * 96);
    return fclose(f) != 0;
}

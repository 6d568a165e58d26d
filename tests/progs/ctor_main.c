/* Writes what libctor's constructor computed, and one more product made from main.  Usage: ctor_main FILE */
#include <stdio.h>

#include "common.h"
#include "results.h"

extern double ctor_c[64 * 64];

int main(int argc, char **argv)
{
    static double c[64 * 64];
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    square_dgemm(64, 4, c);
    result_write(f, "constructor dgemm", 1, ctor_c, 64 * 64);
    result_write(f, "main dgemm", 1, c, 64 * 64);
    return fclose(f) != 0;
}

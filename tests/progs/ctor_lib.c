/* A library whose constructor calls BLAS: under LD_PRELOAD it may run before gpushim has seen any other call,
 * so the shim must initialise itself from inside another library's constructor. */
#include "common.h"

double ctor_c[64 * 64];

__attribute__((constructor)) static void ctor(void)
{
    square_dgemm(64, 3, ctor_c);
}

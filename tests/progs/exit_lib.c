/* A library whose destructor calls BLAS and LAPACK (tests/progs/exit_blas.c), built twice: libexit_linked.so,
 * which the program links, and libexit_late.so, which it opens at the end of main.  EXIT_LIB names its records,
 * EXIT_SEED seeds its operands. */
#include <unistd.h>

#include "exit_blas.h"

static const char *out;

/* The file the destructor appends to; it writes nothing until this is called. */
__attribute__((visibility("default"))) void exit_lib_out(const char *path)
{
    out = path;
}

/* A failure shows as missing records (blas_cmp) and an exit status of 3. */
__attribute__((destructor)) static void exit_lib_fini(void)
{
    if (out && exit_calls(out, EXIT_LIB " destructor", EXIT_SEED) != 0)
        _exit(3);
}

/* BLAS and LAPACK at the ends of a program's life (issue 24, tests/t_races.sh): from main; with --reset, after the
 * program reset the device itself (cudaDeviceReset of the CUDA runtime it links, the one the shim loads too);
 * from an atexit handler; and from the destructors of two libraries, one that the program links
 * (libexit_linked.so) and one that it opens at the end of main (libexit_late.so), after the shim loaded the CUDA
 * libraries.  Both destructors run after the shim's own (glibc finishes the objects in the order they were
 * loaded, the preloaded shim second), and the late one after the CUDA libraries' too.  Each appends its results
 * to FILE (results.h), for blas_cmp against a run without the shim.
 * usage: exit_blas FILE [--reset] */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "exit_blas.h"

void exit_lib_out(const char *path); /* libexit_linked.so's */

static const char *out;

static void at_exit(void)
{
    if (exit_calls(out, "atexit", 5) != 0)
        _exit(3);
}

/* The runtime's, by name as a program that uses CUDA itself calls it (cudaError_t: 0 is success). */
int cudaDeviceReset(void);

/* Opens libexit_late.so from the program's folder and gives it the file. */
static int open_late(void)
{
    char self[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return -1;
    self[n] = 0;
    snprintf(path, sizeof path, "%s/libexit_late.so", dirname(self));
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void (*set)(const char *) = h ? (void (*)(const char *))dlsym(h, "exit_lib_out") : NULL;
    if (!set)
        return -1;
    set(out);
    return 0;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    int reset = argc > 2 && strcmp(argv[2], "--reset") == 0;
    if (!f || fclose(f) != 0)
        return fprintf(stderr, "usage: exit_blas FILE [--reset]\n"), 2;
    out = argv[1];
    exit_lib_out(out);
    if (exit_calls(out, "main", 1) != 0)
        return 1;
    if (reset && (cudaDeviceReset() != 0 || exit_calls(out, "after reset", 3) != 0))
        return fprintf(stderr, "exit_blas: the reset or the calls after it failed\n"), 1;
    if (atexit(at_exit) != 0 || open_late() != 0)
        return fprintf(stderr, "exit_blas: cannot register the exit handler or open libexit_late.so\n"), 1;
    return 0;
}

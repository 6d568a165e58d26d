/* A library with its own free (forwarding to the next one), as a malloc replacement preloaded ahead of the
 * shim has: frees then never reach the shim, which must not register anything (tests/t_hostreg.sh). */
#include <dlfcn.h>

void free(void *p)
{
    static void (*next)(void *);
    if (!next)
        next = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    if (next)
        next(p);
}

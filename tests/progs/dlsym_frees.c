/* A dlsym that frees memory before it looks up, as glibc 2.39's does when called inside a dlopen: preloaded
 * after gpushim, it is the dlsym that gpushim's memory hooks call to find the real free, so the first free of
 * the program is made while that free is still being resolved (tests/t_loading.sh, "dlsym that frees").
 * The lookup itself goes to the C library's dlsym, from this object: RTLD_NEXT then finds the C library's
 * definitions, which come after gpushim's and this object's. */
#include <dlfcn.h>
#include <stdlib.h>

void *dlsym(void *handle, const char *name)
{
    static void *(*real)(void *, const char *);
    if (!real && !(*(void **)&real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34")))
        *(void **)&real = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    void *volatile p = malloc(24); /* volatile: the compiler would drop a malloc freed at once */
    free(p);
    return real(handle, name);
}

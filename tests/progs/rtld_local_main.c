/* Opens librtld_user.so privately (RTLD_LOCAL), as Python opens extension modules, and runs its BLAS call.
 * The program itself links no BLAS.  With COPY, first loads that library into the global scope: another copy of
 * gpushim under another name beside the preloaded one, as the Python package loaded its own.
 * Usage: rtld_local_main LIBRARY RESULT-FILE [COPY] */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return 2;
    if (argc == 4 && !dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "rtld_local_main: %s\n", dlerror());
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "rtld_local_main: %s\n", dlerror());
        return 2;
    }
    int (*run)(const char *) = (int (*)(const char *))dlsym(h, "user_run");
    return run ? run(argv[2]) : 2;
}

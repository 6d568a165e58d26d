/* A stand-in for the NVIDIA driver's library, libcuda.so.1, that reports an old driver: the real CUDA runtime
 * asks it for its version and refuses it, as on a machine whose driver is older than the runtime
 * (tests/t_nogpu.sh).  GS_STANDIN_DRIVER sets the version (default 12020, CUDA 12.2). */
#include <stdlib.h>

int cuDriverGetVersion(int *version)
{
    const char *s = getenv("GS_STANDIN_DRIVER");
    *version = s ? atoi(s) : 12020;
    return 0;
}

int cuInit(unsigned int flags)
{
    (void)flags;
    return 0;
}

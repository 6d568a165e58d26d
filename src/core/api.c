/* The exported gpushim_ interface (include/gpushim.h). */
#include "gpushim.h"
#include "core/gs.h"

GS_EXPORT const char *gpushim_version(void)
{
    return GS_VERSION;
}

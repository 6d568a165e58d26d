/* Tests on elements of the routines' four types (S, D, C, Z), which the families' checks and the backends'
 * plans both need. */
#include "core/gs.h"

bool gs_scalar_is_zero(const void *s, int prec, bool real_only)
{
    switch (prec) {
    case GS_P_S: return *(const float *)s == 0;
    case GS_P_D: return *(const double *)s == 0;
    case GS_P_C: return ((const float *)s)[0] == 0 && (real_only || ((const float *)s)[1] == 0);
    default: return ((const double *)s)[0] == 0 && (real_only || ((const double *)s)[1] == 0);
    }
}

bool gs_has_zero(const void *x, int64_t n, int64_t step, int prec)
{
    size_t es = gs_prec_size(prec);
    for (int64_t i = 0; i < n; i++)
        if (gs_scalar_is_zero((const char *)x + (size_t)(i * step) * es, prec, false))
            return true;
    return false;
}

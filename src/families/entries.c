/* Every exported entry point, expanded from the routine table with the templates in the glue headers. */
#include "families/lapack/glue_lapack.h"

#define GS_ROUTINE(ID, op, P, name, conv) GS_CONV_##conv(GS_GLUE_##op, ID, P, name)
#include "core/routines.def"
#undef GS_ROUTINE

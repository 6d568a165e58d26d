/* The routine table expanded into data: the operations' facts, names, operations and precisions of routines,
 * and the symbol, routine, convention and integer width of every exported entry. */
#include <string.h>

#include "core/gs.h"

const gs_routine_info_t gs_routines[GS_NROUTINES] = {
#define GS_ROUTINE(ID, op, P, name, conv) [GS_R_##ID] = {#name, GS_OP_##op, GS_P_##P},
#include "core/routines.def"
#undef GS_ROUTINE
};

const gs_entry_info_t gs_entries[GS_NENTRIES] = {
#define GS_CONV_IS_CBLAS_F77 0
#define GS_CONV_IS_CBLAS_CBLAS 1
#define GS_CONV_IS_CBLAS_FFTW 0
#define GS_CONV_IS_CBLAS_FFTWF77 0
#define GS_X_INFO(ID, P, sym, conv, bits) [GS_E_##sym] = {#sym, GS_R_##ID, GS_CONV_IS_CBLAS_##conv, bits == 64},
#define GS_ROUTINE(ID, op, P, name, conv) GS_CONV_##conv(GS_X_INFO, ID, P, name)
#include "core/routines.def"
#undef GS_ROUTINE
#undef GS_X_INFO
};

const gs_op_info_t gs_ops[GS_NOPS] = {
#define GS_OP(op, family, dims) [GS_OP_##op] = {#op, GS_FAMILY_##family, dims},
#include "core/routines.def"
#undef GS_OP
};

const char *const gs_dtype_names[GS_NPREC] = {"float32", "float64", "complex64", "complex128"};

int gs_routine_find(const char *name)
{
    for (int r = 0; r < GS_NROUTINES; r++)
        if (strcmp(gs_routines[r].name, name) == 0)
            return r;
    return -1;
}

int gs_routine_of(int op, int prec)
{
    for (int r = 0; r < GS_NROUTINES; r++)
        if (gs_routines[r].op == op && gs_routines[r].prec == prec)
            return r;
    return -1;
}

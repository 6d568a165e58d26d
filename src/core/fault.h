/* Fault injection (fault.c): GPUSHIM_FAULT, a testing aid that makes chosen CUDA library calls fail unmade, so
 * that every fallback path can be run without a failing GPU (tests/t_faults.sh). */
#ifndef GS_FAULT_H
#define GS_FAULT_H

#include "core/gs.h"

/* The kinds of CUDA library calls that GPUSHIM_FAULT names. */
typedef enum {
    GS_FAULT_ALLOC, GS_FAULT_COPY, GS_FAULT_LAUNCH, GS_FAULT_SYNC, GS_FAULT_CREATE, GS_FAULT_REGISTER,
    GS_FAULT_OTHER, GS_FAULT_NKINDS
} gs_fault_kind_t;
/* Set at initialisation when GPUSHIM_FAULT is: every call the backend checks then asks gs_fault_hit first. */
GS_HIDDEN extern bool gs_fault_armed;
/* The kind of the CUDA library function name. */
GS_HIDDEN gs_fault_kind_t gs_fault_kind(const char *name);
/* Counts a call of the CUDA library function name, made by gpushim's function site; true when GPUSHIM_FAULT
 * says it must fail, unmade. */
GS_HIDDEN bool gs_fault_hit(const char *name, const char *site);

#endif

/* Call sites for the offload log: native frames (site_native.c), Python frames (site_python.c) and calls from
 * inside a CPU library (site_library.c).  All are called with no lock of gpushim held. */
#ifndef GS_SITE_H
#define GS_SITE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/gs.h"

/* The first frame of the calling thread outside gpushim and the BLAS, LAPACK and FFTW libraries, into out:
 * "module:function" when a function symbol of the module's file (.symtab, else .dynsym) holds the call in its
 * range, else "module+0xOFFSET", the return address less the module's load bias (a static function of a
 * stripped module: never the name of the function before it); "?:?" for code outside every module, "?" when
 * there is no such frame or the table of sites is full.  ret is the return address of the call gpushim
 * intercepted, whose frame is the answer unless it is a library's; NULL when not known.  Keeps errno. */
GS_HIDDEN void gs_site_native(char *out, size_t n, const void *ret);
/* In a CPython process, on a thread Python knows: the innermost Python frame outside installed packages, as
 * "file.py:42 in function", into out; false when there is none. */
GS_HIDDEN bool gs_site_python(char *out, size_t n);
/* Whether the code that returns to ret is in a CPU library: an object, other than gpushim, that defines one of
 * the routine table's symbols itself (a LAPACK routine gpushim does not interpose calling the BLAS, say).  A
 * call from there is the library's own.  Cached by return address; keeps errno. */
GS_HIDDEN bool gs_site_cpu_library(const void *ret);
/* Whether calls from the object of this base name are a library's own (gpushim, BLAS, LAPACK, FFTW). */
GS_HIDDEN bool gs_site_library_name(const char *base);
#endif

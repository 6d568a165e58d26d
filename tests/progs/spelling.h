/* Symbol spelling of the BLAS a test program is compiled against (Makefile: -DSPELLING_<name>).  One source,
 * four programs: every spelling the shim interposes is called by a real program linked to a real library. */
#ifndef SPELLING_H
#define SPELLING_H

#include <stdint.h>

#if defined(SPELLING_plain)
#define F77(n) n##_
#define CB(n) cblas_##n
typedef int blasint;
#elif defined(SPELLING_ilp64)
#define F77(n) n##_64_
#define CB(n) cblas_##n##64_
typedef int64_t blasint;
#elif defined(SPELLING_scipy)
#define F77(n) scipy_##n##_
#define CB(n) scipy_cblas_##n
typedef int blasint;
#elif defined(SPELLING_scipy64)
#define F77(n) scipy_##n##_64_
#define CB(n) scipy_cblas_##n##64_
typedef int64_t blasint;
#else
#error "define SPELLING_plain, SPELLING_ilp64, SPELLING_scipy or SPELLING_scipy64"
#endif

#endif

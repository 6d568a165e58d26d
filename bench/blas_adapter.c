/* The CPU library of the GEMM benchmark (bench/gemm.sh): exports the plain LP64 Fortran symbols sgemm_, dgemm_,
 * cgemm_ and zgemm_ and forwards each to scipy_?gemm_ of SciPy's bundled OpenBLAS, opened from the path in
 * GSBENCH_OPENBLAS.  The C benchmark links against it, gpushim finds it as the real dgemm_, and NVBLAS opens it
 * as NVBLAS_CPU_BLAS_LIB: all three then run the same OpenBLAS that the wheels ship. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define GSB_EXPORT __attribute__((visibility("default")))

/* Fortran ?gemm_ with the two hidden string lengths that gfortran passes after the last argument.  OpenBLAS's
 * entries ignore them; we pass on what we were given.  Scalars and matrices are pointers in every precision,
 * so one pointer type serves all four. */
typedef void gsb_gemm_fn(const char *transa, const char *transb, const int *m, const int *n, const int *k,
                         const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,
                         const void *beta, void *c, const int *ldc, size_t transa_len, size_t transb_len);

static const char *const gsb_names[4] = {"scipy_sgemm_", "scipy_dgemm_", "scipy_cgemm_", "scipy_zgemm_"};
static gsb_gemm_fn *gsb_real[4]; /* written once under gsb_once */
static pthread_once_t gsb_once = PTHREAD_ONCE_INIT;

/* Opens the library on the first call, not in a constructor: NVBLAS opens us from inside its own
 * initialisation, and a failure here must name the variable rather than fail the program's start-up.
 * dlsym on the handle searches that library and its dependencies only, so a preloaded gpushim, which also
 * exports scipy_?gemm_, cannot be what we find. */
static void gsb_open(void)
{
    const char *path = getenv("GSBENCH_OPENBLAS");
    if (!path || !*path) {
        fprintf(stderr, "gsbench_blas: set GSBENCH_OPENBLAS to SciPy's bundled OpenBLAS "
                        "(scipy.libs/libscipy_openblas-*.so)\n");
        exit(2);
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "gsbench_blas: cannot open GSBENCH_OPENBLAS=%s: %s\n", path, dlerror());
        exit(2);
    }
    for (int i = 0; i < 4; i++) {
        gsb_real[i] = (gsb_gemm_fn *)dlsym(h, gsb_names[i]);
        if (!gsb_real[i]) {
            fprintf(stderr, "gsbench_blas: %s has no %s (is it SciPy's LP64 OpenBLAS?)\n", path, gsb_names[i]);
            exit(2);
        }
    }
}

static gsb_gemm_fn *gsb_get(int i)
{
    pthread_once(&gsb_once, gsb_open);
    return gsb_real[i];
}

#define GSB_GEMM(name, index)                                                                                  \
    GSB_EXPORT void name(const char *ta, const char *tb, const int *m, const int *n, const int *k,             \
                         const void *alpha, const void *a, const int *lda, const void *b, const int *ldb,      \
                         const void *beta, void *c, const int *ldc, size_t ta_len, size_t tb_len)              \
    {                                                                                                          \
        gsb_get(index)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ta_len, tb_len);                  \
    }

GSB_GEMM(sgemm_, 0)
GSB_GEMM(dgemm_, 1)
GSB_GEMM(cgemm_, 2)
GSB_GEMM(zgemm_, 3)

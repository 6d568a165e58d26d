/* Expansion of the routine table (routines.def) into symbol spellings.  Every exported symbol of a routine is
 * produced by X(ID, P, symbol, convention, intbits); users of the table pick what they need from that tuple.
 * This header is also run through the C preprocessor alone to write the linker's export list and the list of
 * expected exports (Makefile: build/gpushim.map, build/exports.txt), so it holds macros only. */
#ifndef GS_TABLE_H
#define GS_TABLE_H

/* Fortran 77 spellings: reference/OpenBLAS/MKL (LP64), ILP64 with a 64_ suffix (Julia, NumPy 1.2x wheels), and the
 * scipy_ prefixed builds of the scipy-openblas wheels (SciPy: LP64; NumPy 2.x: ILP64). */
#define GS_SPELL_F77(X, ID, P, name) \
    X(ID, P, name##_, F77, 32) \
    X(ID, P, name##_64_, F77, 64) \
    X(ID, P, scipy_##name##_, F77, 32) \
    X(ID, P, scipy_##name##_64_, F77, 64)

/* CBLAS spellings, same four families. */
#define GS_SPELL_CBLAS(X, ID, P, name) \
    X(ID, P, cblas_##name, CBLAS, 32) \
    X(ID, P, cblas_##name##64_, CBLAS, 64) \
    X(ID, P, scipy_cblas_##name, CBLAS, 32) \
    X(ID, P, scipy_cblas_##name##64_, CBLAS, 64)

/* The conventions column of routines.def. */
#define GS_CONV_F77(X, ID, P, name)       GS_SPELL_F77(X, ID, P, name)
#define GS_CONV_CBLAS(X, ID, P, name)     GS_SPELL_CBLAS(X, ID, P, name)
#define GS_CONV_F77_CBLAS(X, ID, P, name) GS_SPELL_F77(X, ID, P, name) GS_SPELL_CBLAS(X, ID, P, name)
#define GS_CONV_LAPACK(X, ID, P, name)    GS_SPELL_F77(X, ID, P, name)
/* FFTW's C symbols are the routines' names as they are (fftw_execute_dft); FFTW has no 64-bit-integer build.
 * Its Fortran 77 wrappers (dfftw_execute_dft_, and g77's spelling with two underscores) take every argument by
 * reference; they run a plan themselves, without calling the C executes, so they are interposed too.  Their
 * names, which token pasting cannot make from fftwf_ ones: */
#define GS_FFTW_F77_fftw_execute          dfftw_execute_
#define GS_FFTW_F77_fftwf_execute         sfftw_execute_
#define GS_FFTW_F77_fftw_execute_dft      dfftw_execute_dft_
#define GS_FFTW_F77_fftwf_execute_dft     sfftw_execute_dft_
#define GS_FFTW_F77_fftw_execute_dft_r2c  dfftw_execute_dft_r2c_
#define GS_FFTW_F77_fftwf_execute_dft_r2c sfftw_execute_dft_r2c_
#define GS_FFTW_F77_fftw_execute_dft_c2r  dfftw_execute_dft_c2r_
#define GS_FFTW_F77_fftwf_execute_dft_c2r sfftw_execute_dft_c2r_
#define GS_FFTW_F77_fftw_execute_r2r      dfftw_execute_r2r_
#define GS_FFTW_F77_fftwf_execute_r2r     sfftw_execute_r2r_
#define GS_FFTW_F77_fftw_execute_split_dft       dfftw_execute_split_dft_
#define GS_FFTW_F77_fftwf_execute_split_dft      sfftw_execute_split_dft_
#define GS_FFTW_F77_fftw_execute_split_dft_r2c   dfftw_execute_split_dft_r2c_
#define GS_FFTW_F77_fftwf_execute_split_dft_r2c  sfftw_execute_split_dft_r2c_
#define GS_FFTW_F77_fftw_execute_split_dft_c2r   dfftw_execute_split_dft_c2r_
#define GS_FFTW_F77_fftwf_execute_split_dft_c2r  sfftw_execute_split_dft_c2r_
#define GS_TCAT(a, b) GS_TCAT_(a, b)
#define GS_TCAT_(a, b) a##b
/* Each level expands its arguments, so that X sees the spelled names, as # and ## in X need. */
#define GS_CONV_FFTW(X, ID, P, name) X(ID, P, name, FFTW, 32) GS_FFTW_F77(X, ID, P, GS_FFTW_F77_##name)
#define GS_FFTW_F77(X, ID, P, f77) GS_FFTW_F77_2(X, ID, P, f77, GS_TCAT(f77, _))
#define GS_FFTW_F77_2(X, ID, P, f77, g77) X(ID, P, f77, FFTWF77, 32) X(ID, P, g77, FFTWF77, 32)

/* To visit every exported symbol:
 *     #define GS_ROUTINE(ID, op, P, name, conv) GS_CONV_##conv(X, ID, P, name)
 *     #include "core/routines.def"
 *     #undef GS_ROUTINE                                                                                   */
/* The C library's registration of exit and fork handlers, which gpushim interposes for its bring-up thread
 * (dispatch/warmup.c). */
#define GS_EXIT_HOOKS(X) X(__cxa_atexit) X(__register_atfork)

/* The CUDA allocation functions a framework in the same process reaches, which gpushim interposes to give back
 * its cached device memory when they run short, and the lookups through which it reaches them: the driver's
 * cuGetProcAddress and dlsym, on x86-64 (dispatch/yield.c). */
#define GS_CUDA_ALLOC_HOOKS(X) \
    X(cudaMalloc) X(cudaMallocAsync) X(cuMemAlloc_v2) X(cuMemAllocAsync) X(cuMemCreate) X(cuGetProcAddress) \
    X(cuGetProcAddress_v2) X(dlsym) X(cudaDeviceReset)

/* The other names gpushim exports besides its API: the memory functions it interposes (hostreg.c). */
#define GS_MEMORY_HOOKS(X) \
    X(free) X(realloc) X(reallocarray) X(munmap) X(mremap) X(madvise) X(mmap) X(mmap64)

/* And FFTW's planners, destroy_plan and cleanup for double (fftw_) and single (fftwf_) precision: exported,
 * passed to the real FFTW, but not calls of the table (families/fftw/planners.c records their plans). */
#define GS_FFTW_PLANNERS_OF(X, pre) \
    X(pre##plan_dft_1d) X(pre##plan_dft_2d) X(pre##plan_dft_3d) X(pre##plan_dft) \
    X(pre##plan_dft_r2c_1d) X(pre##plan_dft_r2c_2d) X(pre##plan_dft_r2c_3d) X(pre##plan_dft_r2c) \
    X(pre##plan_dft_c2r_1d) X(pre##plan_dft_c2r_2d) X(pre##plan_dft_c2r_3d) X(pre##plan_dft_c2r) \
    X(pre##plan_many_dft) X(pre##plan_many_dft_r2c) X(pre##plan_many_dft_c2r) \
    X(pre##plan_guru_dft) X(pre##plan_guru_dft_r2c) X(pre##plan_guru_dft_c2r) \
    X(pre##plan_guru64_dft) X(pre##plan_guru64_dft_r2c) X(pre##plan_guru64_dft_c2r) \
    X(pre##plan_r2r_1d) X(pre##plan_r2r_2d) X(pre##plan_r2r_3d) X(pre##plan_r2r) X(pre##plan_many_r2r) \
    X(pre##plan_guru_r2r) X(pre##plan_guru64_r2r) X(pre##plan_guru_split_dft) X(pre##plan_guru_split_dft_r2c) \
    X(pre##plan_guru_split_dft_c2r) X(pre##plan_guru64_split_dft) X(pre##plan_guru64_split_dft_r2c) \
    X(pre##plan_guru64_split_dft_c2r) X(pre##destroy_plan) X(pre##cleanup)
#define GS_FFTW_PLANNERS(X) GS_FFTW_PLANNERS_OF(X, fftw_) GS_FFTW_PLANNERS_OF(X, fftwf_)

#endif

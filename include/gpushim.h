/* gpushim's programming interface.  Programs need none of it: loading libgpushim.so (LD_PRELOAD) is enough.
 * These calls let a program or a test ask the library about itself. */
#ifndef GPUSHIM_H
#define GPUSHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, such as "0.1.0". */
const char *gpushim_version(void);

/* Waits at most seconds for the GPU's bring-up (on a background thread under GPUSHIM_WARMUP=auto, lazy or
 * eager), cuSOLVER's and cuFFT's included where LAPACK or FFTW calls wanted them; starts it first where calls
 * have wanted the GPU but had not yet made it worth starting (auto).  Returns 1 when the GPU is up and ready
 * for every family that wanted it, 0 when it is not: no call has wanted the GPU, there is no usable GPU, the
 * process is a forked child, or the time ran out.  A benchmark calls it after its warm-up calls, so that what
 * it times next is the steady state. */
int gpushim_gpu_wait(double seconds);

/* Writes the records the offload log (GPUSHIM_LOG) holds back, runs of like calls still being summed, so that
 * the log file has every call made so far: for a program that reads its own log as it runs (the Python
 * package's summary() and its notebook magic).  Returns 1, or 0 when no log is written. */
int gpushim_log_flush(void);

/* The file the offload log is written to (GPUSHIM_LOG with %p, %h, %r and %j expanded), or NULL when no log
 * is written.  Initialises the library if no call has yet. */
const char *gpushim_log_path(void);

/* Most dimensions of an array gpushim_array_t describes. */
#define GPUSHIM_MAX_DIMS 8

/* An array as NumPy describes it (the Python layer, gpushim/_linalg.py and gpushim/_fft.py, fills one per
 * operand). */
typedef struct {
    void *data;         /* the first element */
    char dtype;         /* NumPy's type character: 'f', 'd', 'F' or 'D' (float32 to complex128); 'i' (int32) for
                         * SciPy's pivots */
    int ndim;           /* 1 to GPUSHIM_MAX_DIMS (gpushim_linalg: 1 or 2); shape and strides beyond ndim are ignored */
    int64_t shape[GPUSHIM_MAX_DIMS];
    int64_t strides[GPUSHIM_MAX_DIMS]; /* in bytes, as NumPy's */
} gpushim_array_t;

/* Runs one numpy.linalg or scipy.linalg operation on the arrays, in the layout they have, through the same
 * policy, residency cache, log and fallback as the library's LAPACK calls; api names the Python function in the
 * log ("numpy.linalg.solve").  op and its arrays, inputs first (every array of one dtype but W and C, real, and P,
 * SciPy's pivots: n int32, 0-based, any stride, and R):
 *   "solve"     A (n x n), B (n, or n x k), X (B's shape): A X = B
 *   "inv"       A (n x n), X (n x n): A X = I
 *   "cholesky"  A (n x n), L (n x n): A = L L^H (uplo "L") or L^H L ("U") from A's triangle uplo; L's other
 *               triangle zero
 *   "cho_factor" the same, L's other triangle holding A's
 *   "eigh"      A (n x n), W (n), V (n x n): the eigenvalues, ascending, and eigenvectors of A's triangle uplo
 *   "eigvalsh"  A (n x n), W (n): the eigenvalues only
 *   "slogdet"   A (n x n), D (n): D's product is A's determinant (the diagonal of its LU factors, the first
 *               element's sign changed for an odd permutation)
 *   "lu_factor" A (m x n), LU (m x n), P (min(m, n)): A's LU factors with partial pivoting, as LAPACK's getrf
 *   "lu_solve"  LU (n x n), P (n), B (n, or n x k), X (B's shape): op(A) X = B from A's factors, op given by uplo:
 *               "N" (A), "T" (A^T) or "C" (A^H); P's pivots each from 0 to n - 1, a zero on LU's diagonal not done
 *   "cho_solve" C (n x n), B (n, or n x k), X (B's shape): A X = B from A's Cholesky factor in C's triangle uplo,
 *               a zero on C's diagonal not done
 *   "inv_rcond" A (n x n), X (n x n): inv, not done when 1 / (|A|_1 |X|_1) is below 1000 times the epsilon of A's
 *               precision (scipy.linalg.inv, which warns when LAPACK's estimate of it is below one epsilon): X
 *               is then written but not the result, and the caller's own call gives it
 *   "solve_rcond" A (n x n), B (n, or n x k), X (B's shape): solve, not done when LAPACK's estimate of A's
 *               reciprocal condition number in the 1-norm (gecon's method, on the GPU's factors) is below 1000
 *               epsilons (scipy.linalg.solve, which warns below one)
 *   "posv_rcond" the same for a Hermitian positive definite A, from its triangle uplo (Cholesky, pocon's
 *               estimate); not done when A is not positive definite
 *   "svd"       A (m x n), W (min(m, n)), U (m x ku), Vh (kv x n): A = U diag(W) Vh, W descending, ku = m and
 *               kv = n (uplo "A") or both min(m, n) ("S"); not done when two singular values are within 1000
 *               epsilons of the largest (their vectors then any basis of a space), nor for an A that LAPACK
 *               scales first or with a NaN (zero, near underflow or overflow)
 *   "svdvals"   A (m x n), W (min(m, n)): the singular values only
 *   "qr"        A (m x n), Q (m x k), R (k x n): A = Q R by Householder reflections (LAPACK's geqrf and orgqr), R's
 *               part below the diagonal zero, k = min(m, n) (uplo "S") or m ("A"); not done when an element of
 *               R's diagonal is within 1000 epsilons of the largest (Q's later columns then rounding's)
 *   "qr_r"      A (m x n), R (k x n): R alone
 *   "qr_raw"    A (m x n), H (m x n), TAU (min(m, n)): LAPACK's geqrf's outputs, A factored (R and the
 *               reflectors below it) and the reflectors' scalars (uplo ignored)
 *   "lstsq"     A (m x n), B (m, or m x k), C (1, real), X (max(m, n), or max(m, n) x k), W (min(m, n)), R (1
 *               int32): least squares as LAPACK's gelsd computes them, singular values at or below C times the
 *               largest counted as zero (C at or below 0, or 1 and over: machine precision, as gelsd): X as gelsd
 *               leaves B (the minimum-norm solution in its first n rows, and when m > n the residual in the
 *               others), W the singular values, R the rank; not done when a singular value is within 1000
 *               epsilons of the largest from the cut-off (the rank then rounding's), nor for an A or B that LAPACK
 *               scales first
 * uplo is "L" or "U" (ignored by solve, inv, slogdet, lu_factor, svdvals and lstsq; lu_solve's transposition; svd's,
 * qr's and qr_r's job).  A matrix has one
 * dimension of unit stride; the outputs are the caller's fresh arrays.  Returns 1 when the call is done, its results
 * in the outputs; 0 when it is not (the policy keeps it on the CPU, the GPU failed or found the matrix singular or
 * not positive definite, or the arrays are of a form this does not take), with no output written (but
 * inv_rcond's X): the caller then makes the call as it would have without gpushim.  flags: 0, or
 * GPUSHIM_LINALG_FINITE: not done either when an input holds an infinity or a NaN, which the GPU looks for once
 * the inputs are there (SciPy's check_finite, without a pass over them on the host). */
int gpushim_linalg(const char *api, const char *op, const char *uplo, int narrays, const gpushim_array_t *arrays,
                   int flags);
#define GPUSHIM_LINALG_FINITE 1

/* The smallest order n for which gpushim_linalg's op on an n x n matrix of dtype (with nrhs right-hand sides, for
 * solve and lstsq; 1 otherwise) could be done, by the policy in effect (GPUSHIM_OFFLOAD, the routine's
 * threshold): a call on a smaller matrix would not be, and the caller may make it itself without asking.
 * INT64_MAX when no call of op is done (an unknown op or dtype, GPUSHIM_OFFLOAD=never, the routine off).  The
 * policy is read once, so the answer holds for the process. */
int64_t gpushim_linalg_min_order(const char *op, char dtype, int64_t nrhs);

/* Runs one numpy.fft transform of in into out through the same policy, log and fallback as the library's FFTW
 * executes, cuFFT's plans kept by geometry; api names the Python function in the log ("numpy.fft.fftn").  op:
 *   "fft", "ifft"  complex to complex (in and out complex, of one shape), forward (exponent -1) or backward (+1)
 *   "rfft"         real to complex, forward: out is in's shape with n / 2 + 1 on the last of the axes
 *   "irfft"        complex to real, backward: in is out's shape with n / 2 + 1 on the last of the axes (n out's)
 *   "ihfft"        rfft with its output conjugated
 *   "hfft"         irfft of in's conjugate, which the library makes from from (below; required)
 * in and out have one precision (type characters 'f' and 'F', or 'd' and 'D') and ndim dimensions, any strides
 * that are positive multiples of the element; axes (naxes of them, 1 to 3, distinct, each of more than one point)
 * are the dimensions transformed, together; the others are transforms side by side.  Neither transform
 * normalises: the output is multiplied by scale (NumPy's norm: 1, 1 / N or 1 / sqrt(N), N the transform's
 * points), on the GPU before it is copied back.  in is read only; out is the caller's array, apart from in.
 * from: NULL, or the caller's input where it is shorter along some dimensions than the transform reads (NumPy's n
 * or s beyond the input's length), or real where the transform's input is complex (NumPy's cast): in then
 * describes the input as the transform reads it, its data NULL and its strides not read; the library makes it,
 * C-ordered, from's elements at their indexes (a real one as the real parts) and zeros elsewhere, only once the
 * call goes to the GPU, and frees it after.  from has in's type, or the real one of its precision where in is
 * complex, in's ndim, and strides as in's may be.
 * threads: the threads the caller's own function computes on (1 for numpy.fft, SciPy's workers), which the policy
 * weighs the CPU's time by.  Returns 1 when the call is done, its result in out; 0 when it is not (the policy
 * keeps it on the CPU, the GPU failed, the arrays or axes are of a form this does not take), with out not
 * written: the caller then makes the call as it would have without gpushim. */
int gpushim_fft(const char *api, const char *op, const gpushim_array_t *in, const gpushim_array_t *from,
                const gpushim_array_t *out, int naxes, const int *axes, double scale, int threads);

/* The fewest points (the elements of the transform's logical array: the complex one of fft and ifft, the real
 * one of rfft, irfft and ihfft, every transform side by side counted) for which gpushim_fft's op on arrays of
 * input type dtype, the caller's own function computing on threads threads (gpushim_fft's), could go to the
 * GPU by the policy in effect (GPUSHIM_OFFLOAD, the routine's threshold, and its rates for a transform of that
 * many points, each array copied once): a call on fewer would not, and the caller may make it itself without
 * asking.  The rates alone decide here; what the process's calls measured (the model's history) does not move a
 * call below it to the GPU.  INT64_MAX when no call of op is done (an unknown op or dtype,
 * GPUSHIM_OFFLOAD=never, the routine off).  The policy is read once, so the answer holds for the process. */
int64_t gpushim_fft_min_points(const char *op, char dtype, int threads);

/* After gpushim_linalg or gpushim_fft returned 0 on this thread: 1 when the library kept that call on the CPU
 * because the cost model weighed it so or the GPU's bring-up was under way (or not yet begun) and the log or
 * the model wants its time, and the library now times the caller's own call of it, to be followed by
 * gpushim_original_end once that returns (or raises); 0 otherwise, with nothing to end.  The timed call is
 * logged under the api name with its seconds, and where the model weighed it, the model learns the CPU side's
 * speed from it; the CPU library's calls made meanwhile on this thread are its own (not logged, not
 * offloaded). */
int gpushim_original_begin(void);
void gpushim_original_end(void);

#ifdef __cplusplus
}
#endif

#endif

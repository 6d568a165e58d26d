/* Guard bands around the arrays a call is given, shared by the bounds test programs (tests/progs/bounds.c,
 * tests/progs/bounds_arrays.c; tests/t_bounds.sh): each array lies between two bands of canary bytes, its gaps
 * hold canary bytes or data, and after each call every byte outside what the call may write must be as it was;
 * at the end every byte of every array must be as its call left it, so that a write landing after the call
 * returned fails too.  A case: begin, its arrays (arr, mat), what the call may write (may...), arm, the call, done. */
#ifndef GUARD_H
#define GUARD_H

#include <stddef.h>
#include <stdint.h>

#define GUARD 4096 /* canary bytes before and after each array */

typedef struct arr {
    const char *name, *label; /* the array, and the case that made it */
    unsigned char *mem, *was, *may; /* GUARD + bytes + GUARD each: the bytes, a copy, 1 where the call may write */
    size_t bytes;
    struct arr *next;
} arr_t;

extern const char *label;     /* the current case */
extern int cases, violations; /* the cases done, and the arrays written out of bounds */
extern int gpu_expected;      /* the calls meant for the GPU under GPUSHIM_OFFLOAD=always, summed by done */
extern int corrupt;           /* the test's own check: done writes one byte past each array's bound itself, and
                               * check_kept one byte of every array, so that every case must fail */

/* A new array of the current case: bytes bytes between guard bands, every byte its canary (one canary an array,
 * so that an element copied from one array's guard band into another's shows), none the call's to write. */
void *arr(const char *name, size_t bytes);
/* Bytes [off, off + len) of array p (of the current case) are the call's to write. */
void may(void *p, size_t off, size_t len);
/* No byte of the current case's arrays is the call's to write (a call that is not done writes nothing). */
void may_none(void);
/* The rows x cols elements of es bytes of a matrix, ld elements apart. */
void may_mat(void *p, size_t es, int64_t rows, int64_t cols, int64_t ld);
/* Elements 0, inc, ..., (n - 1) inc. */
void may_vec(void *p, size_t es, int64_t n, int64_t inc);
/* Triangle uplo of an n x n matrix, its diagonal unless unit. */
void may_tri(void *p, size_t es, char uplo, int64_t n, int64_t ld, int unit);
/* A value in [-1, 1], the same sequence at every run. */
double rnd(void);
/* Values in [-1, 1] in the rows x cols elements (es 4: float, 8: double, 16: complex double, its diagonal real),
 * boost added to the diagonal; the padding keeps its canary bytes. */
void fill(void *p, size_t es, int64_t rows, int64_t cols, int64_t ld, double boost);
/* A matrix of rows x cols elements with ld - rows rows of padding, filled. */
void *mat(const char *name, size_t es, int64_t rows, int64_t cols, int64_t ld, double boost);
/* A copy of array p made by an earlier case, as a new array of this one's. */
void *copy(const char *name, const void *p, size_t bytes);
/* A case called l begins. */
void begin(const char *l);
/* Every array of the case as it is now, before the call. */
void arm(void);
/* The case's end: every byte the call may not write is as it was (else "FAIL: CASE: ARRAY: ..." and a
 * violation); the arrays are then kept as they are now; gpu calls of the case were meant for the GPU. */
void done(int gpu);
/* Every array of every case as its call left it (else "FAIL: ...: changed after its call returned"). */
void check_kept(void);

#endif

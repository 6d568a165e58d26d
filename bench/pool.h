/* What the C benchmarks (bench/gemm_c.c, bench/fft.c) share: a monotonic clock, and a pool of reproducible
 * values that their inputs are copied from.  bench/fft_cupy.py computes the same pool in Python to give CuPy
 * the inputs that fft.c gives FFTW, so the generator, its seed and POOL must not change.  Include it after the
 * system headers, with _POSIX_C_SOURCE defined (clock_gettime). */
#ifndef GS_BENCH_POOL_H
#define GS_BENCH_POOL_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

enum { POOL = 1048573 }; /* a prime, so the pool's period never lines up with a column or a dimension */
static double pool_d[POOL];
static float pool_s[POOL]; /* pool_d rounded to float */

/* Seconds on CLOCK_MONOTONIC, from an arbitrary origin. */
static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Fills the pool with values in [-1, 1) from splitmix64 (the golden-ratio increment, from that same seed):
 * random enough for timing and spot checks, and the same in every run.  Once, before the first pool_fill. */
static inline void pool_init(void)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < POOL; i++) {
        uint64_t z = (x += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        pool_d[i] = (double)(z >> 11) * 0x1p-52 - 1.0;
        pool_s[i] = (float)pool_d[i];
    }
}

/* Writes count reals (floats when single, else doubles) to dst: the pool from index start on, cyclically.  A
 * copy runs at the rate of memcpy, so a multi-GiB operand costs a fraction of a second, not a minute of
 * random numbers, and an input can be rewritten before every timed run. */
static inline void pool_fill(void *dst, size_t count, int single, size_t start)
{
    size_t es = single ? sizeof(float) : sizeof(double), off = start % POOL;
    const char *src = single ? (const char *)pool_s : (const char *)pool_d;
    char *p = dst;
    while (count) {
        size_t len = POOL - off < count ? POOL - off : count;
        memcpy(p, src + off * es, len * es);
        p += len * es, count -= len, off = 0;
    }
}

#endif

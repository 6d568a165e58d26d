/* FFTW plans of the kinds the GPU path never takes: real-to-real (every r2r planner) and split arrays (the guru
 * split planners), in both precisions (fft_other.h), each executed twice with fftw_execute and once with its
 * new-array execute.  Prints a hash of each output, which tests/t_fftw.sh compares with the run without the
 * shim; the log gives each execute's reason.
 * usage: fft_other */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N 24

static uint64_t hash(const void *p, size_t bytes)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

#define P(x) fftw_##x
#define R double
#define NAME "fftw_"
#include "fft_other.h"
#undef R
#undef P
#undef NAME

#define P(x) fftwf_##x
#define R float
#define NAME "fftwf_"
#include "fft_other.h"
#undef R
#undef P
#undef NAME

int main(void)
{
    fftw_all();
    fftwf_all();
    return 0;
}

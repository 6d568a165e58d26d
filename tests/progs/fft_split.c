/* Batched FFTW plans that gpushim splits across devices by their transforms (GPUSHIM_DEVICES), and two it must
 * not split: complex out of place and in place, an odd number of transforms (parts of unequal size), r2c out
 * of place, c2r in place on FFTW's padded layout, single precision, a 2-D batch, an r2c whose output has
 * padding the transform leaves alone; then transforms interleaved in memory (each part's elements among the
 * others') and a batch too small to split.  Each plan is executed once; its whole output, padding included, goes
 * to the result file (results.h) as two sums per 4096 reals, one plain and one weighted by position, for
 * blas_cmp against a run without the shim.  tests/t_devices.sh counts the executes on each of the stand-in's
 * devices.
 * usage: fft_split RESULT-FILE */
#include <fftw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "results.h"

static uint64_t seed = 7;
static double rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(seed >> 11) / 9007199254740992.0 - 0.5;
}

/* reals random values (double or float) in a new FFTW array. */
static void *filled(size_t reals, int single)
{
    void *x = single ? (void *)fftwf_alloc_real(reals) : (void *)fftw_alloc_real(reals);
    for (size_t i = 0; i < reals; i++)
        if (single)
            ((float *)x)[i] = (float)rnd();
        else
            ((double *)x)[i] = rnd();
    return x;
}

/* The sums of each 4096 reals of x (double, or float when single, written as floats for single precision's
 * tolerance): a wrong or misplaced element changes them. */
static void sums(FILE *f, const char *label, const void *x, size_t reals, int single)
{
    size_t chunks = (reals + 4095) / 4096;
    double *s = calloc(2 * chunks, sizeof *s);
    for (size_t i = 0; i < reals; i++) {
        double v = single ? (double)((const float *)x)[i] : ((const double *)x)[i];
        s[2 * (i / 4096)] += v;
        s[2 * (i / 4096) + 1] += v * (double)(i % 13 + 1);
    }
    if (single) {
        float *sf = (float *)s; /* (in place: element i's float lies below double i) */
        for (size_t i = 0; i < 2 * chunks; i++)
            sf[i] = (float)s[i];
    }
    result_write(f, label, single ? 0 : 1, s, (int64_t)(2 * chunks));
    free(s);
}

/* One double-precision plan of the advanced interface, executed; its output's reals written. */
static void run(FILE *f, const char *label, int kind, int rank, const int *n, int howmany, int inplace,
                int istride, int idist, int ostride, int odist, const int *onembed, size_t in_reals,
                size_t out_reals)
{
    double *in = filled(in_reals > out_reals || !inplace ? in_reals : out_reals, 0);
    double *out = inplace ? in : filled(out_reals, 0);
    fftw_plan p;
    if (kind == 0)
        p = fftw_plan_many_dft(rank, n, howmany, (fftw_complex *)in, NULL, istride, idist, (fftw_complex *)out,
                               onembed, ostride, odist, FFTW_FORWARD, FFTW_ESTIMATE);
    else if (kind == 1)
        p = fftw_plan_many_dft_r2c(rank, n, howmany, in, NULL, istride, idist, (fftw_complex *)out, onembed,
                                   ostride, odist, FFTW_ESTIMATE);
    else
        p = fftw_plan_many_dft_c2r(rank, n, howmany, (fftw_complex *)in, NULL, istride, idist, out, onembed,
                                   ostride, odist, FFTW_ESTIMATE);
    if (!p) {
        fprintf(stderr, "fft_split: no plan for %s\n", label);
        exit(1);
    }
    fftw_execute(p);
    if (kind == 2 && inplace) /* the 2 reals of padding after each transform's output: neither writes them */
        for (size_t r = (size_t)n[rank - 1]; r < out_reals; r += (size_t)odist)
            out[r] = out[r + 1] = 0;
    sums(f, label, out, out_reals, 0);
    fftw_destroy_plan(p);
    fftw_free(in);
    if (!inplace)
        fftw_free(out);
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return fprintf(stderr, "usage: fft_split RESULT-FILE\n"), 2;
    /* 1030 complex transforms of 4096 (64 KiB each): 4 parts of at least 16 MiB on 4 devices, 2 on 2. */
    int n1 = 4096, h = 1030;
    size_t z = 2 * (size_t)n1 * (size_t)h;
    run(f, "c2c out of place", 0, 1, &n1, h, 0, 1, n1, 1, n1, NULL, z, z);
    run(f, "c2c in place", 0, 1, &n1, h, 1, 1, n1, 1, n1, NULL, z, z);
    /* 520 real transforms of 8192 (64 KiB of input each): 2 parts. */
    int n2 = 8192, h2 = 520, c2 = n2 / 2 + 1;
    run(f, "r2c out of place", 1, 1, &n2, h2, 0, 1, n2, 1, c2, NULL, (size_t)n2 * h2, 2 * (size_t)c2 * h2);
    /* In place, FFTW's padded layout: 2 (n / 2 + 1) reals a transform on both sides. */
    run(f, "c2r in place", 2, 1, &n2, h2, 1, 1, c2, 1, 2 * c2, NULL, 2 * (size_t)c2 * h2, 2 * (size_t)c2 * h2);
    /* An output of 5 complex elements more per transform than it writes: those come back unchanged. */
    int pad = c2 + 5;
    run(f, "r2c with padding left alone", 1, 1, &n2, h2, 0, 1, n2, 1, pad, &pad, (size_t)n2 * h2,
        2 * (size_t)pad * h2);
    /* 1030 transforms of 64 x 64. */
    int n3[2] = {64, 64};
    run(f, "2-d c2c", 0, 2, n3, h, 0, 1, 4096, 1, 4096, NULL, z, z);
    /* Not split: interleaved transforms (transform b's element x at b + x howmany), and 100 transforms (6.4 MB). */
    run(f, "c2c interleaved", 0, 1, &n1, h, 0, h, 1, h, 1, NULL, z, z);
    run(f, "c2c of 100 transforms", 0, 1, &n1, 100, 0, 1, n1, 1, n1, NULL, 2 * (size_t)n1 * 100,
        2 * (size_t)n1 * 100);

    /* Single precision: 1030 transforms of 4096 (32 KiB each), 2 parts. */
    float *in = filled(z, 1), *out = filled(z, 1);
    fftwf_plan p = fftwf_plan_many_dft(1, &n1, h, (fftwf_complex *)in, NULL, 1, n1, (fftwf_complex *)out, NULL,
                                       1, n1, FFTW_BACKWARD, FFTW_ESTIMATE);
    fftwf_execute(p);
    sums(f, "single c2c out of place", out, z, 1);
    fftwf_destroy_plan(p);
    fftwf_free(in);
    fftwf_free(out);
    fclose(f);
    return 0;
}

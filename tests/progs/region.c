/* An OpenMP region whose threads each call dgemm_ at once, as a quantum-chemistry code's C loops do, after one
 * call made alone: how the cost model weighs calls that share the CPU library's threads and the GPU's queue
 * (tests/t_loading.sh, "region").  Usage: region FILE THREADS ROUNDS N */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

int main(int argc, char **argv)
{
    FILE *f = argc > 4 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    int threads = atoi(argv[2]), rounds = atoi(argv[3]), n = atoi(argv[4]), calls = threads * rounds + 1;
    double **out = calloc((size_t)calls, sizeof *out);
    for (int i = 0; i < calls; i++)
        out[i] = malloc(sizeof(double) * (size_t)n * (size_t)n);
    square_dgemm(n, 1000, out[calls - 1]); /* alone */
#pragma omp parallel for num_threads(threads) schedule(static, 1)
    for (int i = 0; i < calls - 1; i++)
        square_dgemm(n, (unsigned)i, out[i]);
    for (int i = 0; i < calls; i++) {
        char label[64];
        snprintf(label, sizeof label, "call %d", i);
        result_write(f, label, 1, out[i], (int64_t)n * n);
    }
    return fclose(f) != 0;
}

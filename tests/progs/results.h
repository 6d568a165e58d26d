/* The result files test programs write and blas_cmp compares: records of a label, a precision and the
 * output array (every element, padding included) converted to doubles. */
#ifndef RESULTS_H
#define RESULTS_H

#include <stdint.h>
#include <stdio.h>

typedef struct {
    char label[120];
    int32_t prec;  /* 0 S, 1 D, 2 C, 3 Z: sets the tolerance */
    int32_t pad;
    int64_t count; /* doubles that follow */
} result_header_t;

static inline void result_write(FILE *f, const char *label, int prec, const void *data, int64_t reals)
{
    result_header_t h = {.prec = prec, .count = reals};
    snprintf(h.label, sizeof h.label, "%s", label);
    fwrite(&h, sizeof h, 1, f);
    for (int64_t i = 0; i < reals; i++) {
        double v = prec == 0 || prec == 2 ? (double)((const float *)data)[i] : ((const double *)data)[i];
        fwrite(&v, sizeof v, 1, f);
    }
}

#endif

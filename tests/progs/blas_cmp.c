/* Compares two result files (results.h) record by record: labels and sizes must match, NaN must stand where
 * NaN stands, and other values agree within a tolerance relative to the largest value of the record
 * (float: 1e-4, double: 1e-10, times SCALE from the third argument).  Exit status 1 on any difference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: blas_cmp REFERENCE RESULT [TOLERANCE-SCALE]\n");
        return 2;
    }
    FILE *a = fopen(argv[1], "rb"), *b = fopen(argv[2], "rb");
    double scale = argc > 3 ? atof(argv[3]) : 1;
    if (!a || !b) {
        fprintf(stderr, "blas_cmp: cannot open %s\n", !a ? argv[1] : argv[2]);
        return 2;
    }
    long records = 0, bad = 0;
    result_header_t ha, hb;
    for (;;) {
        size_t ra = fread(&ha, sizeof ha, 1, a), rb = fread(&hb, sizeof hb, 1, b);
        if (ra != rb) {
            fprintf(stderr, "blas_cmp: %s has %s records than %s\n", argv[2], ra ? "fewer" : "more", argv[1]);
            return 1;
        }
        if (!ra)
            break;
        records++;
        if (strcmp(ha.label, hb.label) || ha.count != hb.count) {
            fprintf(stderr, "blas_cmp: record %ld: '%s' (%lld) against '%s' (%lld)\n", records, ha.label,
                    (long long)ha.count, hb.label, (long long)hb.count);
            return 1;
        }
        double *x = malloc(sizeof *x * (size_t)(ha.count + 1)), *y = malloc(sizeof *y * (size_t)(ha.count + 1));
        if (fread(x, sizeof *x, (size_t)ha.count, a) != (size_t)ha.count ||
            fread(y, sizeof *y, (size_t)hb.count, b) != (size_t)hb.count) {
            fprintf(stderr, "blas_cmp: record %ld ('%s') is truncated\n", records, ha.label);
            return 1;
        }
        double big = 1, tol = scale * (ha.prec == 0 || ha.prec == 2 ? 1e-4 : 1e-10);
        for (int64_t i = 0; i < ha.count; i++)
            if (isfinite(x[i]) && fabs(x[i]) > big)
                big = fabs(x[i]);
        for (int64_t i = 0; i < ha.count; i++) {
            int same = isnan(x[i]) ? isnan(y[i]) : isinf(x[i]) ? x[i] == y[i] : fabs(x[i] - y[i]) <= tol * big;
            if (!same && bad++ < 20)
                fprintf(stderr, "blas_cmp: '%s' element %lld: %.17g against %.17g\n", ha.label, (long long)i, x[i],
                        y[i]);
        }
        free(x);
        free(y);
    }
    if (bad)
        fprintf(stderr, "blas_cmp: %ld differences in %ld records\n", bad, records);
    else
        printf("blas_cmp: %ld records agree\n", records);
    return bad != 0;
}

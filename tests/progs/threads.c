/* Many threads calling BLAS at once: small calls that stay on the CPU and larger ones that may go to the GPU,
 * in two precisions.  Results are written in a fixed order for comparison.  Usage: threads FILE */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "results.h"

enum { THREADS = 8, ROUNDS = 6 };

typedef struct {
    int id;
    double *out[ROUNDS];
    float *sout;
} job_t;

static int size_of(int id, int r) { return 8 + ((id * 7 + r * 13) % 5) * 24; }

static void *run(void *arg)
{
    job_t *j = arg;
    for (int r = 0; r < ROUNDS; r++) {
        int n = size_of(j->id, r);
        j->out[r] = malloc(sizeof(double) * (size_t)(n * n));
        square_dgemm(n, (unsigned)(j->id * 100 + r), j->out[r]);
    }
    int n = 40, k = 30;
    float a[40 * 30], one = 1, zero = 0;
    for (int i = 0; i < n * k; i++)
        a[i] = (float)((i * (j->id + 3)) % 17) - 8;
    j->sout = calloc((size_t)(n * n), sizeof(float));
    ssyrk_("L", "N", &n, &k, &one, a, &n, &zero, j->sout, &n, 1, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "wb") : NULL;
    if (!f)
        return 2;
    pthread_t t[THREADS];
    static job_t jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i].id = i;
        pthread_create(&t[i], NULL, run, &jobs[i]);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        char label[64];
        for (int r = 0; r < ROUNDS; r++) {
            int n = size_of(i, r);
            snprintf(label, sizeof label, "thread %d round %d", i, r);
            result_write(f, label, 1, jobs[i].out[r], (int64_t)n * n);
        }
        snprintf(label, sizeof label, "thread %d ssyrk", i);
        result_write(f, label, 0, jobs[i].sout, 40 * 40);
    }
    return fclose(f) != 0;
}

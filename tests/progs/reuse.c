/* Operands used again, then freed, reallocated, unmapped or remapped and given new contents at the same address: the
 * hazards of host registration (src/memory/hostreg.c).  Each step is a tall, skinny dgemm_ whose A and C are 32 MiB,
 * large enough to be registered on their second use; its C is written to the results file, which blas_cmp
 * compares with a run without the shim.  On a GPU, a registration that outlived its pages would copy stale
 * data; under the stand-in the test proves the registrations are made and dropped (tests/t_tiles.sh).
 * usage: reuse FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common.h"
#include "results.h"

enum { M = 1 << 22, K = 1, N = 1 }; /* A: M x K, C: M x N, 32 MiB each */
static const size_t BYTES = sizeof(double) * M;

static FILE *out;

static void product(const char *label, const double *a, double *c)
{
    static double b[K * N] = {0.5};
    int m = M, n = N, k = K;
    double one = 1, zero = 0;
    dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    result_write(out, label, 1, c, M);
}

static double *map(void *at)
{
    void *p = mmap(at, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    if (p == MAP_FAILED) {
        perror("reuse: mmap");
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(out = fopen(argv[1], "wb"))) {
        fprintf(stderr, "usage: reuse FILE\n");
        return 2;
    }
    double *a = malloc(BYTES), *c = malloc(BYTES);
    fill(a, M, 1);
    for (int i = 0; i < 3; i++) /* the second use registers A and C; the third copies through them */
        product("used again", a, c);

    free(a); /* glibc gives the block back with munmap; the next malloc of that size often lands there */
    a = malloc(BYTES);
    fill(a, M, 2);
    product("freed, allocated again", a, c);
    product("freed, allocated again, used again", a, c);

    a = realloc(a, BYTES + 4096);
    fill(a, M, 3);
    product("reallocated", a, c);
    product("reallocated, used again", a, c);
    a = reallocarray(a, M + 1024, sizeof(double));
    fill(a, M, 10);
    product("reallocarray", a, c);
    product("reallocarray, used again", a, c);

    double *m = map(NULL);
    fill(m, M, 4);
    product("mapped", m, c);
    product("mapped, used again", m, c);
    munmap(m, BYTES);
    m = map(m); /* the same address, new zeroed pages */
    product("unmapped, mapped there again", m, c);
    fill(m, M, 5);
    product("unmapped, mapped there again, filled", m, c);
    product("unmapped, mapped there again, used again", m, c);
    map(m); /* MAP_FIXED over it */
    product("mapped over", m, c);
    fill(m, M, 6);
    product("mapped over, used again", m, c);
    madvise(m, BYTES, MADV_DONTNEED); /* private anonymous pages read back as zero */
    product("madvise(DONTNEED)", m, c);
    fill(m, M, 7);
    product("madvise(DONTNEED), filled", m, c);
    double *dst = map(NULL);
    fill(dst, M, 8);
    product("mapped elsewhere", dst, c);
    product("mapped elsewhere, used again", dst, c);
    double *moved = mremap(m, BYTES, BYTES, MREMAP_MAYMOVE | MREMAP_FIXED, dst); /* m's pages replace dst's */
    if (moved != dst) {
        perror("reuse: mremap");
        return 2;
    }
    product("remapped over", moved, c);
    fill(m = map(m), M, 9); /* new pages where m's were */
    product("remapped away, mapped again", m, c);
    product("remapped away, mapped again, used again", m, c);
    fclose(out);
    return 0;
}

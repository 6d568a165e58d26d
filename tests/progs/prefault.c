/* numpy.linalg's gathers (one dcopy_ per column, incx = n) into fresh memory, and the pages after their
 * output: under the shim they are faulted in ahead of the copies in a private mapping (memory/prefault.h),
 * never in a shared one, and their contents stay as they were in both.  Prints one line per kind of mapping:
 * "prefault MAPPING: pages ahead resident R of P, contents unchanged yes|no, results equal yes|no", after
 * one that says whether the kernel has what the shim needs.  Without the shim nothing faults the pages ahead
 * in (R = 0), which is the control that the count can tell. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

void dcopy_(const int *, const void *, const int *, void *, const int *);

#define N 2048
#define AHEAD_PAGES 256 /* 1 MiB: the first piece the shim faults in after a run's last copy */

static size_t resident(unsigned char *p, size_t pages, size_t page)
{
    unsigned char v[AHEAD_PAGES];
    size_t r = 0;
    if (mincore(p, pages * page, v) != 0)
        return 0;
    for (size_t i = 0; i < pages; i++)
        r += v[i] & 1;
    return r;
}

static void one(const char *what, int flags, const double *a, int wait_for)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), out = (size_t)N * N * sizeof(double);
    /* The output, then a hole of fresh pages (the ones ahead), then pages of the program's own data. */
    size_t ahead = AHEAD_PAGES * page, total = out + 2 * ahead;
    unsigned char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    memset(m + out + ahead, 0x5a, ahead);
    double *b = (double *)(void *)m;
    int n = N, one = 1;
    for (int j = 0; j < N; j++)
        dcopy_(&n, a + j, &n, b + (size_t)j * N, &one);
    /* The shim's thread works on after the last copy returns: wait a while for it where it should act. */
    size_t r = 0;
    for (int t = 0; t < (wait_for ? 200 : 20) && (r = resident(m + out, AHEAD_PAGES, page)) < AHEAD_PAGES; t++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    int same = 1, equal = 1;
    for (size_t i = 0; i < ahead; i++)
        same &= m[out + i] == 0 && m[out + ahead + i] == 0x5a;
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < N; i++)
            equal &= b[j * N + i] == a[i * N + j];
    printf("prefault %s: pages ahead resident %zu of %d, contents unchanged %s, results equal %s\n", what, r,
           AHEAD_PAGES, same ? "yes" : "no", equal ? "yes" : "no");
    munmap(m, total);
}

/* Whether the kernel answers PROCMAP_QUERY (Linux 6.11), which the shim needs for this: the first 8 bytes of
 * its argument are the argument's size; 104 bytes, _IOWR('f', 17, ...). */
static int procmap_query(void)
{
    uint64_t q[13] = {sizeof q, 0, (uint64_t)(uintptr_t)&q};
    int fd = open("/proc/self/maps", O_RDONLY), ok = fd >= 0 && ioctl(fd, _IOWR('f', 17, uint64_t[13]), q) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

int main(int argc, char **argv)
{
    printf("prefault kernel: PROCMAP_QUERY %s\n", procmap_query() ? "yes" : "no");
    double *a = malloc((size_t)N * N * sizeof(double));
    for (size_t i = 0; i < (size_t)N * N; i++)
        a[i] = (double)i * 0.5 - 7.0;
    int expect = argc > 1 && strcmp(argv[1], "--expect") == 0;
    one("private", MAP_PRIVATE, a, expect);
    one("shared", MAP_SHARED, a, 0);
    free(a);
    return 0;
}

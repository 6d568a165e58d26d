/* What each way of noticing writes to host memory costs on this machine, for the residency cache's choice
 * (issue 4): hashing the buffer, comparing it with a shadow copy, write protection with a SIGSEGV handler,
 * and the kernel's soft-dirty page bits; and whether userfaultfd can write-protect.  Also whether the
 * kernel's own writes into a protected buffer (read(2)) fail with EFAULT.  Needs no GPU.
 * usage: coherence [MiB [threads]]; prints one JSON object. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static size_t bytes, page;
static char *buf, *shadow;
static int nthreads;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- hashing and comparing, on nthreads threads ---- */
typedef struct {
    size_t lo, hi;
    uint64_t out;
    int compare;
} part_t;

static void *part_run(void *arg)
{
    part_t *p = arg;
    const uint64_t *w = (const uint64_t *)(buf + p->lo), *s = (const uint64_t *)(shadow + p->lo);
    size_t n = (p->hi - p->lo) / 8;
    if (p->compare) {
        p->out = memcmp(w, s, n * 8) != 0;
        return NULL;
    }
    uint64_t h[4] = {1, 2, 3, 4}; /* four independent lanes of multiply-rotate, about what xxh3 does */
    for (size_t i = 0; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++)
            h[l] = ((h[l] ^ w[i + l]) * 0x9e3779b97f4a7c15u) << 31 | ((h[l] ^ w[i + l]) * 0x9e3779b97f4a7c15u) >> 33;
    p->out = h[0] ^ h[1] ^ h[2] ^ h[3];
    return NULL;
}

static double sweep(int threads, int compare)
{
    pthread_t t[64];
    part_t p[64];
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        p[i] = (part_t){bytes / threads * i, i == threads - 1 ? bytes : bytes / threads * (i + 1), 0, compare};
        pthread_create(&t[i], NULL, part_run, &p[i]);
    }
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    return (double)bytes / (now() - t0) / 1e9;
}

/* ---- write protection ---- */
static volatile size_t faults;

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    char *a = (char *)((uintptr_t)si->si_addr & ~(uintptr_t)(page - 1));
    if (a < buf || a >= buf + bytes) {
        signal(SIGSEGV, SIG_DFL);
        return;
    }
    mprotect(a, page, PROT_READ | PROT_WRITE); /* a real handler would also mark the range dirty */
    faults++;
}

static double touch_all(void)
{
    double t0 = now();
    for (size_t i = 0; i < bytes; i += page)
        buf[i]++;
    return now() - t0;
}

/* ---- soft-dirty bits ---- */
static int clear_refs(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd < 0)
        return -1;
    int ok = write(fd, "4", 1) == 1;
    close(fd);
    return ok ? 0 : -1;
}

/* Number of soft-dirty pages in buf, reading /proc/self/pagemap (bit 55 of each entry). */
static long soft_dirty_pages(void)
{
    int fd = open("/proc/self/pagemap", O_RDONLY);
    if (fd < 0)
        return -1;
    size_t n = bytes / page;
    uint64_t *e = malloc(n * 8);
    long dirty = -1;
    if (pread(fd, e, n * 8, (off_t)((uintptr_t)buf / page * 8)) == (ssize_t)(n * 8)) {
        dirty = 0;
        for (size_t i = 0; i < n; i++)
            dirty += (e[i] >> 55) & 1;
    }
    free(e);
    close(fd);
    return dirty;
}

/* userfaultfd's write-protect feature: "wp", "no-wp", or why userfaultfd is unavailable. */
static const char *uffd_wp(void)
{
    static char why[80];
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
    if (fd < 0) {
        snprintf(why, sizeof why, "no userfaultfd: %s", strerror(errno));
        return why;
    }
    struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP};
    const char *r = ioctl(fd, UFFDIO_API, &api) == 0 ? "wp" : "no-wp";
    close(fd);
    return r;
}

int main(int argc, char **argv)
{
    bytes = (size_t)(argc > 1 ? atol(argv[1]) : 1024) << 20;
    nthreads = argc > 2 ? atoi(argv[2]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = nthreads < 1 ? 1 : nthreads > 64 ? 64 : nthreads;
    page = (size_t)sysconf(_SC_PAGESIZE);
    buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    shadow = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED || shadow == MAP_FAILED)
        return perror("coherence: mmap"), 2;
    madvise(buf, bytes, MADV_NOHUGEPAGE); /* 4 KiB pages: the worst case for per-page mechanisms */
    memset(buf, 1, bytes);
    memset(shadow, 1, bytes);

    double hash1 = sweep(1, 0), hashn = sweep(nthreads, 0), cmpn = sweep(nthreads, 1);

    /* write protection: protect, take a fault on every page, against the same writes unprotected */
    double base = touch_all();
    struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO};
    sigaction(SIGSEGV, &sa, NULL);
    double t0 = now();
    mprotect(buf, bytes, PROT_READ);
    double protect = now() - t0;
    double faulting = touch_all();
    /* the kernel's own write into a protected buffer */
    mprotect(buf, bytes, PROT_READ);
    int fd = open("/proc/self/stat", O_RDONLY);
    ssize_t got = read(fd, buf, 64);
    int read_errno = got < 0 ? errno : 0;
    close(fd);
    mprotect(buf, bytes, PROT_READ | PROT_WRITE);

    /* soft-dirty: clear (process-wide), scan, write every page, scan */
    t0 = now();
    int sd = clear_refs();
    double clear = now() - t0;
    t0 = now();
    long before = sd ? -1 : soft_dirty_pages();
    double scan = now() - t0;
    double sd_touch = touch_all();
    long after = sd ? -1 : soft_dirty_pages();

    double pages = (double)(bytes / page);
    printf("{\"mib\": %zu, \"threads\": %d, \"page\": %zu, \"hash_gbps_1\": %.1f, \"hash_gbps_n\": %.1f, "
           "\"compare_gbps_n\": %.1f, \"mprotect_ms\": %.2f, \"wp_fault_us_per_page\": %.3f, "
           "\"plain_touch_us_per_page\": %.3f, \"read_into_protected\": \"%s\", \"soft_dirty\": \"%s\", "
           "\"clear_refs_ms\": %.2f, \"pagemap_scan_ms\": %.2f, \"sd_dirty_before\": %ld, \"sd_dirty_after\": %ld, "
           "\"sd_fault_us_per_page\": %.3f, \"userfaultfd\": \"%s\"}\n",
           bytes >> 20, nthreads, page, hash1, hashn, cmpn, protect * 1e3, (faulting - base) / pages * 1e6,
           base / pages * 1e6, read_errno ? strerror(read_errno) : "ok",
           sd ? "unavailable" : after >= (long)(pages * 0.99) && before < after ? "tracks writes" : "no effect",
           clear * 1e3,
           scan * 1e3, before, after, (sd_touch - base) / pages * 1e6, uffd_wp());
    return 0;
}

/* Write tracking with userfaultfd's asynchronous write protection and PAGEMAP_SCAN (wp.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"
#include "wp.h"

uintptr_t gs_page = 4096;

/* Protecting a large range walks every page-table entry: 5 ms per GiB in 4 KiB pages on the H200.  It is cut
 * into parts that helper threads protect together with the caller. */
#define GS_WP_PARTS 8
#define GS_WP_PARALLEL ((uintptr_t)64 << 20) /* smaller ranges are protected by the caller alone */

typedef struct {
    uintptr_t lo, hi;
    int rc;
    bool overflow; /* more written runs than vec holds: the whole part counts as written */
    long n;
    struct page_region vec[256];
} gs_wp_part_t;

static struct {
    int state; /* 0 untried, 1 ready, -1 unavailable */
    int uffd, pagemap;
    const char *why;
    struct page_region vec[512];
    /* the helpers: part i + 1 is theirs, part 0 the caller's */
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    int helpers, busy, nparts;
    uint64_t round;
    gs_wp_part_t part[GS_WP_PARTS];
} gs_wp = {.uffd = -1, .pagemap = -1, .lock = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER,
           .done = PTHREAD_COND_INITIALIZER};

static int gs_wp_fail(const char *why)
{
    gs_wp.why = why;
    gs_wp.state = -1;
    if (gs_wp.uffd >= 0)
        close(gs_wp.uffd);
    if (gs_wp.pagemap >= 0)
        close(gs_wp.pagemap);
    gs_wp.uffd = gs_wp.pagemap = -1;
    return GS_ENODEV;
}

/* One PAGEMAP_SCAN of [lo, hi); the number of regions it filled, or -1. */
static long gs_wp_scan(struct pm_scan_arg *s, uintptr_t lo, uintptr_t hi, size_t vec_len)
{
    s->size = sizeof *s;
    s->start = lo;
    s->end = hi;
    s->vec = (uintptr_t)gs_wp.vec;
    s->vec_len = vec_len;
    return ioctl(gs_wp.pagemap, PAGEMAP_SCAN, s);
}

/* Protects the written pages of part p, keeping the runs it reports. */
static void gs_wp_protect_part(gs_wp_part_t *p)
{
    uintptr_t lo = p->lo;
    p->n = 0;
    p->overflow = false;
    p->rc = GS_OK;
    while (lo < p->hi) {
        size_t room = sizeof p->vec / sizeof p->vec[0] - (size_t)p->n;
        struct page_region spare[16];
        struct pm_scan_arg s = {.size = sizeof s, .flags = PM_SCAN_WP_MATCHING, .start = lo, .end = p->hi,
                                .vec = (uintptr_t)(room ? p->vec + p->n : spare), .vec_len = room ? room : 16,
                                .category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN};
        long n = ioctl(gs_wp.pagemap, PAGEMAP_SCAN, &s);
        if (n < 0 || s.walk_end <= lo) {
            p->rc = GS_EINVAL;
            return;
        }
        if (room)
            p->n += n;
        else
            p->overflow |= n > 0;
        lo = s.walk_end;
    }
}

static void *gs_wp_helper(void *arg)
{
    int i = (int)(intptr_t)arg;
    uint64_t seen = 0;
    pthread_mutex_lock(&gs_wp.lock);
    for (;;) {
        while (gs_wp.round == seen)
            pthread_cond_wait(&gs_wp.go, &gs_wp.lock);
        seen = gs_wp.round;
        if (i >= gs_wp.nparts)
            continue;
        pthread_mutex_unlock(&gs_wp.lock);
        gs_wp_protect_part(&gs_wp.part[i]);
        pthread_mutex_lock(&gs_wp.lock);
        if (--gs_wp.busy == 0)
            pthread_cond_signal(&gs_wp.done);
    }
    return NULL;
}

/* Starts the helpers once; false when none could be had (then the caller protects alone). */
static bool gs_wp_helpers(void)
{
    if (gs_wp.helpers == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        int want = cpus / 2 < GS_WP_PARTS - 1 ? (int)(cpus / 2) : GS_WP_PARTS - 1;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&a, 64 << 10);
        pthread_t t;
        while (gs_wp.helpers < want && pthread_create(&t, &a, gs_wp_helper, (void *)(intptr_t)(gs_wp.helpers + 1)) == 0)
            gs_wp.helpers++;
        pthread_attr_destroy(&a);
        if (gs_wp.helpers == 0)
            gs_wp.helpers = -1;
    }
    return gs_wp.helpers > 0;
}

int gs_wp_ready(const char **why)
{
    if (gs_wp.state == 0) {
        gs_page = (uintptr_t)sysconf(_SC_PAGESIZE);
        /* User-mode-only needs no privilege; asynchronous protection never hands a fault to user space, so
         * the kernel's own writes go through all the same. */
        gs_wp.uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
        if (gs_wp.uffd < 0 && errno == EINVAL)
            gs_wp.uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
        struct uffdio_api api = {.api = UFFD_API, .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP | UFFD_FEATURE_WP_ASYNC};
        struct pm_scan_arg s = {0};
        if (gs_wp.uffd < 0)
            gs_wp_fail(errno == EPERM ? "userfaultfd is not permitted here" : "the kernel has no userfaultfd");
        else if (ioctl(gs_wp.uffd, UFFDIO_API, &api) || !(api.features & UFFD_FEATURE_WP_ASYNC))
            gs_wp_fail("the kernel has no asynchronous write protection (Linux 6.7 or later has)");
        else if ((gs_wp.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
            gs_wp_fail("cannot open /proc/self/pagemap");
        else if (gs_wp_scan(&s, gs_page_down((uintptr_t)&gs_wp), gs_page_down((uintptr_t)&gs_wp) + gs_page, 1) < 0)
            gs_wp_fail("the kernel has no PAGEMAP_SCAN (Linux 6.7 or later has)");
        else
            gs_wp.state = 1;
        if (gs_wp.state > 0) /* now, not under the cache's lock, where a hooked free could wait for it */
            gs_wp_helpers();
    }
    *why = gs_wp.why;
    return gs_wp.state > 0 ? GS_OK : GS_ENODEV;
}

int gs_wp_register(uintptr_t lo, uintptr_t hi)
{
    struct uffdio_register r = {.range = {lo, hi - lo}, .mode = UFFDIO_REGISTER_MODE_WP};
    return ioctl(gs_wp.uffd, UFFDIO_REGISTER, &r) == 0 ? GS_OK : GS_EINVAL;
}

int gs_wp_protect(uintptr_t lo, uintptr_t hi, void (*written)(uintptr_t, uintptr_t, void *), void *arg)
{
    int parts = hi - lo >= GS_WP_PARALLEL && gs_wp_helpers() ? gs_wp.helpers + 1 : 1;
    /* parts end on 2 MiB boundaries, so that no huge page is split between two of them */
    uintptr_t huge = (uintptr_t)2 << 20, at = lo;
    for (int i = 0; i < parts; i++) {
        uintptr_t end = i == parts - 1 ? hi : (lo + (hi - lo) / (uintptr_t)parts * (uintptr_t)(i + 1) + huge - 1) & ~(huge - 1);
        gs_wp.part[i].lo = at;
        gs_wp.part[i].hi = at = end < hi ? (end > at ? end : at) : hi;
    }
    if (parts > 1) {
        pthread_mutex_lock(&gs_wp.lock);
        gs_wp.nparts = parts;
        gs_wp.busy = parts - 1;
        gs_wp.round++;
        pthread_cond_broadcast(&gs_wp.go);
        pthread_mutex_unlock(&gs_wp.lock);
    }
    gs_wp_protect_part(&gs_wp.part[0]);
    if (parts > 1) {
        pthread_mutex_lock(&gs_wp.lock);
        while (gs_wp.busy > 0)
            pthread_cond_wait(&gs_wp.done, &gs_wp.lock);
        pthread_mutex_unlock(&gs_wp.lock);
    }
    int rc = GS_OK;
    for (int i = 0; i < parts; i++) {
        gs_wp_part_t *p = &gs_wp.part[i];
        rc = p->rc != GS_OK ? p->rc : rc;
        if (p->overflow)
            written(p->lo, p->hi, arg);
        for (long j = 0; j < p->n && !p->overflow; j++)
            written(p->vec[j].start, p->vec[j].end, arg);
    }
    return rc;
}

void gs_wp_unprotect(uintptr_t lo, uintptr_t hi)
{
    struct uffdio_writeprotect w = {.range = {lo, hi - lo}, .mode = 0};
    (void)ioctl(gs_wp.uffd, UFFDIO_WRITEPROTECT, &w);
}

bool gs_wp_clean(uintptr_t lo, uintptr_t hi)
{
    /* A page is bad when it is not tracked, not present (unmapped by MADV_DONTNEED, say), written, or backed
     * by a file or shared memory: the first two are inverted so that any one of the four matches. */
    struct pm_scan_arg s = {.max_pages = 1, .category_inverted = PAGE_IS_WPALLOWED | PAGE_IS_PRESENT,
                            .category_anyof_mask = PAGE_IS_WPALLOWED | PAGE_IS_PRESENT | PAGE_IS_WRITTEN |
                                                   PAGE_IS_FILE,
                            .return_mask = PAGE_IS_WPALLOWED | PAGE_IS_PRESENT | PAGE_IS_WRITTEN | PAGE_IS_FILE};
    return gs_wp_scan(&s, lo, hi, 1) == 0 && s.walk_end >= hi;
}

void gs_wp_atfork_child(void)
{
    /* The inherited descriptors speak for the parent's address space; a child that never inherited any may open
     * its own. */
    pthread_mutex_init(&gs_wp.lock, NULL);
    gs_wp.helpers = 0;
    if (gs_wp.state > 0)
        gs_wp_fail("no write tracking in a forked child");
}

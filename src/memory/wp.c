/* Write tracking with userfaultfd's asynchronous write protection and PAGEMAP_SCAN (wp.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memory/uapi.h"
#include "memory/wp.h"

uintptr_t gs_page = 4096;

static struct {
    int state; /* 0 untried, 1 ready, -1 unavailable */
    int uffd, pagemap;
    const char *why;
    struct page_region vec[512];
} gs_wp = {.uffd = -1, .pagemap = -1};

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
    while (lo < hi) {
        struct pm_scan_arg s = {.flags = PM_SCAN_WP_MATCHING, .category_mask = PAGE_IS_WRITTEN,
                                .return_mask = PAGE_IS_WRITTEN};
        long n = gs_wp_scan(&s, lo, hi, sizeof gs_wp.vec / sizeof gs_wp.vec[0]);
        if (n < 0 || s.walk_end <= lo)
            return GS_EINVAL;
        for (long i = 0; i < n; i++)
            written(gs_wp.vec[i].start, gs_wp.vec[i].end, arg);
        lo = s.walk_end;
    }
    return GS_OK;
}

void gs_wp_unprotect(uintptr_t lo, uintptr_t hi)
{
    struct uffdio_writeprotect w = {.range = {lo, hi - lo}, .mode = 0};
    (void)ioctl(gs_wp.uffd, UFFDIO_WRITEPROTECT, &w);
}

bool gs_wp_clean(uintptr_t lo, uintptr_t hi, bool full)
{
    /* The kernel's fast path: pages not protected now (written, or never protected, or unmapped by
     * MADV_DONTNEED) are "written"; a range not all registered for asynchronous protection (a new mapping)
     * aborts the scan. */
    struct pm_scan_arg s = {.flags = PM_SCAN_CHECK_WPASYNC, .max_pages = 1, .category_mask = PAGE_IS_WRITTEN,
                            .return_mask = PAGE_IS_WRITTEN};
    if (gs_wp_scan(&s, lo, hi, 1) != 0 || s.walk_end < hi)
        return false;
    if (!full)
        return true;
    /* Pages backed by a file or shared memory, which another process can write through its own page tables,
     * are a property of the mapping, which only a remapping changes (and the scan above then sees). */
    s = (struct pm_scan_arg){.max_pages = 1, .category_mask = PAGE_IS_FILE, .return_mask = PAGE_IS_FILE};
    return gs_wp_scan(&s, lo, hi, 1) == 0 && s.walk_end >= hi;
}

/* In a forked child: a child whose parent tracked writes never does (the descriptors speak for the parent). */
static void gs_wp_atfork_child(void)
{
    /* The inherited descriptors speak for the parent's address space; a child that never inherited any may open
     * its own. */
    if (gs_wp.state > 0)
        gs_wp_fail("no write tracking in a forked child");
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_wp_atfork_child);

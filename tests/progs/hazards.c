/* The hazards of the residency cache (src/memory/cache.c): every way host memory behind a cached device copy can
 * change, each followed by a product that must see the change.  A is 2 MiB and C 1 MiB, large enough to be
 * cached; each step writes C (or y) to the results file, which blas_cmp compares with a run without the shim.
 * Steps that reuse an unchanged A show as cache hits in the offload log (tests/t_cache.sh counts them).
 *   writes from C code, from another thread, by the kernel (read, pread, readv, recv), after fork in the
 *   parent and the child, with a SIGSEGV handler installed before and after the cache is in use, and into
 *   memory shared with another process (a MAP_SHARED file and POSIX shared memory), written by that process;
 *   the output of one product used as the input of the next (C = A B, then D = C E); writes beside a matrix on
 *   the pages it shares with other memory, and to its own bytes there.
 * usage: hazards FILE (the forked child writes FILE.child) */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "results.h"

void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *, const double *,
            const int *, const double *, double *, const int *, size_t);

enum { M = 1 << 15, K = 8, N = 4 }; /* A: M x K (2 MiB), B: K x N, C: M x N (1 MiB) */
static const size_t ABYTES = sizeof(double) * M * K;

static FILE *out;
static double b[K * N], c[M * N], x[K], y[M];

static void product(const char *label, const double *a)
{
    int m = M, n = N, k = K;
    double one = 1, zero = 0;
    dgemm_("N", "N", &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m, 1, 1);
    result_write(out, label, 1, c, M * N);
}

static void matvec(const char *label, const double *a)
{
    int m = M, n = K, inc = 1;
    double one = 1, zero = 0;
    dgemv_("N", &m, &n, &one, a, &m, x, &inc, &zero, y, &inc, 1);
    result_write(out, label, 1, y, M);
}

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static void *thread_write(void *a)
{
    ((double *)a)[M * K / 2] = 42;
    return NULL;
}

/* A real fault, caught by the program's own handler, which jumps back. */
static sigjmp_buf jump;
static volatile int caught;
static void on_segv(int sig)
{
    (void)sig;
    caught++;
    siglongjmp(jump, 1);
}

static void segfault_caught(const char *when)
{
    struct sigaction sa = {.sa_handler = on_segv};
    sigaction(SIGSEGV, &sa, NULL);
    char *guard = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int before = caught;
    if (!sigsetjmp(jump, 1))
        guard[0] = 1;
    if (caught != before + 1) {
        fprintf(stderr, "hazards: the program's SIGSEGV handler did not run (%s)\n", when);
        exit(1);
    }
    munmap(guard, 4096);
}

/* Fills the shared memory at addr through a separate process's own mapping of fd. */
static void other_process_writes(int fd, unsigned seed)
{
    pid_t pid = fork();
    if (pid == 0) {
        double *w = mmap(NULL, ABYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (w == MAP_FAILED)
            _exit(2);
        fill(w, M * K, seed);
        _exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        die("hazards: writer process");
}

static void shared(const char *label, int fd)
{
    if (ftruncate(fd, (off_t)ABYTES))
        die("hazards: ftruncate");
    double *s = mmap(NULL, ABYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s == MAP_FAILED)
        die("hazards: mmap shared");
    char l[100];
    fill(s, M * K, 20);
    snprintf(l, sizeof l, "%s: filled here", label);
    product(l, s);
    snprintf(l, sizeof l, "%s: used again", label);
    product(l, s);
    other_process_writes(fd, 21);
    snprintf(l, sizeof l, "%s: written by another process", label);
    product(l, s);
    munmap(s, ABYTES);
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !(out = fopen(argv[1], "wb"))) {
        fprintf(stderr, "usage: hazards FILE\n");
        return 2;
    }
    segfault_caught("installed before the first call");
    double *a = malloc(ABYTES), *e = malloc(sizeof(double) * N * N), *d = malloc(sizeof(double) * M * N);
    fill(a, M * K, 1);
    fill(b, K * N, 2);
    fill(x, K, 3);
    fill(e, N * N, 4);
    for (int i = 0; i < 3; i++)
        product("used again", a);
    matvec("gemv, A resident", a);

    a[3] += 1;
    product("written by C code", a);
    product("written by C code, used again", a);
    pthread_t t;
    if (pthread_create(&t, NULL, thread_write, a) || pthread_join(t, NULL))
        die("hazards: thread");
    product("written by another thread", a);
    matvec("gemv after another thread wrote", a);

    /* The kernel writes: read(2), pread(2), readv(2) from a file, recv(2) from a socket. */
    char path[] = "/tmp/gpushim-hazards-XXXXXX";
    int fd = mkstemp(path);
    double *src = malloc(ABYTES);
    fill(src, M * K, 5);
    if (fd < 0 || write(fd, src, ABYTES) != (ssize_t)ABYTES)
        die("hazards: temporary file");
    unlink(path);
    if (pread(fd, a + 1000, 4096, 0) != 4096)
        die("hazards: pread");
    product("pread into it", a);
    if (lseek(fd, 8192, SEEK_SET) < 0 || read(fd, a, ABYTES / 2) != (ssize_t)(ABYTES / 2))
        die("hazards: read");
    product("read into it", a);
    struct iovec iov[2] = {{a + 5, 64}, {a + M * K - 100, 512}};
    if (lseek(fd, 0, SEEK_SET) < 0 || readv(fd, iov, 2) != 576)
        die("hazards: readv");
    product("readv into it", a);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || write(sv[0], src + 7, 3000) != 3000 ||
        recv(sv[1], a + 20000, 3000, MSG_WAITALL) != 3000)
        die("hazards: socket");
    product("recv into it", a);
    close(sv[0]), close(sv[1]), close(fd);

    /* fork: the child must not use the parent's device copies; both go on computing. */
    product("before fork", a);
    fflush(out);
    pid_t pid = fork();
    if (pid == 0) {
        char cpath[1100];
        snprintf(cpath, sizeof cpath, "%s.child", argv[1]);
        out = fopen(cpath, "wb");
        product("child, as inherited", a);
        a[100] = -1;
        product("child, written", a);
        fclose(out);
        _exit(0);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        die("hazards: child");
    product("parent, after the child wrote its copy", a);
    a[200] = 7;
    product("parent, written after fork", a);

    segfault_caught("installed while the cache is in use");
    product("after the program's own SIGSEGV handler ran", a);
    a[300] = 9;
    product("written after the program's own SIGSEGV handler ran", a);

    /* Results used as inputs: C = A B stays on the device, and D = C E finds it there. */
    product("chain: C = A B", a);
    int m = M, n = N;
    double one = 1, zero = 0;
    dgemm_("N", "N", &m, &n, &n, &one, c, &m, e, &n, &zero, d, &m, 1, 1);
    result_write(out, "chain: D = C E", 1, d, M * N);
    c[5] = 3;
    dgemm_("N", "N", &m, &n, &n, &one, c, &m, e, &n, &zero, d, &m, 1, 1);
    result_write(out, "chain: D = C E after C was written", 1, d, M * N);

    /* A matrix sharing its first and last page with other memory, as arrays on the heap do: writes beside it
     * leave it on the device; writes to its own bytes on those pages do not. */
    size_t pad = 100;
    char *room = mmap(NULL, ABYTES + 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (room == MAP_FAILED)
        die("hazards: mmap");
    double *s = (double *)(room + pad);
    fill(s, M * K, 6);
    for (int i = 0; i < 3; i++)
        product("edges: used again", s);
    memset(room, 1, pad);
    memset(room + pad + ABYTES, 2, 64);
    product("edges: written beside it", s);
    s[0] = 5;
    product("edges: its first element written", s);
    product("edges: used again after", s);
    s[M * K - 1] = 5;
    product("edges: its last element written", s);
    munmap(room, ABYTES + 2 * 4096);

    /* Memory another process writes. */
    char fpath[] = "/tmp/gpushim-shared-XXXXXX";
    int ffd = mkstemp(fpath);
    if (ffd < 0)
        die("hazards: shared file");
    unlink(fpath);
    shared("MAP_SHARED file", ffd);
    char shm[64];
    snprintf(shm, sizeof shm, "/gpushim-hazards-%d", (int)getpid());
    int sfd = shm_open(shm, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (sfd < 0)
        die("hazards: shm_open");
    shm_unlink(shm);
    shared("POSIX shared memory", sfd);

    free(a), free(src), free(e), free(d);
    fclose(out);
    return 0;
}

/* Preloaded just before the ThreadSanitizer build of gpushim (tests/t_races.sh).  Before TSan has set up a thread
 * (the main thread: while TSan starts from the instrumented program's preinit array; any other: while TSan's
 * start of the thread runs, before the thread's own function), TSan and the C library call free, realloc, mmap
 * and __register_atfork, which reach gpushim's interposed definitions first; their instrumentation crashes on a
 * thread TSan has not set up; so does dlsym, which TSan's start calls to find what it intercepts.  On such a
 * thread each of gpushim's interposed C library functions goes where the process would send it without gpushim:
 * TSan's interceptor, or the C library where TSan has none (tests/t_races.sh checks that none is missed).  A thread
 * counts as set up from this library's constructor on (the main thread: preinit arrays run before any
 * constructor) or from the start of its own function (pthread_create, below), and no longer once that function
 * has returned (TSan finishes the thread in a key destructor, in no set order with the others). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/types.h>

/* gpushim's interposers of the C library (src/core/gs_table.h: GS_MEMORY_HOOKS, GS_EXIT_HOOKS), but dlsym. */
#define HOOKS(X) \
    X(free) X(realloc) X(reallocarray) X(munmap) X(mremap) X(madvise) X(mmap) X(mmap64) X(__cxa_atexit) \
    X(__register_atfork)

/* The C library's registrations of exit and fork handlers, which no header declares. */
int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso);

/* TSan's own definitions (libtsan.so.2 exports each interceptor under this name too). */
void __interceptor_free(void *p);
void *__interceptor_realloc(void *p, size_t n);
void *__interceptor_reallocarray(void *p, size_t n, size_t size);
int __interceptor_munmap(void *p, size_t n);
void *__interceptor_mmap(void *p, size_t n, int prot, int flags, int fd, off_t off);
void *__interceptor_mmap64(void *p, size_t n, int prot, int flags, int fd, off64_t off);
int __interceptor___cxa_atexit(void (*fn)(void *), void *arg, void *dso);

/* The next definitions, resolved once (resolve, below). */
#define SLOT(f) static __typeof__(&f) next_##f;
HOOKS(SLOT)
#undef SLOT
static __typeof__(&pthread_create) next_pthread_create;
static _Atomic(void *) next_dlsym, libc_dlsym;
/* Whether TSan has set up this thread. */
static _Thread_local int thread_up __attribute__((tls_model("initial-exec")));

static int up(void)
{
    return thread_up;
}

/* The C library's own definition of f at version v: dlvsym asks for the version exactly, which skips
 * gpushim's unversioned definition. */
#define LIBC(f, v) ((__typeof__(&f))dlvsym(RTLD_NEXT, #f, v))

void free(void *p)
{
    up() ? next_free(p) : __interceptor_free(p);
}

void *realloc(void *p, size_t n)
{
    return up() ? next_realloc(p, n) : __interceptor_realloc(p, n);
}

void *reallocarray(void *p, size_t n, size_t size)
{
    return up() ? next_reallocarray(p, n, size) : __interceptor_reallocarray(p, n, size);
}

int munmap(void *p, size_t n)
{
    return up() ? next_munmap(p, n) : __interceptor_munmap(p, n);
}

void *mremap(void *p, size_t old, size_t n, int flags, ...)
{
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        to = va_arg(ap, void *);
        va_end(ap);
    }
    return (up() ? next_mremap : LIBC(mremap, "GLIBC_2.2.5"))(p, old, n, flags, to);
}

int madvise(void *p, size_t n, int advice)
{
    return (up() ? next_madvise : LIBC(madvise, "GLIBC_2.2.5"))(p, n, advice);
}

void *mmap(void *p, size_t n, int prot, int flags, int fd, off_t off)
{
    return up() ? next_mmap(p, n, prot, flags, fd, off) : __interceptor_mmap(p, n, prot, flags, fd, off);
}

void *mmap64(void *p, size_t n, int prot, int flags, int fd, off64_t off)
{
    return up() ? next_mmap64(p, n, prot, flags, fd, off) : __interceptor_mmap64(p, n, prot, flags, fd, off);
}

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso)
{
    return up() ? next___cxa_atexit(fn, arg, dso) : __interceptor___cxa_atexit(fn, arg, dso);
}

int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void *dso)
{
    return (up() ? next___register_atfork : LIBC(__register_atfork, "GLIBC_2.3.2"))(prepare, parent, child, dso);
}

/* Where dlsym goes on this thread (the assembly below jumps there with dlsym's arguments, so that the callee
 * sees its caller's return address, which gives RTLD_NEXT its meaning): gpushim's once TSan has set the thread
 * up, the C library's before (asked for by version, which skips gpushim's unversioned definition). */
__attribute__((used, visibility("hidden"))) void *guard_dlsym_target(void)
{
    void *f = atomic_load(&next_dlsym);
    if (thread_up && f)
        return f;
    if (!(f = atomic_load(&libc_dlsym)) && !(f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34")))
        f = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    atomic_store(&libc_dlsym, f);
    return f;
}

__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    endbr64\n"
        "    push %rdi\n"
        "    push %rsi\n"
        "    sub $8, %rsp\n" /* the stack aligned to 16 bytes for the call */
        "    call guard_dlsym_target\n"
        "    add $8, %rsp\n"
        "    pop %rsi\n"
        "    pop %rdi\n"
        "    jmp *%rax\n"
        ".size dlsym, .-dlsym\n");

/* The next definitions, gpushim's (and TSan's pthread_create): dlsym, here on a thread not yet up, is the C
 * library's, and its own frees meanwhile go to TSan. */
static void resolve(void)
{
#define RESOLVE(f) next_##f = (__typeof__(&f))dlsym(RTLD_NEXT, #f);
    HOOKS(RESOLVE)
    RESOLVE(pthread_create)
#undef RESOLVE
    atomic_store(&next_dlsym, dlsym(RTLD_NEXT, "dlsym"));
}
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

typedef struct {
    void *(*fn)(void *);
    void *arg;
} start_t;

/* The thread's own function, which TSan's start of the thread calls once it has set the thread up. */
static void *started(void *p)
{
    start_t s = *(start_t *)p;
    __interceptor_free(p);
    thread_up = 1;
    void *r = s.fn(s.arg);
    thread_up = 0;
    return r;
}

/* (Another library's constructor may start a thread before this library's constructor has run.) */
int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    pthread_once(&resolved, resolve);
    start_t *s = malloc(sizeof *s);
    if (!s)
        return EAGAIN;
    s->fn = fn, s->arg = arg;
    int rc = next_pthread_create(t, attr, started, s);
    if (rc != 0)
        __interceptor_free(s);
    return rc;
}

__attribute__((constructor)) static void guard_up(void)
{
    pthread_once(&resolved, resolve);
    thread_up = 1;
}

/* BLAS in a parent, a forked child and a forked grandchild.  A forked child must not touch the parent's CUDA
 * state (the stand-in reports any CUDA call from a process other than the one that started using it), and
 * every process must keep computing the right results.  Usage: fork PREFIX [--fork-first]  (writes
 * PREFIX.parent, PREFIX.child, PREFIX.grandchild); with --fork-first the parent makes no BLAS call before it
 * forks, so the child is the first process to call. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"
#include "results.h"

static int work(const char *prefix, const char *role, unsigned seed)
{
    static double c[128 * 128];
    char path[512];
    square_dgemm(128, seed, c);
    snprintf(path, sizeof path, "%s.%s", prefix, role);
    FILE *f = fopen(path, "wb");
    if (!f)
        return 1;
    result_write(f, role, 1, c, 128 * 128);
    return fclose(f) != 0;
}

static int wait_ok(pid_t pid)
{
    int st;
    return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int fork_first = argc > 2 && strcmp(argv[2], "--fork-first") == 0;
    int rc = fork_first ? 0 : work(argv[1], "parent", 1);
    pid_t child = fork();
    if (child == 0) {
        int crc = work(argv[1], "child", 2);
        pid_t grandchild = fork();
        if (grandchild == 0)
            _exit(work(argv[1], "grandchild", 3));
        crc |= !wait_ok(grandchild);
        crc |= work(argv[1], "child", 2);
        _exit(crc);
    }
    rc |= !wait_ok(child);
    rc |= work(argv[1], "parent", 1); /* the parent still computes right after its child ran */
    return rc;
}

/* Runs of like calls for the offload log (tests/t_log.sh): small copies that stay on the CPU, made in runs of
 * like calls, alternating with unlike ones, on threads that exit, and before a fork whose child makes like
 * calls and ends with _exit.  Each
 * phase has its own size, so that the log's records tell the phases apart.  Usage: runs */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

void dcopy_(const int *, const double *, const int *, double *, const int *);
void scopy_(const int *, const float *, const int *, float *, const int *);

static double x[128], y[128];
static float sx[128], sy[128];
static const int one = 1;

static void copies(int n, int times)
{
    for (int i = 0; i < times; i++)
        dcopy_(&n, x, &one, y, &one);
}

static void *thread(void *arg)
{
    (void)arg;
    copies(70, 25);
    return NULL;
}

int main(void)
{
    copies(64, 100); /* one run: two records */
    int n = 65;
    for (int i = 0; i < 10; i++) { /* unlike neighbours: a record each */
        dcopy_(&n, x, &one, y, &one);
        scopy_(&n, sx, &one, sy, &one);
    }
    for (int i = 0; i < 30; i++) /* sizes that change: a record each */
        copies(32 + i % 2, 1);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    copies(80, 50); /* a run the child of the fork must not write */
    pid_t p = fork();
    if (p == 0) { /* a child that ends as Python's multiprocessing's do: a record a call, none lost */
        copies(90, 3);
        _exit(0);
    }
    waitpid(p, NULL, 0);
    copies(64, 1); /* another site: the parent's run is written now */
    return 0;
}

/* The team of loop threads (core/team.c): every index of every loop runs exactly once, and before
 * gs_team_run returns; loops of different sizes alternate, on more threads than cores, so that a worker
 * holding the word of a loop that has ended meets the publishing of the next. */
#include <stdatomic.h>

#include "core/team.h"
#include "unit.h"

#define TEAM_MAX_N 4096

typedef struct {
    atomic_int hits[TEAM_MAX_N];
    atomic_bool open; /* false once gs_team_run has returned */
} team_job_t;

static atomic_int team_late; /* pieces that ran for a loop whose gs_team_run had returned */

static void team_piece(void *arg, int64_t lo, int64_t hi)
{
    team_job_t *j = arg;
    if (!atomic_load(&j->open))
        atomic_fetch_add(&team_late, 1);
    for (int64_t i = lo; i < hi; i++)
        atomic_fetch_add_explicit(&j->hits[i], 1, memory_order_relaxed);
    if (lo % 3 == 0) /* pieces of uneven length, so that threads fall out of step */
        for (volatile int k = 0; k < 200; k++)
            ;
}

START_TEST(test_team_loops)
{
    gs.opt.copy_threads = 8;
    static team_job_t jobs[2];
    int64_t sizes[2] = {TEAM_MAX_N, 1100}; /* 16 pieces and 5 of 256 at most */
    long wrong = 0, loops = 0;
    for (int it = 0; it < 20000; it++) {
        team_job_t *j = &jobs[it % 2];
        int64_t n = sizes[it % 2];
        for (int64_t i = 0; i < n; i++)
            atomic_store_explicit(&j->hits[i], 0, memory_order_relaxed);
        atomic_store(&j->open, true);
        int pieces = gs_team_run(team_piece, j, n, 256);
        atomic_store(&j->open, false);
        if (!pieces)
            continue;
        loops++;
        for (int64_t i = 0; i < n; i++)
            wrong += atomic_load_explicit(&j->hits[i], memory_order_relaxed) != 1;
    }
    ck_assert_int_gt(loops, 10000);
    ck_assert_int_eq(wrong, 0);
    ck_assert_int_eq(atomic_load(&team_late), 0);
}
END_TEST

TCase *gs_test_team(void)
{
    TCase *tc = tcase_create("team");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_team_loops);
    return tc;
}

/* Check unit tests of the cost model's history (src/core/history.c): the median of the last calls' ratios,
 * the first call of a kind not counted, the clamp, a side forgotten once the other ran long enough, a call
 * whose GPU answer was refused, and the model's use of it. */
#include <check.h>

#include "core/gs.h"
#include "unit.h"

/* Notes a call of the kinds (kcpu, kgpu) that ran on side where, predicted at model seconds, taking k times that. */
static void note(gs_where_t where, uint64_t kcpu, uint64_t kgpu, double model, double k)
{
    gs_call_t c = {.where = (uint8_t)where, .hkey = {kcpu, kgpu}};
    c.model[where] = (float)model;
    c.t_pred = gs_now_ns() - (uint64_t)(k * model * 1e9);
    gs_history_note(&c);
}

START_TEST(test_history)
{
    const uint64_t kc = 1 << 22 | 7, kg = 2 << 22 | 7; /* kinds no other test uses */
    ck_assert_double_eq(gs_history_factor(kc, 3, NULL), 1);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 5); /* the first: not counted */
    ck_assert_double_eq(gs_history_factor(kc, 3, NULL), 1);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 2);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 3);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    int n = 0;
    ck_assert_double_eq_tol(gs_history_factor(kc, 3, &n), 3, 0.05); /* median of 2, 3, 4 */
    ck_assert_int_eq(n, 3);
    ck_assert_double_eq_tol(gs_history_factor(kc, 2, &n), sqrt(12), 0.05); /* of 4 and 3: their geometric mean */
    ck_assert_int_eq(n, 2);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 100);                            /* counts as 16 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 3, NULL), 4, 0.05); /* median of 3, 4, 16 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 1, NULL), 16, 0.05);
    /* the GPU side: its first call not counted, its second is; one that registers memory (model < 0) not */
    note(GS_WHERE_GPU, kc, kg, 1e-3, 0.5);
    note(GS_WHERE_GPU, kc, kg, 1e-3, 2);
    gs_call_t reg = {.where = GS_WHERE_GPU, .hkey = {kc, kg}, .model = {1e-3f, -1.0f}, .t_pred = 1};
    gs_history_note(&reg);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, NULL), 2, 0.05);
    /* 7 calls on the CPU since: the GPU's ratio stands; the 8th forgets it, and the rates decide again */
    for (int i = 0; i < 7; i++)
        note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, NULL), 2, 0.05);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    ck_assert_double_eq(gs_history_factor(kg, 3, NULL), 1);
    /* the side's next call counts at once: the kind was warm */
    note(GS_WHERE_GPU, kc, kg, 1e-3, 3);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, NULL), 3, 0.05);
    /* forgotten once, the side now waits 16 calls of the other side; then 32 */
    for (int wait = 16; wait <= 32; wait *= 2) {
        for (int i = 0; i < wait - 1; i++)
            note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
        ck_assert_double_eq_tol(gs_history_factor(kg, 3, NULL), 3, 0.05);
        note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
        ck_assert_double_eq(gs_history_factor(kg, 3, NULL), 1);
        note(GS_WHERE_GPU, kc, kg, 1e-3, 3);
    }
}
END_TEST

/* A call whose GPU answer was refused (GS_EEXACT): its whole time on the GPU's side, past the clamp, and the CPU
 * library's redo on the CPU's, which does not count against the GPU's side as a call made there. */
START_TEST(test_history_refused)
{
    const uint64_t kc = 1 << 22 | 9, kg = 2 << 22 | 9;
    uint64_t now = gs_now_ns();
    for (int i = 0; i < 3; i++) { /* the first warms each side up */
        gs_call_t c = {.where = GS_WHERE_CPU, .refused = true, .hkey = {kc, kg}, .model = {1e-3f, 1e-4f},
                       .t_pred = now - 5000000, .t_redo = now - 2000000}; /* 5 ms in all, the redo 2 */
        gs_history_note(&c);
    }
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, NULL), 50, 1); /* 5 ms against 0.1: not clamped at 16 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 3, NULL), 2, 0.1);
    /* a refused call that waited for the bring-up leaves the GPU's side alone, not the CPU's */
    gs_call_t w = {.where = GS_WHERE_CPU, .refused = true, .hkey = {kc, kg}, .model = {1e-3f, 1e-4f},
                   .pred_wait = 0.5f, .t_pred = now - 5000000, .t_redo = now - 4000000};
    gs_history_note(&w);
    int n = 0;
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, &n), 50, 1);
    ck_assert_int_eq(n, 2);
    ck_assert_double_eq_tol(gs_history_factor(kc, 3, &n), 2, 0.3); /* median of 2, 2, 4 */
    ck_assert_int_eq(n, 3);
    /* 8 redos are no calls on the CPU's side against the GPU's: its ratios stand */
    for (int i = 0; i < 8; i++) {
        gs_call_t c = {.where = GS_WHERE_CPU, .refused = true, .hkey = {kc, kg}, .model = {1e-3f, 1e-4f},
                       .pred_wait = 0.5f, .t_pred = now, .t_redo = now};
        gs_history_note(&c);
    }
    ck_assert_double_eq_tol(gs_history_factor(kg, 3, &n), 50, 1);
}
END_TEST

/* The model with history=3: both predictions scaled; the decision takes each side's factor below 1, or above it
 * once a window of 3 calls measured it. */
START_TEST(test_history_model)
{
    gs_rules[GS_R_DGEMM] = (gs_rule_t){.cpu_gflops = 500, .gpu_gflops = 50000, .link_gbps = 50, .latency_us = 100,
                                       .history = 3};
    gs_traffic_t fast = {.staged = 2e6}, slow = {.staged = 1.5e8}; /* GPU 0.14 ms or 3.1 ms; CPU 2 ms */
    gs_call_t c = {.routine = GS_R_DGEMM, .flops = 1e9, .why = "above threshold"};
    ck_assert_int_eq(gs_policy_model(&c, &fast, 0, 0), GS_WHERE_GPU);
    for (int i = 0; i < 2; i++) /* the first not counted */
        note(GS_WHERE_GPU, c.hkey[GS_WHERE_CPU], c.hkey[GS_WHERE_GPU], c.model[GS_WHERE_GPU], 20);
    /* predicted at 16 times (the clamp): 2.24 ms, above the CPU's 2; decided at 0.14 */
    ck_assert_int_eq(gs_policy_model(&c, &fast, 0, 0), GS_WHERE_GPU);
    ck_assert_double_eq_tol(c.pred_gpu * 1e3, 2.24, 0.05);
    ck_assert_double_eq_tol(c.pred_cpu * 1e3, 2, 1e-3);
    ck_assert_int_eq(gs_policy_model(&c, &slow, 0, 0), GS_WHERE_CPU);
    /* the CPU's factor above 1 counts once a window of 3 calls measured it (the first not counted) */
    for (int i = 0; i < 3; i++) {
        note(GS_WHERE_CPU, c.hkey[GS_WHERE_CPU], c.hkey[GS_WHERE_GPU], c.model[GS_WHERE_CPU], 2);
        ck_assert_int_eq(gs_policy_model(&c, &slow, 0, 0), GS_WHERE_CPU);
        ck_assert_double_eq_tol(c.pred_cpu * 1e3, 2, 1e-3);
    }
    note(GS_WHERE_CPU, c.hkey[GS_WHERE_CPU], c.hkey[GS_WHERE_GPU], c.model[GS_WHERE_CPU], 2);
    ck_assert_int_eq(gs_policy_model(&c, &slow, 0, 0), GS_WHERE_GPU); /* the CPU at 4 ms */
    ck_assert_double_eq_tol(c.pred_cpu * 1e3, 4, 0.1);
    gs_rules[GS_R_DGEMM].history = 0; /* the rates alone again */
    ck_assert_int_eq(gs_policy_model(&c, &slow, 0, 0), GS_WHERE_CPU);
    ck_assert_double_eq_tol(c.pred_cpu * 1e3, 2, 1e-3);
    gs_rules[GS_R_DGEMM].history = 3;
    c.flops = 1.1e9; /* a kind of its own: the CPU at 2.2 ms, the GPU at 0.16 */
    for (int i = 0; i < 4; i++) { /* the first not counted; until three slow ones are, the rates decide */
        ck_assert_int_eq(gs_policy_model(&c, &fast, 0, 0), GS_WHERE_GPU);
        note(GS_WHERE_GPU, c.hkey[GS_WHERE_CPU], c.hkey[GS_WHERE_GPU], c.model[GS_WHERE_GPU], 20);
    }
    ck_assert_int_eq(gs_policy_model(&c, &fast, 0, 0), GS_WHERE_CPU); /* the kind is slower there */
    ck_assert_str_eq(c.why, "cpu faster");
}
END_TEST

TCase *gs_test_history(void)
{
    TCase *tc = tcase_create("history");
    tcase_add_test(tc, test_history);
    tcase_add_test(tc, test_history_model);
    tcase_add_test(tc, test_history_refused);
    return tc;
}

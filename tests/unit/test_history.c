/* Check unit tests of the cost model's history (src/core/history.c): the median of the last calls' ratios,
 * the first call of a kind not counted, the clamp, and a side forgotten once the other ran long enough. */
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
    ck_assert_double_eq(gs_history_factor(kc, 3), 1);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 5); /* the first: not counted */
    ck_assert_double_eq(gs_history_factor(kc, 3), 1);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 2);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 3);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    ck_assert_double_eq_tol(gs_history_factor(kc, 3), 3, 0.05);       /* median of 2, 3, 4 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 2), sqrt(12), 0.05); /* of 4 and 3: their geometric mean */
    note(GS_WHERE_CPU, kc, kg, 1e-3, 100);                              /* counts as 16 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 3), 4, 0.05);        /* median of 3, 4, 16 */
    ck_assert_double_eq_tol(gs_history_factor(kc, 1), 16, 0.05);
    /* the GPU side: its first call not counted, its second is; one that registers memory (model < 0) not */
    note(GS_WHERE_GPU, kc, kg, 1e-3, 0.5);
    note(GS_WHERE_GPU, kc, kg, 1e-3, 2);
    gs_call_t reg = {.where = GS_WHERE_GPU, .hkey = {kc, kg}, .model = {1e-3f, -1.0f}, .t_pred = 1};
    gs_history_note(&reg);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3), 2, 0.05);
    /* 7 calls on the CPU since: the GPU's ratio stands; the 8th forgets it, and the rates decide again */
    for (int i = 0; i < 7; i++)
        note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3), 2, 0.05);
    note(GS_WHERE_CPU, kc, kg, 1e-3, 4);
    ck_assert_double_eq(gs_history_factor(kg, 3), 1);
    /* the side's next call counts at once: the kind was warm */
    note(GS_WHERE_GPU, kc, kg, 1e-3, 3);
    ck_assert_double_eq_tol(gs_history_factor(kg, 3), 3, 0.05);
}
END_TEST

TCase *gs_test_history(void)
{
    TCase *tc = tcase_create("history");
    tcase_add_test(tc, test_history);
    return tc;
}

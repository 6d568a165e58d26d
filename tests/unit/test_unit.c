/* Check unit tests of gpushim's modules, linked against the library's objects (their functions are hidden
 * in the shared library): the routine table, option parsing, the policy parser and decision, BLAS
 * normalisation (row-major rewriting, validity, operands, cost) and JSON escaping. */
#include <check.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "families/blas/blas.h"
#include "families/fftw/fftw.h"
#include "core/gs.h"
#include "log/record.h"
#include "log/site.h"
#include "memory/edge.h"
#include "memory/wp.h"
#include "unit.h"

GS_HIDDEN extern const char gs_policy_default_text[];

/* ---- table -------------------------------------------------------------------------------------------- */

START_TEST(test_table_entries_match_routines)
{
    int per_routine[GS_NROUTINES] = {0};
    for (int e = 0; e < GS_NENTRIES; e++) {
        const gs_entry_info_t *en = &gs_entries[e];
        const char *name = gs_routines[en->routine].name;
        char want[64];
        const char *pre = strncmp(en->symbol, "scipy_", 6) == 0 ? "scipy_" : "";
        bool fftw = gs_ops[gs_routines[en->routine].op].family == GS_FAMILY_FFTW;
        if (fftw && en->symbol[0] == 'f') /* FFTW's C spelling: the name as it is */
            snprintf(want, sizeof want, "%s", name);
        else if (fftw) /* its Fortran wrappers: fftwf_x is sfftw_x_ (or __), fftw_x dfftw_x_ */
            snprintf(want, sizeof want, "%cfftw_%s_%s", name[4] == 'f' ? 's' : 'd', strchr(name, '_') + 1,
                     en->symbol[strlen(en->symbol) - 2] == '_' ? "_" : "");
        else if (en->cblas)
            snprintf(want, sizeof want, "%scblas_%s%s", pre, name, en->ilp64 ? "64_" : "");
        else
            snprintf(want, sizeof want, "%s%s_%s", pre, name, en->ilp64 ? "64_" : "");
        ck_assert_str_eq(en->symbol, want);
        per_routine[en->routine]++;
        for (int f = 0; f < e; f++)
            ck_assert_str_ne(gs_entries[f].symbol, en->symbol);
    }
    for (int r = 0; r < GS_NROUTINES; r++) {
        bool fftw = gs_ops[gs_routines[r].op].family == GS_FAMILY_FFTW;
        ck_assert(fftw ? per_routine[r] == 3 : per_routine[r] == 4 || per_routine[r] == 8);
    }
}
END_TEST

START_TEST(test_table_find)
{
    ck_assert_int_eq(gs_routine_find("dgemm"), GS_R_DGEMM);
    ck_assert_int_eq(gs_routine_find("zher2k"), GS_R_ZHER2K);
    ck_assert_int_eq(gs_routine_find("dgemm_"), -1);
    ck_assert_int_eq(gs_routines[GS_R_CHERK].op, GS_OP_herk);
    ck_assert_int_eq(gs_routines[GS_R_CHERK].prec, GS_P_C);
    ck_assert_uint_eq(gs_prec_size(GS_P_S), 4);
    ck_assert_uint_eq(gs_prec_size(GS_P_D), 8);
    ck_assert_uint_eq(gs_prec_size(GS_P_C), 8);
    ck_assert_uint_eq(gs_prec_size(GS_P_Z), 16);
}
END_TEST

/* ---- options ------------------------------------------------------------------------------------------ */

START_TEST(test_parse_number)
{
    double v;
    ck_assert_int_eq(gs_parse_number("2e9", &v), 0);
    ck_assert_double_eq(v, 2e9);
    ck_assert_int_eq(gs_parse_number("3G", &v), 0);
    ck_assert_double_eq(v, 3e9);
    ck_assert_int_eq(gs_parse_number("1.5k", &v), 0);
    ck_assert_double_eq(v, 1500);
    ck_assert_int_eq(gs_parse_number("inf", &v), 0);
    ck_assert(isinf(v));
    ck_assert_int_eq(gs_parse_number("0", &v), 0);
    ck_assert_double_eq(v, 0);
    v = 7;
    ck_assert_int_ne(gs_parse_number("-1", &v), 0);
    ck_assert_int_ne(gs_parse_number("abc", &v), 0);
    ck_assert_int_ne(gs_parse_number("1x", &v), 0);
    ck_assert_int_ne(gs_parse_number("2GG", &v), 0);
    ck_assert_int_ne(gs_parse_number("", &v), 0);
    ck_assert_int_ne(gs_parse_number("nan", &v), 0);
    ck_assert_double_eq(v, 7);
}
END_TEST

START_TEST(test_parse_bool)
{
    bool b = false;
    ck_assert_int_eq(gs_parse_bool("Yes", &b), 0);
    ck_assert(b);
    ck_assert_int_eq(gs_parse_bool("off", &b), 0);
    ck_assert(!b);
    ck_assert_int_ne(gs_parse_bool("2", &b), 0);
    ck_assert_int_ne(gs_parse_bool("", &b), 0);
}
END_TEST

/* Sets the five variables the test reads to the given values (NULL unsets), in the order of names[]. */
static void options_env(const char *const values[5])
{
    static const char *const names[5] = {"GPUSHIM_OFFLOAD", "GPUSHIM_SUMMARY", "GPUSHIM_MIN_FLOPS", "GPUSHIM_LOG",
                                         "GPUSHIM_DEVICE"};
    for (int i = 0; i < 5; i++)
        if (values[i])
            setenv(names[i], values[i], 1);
        else
            unsetenv(names[i]);
}

START_TEST(test_options_read)
{
    gs_options_t o;
    options_env((const char *[5]){"ALWAYS", "1", "5M", "/tmp/x.%p", "2"});
    gs_options_read(&o);
    ck_assert_int_eq(o.offload, GS_OFFLOAD_ALWAYS);
    ck_assert(o.summary);
    ck_assert_double_eq(o.min_flops, 5e6);
    ck_assert_str_eq(o.log, "/tmp/x.%p");
    ck_assert_int_eq(o.device, 2);
    /* invalid values are reported and leave the defaults; an empty path is no path */
    options_env((const char *[5]){"sometimes", "maybe", "lots", "", "-1"});
    gs_options_read(&o);
    ck_assert_int_eq(o.offload, GS_OFFLOAD_AUTO);
    ck_assert(!o.summary);
    ck_assert(o.min_flops < 0);
    ck_assert_int_eq(o.device, 0);
    ck_assert_ptr_null(o.log);
    options_env((const char *[5]){NULL, NULL, NULL, NULL, NULL});
}
END_TEST

/* ---- policy ------------------------------------------------------------------------------------------- */

static void rules_fill(gs_rule_t *r, double v)
{
    for (int i = 0; i < GS_NROUTINES; i++)
        r[i].min_flops = v;
}

START_TEST(test_policy_parse)
{
    gs_rule_t r[GS_NROUTINES];
    rules_fill(r, -1);
    ck_assert_int_eq(gs_policy_parse(r, "# comment\n*  min_flops=1e9\n\n*gemm min_flops=2G # trailing\n"
                                        "zgemm\tmin_flops=inf\n",
                                     "test", NULL),
                     0);
    ck_assert_double_eq(r[GS_R_DSYRK].min_flops, 1e9);
    ck_assert_double_eq(r[GS_R_DGEMM].min_flops, 2e9);
    ck_assert(isinf(r[GS_R_ZGEMM].min_flops));
    /* each bad line is counted and leaves the rules as they were */
    ck_assert_int_eq(gs_policy_parse(r, "dgemm min_flop=5\nnothing min_flops=5\ndgemm min_flops=-3\ndgemm\n"
                                        "dgemm min_flops\n",
                                     "test", NULL),
                     5);
    ck_assert_double_eq(r[GS_R_DGEMM].min_flops, 2e9);
    /* a scan reports nothing, counts the lines that look like a policy's and keeps the first bad one */
    gs_policy_scan_t scan;
    ck_assert_int_eq(gs_policy_parse(r, "root:x:0:0:root:/root:/bin/bash\n\ndaemon:x:1:1::/usr/sbin\n", "t", &scan), 2);
    ck_assert_int_eq(scan.like, 0);
    ck_assert_int_eq(scan.first_bad, 1);
    ck_assert_str_eq(scan.first_text, "root:x:0:0:root:/root:/bin/bash");
    ck_assert_int_eq(gs_policy_parse(r, "# mine\ndgemm min_flops=1\ndgemm min_flop=5\nnothing min_flops=5\n", "t", &scan), 2);
    ck_assert_int_eq(scan.like, 3);
    ck_assert_int_eq(scan.first_bad, 3);
}
END_TEST

START_TEST(test_policy_default_text)
{
    gs_rule_t r[GS_NROUTINES];
    rules_fill(r, -1);
    ck_assert_int_eq(gs_policy_parse(r, gs_policy_default_text, "default", NULL), 0);
    for (int i = 0; i < GS_NROUTINES; i++)
        ck_assert(r[i].min_flops > 0);
}
END_TEST

START_TEST(test_policy_decide)
{
    static const struct {
        int offload;
        double flops;
        bool capable;
        gs_where_t where;
        const char *why;
    } cases[] = {
        {GS_OFFLOAD_AUTO, 999, true, GS_WHERE_CPU, "below threshold"},
        {GS_OFFLOAD_AUTO, 1000, true, GS_WHERE_GPU, "above threshold"},
        {GS_OFFLOAD_AUTO, 1000, false, GS_WHERE_CPU, "cpu only"},
        {GS_OFFLOAD_ALWAYS, 1, true, GS_WHERE_GPU, "forced"},
        {GS_OFFLOAD_ALWAYS, 0, true, GS_WHERE_CPU, "trivial"},
        {GS_OFFLOAD_NEVER, 1e15, true, GS_WHERE_CPU, "offload=never"},
    };
    gs_rules[GS_R_DGEMM].min_flops = 1000;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_call_t c = {.routine = GS_R_DGEMM, .flops = cases[i].flops};
        gs.opt.offload = cases[i].offload;
        ck_assert_int_eq(gs_policy_decide(&c, cases[i].capable), cases[i].where);
        ck_assert_str_eq(c.why, cases[i].why);
    }
    gs.opt.offload = GS_OFFLOAD_AUTO;
}
END_TEST

START_TEST(test_policy_model)
{
    gs_rule_t r[GS_NROUTINES];
    memset(r, 0, sizeof r);
    /* rates on one line; a later threshold-only rule turns the model off where it matches */
    ck_assert_int_eq(gs_policy_parse(r, "d* min_flops=1e6 cpu_gflops=500 gpu_gflops=50000 link_gbps=50 "
                                        "latency_us=100\ndsyrk min_flops=2e6\n"
                                        "dtrsm cpu_us=500 threads=16 registered_gbps=100 register_gbps=20\n"
                                        "dsymm cpu_gbps=100\n"
                                        "fftw_execute cpu_gflops=500 gpu_gflops=50000 link_gbps=50 latency_us=100 "
                                        "setup_us=2000 bringup_us=1e6\n",
                                     "test", NULL),
                     0);
    ck_assert_double_eq(r[GS_R_DGEMM].cpu_gflops, 500);
    ck_assert_double_eq(r[GS_R_DSYRK].cpu_gflops, 0);
    ck_assert_double_eq(r[GS_R_DSYRK].gpu_gflops, 50000);
    ck_assert_double_eq(r[GS_R_DTRSM].cpu_us, 500);
    ck_assert_double_eq(r[GS_R_DTRSM].threads, 16);
    ck_assert_double_eq(r[GS_R_FFTWEXEC].bringup_us, 1e6);
    memcpy(gs_rules, r, sizeof r);
    gs.cpu_threads = 16;
    static const struct {
        int routine;
        double flops;
        gs_traffic_t t;
        double setup, left;
        int threads;
        gs_where_t where;
        double cpu_ms, gpu_ms; /* the predictions */
    } cases[] = {
        /* 1e9 flops: CPU 2 ms; GPU 0.1 ms + the larger of the copies and 0.02 ms of arithmetic */
        {GS_R_DGEMM, 1e9, {.staged = 1e6}, 0, 0, 0, GS_WHERE_GPU, 2, 0.12},  /* copies 0.02 ms */
        {GS_R_DGEMM, 1e9, {.staged = 85e6}, 0, 0, 0, GS_WHERE_GPU, 2, 1.8},  /* copies 1.7 ms */
        {GS_R_DGEMM, 1e9, {.staged = 1e8}, 0, 0, 0, GS_WHERE_CPU, 2, 2.1},   /* copies 2 ms */
        {GS_R_DSYRK, 1e9, {.staged = 1e12}, 0, 0, 0, GS_WHERE_GPU, -1e3, -1e3}, /* no model: no prediction */
        /* the CPU's fixed cost: 0.5 + 2 ms against copies of 2.2 ms */
        {GS_R_DTRSM, 1e9, {.staged = 1.1e8}, 0, 0, 0, GS_WHERE_GPU, 2.5, 2.3},
        /* registered memory at 100 GB/s, registering at 20: 1e8 bytes in 1 ms, plus 5 ms to register them */
        {GS_R_DTRSM, 1e9, {.registered = 1e8}, 0, 0, 0, GS_WHERE_GPU, 2.5, 1.1},
        {GS_R_DTRSM, 1e9, {.registered = 1e8, .reg = 1e8}, 0, 0, 0, GS_WHERE_CPU, 2.5, 6.1},
        /* half of them copied out while others go in (a pipelined FFT's): 0.5 ms */
        {GS_R_DTRSM, 1e9, {.registered = 1e8, .overlap = 5e7}, 0, 0, 0, GS_WHERE_GPU, 2.5, 0.6},
        /* the same, but an input that stays on the device, used by 3 calls before: a quarter of 6 ms is borne */
        {GS_R_DTRSM, 1e9, {.registered = 1e8, .reg = 1e8, .invest = 1e8, .again = 3}, 0, 0, 0, GS_WHERE_GPU, 2.5,
         6.1},
        /* the CPU's memory traffic: 2e8 bytes at 100 GB/s add 2 ms */
        {GS_R_DSYMM, 1e9, {.staged = 1e6, .touched = 2e8}, 0, 0, 0, GS_WHERE_GPU, 4, 0.12},
        /* on 4 of the rule's 16 threads the CPU takes 4 times as long */
        {GS_R_DTRSM, 1e9, {.staged = 4e8}, 0, 0, 4, GS_WHERE_GPU, 8.5, 8.1},
        /* a shape's first call bears its setup (2 ms: 2.12 against 2), a later one a share of it (1.12) */
        {GS_R_FFTWEXEC, 1e9, {.staged = 1e6}, 1, 0, 0, GS_WHERE_CPU, 2, 2.12},
        {GS_R_FFTWEXEC, 1e9, {.staged = 1e6}, 0.5, 0, 0, GS_WHERE_GPU, 2, 1.12},
        {GS_R_FFTWEXEC, 1e9, {.staged = 1e6}, 0, 0, 0, GS_WHERE_GPU, 2, 0.12},
        /* 1e10 flops: 0.2 ms of arithmetic on one device, 0.1 on each of two (GPUSHIM_DEVICES) */
        {GS_R_DGEMM, 1e10, {.staged = 1e6}, 0, 0, 0, GS_WHERE_GPU, 20, 0.3},
        {GS_R_DGEMM, 1e10, {.staged = 1e6, .devices = 2}, 0, 0, 0, GS_WHERE_GPU, 20, 0.2},
        /* the bring-up still to come is predicted, but the call wants the GPU, which will be faster once up */
        {GS_R_FFTWEXEC, 1e9, {.staged = 1e6}, 0, 2e-3, 0, GS_WHERE_GPU, 2, 2.12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gs_call_t c = {.routine = (uint16_t)cases[i].routine, .flops = cases[i].flops, .why = "above threshold",
                       .threads = (uint8_t)cases[i].threads, .pred_cpu = -1, .pred_gpu = -1};
        ck_assert_msg(gs_policy_model(&c, &cases[i].t, cases[i].setup, cases[i].left) == cases[i].where, "case %zu", i);
        ck_assert_str_eq(c.why, cases[i].where == GS_WHERE_CPU ? "cpu faster" : "above threshold");
        ck_assert_double_eq_tol(c.pred_cpu * 1e3, cases[i].cpu_ms, 1e-3);
        ck_assert_double_eq_tol(c.pred_gpu * 1e3, cases[i].gpu_ms, 1e-3);
    }
    /* before a routine's first GPU call, its first_us counts as bring-up still to come (gs_gpu_left, which the
     * dispatcher hands the model): predicted, not decided on */
    gs_rules[GS_R_DGEMM].first_us = 5000;
    atomic_store(&gs.gpu_state, GS_GPU_UP);
    atomic_store(&gs.gpu_ready[GS_FAMILY_BLAS], 2);
    gs_traffic_t small = {.staged = 1e6};
    for (int used = 0; used < 2; used++) {
        atomic_store(&gs.gpu_used[GS_R_DGEMM], (unsigned char)used);
        gs_call_t c = {.routine = GS_R_DGEMM, .flops = 1e9, .why = "above threshold"};
        ck_assert_int_eq(gs_policy_model(&c, &small, 0, gs_gpu_left(&c)), GS_WHERE_GPU);
        ck_assert_double_eq_tol(c.pred_gpu * 1e3, used ? 0.12 : 5.12, 1e-3);
        ck_assert_double_eq_tol(c.pred_wait * 1e3, used ? 0 : 5, 1e-3);
    }
    atomic_store(&gs.gpu_state, GS_GPU_UNTRIED);
    atomic_store(&gs.gpu_ready[GS_FAMILY_BLAS], 0);
    /* Calls weighed at once share the CPU library's 16 threads and queue for the GPU.  dtrsm of 1e9 flops with
     * 1e8 bytes staged: CPU 0.5 + 2 ms alone, GPU 0.1 + 2 ms of copies; 4 at once, the CPU's 4 threads take
     * 8.5 ms, and 3 ms of GPU work ahead still leave the GPU faster (5.1 ms), 7 ms do not; 32 at once, one
     * thread each. */
    static const struct {
        int sharing;
        double queue_ms, cpu_ms, gpu_ms;
        gs_where_t where;
    } shares[] = {{1, 7, 2.5, 2.1, GS_WHERE_GPU}, /* alone: no other call's work is ahead */
                  {4, 3, 8.5, 5.1, GS_WHERE_GPU},
                  {4, 7, 8.5, 9.1, GS_WHERE_CPU},
                  {32, 7, 32.5, 9.1, GS_WHERE_GPU}};
    gs_traffic_t staged = {.staged = 1e8};
    for (size_t i = 0; i < sizeof shares / sizeof shares[0]; i++) {
        atomic_store(&gs.gpu_queued_ns, (uint64_t)(shares[i].queue_ms * 1e6));
        gs_call_t c = {.routine = GS_R_DTRSM, .flops = 1e9, .why = "above threshold",
                       .sharing = (uint8_t)shares[i].sharing};
        ck_assert_msg(gs_policy_model(&c, &staged, 0, 0) == shares[i].where, "sharing case %zu", i);
        ck_assert_double_eq_tol(c.pred_cpu * 1e3, shares[i].cpu_ms, 1e-3);
        ck_assert_double_eq_tol(c.pred_gpu * 1e3, shares[i].gpu_ms, 1e-3);
        ck_assert_double_eq_tol(c.pred_queue * 1e3, shares[i].sharing > 1 ? shares[i].queue_ms : 0, 1e-3);
    }
    atomic_store(&gs.gpu_queued_ns, 0);
    gs.opt.offload = GS_OFFLOAD_ALWAYS;
    gs_call_t forced = {.routine = GS_R_DGEMM, .flops = 1e9};
    gs_traffic_t huge = {.staged = 1e12};
    ck_assert_int_eq(gs_policy_model(&forced, &huge, 1, 0), GS_WHERE_GPU);
    gs.opt.offload = GS_OFFLOAD_AUTO;
}
END_TEST

/* ---- BLAS normalisation ------------------------------------------------------------------------------- */

static double one = 1, zero = 0;

START_TEST(test_gemm_row_major)
{
    gs_blas_t p;
    double a[1] = {0}, b[1] = {0}, c[1] = {0};
    /* row-major C (2x3) = A (2x4) B (4x3): becomes C^T = B^T A^T, 3x2 column-major */
    gs_blas_gemm(&p, GS_E_cblas_dgemm, GS_CBLAS_ROW, 'N', 'T', 2, 3, 4, &one, a, 4, b, 4, &zero, c, 3);
    ck_assert(p.valid);
    ck_assert_int_eq(p.m, 3);
    ck_assert_int_eq(p.n, 2);
    ck_assert_int_eq(p.k, 4);
    ck_assert_ptr_eq(p.a, b);
    ck_assert_ptr_eq(p.b, a);
    ck_assert_int_eq(p.trans, 'T');
    ck_assert_int_eq(p.transb, 'N');
    ck_assert_int_eq(p.lda, 4);
    ck_assert_int_eq(p.ldb, 4);
    ck_assert_double_eq(gs_blas_flops(&p), 48);
    gs_operands_t ops;
    gs_blas_family.operands(&p, &ops);
    const gs_operand_t *o = ops.o;
    ck_assert_int_eq(ops.n, 3);
    ck_assert_int_eq(ops.es, 8);
    ck_assert_int_eq(o[0].rows, 4); /* op(A) = B^T stored 4 x 3... as 'T': rows k = 4, cols m = 3 */
    ck_assert_int_eq(o[0].cols, 3);
    ck_assert(!o[2].in); /* beta = 0: C is not read */
    ck_assert(o[2].out);
}
END_TEST

START_TEST(test_gemm_validity)
{
    gs_blas_t p;
    double a[1] = {0};
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'n', 'c', 5, 4, 3, &one, a, 5, a, 4, &one, a, 5);
    ck_assert(p.valid);
    ck_assert_int_eq(p.trans, 'N'); /* letters are normalised to upper case */
    ck_assert_int_eq(p.transb, 'C');
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'N', 'N', 5, 4, 3, &one, a, 4, a, 3, &one, a, 5);
    ck_assert(!p.valid); /* lda < m */
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'X', 'N', 5, 4, 3, &one, a, 5, a, 3, &one, a, 5);
    ck_assert(!p.valid);
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'N', 'N', -1, 4, 3, &one, a, 5, a, 3, &one, a, 5);
    ck_assert(!p.valid);
    gs_blas_gemm(&p, GS_E_cblas_dgemm, 99, 'N', 'N', 5, 4, 3, &one, a, 5, a, 3, &one, a, 5);
    ck_assert(!p.valid); /* layout */
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'N', 'N', 0, 0, 0, &one, a, 1, a, 1, &one, a, 1);
    ck_assert(p.valid);
    ck_assert_double_eq(gs_blas_flops(&p), 0);
    gs_blas_gemm(&p, GS_E_dgemm_, GS_CBLAS_COL, 'N', 'N', 5, 4, 3, &zero, a, 5, a, 3, &one, a, 5);
    ck_assert_double_eq(gs_blas_flops(&p), 0); /* alpha = 0: no arithmetic on A and B */
}
END_TEST

START_TEST(test_symm_trmm_row_major)
{
    gs_blas_t p;
    double a[1] = {0};
    gs_blas_symm(&p, GS_E_cblas_dsymm, GS_CBLAS_ROW, 'L', 'U', 3, 5, &one, a, 3, a, 5, &one, a, 5);
    ck_assert(p.valid);
    ck_assert_int_eq(p.side, 'R');
    ck_assert_int_eq(p.uplo, 'L');
    ck_assert_int_eq(p.m, 5);
    ck_assert_int_eq(p.n, 3);
    gs_blas_trmm(&p, GS_E_cblas_dtrsm, GS_CBLAS_ROW, 'R', 'L', 'C', 'U', 3, 5, &one, a, 5, a, 5);
    ck_assert(p.valid);
    ck_assert_int_eq(p.side, 'L');
    ck_assert_int_eq(p.uplo, 'U');
    ck_assert_int_eq(p.trans, 'C');
    ck_assert_int_eq(p.diag, 'U');
    ck_assert_int_eq(p.m, 5);
    ck_assert_int_eq(p.ldc, 5);
    gs_operands_t o;
    gs_blas_family.operands(&p, &o);
    ck_assert_int_eq(o.n, 2);
    ck_assert(o.o[1].in && o.o[1].out);
    gs_blas_trmm(&p, GS_E_dtrmm_, GS_CBLAS_COL, 'L', 'U', 'N', 'X', 3, 5, &one, a, 3, a, 3);
    ck_assert(!p.valid);
}
END_TEST

START_TEST(test_rank_k_row_major)
{
    gs_blas_t p;
    double a[1] = {0}, cz[2] = {2, 3}, rb = 0;
    /* real syrk: row-major N becomes T, and C is accepted as T */
    gs_blas_syrk(&p, GS_E_cblas_dsyrk, GS_CBLAS_ROW, 'U', 'N', 4, 2, &one, a, 2, NULL, 0, &one, a, 4);
    ck_assert(p.valid);
    ck_assert_int_eq(p.trans, 'T');
    ck_assert_int_eq(p.uplo, 'L');
    gs_blas_syrk(&p, GS_E_cblas_dsyrk, GS_CBLAS_ROW, 'U', 'C', 4, 2, &one, a, 4, NULL, 0, &one, a, 4);
    ck_assert(p.valid);
    ck_assert_int_eq(p.trans, 'N');
    /* complex syrk accepts only N and T; herk only N and C */
    gs_blas_syrk(&p, GS_E_cblas_zsyrk, GS_CBLAS_ROW, 'U', 'C', 4, 2, cz, a, 4, NULL, 0, cz, a, 4);
    ck_assert(!p.valid);
    gs_blas_syrk(&p, GS_E_zherk_, GS_CBLAS_COL, 'U', 'T', 4, 2, &one, a, 4, NULL, 0, &one, a, 4);
    ck_assert(!p.valid);
    gs_blas_syrk(&p, GS_E_cblas_zherk, GS_CBLAS_ROW, 'L', 'N', 4, 2, &one, a, 2, NULL, 0, &one, a, 4);
    ck_assert(p.valid);
    ck_assert_int_eq(p.trans, 'C');
    ck_assert_int_eq(p.uplo, 'U');
    /* row-major her2k conjugates alpha */
    gs_blas_syrk(&p, GS_E_cblas_zher2k, GS_CBLAS_ROW, 'L', 'C', 4, 2, cz, a, 4, a, 4, &rb, a, 4);
    ck_assert(p.valid);
    ck_assert_int_eq(p.trans, 'N');
    ck_assert_double_eq(((const double *)p.alpha)[0], 2);
    ck_assert_double_eq(((const double *)p.alpha)[1], -3);
    ck_assert_double_eq(cz[1], 3); /* the caller's scalar is left alone */
    ck_assert_double_eq(gs_blas_flops(&p), 4.0 * 2 * 4 * 5 * 2);
    gs_operands_t o;
    gs_blas_family.operands(&p, &o);
    ck_assert_int_eq(o.n, 3);
    ck_assert(o.o[2].in); /* C always travels: only one triangle is written */
}
END_TEST

START_TEST(test_cblas_letters)
{
    ck_assert_int_eq(gs_cblas_letter(111, GS_CBLAS_TRANS), 'N');
    ck_assert_int_eq(gs_cblas_letter(113, GS_CBLAS_TRANS), 'C');
    ck_assert_int_eq(gs_cblas_letter(114, GS_CBLAS_TRANS), 0);
    ck_assert_int_eq(gs_cblas_letter(122, GS_CBLAS_UPLO), 'L');
    ck_assert_int_eq(gs_cblas_letter(141, GS_CBLAS_UPLO), 0); /* a side value is not an uplo value */
    ck_assert_int_eq(gs_cblas_letter(132, GS_CBLAS_DIAG), 'U');
    ck_assert_int_eq(gs_cblas_letter(142, GS_CBLAS_SIDE), 'R');
    ck_assert_int_eq(gs_cblas_letter(0, GS_CBLAS_SIDE), 0);
}
END_TEST

START_TEST(test_scalar_zero)
{
    float cf[2] = {0, 1};
    double cd[2] = {0, 0};
    ck_assert(!gs_scalar_is_zero(cf, GS_P_C, false));
    ck_assert(gs_scalar_is_zero(cf, GS_P_C, true));
    ck_assert(gs_scalar_is_zero(cd, GS_P_Z, false));
    ck_assert(gs_scalar_is_zero(&zero, GS_P_D, false));
    ck_assert(!gs_scalar_is_zero(&one, GS_P_D, false));
}
END_TEST

/* ---- log ---------------------------------------------------------------------------------------------- */

START_TEST(test_json_escape)
{
    char out[64];
    gs_json_escape(out, sizeof out, "a \"b\" \\ c\n");
    ck_assert_str_eq(out, "a \\\"b\\\" \\\\ c\\u000a");
    gs_json_escape(out, 10, "0123456789abcdef");
    ck_assert_uint_lt(strlen(out), 10);
    gs_copy_str(out, 5, "0123456789"); /* cut to fit, terminated */
    ck_assert_str_eq(out, "0123");
    gs_copy_str(out, sizeof out, "ab");
    ck_assert_str_eq(out, "ab");
    gs_copy_str(out, 1, "ab");
    ck_assert_str_eq(out, "");
}
END_TEST

/* The objects whose frames a call site walks past, and a native site named from this very function: by the walk
 * of the stack (ret NULL), by a return address into it, or by the walk again when the return address is in a
 * library's code (lib). */
static const void *__attribute__((noinline)) return_address(void)
{
    return __builtin_return_address(0);
}

static void __attribute__((noinline)) site_from_here(char *out, size_t n, bool by_ret, const void *lib)
{
    gs_site_native(out, n, lib ? lib : by_ret ? return_address() : NULL);
    __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}

START_TEST(test_sites)
{
    ck_assert(gs_site_library_name("libgpushim.so"));
    ck_assert(gs_site_library_name("libopenblas.so.0"));
    ck_assert(gs_site_library_name("libscipy_openblas64_-8fb3d286.so"));
    ck_assert(gs_site_library_name("liblapack.so.3"));
    ck_assert(gs_site_library_name("libfftw3.so.3"));
    ck_assert(gs_site_library_name("libfftw3f_threads.so.3"));
    ck_assert(gs_site_library_name("libfftw3-6b983104.so.3.5.5")); /* pyFFTW's bundled FFTW */
    ck_assert(!gs_site_library_name("pyfftw.cpython-311-x86_64-linux-gnu.so")); /* its callers' site */
    ck_assert(!gs_site_library_name("fftw_pyfftw.py"));
    ck_assert(gs_site_library_name("libmkl_core.so.2"));
    ck_assert(!gs_site_library_name("_umath_linalg.cpython-312-x86_64-linux-gnu.so"));
    ck_assert(!gs_site_library_name("python3.12"));
    char site[200];
    site_from_here(site, sizeof site, false, NULL);
    ck_assert_str_eq(site, "unit:site_from_here");
    site_from_here(site, sizeof site, true, NULL);
    ck_assert_str_eq(site, "unit:site_from_here");
    void *fftw = dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(fftw);
    const char *in_fftw = (const char *)dlsym(fftw, "fftw_execute") + 1;
    site_from_here(site, sizeof site, true, in_fftw);
    ck_assert_str_eq(site, "unit:site_from_here");
    site_from_here(site, sizeof site, true, NULL); /* the library's answer, kept for the thread, is not this one's */
    ck_assert_str_eq(site, "unit:site_from_here");
    dlclose(fftw);
    char py[200] = "x";
    ck_assert(!gs_site_python(py, sizeof py)); /* not a Python process */
}
END_TEST

/* ---- write tracking ------------------------------------------------------------------------------------ */

static size_t wp_pages; /* pages reported written by gs_wp_protect */
static void wp_count(uintptr_t a, uintptr_t b, void *arg)
{
    (void)arg;
    wp_pages += (b - a) / gs_page;
}

/* 64 MiB in 4 KiB pages: protected, and every kind of change found by the page tables. */
START_TEST(test_wp_protect)
{
    const char *why = "";
    ck_assert_msg(gs_wp_ready(&why) == GS_OK, "write tracking unavailable: %s", why);
    size_t bytes = (size_t)64 << 20;
    char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    madvise(m, bytes, MADV_NOHUGEPAGE);
    memset(m, 1, bytes);
    uintptr_t lo = (uintptr_t)m, hi = lo + bytes;
    ck_assert_int_eq(gs_wp_register(lo, hi), GS_OK);
    wp_pages = 0;
    ck_assert_int_eq(gs_wp_protect(lo, hi, wp_count, NULL), GS_OK);
    ck_assert_uint_eq(wp_pages, bytes / gs_page); /* never protected: every page counts as written */
    ck_assert(gs_wp_clean(lo, hi, true) && gs_wp_clean(lo, hi, false));
    for (size_t off = 3 * gs_page; off < bytes; off += (size_t)8 << 20) /* one page in each 8 MiB */
        m[off] = 2;
    ck_assert(!gs_wp_clean(lo, hi, false));
    wp_pages = 0;
    ck_assert_int_eq(gs_wp_protect(lo, hi, wp_count, NULL), GS_OK);
    ck_assert_uint_eq(wp_pages, 8);
    ck_assert(gs_wp_clean(lo, hi, false));
    for (size_t off = 0; off < (size_t)8 << 20; off += 2 * gs_page) /* more runs than one scan reports */
        m[off] = 3;
    wp_pages = 0;
    ck_assert_int_eq(gs_wp_protect(lo, hi, wp_count, NULL), GS_OK);
    ck_assert_uint_eq(wp_pages, 1024);
    ck_assert(gs_wp_clean(lo, hi, false));
    int fd = open("/proc/self/stat", O_RDONLY); /* the kernel writes a protected page: no EFAULT, and seen */
    ck_assert_int_gt(read(fd, m + 5 * gs_page, 16), 0);
    close(fd);
    ck_assert(!gs_wp_clean(lo, hi, false));
    ck_assert(gs_wp_clean(lo + 6 * gs_page, hi, false));
    syscall(SYS_madvise, m + 9 * gs_page, gs_page, MADV_DONTNEED); /* raw: past gpushim's madvise hook */
    ck_assert(!gs_wp_clean(lo + 6 * gs_page, hi, false));
    ck_assert(gs_wp_clean(lo + 10 * gs_page, hi, false));
    ck_assert_ptr_eq(mmap(m + 20 * gs_page, gs_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                          -1, 0), m + 20 * gs_page); /* a new mapping is not tracked */
    ck_assert(!gs_wp_clean(lo + 10 * gs_page, hi, false));
    munmap(m, bytes);
    /* Shared memory: protected and unwritten here, but only the full check tells it apart. */
    char *sh = mmap(NULL, (size_t)4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    memset(sh, 1, (size_t)4 << 20);
    ck_assert_int_eq(gs_wp_register((uintptr_t)sh, (uintptr_t)sh + ((size_t)4 << 20)), GS_OK);
    ck_assert_int_eq(gs_wp_protect((uintptr_t)sh, (uintptr_t)sh + ((size_t)4 << 20), wp_count, NULL), GS_OK);
    ck_assert(gs_wp_clean((uintptr_t)sh, (uintptr_t)sh + ((size_t)4 << 20), false));
    ck_assert(!gs_wp_clean((uintptr_t)sh, (uintptr_t)sh + ((size_t)4 << 20), true));
    munmap(sh, (size_t)4 << 20);
}
END_TEST

/* A region 100 bytes into a page, ending 200 bytes into another: the pages it fills are tracked, and its bytes
 * on the two others compared; a region of a few pages is tracked whole. */
START_TEST(test_edges)
{
    size_t bytes = (size_t)2 << 20;
    char *m = mmap(NULL, bytes + 2 * gs_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    gs_hreg_t h = {.host = m + 100, .width = bytes + 100, .ld = bytes + 100, .cols = 1};
    uintptr_t lo, hi, a = (uintptr_t)m;
    gs_edge_pages(&h, &lo, &hi);
    ck_assert(lo == a + gs_page && hi == a + bytes);
    ck_assert(gs_edge_check(3, &h, lo, hi, true));
    m[0] = 1, m[99] = 1, m[bytes + 200] = 1; /* beside it */
    ck_assert(gs_edge_check(3, &h, lo, hi, false));
    m[100] = 2;
    ck_assert(!gs_edge_check(3, &h, lo, hi, false));
    m[100] = 0, m[bytes + 199] = 2; /* its last byte */
    ck_assert(!gs_edge_check(3, &h, lo, hi, false));
    m[bytes + 199] = 0;
    ck_assert(gs_edge_check(3, &h, lo, hi, false));
    h.width = gs_page;
    gs_edge_pages(&h, &lo, &hi);
    ck_assert(lo == a && hi == a + 2 * gs_page);
    munmap(m, bytes + 2 * gs_page);
}
END_TEST

/* ---- fftw --------------------------------------------------------------------------------------------- */

/* Strides from the advanced interface, as FFTW's rdft2_pad and mktensor_rowmajor make them. */
START_TEST(test_fftw_geometry)
{
    double buf[4] = {0};
    const int n[] = {6, 10};
    gs_fftw_geom_t g;
    /* In-place r2c with NULL nembed: the real side's last dimension is padded to 2 (10 / 2 + 1) = 12. */
    gs_fftw_geom_many(&g, GS_FFTW_R2C, GS_P_Z, -1, 2, n, 3, buf, NULL, 1, 72, buf, NULL, 1, 36, 0);
    ck_assert(g.inplace && !g.truncated && g.rank == 2 && g.howmany_rank == 1);
    ck_assert(g.dims[0].n == 6 && g.dims[0].is == 12 && g.dims[0].os == 6);
    ck_assert(g.dims[1].n == 10 && g.dims[1].is == 1 && g.dims[1].os == 1);
    ck_assert(g.dims[2].n == 3 && g.dims[2].is == 72 && g.dims[2].os == 36);
    /* Out of place, the real side is not padded; an explicit nembed is taken as it is. */
    gs_fftw_geom_many(&g, GS_FFTW_C2R, GS_P_C, 1, 2, n, 1, buf, NULL, 2, 0, buf + 2, NULL, 1, 0, 0);
    ck_assert(!g.inplace && g.dims[0].is == 12 && g.dims[0].os == 10);
    const int emb[] = {8, 12};
    gs_fftw_geom_many(&g, GS_FFTW_DFT, GS_P_Z, 1, 2, n, 1, buf, emb, 1, 0, buf + 2, emb, 3, 0, 0);
    ck_assert(g.dims[0].is == 12 && g.dims[0].os == 36 && g.dims[1].os == 3);
    /* Guru64: dimensions as given; more than GS_FFTW_DIMS_MAX in all is truncated. */
    const ptrdiff_t d64[] = {16, 1, 8, 4, 16, 1};
    gs_fftw_geom_guru(&g, GS_FFTW_DFT, GS_P_Z, -1, 1, d64, 1, d64 + 3, true, buf, buf + 2, 0);
    ck_assert(g.dims[0].n == 16 && g.dims[0].os == 8 && g.dims[1].n == 4 && g.dims[1].is == 16);
    gs_fftw_geom_guru(&g, GS_FFTW_DFT, GS_P_Z, -1, 5, d64, 4, d64, true, buf, buf, 0);
    ck_assert(g.truncated);
    /* The descriptor's check: flops 5 N log2 N times howmany; a negative stride stays on the CPU. */
    static double big[1024]; /* 64 complex elements in, 124 out, apart */
    gs_call_t c;
    gs_fftw_t p = {.op = GS_OP_fftexec, .known = true, .in = big, .out = big + 512};
    gs_fftw_geom_guru(&p.g, GS_FFTW_DFT, GS_P_Z, -1, 1, d64, 1, d64 + 3, true, big, big + 512, 0);
    gs_fftw_geom_finish(&p.g);
    ck_assert_ptr_null(gs_fftw_family.check(&c, &p));
    ck_assert(c.flops == 5 * 16 * 4 * 4);
    p.out = big + 64; /* new arrays that overlap */
    ck_assert_str_eq(gs_fftw_family.check(&c, &p), "overlapping arrays");
    p.out = big + 512;
    p.in = big + 1; /* a new array 8 bytes off the plan's alignment */
    ck_assert_str_eq(gs_fftw_family.check(&c, &p), "new arrays of another alignment");
    p.in = p.out;
    ck_assert_str_eq(gs_fftw_family.check(&c, &p), "new arrays of another placement");
    p.g.dims[0].is = -1;
    gs_fftw_geom_finish(&p.g);
    ck_assert_str_eq(gs_fftw_family.check(&c, &p), "negative stride");
    p.known = false;
    ck_assert_str_eq(gs_fftw_family.check(&c, &p), "unknown plan");
}
END_TEST

/* Twin candidates (twin.c): plans whose hashes meet each find one of their GS_FFTW_TWIN_PROBES slots; one more
 * gets no twins until a plan is destroyed; cleanup forgets them all. */
START_TEST(test_fftw_twin_slots)
{
    enum { N = GS_FFTW_TWIN_PROBES + 1 };
    static char base[1 << 16];
    const void *plans[N];
    int n = 0;
    for (size_t k = 0; k < sizeof base && n < N; k += 16)
        if (gs_fftw_twin_slot(base + k, 0) == gs_fftw_twin_slot(base, 0))
            plans[n++] = base + k;
    ck_assert_int_eq(n, N);
    bool serial = gs.opt.fftw_serial;
    gs.opt.fftw_serial = true;
    gs_fftw_geom_t g = {.kind = GS_FFTW_DFT, .prec = GS_P_Z, .threads = 2, .flops = 5e4};
    gs_fftw_run_t r;
    pthread_mutex_lock(&gs_fftw_planner_lock);
    for (int i = 0; i < N; i++) {
        g.plan = plans[i];
        gs_fftw_twin_mark(&g);
    }
    for (int i = 0; i < N; i++) { /* a candidate's execute is a timed trial (slot set) */
        ck_assert_ptr_eq(gs_fftw_twin_begin(plans[i], &r), plans[i]);
        ck_assert_int_eq(r.slot >= 0, i < N - 1);
    }
    gs_fftw_twin_drop(plans[1], GS_P_Z, false);
    gs_fftw_twin_begin(plans[1], &r);
    ck_assert_int_lt(r.slot, 0);
    g.plan = plans[N - 1]; /* the plan left out now finds plans[1]'s slot */
    gs_fftw_twin_mark(&g);
    gs_fftw_twin_begin(plans[N - 1], &r);
    ck_assert_int_ge(r.slot, 0);
    gs_fftw_twin_drop(NULL, GS_P_Z, true);
    for (int i = 0; i < N; i++) {
        gs_fftw_twin_begin(plans[i], &r);
        ck_assert_int_lt(r.slot, 0);
    }
    pthread_mutex_unlock(&gs_fftw_planner_lock);
    gs.opt.fftw_serial = serial;
}
END_TEST

/* Guru geometries as one advanced layout (layout.c), or the reason none expresses them. */
static const char *layout_of(int kind, int rank, const int *dims, int hrank, const int *hdims, bool inplace,
                             gs_fftw_geom_t *g)
{
    static double buf[2];
    gs_fftw_geom_guru(g, kind, GS_P_Z, -1, rank, dims, hrank, hdims, false, buf, inplace ? buf : buf + 1, 0);
    gs_fftw_geom_finish(g);
    return g->why;
}

START_TEST(test_fftw_layout)
{
    gs_fftw_geom_t g;
    /* A column-major 4 x 6 DFT (FFTW's dimensions in Fortran order) is the row-major 6 x 4 one. */
    const int colmajor[] = {4, 1, 1, 6, 4, 4};
    ck_assert_ptr_null(layout_of(GS_FFTW_DFT, 2, colmajor, 0, NULL, false, &g));
    ck_assert(g.lay.rank == 2 && g.lay.n[0] == 6 && g.lay.n[1] == 4 && g.lay.inembed[1] == 4 && g.lay.batch == 1);
    ck_assert(g.lay.idist == 24 && g.lay.odist == 24); /* one transform: a contiguous batch's, not 0 */
    /* Two howmany dimensions that one distance expresses (3 x 5 transforms 16 apart) are one batch of 15. */
    const int d16[] = {16, 1, 1}, h2[] = {3, 80, 80, 5, 16, 16}, h2bad[] = {3, 96, 80, 5, 16, 16};
    ck_assert_ptr_null(layout_of(GS_FFTW_DFT, 1, d16, 2, h2, false, &g));
    ck_assert(g.lay.batch == 15 && g.lay.idist == 16 && g.lay.odist == 16);
    /* Two that no distance merges: in place on the CPU; out of place through the permutation kernels, as one
     * contiguous batch of 15. */
    ck_assert_str_eq(layout_of(GS_FFTW_DFT, 1, d16, 2, h2bad, true, &g), "howmany rank above 1");
    ck_assert_ptr_null(layout_of(GS_FFTW_DFT, 1, d16, 2, h2bad, false, &g));
    ck_assert(g.perm && g.lay.batch == 15 && g.lay.idist == 16 && g.lay.istride == 1);
    ck_assert(g.gather.nd == 3 && g.gather.src[0] == 96 && g.gather.src[1] == 16 && g.gather.dst[0] == 80);
    /* A transposed output goes through the kernels: gathered as it is, scattered with the output's strides. */
    const int transposed[] = {4, 6, 1, 6, 1, 4}, overlap[] = {10, 6, 6, 10, 1, 1};
    ck_assert_ptr_null(layout_of(GS_FFTW_DFT, 2, transposed, 0, NULL, false, &g));
    ck_assert(g.perm && g.lay.rank == 2 && g.lay.n[0] == 4 && g.lay.n[1] == 6 && g.lay.idist == 24);
    ck_assert(g.gather.total == 24 && g.gather.src[0] == 6 && g.gather.src[1] == 1 && g.gather.dst[0] == 6);
    ck_assert(g.scatter.src[0] == 6 && g.scatter.dst[0] == 1 && g.scatter.dst[1] == 4);
    /* Overlapping rows of a 2-D c2r's real output: written twice, no layout serves; nor in place. */
    ck_assert_str_eq(layout_of(GS_FFTW_C2R, 2, overlap, 0, NULL, false, &g), "strides no advanced layout expresses");
    ck_assert(!g.perm);
    ck_assert_str_eq(layout_of(GS_FFTW_DFT, 2, transposed, 0, NULL, true, &g), "strides no advanced layout expresses");
    /* In place: r2c 6 x 10 in FFTW's padded layout (12 reals a row, 6 complex), or not. */
    const int padded[] = {6, 12, 6, 10, 1, 1}, unpadded[] = {6, 12, 7, 10, 1, 1};
    ck_assert_ptr_null(layout_of(GS_FFTW_R2C, 2, padded, 0, NULL, true, &g));
    ck_assert(g.lay.inembed[1] == 12 && g.lay.onembed[1] == 6);
    ck_assert_str_eq(layout_of(GS_FFTW_R2C, 2, unpadded, 0, NULL, true, &g), "in place without FFTW's padded layout");
    /* Output strides of 2 leave every other element alone: the output has gaps, and its span is the whole. */
    const int gapped[] = {16, 1, 2};
    ck_assert_ptr_null(layout_of(GS_FFTW_DFT, 1, gapped, 0, NULL, false, &g));
    ck_assert(g.gaps && g.span[1] == 2 * 31 && g.span[0] == 2 * 16);
    ck_assert_str_eq(layout_of(GS_FFTW_DFT, 4, (const int[]){2, 8, 8, 2, 4, 4, 2, 2, 2, 2, 1, 1}, 0, NULL, false, &g),
                     "rank above 3");
}
END_TEST

START_TEST(test_fftw_registry)
{
    static char plans[3];
    gs_fftw_geom_t g = {0}, out;
    for (int i = 0; i < 3; i++) {
        g.plan = &plans[i], g.prec = i == 2 ? GS_P_C : GS_P_Z, g.rank = i + 1;
        ck_assert_int_eq(gs_fftw_register(&g), GS_OK);
    }
    ck_assert(gs_fftw_lookup(&plans[1], &out) && out.rank == 2);
    g.plan = &plans[1], g.prec = GS_P_Z, g.rank = 7; /* a pointer handed out again replaces its entry */
    ck_assert_int_eq(gs_fftw_register(&g), GS_OK);
    ck_assert(gs_fftw_lookup(&plans[1], &out) && out.rank == 7);
    /* A deferred plan's measured one (planners.c): recorded with its arrays, handed back to be destroyed. */
    static char measured, arrays[2];
    const void *m;
    gs_fftw_set_measured(&plans[0], &measured, &arrays[0], &arrays[1]);
    ck_assert(gs_fftw_peek(&plans[0], &out) && out.measured == &measured && out.measured_in == &arrays[0] &&
              out.measured_out == &arrays[1]);
    ck_assert_int_eq(gs_fftw_forget(&plans[0], &m), 0); /* the library that made it */
    ck_assert_ptr_eq(m, &measured);
    ck_assert(!gs_fftw_lookup(&plans[0], &out));
    ck_assert_int_eq(gs_fftw_forget(&plans[0], &m), -1); /* unknown now */
    ck_assert_ptr_null(m);
    gs_fftw_forget_all(GS_P_Z, 0); /* fftw_cleanup: the fftwf_ plan stays */
    ck_assert(!gs_fftw_lookup(&plans[1], &out));
    ck_assert(gs_fftw_lookup(&plans[2], &out) && out.rank == 3);
    gs_fftw_forget_all(GS_P_C, 0);
    ck_assert(!gs_fftw_lookup(&plans[2], &out));
    /* Two FFTWs: one library's cleanup leaves the other's plans of the precision. */
    static char other[2];
    for (int i = 0; i < 2; i++) {
        g.plan = &other[i], g.prec = GS_P_Z, g.lib = (uint8_t)i, g.rank = 1;
        ck_assert_int_eq(gs_fftw_register(&g), GS_OK);
    }
    gs_fftw_forget_all(GS_P_Z, 0);
    ck_assert(!gs_fftw_lookup(&other[0], &out));
    ck_assert(gs_fftw_lookup(&other[1], &out) && out.lib == 1);
    ck_assert_int_eq(gs_fftw_forget(&other[1], &m), 1);
    ck_assert_ptr_null(m);
    /* The short path: a plan below every FFTW routine's threshold, or of a form the GPU lacks, made by the
     * process-wide FFTW; not one above it, nor another FFTW's; out again when destroyed or cleaned up. */
    static char shortp[4];
    for (int r = 0; r < GS_NROUTINES; r++)
        gs_rules[r].min_flops = 1e7;
    gs_fftw_geom_t s = {.plan = &shortp[0], .prec = GS_P_Z, .flops = 1e3};
    gs_fftw_register(&s);
    s.plan = &shortp[1], s.flops = 1e12;
    gs_fftw_register(&s);
    s.plan = &shortp[2], s.why = "rank above 3";
    gs_fftw_register(&s);
    s.plan = &shortp[3], s.why = NULL, s.flops = 1e3, s.lib = 1;
    gs_fftw_register(&s);
    ck_assert(gs_fftw_short_path(&shortp[0]) && !gs_fftw_short_path(&shortp[1]));
    ck_assert(gs_fftw_short_path(&shortp[2]) && !gs_fftw_short_path(&shortp[3]));
    s.plan = &shortp[0], s.flops = 1e12, s.lib = 0; /* the pointer handed out again, for a large plan */
    gs_fftw_register(&s);
    ck_assert(!gs_fftw_short_path(&shortp[0]));
    gs_fftw_forget(&shortp[2], &m);
    ck_assert(!gs_fftw_short_path(&shortp[2]));
    gs_fftw_forget_all(GS_P_Z, 0);
    gs_fftw_forget_all(GS_P_Z, 1);
}
END_TEST

/* A copy of the library that defines sym, under another name in dir: a second object with the same symbols, as
 * pyFFTW's bundled FFTW is beside the system's. */
static void *load_copy(const void *sym, const char *dir, char *path, size_t n)
{
    Dl_info info;
    ck_assert(dladdr(sym, &info) && info.dli_fname);
    snprintf(path, n, "%s/libfftw3-copy.so", dir);
    int in = open(info.dli_fname, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert(in >= 0 && out >= 0);
    char buf[1 << 16];
    for (ssize_t k; (k = read(in, buf, sizeof buf)) > 0;)
        ck_assert(write(out, buf, (size_t)k) == k);
    close(in), close(out);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

/* Each caller reaches its own library's definition (core/real.c), and an execute of a plan another library made
 * goes to that library's entry (gs_fftw_cpu). */
START_TEST(test_real_caller)
{
    void *ha = dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
    ck_assert_ptr_nonnull(ha);
    char dir[] = "/tmp/gs-unit-XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    void *hb = load_copy(dlsym(ha, "fftw_execute"), dir, path, sizeof path);
    ck_assert_ptr_nonnull(hb);
    void *pa = dlsym(ha, "fftw_plan_dft_1d"), *pb = dlsym(hb, "fftw_plan_dft_1d");
    void *ina = dlsym(ha, "fftw_execute"), *inb = dlsym(hb, "fftw_execute"); /* code in each, as a caller */
    ck_assert(pa && pb && pa != pb);
    int lib = -1;
    ck_assert_int_eq(gs_real_libs(), 0);
    ck_assert_ptr_eq(gs_real_caller(ina, pa, "fftw_plan_dft_1d", &lib), pa); /* the process-wide one */
    ck_assert_int_eq(lib, 0);
    ck_assert_ptr_eq(gs_real_caller(inb, pa, "fftw_plan_dft_1d", &lib), pb); /* its own */
    ck_assert_int_eq(lib, 1);
    ck_assert_ptr_eq(gs_real_caller(inb, pa, "fftw_cleanup", &lib), dlsym(hb, "fftw_cleanup"));
    ck_assert_int_eq(lib, 1); /* the same library, the same number */
    ck_assert_int_eq(gs_real_libs(), 1);
    /* Callers whose scope has none: the main program (the global scope, where gpushim comes first), libc. */
    ck_assert_ptr_eq(gs_real_caller((const void *)load_copy, pa, "fftw_plan_dft_1d", &lib), pa);
    ck_assert_int_eq(lib, 0);
    ck_assert_ptr_eq(gs_real_caller((const void *)printf, pa, "fftw_plan_dft_1d", &lib), pa);
    ck_assert_int_eq(lib, 0);
    ck_assert_ptr_eq(gs_real_caller(NULL, pa, "fftw_plan_dft_1d", &lib), pa);
    /* A library's symbols and entries, cached. */
    static _Atomic(void *) slots[GS_REAL_LIBS];
    ck_assert_ptr_eq(gs_real_lib(1, slots, "fftw_destroy_plan"), dlsym(hb, "fftw_destroy_plan"));
    ck_assert_ptr_eq(atomic_load(&slots[0]), dlsym(hb, "fftw_destroy_plan"));
    ck_assert_ptr_null(gs_real_lib(0, slots, "fftw_destroy_plan"));
    ck_assert_ptr_null(gs_real_lib(2, slots, "fftw_destroy_plan"));
    ck_assert_ptr_null(gs_real_lib(1, slots + 1, "no_such_symbol"));
    ck_assert_ptr_eq(gs_real_lib_entry(1, GS_E_fftw_execute_dft), dlsym(hb, "fftw_execute_dft"));
    /* An execute that stays on the CPU: the entry of its plan's library, else the dispatcher's. */
    gs_call_t c = {.entry = GS_E_fftw_execute, .real = ina};
    gs_fftw_t p = {.lib = 0};
    ck_assert_ptr_eq(gs_fftw_cpu(&c, &p), ina);
    p.lib = 1;
    ck_assert_ptr_eq(gs_fftw_cpu(&c, &p), inb);
    ck_assert_ptr_eq(c.real, inb);
    unlink(path);
    rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gpushim");
    struct {
        const char *name;
        const TTest *tests[8];
    } cases[] = {
        {"table", {test_table_entries_match_routines, test_table_find}},
        {"options", {test_parse_number, test_parse_bool, test_options_read}},
        {"policy", {test_policy_parse, test_policy_default_text, test_policy_decide, test_policy_model}},
        {"blas", {test_gemm_row_major, test_gemm_validity, test_symm_trmm_row_major, test_rank_k_row_major,
                  test_cblas_letters, test_scalar_zero}},
        {"log", {test_json_escape, test_sites}},
        {"wp", {test_wp_protect, test_edges}},
        {"fftw", {test_fftw_geometry, test_fftw_twin_slots, test_fftw_layout, test_fftw_registry, test_real_caller}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        TCase *tc = tcase_create(cases[i].name);
        for (int j = 0; j < 8 && cases[i].tests[j]; j++)
            tcase_add_test(tc, cases[i].tests[j]);
        suite_add_tcase(s, tc);
    }
    suite_add_tcase(s, gs_test_history());
    suite_add_tcase(s, gs_test_team());
    suite_add_tcase(s, gs_test_span());
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

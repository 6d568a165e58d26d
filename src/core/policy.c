/* The size policy: per-routine thresholds from the built-in policy (policies/default.policy, embedded at build
 * time), an optional policy file (GPUSHIM_POLICY) and environment overrides, and the decision for one call. */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gs.h"

/* The default policy file, embedded verbatim and NUL-terminated (GS_DEFAULT_POLICY is its path, set by the
 * Makefile), so that the built-in defaults and user files go through one parser. */
__asm__(".section .rodata\n"
        ".globl gs_policy_default_text\n"
        ".hidden gs_policy_default_text\n"
        ".type gs_policy_default_text, @object\n"
        "gs_policy_default_text:\n"
        ".incbin \"" GS_DEFAULT_POLICY "\"\n"
        ".byte 0\n"
        ".previous\n");
GS_HIDDEN extern const char gs_policy_default_text[];

gs_rule_t gs_rules[GS_NROUTINES];

/* The keys of a rule, for the parser. */
static const struct {
    const char *name;
    size_t offset;
} gs_policy_keys[] = {
#define GS_KEY(k) {#k, offsetof(gs_rule_t, k)}
    GS_KEY(min_flops),  GS_KEY(cpu_gflops),      GS_KEY(cpu_us),        GS_KEY(cpu_gbps), GS_KEY(threads),
    GS_KEY(gpu_gflops), GS_KEY(link_gbps),       GS_KEY(registered_gbps), GS_KEY(register_gbps), GS_KEY(check_gbps),
    GS_KEY(latency_us), GS_KEY(setup_us),        GS_KEY(bringup_us),      GS_KEY(first_us),  GS_KEY(serial),
    GS_KEY(history),
#undef GS_KEY
};
#define GS_NKEYS (sizeof gs_policy_keys / sizeof gs_policy_keys[0])

/* Applies "key=value" to the rules of the routines in match.  Returns 0, or a message in err. */
static int gs_policy_apply(gs_rule_t *rules, const bool *match, char *kv, char *err, size_t n)
{
    char *eq = strchr(kv, '=');
    if (!eq) {
        snprintf(err, n, "expected KEY=VALUE, found '%s'", kv);
        return GS_EINVAL;
    }
    *eq = 0;
    size_t key = 0;
    while (key < GS_NKEYS && strcmp(kv, gs_policy_keys[key].name) != 0)
        key++;
    if (key == GS_NKEYS) {
        char known[200] = "";
        for (size_t k = 0; k < GS_NKEYS; k++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", k ? ", " : "",
                     gs_policy_keys[k].name);
        snprintf(err, n, "unknown key '%s' (known: %s)", kv, known);
        return GS_EINVAL;
    }
    double v;
    if (gs_parse_number(eq + 1, &v) != GS_OK) {
        snprintf(err, n, "%s='%s' is not a number of 0 or more", kv, eq + 1);
        return GS_EINVAL;
    }
    for (int r = 0; r < GS_NROUTINES; r++)
        if (match[r])
            *(double *)((char *)&rules[r] + gs_policy_keys[key].offset) = v;
    return GS_OK;
}

/* Applies one line (a copy, which it cuts up) to rules.  GS_OK for a rule or a blank or comment line; else
 * GS_EINVAL with a message in err.  *like is set when the line looks like a policy's: its pattern names a
 * routine, or it has a known key. */
static int gs_policy_line(gs_rule_t *rules, char *line, char *err, size_t n, bool *like)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *save, *pattern = strtok_r(line, " \t\r", &save), *kv = pattern ? strtok_r(NULL, " \t\r", &save) : NULL;
    *like = false;
    if (!pattern)
        return GS_OK;
    /* The routines the pattern names, matched once for the line's keys (the built-in policy's 237 lines are
     * parsed by the process's first BLAS call, NumPy's at its import: fnmatch per key took 4 ms there). */
    bool match[GS_NROUTINES];
    for (int r = 0; r < GS_NROUTINES; r++)
        *like |= match[r] = fnmatch(pattern, gs_routines[r].name, 0) == 0;
    if (!kv) {
        snprintf(err, n, "'%s' has no KEY=VALUE", pattern);
        return GS_EINVAL;
    }
    bool named = *like;
    bool threshold_only = true;
    for (; kv; kv = strtok_r(NULL, " \t\r", &save)) {
        for (size_t k = 0; k < GS_NKEYS && !*like; k++)
            *like = strncmp(kv, gs_policy_keys[k].name, strlen(gs_policy_keys[k].name)) == 0;
        threshold_only &= strncmp(kv, "min_flops=", 10) == 0;
        if (gs_policy_apply(rules, match, kv, err, n) != GS_OK)
            return GS_EINVAL;
    }
    if (!named) {
        snprintf(err, n, "'%s' matches no routine", pattern);
        return GS_EINVAL;
    }
    /* A rule that sets only a threshold means it: the cost model no longer applies there. */
    if (threshold_only)
        gs_policy_apply(rules, match, (char[]){"cpu_gflops=0"}, err, n);
    return GS_OK;
}

int gs_policy_parse(gs_rule_t *rules, const char *text, const char *origin, gs_policy_scan_t *scan)
{
    int errors = 0, lineno = 0;
    if (scan)
        *scan = (gs_policy_scan_t){0};
    for (const char *s = text; *s; lineno++) {
        const char *eol = strchr(s, '\n');
        size_t len = eol ? (size_t)(eol - s) : strlen(s);
        char line[512], err[256];
        bool like = false;
        int rc = GS_EINVAL;
        snprintf(line, sizeof line, "%.*s", (int)len, s);
        if (len >= sizeof line)
            snprintf(err, sizeof err, "line too long");
        else
            rc = gs_policy_line(rules, line, err, sizeof err, &like);
        if (rc != GS_OK && !errors && scan) {
            scan->first_bad = lineno + 1;
            snprintf(scan->first_text, sizeof scan->first_text, "%.*s", (int)len, s);
            for (char *c = scan->first_text; *c; c++) /* a binary file's bytes, not the terminal's controls */
                if ((unsigned char)*c < 0x20 || *c == 0x7f)
                    *c = *c == '\t' ? ' ' : '?';
        }
        if (rc != GS_OK && !scan)
            gs_msg("%s:%d: %s", origin, lineno + 1, err);
        errors += rc != GS_OK;
        if (scan)
            scan->like += like;
        s += len + (eol != NULL);
    }
    return errors;
}

static void gs_policy_read_file(const char *path)
{
    static char text[1 << 16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        gs_msg("GPUSHIM_POLICY: cannot open '%s': %s; using the built-in policy", path, strerror(errno));
        return;
    }
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n < 0 || n == (ssize_t)sizeof text - 1) {
        gs_msg("GPUSHIM_POLICY: cannot read '%s': %s; using the built-in policy", path,
               n < 0 ? strerror(errno) : "larger than 64 KiB");
        return;
    }
    text[n] = 0;
    /* A file with errors and no line that looks like a policy's (another file named by mistake) gets one
     * message, not one per line, and changes nothing (tests/t_options.sh, "not a policy file"). */
    static gs_rule_t trial[GS_NROUTINES];
    gs_policy_scan_t scan;
    memcpy(trial, gs_rules, sizeof trial);
    if (gs_policy_parse(trial, text, path, &scan) && !scan.like) {
        gs_msg("GPUSHIM_POLICY: %s:%d: '%s': not a gpushim policy file; using the built-in policy", path,
               scan.first_bad, scan.first_text);
        return;
    }
    gs_policy_parse(gs_rules, text, path, NULL);
}

/* The threads the CPU library computes on: its environment variables (OpenBLAS's, then OpenMP's), else the
 * CPUs this process may run on.  A program that changes them at run time (threadpoolctl) is not seen. */
static int gs_policy_threads(void)
{
    static const char *const vars[] = {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *s = getenv(vars[i]);
        int n = s ? atoi(s) : 0;
        if (n > 0)
            return n;
    }
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)sysconf(_SC_NPROCESSORS_ONLN);
}

void gs_policy_init(void)
{
    gs.cpu_threads = gs_policy_threads();
    for (int r = 0; r < GS_NROUTINES; r++)
        gs_rules[r] = (gs_rule_t){.min_flops = 1e9};
    gs_policy_parse(gs_rules, gs_policy_default_text, "policies/default.policy", NULL);
    if (gs.opt.policy)
        gs_policy_read_file(gs.opt.policy);
    for (int r = 0; r < GS_NROUTINES; r++) {
        char var[64];
        int len = snprintf(var, sizeof var, "GPUSHIM_MIN_FLOPS_%s", gs_routines[r].name);
        for (int i = 0; i < len; i++)
            var[i] = (char)toupper((unsigned char)var[i]);
        const char *s = getenv(var);
        double v;
        /* A threshold from the environment replaces the cost model, as a threshold-only rule does. */
        if (gs.opt.min_flops >= 0)
            gs_rules[r].min_flops = gs.opt.min_flops, gs_rules[r].cpu_gflops = 0;
        if (!s)
            continue;
        if (gs_parse_number(s, &v) == GS_OK)
            gs_rules[r].min_flops = v, gs_rules[r].cpu_gflops = 0;
        else
            gs_msg("%s='%s' is not valid: use " GS_NUMBER_ACCEPTED "; using %g", var, s,
                   gs_rules[r].min_flops);
    }
}

gs_where_t gs_policy_decide(gs_call_t *c, bool gpu_capable)
{
    if (gs.opt.offload == GS_OFFLOAD_NEVER)
        return c->why = "offload=never", GS_WHERE_CPU;
    if (!gpu_capable)
        return c->why = "cpu only", GS_WHERE_CPU;
    if (c->flops == 0)
        return c->why = "trivial", GS_WHERE_CPU;
    /* min_flops=inf turns a routine off, even under GPUSHIM_OFFLOAD=always. */
    if (isinf(gs_rules[c->routine].min_flops))
        return c->why = "routine off (min_flops=inf)", GS_WHERE_CPU;
    if (gs.opt.offload == GS_OFFLOAD_ALWAYS)
        return c->why = "forced", GS_WHERE_GPU;
    if (c->flops < gs_rules[c->routine].min_flops)
        return c->why = "below threshold", GS_WHERE_CPU;
    return c->why = "above threshold", GS_WHERE_GPU;
}

/* The CPU library's rate on c: the rule's, scaled to the threads the call runs on when they are fewer than the
 * rule's were (FFTW plans know theirs; BLAS and LAPACK take the library's environment variables).  Calls
 * weighed at once share the CPU library's threads: OpenBLAS computes a call made inside an OpenMP region on the
 * calling thread alone, and concurrent calls from threads of its own take turns with its pool. */
static double gs_cpu_rate(const gs_call_t *c, const gs_rule_t *r)
{
    double t = c->threads ? c->threads : gs.cpu_threads;
    if (c->sharing > 1 && (double)gs.cpu_threads / c->sharing < t)
        t = gs.cpu_threads >= c->sharing ? (double)gs.cpu_threads / c->sharing : 1;
    return r->cpu_gflops * 1e9 * (r->threads > 0 && t > 0 && t < r->threads ? t / r->threads : 1);
}

/* The rates' seconds of c on the CPU, its operands' touched bytes: the CPU library's packing and memory traffic
 * weigh in shapes with a small dimension (X @ W with W of 64 columns took 13.4 ms on the H200 machine where its
 * flops alone say 8.3). */
static double gs_cpu_s(const gs_call_t *c, const gs_rule_t *r, double touched)
{
    double mem = r->cpu_gbps > 0 ? touched / (r->cpu_gbps * 1e9) : 0;
    return r->cpu_us * 1e-6 + c->flops / gs_cpu_rate(c, r) + mem;
}

/* Seconds of copies for the bytes of t, and of the part of them that is invested (registration included). */
static double gs_copy_s(const gs_rule_t *r, const gs_traffic_t *t, double *invest)
{
    double staged = 1 / (r->link_gbps * 1e9);
    double reg = r->registered_gbps > 0 ? 1 / (r->registered_gbps * 1e9) : staged;
    double pin = r->register_gbps > 0 ? 1 / (r->register_gbps * 1e9) : 0;
    double check = r->check_gbps > 0 ? 1 / (r->check_gbps * 1e9) : 0;
    double all = t->staged * staged + (t->registered - t->overlap) * reg + t->reg * pin + t->resident * check;
    *invest = t->invest * reg + (t->reg < t->invest ? t->reg : t->invest) * pin;
    return all;
}

/* A GPU call's copies and computation together: the slower of the two where they overlap, their sum where not. */
static double gs_copy_and_compute(const gs_rule_t *r, double copy, double compute)
{
    return r->serial > 0 ? copy + compute : copy > compute ? copy : compute;
}

/* The history's kind of a call on side where: its routine, its flops and the bytes it copies, each to half a
 * power of two, whether it bears a setup, the threads it runs on where the family knows them (FFTW plans), and
 * whether it came through a Python layer (whose CPU side is NumPy's or SciPy's own function, copies and all). */
static uint64_t gs_history_key(const gs_call_t *c, gs_where_t where, double bytes, bool setup)
{
    uint64_t f = c->flops >= 1 ? (uint64_t)(2 * log2(c->flops)) : 0;
    uint64_t b = bytes >= 1 ? (uint64_t)(2 * log2(bytes)) + 1 : 0;
    return (uint64_t)c->routine << 32 | (uint64_t)c->threads << 24 | (uint64_t)(where + 1) << 22 |
           (uint64_t)setup << 20 | (uint64_t)(c->api != NULL) << 16 | (b & 0xff) << 8 | (f & 0xff);
}

gs_where_t gs_policy_model(gs_call_t *c, const gs_traffic_t *t, double setup, double left)
{
    const gs_rule_t *r = &gs_rules[c->routine];
    if (!(r->cpu_gflops > 0 && r->gpu_gflops > 0 && r->link_gbps > 0))
        return GS_WHERE_GPU;
    double cpu = gs_cpu_s(c, r, t->touched);
    /* Copies and computation overlap in GEMM's tiles (cuda_gemm.c), so the slower of the two counts; a routine
     * whose operands are copied whole before it computes (serial) adds them up. */
    double invest, copy = gs_copy_s(r, t, &invest);
    double compute = c->flops / (r->gpu_gflops * 1e9) / (t->devices > 1 ? t->devices : 1);
    double fixed = (r->latency_us + setup * r->setup_us) * 1e-6;
    /* One GPU serves every thread: the work of the calls on it or waiting for it comes first. */
    double queue = c->sharing > 1 ? (double)atomic_load_explicit(&gs.gpu_queued_ns, memory_order_relaxed) * 1e-9 : 0;
    double gpu = fixed + gs_copy_and_compute(r, copy, compute);
    /* The rates' seconds, times what calls of the same kind measured against them lately (history.c). */
    double fcpu = 1, fgpu = 1;
    int window = 0, cpu_counted = 0, gpu_counted = 0;
    if (r->history >= 1) {
        window = r->history < GS_HISTORY_MAX ? (int)r->history : GS_HISTORY_MAX;
        c->model[GS_WHERE_CPU] = (float)cpu, c->model[GS_WHERE_GPU] = t->reg > 0 ? -1.0f : (float)(gpu + queue);
        c->hkey[GS_WHERE_CPU] = gs_history_key(c, GS_WHERE_CPU, 0, false);
        c->hkey[GS_WHERE_GPU] = gs_history_key(c, GS_WHERE_GPU, t->staged + t->registered, setup > 0);
        fcpu = gs_history_factor(c->hkey[GS_WHERE_CPU], window, &cpu_counted);
        fgpu = gs_history_factor(c->hkey[GS_WHERE_GPU], window, &gpu_counted);
        c->t_pred = gs_now_ns();
    }
    /* The CPU's factor above 1 counts once a whole window of calls measured it, as the GPU's decides (below): a
     * kind's first CPU calls after its uncounted first can be slow too (SciPy's rfft2 of 1024^2 took 2.35 ms
     * against 1.03 later on the H100: pocketfft's plan cache, the workers' threads), and one sent the kind to a
     * GPU slower than the warm CPU. */
    if (fcpu > 1 && cpu_counted < window)
        fcpu = 1;
    cpu *= fcpu, gpu = gpu * fgpu + queue; /* the measured times include the wait for the GPU's queue */
    cpu *= 1 + c->cpu_setup;
    /* For the log, forced or not; the bring-up still to come counts there, and when the call waits for it
     * (dispatch/warmup.c), but not here: a call that would be faster on the GPU once it is up wants the GPU,
     * and starts its bring-up. */
    c->pred_cpu = (float)cpu, c->pred_gpu = (float)(gpu + left), c->pred_wait = (float)left;
    c->pred_queue = (float)queue;
    /* An input that came back and will stay on the device is an investment in the calls that use it next: the
     * call bears 1 / (again + 1) of it, so that a matrix used again and again moves once that pays. */
    double mine = copy - invest * (double)t->again / (t->again + 1.0);
    /* The GPU's factor above 1 decides once a whole window of calls measured it: the slow GPU calls that cost
     * decisions on the H200 machine were a kind's first uses of memory (the cache's first tracking of an
     * output, cuFFT's first executes), one or two that do not recur, which kept the kind on a CPU 2 to 3 times
     * slower (bench/RESULTS.md, 2026-12-02).  A window of them is the kind's own speed: without this, a kind
     * the rates put too fast on the GPU stays there for good, predicted slower than the CPU call after call
     * (the stand-in's batched transforms did).  After GS_HISTORY_IDLE calls on the CPU the GPU is tried again
     * (history.c). */
    double fdecide = fgpu < 1 || gpu_counted >= window ? fgpu : 1;
    if (gs.opt.offload == GS_OFFLOAD_ALWAYS || fdecide * (fixed + gs_copy_and_compute(r, mine, compute)) + queue < cpu)
        return GS_WHERE_GPU;
    c->why = "cpu faster";
    return GS_WHERE_CPU;
}

bool gs_policy_gpu_wins(gs_call_t *c, double bytes, bool gpu_capable)
{
    if (gs_policy_decide(c, gpu_capable) == GS_WHERE_CPU)
        return false;
    const gs_rule_t *r = &gs_rules[c->routine];
    if (gs.opt.offload == GS_OFFLOAD_ALWAYS || !(r->cpu_gflops > 0 && r->gpu_gflops > 0 && r->link_gbps > 0))
        return true;
    double cpu = gs_cpu_s(c, r, 0);
    double gpu = r->latency_us * 1e-6 +
                 gs_copy_and_compute(r, bytes / (r->link_gbps * 1e9), c->flops / (r->gpu_gflops * 1e9));
    return gpu < cpu;
}

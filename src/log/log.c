/* The offload log (GPUSHIM_LOG): one JSON object per line, a header record first, then one record per
 * intercepted call, formatted into a stack buffer (write.c) and appended through the thread's buffer (runs.c),
 * written whole: records of many threads and processes never interleave, nothing is allocated per call, and
 * every line written survives a crash.  Also the counters of timed calls, with the exit record and the exit
 * summary (GPUSHIM_SUMMARY). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/gs.h"
#include "log/record.h"
#include "log/site.h"

static const char *const gs_offload_names[] = {"auto", "always", "never"};
static const char *const gs_sites_names[] = {"python", "native", "off"};

/* The first of the variables that is set and not empty, or NULL. */
static const char *gs_first_env(const char *const *vars, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* The process's rank in a parallel job, from the variables MPI launchers and Slurm set, or NULL. */
static const char *gs_log_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK",
                                       "SLURM_PROCID"};
    return gs_first_env(vars, sizeof vars / sizeof vars[0]);
}

/* The process's rank on its node, from the launcher's own variable before Slurm's (as gpushim-run picks the
 * GPU), or NULL. */
static const char *gs_log_local_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK",
                                       "PALS_LOCAL_RANKID", "SLURM_LOCALID", "PBS_VNODENUM"};
    return gs_first_env(vars, sizeof vars / sizeof vars[0]);
}

/* The batch system's job id (Slurm, PBS, LSF, Grid Engine), or NULL. */
static const char *gs_log_job(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID"};
    return gs_first_env(vars, sizeof vars / sizeof vars[0]);
}

/* Expands %p (pid), %h (host name), %r (rank, 0 when none), %j (job id, "nojob" when none) and %% in the log
 * name. */
static int gs_log_path(char *out, size_t n, const char *pattern)
{
    size_t j = 0;
    for (const char *s = pattern; *s; s++) {
        char tmp[256];
        const char *piece = tmp;
        if (s[0] == '%' && s[1] && strchr("phrj%", s[1])) {
            s++;
            if (*s == 'p')
                snprintf(tmp, sizeof tmp, "%d", (int)getpid());
            else if (*s == 'h' && gethostname(tmp, sizeof tmp) != 0)
                snprintf(tmp, sizeof tmp, "unknown");
            else if (*s == 'r')
                piece = gs_log_rank() ? gs_log_rank() : "0";
            else if (*s == 'j')
                piece = gs_log_job() ? gs_log_job() : "nojob";
            else if (*s == '%')
                piece = "%";
            tmp[sizeof tmp - 1] = 0;
        } else {
            tmp[0] = *s;
            tmp[1] = 0;
        }
        size_t len = strlen(piece);
        if (j + len >= n)
            return GS_EINVAL;
        memcpy(out + j, piece, len);
        j += len;
    }
    out[j] = 0;
    return GS_OK;
}

/* A number for JSON: null for infinity (min_flops=inf: never offloaded). */
static int gs_json_number(char *out, size_t n, double v)
{
    return isinf(v) ? snprintf(out, n, "null") : snprintf(out, n, "%.6g", v);
}

/* The header record: format and library versions, the process (host, rank, local rank, job, the GPUs it may
 * see), and the policy in effect (the options that decide, and every routine's rule as [min_flops, cpu_gflops,
 * gpu_gflops, link_gbps, latency_us, setup_us]).  The GPU is named by the "gpu" event when it comes up, at the
 * first call that wants it. */
static void gs_log_header(void)
{
    static char buf[1 << 15]; /* once per process, under gs_init's once */
    char host[256] = "unknown", ehost[300], erank[80], elocal[80], ejob[80], evisible[300], epolicy[1100], mf[32];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    gs_json_escape(ehost, sizeof ehost, host);
    gs_json_escape(erank, sizeof erank, gs_log_rank() ? gs_log_rank() : "");
    gs_json_escape(elocal, sizeof elocal, gs_log_local_rank() ? gs_log_local_rank() : "");
    gs_json_escape(ejob, sizeof ejob, gs_log_job() ? gs_log_job() : "");
    const char *visible = getenv("CUDA_VISIBLE_DEVICES"); /* null when unset: every GPU visible */
    snprintf(evisible, sizeof evisible, "null");
    if (visible) {
        char e[290];
        gs_json_escape(e, sizeof e, visible);
        snprintf(evisible, sizeof evisible, "\"%s\"", e);
    }
    gs_json_escape(epolicy, sizeof epolicy, gs.opt.policy ? gs.opt.policy : "");
    if (gs.opt.min_flops >= 0)
        gs_json_number(mf, sizeof mf, gs.opt.min_flops);
    else
        snprintf(mf, sizeof mf, "null");
    int len = snprintf(buf, sizeof buf,
                       "{\"gpushim_log\":%d,\"version\":\"%s\",\"pid\":%d,\"ppid\":%d,\"host\":\"%s\",\"rank\":\"%s\","
                       "\"local_rank\":\"%s\",\"job\":\"%s\",\"cuda_visible_devices\":%s,\"time\":%lld,"
                       "\"offload\":\"%s\",\"sites\":\"%s\",\"policy_file\":\"%s\",\"min_flops\":%s,\"rules\":{",
                       GS_LOG_FORMAT, GS_VERSION, (int)getpid(), (int)getppid(), ehost, erank, elocal, ejob, evisible,
                       (long long)time(NULL), gs_offload_names[gs.opt.offload], gs_sites_names[gs.opt.sites], epolicy,
                       mf);
    for (int r = 0; r < GS_NROUTINES && len < (int)sizeof buf - 256; r++) {
        const gs_rule_t *k = &gs_rules[r];
        const double rule[] = {k->min_flops, k->cpu_gflops, k->gpu_gflops, k->link_gbps, k->latency_us, k->setup_us};
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s\"%s\":[", r ? "," : "", gs_routines[r].name);
        for (int i = 0; i < 6; i++) {
            len += snprintf(buf + len, sizeof buf - (size_t)len, i ? "," : "");
            len += gs_json_number(buf + len, sizeof buf - (size_t)len, rule[i]);
        }
        len += snprintf(buf + len, sizeof buf - (size_t)len, "]");
    }
    len += snprintf(buf + len, sizeof buf - (size_t)len, "}}\n");
    gs_log_write(buf, (size_t)len);
}

/* A message gpushim wrote on stderr, as a "message" event: the log says why too. */
static void gs_log_message(const char *text, size_t len)
{
    char what[640];
    snprintf(what, sizeof what, "%.*s", (int)len, text);
    gs_log_event("message", what);
}

/* Opens the log named by GPUSHIM_LOG (%p, %h, %r and %j expanded) and writes its header record: at
 * initialisation, once the options and the policy it records are read, and in a forked child (gs_log_reopen). */
static char gs_log_file[1100]; /* the name of the file open as gs.log_fd */

static void gs_log_open(void)
{
    if (!gs.opt.log)
        return;
    char path[sizeof gs_log_file];
    if (gs_log_path(path, sizeof path, gs.opt.log) != GS_OK) {
        gs_msg("GPUSHIM_LOG='%s': the expanded name is too long; no log is written", gs.opt.log);
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        gs_msg("GPUSHIM_LOG: cannot open '%s': %s; no log is written", path, strerror(errno));
        return;
    }
    gs.log_fd = fd;
    memcpy(gs_log_file, path, sizeof path);
    gs_log_header();
    atomic_store(&gs_msg_sink, gs_log_message);
}
GS_LIFE_HOOK(GS_LIFE_INIT, gs_log_open);

/* In a forked child whose log name has %p: the first record opens the child's own file. */
static void gs_log_reopen(void)
{
    pthread_mutex_lock(&gs.log_lock);
    if (atomic_load(&gs.log_reopen)) {
        if (gs.log_fd >= 0)
            close(gs.log_fd);
        gs.log_fd = -1;
        gs_log_open();
        atomic_store(&gs.log_reopen, 0);
    }
    pthread_mutex_unlock(&gs.log_lock);
}

void gs_log_call(const gs_call_t *c, double seconds)
{
    if (atomic_load_explicit(&gs.log_reopen, memory_order_relaxed))
        gs_log_reopen();
    if (gs.log_fd < 0 || (!gs.opt.log_each && gs_log_run(c, seconds)))
        return;
    char site[300] = "", native[200] = "";
    if (gs.opt.sites != GS_SITES_OFF) {
        gs_site_native(native, sizeof native, c->ret);
        if (gs.opt.sites != GS_SITES_PYTHON || !gs_site_python(site, sizeof site))
            gs_copy_str(site, sizeof site, native);
    }
    gs_log_record(c, seconds, 1, site, native);
    if (!gs.opt.log_each)
        gs_log_run_head(c, site, native);
}

gs_counter_t gs_counters[GS_NROUTINES];

void gs_call_record(gs_call_t *c)
{
    uint64_t ns = gs_now_ns() - c->t0;
    gs_counter_t *k = &gs_counters[c->routine];
    atomic_fetch_add_explicit(&k->calls[c->where], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->ns[c->where], ns, memory_order_relaxed);
    if (c->where == GS_WHERE_GPU) {
        atomic_fetch_add_explicit(&k->bytes_h2d, c->bytes_h2d, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->bytes_d2h, c->bytes_d2h, memory_order_relaxed);
        atomic_fetch_add_explicit(&k->bytes_saved, c->bytes_saved, memory_order_relaxed);
    }
    gs_log_call(c, (double)ns * 1e-9);
}

GS_EXPORT const char *gpushim_log_path(void)
{
    gs_init();
    return gs.log_fd >= 0 ? gs_log_file : NULL;
}

GS_EXPORT int gpushim_log_flush(void)
{
    if (gs.log_fd < 0)
        return 0;
    gs_log_runs_flush();
    return 1;
}

/* The per-routine table on stderr (GPUSHIM_SUMMARY=1). */
static void gs_summary_print(void)
{
    char buf[256];
    int len = snprintf(buf, sizeof buf,
                       "gpushim: summary for pid %d\n"
                       "gpushim: %-10s %10s %10s %10s %10s %10s %10s %10s %10s\n",
                       (int)getpid(), "routine", "calls", "on gpu", "gpu s", "cpu s", "MB to gpu", "MB from gpu",
                       "MB saved", "gpu share");
    ssize_t w = write(STDERR_FILENO, buf, (size_t)len);
    double saved = 0;
    for (int r = 0; r < GS_NROUTINES; r++) {
        gs_counter_t *k = &gs_counters[r];
        uint64_t gpu = atomic_load(&k->calls[GS_WHERE_GPU]), cpu = atomic_load(&k->calls[GS_WHERE_CPU]);
        if (gpu + cpu == 0)
            continue;
        double gsec = (double)atomic_load(&k->ns[GS_WHERE_GPU]) * 1e-9;
        double cs = (double)atomic_load(&k->ns[GS_WHERE_CPU]) * 1e-9;
        saved += (double)atomic_load(&k->bytes_saved);
        len = snprintf(buf, sizeof buf,
                       "gpushim: %-10s %10llu %10llu %10.4f %10.4f %10.1f %10.1f %10.1f %9.0f%%\n",
                       gs_routines[r].name, (unsigned long long)(gpu + cpu), (unsigned long long)gpu, gsec, cs,
                       (double)atomic_load(&k->bytes_h2d) * 1e-6, (double)atomic_load(&k->bytes_d2h) * 1e-6,
                       (double)atomic_load(&k->bytes_saved) * 1e-6, 100.0 * (double)gpu / (double)(gpu + cpu));
        w = write(STDERR_FILENO, buf, (size_t)len);
    }
    len = snprintf(buf, sizeof buf, "gpushim: %.1f MB of copies to the GPU saved by the residency cache\n",
                   saved * 1e-6);
    w = write(STDERR_FILENO, buf, (size_t)len);
    (void)w;
}

/* The exit record: calls and bytes of the whole run (the counters of timed calls). */
static void gs_log_exit(void)
{
    if (gs.log_fd < 0)
        return;
    uint64_t calls[2] = {0, 0}, h2d = 0, d2h = 0, saved = 0;
    for (int r = 0; r < GS_NROUTINES; r++) {
        gs_counter_t *k = &gs_counters[r];
        for (int w = 0; w < 2; w++)
            calls[w] += atomic_load(&k->calls[w]);
        h2d += atomic_load(&k->bytes_h2d);
        d2h += atomic_load(&k->bytes_d2h);
        saved += atomic_load(&k->bytes_saved);
    }
    char buf[512];
    int len = snprintf(buf, sizeof buf,
                       "{\"exit\":%.6f,\"calls_gpu\":%llu,\"calls_cpu\":%llu,\"bytes_h2d\":%llu,"
                       "\"bytes_d2h\":%llu,\"bytes_saved\":%llu}\n",
                       (double)(gs_now_ns() - gs.t_start) * 1e-9, (unsigned long long)calls[GS_WHERE_GPU],
                       (unsigned long long)calls[GS_WHERE_CPU], (unsigned long long)h2d, (unsigned long long)d2h,
                       (unsigned long long)saved);
    gs_log_write(buf, (size_t)len);
}

/* At exit: the exit record, then the summary. */
static void gs_log_atexit(void)
{
    gs_log_runs_flush();
    gs_log_exit();
    if (gs.opt.summary)
        gs_summary_print();
}
GS_LIFE_HOOK(GS_LIFE_EXIT, gs_log_atexit);

/* In a forked child: the log's lock, which another thread of the parent may have held; a log whose name has %p
 * is reopened under the child's pid on its first record. */
static void gs_log_atfork_child(void)
{
    pthread_mutex_init(&gs.log_lock, NULL);
    if (gs.opt.log && strstr(gs.opt.log, "%p"))
        atomic_store(&gs.log_reopen, 1);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_log_atfork_child);

/* In a forked child: the counters start from zero. */
static void gs_counters_reset(void)
{
    memset(gs_counters, 0, sizeof gs_counters);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_counters_reset);

/* Every GPUSHIM_ environment variable in one table, read once when the library initialises.  An invalid value
 * is reported once, naming the variable, the value and what is accepted, and the default is kept: a typo
 * never stops the user's program. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/gs.h"

typedef enum { GS_OPT_BOOL, GS_OPT_CHOICE, GS_OPT_NUMBER, GS_OPT_INT, GS_OPT_PATH, GS_OPT_DEVICES } gs_opt_kind_t;

typedef struct {
    const char *name;
    gs_opt_kind_t kind;
    size_t offset;       /* of the field in gs_options_t */
    const char *choices; /* GS_OPT_CHOICE: values separated by '|', in enum order */
    const char *accepted; /* GS_OPT_CHOICE: the values, for messages */
} gs_option_desc_t;

#define GS_OFF(f) offsetof(gs_options_t, f)
static const gs_option_desc_t gs_option_table[] = {
    {"GPUSHIM_OFFLOAD", GS_OPT_CHOICE, GS_OFF(offload), "auto|always|never", "auto, always or never"},
    {"GPUSHIM_LOG", GS_OPT_PATH, GS_OFF(log), NULL, NULL},
    {"GPUSHIM_LOG_EACH", GS_OPT_BOOL, GS_OFF(log_each), NULL, NULL},
    {"GPUSHIM_SUMMARY", GS_OPT_BOOL, GS_OFF(summary), NULL, NULL},
    {"GPUSHIM_QUIET", GS_OPT_BOOL, GS_OFF(quiet), NULL, NULL},
    {"GPUSHIM_POLICY", GS_OPT_PATH, GS_OFF(policy), NULL, NULL},
    {"GPUSHIM_MIN_FLOPS", GS_OPT_NUMBER, GS_OFF(min_flops), NULL, NULL},
    {"GPUSHIM_CUDA_LIBDIR", GS_OPT_PATH, GS_OFF(cuda_libdir), NULL, NULL},
    {"GPUSHIM_DEVICE", GS_OPT_INT, GS_OFF(device), NULL, NULL},
    {"GPUSHIM_DEVICES", GS_OPT_DEVICES, GS_OFF(devices), NULL, NULL},
    {"GPUSHIM_COPY_THREADS", GS_OPT_INT, GS_OFF(copy_threads), NULL, NULL},
    {"GPUSHIM_PINNED", GS_OPT_NUMBER, GS_OFF(pinned), NULL, NULL},
    {"GPUSHIM_DEVICE_MEMORY", GS_OPT_NUMBER, GS_OFF(device_memory), NULL, NULL},
    {"GPUSHIM_TILE", GS_OPT_INT, GS_OFF(tile), NULL, NULL},
    {"GPUSHIM_REGISTERED", GS_OPT_NUMBER, GS_OFF(registered), NULL, NULL},
    {"GPUSHIM_CACHE", GS_OPT_BOOL, GS_OFF(cache), NULL, NULL},
    {"GPUSHIM_CACHE_MAX", GS_OPT_NUMBER, GS_OFF(cache_max), NULL, NULL},
    {"GPUSHIM_FFTW_SERIAL", GS_OPT_BOOL, GS_OFF(fftw_serial), NULL, NULL},
    {"GPUSHIM_FFTW_DEFER", GS_OPT_BOOL, GS_OFF(fftw_defer), NULL, NULL},
    {"GPUSHIM_SITES", GS_OPT_CHOICE, GS_OFF(sites), "python|native|off", "python, native or off"},
    {"GPUSHIM_WARMUP", GS_OPT_CHOICE, GS_OFF(warmup), "auto|lazy|eager|off", "auto, lazy, eager or off"},
    {"GPUSHIM_FAULT", GS_OPT_PATH, GS_OFF(fault), NULL, NULL},
};
#define GS_NOPTIONS (sizeof gs_option_table / sizeof gs_option_table[0])

/* Copies of path values: the environment may change under us after initialisation. */
static char gs_option_paths[GS_NOPTIONS][1024];

int gs_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on"}, *const no[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *out = true, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = false, 0;
    }
    return GS_EINVAL;
}

int gs_parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || isnan(v) || v < 0)
        return GS_EINVAL;
    static const char suffix[] = "kMGT";
    const char *p = *end ? strchr(suffix, *end) : NULL;
    if (p) {
        v *= pow(1e3, (double)(p - suffix + 1));
        end++;
    }
    if (*end)
        return GS_EINVAL;
    *out = v;
    return GS_OK;
}

static int gs_parse_choice(const char *s, const char *choices, int *out)
{
    size_t len = strlen(s);
    int i = 0;
    for (const char *c = choices; c; c = strchr(c, '|'), i++) {
        if (*c == '|')
            c++;
        if (strncasecmp(c, s, len) == 0 && (c[len] == '|' || c[len] == 0))
            return *out = i, 0;
    }
    return GS_EINVAL;
}

static int gs_parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 0 || v > 1 << 20)
        return GS_EINVAL;
    *out = (int)v;
    return GS_OK;
}

/* "all", or ordinals separated by commas, each once. */
static int gs_parse_devices(const char *s, gs_devlist_t *out)
{
    gs_devlist_t d = {0};
    if (strcasecmp(s, "all") == 0) {
        d.all = true;
        return *out = d, GS_OK;
    }
    for (const char *p = s;; p++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || *p == '-' || *p == '+' || errno || v > 1 << 20 || d.n == GS_DEVLIST_MAX ||
            (*end && *end != ','))
            return GS_EINVAL;
        for (int i = 0; i < d.n; i++)
            if (d.ordinal[i] == v)
                return GS_EINVAL;
        d.ordinal[d.n++] = (int)v;
        if (!*end)
            break;
        p = end;
    }
    return *out = d, GS_OK;
}

static void gs_option_set(gs_options_t *o, size_t i, const char *s)
{
    const gs_option_desc_t *d = &gs_option_table[i];
    void *field = (char *)o + d->offset;
    int rc = GS_OK;
    const char *accepted = "";
    switch (d->kind) {
    case GS_OPT_BOOL:
        rc = gs_parse_bool(s, field);
        accepted = "1, 0, yes, no, true, false, on or off";
        break;
    case GS_OPT_CHOICE:
        rc = gs_parse_choice(s, d->choices, field);
        accepted = d->accepted;
        break;
    case GS_OPT_NUMBER:
        rc = gs_parse_number(s, field);
        accepted = GS_NUMBER_ACCEPTED;
        break;
    case GS_OPT_INT:
        rc = gs_parse_int(s, field);
        accepted = "an integer of 0 or more";
        break;
    case GS_OPT_DEVICES:
        rc = gs_parse_devices(s, field);
        accepted = "all, or device ordinals separated by commas, each once (at most 16)";
        break;
    case GS_OPT_PATH:
        if (*s == 0) /* set but empty: same as unset */
            return;
        if (strlen(s) >= sizeof gs_option_paths[i]) {
            rc = GS_EINVAL;
            accepted = "a value shorter than 1024 bytes";
            break;
        }
        strcpy(gs_option_paths[i], s);
        *(const char **)field = gs_option_paths[i];
        break;
    }
    if (rc != GS_OK)
        gs_msg("%s='%s' is not valid: use %s; using the default", d->name, s, accepted);
}

/* Launchers and the wrappers that start the program (srun, mpirun, numactl, env, ...): under the shim they run
 * as without it, whatever the variables say: no GPU, no log, no summary, so that a job's launcher neither takes a
 * GPU context nor writes a log in a rank's name.  By the name the program was started as. */
static bool gs_is_launcher(void)
{
    static const char *const names[] = {
        "srun", "mpirun", "mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich", "mpirun.openmpi",
        "mpiexec.openmpi", "orterun", "prterun", "prte", "hydra_pmi_proxy", "orted", "prted", "slurmstepd",
        "aprun", "jsrun", "numactl", "env", "time", "taskset"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(program_invocation_short_name, names[i]))
            return true;
    return false;
}

void gs_options_read(gs_options_t *o)
{
    *o = (gs_options_t){.offload = GS_OFFLOAD_AUTO, .min_flops = -1, .pinned = 512e6, .device_memory = -1,
                        .registered = 4e9, .cache = true, .cache_max = -1, .fftw_serial = true,
                        .fftw_defer = true};
    for (size_t i = 0; i < GS_NOPTIONS; i++) {
        const char *s = getenv(gs_option_table[i].name);
        if (s)
            gs_option_set(o, i, s);
    }
    if (gs_is_launcher())
        o->offload = GS_OFFLOAD_NEVER, o->log = NULL, o->summary = false, o->warmup = GS_WARMUP_OFF;
}

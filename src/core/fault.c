/* GPUSHIM_FAULT, a testing aid: makes chosen calls of the real CUDA libraries fail, without making them, so
 * that the GPU path's error handling can be exercised on a real GPU as tests/t_faults.sh exercises it on the
 * stand-in.  The value is a comma-separated list of WHAT[@SITE]:N, WHAT a kind of call (alloc, copy, launch,
 * sync, create, register, any) or a function's name (cudaMalloc, cublasDgemm_v2_64, ...), SITE the name of
 * gpushim's function that makes the call (gs_getri, ...: only its calls count), N the call of that kind or name
 * to fail, counting from 1 (0: every one); or "count", which fails nothing.  Either way the calls of each kind
 * are counted, and the counts said at exit, so that a sweep knows its injection points. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault.h"

static const char *const gs_fault_kinds[GS_FAULT_NKINDS] = {"alloc", "copy", "launch", "sync", "create",
                                                            "register", "other"};

#define GS_FAULT_RULES 8
static struct {
    char name[64]; /* a kind's name, "any", or a function's */
    char site[64]; /* the calling function's name, or empty: any */
    long nth;
    atomic_long calls;
} gs_fault_rules[GS_FAULT_RULES];
static int gs_fault_nrules;
static atomic_long gs_fault_counts[GS_FAULT_NKINDS];

bool gs_fault_armed;

gs_fault_kind_t gs_fault_kind(const char *name)
{
    static const char *const create[] = {"Create", "Plan", "SetStream", "cudaLibrary"};
    for (size_t i = 0; i < sizeof create / sizeof create[0]; i++)
        if (strstr(name, create[i]))
            return GS_FAULT_CREATE;
    if (!strcmp(name, "cudaMalloc") || !strcmp(name, "cudaHostAlloc"))
        return GS_FAULT_ALLOC;
    if (!strcmp(name, "cudaHostRegister"))
        return GS_FAULT_REGISTER;
    if (!strncmp(name, "cudaMemcpy", 10) || !strncmp(name, "cudaMemset", 10))
        return GS_FAULT_COPY;
    if (strstr(name, "Synchronize") || strstr(name, "Event") || strstr(name, "Query"))
        return GS_FAULT_SYNC;
    if (!strncmp(name, "cuda", 4) && strcmp(name, "cudaLaunchKernel"))
        return GS_FAULT_OTHER;
    return GS_FAULT_LAUNCH; /* cuBLAS, cuSOLVER and cuFFT's work, and gpushim's own kernels */
}

bool gs_fault_hit(const char *name, const char *site)
{
    gs_fault_kind_t k = gs_fault_kind(name);
    atomic_fetch_add(&gs_fault_counts[k], 1);
    bool fail = false;
    for (int i = 0; i < gs_fault_nrules; i++) {
        const char *r = gs_fault_rules[i].name;
        if ((strcmp(r, "any") && strcmp(r, gs_fault_kinds[k]) && strcmp(r, name)) ||
            (gs_fault_rules[i].site[0] && strcmp(gs_fault_rules[i].site, site)))
            continue;
        long n = atomic_fetch_add(&gs_fault_rules[i].calls, 1) + 1;
        fail |= gs_fault_rules[i].nth == 0 || gs_fault_rules[i].nth == n;
    }
    return fail;
}

/* Whether the len bytes at s are a C name that fits a rule's field. */
static bool gs_fault_word(const char *s, size_t len)
{
    if (len == 0 || len >= sizeof gs_fault_rules[0].name)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!(s[i] == '_' || (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= 'A' && s[i] <= 'Z')))
            return false;
    return true;
}

/* One rule WHAT[@SITE]:N of the value, len bytes at s: 0, or -1 when it is not one. */
static int gs_fault_rule(const char *s, size_t len)
{
    const char *colon = memchr(s, ':', len), *at = colon ? memchr(s, '@', (size_t)(colon - s)) : NULL;
    const char *what_end = at ? at : colon;
    if (!colon || gs_fault_nrules == GS_FAULT_RULES || !gs_fault_word(s, (size_t)(what_end - s)) ||
        (at && !gs_fault_word(at + 1, (size_t)(colon - at - 1))))
        return -1;
    char num[24], *end;
    size_t nl = len - (size_t)(colon + 1 - s);
    if (nl == 0 || nl >= sizeof num)
        return -1;
    memcpy(num, colon + 1, nl);
    num[nl] = 0;
    long nth = strtol(num, &end, 10);
    if (*end || nth < 0)
        return -1;
    memcpy(gs_fault_rules[gs_fault_nrules].name, s, (size_t)(what_end - s));
    if (at)
        memcpy(gs_fault_rules[gs_fault_nrules].site, at + 1, (size_t)(colon - at - 1));
    gs_fault_rules[gs_fault_nrules++].nth = nth;
    return 0;
}

static void gs_fault_init(void)
{
    const char *s = gs.opt.fault;
    if (!s)
        return;
    if (strcmp(s, "count")) {
        for (const char *p = s;; p++) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            if (gs_fault_rule(p, len)) {
                gs_msg("GPUSHIM_FAULT='%.80s' is not valid: use count, or WHAT[@SITE]:N[,...] (at most %d), WHAT "
                       "one of alloc, copy, launch, sync, create, register, any or a CUDA function's name, SITE "
                       "a gpushim function's; injecting no fault", s, GS_FAULT_RULES);
                gs_fault_nrules = 0;
                return;
            }
            if (!comma)
                break;
            p = comma;
        }
    }
    gs_fault_armed = true;
}
GS_LIFE_HOOK(GS_LIFE_INIT, gs_fault_init);

static void gs_fault_exit(void)
{
    if (!gs_fault_armed)
        return;
    char line[256];
    size_t n = 0;
    for (int k = 0; k < GS_FAULT_NKINDS; k++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %ld", k ? ", " : "", gs_fault_kinds[k],
                              atomic_load(&gs_fault_counts[k]));
    gs_msg("GPUSHIM_FAULT: calls by kind: %s", line);
}
GS_LIFE_HOOK(GS_LIFE_EXIT, gs_fault_exit);

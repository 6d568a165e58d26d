/* The policy (policy.c): each routine's rule, the threshold, and the cost model that weighs a call's two sides.
 * Included by gs.h, whose call and where types it uses. */
#ifndef GS_POLICY_H
#define GS_POLICY_H

#include "core/gs.h"

/* A routine's rule.  A call goes to the GPU when it needs at least min_flops and, if the cost model is set
 * (all three rates above 0), the model predicts the GPU faster (gs_policy_model; gpushim-policy(5)). */
typedef struct {
    double min_flops;  /* offload when the call needs at least this many floating-point operations */
    double cpu_gflops; /* the CPU library's rate on this routine, on threads threads */
    double cpu_us;     /* the CPU library's fixed cost of a call */
    double cpu_gbps;   /* the CPU library's rate of moving a call's operands through memory, GB/s; 0: none */
    double threads;    /* the CPU threads cpu_gflops was measured on; 0: not known, not scaled */
    double gpu_gflops; /* the GPU's rate, copies excluded */
    double link_gbps;  /* host <-> device copies of memory seen for the first time (staged), GB/s */
    double registered_gbps; /* copies of memory registered with CUDA (operands that come back), GB/s */
    double register_gbps;   /* registering host memory with CUDA, GB/s */
    double check_gbps; /* the residency cache's check that a resident operand is unchanged, GB/s of operand */
    double latency_us; /* fixed cost of a GPU call */
    double setup_us;   /* one-time cost of the first GPU call of a shape (a cuFFT plan) */
    double bringup_us; /* CUDA's bring-up with the libraries the routine needs, from the first call wanting it */
    double first_us;   /* the routine's first GPU call in a process: CUDA loads its kernels, workspaces grow */
    double serial;     /* above 0: copies and computation add up (copied whole, then computed); 0: they overlap */
    double history;    /* the recent calls of the same kind whose measured / predicted times scale the model's */
} gs_rule_t;

/* What a GPU call would copy (the backend's traffic), in bytes: through staging (memory seen for the first
 * time), from and to registered memory (operands that came back), and registered first at this call.  invest:
 * the part of the copies and the registration that leaves an input on the device for later calls, and
 * again: the earlier calls that used that input; the policy charges the call 1 / (again + 1) of it. */
typedef struct {
    double staged, registered, reg, invest;
    int again;
    double in;             /* of staged and registered, the bytes copied in */
    double registered_out; /* of registered, the bytes copied out */
    double overlap;        /* registered bytes copied out while others go in (a pipelined FFT's, backend/cuda_fft.c):
                            * not counted */
    double touched;  /* the operands' bytes, each once: what the CPU library reads and writes */
    double resident; /* bytes of the operands the cache holds, which it checks instead of copying */
    int devices;     /* devices the computation is split across (GPUSHIM_DEVICES); 0 or 1: one */
} gs_traffic_t;

GS_HIDDEN extern gs_rule_t gs_rules[GS_NROUTINES];

/* Loads the built-in defaults (policies/default.policy), then GPUSHIM_POLICY, then the environment. */
GS_HIDDEN void gs_policy_init(void);
/* What gs_policy_parse found when asked to scan: the lines that look like a policy's (a pattern that names a
 * routine, or a known key), and the first line with an error, numbered from 1, and its text. */
typedef struct {
    int like, first_bad;
    char first_text[48];
} gs_policy_scan_t;
/* Applies policy text to rules; origin names it in messages ("FILE:LINE: ...").  Returns the number of
 * lines with errors: each is reported when scan is NULL; otherwise nothing is, and scan is filled. */
GS_HIDDEN int gs_policy_parse(gs_rule_t *rules, const char *text, const char *origin, gs_policy_scan_t *scan);
/* Where the call should run, before the GPU's availability is known; sets c->why.  A call that passes
 * min_flops must then pass gs_policy_model. */
GS_HIDDEN gs_where_t gs_policy_decide(gs_call_t *c, bool gpu_capable);
/* The cost model for a call above threshold whose copies are t and that bears setup (0 to 1) of its shape's
 * setup_us: whether the GPU, once up, is faster.  Sets c->pred_cpu, c->pred_gpu (with the left seconds of the
 * GPU's bring-up still to come, c->pred_wait: dispatch's gs_gpu_left), and c->why when it says CPU. */
GS_HIDDEN gs_where_t gs_policy_model(gs_call_t *c, const gs_traffic_t *t, double setup, double left);
/* Whether calls like c (its routine, flops and threads), each copying bytes (both ways), would go to the GPU once
 * it is up (gpu_capable: the backend has the routine's operation), by the policy's threshold and its rates
 * alone (no history, setup or bring-up): for a choice made before any such call (an FFTW plan's measuring,
 * families/fftw/planners.c). */
GS_HIDDEN bool gs_policy_gpu_wins(gs_call_t *c, double bytes, bool gpu_capable);

#endif

/* The one dispatcher of every family of routines (BLAS, LAPACK, FFTW).  An entry point fills its family's
 * normalised arguments and hands them, with the family's descriptor, to gs_dispatch, which runs the same steps
 * for every family: describe the call for the log, check it, ask the policy, find its operands and what moving
 * them costs, make the CPU library's workspace query where the routine has one, run it on the GPU through the
 * backend table, and otherwise leave it to the CPU library.  src/README.md lists what a new family provides. */
#ifndef GS_DISPATCH_H
#define GS_DISPATCH_H

#include "dispatch/backend.h"

/* What a family provides.  args is the family's normalised argument struct, filled by the entry point. */
typedef struct {
    /* Sizes and option letters for the log (c->dim, c->dim_names, c->opts); called only for a logged call. */
    void (*describe)(gs_call_t *c, const void *args);
    /* A reason the call must stay on the CPU whatever the policy says ("invalid arguments": the CPU library
     * reports them; a form the GPU path lacks), or NULL after setting c->flops, the call's floating-point
     * operations, for the policy.  Cheap: every call passes here, and it is the one indirect call that a small
     * call makes besides the policy's (bench/overhead.c). */
    const char *(*check)(gs_call_t *c, const void *args);
    /* A reason the GPU cannot give the CPU library's exact result (after the policy chose the GPU, so it may
     * scan the data), or NULL.  May be NULL itself. */
    const char *(*exact)(const void *args);
    /* The matrices the GPU path moves, in a fixed order per operation (gs_operands_t). */
    void (*operands)(const void *args, gs_operands_t *o);
    /* Whether the routine takes a workspace, so that the CPU library's workspace query must run first (the
     * entry makes it, see GS_RUN_QUERY).  NULL, with queried, for a family without workspaces. */
    bool (*has_work)(const void *args);
    /* After the query: GS_RUN_QUERY to go on to the GPU; GS_RUN_CPU when the call must run on the CPU (the
     * caller's workspace is below the optimum), or GS_RUN_DONE when the query has finished it (an invalid
     * argument, which the CPU library reported), with the reason in c->why. */
    int (*queried)(gs_call_t *c, const void *args);
    /* After the GPU completed the call: outputs that are the family's, not an operand's (INFO = 0). */
    void (*gpu_done)(const void *args);
    /* The caller makes the call on the CPU itself when it is not done (the Python layer's FFTs): no CPU
     * library's entry is looked up for it (gs_call_t's own_cpu). */
    bool own_cpu;
} gs_family_t;

/* The GPU's use (gpu.c) and state (warmup.c). */
/* Takes the GPU lock for a call the policy sent to the GPU.  0 with the lock held and c->dev set; otherwise
 * negative with the reason in c->why and no lock held: the GPU failed, or its bring-up (or that of the call's
 * family) is under way and waiting does not pay.  Always fails in a forked child, which must not call CUDA. */
GS_HIDDEN int gs_gpu_acquire(gs_call_t *c);
/* gs_gpu_acquire's first step, without the lock: GS_OK when the call's family is ready or its bring-up is worth
 * waiting for (and has been waited for), or when the caller must bring the GPU up itself; otherwise an error,
 * c->why saying why (gs_warm_want). */
GS_HIDDEN int gs_gpu_coming(gs_call_t *c);
/* Gives the GPU up for the process, saying why (once, and in the log). */
GS_HIDDEN void gs_gpu_disable(const char *what, const char *detail);
/* Brings the device up if nobody has: UNTRIED or STARTING -> UP or FAILED.  With the GPU lock held; step as
 * the backend's up takes it, or NULL. */
GS_HIDDEN void gs_gpu_up_locked(int (*step)(void));
/* True when a call of family need not wait for any bring-up: the GPU and the family's library are up, or the
 * GPU failed (acquire then says why). */
GS_HIDDEN bool gs_gpu_ready(int family);
/* Seconds of bring-up that c would still wait for on the GPU, by the policy's bringup_us (0 when ready), and
 * first_us before the routine's first GPU call in the process. */
GS_HIDDEN double gs_gpu_left(const gs_call_t *c);

/* The bring-up thread. */
/* Notes that family wants the GPU and starts the thread if its bring-up is not done nor under way.  GS_OK, or
 * an error when no thread could start (the caller then brings the GPU up itself). */
GS_HIDDEN int gs_warm_start(int family);
/* The same, as a call's after function (gs_call_t): once the call is done. */
GS_HIDDEN void gs_warm_later(int family);
/* For a call that wants the GPU before its family's bring-up is done: when the call is forced onto the GPU or
 * the model says waiting pays, starts the bring-up and waits for it as long as that holds; otherwise the call
 * runs on the CPU, and the bring-up starts once it has returned (c->after).  GS_OK when ready (or when the
 * caller must bring the GPU up itself); else an error, with c->why saying why. */
GS_HIDDEN int gs_warm_want(gs_call_t *c, int family);
/* Whether why is a reason gs_warm_want gives: the bring-up under way, or not begun. */
GS_HIDDEN bool gs_warm_why(const char *why);
GS_HIDDEN void gs_gpu_release(void);
/* True on a thread between gs_gpu_acquire and gs_gpu_release: its CUDA allocations are the shim's own. */
GS_HIDDEN extern _Thread_local bool gs_gpu_mine;
/* Called with the lock held after a failed GPU call: decides whether the GPU stays usable. */
GS_HIDDEN void gs_gpu_failed(gs_call_t *c, int err);

/* What gs_dispatch returns.  DONE: the GPU completed the call.  CPU: the call runs on the CPU; c->real is the
 * CPU library's entry (NULL when no loaded library has it, reported once), to call with the original
 * arguments before gs_call_end.  QUERY: the GPU should take the call and the routine has a workspace: the
 * entry makes the CPU library's workspace query (LWORK = -1) through c->real, which leaves the optimal sizes in
 * the workspaces' first elements as the routine itself would on exit, then calls gs_dispatch_queried, which
 * returns DONE or CPU. */
enum { GS_RUN_DONE, GS_RUN_CPU, GS_RUN_QUERY };
GS_HIDDEN int gs_dispatch_at(gs_call_t *c, unsigned e, const gs_family_t *f, void *args, const void *ret);
/* In an entry: with the entry's return address, so that a call a CPU library makes from a routine gpushim
 * does not interpose (a LAPACK routine calling the BLAS) is passed straight through, as its own
 * (log/site.h's gs_site_cpu_library). */
#define gs_dispatch(c, e, f, args) gs_dispatch_at(c, e, f, args, __builtin_return_address(0))
GS_HIDDEN int gs_dispatch_queried(gs_call_t *c, const gs_family_t *f, void *args);

/* ---- the Python layer's C entries (families/lapack/arrays.c, families/fftw/arrays.c) -------------------------- */

/* One call of the Python function api through the dispatcher, entry e of family f: true when the GPU did it
 * (a family with has_work does its work in queried, which runs only once the GPU takes the call).  A call not
 * done is not logged: the original function then makes it (and its own calls into a CPU library
 * are logged as they are). */
GS_HIDDEN bool gs_dispatch_api(const char *api, unsigned e, const gs_family_t *f, void *args, const void *ret);
/* The least size from from up (doubling, then halving the last step) for which wanted(arg, size) says the
 * policy lets a call go to the GPU, wanted being monotonic in size; INT64_MAX when none up to 2^40. */
GS_HIDDEN int64_t gs_dispatch_least(int64_t from, bool (*wanted)(const void *arg, int64_t size), const void *arg);

#endif

/* Internal declarations shared by every module of gpushim: the routine and entry enums expanded from
 * routines.def, the global state, the life cycle of one intercepted call, and each module's contract.
 * Internal functions return 0 for success and a negative GS_E* code otherwise. */
#ifndef GS_H
#define GS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "core/gs_table.h"

#define GS_VERSION "0.1.0"
#define GS_HIDDEN __attribute__((visibility("hidden")))
#define GS_EXPORT __attribute__((visibility("default")))
#define GS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define GS_NO_ASAN __attribute__((no_sanitize_address)) /* code run before AddressSanitizer is set up (yield.c) */

/* Longest reason the GPU is not usable, as the notice, the log and the report give it. */
#define GS_WHY_MAX 400

/* Error codes. */
enum {
    GS_OK = 0,
    GS_EGPU = -1,    /* a CUDA call failed; the GPU may still be usable */
    GS_ENOMEM = -2,  /* device (or pinned host) memory exhausted */
    GS_ENODEV = -3,  /* no usable GPU in this process */
    GS_EINVAL = -4,  /* bad value (option, policy file) */
    GS_EEXACT = -5,  /* the GPU finished, but the exact outputs of this case (LAPACK's INFO > 0) come from the CPU */
    GS_ENOENT = -6,  /* a library or file is not there */
};

/* Precisions, in the order S, D, C, Z. */
typedef enum { GS_P_S, GS_P_D, GS_P_C, GS_P_Z, GS_NPREC } gs_prec_t;

static inline size_t gs_prec_size(int p) { return (size_t)4 << ((p & 1) + (p >> 1)); } /* 4, 8, 8, 16 */
static inline bool gs_prec_complex(int p) { return p >= GS_P_C; }
/* True when the scalar at s (of precision prec, real when real_only) is zero. */
GS_HIDDEN bool gs_scalar_is_zero(const void *s, int prec, bool real_only);
/* True when one of the n elements of precision prec at x, step elements apart, is zero (each real component
 * 0 or -0): a diagonal (step ld + 1) with a zero is a singular triangle, whose INFO the CPU library gives. */
GS_HIDDEN bool gs_has_zero(const void *x, int64_t n, int64_t step, int prec);

/* Operations: each names one entry template and one member of the backend table (routines.def). */
typedef enum {
#define GS_OP(op, family, dims) GS_OP_##op,
#include "core/routines.def"
#undef GS_OP
    GS_NOPS
} gs_op_t;

/* The families of routines, each served by one descriptor (dispatch/dispatch.h). */
typedef enum { GS_FAMILY_BLAS, GS_FAMILY_LAPACK, GS_FAMILY_FFTW, GS_NFAMILIES } gs_family_id_t;

/* An operation's facts from the table. */
typedef struct {
    const char *name; /* "gemm" */
    uint8_t family;   /* gs_family_id_t */
    const char *dims; /* the sizes the log gives: "mnk", "nr", ... */
} gs_op_info_t;

/* Routines: GS_R_DGEMM, ... */
typedef enum {
#define GS_ROUTINE(ID, op, P, name, conv) GS_R_##ID,
#include "core/routines.def"
#undef GS_ROUTINE
    GS_NROUTINES
} gs_routine_t;

/* Entries, one per exported symbol: GS_E_dgemm_, GS_E_scipy_cblas_dgemm64_, ... */
typedef enum {
#define GS_X_ENUM(ID, P, sym, conv, bits) GS_E_##sym,
#define GS_ROUTINE(ID, op, P, name, conv) GS_CONV_##conv(GS_X_ENUM, ID, P, name)
#include "core/routines.def"
#undef GS_ROUTINE
#undef GS_X_ENUM
    GS_NENTRIES
} gs_entry_t;

typedef struct {
    const char *name; /* "dgemm" */
    uint8_t op;       /* gs_op_t */
    uint8_t prec;     /* gs_prec_t */
} gs_routine_info_t;

typedef struct {
    const char *symbol; /* "scipy_cblas_dgemm64_" */
    uint16_t routine;   /* gs_routine_t */
    uint8_t cblas;      /* 1 for a CBLAS entry, 0 for Fortran */
    uint8_t ilp64;      /* 1 when integers are 64-bit */
} gs_entry_info_t;

GS_HIDDEN extern const gs_routine_info_t gs_routines[GS_NROUTINES];
GS_HIDDEN extern const gs_entry_info_t gs_entries[GS_NENTRIES];
GS_HIDDEN extern const gs_op_info_t gs_ops[GS_NOPS];
GS_HIDDEN extern const char *const gs_dtype_names[GS_NPREC];

/* Index of the routine called name ("dgemm"), or -1. */
GS_HIDDEN int gs_routine_find(const char *name);
/* Index of the routine of operation op (gs_op_t) in precision prec (gs_prec_t), or -1. */
GS_HIDDEN int gs_routine_of(int op, int prec);

/* ---- options (options.c) ------------------------------------------------------------------------------ */

typedef enum { GS_OFFLOAD_AUTO, GS_OFFLOAD_ALWAYS, GS_OFFLOAD_NEVER } gs_offload_t;

/* GPUSHIM_DEVICES: CUDA ordinals, each once, or every device there is. */
#define GS_DEVLIST_MAX 16
typedef struct {
    int n;                       /* ordinals listed; 0: unset (or all) */
    bool all;
    int ordinal[GS_DEVLIST_MAX];
} gs_devlist_t;

/* Every environment variable gpushim reads, read once at initialisation.  Per-routine thresholds
 * (GPUSHIM_MIN_FLOPS_<ROUTINE>) are read by the policy module from the routine table. */
typedef struct {
    int offload;             /* GPUSHIM_OFFLOAD: gs_offload_t */
    const char *log;         /* GPUSHIM_LOG: path pattern, or NULL */
    bool log_each;           /* GPUSHIM_LOG_EACH: a record for every call, no runs of like calls */
    bool summary;            /* GPUSHIM_SUMMARY */
    bool quiet;              /* GPUSHIM_QUIET */
    const char *policy;      /* GPUSHIM_POLICY: extra policy file, or NULL */
    double min_flops;        /* GPUSHIM_MIN_FLOPS: threshold for every routine, or < 0 when unset */
    const char *cuda_libdir; /* GPUSHIM_CUDA_LIBDIR: load CUDA libraries from this folder only, or NULL */
    int device;              /* GPUSHIM_DEVICE: CUDA device ordinal */
    gs_devlist_t devices;    /* GPUSHIM_DEVICES: the devices one call may split across; none: GPUSHIM_DEVICE */
    int copy_threads;        /* GPUSHIM_COPY_THREADS: host threads that copy to and from staging; 0: automatic */
    double pinned;           /* GPUSHIM_PINNED: bytes of pinned host memory held for staging */
    double device_memory;    /* GPUSHIM_DEVICE_MEMORY: most device bytes one call uses, or < 0 when unset */
    int tile;                /* GPUSHIM_TILE: GEMM tile size in rows and columns; 0: automatic */
    double registered;       /* GPUSHIM_REGISTERED: most bytes of user memory kept registered with CUDA */
    bool cache;              /* GPUSHIM_CACHE: keep device copies of operands between calls */
    bool fftw_serial;        /* GPUSHIM_FFTW_SERIAL: try twins with fewer threads of small FFTW plans */
    bool fftw_defer;         /* GPUSHIM_FFTW_DEFER: measure an FFTW plan the GPU would run only if the CPU must */
    double cache_max;        /* GPUSHIM_CACHE_MAX: most device bytes the cache holds, or < 0: half the device */
    int sites;               /* GPUSHIM_SITES: gs_sites_t, the call sites the log records */
    int warmup;              /* GPUSHIM_WARMUP: gs_warmup_t, when and where CUDA is brought up */
    const char *fault;       /* GPUSHIM_FAULT: the CUDA calls to fail (fault.c), or NULL */
} gs_options_t;

/* GPUSHIM_WARMUP.  auto: a family's bring-up starts on a background thread once the calls of that family that
 * wanted the GPU, and ran on the CPU, would have gained on it as much time as the bring-up takes; lazy: the
 * first such call starts it; eager: the first call of a family of any size; off: the first call that wants
 * the GPU brings it up itself and waits. */
typedef enum { GS_WARMUP_AUTO, GS_WARMUP_LAZY, GS_WARMUP_EAGER, GS_WARMUP_OFF } gs_warmup_t;

typedef enum { GS_SITES_PYTHON, GS_SITES_NATIVE, GS_SITES_OFF } gs_sites_t;

/* Reads the environment into o; reports each invalid value once on stderr and keeps the default. */
GS_HIDDEN void gs_options_read(gs_options_t *o);

/* Parses a boolean ("1", "yes", "true", "on", "0", ...).  0 on success. */
GS_HIDDEN int gs_parse_bool(const char *s, bool *out);
/* Parses a non-negative number with an optional k, M, G or T suffix (powers of ten) or "inf". */
GS_HIDDEN int gs_parse_number(const char *s, double *out);
/* What gs_parse_number accepts, for messages. */
#define GS_NUMBER_ACCEPTED "a number of 0 or more, such as 2e9 or 2G, or inf"

/* ---- messages (msg.c) --------------------------------------------------------------------------------- */

/* Writes "gpushim: <message>\n" to stderr with one write(2), from a fixed buffer; never allocates.  At most
 * GS_MSG_MAX messages are written per process, then one line saying the rest are suppressed. */
#define GS_MSG_MAX 64
GS_HIDDEN void gs_msg(const char *fmt, ...) GS_PRINTF(1, 2);
/* The same for a notice about the GPU (there are a few per process at most), which the cap on other messages
 * never suppresses (tests/t_options.sh, "the GPU notice after the cap"). */
GS_HIDDEN void gs_notice(const char *fmt, ...) GS_PRINTF(1, 2);
/* Set on a thread whose messages wait for gs_msg_flush (the GPU's bring-up thread, dispatch/warmup.c). */
GS_HIDDEN extern _Thread_local bool gs_msg_defer;
/* Writes the deferred messages, from a call's thread.  Cheap when there are none. */
GS_HIDDEN void gs_msg_flush(void);
/* Where each message written also goes, without its "gpushim: " and newline: the offload log sets it as it
 * opens (a "message" event), so that the log says why too.  NULL until then. */
GS_HIDDEN extern void (*_Atomic gs_msg_sink)(const char *text, size_t len);

/* ---- global state and the process's life cycle (life.c) ----------------------------------------------- */

/* UNTRIED -> STARTING (a background bring-up began, dispatch/warmup.c) -> UP or FAILED; UNTRIED -> UP or FAILED
 * when a call brings the GPU up itself (GPUSHIM_WARMUP=off). */
typedef enum { GS_GPU_UNTRIED, GS_GPU_STARTING, GS_GPU_UP, GS_GPU_FAILED } gs_gpu_state_t;

typedef struct {
    gs_options_t opt;      /* written once by gs_init_once, read-only after */
    int log_fd;            /* -1 when no log; written by gs_init_once and the fork handler */
    atomic_int log_reopen; /* set in a forked child whose log name has %p; cleared by log.c under log_lock */
    pthread_mutex_t log_lock; /* guards log_fd reopening */
    uint64_t t_start;      /* monotonic ns at initialisation; written once */

    _Atomic int gpu_state;     /* gs_gpu_state_t; UP and FAILED are published under gpu_lock */
    /* Per family: 0 before its first call wanted the GPU, 1 wanted (its library being set up), 2 ready (set
     * up, or failed: the backend then says so at each call); and when it was first wanted, monotonic ns. */
    atomic_uchar gpu_ready[GS_NFAMILIES];
    _Atomic uint64_t gpu_wanted_ns[GS_NFAMILIES];
    atomic_uchar gpu_used[GS_NROUTINES]; /* set once a routine ran on the GPU (answer used or not): first_us behind */
    int cpu_threads;           /* the CPU library's threads, from its environment variables; written once */
    /* The calls the cost model weighed that have not ended (above their thresholds: each holds the CPU
     * library's threads or waits for the GPU), and the GPU's predicted nanoseconds of those sent to it and not
     * yet back: how calls made at once by many threads (an OpenMP region calling dgemm_) share the CPU and
     * queue for the GPU (core/policy.c).  Atomics. */
    atomic_int calls_weighed;
    _Atomic uint64_t gpu_queued_ns;
    pthread_mutex_t gpu_lock;  /* guards GPU bring-up and every use of the device */
    char gpu_why[GS_WHY_MAX];  /* why the GPU is not usable; written under gpu_lock before FAILED is published */
    char gpu_pci[32];          /* the GPU's PCI bus id, written by the backend's bring-up (the log's gpu event) */
} gs_state_t;

GS_HIDDEN extern gs_state_t gs;
GS_HIDDEN extern atomic_int gs_initialised;

/* Initialises the library once (options, policy, log); safe from any thread and from other libraries'
 * constructors.  The inline fast path is one atomic load. */
GS_HIDDEN void gs_init_slow(void);
static inline void gs_init(void)
{
    if (__builtin_expect(!atomic_load_explicit(&gs_initialised, memory_order_acquire), 0))
        gs_init_slow();
}

/* Monotonic nanoseconds. */
GS_HIDDEN uint64_t gs_now_ns(void);

/* When a module's hook runs: once at initialisation (gs_init_once), after the options and the policy are read
 * and before any call proceeds, in no particular order; in the parent before a fork and after it (a module that
 * must not be forked half-way waits there); in a forked child before fork returns there (the child must forget
 * the parent's locks and device state, and never call CUDA); or at exit, from the library's destructor once the
 * library was initialised. */
typedef enum {
    GS_LIFE_INIT, GS_LIFE_FORK_PREPARE, GS_LIFE_FORK_PARENT, GS_LIFE_FORK_CHILD, GS_LIFE_EXIT,
    GS_LIFE_DEVICE_RESET /* the program reset the device: forget its memory without calling CUDA (gpu lock held) */
} gs_life_t;
typedef struct {
    gs_life_t when;
    void (*fn)(void);
} gs_life_hook_t;
/* Registers the module's fn for when: an entry in the linker section gs_life, which gs_life_run walks, so that
 * no registration runs at start-up and no constructor order can miss one.  Hooks of one kind must not depend
 * on each other's order. */
#define GS_LIFE_HOOK(when_, fn_) \
    static const gs_life_hook_t gs_life_##fn_ __attribute__((used, section("gs_life"), aligned(sizeof(void *)))) = \
        {(when_), (fn_)}
/* Runs every registered hook of one kind. */
GS_HIDDEN void gs_life_run(gs_life_t when);

/* ---- one intercepted call (call.c) -------------------------------------------------------------------- */

typedef enum { GS_WHERE_CPU, GS_WHERE_GPU } gs_where_t;

typedef struct gs_part gs_part_t;

typedef struct {
    uint16_t entry;      /* gs_entry_t */
    uint16_t routine;    /* gs_routine_t */
    const char *api;     /* the Python function it came through (gpushim_linalg), the log's symbol; or NULL */
    const void *ret;     /* the caller's return address (the log's runs of like calls, log/runs.c) */
    bool nested;         /* made from inside the CPU library: passed straight through, not logged */
    bool inside;         /* this thread is marked as inside the CPU library until gs_call_end */
    bool timed;          /* t0 is valid */
    uint8_t where;       /* gs_where_t */
    uint8_t dev;         /* the device slot the GPU path uses (an index of the CUDA state's devices) */
    uint8_t devices;     /* the devices a call split across them ran on (backend/cuda_split.c); 0: one */
    const char *why;     /* short reason (static string or why_buf) */
    char why_buf[200];
    uint64_t t0;
    uint64_t bytes_h2d, bytes_d2h;
    uint64_t bytes_saved; /* copies to the device that cached operands made unnecessary */
    uint32_t cache_hits;  /* operands found on the device, unchanged */
    uint8_t known;        /* operands (bit i in the order of the family's operands) that an earlier call used too */
    uint64_t track_ns;    /* time the residency cache took: look-ups, page-table scans, protection */
    double flops;
    int64_t dim[3];       /* sizes in the order of dim_names */
    const char *dim_names; /* "mnk", "mn", "nk", "n" */
    char opts[6];         /* option letters in argument order, e.g. "NT" */
    uint8_t shape_rank;   /* a transform's rank, for the log's "kind" and "shape" (set when timed); 0: none */
    const char *kind;     /* the transform's kind ("dft", "r2c", "c2r") when shape_rank > 0 */
    const int64_t *shape; /* its shape_rank logical sizes, owned by the family's arguments */
    void *real;           /* the CPU library's entry to call when the call stays on the CPU; NULL with own_cpu, */
    bool own_cpu;         /* set before gs_call_begin: the caller runs the CPU side itself (gs_family_t's) */
    uint8_t threads;      /* the threads it ran on there, where the family knows (FFTW plans); 0: not known */
    float pred_cpu, pred_gpu; /* the cost model's seconds on each side (gs_policy_model); < 0: not predicted */
    float pred_wait;      /* of pred_gpu, the GPU's bring-up still to come */
    float pred_queue;     /* of pred_gpu, the GPU work of other calls ahead of this one */
    float cpu_setup;      /* what the CPU side pays before it computes, in times its computing (a deferred FFTW
                             plan's measuring, which an execute sent there while the GPU comes up skips); 0:
                             nothing */
    uint8_t sharing;      /* the calls weighed at once as the model weighed this one, itself included (at most
                             255); 0: not weighed, nothing to count down at the end */
    float model[2];       /* by gs_where_t: the rates' seconds, before the history's factor; < 0: not noted */
    uint64_t hkey[2];     /* by gs_where_t: the kind of call, for the history */
    uint64_t t_pred;      /* when the model weighed the call with its history on; 0: nothing to note */
    bool refused;         /* the GPU ran it, but its answer was not used (GS_EEXACT): the CPU library made it */
    uint64_t t_redo;      /* when a refused call's redo by the CPU library began */
    void (*after)(int);   /* called with after_arg once the call is done (a bring-up to start), or NULL */
    int after_arg;
    struct gs_part *part; /* the part of a call split across devices this is (backend/cuda_split.c), or NULL */
} gs_call_t;

/* Depth of the calling thread inside the CPU library (see call.c). */
GS_HIDDEN extern _Thread_local int gs_depth __attribute__((tls_model("initial-exec")));

/* Records a finished call that is timed (log or summary on): counters and log record (log.c).  Only timed
 * calls pay for clocks and counters: a small call that stays on the CPU costs a few nanoseconds. */
GS_HIDDEN void gs_call_record(gs_call_t *c);
/* The model's history (history.c).  Notes a call the cost model weighed with its history on, as it ends: its
 * measured time against c->model on the side it ran. */
GS_HIDDEN void gs_history_note(const gs_call_t *c);
/* The median, over the last window (at most GS_HISTORY_MAX) calls of kind key this process noted, of their
 * measured over predicted times: what the model's seconds for the next such call are multiplied by.  1 when
 * none was noted.  *counted (when not NULL): how many calls the median is of. */
#define GS_HISTORY_MAX 8
GS_HIDDEN double gs_history_factor(uint64_t key, int window, int *counted);

/* The CPU library's entry e (real.c). */
GS_HIDDEN void *gs_real(unsigned e);
/* The first Fortran entry of routine r that a loaded library defines, found without a message (for the Python
 * layer's calls, which name a routine, not a symbol), or -1 when none does.  Kept once found. */
GS_HIDDEN int gs_real_entry(int r);

/* The three steps of every call, inline: the whole cost of a small call that stays on the CPU (bench/overhead.c). */

/* Starts a call through entry e.  Returns false for a nested call (one made from inside the CPU library),
 * which must go straight to the CPU. */
static inline bool gs_call_begin(gs_call_t *c, unsigned e)
{
    gs_init();
    c->entry = (uint16_t)e;
    c->nested = gs_depth > 0;
    if (c->nested)
        return false;
    c->routine = gs_entries[e].routine;
    c->inside = false;
    c->where = GS_WHERE_CPU;
    c->why = "";
    c->bytes_h2d = c->bytes_d2h = c->bytes_saved = 0;
    c->cache_hits = c->known = 0;
    c->track_ns = 0;
    c->flops = 0;
    c->threads = 0;
    c->pred_cpu = c->pred_gpu = -1;
    c->pred_wait = c->pred_queue = c->cpu_setup = 0, c->t_pred = 0, c->sharing = 0, c->refused = false;
    c->after = NULL, c->part = NULL, c->devices = 0, c->api = NULL;
    c->shape_rank = 0; /* (read by gs_dispatch_api's copy of a kept call, timed or not) */
    c->timed = gs.opt.log || gs.opt.summary;
    if (c->timed)
        c->t0 = gs_now_ns();
    return true;
}

/* Decides that the call runs on the CPU for reason why; sets c->real to the CPU library's entry (NULL when no
 * loaded library provides it, reported once) and marks this thread as inside the CPU library until
 * gs_call_end.  Returns 1 so that glue can write `if (offload(...)) real(...)`. */
static inline int gs_call_cpu(gs_call_t *c, const char *why)
{
    c->real = c->own_cpu ? NULL : gs_real(c->entry);
    if (!c->nested) {
        c->where = GS_WHERE_CPU;
        c->why = why;
        if (!c->inside)
            gs_depth++;
        c->inside = true;
    }
    return 1;
}

/* Finishes a call.  Must follow every gs_call_begin. */
static inline void gs_call_end(gs_call_t *c)
{
    if (c->nested)
        return;
    if (c->inside)
        gs_depth--;
    if (c->sharing)
        atomic_fetch_sub_explicit(&gs.calls_weighed, 1, memory_order_relaxed);
    if (c->t_pred)
        gs_history_note(c);
    if (c->timed)
        gs_call_record(c);
    if (__builtin_expect(c->after != NULL, 0))
        c->after(c->after_arg);
}

/* Formats a reason into c->why_buf and points c->why at it. */
GS_HIDDEN void gs_call_why(gs_call_t *c, const char *fmt, ...) GS_PRINTF(2, 3);
/* For a family's describe: the sizes the operation's dims name ('m', 'n', 'k', and 'r' for right-hand sides)
 * into c->dim, and the option letters among the n of letters (0 where unused) into c->opts, in order. */
GS_HIDDEN void gs_call_describe(gs_call_t *c, int op, int64_t m, int64_t n, int64_t k, int64_t r,
                                const char *letters, size_t nletters);

/* ---- real symbols (real.c) ---------------------------------------------------------------------------- */

/* The CPU library's definition of entry e, resolved once: first dlsym(RTLD_NEXT), then every loaded object
 * (Python opens extension modules and their BLAS with RTLD_LOCAL, out of RTLD_NEXT's sight).  Never returns
 * a symbol of gpushim itself.  NULL when no loaded object defines it.  Declared above, with the call. */

/* The CPU library's definition of symbol, found as gs_real finds an entry's and kept in *slot; NULL when no
 * loaded object defines it, reported once (*reported) as "no loaded library provides SYMBOL: OTHERWISE".
 * gs_real uses it for the table's entries, FFTW's planners for theirs. */
GS_HIDDEN void *gs_real_resolve(_Atomic(void *) *slot, atomic_bool *reported, const char *symbol,
                                const char *otherwise);

/* Two libraries of the same routines in one process (PyPI's pyFFTW bundles an FFTW of its own beside the
 * system's, each loaded RTLD_LOCAL): a caller reaches, without gpushim, the definition in the global scope,
 * else the one in its own object's scope (itself and its dependencies).  Most libraries other than the
 * process-wide one (def, gs_real_resolve's) that the table keeps: */
#define GS_REAL_LIBS 8
/* The definition of symbol that the code at caller (a return address) reaches: def, with *lib 0, when that is
 * the one or its scope has none; else the other, with *lib its library's number (1 to GS_REAL_LIBS) for
 * gs_real_lib.  A new library takes a place in the table; with the table full it is def (reported once).
 * Costs a dlopen(RTLD_NOLOAD) and a dlsym: for planners, not for executes (tests/t_fftw.sh, "two FFTWs"). */
GS_HIDDEN void *gs_real_caller(const void *caller, void *def, const char *symbol, int *lib);
/* How many libraries gs_real_caller has numbered: 0 while every caller reached def. */
GS_HIDDEN int gs_real_libs(void);
/* symbol as library lib (gs_real_caller's number) defines it, cached in slots[lib - 1] (the caller's
 * GS_REAL_LIBS slots for symbol); NULL for lib 0, an unknown number, or a library that lacks it. */
GS_HIDDEN void *gs_real_lib(int lib, _Atomic(void *) *slots, const char *symbol);
/* Entry e's symbol as library lib defines it (gs_real_lib, with the table's own slots). */
GS_HIDDEN void *gs_real_lib_entry(int lib, unsigned e);

/* ---- log and summary (log.c, write.c, event.c) --------------------------------------------------------- */

/* The log's format version (the header's "gpushim_log"): raised when a field changes meaning or goes away;
 * new fields and records leave it as it is (readers ignore what they do not know).  gpushim(7) has the format. */
#define GS_LOG_FORMAT 3
/* The log named by GPUSHIM_LOG (%p, %h, %r and %j expanded) is opened, and its header record written, by
 * log.c's GS_LIFE_INIT hook. */
/* Appends the record of a finished call, through the thread's buffer (log/record.h): lines from many threads
 * never interleave, and each thread's are in the order its calls end. */
GS_HIDDEN void gs_log_call(const gs_call_t *c, double seconds);
/* Appends an event record: {"t":...,"event":"<event>","what":"<what>"} ("gpu": the device came up, named in
 * what; "gpu_off": the GPU is not used from now on, for the reason in what). */
GS_HIDDEN void gs_log_event(const char *event, const char *what);
/* The same with one more string field, "<key>":"<value>", left out when value is NULL or empty. */
GS_HIDDEN void gs_log_event_with(const char *event, const char *what, const char *key, const char *value);
/* Writes s into out (size n) as the body of a JSON string; returns the length written. */
GS_HIDDEN size_t gs_json_escape(char *out, size_t n, const char *s);
/* Appends len bytes (whole records) to the log with one write(2); a failure is reported once. */
GS_HIDDEN void gs_log_write(const char *buf, size_t len);

/* Per-routine counters of timed calls, for the exit record and the summary; reset in a forked child. */
typedef struct {
    atomic_uint_fast64_t calls[2]; /* by gs_where_t */
    atomic_uint_fast64_t ns[2];
    atomic_uint_fast64_t bytes_h2d, bytes_d2h, bytes_saved;
} gs_counter_t;
GS_HIDDEN extern gs_counter_t gs_counters[GS_NROUTINES];

#include "core/policy.h" /* the policy's rules and cost model (policy.c) */

#endif

/* Call sites for the log: where the program made a call.  The native site is the first frame, walking out
 * from the call, whose object is neither gpushim nor a BLAS, LAPACK or FFTW library: "module:function".  The
 * stack comes from libunwind (opened with dlopen; glibc's backtrace when it is missing), objects and names from
 * the dynamic loader, both cached by address so that a site seen before costs a walk and a few look-ups.  In a
 * CPython process the Python site is the innermost frame outside installed packages ("fit.py:42 in train"),
 * read through CPython's C API with the GIL held for the moment it takes (NumPy releases the GIL around BLAS
 * and LAPACK calls).  Threads Python does not know have no Python site.  Nothing here is called with a lock
 * of gpushim held, and nothing is allocated per call. */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "site.h"

#define GS_SITE_FRAMES 48

/* ---- native frames ------------------------------------------------------------------------------------ */

static struct {
    pthread_once_t once;
    int (*backtrace)(void **, int);
    int (*getcontext)(unw_context_t *);
    int (*init_local)(unw_cursor_t *, unw_context_t *);
    int (*step)(unw_cursor_t *);
    int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
    int (*get_proc_name)(unw_cursor_t *, char *, size_t, unw_word_t *);
} gs_unw = {.once = PTHREAD_ONCE_INIT};

/* A function pointer to fill and the symbol that fills it. */
typedef struct {
    void *slot;
    const char *name;
} gs_sym_t;

/* Looks up every symbol of syms in h; true when all are found. */
static bool gs_syms(void *h, const gs_sym_t *syms, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(*(void **)syms[i].slot = dlsym(h, syms[i].name)))
            return false;
    return true;
}

static void gs_unw_open(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    /* libunwind.h maps the unw_ names of local unwinding to these symbols; gs_unw.backtrace marks them found */
    const gs_sym_t syms[] = {
        {&gs_unw.getcontext, "_Ux86_64_getcontext"},  {&gs_unw.init_local, "_ULx86_64_init_local"},
        {&gs_unw.step, "_ULx86_64_step"},             {&gs_unw.get_reg, "_ULx86_64_get_reg"},
        {&gs_unw.get_proc_name, "_ULx86_64_get_proc_name"}, {&gs_unw.backtrace, "unw_backtrace"},
    };
    if (h && !gs_syms(h, syms, sizeof syms / sizeof syms[0]))
        gs_unw.backtrace = NULL;
}

/* Loaded objects' executable ranges, and whether calls from them are the libraries' own. */
#define GS_NMOD 512
typedef struct {
    uintptr_t lo, hi;
    bool library;  /* gpushim, or a BLAS, LAPACK or FFTW library: walk on */
    char name[96]; /* base name */
} gs_module_t;

/* Return addresses seen: ip[h] -> idx[h], GS_LIBRARY for a library's frame, else 1 + the index of its name.
 * Open addressing, never removed. */
#define GS_NADDR 4096
#define GS_LIBRARY 0xffff
static struct {
    pthread_mutex_t lock;
    gs_module_t mod[GS_NMOD];
    int nmod;
    uintptr_t ip[GS_NADDR];
    uint16_t idx[GS_NADDR];
    char names[2048][160];
    int nnames;
} gs_sites = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool gs_site_library_name(const char *base)
{
    static const char *const parts[] = {"gpushim", "blas", "lapack", "fftw", "libmkl_", "libgfortran"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strstr(base, parts[i]))
            return true;
    return false;
}

static int gs_module_add(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : program_invocation_name;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    for (int i = 0; i < info->dlpi_phnum && gs_sites.nmod < GS_NMOD; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        gs_module_t *m = &gs_sites.mod[gs_sites.nmod++];
        m->lo = info->dlpi_addr + ph->p_vaddr;
        m->hi = m->lo + ph->p_memsz;
        m->library = gs_site_library_name(base);
        snprintf(m->name, sizeof m->name, "%s", base);
    }
    return gs_sites.nmod == GS_NMOD;
}

/* The module holding ip, or NULL (code outside any object: a JIT's).  A miss reads the loaded objects again,
 * once per new address: the address cache remembers the answer. */
static const gs_module_t *gs_module_of(uintptr_t ip)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < gs_sites.nmod; i++)
            if (ip >= gs_sites.mod[i].lo && ip < gs_sites.mod[i].hi)
                return &gs_sites.mod[i];
        if (pass == 0) {
            gs_sites.nmod = 0;
            dl_iterate_phdr(gs_module_add, NULL);
        }
    }
    return NULL;
}

/* A C++ name as written, without its parameters ("solve<double>"), through the C++ runtime's demangler when
 * the process has one. */
static void gs_demangle(char *fn, size_t n)
{
    static char *(*demangle)(const char *, char *, size_t *, int *);
    if (strncmp(fn, "_Z", 2) != 0)
        return;
    if (!demangle) { /* C++ extension modules load the C++ runtime privately (RTLD_LOCAL) */
        void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_NOLOAD);
        *(void **)&demangle = dlsym(cxx ? cxx : RTLD_DEFAULT, "__cxa_demangle");
        if (cxx)
            dlclose(cxx);
    }
    int st = -1;
    char *d = demangle ? demangle(fn, NULL, NULL, &st) : NULL;
    if (d && st == 0) {
        char *paren = strchr(d, '(');
        if (paren)
            *paren = 0;
        snprintf(fn, n, "%s", d);
    }
    free(d);
}

/* The name of the function holding the return address ip, the depth-th frame of the walk: libunwind reads
 * the symbol table, static functions included; the loader's dladdr knows exported symbols only. */
static void gs_function_name(uintptr_t ip, int depth, char *fn, size_t n)
{
    fn[0] = 0;
    if (gs_unw.backtrace) {
        unw_context_t ctx;
        unw_cursor_t cur;
        unw_word_t off, reg;
        if (gs_unw.getcontext(&ctx) == 0 && gs_unw.init_local(&cur, &ctx) == 0)
            for (int i = 0; i < depth + 4 && gs_unw.step(&cur) > 0; i++)
                if (gs_unw.get_reg(&cur, UNW_REG_IP, &reg) == 0 && reg == ip) {
                    if (gs_unw.get_proc_name(&cur, fn, n, &off) != 0)
                        fn[0] = 0;
                    break;
                }
    }
    Dl_info dl;
    if (!fn[0] && dladdr((void *)ip, &dl) && dl.dli_sname)
        snprintf(fn, n, "%s", dl.dli_sname);
    gs_demangle(fn, n);
}

/* What the return address ip (the depth-th frame) is: GS_LIBRARY, or 1 + the index of its "module:function";
 * under the lock. */
static unsigned gs_frame(uintptr_t ip, int depth)
{
    size_t h = (ip >> 4) * 0x9e3779b97f4a7c15ull >> 52;
    for (size_t k = 0; k < GS_NADDR && gs_sites.ip[h]; k++, h = (h + 1) % GS_NADDR)
        if (gs_sites.ip[h] == ip)
            return gs_sites.idx[h];
    /* a return address: the call instruction is just before it */
    const gs_module_t *m = gs_module_of(ip - 1);
    unsigned idx = GS_LIBRARY;
    if (!m || !m->library) {
        if (gs_sites.nnames == (int)(sizeof gs_sites.names / sizeof gs_sites.names[0]))
            return 0; /* full: unnamed */
        char fn[128];
        gs_function_name(ip, depth, fn, sizeof fn);
        snprintf(gs_sites.names[gs_sites.nnames++], sizeof gs_sites.names[0], "%s:%s", m ? m->name : "?",
                 fn[0] ? fn : "?");
        idx = (unsigned)gs_sites.nnames;
    }
    if (!gs_sites.ip[h])
        gs_sites.ip[h] = ip, gs_sites.idx[h] = (uint16_t)idx;
    return idx;
}

void gs_site_native(char *out, size_t n)
{
    pthread_once(&gs_unw.once, gs_unw_open);
    void *ips[GS_SITE_FRAMES];
    int k = gs_unw.backtrace ? gs_unw.backtrace(ips, GS_SITE_FRAMES) : backtrace(ips, GS_SITE_FRAMES);
    pthread_mutex_lock(&gs_sites.lock);
    unsigned idx = GS_LIBRARY;
    for (int i = 1; i < k && idx == GS_LIBRARY; i++) /* ips[0] is in this function */
        idx = gs_frame((uintptr_t)ips[i], i);
    snprintf(out, n, "%s", idx && idx != GS_LIBRARY ? gs_sites.names[idx - 1] : "?");
    pthread_mutex_unlock(&gs_sites.lock);
}

void gs_site_atfork_child(void)
{
    pthread_mutex_init(&gs_sites.lock, NULL);
}

/* ---- Python frames ------------------------------------------------------------------------------------ */

typedef struct _object pyobj;
#define GS_PY_WAITS 3
#define GS_PY_WAIT_NS 200000
static struct {
    pthread_once_t once;
    bool ok;
    int (*is_initialized)(void);
    int (*is_finalizing)(void);
    void *(*this_thread_state)(void);
    int (*gil_ensure)(void);
    void (*gil_release)(int);
    pyobj *(*get_frame)(void);
    pyobj *(*frame_back)(pyobj *);
    pyobj *(*frame_code)(pyobj *);
    int (*frame_line)(pyobj *);
    pyobj *(*getattr)(pyobj *, const char *);
    const char *(*utf8)(pyobj *);
    void (*incref)(pyobj *);
    void (*decref)(pyobj *);
    void (*err_clear)(void);
    atomic_int waits; /* slow waits for the GIL so far */
    /* code objects seen, held (so that their addresses are not reused while here): file base name, function,
     * whether the file is an installed package's; written with the GIL held */
    struct {
        pyobj *code;
        bool library;
        char file[128], func[96];
    } code[256];
} gs_py = {.once = PTHREAD_ONCE_INIT};

static void gs_py_open(void)
{
    const gs_sym_t syms[] = {
        {&gs_py.is_initialized, "Py_IsInitialized"},
        {&gs_py.this_thread_state, "PyGILState_GetThisThreadState"},
        {&gs_py.gil_ensure, "PyGILState_Ensure"},
        {&gs_py.gil_release, "PyGILState_Release"},
        {&gs_py.get_frame, "PyEval_GetFrame"},
        {&gs_py.frame_back, "PyFrame_GetBack"},
        {&gs_py.frame_code, "PyFrame_GetCode"},
        {&gs_py.frame_line, "PyFrame_GetLineNumber"},
        {&gs_py.getattr, "PyObject_GetAttrString"},
        {&gs_py.utf8, "PyUnicode_AsUTF8"},
        {&gs_py.incref, "Py_IncRef"},
        {&gs_py.decref, "Py_DecRef"},
        {&gs_py.err_clear, "PyErr_Clear"},
    };
    if (!gs_syms(RTLD_DEFAULT, syms, sizeof syms / sizeof syms[0]))
        return;
    /* public from 3.13, private before */
    if (!(*(void **)&gs_py.is_finalizing = dlsym(RTLD_DEFAULT, "Py_IsFinalizing")) &&
        !(*(void **)&gs_py.is_finalizing = dlsym(RTLD_DEFAULT, "_Py_IsFinalizing")))
        return;
    gs_py.ok = true;
}

/* A string attribute of a code object, copied into out (empty when missing). */
static void gs_py_attr(pyobj *code, const char *attr, char *out, size_t n)
{
    out[0] = 0;
    pyobj *s = gs_py.getattr(code, attr);
    if (!s) {
        gs_py.err_clear();
        return;
    }
    const char *u = gs_py.utf8(s);
    if (u)
        snprintf(out, n, "%s", u);
    else
        gs_py.err_clear();
    gs_py.decref(s);
}

/* The cache entry of a code object (a new one replaces what was in its slot); with the GIL held. */
static int gs_py_code(pyobj *code)
{
    int i = (int)(((uintptr_t)code >> 4) % (sizeof gs_py.code / sizeof gs_py.code[0]));
    if (gs_py.code[i].code == code)
        return i;
    if (gs_py.code[i].code)
        gs_py.decref(gs_py.code[i].code);
    gs_py.incref(code);
    gs_py.code[i].code = code;
    char file[512];
    gs_py_attr(code, "co_filename", file, sizeof file);
    gs_py_attr(code, "co_name", gs_py.code[i].func, sizeof gs_py.code[i].func);
    /* code of installed packages and the interpreter's own modules: walk on to the program's code */
    gs_py.code[i].library = strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
                            strncmp(file, "<frozen", 7) == 0;
    snprintf(gs_py.code[i].file, sizeof gs_py.code[i].file, "%.127s",
             strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
    return i;
}

bool gs_site_python(char *out, size_t n)
{
    out[0] = 0;
    pthread_once(&gs_py.once, gs_py_open);
    if (!gs_py.ok || atomic_load_explicit(&gs_py.waits, memory_order_relaxed) >= GS_PY_WAITS ||
        !gs_py.is_initialized() || gs_py.is_finalizing() || !gs_py.this_thread_state())
        return false;
    uint64_t t0 = gs_now_ns();
    int gil = gs_py.gil_ensure();
    /* Another thread running Python code makes this wait up to the interpreter's switch interval (5 ms):
     * after a few such waits the process keeps to native sites, and the log says so. */
    if (gs_now_ns() - t0 > GS_PY_WAIT_NS && atomic_fetch_add(&gs_py.waits, 1) + 1 == GS_PY_WAITS)
        gs_log_event("sites", "native from now on: waiting for Python's global interpreter lock took over "
                              "0.2 ms three times");
    pyobj *cur = gs_py.get_frame(); /* borrowed; the frames before it are new references */
    bool found = false, own = false;
    for (int depth = 0; cur && depth < 64 && !found; depth++) {
        pyobj *code = gs_py.frame_code(cur);
        if (code) {
            int i = gs_py_code(code);
            gs_py.decref(code);
            /* the innermost frame too, for when every frame is in packages (a package's own tests) */
            if (!gs_py.code[i].library || depth == 0) {
                snprintf(out, n, "%s:%d in %s", gs_py.code[i].file, gs_py.frame_line(cur), gs_py.code[i].func);
                found = !gs_py.code[i].library;
            }
        }
        pyobj *back = gs_py.frame_back(cur);
        if (own)
            gs_py.decref(cur);
        cur = back, own = true;
    }
    if (own && cur)
        gs_py.decref(cur);
    bool any = found || out[0];
    gs_py.gil_release(gil);
    return any;
}

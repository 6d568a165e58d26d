/* Python call sites for the log: in a CPython process, the innermost Python frame outside installed packages
 * ("fit.py:42 in train"), read through CPython's C API with the GIL held for the moment it takes (NumPy
 * releases the GIL around BLAS and LAPACK calls).  Threads Python does not know have no Python site. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "log/site.h"

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

/* CPython's C API, looked up in the process once (gs_py_open); a process without Python has none. */
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
    /* code of installed packages, the interpreter's own modules and gpushim's Python layer (gpushim/_linalg.py,
     * _fft.py; from a checkout too): walk on to the program's code */
    gs_py.code[i].library = strstr(file, "/site-packages/") || strstr(file, "/dist-packages/") ||
                            strncmp(file, "<frozen", 7) == 0 || strstr(file, "/gpushim/_");
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

/* Native call sites for the log: the first frame of a call, walking out, whose object is neither gpushim nor
 * a BLAS, LAPACK or FFTW library, named by the function symbol of the object's file that holds the call.  The
 * files are read with open and pread into fixed buffers (gpushim interposes mmap and free, hostreg.c), and the
 * answers are cached by return address: nothing is allocated per call.  The intercepted call's return address
 * answers most calls without a walk of the stack, which costs far more than a look-up (libunwind's cache and
 * the loader's list of objects, shared by every thread). */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libunwind.h>

#include "log/record.h"
#include "log/site.h"

#define GS_SITE_FRAMES 48

static struct {
    pthread_once_t once;
    __typeof__(unw_backtrace) *backtrace; /* libunwind's, opened with dlopen: its type from libunwind.h */
} gs_unw = {.once = PTHREAD_ONCE_INIT};

/* libunwind for the stack walk only (glibc's backtrace when it is missing): the names come from the files
 * (gs_function_name). */
static void gs_unw_open(void)
{
    void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (h)
        *(void **)&gs_unw.backtrace = dlsym(h, "unw_backtrace");
}

/* Loaded objects' executable ranges, and whether calls from them are the libraries' own. */
#define GS_NMOD 512
typedef struct {
    uintptr_t lo, hi;
    uintptr_t bias; /* the loader's dlpi_addr: an address less this is the address in the file's terms */
    bool library;   /* gpushim, or a BLAS, LAPACK or FFTW library: walk on */
    char name[96];  /* base name */
} gs_module_t;

/* The loaded object that holds an address (gs_object_find): its file and its build ID. */
typedef struct {
    uintptr_t addr; /* the address asked about */
    bool found;
    uintptr_t bias;
    char path[4096];
    unsigned char id[64];
    size_t nid; /* the build ID's length; 0 when the object has none */
} gs_object_t;

/* Return addresses seen: ip[h] -> idx[h], GS_LIBRARY for a library's frame, else 1 + the index of its name.
 * Open addressing, never removed. */
#define GS_NADDR 4096
#define GS_LIBRARY 0xffff
#define GS_NPH 64 /* program headers read from a file, for its build ID */
static struct {
    pthread_mutex_t lock;
    gs_module_t mod[GS_NMOD];
    int nmod;
    uintptr_t ip[GS_NADDR];
    uint16_t idx[GS_NADDR];
    char names[2048][160];
    int nnames;
    /* scratch of the name look-up (gs_function_name), under the lock */
    gs_object_t obj;
    char sym[1024]; /* a symbol's name: C++ names mangled run long */
    ElfW(Phdr) ph[GS_NPH];
    union {
        ElfW(Shdr) sh[256];
        ElfW(Sym) sym[4096];
        char note[8192];
    } buf;
} gs_sites = {.lock = PTHREAD_MUTEX_INITIALIZER};

bool gs_site_library_name(const char *base)
{
    static const char *const parts[] = {"gpushim", "blas", "lapack", "libmkl_", "libgfortran"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strstr(base, parts[i]))
            return true;
    /* FFTW's own files only (libfftw3.so.3, libfftw3f_threads.so.3, pyFFTW's bundled libfftw3-<hash>.so.3.5.5):
     * pyFFTW's extension module (pyfftw.cpython-311-x86_64-linux-gnu.so) is its callers' site
     * (tests/t_fftw_apps.sh, "the native site of pyFFTW's executes"). */
    return strncmp(base, "libfftw3", 8) == 0 && strstr(base, ".so");
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
        m->bias = info->dlpi_addr;
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

/* ---- function names from the objects' files ----------------------------------------------------------- */

/* Reads n bytes of fd at off into p; false on an error or a short file. */
static bool gs_pread(int fd, void *p, size_t n, uint64_t off)
{
    for (size_t done = 0; done < n;) {
        ssize_t r = pread(fd, (char *)p + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

/* The GNU build ID among the notes p[0, n), whose fields are aligned to align bytes, into id (cap bytes):
 * its length, 0 when there is none. */
static size_t gs_note_id(const char *p, size_t n, size_t align, unsigned char *id, size_t cap)
{
    ElfW(Nhdr) h;
    for (size_t i = 0; i < n && n - i >= sizeof h;) {
        memcpy(&h, p + i, sizeof h);
        size_t name = i + sizeof h, desc = name + ((h.n_namesz + align - 1) & ~(align - 1));
        if (desc > n || n - desc < h.n_descsz)
            return 0;
        if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && memcmp(p + name, "GNU", 4) == 0 &&
            h.n_descsz <= cap) {
            memcpy(id, p + desc, h.n_descsz);
            return h.n_descsz;
        }
        i = desc + ((h.n_descsz + align - 1) & ~(align - 1));
    }
    return 0;
}

/* dl_iterate_phdr's callback: fills the gs_object_t at arg when this object holds its address.  The build
 * ID is read from the mapped notes here, while the loader keeps the object from being unloaded. */
static int gs_object_find(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    gs_object_t *o = arg;
    bool holds = false;
    for (int i = 0; i < info->dlpi_phnum && !holds; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        holds = ph->p_type == PT_LOAD && o->addr - info->dlpi_addr - ph->p_vaddr < ph->p_memsz;
    }
    if (!holds)
        return 0;
    o->found = true;
    o->bias = info->dlpi_addr;
    /* the loader names the main program "" */
    snprintf(o->path, sizeof o->path, "%s",
             info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "/proc/self/exe");
    o->nid = 0;
    for (int i = 0; i < info->dlpi_phnum && !o->nid; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE)
            o->nid = gs_note_id((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
                                ph->p_align == 8 ? 8 : 4, o->id, sizeof o->id);
    }
    return 1;
}

/* The file of the object o, opened, when it is an ELF file of this process's class whose build ID is the
 * loaded object's: a library replaced on disk since it was loaded would name wrong functions
 * (tests/t_sites.sh, "replaced on disk").  -1 when not. */
static int gs_elf_open(const gs_object_t *o, ElfW(Ehdr) *eh)
{
    int fd = open(o->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    bool ok = gs_pread(fd, eh, sizeof *eh, 0) && memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
              eh->e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32);
    if (ok && o->nid) {
        unsigned char id[sizeof o->id];
        size_t nph = eh->e_phnum < GS_NPH ? eh->e_phnum : GS_NPH, nid = 0;
        ok = eh->e_phentsize == sizeof(ElfW(Phdr)) &&
             gs_pread(fd, gs_sites.ph, nph * sizeof(ElfW(Phdr)), eh->e_phoff);
        for (size_t i = 0; ok && i < nph && !nid; i++) {
            const ElfW(Phdr) *ph = &gs_sites.ph[i];
            if (ph->p_type == PT_NOTE && ph->p_filesz <= sizeof gs_sites.buf.note &&
                gs_pread(fd, gs_sites.buf.note, ph->p_filesz, ph->p_offset))
                nid = gs_note_id(gs_sites.buf.note, ph->p_filesz, ph->p_align == 8 ? 8 : 4, id, sizeof id);
        }
        ok = ok && nid == o->nid && memcmp(id, o->id, nid) == 0;
    }
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The symbol table to read, .symtab when the file has one (static functions included), else .dynsym (the
 * exported symbols), and the string table it links to; false when there is neither.  A file of over 65279
 * sections (whose count sits in section 0) or none counts as having neither. */
static bool gs_elf_tables(int fd, const ElfW(Ehdr) *eh, ElfW(Shdr) *tab, ElfW(Shdr) *str)
{
    const size_t per = sizeof gs_sites.buf.sh / sizeof gs_sites.buf.sh[0];
    bool any = false, full = false;
    if (eh->e_shentsize != sizeof(ElfW(Shdr)))
        return false;
    for (size_t i = 0; i < eh->e_shnum && !full; i += per) {
        size_t k = eh->e_shnum - i < per ? eh->e_shnum - i : per;
        if (!gs_pread(fd, gs_sites.buf.sh, k * sizeof(ElfW(Shdr)), eh->e_shoff + i * sizeof(ElfW(Shdr))))
            return false;
        for (size_t j = 0; j < k && !full; j++) {
            const ElfW(Shdr) *s = &gs_sites.buf.sh[j];
            if (s->sh_type == SHT_SYMTAB || (s->sh_type == SHT_DYNSYM && !any)) {
                *tab = *s;
                any = true, full = s->sh_type == SHT_SYMTAB;
            }
        }
    }
    return any && tab->sh_entsize == sizeof(ElfW(Sym)) && tab->sh_link < eh->e_shnum &&
           gs_pread(fd, str, sizeof *str, eh->e_shoff + tab->sh_link * sizeof(ElfW(Shdr))) &&
           str->sh_type == SHT_STRTAB;
}

/* The name of the defined function symbol of tab whose [st_value, st_value + st_size) holds a (an address
 * in the file's terms), into fn (n bytes); of aliases, a global name before a local one.  False when none. */
static bool gs_elf_symbol(int fd, const ElfW(Shdr) *tab, const ElfW(Shdr) *str, uintptr_t a, char *fn,
                          size_t n)
{
    const size_t per = sizeof gs_sites.buf.sym / sizeof gs_sites.buf.sym[0];
    const size_t count = tab->sh_size / sizeof(ElfW(Sym));
    ElfW(Sym) best = {0};
    bool found = false;
    for (size_t i = 0; i < count; i += per) {
        size_t k = count - i < per ? count - i : per;
        if (!gs_pread(fd, gs_sites.buf.sym, k * sizeof(ElfW(Sym)), tab->sh_offset + i * sizeof(ElfW(Sym))))
            return false;
        for (size_t j = 0; j < k; j++) {
            const ElfW(Sym) *s = &gs_sites.buf.sym[j];
            int type = ELF64_ST_TYPE(s->st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF || a < s->st_value ||
                a - s->st_value >= s->st_size)
                continue;
            if (!found || s->st_value > best.st_value ||
                (s->st_value == best.st_value && ELF64_ST_BIND(best.st_info) == STB_LOCAL))
                best = *s, found = true;
        }
    }
    if (!found || best.st_name >= str->sh_size)
        return false;
    size_t len = str->sh_size - best.st_name < n - 1 ? str->sh_size - best.st_name : n - 1;
    if (!gs_pread(fd, fn, len, str->sh_offset + best.st_name))
        return false;
    fn[len] = 0; /* the name ends at its own NUL, or is cut at n - 1 bytes */
    return fn[0] != 0;
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

/* The function that made the call returning to ip, into fn (n bytes), demangled: the function symbol of the
 * object's file whose range holds the call, or, when the file cannot be read or has no section headers, the
 * loader's exported symbol, again only when its size shows that it holds the call (the nearest symbol before
 * an address is another function's when the caller is a static function of a stripped object).  False when
 * no symbol holds the call. */
static bool gs_function_name(uintptr_t ip, char *fn, size_t n)
{
    gs_object_t *o = &gs_sites.obj;
    o->addr = ip - 1; /* the call instruction ends just before its return address */
    o->found = false;
    dl_iterate_phdr(gs_object_find, o);
    ElfW(Ehdr) eh;
    ElfW(Shdr) tab = {0}, str = {0};
    int fd = o->found ? gs_elf_open(o, &eh) : -1;
    bool named = false;
    char *sym = gs_sites.sym;
    if (fd >= 0 && gs_elf_tables(fd, &eh, &tab, &str)) {
        named = gs_elf_symbol(fd, &tab, &str, o->addr - o->bias, sym, sizeof gs_sites.sym);
    } else {
        Dl_info dl;
        const ElfW(Sym) *s = NULL;
        named = dladdr1((void *)o->addr, &dl, (void **)&s, RTLD_DL_SYMENT) && s && dl.dli_sname &&
                o->addr - (uintptr_t)dl.dli_saddr < s->st_size;
        if (named)
            snprintf(sym, sizeof gs_sites.sym, "%s", dl.dli_sname);
    }
    if (fd >= 0)
        close(fd);
    if (named) {
        gs_demangle(sym, sizeof gs_sites.sym);
        size_t len = strnlen(sym, n - 1); /* cut to fit */
        memcpy(fn, sym, len);
        fn[len] = 0;
    }
    return named;
}

/* What the return address ip is: GS_LIBRARY, or 1 + the index of its "module:function" or
 * "module+0xOFFSET"; under the lock. */
static unsigned gs_frame(uintptr_t ip)
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
        char fn[128], site[sizeof gs_sites.names[0]];
        if (!m)
            snprintf(site, sizeof site, "?:?");
        else if (gs_function_name(ip, fn, sizeof fn))
            snprintf(site, sizeof site, "%s:%s", m->name, fn);
        else
            snprintf(site, sizeof site, "%s+0x%" PRIxPTR, m->name, ip - m->bias);
        memcpy(gs_sites.names[gs_sites.nnames++], site, sizeof site);
        idx = (unsigned)gs_sites.nnames;
    }
    if (!gs_sites.ip[h])
        gs_sites.ip[h] = ip, gs_sites.idx[h] = (uint16_t)idx;
    return idx;
}

/* The last return address of each thread and its answer: a loop calls from one place. */
static _Thread_local uintptr_t gs_site_last_ip __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned gs_site_last __attribute__((tls_model("initial-exec")));

void gs_site_native(char *out, size_t n, const void *ret)
{
    int err = errno; /* a file that cannot be opened, or libunwind's probes, would change the caller's */
    uintptr_t ip = (uintptr_t)ret;
    unsigned idx = GS_LIBRARY;
    if (ip && ip == gs_site_last_ip) {
        idx = gs_site_last;
    } else if (ip) {
        pthread_mutex_lock(&gs_sites.lock);
        idx = gs_frame(ip);
        pthread_mutex_unlock(&gs_sites.lock);
        gs_site_last_ip = ip, gs_site_last = idx;
    }
    /* Called from a library's frame (a Fortran runtime's matmul, say), or from nowhere known: the stack is
     * walked, whose answer depends on more than the return address. */
    if (idx == GS_LIBRARY) {
        pthread_once(&gs_unw.once, gs_unw_open);
        void *ips[GS_SITE_FRAMES];
        int k = gs_unw.backtrace ? gs_unw.backtrace(ips, GS_SITE_FRAMES) : backtrace(ips, GS_SITE_FRAMES);
        pthread_mutex_lock(&gs_sites.lock);
        for (int i = 1; i < k && idx == GS_LIBRARY; i++) /* ips[0] is in this function */
            idx = gs_frame((uintptr_t)ips[i]);
        pthread_mutex_unlock(&gs_sites.lock);
    }
    /* (the names are only ever appended, each before its index is handed out) */
    gs_copy_str(out, n, idx && idx != GS_LIBRARY ? gs_sites.names[idx - 1] : "?");
    errno = err;
}

/* In a forked child: the site table's lock, which another thread of the parent may have held. */
static void gs_site_atfork_child(void)
{
    pthread_mutex_init(&gs_sites.lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_site_atfork_child);

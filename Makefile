# gpushim: build, test, demo and install.  `make help` lists the targets.

CUDA_HOME ?= /usr/local/cuda
PREFIX ?= /usr/local
CC ?= cc
PYTHON ?= python3
B := build

WARN := -Wall -Wextra -Werror -Wformat=2
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -fPIC $(WARN) $(CFLAGS)
NVCC ?= $(CUDA_HOME)/bin/nvcc
CPPFLAGS_LIB := -D_GNU_SOURCE -Isrc -Iinclude -Ikernels -I$(CUDA_HOME)/include \
	-DGS_DEFAULT_POLICY='"policies/default.policy"'

# The library's layers are folders of src/ (src/README.md); an object keeps its source's folder under build/obj.
# The entry points are generated (ENTRY_POINTS, below), their object placed with the families.
LIB_SRCS := $(wildcard src/*/*.c src/*/*/*.c)
ENTRY_POINTS := $(B)/entry_points.c
ENTRY_POINTS_OBJ := $(B)/obj/families/entry_points.o
# gpushim's own CUDA kernels (kernels/): one fatbin, embedded as a C array (src/backend/cuda_kernels.c).
KERNELS_FATBIN := $(B)/kernels/kernels.fatbin
KERNELS_OBJ := $(B)/obj/kernels_fatbin.o
LIB_OBJS := $(LIB_SRCS:src/%.c=$(B)/obj/%.o) $(ENTRY_POINTS_OBJ) $(KERNELS_OBJ)
LIB := $(B)/libgpushim.so
MAP := $(B)/gpushim.map
ENTRIES := $(B)/entries.txt

STANDIN := $(B)/standin/libcudart.so.13 $(B)/standin/libcublas.so.13 $(B)/standin/libcusolver.so.12 \
	$(B)/standin/libcufft.so.12
# The same stand-in as CUDA 12's libraries, for the driver that refuses CUDA 13 (tests/t_nogpu.sh).
STANDIN12 := $(B)/standin12/libcudart.so.12 $(B)/standin12/libcublas.so.12 $(B)/standin12/libcusolver.so.11 \
	$(B)/standin12/libcufft.so.11
# An old driver's libcuda.so.1, which the real CUDA runtime refuses.
OLDDRIVER := $(B)/olddriver/libcuda.so.1

.PHONY: all lib standin tests demo check check-unit check-gpu check-badinput check-faults coverage gpu-pack gpu-pack-apps bench bench-gemm bench-l3 bench-cache bench-lapack bench-copy bench-fft bench-pyfft bench-apps bench-demo bench-hooks bench-sites depgraph entries install uninstall deps \
	deps-demo clean help tsan tsan-parts check-races asan asan-parts
all: lib

help:
	@echo "make                build $(LIB)"
	@echo "make demo           install what the demo needs, build, run bench/demo.py under the shim"
	@echo "make check          install what the tests need, build, run every test that needs no GPU"
	@echo "make check-gpu      on a GPU machine: the same programs against the real CUDA libraries"
	@echo "make gpu-pack-apps  Debian's R and GNU Octave packed for tests/gpu/run.sh apps on a GPU machine"
	@echo "make check-badinput every GPUSHIM_ variable with six bad values (CI runs a sample)"
	@echo "make check-faults   every CUDA, cuBLAS, cuSOLVER and cuFFT call of two runs failed in turn (CI: a sample)"
	@echo "make check-races    16 threads x 10^4 calls, under TSan and helgrind too; forks, exits (CI: a sample)"
	@echo "make asan           AddressSanitizer builds of the library and the stand-in in build/asan (tests/t_asan.sh)"
	@echo "make coverage       make check's suite against a gcov build in build/cov (bench/results/coverage.md)"
	@echo "make bench          on a GPU machine: DGEMM from NumPy with and without the shim"
	@echo "make bench-gemm     on a GPU machine: GEMM against the CPU, NVBLAS and CuPy (bench/results/gemm.md)"
	@echo "make bench-l3       on a GPU machine: every Level-3 routine, CPU, GPU and policy (bench/results/l3.md)"
	@echo "make bench-cache    on a GPU machine: the residency cache against the CPU and CuPy (bench/results/cache.md)"
	@echo "make bench-lapack   on a GPU machine: numpy.linalg and scipy.linalg: CPU, gpushim, its Python layer, CuPy (bench/results/lapack.md)"
	@echo "make bench-copy     numpy.linalg's strided copies, with and without the shim, against the host's memory (bench/results/copy.md)"
	@echo "make bench-fft      on a GPU machine: FFTW against cuFFTW, CuPy and FFTW's 16 threads (bench/results/fft.md)"
	@echo "make bench-pyfft    on a GPU machine: numpy.fft and scipy.fft, through the Python layer and not, CuPy (bench/results/pyfft.md)"
	@echo "make bench-apps     on a GPU machine: the corpus of real programs, whole, CPU-only and under gpushim (bench/results/apps-large.md)"
	@echo "make bench-demo     the demo's whole process, CPU-only against gpushim, alternately (bench/results/demo.md)"
	@echo "make bench-hooks    what gpushim costs a malloc-heavy program and small NumPy products where it offloads nothing (bench/results/hooks.md)"
	@echo "make bench-sites    what a call's log record and its call sites cost, from C and Python (bench/results/sites.md)"
	@echo "make entries        build/entries.txt: every entry point, with its routine and template"
	@echo "make depgraph       the module graph's layer violations and cycles, and the sources' sizes (tests/t_layers.sh)"
	@echo "make install PREFIX=DIR   install the library, header, scripts and man pages"

# ---- the library -----------------------------------------------------------------------------------------
lib: $(LIB) $(ENTRIES)

# The entry points: for each symbol of the routine table, build/entry_points.c defines its parameters and
# includes its operation's template (src/families/*/<op>.inc), so that a debugger steps the template's lines.
# build/entries.txt lists them, a line per symbol with its routine and the file and line of its definition as
# the compiler saw it (make entries); it is remade whenever the object is.
entries: $(ENTRIES)
ENTRY_TABLE := src/families/entries.txt.in src/families/entries.awk src/core/routines.def src/core/gs_table.h
$(ENTRY_POINTS): $(ENTRY_TABLE) | $(B)
	$(CC) -E -P -Isrc -x c $< | tr -s ' \t\n' '\n' | awk -v out=c -f src/families/entries.awk >$@.tmp && mv $@.tmp $@
$(ENTRY_POINTS_OBJ): $(ENTRY_POINTS) | $(B)/obj
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -fvisibility=hidden -MD -MP -c $< -o $@
$(ENTRIES): $(ENTRY_POINTS_OBJ) src/families/entries.awk
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -E $(ENTRY_POINTS) | \
		awk -v out=txt -f src/families/entries.awk $(ENTRY_POINTS) - >$@.tmp && mv $@.tmp $@

# Only CUDA's headers are needed to build (for types and constants); the libraries are opened at run time.
# They must be recent enough to declare cuSOLVER's Xgeev (CUDA 13 does).
CUDA_HINT := install the CUDA toolkit from NVIDIA's repository (cuda-toolkit-13-0) or set CUDA_HOME to one
$(B)/.cuda-headers: | $(B)
	@test -f $(CUDA_HOME)/include/cusolverDn.h -a -f $(CUDA_HOME)/include/cuda_runtime_api.h || { \
		echo "make: the CUDA headers are not in CUDA_HOME=$(CUDA_HOME): $(CUDA_HINT)" >&2; exit 1; }
	@grep -q cusolverDnXgeev $(CUDA_HOME)/include/cusolverDn.h || { echo "make: the CUDA headers in \
	CUDA_HOME=$(CUDA_HOME) are too old (no cusolverDnXgeev): $(CUDA_HINT)" >&2; exit 1; }
	@test -x $(NVCC) || { echo "make: nvcc is not at NVCC=$(NVCC) (gpushim's kernels need it): $(CUDA_HINT)" >&2; \
		exit 1; }
	@touch $@
$(LIB_OBJS) $(STANDIN) $(STANDIN12): | $(B)/.cuda-headers

# The packages' headers that the library includes (tests/deps.sh headers): a machine without them is told which
# packages to install, not the compiler's "No such file".
$(B)/.build-headers: tests/deps.sh | $(B)
	@m=$$(CC="$(CC)" tests/deps.sh headers); test -z "$$m" || { echo "make: the build needs the packages \
	$${m% }, which are not installed: apt-get install $${m% } (or make demo, which installs what it needs)" >&2; \
		exit 1; }
	@touch $@
$(LIB_OBJS): | $(B)/.build-headers

$(B)/obj/%.o: src/%.c | $(B)/obj
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_LIB) $(ALL_CFLAGS) -fvisibility=hidden -MD -MP -c $< -o $@

$(B)/obj/core/policy.o: policies/default.policy

# sm_90 code for Hopper and PTX that the driver compiles for later GPUs.
$(KERNELS_FATBIN): kernels/kernels.cu kernels/permute.cu kernels/permute.h kernels/scale.cu kernels/scale.h \
		kernels/finite.cu kernels/finite.h \
		| $(B)/.cuda-headers
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 -Ikernels \
		-o $@ $<
$(B)/kernels/kernels_fatbin.c: $(KERNELS_FATBIN)
	{ echo '/* Generated from $< by make: the fatbin of kernels/, for cudaLibraryLoadData. */'; \
	  echo '#include <stddef.h>'; \
	  echo '__attribute__((visibility("hidden"), aligned(64))) const unsigned char gs_kernels_fatbin[] = {'; \
	  od -An -v -tx1 $< | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo '__attribute__((visibility("hidden"))) const size_t gs_kernels_fatbin_size = sizeof gs_kernels_fatbin;'; \
	} >$@.tmp && mv $@.tmp $@
$(KERNELS_OBJ): $(B)/kernels/kernels_fatbin.c | $(B)/obj
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(MAP): src/core/exports.map.in src/core/routines.def src/core/gs_table.h | $(B)
	$(CC) -E -P -Isrc -x c $< -o $@

$(LIB): $(LIB_OBJS) $(MAP)
	$(CC) -shared $(LDFLAGS) -o $@ $(LIB_OBJS) -Wl,--version-script=$(MAP) -Wl,-z,defs -Wl,-soname,libgpushim.so \
		-ldl -lpthread -lm

$(B) $(B)/obj $(B)/standin $(B)/standin12 $(B)/olddriver $(B)/tests:
	mkdir -p $@

-include $(LIB_OBJS:.o=.d)

# ---- the CUDA stand-in (tests/standin) ------------------------------------------------------------------
standin: $(STANDIN) $(STANDIN12) $(OLDDRIVER)

# standin_libs DIR,CUDA MAJOR,CUSOLVER MAJOR,RUNTIME VERSION,CUFFT MAJOR: the stand-in's libraries under their
# sonames.
define standin_libs
$(1)/libcudart.so.$(2): tests/standin/cudart.c tests/standin/kernels.c tests/standin/standin.h kernels/permute.h \
		kernels/scale.h kernels/finite.h | $(1)
	$$(CC) $$(ALL_CFLAGS) -DSTANDIN_RUNTIME=$(4) -I$$(CUDA_HOME)/include -Ikernels -shared \
		-Wl,-soname,libcudart.so.$(2) tests/standin/cudart.c tests/standin/kernels.c -o $$@ -lpthread
$(1)/libcublas.so.$(2): tests/standin/cublas.c tests/standin/standin.h $(1)/libcudart.so.$(2)
	$$(CC) $$(ALL_CFLAGS) -I$$(CUDA_HOME)/include -shared -Wl,-soname,libcublas.so.$(2) $$< -o $$@ \
		-L$(1) -l:libcudart.so.$(2) -Wl,-rpath,'$$$$ORIGIN'
$(1)/libcusolver.so.$(3): tests/standin/cusolver.c tests/standin/standin.h $(1)/libcudart.so.$(2)
	$$(CC) $$(ALL_CFLAGS) -I$$(CUDA_HOME)/include -shared -Wl,-soname,libcusolver.so.$(3) $$< -o $$@ \
		-L$(1) -l:libcudart.so.$(2) -Wl,-rpath,'$$$$ORIGIN' -ldl
$(1)/libcufft.so.$(5): tests/standin/cufft.c tests/standin/standin.h $(1)/libcudart.so.$(2)
	$$(CC) $$(ALL_CFLAGS) -DSTANDIN_CUFFT_MAJOR=$(5) -I$$(CUDA_HOME)/include -shared -Wl,-soname,libcufft.so.$(5) \
		$$< -o $$@ -L$(1) -l:libcudart.so.$(2) -Wl,-rpath,'$$$$ORIGIN' -ldl -lpthread
endef
# cuSOLVER's and cuFFT's sonames have their own major versions: 12 in CUDA 13, 11 in CUDA 12.
$(eval $(call standin_libs,$(B)/standin,13,12,13000,12))
$(eval $(call standin_libs,$(B)/standin12,12,11,12080,11))

$(OLDDRIVER): tests/standin/driver.c | $(B)/olddriver
	$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,libcuda.so.1 $< -o $@

# The stand-in's own test: deferred streams, events, pinned memory, seeded reordering, cuFFT's transforms.
$(B)/standin/selftest: tests/standin/selftest.c tests/standin/standin.h $(STANDIN)
	$(CC) $(TEST_CFLAGS) -I$(CUDA_HOME)/include -Itests/standin $< -o $@ -L$(B)/standin \
		-l:libcudart.so.13 -l:libcublas.so.13 -l:libcufft.so.12 -Wl,-rpath,'$$ORIGIN' -lpthread -lm

# ---- dependencies ----------------------------------------------------------------------------------------
deps:
	tests/deps.sh test
deps-demo:
	tests/deps.sh demo

# ---- test programs ---------------------------------------------------------------------------------------
# The libraries that provide each symbol spelling (tests/deps.sh installs them):
#   plain   Debian's OpenBLAS                 dgemm_, cblas_dgemm
#   ilp64   NumPy 1.26's bundled OpenBLAS     dgemm_64_, cblas_dgemm64_
#   scipy   PyPI scipy-openblas32             scipy_dgemm_, scipy_cblas_dgemm
#   scipy64 PyPI scipy-openblas64             scipy_dgemm_64_, scipy_cblas_dgemm64_
VENV2 := $(B)/venv-np2
VENV1 := $(B)/venv-np1
pydir = $(wildcard $(1)/lib/python3*/site-packages)
BLAS_plain := -lopenblas
BLAS_ilp64 = $(firstword $(wildcard $(call pydir,$(VENV1))/numpy.libs/libopenblas64_*.so))
BLAS_scipy = $(call pydir,$(VENV2))/scipy_openblas32/lib/libscipy_openblas.so
BLAS_scipy64 = $(call pydir,$(VENV2))/scipy_openblas64/lib/libscipy_openblas64_.so
SPELLINGS := plain ilp64 scipy scipy64
TEST_CFLAGS := -std=c11 $(WARN) -O1 -g -D_GNU_SOURCE -Itests/progs -Iinclude

TEST_PROGS := $(SPELLINGS:%=$(B)/tests/blas_all_%) $(SPELLINGS:%=$(B)/tests/bounds_%) $(B)/tests/bounds_arrays $(B)/tests/blas_cmp $(B)/tests/rtld_local_main \
	$(B)/tests/librtld_user.so $(B)/tests/ctor_main $(B)/tests/nested $(B)/tests/inner $(B)/tests/copies $(B)/tests/prefault $(B)/tests/runs $(B)/tests/fork $(B)/tests/warmup \
	$(B)/tests/devices \
	$(B)/tests/region \
	$(B)/tests/threads $(B)/tests/reuse $(B)/tests/hazards $(B)/tests/libotherfree.so $(B)/tests/unit $(B)/tests/overhead $(B)/tests/xfer \
	$(B)/tests/libdlsym_frees.so $(B)/tests/first_free \
	$(B)/tests/stress $(B)/tests/exit_blas $(B)/tests/libtsan_guard.so \
	$(B)/tests/coherence $(B)/tests/sites_main $(B)/tests/libsites_replaced.so $(B)/tests/fft_plans $(B)/tests/fft_diff \
	$(B)/tests/fft_fortran $(B)/tests/fft_steps $(B)/tests/fft_fresh $(B)/tests/fft_other $(B)/tests/fft_twin \
	$(B)/tests/fft_split $(B)/tests/fft_defer \
	$(B)/tests/little $(B)/tests/share $(B)/tests/fakecuda/libcuda.so.1
tests: $(LIB) $(ENTRIES) standin $(B)/standin/selftest $(TEST_PROGS)

$(B)/tests/blas_all_%: tests/progs/blas_all.c tests/progs/spelling.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -DSPELLING_$* $< -o $@ $(BLAS_$*) -Wl,--disable-new-dtags,-rpath,$(abspath $(dir $(BLAS_$*))) -lm

# Guard bands around every output gpushim writes, in each spelling (tests/t_bounds.sh).
$(B)/tests/bounds_%: tests/progs/bounds.c tests/progs/guard.c tests/progs/guard.h tests/progs/spelling.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -DSPELLING_$* $< tests/progs/guard.c -o $@ $(BLAS_$*) -Wl,--disable-new-dtags,-rpath,$(abspath $(dir $(BLAS_$*))) -lfftw3 -lm

# The same around the outputs of the Python layer's C entries, gpushim_linalg and gpushim_fft (tests/t_bounds.sh);
# linked to a LAPACK it does not call, as NumPy's is loaded in a Python process: gpushim_linalg takes a call only
# where the CPU routine it stands for is there.
$(B)/tests/bounds_arrays: tests/progs/bounds_arrays.c tests/progs/guard.c tests/progs/guard.h include/gpushim.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< tests/progs/guard.c -o $@ -Wl,--no-as-needed $(BLAS_plain) -Wl,--as-needed -ldl

$(B)/tests/blas_cmp: tests/progs/blas_cmp.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lm

$(B)/tests/librtld_user.so: tests/progs/rtld_local_user.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fPIC -shared $< -o $@ -lopenblas

$(B)/tests/rtld_local_main: tests/progs/rtld_local_main.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -ldl

$(B)/tests/libctor.so: tests/progs/ctor_lib.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fPIC -shared $< -o $@ -lopenblas

$(B)/tests/ctor_main: tests/progs/ctor_main.c $(B)/tests/libctor.so
	$(CC) $(TEST_CFLAGS) $< -o $@ -L$(B)/tests -lctor -Wl,-rpath,'$$ORIGIN' -lopenblas

# Calls from static functions of a program and a library (tests/t_sites.sh strips copies of both), their
# functions in source order (-fno-toplevel-reorder): an exported function lies just before the static one.
$(B)/tests/libsites.so: tests/progs/sites_lib.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fno-toplevel-reorder -fPIC -shared $< -o $@ -lopenblas

$(B)/tests/sites_main: tests/progs/sites_main.c $(B)/tests/libsites.so
	$(CC) $(TEST_CFLAGS) -fno-toplevel-reorder $< -o $@ -L$(B)/tests -lsites -Wl,-rpath,'$$ORIGIN' -lopenblas

# Another build of libsites.so, which replaces it on disk while a process runs it.
$(B)/tests/libsites_replaced.so: tests/progs/sites_lib.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -DSITES_REPLACED -fno-toplevel-reorder -fPIC -shared $< -o $@ -lopenblas

# Reference CBLAS (Debian's libblas3, not OpenBLAS) calls dgemm_ through the PLT, so its inner calls reach
# the shim.
$(B)/tests/nested: tests/progs/nested.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ /usr/lib/x86_64-linux-gnu/blas/libblas.so.3 -lm

# Reference LAPACK over reference BLAS, two objects: dsytrd's calls into the BLAS reach the shim.
$(B)/tests/inner: tests/progs/inner.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3 \
		/usr/lib/x86_64-linux-gnu/blas/libblas.so.3 -lm

# Plans of every FFTW planner kind, both precisions (tests/t_fftw.sh).
$(B)/tests/fft_plans: tests/progs/fft_plans.c tests/progs/fft_plans.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lfftw3f -lm -ldl

# Random FFTW plans against a reference FFTW in a namespace of its own (tests/t_fftdiff.sh).
$(B)/tests/fft_diff: tests/progs/fft_diff.c tests/progs/fft_diff.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3_threads -lfftw3f_threads -lfftw3 -lfftw3f -lm -ldl -lpthread

# FFTW's legacy Fortran interface, dfftw_ and sfftw_ (tests/t_fftw_apps.sh).  fftw3.f declares every FFTW
# constant, most of which the program leaves unused.
$(B)/tests/fft_fortran: tests/progs/fft_fortran.f90 | $(B)/tests
	gfortran -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -I/usr/include $< -o $@ -lfftw3 -lfftw3f

# An in-place FFT stepped 25 times, the array changed by the CPU at the first 3 (tests/t_cache.sh, "resting").
$(B)/tests/fft_steps: tests/progs/fft_steps.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lm

# Plans of the kinds the GPU path never takes, r2r and split arrays (tests/t_fftw.sh, "other kinds").
$(B)/tests/fft_other: tests/progs/fft_other.c tests/progs/fft_other.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lfftw3f -lm

# Batched transforms whose input the CPU rewrites before each execute (tests/t_fftw.sh, "fresh inputs").
$(B)/tests/fft_fresh: tests/progs/fft_fresh.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lm

# Batched transforms that split across devices, and two that must not (tests/t_devices.sh).
$(B)/tests/fft_split: tests/progs/fft_split.c tests/progs/results.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lfftw3f -lm

# Small plans on several threads, executed enough for their one-thread twins to be tried (tests/t_fftw.sh).
$(B)/tests/fft_twin: tests/progs/fft_twin.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3_threads -lfftw3f_threads -lfftw3 -lfftw3f -lm

# FFTW_MEASURE plans the GPU would run, made and measured as GPUSHIM_FFTW_DEFER says (tests/t_fftw.sh, "deferred").
$(B)/tests/fft_defer: tests/progs/fft_defer.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lfftw3 -lm

$(B)/tests/copies: tests/progs/copies.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas -lpthread

$(B)/tests/prefault: tests/progs/prefault.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/devices: tests/progs/devices.c tests/progs/results.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/fork: tests/progs/fork.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/warmup: tests/progs/warmup.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/reuse: tests/progs/reuse.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/hazards: tests/progs/hazards.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas -lpthread

$(B)/tests/libdlsym_frees.so: tests/progs/dlsym_frees.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fPIC -shared $< -o $@ -ldl

$(B)/tests/first_free: tests/progs/first_free.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@

$(B)/tests/libotherfree.so: tests/progs/otherfree.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fPIC -shared $< -o $@ -ldl

# A program with GPU work of its own (tests/t_share.sh), linked to the CUDA runtime by soname: LD_LIBRARY_PATH
# picks the stand-in's or the real one.
$(B)/tests/share: tests/progs/share.c $(B)/standin/libcudart.so.13 | $(B)/tests
	$(CC) $(TEST_CFLAGS) -I$(CUDA_HOME)/include $< -o $@ -L$(B)/standin -l:libcudart.so.13 -lopenblas -ldl

# A driver library with just the entry points a static CUDA runtime takes from it (tests/t_share.sh).
$(B)/tests/fakecuda/libcuda.so.1: tests/progs/fakecuda.c | $(B)/tests
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -I$(CUDA_HOME)/include -fPIC -shared -Wl,-soname,libcuda.so.1 $< -o $@ -ldl

$(B)/tests/little: tests/progs/little.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas

$(B)/tests/runs: tests/progs/runs.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas -lpthread

$(B)/tests/threads: tests/progs/threads.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas -lpthread

$(B)/tests/region: tests/progs/region.c tests/progs/common.h tests/progs/results.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fopenmp $< -o $@ -lopenblas

# Load and races (tests/t_races.sh): 16 threads calling BLAS, LAPACK and FFTW; BLAS at the program's exit and
# after its own cudaDeviceReset, through the stand-in's runtime, which the program links (the one the shim loads).
$(B)/tests/stress: tests/progs/stress.c tests/progs/common.h tests/progs/results.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) $< -o $@ -lopenblas -lfftw3 -lm -lpthread

$(B)/tests/libexit_linked.so: tests/progs/exit_lib.c tests/progs/exit_blas.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -DEXIT_LIB='"linked"' -DEXIT_SEED=7 -fPIC -shared $< -o $@ -lopenblas

$(B)/tests/libexit_late.so: tests/progs/exit_lib.c tests/progs/exit_blas.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -DEXIT_LIB='"late"' -DEXIT_SEED=9 -fPIC -shared $< -o $@ -lopenblas

$(B)/tests/exit_blas: tests/progs/exit_blas.c tests/progs/exit_blas.h $(B)/tests/libexit_linked.so \
		$(B)/tests/libexit_late.so $(B)/standin/libcudart.so.13
	$(CC) $(TEST_CFLAGS) $< -o $@ -L$(B)/tests -lexit_linked -Wl,-rpath,'$$ORIGIN' -L$(B)/standin \
		-l:libcudart.so.13 -Wl,-rpath,$(abspath $(B)/standin) -lopenblas -ldl

# Preloaded before the TSan build of the library (its source says why), so never instrumented itself.
$(B)/tests/libtsan_guard.so: tests/progs/tsan_guard.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -fno-sanitize=all -fPIC -shared $< -o $@ -l:libtsan.so.2 -ldl -lpthread

# ThreadSanitizer's build (tests/t_races.sh) under $(TSAN): the library, the stand-in and the programs that run
# them, all instrumented (TSan starts from an instrumented program), with objects and .d files of their own.
TSAN := $(B)/tsan
TSAN_CFLAGS := -O1 -g -fsanitize=thread
tsan:
	$(MAKE) B=$(TSAN) CFLAGS="$(TSAN_CFLAGS)" LDFLAGS=-fsanitize=thread \
		TEST_CFLAGS="$(TEST_CFLAGS) -fsanitize=thread" tsan-parts
tsan-parts: $(LIB) $(STANDIN) $(B)/tests/stress $(B)/tests/exit_blas
tests: tsan

# AddressSanitizer's build (tests/t_asan.sh) under $(ASAN): the library, and the stand-in's libraries, whose
# "device" memory is the host's, so that the copies into and out of it are checked too.  The programs stay as they
# are: the runtime, preloaded first (LD_PRELOAD=libasan.so.8:$(ASAN)/libgpushim.so), replaces malloc for the
# whole process.
ASAN := $(B)/asan
ASAN_CFLAGS := -O1 -g -fsanitize=address -fno-omit-frame-pointer
asan:
	$(MAKE) B=$(ASAN) CFLAGS="$(ASAN_CFLAGS)" LDFLAGS=-fsanitize=address asan-parts
asan-parts: $(LIB) $(STANDIN)
tests: asan

$(B)/tests/overhead: bench/overhead.c | $(B)/tests
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -lopenblas -ldl

$(B)/tests/coherence: bench/coherence.c src/memory/uapi.h | $(B)/tests
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -lpthread

$(B)/tests/xfer: bench/xfer.c $(LIB_OBJS) | $(B)/tests
	$(CC) $(CPPFLAGS_LIB) $(TEST_CFLAGS) -O2 $< $(LIB_OBJS) -o $@ -ldl -lpthread -lm

# The FFT benchmark's program (bench/fft.sh), FFTW named by soname: FFTW's run-time packages alone link it.
$(B)/bench/fft: bench/fft.c bench/pool.h bench/settle.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -l:libfftw3_threads.so.3 -l:libfftw3f_threads.so.3 -l:libfftw3.so.3 \
		-l:libfftw3f.so.3 -lm -lpthread

# numpy.linalg's per-column copies against the host's memory (bench/copy.sh); OpenBLAS by soname, as the H200
# machine's packed libraries provide it.
$(B)/bench/copy: bench/copy.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -l:libopenblas.so.0 -lpthread

# The soak test's program (bench/soak.sh on the GPU, tests/t_soak.sh on the stand-in, hence in tests): OpenBLAS
# and FFTW by soname, which it also opens again with dlmopen as its reference.
$(B)/bench/soak: bench/soak.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -l:libopenblas.so.0 -l:libfftw3.so.3 -l:libfftw3f.so.3 -ldl -lm
tests: $(B)/bench/soak

# The memory hooks' cost under a malloc-heavy program (bench/hooks.sh), OpenBLAS by soname.
$(B)/bench/hooks: bench/hooks.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -l:libopenblas.so.0
tests: $(B)/bench/hooks

# The corpus's C program (bench/apps, tests/t_apps.sh), FFTW by soname.
$(B)/bench/apps/fftw_heat: bench/apps/fftw_heat.c
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -O2 $< -o $@ -l:libfftw3_threads.so.3 -l:libfftw3.so.3 -lm
tests: $(B)/bench/apps/fftw_heat

# Unit tests link the library's objects directly: its internal functions are hidden in the .so.
$(B)/tests/unit: $(wildcard tests/unit/*.c) $(LIB_OBJS) | $(B)/tests
	$(CC) $(CPPFLAGS_LIB) $(TEST_CFLAGS) $(wildcard tests/unit/*.c) $(LIB_OBJS) -o $@ \
		$$(pkg-config --cflags --libs check) -ldl -lpthread -lm

# ---- running -----------------------------------------------------------------------------------------------
check: deps
	$(MAKE) tests
	tests/run.sh

check-unit: tests
	$(B)/tests/unit

check-gpu:
	tests/gpu/run.sh

# The whole sweeps of tests/t_badinput.sh (every bad value) and tests/t_faults.sh (every injection point); CI
# runs a sample of each.
check-badinput: deps
	$(MAKE) tests
	GS_SWEEP=full sh tests/t_badinput.sh

check-faults: deps
	$(MAKE) tests
	GS_SWEEP=full sh tests/t_faults.sh

# tests/t_races.sh in full: 16 threads x 10^4 calls, under the stand-in, ThreadSanitizer and helgrind.
check-races: deps
	$(MAKE) tests
	GS_SWEEP=full sh tests/t_races.sh

# Coverage (issue 24): the library and the unit tests built with gcov's counters under $(COV), their own
# objects and .d files (build/libgpushim.so is untouched), make check's suite run against that library
# (GS_LIB), then the full fault sweep; tests/coverage.sh writes bench/results/coverage.md with gcovr, and keeps
# the counts in $(COV), from which `tests/coverage.sh --report` writes it again.  At -O0 GCC warns of a
# truncation that an snprintf into a fixed buffer means (gs_frame's site name): not an error here.
COV := $(B)/cov
COV_CFLAGS := -O0 -g --coverage -fprofile-update=atomic -Wno-error=format-truncation
coverage: deps
	$(MAKE) tests
	$(MAKE) B=$(COV) CFLAGS="$(COV_CFLAGS)" LDFLAGS=--coverage TEST_CFLAGS="$(TEST_CFLAGS) --coverage" \
		lib $(COV)/tests/unit
	tests/coverage.sh $(COV)

# Everything the GPU machine needs, built here: the device tool carries build/libgpushim.so, build/tests,
# build/olddriver and build/gpu (the CPU libraries the test programs link, packed).
gpu-pack: tests $(B)/bench/copy $(B)/bench/soak
	tests/gpu/pack.sh

# Debian's R and GNU Octave for tests/gpu/run.sh's group apps and the corpus (bench/apps/packs.sh puts them on
# PATH): build/gpu/r.tar.xz, build/gpu/octave.tar.xz.
gpu-pack-apps:
	tests/gpu/pack_apps.sh

demo: deps-demo
	$(MAKE) lib
	rm -f $(B)/demo.log
	scripts/gpushim-run --summary --log $(B)/demo.log -- $(VENV2)/bin/python bench/demo.py
	@echo "The offload log, one JSON record per call: $(B)/demo.log; by routine and by line of bench/demo.py:"
	scripts/gpushim-report --top 8 $(B)/demo.log

bench: $(LIB)
	bench/run.sh

bench-gemm: $(LIB)
	bench/gemm.sh

bench-l3: $(LIB)
	bench/l3.sh

bench-cache: $(LIB)
	bench/cache.sh

bench-lapack: $(LIB)
	bench/lapack.sh

bench-copy: $(LIB) $(B)/bench/copy
	bench/copy.sh

bench-fft: $(LIB) $(B)/bench/fft
	bench/fft.sh

bench-pyfft: $(LIB)
	bench/pyfft.sh

# The corpus of real programs, whole, CPU-only against gpushim (bench/apps/run.py; APPS="--size medium ..."
# passes its options).
bench-apps: $(LIB) $(B)/bench/apps/fftw_heat
	$(PYTHON) bench/apps/run.py $(APPS)

bench-demo: deps-demo $(LIB)
	bench/demo.sh

bench-hooks: $(LIB) standin $(B)/bench/hooks
	bench/hooks.sh

# The layers of issue 18 (no call from a folder to a higher one, no cycle) and the sources' size limits;
# tests/t_layers.sh checks both in make check.  The embedded kernels' object is data, in no layer.
depgraph: $(LIB_OBJS)
	tests/depgraph.py --root $(B)/obj $(filter-out $(B)/obj/kernels_fatbin.o,$(LIB_OBJS)); s=$$?; \
		tests/srcsize.py src || s=1; exit $$s

bench-sites: deps tests
	PYTHON=$(VENV2)/bin/python bench/sites.sh

# ---- installing --------------------------------------------------------------------------------------------
SCRIPTS := $(wildcard scripts/gpushim-*)
VERSION := $(shell sed -n 's/^\#define GS_VERSION "\(.*\)"/\1/p' src/core/gs.h)
# Environment-module files for admins (Lmod's Lua, and Tcl): `module use $(PREFIX)/share/gpushim/modulefiles/lua`.
MODULES = $(DESTDIR)$(PREFIX)/share/gpushim/modulefiles
install: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
		$(DESTDIR)$(PREFIX)/share/gpushim
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/gpushim.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 policies/*.policy $(DESTDIR)$(PREFIX)/share/gpushim/
	for s in $(SCRIPTS); do sed 's|@LIBDIR@|$(PREFIX)/lib|' $$s > $(DESTDIR)$(PREFIX)/bin/$$(basename $$s); \
		chmod 755 $(DESTDIR)$(PREFIX)/bin/$$(basename $$s); done
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -d $(MODULES)/lua/gpushim $(MODULES)/tcl/gpushim
	sed 's|@PREFIX@|$(PREFIX)|g; s|@VERSION@|$(VERSION)|g' scripts/modules/gpushim.lua > $(MODULES)/lua/gpushim/$(VERSION).lua
	sed 's|@PREFIX@|$(PREFIX)|g; s|@VERSION@|$(VERSION)|g' scripts/modules/gpushim.tcl > $(MODULES)/tcl/gpushim/$(VERSION)

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libgpushim.so $(DESTDIR)$(PREFIX)/include/gpushim.h
	rm -rf $(DESTDIR)$(PREFIX)/share/gpushim
	for s in $(SCRIPTS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$(basename $$s); done
	for m in man/*.1; do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$$(basename $$m); done
	for m in man/*.5; do rm -f $(DESTDIR)$(PREFIX)/share/man/man5/$$(basename $$m); done
	for m in man/*.7; do rm -f $(DESTDIR)$(PREFIX)/share/man/man7/$$(basename $$m); done

clean:
	rm -rf $(B)/obj $(B)/standin $(B)/standin12 $(B)/olddriver $(B)/tests $(B)/cov $(TSAN) $(ASAN) $(LIB) $(MAP) \
		$(ENTRIES) $(ENTRY_POINTS)

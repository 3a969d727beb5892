# petsc-gpukit: GNU make. `make` builds the library for the PETSc in PETSC_DIR (and PETSC_ARCH,
# for a PETSc built in its source tree), any release from 3.18 on, real or complex scalars; each
# builds under build/<PETSc version>-<scalars>/ (build/3.18-real/lib/libpetscgpukit.so...).
# `make check` runs the tests; `make demo` runs the first tutorial. Any of them installs a missing
# Debian PETSc first (tools/ensure-deps).

PETSC_DIR  ?= /usr/lib/petsc
PETSC_ARCH ?=
CUDA_DIR   ?= /usr/local/cuda
PREFIX     ?= /usr/local
MPICC      ?= mpicc
MPIEXEC    ?= mpiexec
NVCC       ?= $(CUDA_DIR)/bin/nvcc
# Hopper machine code, and PTX that the driver compiles for other GPUs from Ampere on
CUDA_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=compute_80

# CUDA=yes builds the CUDA backend (the toolkit under CUDA_DIR), CUDA=no the host backend alone
# (no GPU is used); by default yes where the toolkit is
CUDA       ?= $(if $(and $(wildcard $(NVCC)),$(wildcard $(CUDA_DIR)/lib64/libcudart_static.a)),yes,no)

# PETSc and the CUDA toolkit first (not for clean, plot or print-config): installed here when missing (as root), or one
# line saying what was found and what to set
ifeq ($(filter clean plot print-config,$(MAKECMDGOALS)),)
DEPS_STATUS := $(shell PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) CUDA_DIR=$(CUDA_DIR) CUDA=$(CUDA) sh tools/ensure-deps 1>&2; echo $$?)
ifneq ($(DEPS_STATUS),0)
$(error petsc-gpukit: prerequisites missing, see above)
endif
endif
# Where the PETSc is: installed (Debian, pip, --prefix) its configuration sits under PETSC_DIR,
# built in its source tree under PETSC_DIR/PETSC_ARCH. Its PETSc.pc (pkg-config) names its
# include flags and library where it has one; else include/ and lib/ (the GPU machine's packed
# copy has no pkgconfig/).
PETSC_ARCH_DIR := $(if $(PETSC_ARCH),$(PETSC_DIR)/$(PETSC_ARCH),$(PETSC_DIR))
PETSC_CONF  := $(firstword $(wildcard $(PETSC_ARCH_DIR)/include/petscconf.h $(PETSC_DIR)/include/petscconf.h))
PETSC_PC    := $(firstword $(wildcard $(PETSC_ARCH_DIR)/lib/pkgconfig/PETSc.pc $(PETSC_ARCH_DIR)/lib/pkgconfig/petsc.pc))
PKG_CONFIG  ?= pkg-config
ifneq ($(and $(PETSC_PC),$(shell command -v $(PKG_CONFIG))),)
PETSC_INC   := $(shell $(PKG_CONFIG) --cflags-only-I $(PETSC_PC))
PETSC_LIBDIR:= $(shell $(PKG_CONFIG) --variable=libdir $(PETSC_PC))
PETSC_LIB   := $(patsubst -l%,%,$(firstword $(filter -lpetsc%,$(shell $(PKG_CONFIG) --libs-only-l $(PETSC_PC)))))
else
PETSC_INC   := -I$(PETSC_DIR)/include $(if $(PETSC_ARCH),-I$(PETSC_ARCH_DIR)/include)
PETSC_LIBDIR:= $(PETSC_ARCH_DIR)/lib
PETSC_LIB   := $(patsubst lib%.so,%,$(notdir $(firstword $(wildcard $(PETSC_LIBDIR)/libpetsc*.so))))
endif
PETSC_VERSION := $(shell awk '/define PETSC_VERSION_(MAJOR|MINOR) / {v = v (v == "" ? "" : ".") $$3} END {print v}' $(PETSC_DIR)/include/petscversion.h)
SCALAR      := $(shell grep -qs 'define PETSC_USE_COMPLEX 1' $(PETSC_CONF) && echo complex || echo real)
# a PETSc built with CUDA of its own (its VECCUDA; the shared CUDA runtime)
PETSC_CUDA  := $(shell grep -qs 'define PETSC_HAVE_CUDA 1' $(PETSC_CONF) && echo yes)
BUILD       ?= build/$(PETSC_VERSION)-$(SCALAR)$(if $(PETSC_CUDA),-cuda)$(if $(filter no,$(CUDA)),-host)
MPI_INC     := $(shell $(MPICC) --showme:incdirs 2>/dev/null)
# the Python of tutorials/python: a pip-installed PETSc's own environment, else python3 (tests/run
# takes the first whose petsc4py is this PETSc's, and skips the case where there is none)
PYTHON      ?= $(if $(filter %/site-packages/petsc,$(abspath $(PETSC_DIR))),$(firstword $(wildcard $(PETSC_DIR)/../../../../bin/python3)),python3)
LIB         := $(BUILD)/lib/libpetscgpukit.so

INCLUDES    := -Iinclude $(PETSC_INC) $(addprefix -I,$(MPI_INC))
CFLAGS      ?= -O2 -g
ALL_CFLAGS  := $(CFLAGS) -std=c99 -fPIC -fvisibility=hidden -Wall -Wno-unused-function $(INCLUDES)
NVCCFLAGS   ?= -O3 -g
ALL_NVFLAGS := $(NVCCFLAGS) -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC,-fvisibility=hidden,-Wall $(INCLUDES)
PETSC_LINK  := -L$(PETSC_LIBDIR) -Wl,-rpath,$(abspath $(PETSC_LIBDIR)) -l$(PETSC_LIB)
# the static CUDA runtime: the library loads, and runs on the host backend, without a driver; a
# PETSc built with CUDA brings the shared one, which the library then shares (one runtime, one
# current device, PETSc's device arrays handed over)
ifeq ($(CUDA),no)
CUDA_LINK   := -lm
else ifeq ($(PETSC_CUDA),yes)
CUDA_LINK   := -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64 -lcudart -lstdc++ -lm
else
CUDA_LINK   := -L$(CUDA_DIR)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++ -lm
endif

LIB_C  := $(wildcard src/*.c src/sys/*.c src/device/host/*.c src/mat/impls/*/*.c src/mat/impls/*/seq/*.c src/vec/impls/*/*.c src/ksp/impls/*/*.c src/pc/*/*.c)
LIB_CU := $(if $(filter no,$(CUDA)),,$(wildcard src/device/cuda/*.cu))
LIB_C  += $(if $(filter no,$(CUDA)),src/device/nocuda.c)
LIB_O  := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_C)) $(patsubst %.cu,$(BUILD)/obj/%.o,$(LIB_CU))
HDRS   := $(wildcard include/*.h src/include/*.h src/device/*.h src/device/cuda/*.h src/device/cuda/*.cuh src/mat/impls/*/*.h src/mat/impls/*/seq/*.h src/vec/impls/*/*.h src/ksp/impls/*/*.h src/device/host/*.h src/pc/*/*.h)

TESTS_LINKED := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/*.c))
TESTS_STOCK  := $(patsubst tests/stock/%.c,$(BUILD)/tests/stock/%,$(wildcard tests/stock/*.c))
TUTORIALS    := $(patsubst tutorials/%.c,$(BUILD)/tutorials/%,$(wildcard tutorials/*/*.c))

BENCH := $(BUILD)/bench/bench
# what a benchmark target needs: the real PETSc and the CUDA backend
BENCH_DEP := $(if $(filter complex,$(SCALAR)),bench-needs-real,$(if $(filter no,$(CUDA)),bench-needs-cuda,$(BENCH)))

.PHONY: all lib print-config check check-valgrind check-sanitizer check-matrices demo tests bench bench-mpi bench-ssor bench-vcycle bench-coo bench-mg bench-resetup bench-needs-real bench-needs-cuda plot install clean
.DELETE_ON_ERROR:

all: lib
lib: $(LIB)

# the library's private headers are included by their path under src/, its one include root
$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -Isrc -c $< -o $@

# the wrappers of a device matrix's operations while its host values are behind, written from
# this PETSc's struct _MatOps (tools/gen-matops)
PETSC_MATIMPL := $(firstword $(wildcard $(PETSC_ARCH_DIR)/include/petsc/private/matimpl.h $(PETSC_DIR)/include/petsc/private/matimpl.h $(patsubst -I%,%/petsc/private/matimpl.h,$(filter -I%,$(PETSC_INC)))))
$(BUILD)/gen/gkmatops.inc: tools/gen-matops $(PETSC_MATIMPL)
	@mkdir -p $(dir $@)
	@test -n "$(PETSC_MATIMPL)" || { echo "petsc-gpukit: PETSc's include/petsc/private/matimpl.h is not under $(PETSC_DIR): its private headers are needed" >&2; exit 1; }
	python3 tools/gen-matops $(PETSC_MATIMPL) $@
$(BUILD)/obj/src/mat/impls/gk/gkhost.o: $(BUILD)/gen/gkmatops.inc
$(BUILD)/obj/src/mat/impls/gk/gkhost.o: ALL_CFLAGS += -I$(BUILD)/gen

$(BUILD)/obj/%.o: %.cu $(HDRS)
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVFLAGS) -Isrc -c $< -o $@

$(LIB): $(LIB_O)
	@mkdir -p $(dir $@)
	$(MPICC) -shared -o $@ $(LIB_O) -Wl,-soname,libpetscgpukit.so $(PETSC_LINK) $(CUDA_LINK) -Wl,--no-undefined

# test programs linked with the library
$(BUILD)/tests/%: tests/%.c $(LIB) $(HDRS) $(wildcard tests/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -Isrc $< -o $@ -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) -lpetscgpukit $(PETSC_LINK) -lm

# unmodified PETSc programs: PETSc alone, the library only through -dll_append
$(BUILD)/tests/stock/%: tests/stock/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $< -o $@ $(PETSC_LINK) -lm

# the tutorials write PNG frames with libpng where it is installed (libpng-dev), else PGM
PNG_FLAGS := $(if $(wildcard /usr/include/png.h),-DHEAT2D_HAVE_PNG)
PNG_LINK  := $(if $(wildcard /usr/include/png.h),-lpng)
$(BUILD)/tutorials/%: tutorials/%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $(PNG_FLAGS) $< -o $@ $(PETSC_LINK) $(PNG_LINK) -lm

# the tutorial that hands MatSetValuesCOO device memory: linked with the library (its device arrays)
$(BUILD)/tutorials/assembly/assembly: tutorials/assembly/assembly.c $(LIB) include/petscgpukit.h
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) -Iinclude $< -o $@ -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) -lpetscgpukit $(PETSC_LINK) -lm

tests: lib $(TESTS_LINKED) $(TESTS_STOCK) $(TUTORIALS)

# what tests/run is told of this build
TESTS_ENV := BUILD=$(BUILD) SCALAR=$(SCALAR) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) PETSC_CONF=$(PETSC_CONF) PYTHON=$(PYTHON) MPIEXEC=$(MPIEXEC)

# BACKEND=auto|cuda|host, RANKS="1 2 3", VALGRIND=1, SANITIZER=1 (compute-sanitizer memcheck)
check: tests
	@$(TESTS_ENV) sh tests/run

# the memory checks run before an issue is resolved: a subset of the cases, one process, under
# valgrind (host backend) or compute-sanitizer (a GPU)
MEMCHECK_CASES := ^(vecops_n-1000_nsize-1|products_(lap2d|random)_type-(ellrcuda|diacuda)(_host|_cuda)?|products_sliced_random_32|solvers_compare_(real|complex)_(ellrcuda|diacuda)_nsize-1|solvers_reuse_(ellrcuda|diacuda|aij)_nsize-1|solvers_errors_nsize-1|ssor_(apply_2d_type-ellrcuda_(host|cuda)|zero_diagonal_(host|cuda)|cggpu_zero_diagonal|negative_diagonal_ellrcuda)|products_ellr_auto_sliced|products_denserow_n-46341|laplace_factor_lu_(petsc|mumps)_ellrcuda|laplace_hypre_ellrcuda|stock-gamg-diacuda-cggpu|general_aij|mg_2d_ellrcuda_cg_(host|cuda)|mg_2d_galerkin_(host|cuda)|sor_lap2d_ellrcuda_0_(host|cuda)|sor_lap2d_diacuda_1_(host|cuda)|sor_random_(host|cuda)|mg_2d_sor_ellrcuda_multicolor_(host|cuda)|coo_(behind_)?(ellrcuda|diacuda)_(host|cuda)_nsize-1|dmmat_fill_2_[01]_(host|cuda)_nsize-1|dmmat_fill_matfirst_nsize-1|dmmat_fill_rows_2_0_nsize-1|dmmat_setlocal_2_1_(host|cuda)|dmmat_periodic_2_nsize-1|coarsen_lap2d_host_dist-[12]|aggmpi_(lap2d|random)_host_even_dist-[12]_nsize-1|aggmpi_strength_(lap2d|random)_host_even_strength-[^_]*_nsize-1|aggmpi_strength_known_symmetric_host_even_nsize-1|aggmpi_(smooth_(lap2d|random)|block_smooth)_host_even_nsize-1|coarsen_block_lap2d_nv-6_dist-1|coarsen_block_chain_nv-6|elastic_gamg_view|stock-agggpu-esteig-cggpu|dmmat_fill_threads_0_nsize-1|interp_q1_threads_2d|resetup_(interpolation_host_change-scale_coo-1|aggregates_host_change-coefficient|full_host|block_host)|hostpattern_agggpu_(host|cuda)|nullspace_1000_(host|cuda)|device_memory_staged_gpukit_staged_copy_min-16777216_(host|cuda)|mg_graph_neumann_(mg|gamg)|esteig_neumann_(host|cuda)|unload_host|fuzz-(mm|bin)-.*)$$
check-valgrind: tests
	@$(TESTS_ENV) VALGRIND=1 RANKS=1 BACKEND=host ONLY='$(MEMCHECK_CASES)' sh tests/run
check-sanitizer: tests
	@$(TESTS_ENV) SANITIZER=1 RANKS=1 BACKEND=cuda ONLY='$(MEMCHECK_CASES)' sh tests/run

# optional, not in CI: the SuiteSparse matrices of ../shared/data/matrices (MATRICES=dir), each
# solved by PETSc and by the plug-in: the same iterations (tools/check-matrices)
check-matrices: lib $(TUTORIALS)
	@BUILD=$(BUILD) SCALAR=$(SCALAR) MPIEXEC=$(MPIEXEC) sh tools/check-matrices

# the benchmarks (a CUDA GPU and the real PETSc): bench/run, results in bench/
$(BUILD)/bench/baseline.o: bench/baseline.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(ALL_NVFLAGS) -Isrc -c $< -o $@

$(BENCH): bench/bench.c bench/poisson.h $(BUILD)/bench/baseline.o $(LIB)
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $< $(BUILD)/bench/baseline.o -o $@ -L$(BUILD)/lib -Wl,-rpath,$(abspath $(BUILD)/lib) -lpetscgpukit $(PETSC_LINK) -L$(CUDA_DIR)/lib64 -Wl,-rpath,$(CUDA_DIR)/lib64 -lcusparse -lcublas -lcudart -lstdc++ -lm

bench: $(BENCH_DEP)
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh bench/run

# cggpu on several GPUs, one process each (two GPUs): bench/run-mpi, results in bench/
bench-mpi: $(BENCH_DEP)
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh bench/run-mpi

# time to solution with ssorgpu: bench/run-ssor, results in bench/
bench-ssor: $(BENCH_DEP)
	@BUILD=$(BUILD) sh bench/run-ssor

# one V-cycle of PCMG and PCGAMG against the sum of its levels' rooflines: bench/run-vcycle
bench-vcycle: $(BENCH_DEP)
	@BUILD=$(BUILD) sh bench/run-vcycle

# COO assembly into SEQAIJ and the device types from host and device values: bench/run-coo
bench-coo: $(BENCH_DEP)
	@BUILD=$(BUILD) sh bench/run-coo

# time to solution of PETSc's own ex50, ex45 and ex56, unmodified, built from the PETSc
# examples (Debian: libpetsc3.18-dev-examples; pip: the package's share/petsc/examples); its
# settings (GPU_PROCS, REPEAT, PROBLEMS...) come from the environment: bench/run-mg says which
PETSC_EXAMPLES ?= $(PETSC_DIR)/share/petsc/examples/src/ksp/ksp/tutorials
$(BUILD)/bench/ex%: $(PETSC_EXAMPLES)/ex%.c
	@mkdir -p $(dir $@)
	$(MPICC) $(ALL_CFLAGS) $< -o $@ $(PETSC_LINK) -lm
$(PETSC_EXAMPLES)/%.c:
	@echo "make bench-mg: PETSc's $*.c is not in $(PETSC_EXAMPLES): apt-get install -y libpetsc3.18-dev-examples, or set PETSC_EXAMPLES" >&2; exit 1
bench-mg: $(if $(filter complex,$(SCALAR)),bench-needs-real,lib $(BUILD)/bench/ex50 $(BUILD)/bench/ex45 $(BUILD)/bench/ex56 $(BUILD)/tutorials/solvefile/solvefile)
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) python3 bench/run-mg

# GAMG set up again for a time step's new matrix of the same pattern: tutorials/assembly
# on the GPU and on all CPU cores; bench/run-resetup says which settings (N, STEPS) it reads
bench-resetup: $(if $(filter complex,$(SCALAR)),bench-needs-real,lib $(TUTORIALS))
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) python3 bench/run-resetup

# the bandwidth plot, from the CSV of the last make bench, with matplotlib: on the development
# machine (the GPU machine has none)
PLOT_PYTHON ?= $(firstword $(foreach p,python3 /usr/bin/python3,$(if $(shell $(p) -c 'import matplotlib' 2>/dev/null && echo y),$(p))))
plot:
	@$(if $(PLOT_PYTHON),$(PLOT_PYTHON) bench/plot.py bench/results.csv bench/bandwidth.png && echo "make plot: bench/bandwidth.png",echo "make plot: needs matplotlib: apt-get install -y python3-matplotlib (or pip install matplotlib)"; exit 1)

bench-needs-cuda:
	@echo "make bench*: the benchmarks need the CUDA backend, and this build has none (CUDA=no: no CUDA toolkit under CUDA_DIR=$(CUDA_DIR))" >&2; exit 1

bench-needs-real:
	@echo "make bench compares with cuSPARSE's real double CSR: run it with the real PETSc (PETSC_DIR=/usr/lib/petsc)" >&2; exit 1

demo: lib $(TUTORIALS)
	@BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) sh tutorials/demo

# what the library is built for, as key=value lines (setup.py keeps them with the Python package)
print-config:
	@echo PETSC_DIR=$(abspath $(PETSC_DIR))
	@echo PETSC_ARCH=$(PETSC_ARCH)
	@echo PETSC_VERSION=$(PETSC_VERSION)
	@echo SCALAR=$(SCALAR)
	@echo CUDA=$(CUDA)
	@echo CUDA_DIR=$(CUDA_DIR)

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/petscgpukit.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@PETSC_LIB@|$(PETSC_LIB)|g' -e 's|@PETSC_DIR@|$(PETSC_DIR)|g' tools/petscgpukit.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/petscgpukit.pc

clean:
	rm -rf build

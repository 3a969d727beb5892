/*
   petsc-gpukit: GPU sparse matrices and solvers for PETSc, with or without CUDA of its own.

   Programs that load the library with -dll_append need nothing from this header; programs that
   link with it call PetscGPUKitInitializePackage() after PetscInitialize().
*/
#pragma once

#include <petscpc.h>

#define PETSCGPUKIT_VERSION_MAJOR 0
#define PETSCGPUKIT_VERSION_MINOR 1

/*MC
   MATELLRCUDA - "ellrcuda" - ELLPACK-R storage on the GPU (Michels, "Sparse-Matrix-CG-Solver in CUDA", 5.3.1).
   The root name: MATSEQELLRCUDA on one process, MATMPIELLRCUDA on more.

   Level: beginner

.seealso: `MATSEQELLRCUDA`, `MATDIACUDA`, `MatCreateSeqELLRCUDA()`
M*/
#define MATELLRCUDA    "ellrcuda"
#define MATSEQELLRCUDA "seqellrcuda"
#define MATMPIELLRCUDA "mpiellrcuda"

/*MC
   MATDIACUDA - "diacuda" - diagonal (DIA) storage on the GPU (Jost, Contassot-Vivier, Vialle, 3.2).
   The root name: MATSEQDIACUDA on one process, MATMPIDIACUDA on more.

   Level: beginner

.seealso: `MATSEQDIACUDA`, `MATELLRCUDA`, `MatCreateSeqDIACUDA()`
M*/
#define MATDIACUDA    "diacuda"
#define MATSEQDIACUDA "seqdiacuda"
#define MATMPIDIACUDA "mpidiacuda"

/*MC
   VECCUDA - "cuda" - a vector whose values live on the GPU, with a host copy made only when a
   host operation asks for it. The root name: VECSEQCUDA on one process, VECMPICUDA on more.

   In a PETSc built without CUDA these names are the library's own vectors. A PETSc built with
   CUDA has its own VECCUDA under them; the library then leaves those names to PETSc, works on
   PETSc's vectors through `VecCUDAGetArrayRead()` and its kin, and registers its own vectors as
   VECGKCUDA ("gkcuda", "seqgkcuda", "mpigkcuda").

   Level: beginner

.seealso: `VECSEQCUDA`, `VECMPICUDA`, `VECGKCUDA`, `VecGPUKitGetDeviceArrayRead()`
M*/
#if !defined(PETSC_HAVE_CUDA)
  #define VECCUDA    "cuda"
  #define VECSEQCUDA "seqcuda"
  #define VECMPICUDA "mpicuda"
#endif

/*MC
   VECGKCUDA - the library's own device vectors: `VECCUDA` ("cuda") in a PETSc built without
   CUDA, "gkcuda" in one built with it (where "cuda" is PETSc's). VECSEQGKCUDA and VECMPIGKCUDA
   name its sequential and parallel kinds.

   Level: intermediate

.seealso: `VECCUDA`
M*/
#if defined(PETSC_HAVE_CUDA)
  #define VECGKCUDA    "gkcuda"
  #define VECSEQGKCUDA "seqgkcuda"
  #define VECMPIGKCUDA "mpigkcuda"
#else
  #define VECGKCUDA    VECCUDA
  #define VECSEQGKCUDA VECSEQCUDA
  #define VECMPIGKCUDA VECMPICUDA
#endif

/*MC
   KSPCGGPU - "cggpu" - CG and preconditioned CG on the GPU, fused: two kernels and at most one
   wait for the device an iteration (Michels, Algorithms 2 and 5)

   Level: beginner

.seealso: `KSPBICGGPU`, `KSPCG`
M*/
#define KSPCGGPU "cggpu"

/*MC
   KSPBICGGPU - "bicggpu" - BiCG on the GPU, fused, with A^T (real) or A^H (complex) products;
   -ksp_bicggpu_cocg selects COCG for complex symmetric matrices

   Level: beginner

.seealso: `KSPCGGPU`, `KSPBICG`
M*/
#define KSPBICGGPU "bicggpu"

/*MC
   PCSSORGPU - "ssorgpu" - SSOR (one symmetric sweep from a zero guess) on the GPU:
   -pc_ssorgpu_type natural|multicolor|neumann, -pc_ssorgpu_omega w (0 < w < 2),
   -pc_ssorgpu_neumann_terms k, -pc_ssorgpu_block_size b (multicolor: block SSOR of
   algebraic blocks of at most b rows, coloured as blocks; 1: points; 0, the default: 4 where the
   blocks are symmetric or Hermitian and factor, else points); on several processes, SSOR of each
   process's diagonal block

   Level: beginner

.seealso: `PCSOR`, `KSPCGGPU`
M*/
#define PCSSORGPU "ssorgpu"

/*MC
   PCGAMGAGGGPU - "agggpu" - PCGAMG's smoothed aggregation (PCGAMGAGG) with its strength graph,
   coarsening and tentative prolongator on the GPU for petsc-gpukit's device matrices

   Options Database Keys:
   PCGAMGAGG's, all of them (-pc_gamg_threshold, -pc_gamg_agg_nsmooths,
   -pc_gamg_aggressive_coarsening, -pc_gamg_coarse_eq_limit...); -pc_gamg_type agg gives PETSc's
   host aggregation

   Level: intermediate

   Notes:
   The library makes it the default type of a PCGAMG without an options prefix. Where a level
   cannot be aggregated on the device (several processes, a host matrix, a block size above 1,
   several near null space vectors, a coarsening type other than MIS, PCASM's subdomains made
   from the aggregates, a nonzero pattern that is not symmetric), that level runs PETSc's
   aggregation; -pc_view and -info say which ran. The maximal independent set is found in
   parallel rounds, not PETSc's greedy order, so its aggregates differ from PETSc's while
   following the same rules.

.seealso: `PCGAMG`, `PCGAMGAGG`, `PCGAMGSetType()`
M*/
#define PCGAMGAGGGPU "agggpu"

/*E
   PCSSORGPUType - the variants of `PCSSORGPU`

$  PC_SSORGPU_NATURAL - exact SSOR in the matrix's order (PCSOR's operator), level scheduled
$  PC_SSORGPU_MULTICOLOR - exact SSOR of the matrix permuted colour by colour
$  PC_SSORGPU_NEUMANN - the triangular solves as truncated Neumann series

   Level: intermediate
E*/
typedef enum {
  PC_SSORGPU_NATURAL,
  PC_SSORGPU_MULTICOLOR,
  PC_SSORGPU_NEUMANN
} PCSSORGPUType;
PETSC_EXTERN const char *const PCSSORGPUTypes[];

/*E
   PetscGPUKitBackendType - where the library's kernels run

$  PETSCGPUKIT_BACKEND_AUTO - the CUDA device when one is visible, else the host
$  PETSCGPUKIT_BACKEND_CUDA - the CUDA device; an error when there is none
$  PETSCGPUKIT_BACKEND_HOST - plain C loops on the host (the reference the CUDA kernels are tested against)

   Level: intermediate
E*/
typedef enum {
  PETSCGPUKIT_BACKEND_AUTO,
  PETSCGPUKIT_BACKEND_CUDA,
  PETSCGPUKIT_BACKEND_HOST
} PetscGPUKitBackendType;
PETSC_EXTERN const char *const PetscGPUKitBackendTypes[];

/*E
   PetscGPUKitStorage - the precision a device matrix's copy stores its values in

$  PETSCGPUKIT_STORAGE_DOUBLE - the scalar type's (double, or double complex)
$  PETSCGPUKIT_STORAGE_SINGLE - single precision (float, or single complex): half the bytes a
$                               product reads for its values; products still sum in double
$                               precision into double precision vectors

   Level: intermediate

.seealso: `MatGPUKitSetStorage()`
E*/
typedef enum {
  PETSCGPUKIT_STORAGE_DOUBLE,
  PETSCGPUKIT_STORAGE_SINGLE
} PetscGPUKitStorage;
PETSC_EXTERN const char *const PetscGPUKitStorages[];

/*S
   PetscGPUKitTransferCounts - host/device copies made by the library since PetscGPUKitInitializePackage()

   Level: advanced
S*/
typedef struct {
  PetscLogDouble h2d_count, h2d_bytes; /* host to device */
  PetscLogDouble d2h_count, d2h_bytes; /* device to host */
} PetscGPUKitTransferCounts;

PETSC_EXTERN PetscErrorCode PetscGPUKitInitializePackage(void);
PETSC_EXTERN PetscErrorCode PetscGPUKitFinalizePackage(void);
PETSC_EXTERN PetscErrorCode PetscGPUKitGetBackend(PetscGPUKitBackendType *);
PETSC_EXTERN PetscErrorCode PetscGPUKitGetDevice(int *);
PETSC_EXTERN PetscErrorCode PetscGPUKitGetTransferCounts(PetscGPUKitTransferCounts *);

/*S
   PetscGPUKitDeviceCounts - kernel launches, and waits of the host for the device, made by the
   library since PetscGPUKitInitializePackage() (the host backend counts what the CUDA one would),
   and the bytes the vector operations, the matrix products and the copies on the device must move
   at the least (each array read or written once, a matrix's nonzeros without padding: their time
   at the device's memory bandwidth is their roofline); `MatSOR()`, ssorgpu and the fused
   iterations of cggpu and bicggpu are not in bytes

   Level: advanced
S*/
typedef struct {
  PetscLogDouble launches, syncs, bytes;
} PetscGPUKitDeviceCounts;
PETSC_EXTERN PetscErrorCode PetscGPUKitGetDeviceCounts(PetscGPUKitDeviceCounts *);

PETSC_EXTERN PetscErrorCode VecGPUKitGetDeviceArrayRead(Vec, const PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitRestoreDeviceArrayRead(Vec, const PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitGetDeviceArray(Vec, PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitRestoreDeviceArray(Vec, PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitGetDeviceArrayWrite(Vec, PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitRestoreDeviceArrayWrite(Vec, PetscScalar **);
PETSC_EXTERN PetscErrorCode VecGPUKitPlaceDeviceArray(Vec, PetscScalar *);
PETSC_EXTERN PetscErrorCode VecGPUKitResetDeviceArray(Vec);

PETSC_EXTERN PetscErrorCode MatCreateSeqELLRCUDA(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatELLRCUDASetMaxFill(Mat, PetscReal);
PETSC_EXTERN PetscErrorCode MatELLRCUDASetSliceHeight(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatELLRCUDASetSortWindow(Mat, PetscInt);
PETSC_EXTERN PetscErrorCode MatELLRCUDASetShortColumns(Mat, PetscBool);
PETSC_EXTERN PetscErrorCode MatELLRCUDAGetShortColumns(Mat, PetscBool *);
PETSC_EXTERN PetscErrorCode MatCreateSeqDIACUDA(MPI_Comm, PetscInt, PetscInt, PetscInt, const PetscInt[], Mat *);
PETSC_EXTERN PetscErrorCode MatDIACUDASetMaxFill(Mat, PetscReal);
PETSC_EXTERN PetscErrorCode MatGPUKitSetStorage(Mat, PetscGPUKitStorage);
PETSC_EXTERN PetscErrorCode MatGPUKitGetStorage(Mat, PetscGPUKitStorage *);
PETSC_EXTERN PetscErrorCode PCSSORGPUGetColors(PC, PetscInt *, const PetscInt *[]);
PETSC_EXTERN PetscErrorCode PCSSORGPUSetType(PC, PCSSORGPUType);
PETSC_EXTERN PetscErrorCode PCSSORGPUSetOmega(PC, PetscReal);
PETSC_EXTERN PetscErrorCode PCSSORGPUSetNeumannTerms(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCSSORGPUSetBlockSize(PC, PetscInt);
PETSC_EXTERN PetscErrorCode PCGPUKitSetGraph(PC, PetscBool);
PETSC_EXTERN PetscErrorCode PCGPUKitGetGraphReplays(PC, PetscInt *);
PETSC_EXTERN PetscErrorCode PCSSORGPUGetBlocks(PC, PetscInt *, const PetscInt *[]);

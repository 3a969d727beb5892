/*
   Private to petsc-gpukit and its tests: the backend in use, the logged memory operations and
   the log events. Not installed.
*/
#pragma once

#include <petscgpukit.h>
#include "device/device.h"
#include "gkcompat.h"

PETSC_EXTERN PetscClassId  GK_CLASSID;
PETSC_EXTERN PetscLogEvent GK_MatMult, GK_MatMultT, GK_MatGetDiag, GK_MatToDevice, GK_MemcpyH2D, GK_MemcpyD2H, GK_VecOp, GK_VecReduce, GK_SSOR,
  GK_DeviceInit, GK_SpGEMM, GK_MatFromDevice;

/* The backend this process runs on; set by PetscGPUKitBackendSetUp_Private() */
PETSC_EXTERN const GKBackendOps *GKDev;

PETSC_EXTERN PetscErrorCode PetscGPUKitSysInitialize_Private(PetscBool *);
PETSC_EXTERN PetscErrorCode PetscGPUKitBackendSetUp_Private(void);
PETSC_EXTERN PetscErrorCode PetscGPUKitLogSync_Private(void);
PETSC_EXTERN PetscErrorCode PetscGPUKitDeviceReady_Private(void);
/* whether the halo exchanges hand device memory to MPI (-gpukit_cuda_aware_mpi) */
PETSC_EXTERN PetscErrorCode PetscGPUKitMPIDeviceMemory_Private(PetscBool *);

/* Device memory and copies, counted and logged (h2d/d2h in GK_MemcpyH2D/GK_MemcpyD2H) */
PETSC_EXTERN PetscErrorCode GKMalloc_Private(size_t, void **);
PETSC_EXTERN PetscErrorCode GKFree_Private(void *); /* takes the address of the pointer, and zeroes it */
PETSC_EXTERN PetscErrorCode GKMemcpyH2D(void *, const void *, size_t);
PETSC_EXTERN PetscErrorCode GKMemcpyD2H(void *, const void *, size_t);
PETSC_EXTERN PetscErrorCode GKMemcpyD2D(void *, const void *, size_t);

/* the device allocations and frees made through them (a PC's graph, pcgraph.c, needs none) */
PETSC_EXTERN PetscLogDouble GKMemOps;
/* -gpukit_dense_solve_max: PETSc's sequential LU of up to so many rows solves on the device too
   (gkfactor.c) */
PETSC_EXTERN PetscInt GKDenseSolveMax;

#define GKMalloc(n, p) GKMalloc_Private((size_t)(n) * sizeof(**(p)), (void **)(p))
/* device memory holding a copy of n host entries: *p = the copy of h */
PETSC_EXTERN PetscErrorCode GKMallocH2D_Private(size_t, const void *, void **);
#define GKMallocH2D(n, h, p) GKMallocH2D_Private((size_t)(n) * sizeof(**(p)), (h), (void **)(p))
#define GKFree(p)            GKFree_Private((void *)&(p))

PETSC_EXTERN PetscErrorCode GKFormatBytes_Private(PetscLogDouble, char *, size_t);

/* Row orders for the triangular sweeps (gkorder.c), on a CSR pattern of m rows:
   - the transpose's pattern (*tptr, *tcol allocated);
   - a greedy colouring in row order of the pattern made symmetric (i and j neighbours when A_ij
     or A_ji is stored): no row shares a colour with a row it couples to in either direction;
   - the levels of a triangular solve whose row i reads the rows col[ptr[i]..ptr[i+1]-1] before
     it (after it when backward; the others are skipped): key[i] = 1 + the largest key of
     those, nkeys levels;
   - whether the pattern is symmetric (sorted columns; unsorted ones may be called not symmetric,
     never wrongly symmetric), and each entry's mirror where asked;
   - the rows grouped by key (counting sort, increasing rows within a key), the groups in
     increasing key order or, descending, decreasing: *lev (nkeys + 1 starts, allocated), rows */
PETSC_INTERN PetscErrorCode GKGraphTranspose_Private(PetscInt, const PetscInt *, const PetscInt *, PetscInt **, PetscInt **);
PETSC_INTERN PetscErrorCode GKGraphSymmetric_Private(PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKGraphColor_Private(PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GKGraphLevels_Private(PetscInt, const PetscInt *, const PetscInt *, PetscBool, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GKGroupRows_Private(PetscInt, const PetscInt *, PetscInt, PetscBool, PetscInt **, PetscInt *);

/* Host loops over threads (gkthreads.c): fn(ctx, part, lo, hi) runs range part, [lo, hi), of a
   loop over [0, n) cut into nt parts; the threads a loop of n items at least grain a thread gets
   (the process's cores, or -gpukit_host_threads) */
typedef void (*GKRangeFn)(void *, PetscInt, PetscInt, PetscInt);
PETSC_INTERN PetscErrorCode GKHostThreads_Private(PetscInt, PetscInt, PetscInt *);
PETSC_INTERN PetscErrorCode GKParallelFor_Private(PetscInt, PetscInt, GKRangeFn, void *);
/* a hint that bytes at p, about to be written whole for the first time, take huge pages */
PETSC_INTERN void GKHostAdviseHuge_Private(void *, size_t);

/*
   What the CUDA backend's files share: the kernels' scalar type, the error checks, the launch
   shape, and the entry points each file defines for the backend's table.
*/
#pragma once

#include <cuda_runtime.h>
#include <cuda/std/complex>
#include "../device.h"

#if defined(PETSC_USE_COMPLEX)
typedef cuda::std::complex<PetscReal> GKScalar;
static __device__ __forceinline__ GKScalar GKConj(GKScalar a) { return cuda::std::conj(a); }
#else
typedef PetscReal GKScalar;
static __device__ __forceinline__ GKScalar GKConj(GKScalar a) { return a; }
#endif
static_assert(sizeof(GKScalar) == sizeof(PetscScalar), "the kernels' scalar must have PetscScalar's layout");

#define GK_BLOCK 256

/* Every CUDA call and launch goes through this, which turns a failure into a PETSc error. */
#define GKCallCUDA(...) \
  do { \
    cudaError_t _gk_err = (__VA_ARGS__); \
    PetscCheck(_gk_err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error %d (%s): %s", (int)_gk_err, cudaGetErrorName(_gk_err), cudaGetErrorString(_gk_err)); \
  } while (0)
#define GKCheckLaunch() GKCallCUDA(cudaGetLastError())

static inline unsigned GKBlocks(PetscInt n)
{
  return (unsigned)((n + GK_BLOCK - 1) / GK_BLOCK);
}

PETSC_INTERN PetscErrorCode GKCUDAAxpbypczd(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAMaxpy(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *const *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDASwap(PetscInt, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAPointwise(PetscInt, GKPointwiseOp, PetscScalar *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAReciprocal(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAConjugate(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDADots(PetscInt, const PetscScalar *, PetscInt, const PetscScalar *const *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDADotNorm2(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDANorms(PetscInt, const PetscScalar *, int, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDASum(PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAExtreme(PetscInt, const PetscScalar *, GKExtremeOp, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDAFinalize(void);

/*
   The device vectors (VECSEQGKCUDA, VECMPIGKCUDA: "seqcuda", "mpicuda" in a PETSc without CUDA):
   a VECSEQ or VECMPI whose values also live in a device array, with the offload mask saying
   which copy is valid; and, in a PETSc built with CUDA, the way to PETSc's own VECCUDA's device
   array. Private to the library.
*/
#pragma once

#include "include/gpukitimpl.h"
#include <petsc/private/vecimpl.h>
#include <petscdm.h>

PETSC_EXTERN PetscErrorCode VecCreate_SeqGKCUDA(Vec);
PETSC_EXTERN PetscErrorCode VecCreate_MPIGKCUDA(Vec);
PETSC_EXTERN PetscErrorCode VecCreate_GKCUDA(Vec);

/* a vector whose device array the kernels use: one of this library's (of either backend), or
   PETSc's own VECCUDA while the kernels run on the GPU */
PETSC_INTERN PetscBool VecIsGK(Vec);
/* whether reading v on the device copies nothing (one of the library's own vectors) */
PETSC_INTERN PetscErrorCode VecGKOnDevice_Private(Vec, PetscBool *);

/* The type MatCreateVecs() gives for the library's matrices: PETSc's VECCUDA where PETSc has
   CUDA and the kernels run on the GPU (what "cuda" means to that PETSc's users), else VECGKCUDA */
PETSC_INTERN PetscErrorCode VecGKDefaultType_Private(VecType *);

/* Called with a device vector's DM when the vector is given its local-to-global mapping; set by
   the registration */
PETSC_INTERN PetscErrorCode (*VecGKDMHook_Private)(DM);

/* The device vectors VecDuplicate() makes between Begin and End kept track of; End destroys
   those not destroyed since where destroy is set (an operation that failed half way, and would
   lose its work vectors) */
PETSC_INTERN PetscErrorCode VecGKTrackBegin_Private(void);
PETSC_INTERN PetscErrorCode VecGKTrackEnd_Private(PetscBool);

/* VecGetSubVector() and VecRestoreSubVector() (vecsub.c) */
PETSC_INTERN PetscErrorCode VecGetSubVector_GK(Vec, IS, Vec *);
PETSC_INTERN PetscErrorCode VecRestoreSubVector_GK(Vec, IS, Vec *);

/* v minus the constant of its mean, as MatNullSpaceRemove() of the constants, with no wait for
   the device where its values are there (veccudaops.c) */
PETSC_EXTERN PetscErrorCode VecGKRemoveConstant_Private(Vec); /* exported for tests/nullspace.c */

/* y = x through the device arrays where both have them */
PETSC_INTERN PetscErrorCode VecGKCopy_Private(Vec, Vec);

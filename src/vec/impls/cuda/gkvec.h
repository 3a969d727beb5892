/*
   The device vectors (VECSEQCUDA, VECMPICUDA): a VECSEQ or VECMPI whose values also live in a
   device array, with the offload mask saying which copy is valid. Private to the library.
*/
#pragma once

#include "../../../include/gpukitimpl.h"
#include <petsc/private/vecimpl.h>

#if defined(PETSC_HAVE_CUDA)
  #error "This PETSc has CUDA of its own: petsc-gpukit supports PETSc builds without CUDA for now"
#endif

PETSC_EXTERN PetscErrorCode VecCreate_SeqGKCUDA(Vec);
PETSC_EXTERN PetscErrorCode VecCreate_MPIGKCUDA(Vec);
PETSC_EXTERN PetscErrorCode VecCreate_GKCUDA(Vec);

/* a device vector of this library (of either backend)? */
PETSC_INTERN PetscBool VecIsGK(Vec);

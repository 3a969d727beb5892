/*
   PCGAMG's aggregation on the device (agggpu.c): the creator the registration file registers
   with PCGAMGRegister(), and the default it sets.
*/
#pragma once

#include <petscpc.h>

PETSC_INTERN PetscErrorCode PCCreateGAMG_AGGGPU(PC);
/* -pc_gamg_type agggpu unless the options name another type (the library's registration) */
PETSC_INTERN PetscErrorCode PCGAMGAggGPUSetDefault_Private(void);

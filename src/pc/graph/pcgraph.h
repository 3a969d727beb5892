/*
   A PC's application replayed as a CUDA graph (pcgraph.c): what cggpu and bicggpu ask of it
   besides the public PCGPUKitSetGraph()
*/
#pragma once

#include <petscgpukit.h>

/* Whether pc, set up, is a multigrid PC that cggpu and bicggpu replay as a graph */
PETSC_INTERN PetscErrorCode PCGKGraphable_Private(PC, PetscBool *);

/* Whether PETSc's PCJacobi pc would find no zero in its inverted diagonal, so that its
   -pc_jacobi_fixdiagonal pass over the diagonal on the host changes nothing */
PETSC_INTERN PetscErrorCode PCGKJacobiFixIsNoop_Private(PC, PetscBool *);

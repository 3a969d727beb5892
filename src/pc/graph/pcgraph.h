/*
   A PC's application replayed as a CUDA graph (pcgraph.c): what cggpu and bicggpu ask of it
   besides the public PCGPUKitSetGraph()
*/
#pragma once

#include <petscgpukit.h>

/* Whether pc, set up, is a multigrid PC that cggpu and bicggpu replay as a graph */
PETSC_INTERN PetscErrorCode PCGKGraphable_Private(PC, PetscBool *);

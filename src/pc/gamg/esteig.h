/*
   GMRES's estimate of the extreme singular values of a KSP's preconditioned operator with its
   Arnoldi process on the device (esteig.c), for AGG's smoothing in agggpu.c.
*/
#pragma once

#include <petscksp.h>

/* KSPSolve(ksp, b, .) and KSPComputeExtremeSingularValues(ksp, emax, emin) as PETSc's GMRES would
   compute them, where it applies (esteig.c); *done false: nothing computed, the KSP untouched but
   for its PC's setup, and PETSc's KSPSolve() is to run */
PETSC_INTERN PetscErrorCode PCGAMGAggGPUArnoldi_Private(KSP, Vec, PetscReal *, PetscReal *, PetscBool *);

/*
   Eisenstat's form of SSOR-preconditioned CG (Eisenstat 1981; device.h, krylovssor), as a PC
   that knows the sweeps offers it to a fused CG (src/ksp/impls/gk): CG runs on the transformed
   system (D/w + L)^-1 A (D/w + U)^-1 with the scaling ((2 - w)/w) D as its preconditioner, and
   each step's product with A becomes the PC's sweeps. A PC offers it through the composed method
   GK_EISENSTAT_C, PetscErrorCode (PC, const GKEisenstat **), called after PCSetUp() (NULL where
   the PC's settings do not allow it: the KSP then applies the PC as PETSc's methods do); the KSP
   knows the PC through these operations alone.
*/
#pragma once

#include "include/gpukitimpl.h"
#include <petscpc.h>

#define GK_EISENSTAT_C "PCGKGetEisenstat_C"

typedef struct {
  /* the iterations run in the PC's own numbering of the rows, where the step computes z from r
     as it needs it: the KSP stores no z (GKKrylovVecs' z NULL) */
  PetscBool permuted;
  /* why the PC failed at its setup (the row and its entry), or "" */
  PetscErrorCode (*failure)(PC, char *, size_t);
  /* the start, in place: r^ = (D/w + L)^-1 r and, unless the guess is zero, x^ = (D/w + U) x,
     both into the iterations' numbering */
  PetscErrorCode (*begin)(PC, Vec, Vec, PetscBool);
  /* z = ((2 - w)/w) D r, the transformed system's preconditioner (r, z) */
  PetscErrorCode (*apply)(PC, Vec, Vec);
  /* step i of the iterations (i, rho_0 for i = 0, last), and update i, on v's device arrays */
  PetscErrorCode (*step)(PC, GKKrylov, PetscInt, PetscScalar, PetscBool, const GKKrylovVecs *);
  PetscErrorCode (*update)(PC, GKKrylov, PetscInt, const GKKrylovVecs *);
  /* the end, in place: x = (D/w + U)^-1 x^, in the matrix's numbering */
  PetscErrorCode (*end)(PC, Vec);
} GKEisenstat;

/*
   What the host backend's files share: the products the fused Krylov twins reuse, and the
   Krylov entry points for the backend's table.
*/
#pragma once

#include "../device.h"

/* where slot t's entries start in ELLPACK-R and their stride (device.h) */
PETSC_INTERN void GKHostEllrSlot(const GKEllr *, PetscInt, size_t *, PetscInt *);
/* (A x) of slot t's row, or (conj(A) x) */
PETSC_INTERN PetscScalar GKHostEllrRow(const GKEllr *, PetscInt, PetscBool, const PetscScalar *);
/* the products' loops, uncounted: y = A x (+ y), y = A^T x (+ y) */
PETSC_INTERN PetscErrorCode GKHostEllrLoop(const GKEllr *, PetscBool, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaLoop(const GKDia *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaTLoop(const GKDia *, PetscBool, const PetscScalar *, PetscBool, PetscScalar *);

PETSC_INTERN PetscErrorCode GKHostKrylovCreate(PetscInt, GKKrylovMethod, GKKrylovNorm, GKKrylov *);
PETSC_INTERN PetscErrorCode GKHostKrylovDestroy(GKKrylov *);
PETSC_INTERN PetscErrorCode GKHostKrylovStep(GKKrylov, PetscInt, PetscScalar, PetscBool, const GKOperator *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovUpdate(GKKrylov, PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovStateBegin(GKKrylov);
PETSC_INTERN PetscErrorCode GKHostKrylovStateEnd(GKKrylov, GKKrylovState *);
PETSC_INTERN PetscErrorCode GKHostKrylovGather(GKKrylov, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovGatherWait(GKKrylov);
PETSC_INTERN PetscErrorCode GKHostKrylovOffDiag(GKKrylov, const GKEllr *, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *, PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovGetSums(GKKrylov, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovSsor(GKKrylov, PetscInt, PetscScalar, PetscBool, PetscBool, const GKSsor *, PetscBool, PetscInt, const PetscInt *, const GKSsorColor *, PetscInt, PetscReal, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovDpi(GKKrylov, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovSetSums(GKKrylov, const PetscScalar *);

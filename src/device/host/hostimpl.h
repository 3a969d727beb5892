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
/* the products' loops, uncounted: y = A x or A^T x, or w + or - it (device.h's products) */
PETSC_INTERN PetscErrorCode GKHostEllrLoop(const GKEllr *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaLoop(const GKDia *, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaTLoop(const GKDia *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);

/* entry i of a product's result whose own entry is s: s, or w[i] + s, or w[i] - s with neg */
static inline PetscScalar GKHostOut(const PetscScalar *w, PetscBool neg, PetscInt i, PetscScalar s)
{
  return w ? (neg ? w[i] - s : w[i] + s) : s;
}

/* the rows of block j of colour c (device.h, GKSsorColor) into rows[]: their number */
static inline PetscInt GKHostSsorBlockRows(const GKSsorColor *c, PetscInt j, PetscInt rows[])
{
  PetscInt n = 0;

  while (n < GK_SSOR_MAX_BS && j < c->lofs[n + 1] - c->lofs[n]) {
    rows[n] = c->r0 + c->lofs[n] + j;
    n++;
  }
  return n;
}

/* block J's n rows of v (multicolor's blocks, device.h GKSsor): v = D_B^-1 v (inv), else D_B v */
PETSC_INTERN void GKHostSsorBlock(const GKSsor *, PetscInt, PetscInt, PetscBool, PetscScalar *);
/* row l of block j of colour c: its couplings to the other colours' rows, sum_e val_e x_col(e)
   over L (t = 0) or U (t = 1) */
PETSC_INTERN PetscScalar GKHostSsorBlockRow(const GKSsor *, const GKSsorColor *, int, PetscInt, PetscInt, const PetscScalar *);

/* the sparse products' twin (spgemm.c) */
PETSC_INTERN PetscErrorCode GKHostSpGEMM(const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKHostCsrTranspose(const GKCsr *, GKCsr *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostSpGEMMNumeric(void **, const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKHostSpGEMMPlanFree(void **);

/* PCGAMG's aggregation's twins (graph.c, coarsen.c) */
PETSC_INTERN PetscErrorCode GKHostStrength(const GKCsr *, PetscBool, PetscReal, GKCsr *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostAggregate(PetscInt, const PetscInt *, const PetscInt *, PetscInt, PetscInt *, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GKHostTentative(PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKHostSmooth(const GKCsr *, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);

PETSC_INTERN PetscErrorCode GKHostKrylovCreate(PetscInt, GKKrylovMethod, GKKrylovNorm, PetscBool, GKKrylov *);
PETSC_INTERN PetscErrorCode GKHostKrylovDestroy(GKKrylov *);
PETSC_INTERN PetscErrorCode GKHostKrylovStep(GKKrylov, PetscInt, PetscScalar, PetscBool, const GKOperator *, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKHostKrylovUpdate(GKKrylov, PetscInt, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKHostKrylovStateBegin(GKKrylov);
PETSC_INTERN PetscErrorCode GKHostKrylovStateEnd(GKKrylov, GKKrylovState *);
PETSC_INTERN PetscErrorCode GKHostKrylovGather(GKKrylov, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *,
                                               PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovGatherWait(GKKrylov);
PETSC_INTERN PetscErrorCode GKHostKrylovOffDiag(GKKrylov, const GKEllr *, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *,
                                                PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovGetSums(GKKrylov, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovSsor(GKKrylov, PetscInt, PetscScalar, const GKSsorSweep *, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKHostKrylovUpdateBlocks(GKKrylov, PetscInt, const GKSsor *, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovDpi(GKKrylov, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostKrylovSetSums(GKKrylov, const PetscScalar *);

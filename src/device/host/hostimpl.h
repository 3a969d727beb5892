/*
   What the host backend's files share: the products the fused Krylov twins reuse, and the
   Krylov entry points for the backend's table.
*/
#pragma once

#include "device/device.h"

/* the column of entry e, which belongs to slot t: a 32-bit index or an offset from t (device.h) */
static inline PetscInt GKHostEllrCol(const GKEllr *A, PetscInt t, size_t e)
{
  return A->dcol ? t + A->dcol[e] : A->col[e];
}

/* where slot t's entries start in ELLPACK-R and their stride (device.h) */
PETSC_INTERN void GKHostEllrSlot(const GKEllr *, PetscInt, size_t *, PetscInt *);
/* (A x) of slot t's row, or (conj(A) x) */
/* value k of a format's values: of sval (single precision, device.h's GKStorage) with single, else of val */
static inline PetscScalar GKHostValue(const PetscScalar *val, const void *sval, PetscBool single, size_t k)
{
  const float *f = (const float *)sval;

  if (!single) return val[k];
#if defined(PETSC_USE_COMPLEX)
  return PetscCMPLX((PetscReal)f[2 * k], (PetscReal)f[2 * k + 1]);
#else
  return (PetscReal)f[k];
#endif
}
PETSC_INTERN PetscScalar GKHostEllrRow(const GKEllr *, PetscInt, PetscBool, PetscBool, const PetscScalar *);
/* the products' loops, uncounted: y = A x or A^T x, or w + or - it (device.h's products) */
PETSC_INTERN PetscErrorCode GKHostEllrLoop(const GKEllr *, PetscBool, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaLoop(const GKDia *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaTLoop(const GKDia *, PetscBool, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);

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

/* the backend table's entries of the files by kernel family, as the CUDA backend's (ellr.c, dia.c, fill.c, sor.c, blas1.c) */
PETSC_INTERN PetscErrorCode GKHostEllrGetDiagonal(const GKEllr *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostEllrMult(const GKEllr *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaGetDiagonal(const GKDia *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaMult(const GKDia *, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaMultTranspose(const GKDia *, PetscBool, const PetscScalar *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostEllrShortFits(const GKEllr *, const PetscInt *, const PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostCheckCols(PetscInt, PetscInt, const PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostCsrSorted(PetscInt, const PetscInt *, const PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostEllrFill(GKEllr *, const PetscInt *, const PetscInt *, const PetscScalar *, PetscBool);
PETSC_INTERN PetscErrorCode GKHostDiaOffsets(PetscInt, const PetscInt *, const PetscInt *, char *);
PETSC_INTERN PetscErrorCode GKHostDiaFill(GKDia *, const PetscInt *, const PetscInt *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostCooScatter(PetscInt, const PetscCount *, const PetscCount *, const PetscScalar *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostSsorRows(const GKSsor *, GKSsorStep, PetscInt, const PetscInt *, PetscReal, const PetscScalar *,
                                           const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostEllrSor(const GKEllr *, PetscInt, const PetscInt *, const PetscInt *, PetscBool, const PetscScalar *, PetscReal,
                                          const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDiaSor(const GKDia *, PetscInt, const PetscInt *, const PetscInt *, PetscBool, const PetscScalar *, PetscReal,
                                         const PetscScalar *, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostSsorBlocks(const GKSsor *, GKSsorStep, const GKSsorColor *, PetscReal, const PetscScalar *, const PetscScalar *,
                                             PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostAxpbypczd(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar,
                                            PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostMaxpy(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *const *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostSwap(PetscInt, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostPointwise(PetscInt, GKPointwiseOp, PetscScalar *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostReciprocal(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostNoisy(PetscInt, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostConjugate(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostAbs(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostArnoldi(PetscInt, PetscInt, const PetscScalar *const *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDots(PetscInt, const PetscScalar *, PetscInt, const PetscScalar *const *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostDotNorm2(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKHostNorms(PetscInt, const PetscScalar *, int, PetscReal *);
PETSC_INTERN PetscErrorCode GKHostSum(PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostRemoveConstant(PetscInt, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKHostExtreme(PetscInt, const PetscScalar *, GKExtremeOp, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode GKHostFirstZero(PetscInt, const PetscScalar *, PetscInt *);

/* the sparse products' twin (spgemm.c) */
PETSC_INTERN PetscErrorCode GKHostSpGEMM(const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKHostCsrTranspose(const GKCsr *, GKCsr *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostSpGEMMNumeric(void **, const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKHostSpGEMMPlanFree(void **);

/* MatSOR's order's twins (order.c) */
PETSC_INTERN PetscErrorCode GKHostGreedyColor(PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostGroupRows(PetscInt, const PetscInt *, PetscInt, PetscBool, PetscInt *, PetscInt *);

/* PCGAMG's aggregation's twins (graph.c, coarsen.c) */
PETSC_INTERN PetscErrorCode GKHostStrength(const GKCsr *, const GKStrengthHalo *, PetscBool, PetscReal, GKCsr *, PetscBool *);
PETSC_INTERN PetscErrorCode GKHostAggExchange(const GKAggHalo *, PetscInt, size_t, void *, char *);
PETSC_INTERN PetscErrorCode GKHostAggregate(PetscInt, const PetscInt *, const PetscInt *, PetscInt, const GKAggHalo *, PetscInt *, PetscInt *,
                                            PetscInt *);
PETSC_INTERN PetscErrorCode GKHostTentative(PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKHostSmooth(const GKCsr *, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);
PETSC_INTERN PetscErrorCode GKHostCollapse(const GKCsr *, PetscInt, GKCsr *);
PETSC_INTERN PetscErrorCode GKHostTentativeBlock(PetscInt, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *,
                                                 PetscReal *);
PETSC_INTERN PetscErrorCode GKHostSmoothBlock(const GKCsr *, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);

/* DMDA's Q1 interpolation's twin (interp.c) */
PETSC_INTERN PetscErrorCode GKHostQ1Interp(const GKQ1Grid *, GKCsr *, PetscScalar *);

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

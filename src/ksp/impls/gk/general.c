/*
   cggpu and bicggpu with a preconditioner the fused kernels do not apply (any PC but none,
   jacobi, and ssorgpu's Eisenstat step on one process), or an operator they cannot read (a shell
   matrix, PCEisenstat's transformed operator): PETSc's own KSPCG or KSPBICG (KSPCG with
   KSP_CG_SYMMETRIC for COCG) iterate on the device operator and vectors, and the PC is applied by
   PETSc (on the device where the PC works on device vectors: ssorgpu, or a multigrid built from
   the plug-in's matrices). The iterations are PETSc's, so are their counts and norms; the outer
   KSP's monitors, residual history and convergence test see every iteration, as with the fused
   path. A KSP asked for extreme singular values (PCGAMG's smoothing estimate, Chebyshev's) takes
   this path too: PETSc's method estimates them from its Lanczos coefficients (KSPBICG, as PETSc's
   own, has none to give).

   The inner method has a PC of its own, a shell that applies the outer KSP's PC: the outer PC's
   operators stay the user's (a KSP keeps its operators in its PC, and the inner method's
   operator is the device copy), so that a matrix the user changes is seen at the next solve, and
   the outer PC's PCPreSolve() (Eisenstat's) runs once, not again for the inner method.
*/
#include "gkksp.h"

/* The inner method's test: the outer KSP records, monitors and tests the norm, as on the fused
   path (PETSc's method has checked it for Inf and NaN already) */
static PetscErrorCode KSPGKGeneralConverged_Private(KSP inner, PetscInt its, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  KSP       ksp = (KSP)ctx;
  PetscBool ok;

  PetscFunctionBegin;
  PetscCall(KSPGKTest_Private(ksp, its, rnorm, &ok));
  *reason = ksp->reason;
  PetscFunctionReturn(0);
}

/* y = B x (B^T x) by the outer KSP's PC; its failure passed on to the inner method's PC, where
   PETSc's method looks for it (KSP_DIVERGED_PC_FAILED) */
static PetscErrorCode KSPGKGeneralApply_Private(PC shell, Vec x, Vec y, PetscBool transpose)
{
  KSP            ksp;
  PCFailedReason reason;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &ksp));
  if (transpose) PetscCall(PCApplyTranspose(ksp->pc, x, y));
  else PetscCall(PCApply(ksp->pc, x, y));
  PetscCall(PCGetFailedReason(ksp->pc, &reason));
  if (reason) PetscCall(PCSetFailedReason(shell, reason));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGKGeneralApply(PC shell, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(KSPGKGeneralApply_Private(shell, x, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGKGeneralApplyTranspose(PC shell, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(KSPGKGeneralApply_Private(shell, x, y, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The inner KSP, made once: its own options prefix (so -ksp_view, -ksp_monitor and
   -ksp_converged_reason print the outer KSP's output only), the shell PC */
static PetscErrorCode KSPGKGeneralCreate_Private(KSP ksp)
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  const char *prefix;
  char        p[256];
  PC          shell;

  PetscFunctionBegin;
  if (gk->inner) PetscFunctionReturn(0);
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)ksp), &gk->inner));
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(PetscSNPrintf(p, sizeof(p), "%s%s_general_", prefix ? prefix : "", ((PetscObject)ksp)->type_name));
  PetscCall(KSPSetOptionsPrefix(gk->inner, p));
  PetscCall(KSPSetType(gk->inner, gk->method == GK_KRYLOV_BICG ? KSPBICG : KSPCG));
  PetscCall(KSPGetPC(gk->inner, &shell));
  PetscCall(PCSetType(shell, PCSHELL));
  PetscCall(PCShellSetContext(shell, ksp));
  PetscCall(PCShellSetApply(shell, KSPGKGeneralApply));
  PetscCall(PCShellSetApplyTranspose(shell, KSPGKGeneralApplyTranspose));
  PetscCall(PCShellSetName(shell, "the outer KSP's PC"));
  PetscCall(KSPSetConvergenceTest(gk->inner, KSPGKGeneralConverged_Private, ksp, NULL));
  PetscFunctionReturn(0);
}

/* The inner method set up with the device operator (its null spaces those of the outer KSP's
   operator, which PETSc's method removes as the outer one would), in the outer KSP's setup: its
   work vectors are made there, as PETSc's own method makes them, not in the first solve */
PetscErrorCode KSPGKSetUpGeneral_Private(KSP ksp)
{
  KSP_GK      *gk = (KSP_GK *)ksp->data;
  Mat          A;
  MatNullSpace nsp, tnsp;

  PetscFunctionBegin;
  PetscCall(KSPGKGeneralCreate_Private(ksp));
  if (gk->method != GK_KRYLOV_BICG) PetscCall(KSPCGSetType(gk->inner, gk->method == GK_KRYLOV_COCG ? KSP_CG_SYMMETRIC : KSP_CG_HERMITIAN));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  if (gk->Adev != A) {
    PetscCall(MatGetNullSpace(A, &nsp));
    PetscCall(MatGetTransposeNullSpace(A, &tnsp));
    PetscCall(MatSetNullSpace(gk->Adev, nsp));
    PetscCall(MatSetTransposeNullSpace(gk->Adev, tnsp));
  }
  PetscCall(KSPSetOperators(gk->inner, gk->Adev, gk->Adev));
  PetscCall(KSPSetComputeSingularValues(gk->inner, ksp->calc_sings));
  PetscCall(KSPSetUp(gk->inner));
  PetscFunctionReturn(0);
}

/* Solves with the outer KSP's settings: tolerances, norm, guess; X and B device vectors, X
   holding the guess unless it is zero */
PetscErrorCode KSPGKSolveGeneral_Private(KSP ksp, Vec B, Vec X)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPGKSetUpGeneral_Private(ksp));
  PetscCall(KSPSetTolerances(gk->inner, ksp->rtol, ksp->abstol, ksp->divtol, ksp->max_it));
  PetscCall(KSPSetNormType(gk->inner, ksp->normtype));
  PetscCall(KSPSetInitialGuessNonzero(gk->inner, ksp->guess_zero ? PETSC_FALSE : PETSC_TRUE));
  if (ksp->transpose_solve) PetscCall(KSPSolveTranspose(gk->inner, B, X));
  else {
    PetscBool graph = PETSC_FALSE;

    /* a multigrid PC replayed from a graph for this solve only: the first application of each
       solve runs as it is and is checked again (pcgraph.c) */
    if (gk->graph) PetscCall(PCGKGraphable_Private(ksp->pc, &graph));
    if (graph) PetscCall(PCGPUKitSetGraph(ksp->pc, PETSC_TRUE));
    PetscCall(KSPSolve(gk->inner, B, X));
    if (graph) PetscCall(PCGPUKitSetGraph(ksp->pc, PETSC_FALSE));
  }
  ksp->its    = gk->inner->its;
  ksp->rnorm  = gk->inner->rnorm;
  ksp->reason = gk->inner->reason;
  PetscFunctionReturn(0);
}

/* The inner method's estimate (the general path is taken whenever the estimate is asked for) */
PetscErrorCode KSPComputeExtremeSingularValues_GK(KSP ksp, PetscReal *emax, PetscReal *emin)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  *emax = *emin = -1.0; /* as KSPComputeExtremeSingularValues() for a method that has none */
  if (gk->inner) PetscCall(KSPComputeExtremeSingularValues(gk->inner, emax, emin));
  PetscFunctionReturn(0);
}

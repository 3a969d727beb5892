/*
   The solver shared by KSPCGGPU and KSPBICGGPU: PETSc's KSPCG and KSPBICG iterations with each
   iteration's work done by two fused device kernels (device.h) and the host waiting for the
   device once per convergence test.
*/
#include "gkksp.h"
#include "mat/impls/gk/gkmat.h"
#include "vec/impls/cuda/gkvec.h"

/* Whether the cache entry k was made from o as it is now */
static PetscErrorCode KSPGKKeyMatches_Private(const KSPGKKey *k, PetscObject o, PetscBool *same)
{
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet(o, &state));
  *same = k->id == o->id && k->state == state ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGKKeySet_Private(KSPGKKey *k, PetscObject o)
{
  PetscFunctionBegin;
  k->id = o->id;
  PetscCall(PetscObjectStateGet(o, &k->state));
  PetscFunctionReturn(0);
}

/* Whether the fused kernels can read the operator's entries: a device matrix, or an assembled
   one with rows to convert (not a shell: PCEisenstat's transformed operator, a user's matrix-free
   product), which PETSc's method on the general path multiplies by instead */
static PetscErrorCode KSPGKOperatorReadable_Private(Mat A, PetscBool *readable)
{
  PetscBool isgk, ismpi, isshell, hasrow;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(A, &isgk, &ismpi));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSHELL, &isshell));
  PetscCall(MatHasOperation(A, MATOP_GET_ROW, &hasrow));
  *readable = isgk || ismpi || (!isshell && hasrow) ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The device matrix of the operator: the operator itself, or any other assembled matrix
   converted to the default format (ellrcuda), again only when the operator (or its state) changed; on the general
   path an operator with no entries to convert is multiplied by as it is */
static PetscErrorCode KSPGKSetUpDevice_Private(KSP ksp)
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  Mat         A;
  PetscMPIInt size;
  PetscBool   isgk, readable, same = PETSC_FALSE;
  PetscInt    m, n;
  MatType     type;

  PetscFunctionBegin;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_SIZ, "KSP %s needs a square operator, not %" PetscInt_FMT " x %" PetscInt_FMT,
             ((PetscObject)ksp)->type_name, m, n);
  PetscCall(MatGetLocalSize(A, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "KSP %s needs the operator's rows and columns split alike over the processes, not %" PetscInt_FMT " rows and %" PetscInt_FMT
             " columns here",
             ((PetscObject)ksp)->type_name, m, n);
  PetscCall(GKMatIsDevice_Private(A, &isgk, &gk->mpi));
  if (isgk || gk->mpi) {
    const GKMatFormat *fmt;

    PetscCall(MatGKFormatFind_Private(((PetscObject)A)->type_name, &fmt));
    if (fmt->getoperator) {
      gk->Adev = A;
      PetscFunctionReturn(0);
    }
  } /* else, or a format whose arrays the fused kernels do not read: converted as below */
  PetscCall(KSPGKOperatorReadable_Private(A, &readable));
  gk->mpi = size > 1 ? PETSC_TRUE : PETSC_FALSE;
  if (!readable) { /* KSPGKChoosePath_Private() chose the general path for it */
    gk->Adev = A;
    PetscFunctionReturn(0);
  }
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_WRONGSTATE, "KSP %s needs an assembled operator (MatAssemblyBegin/End)",
             ((PetscObject)ksp)->type_name);
  type = size > 1 ? GKFormatDefault->mpitype : GKFormatDefault->type;
  if (gk->Aconv) PetscCall(KSPGKKeyMatches_Private(&gk->Akey, (PetscObject)A, &same));
  if (!same) {
    PetscCall(MatDestroy(&gk->Aconv));
    PetscCall(PetscInfo(ksp, "Converting the %s operator to %s for the device\n", ((PetscObject)A)->type_name, type));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &gk->Aconv));
    PetscCall(KSPGKKeySet_Private(&gk->Akey, (PetscObject)A));
  }
  gk->Adev = gk->Aconv;
  PetscFunctionReturn(0);
}

/* KSPSolveTranspose: the iterations run on A^T, made in the device operator's own format from it
   (MatTranspose of the plug-in's types keeps their type), again only when that changed */
static PetscErrorCode KSPGKSetUpTranspose_Private(KSP ksp)
{
  KSP_GK   *gk   = (KSP_GK *)ksp->data;
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  if (gk->Atrans) PetscCall(KSPGKKeyMatches_Private(&gk->Atkey, (PetscObject)gk->Adev, &same));
  if (!same) {
    PetscCall(MatDestroy(&gk->Atrans));
    PetscCall(PetscInfo(ksp, "Transposing the %s operator for KSPSolveTranspose\n", ((PetscObject)gk->Adev)->type_name));
    PetscCall(MatTranspose(gk->Adev, MAT_INITIAL_MATRIX, &gk->Atrans));
    PetscCall(KSPGKKeySet_Private(&gk->Atkey, (PetscObject)gk->Adev));
  }
  gk->Adev = gk->Atrans;
  PetscFunctionReturn(0);
}

/* The device matrix the iterations use: the operator itself, or any other assembled matrix
   converted to ellrcuda, again only when the operator changed; its transpose for
   KSPSolveTranspose on the fused path (PETSc's methods on the general path multiply by A^T) */
static PetscErrorCode KSPGKSetUpOperator_Private(KSP ksp)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  PetscCall(KSPGKSetUpDevice_Private(ksp));
  if (ksp->transpose_solve && !gk->general) PetscCall(KSPGKSetUpTranspose_Private(ksp));
  PetscFunctionReturn(0);
}

/* Whether a PC that offers Eisenstat's trick (eisenstat.h) can be applied by it: CG on one
   process, the operator the preconditioning matrix, not KSPSolveTranspose; else the general path
   applies the PC as PETSc's KSPCG does */
static PetscErrorCode KSPGKEisenstatFits_Private(KSP ksp, PetscBool *fits)
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  Mat         A, P;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
  PetscCall(KSPGetOperators(ksp, &A, &P));
  *fits = gk->method == GK_KRYLOV_CG && size == 1 && A == P && !ksp->transpose_solve ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Whether the solve takes the general path (general.c), and why: a PC the kernels do not apply,
   an operator whose entries they cannot read, extreme singular values asked for (the kernels
   keep no Lanczos coefficients), or a null space they do not remove (they remove the constants
   from z on one process, as PETSc's KSPCG does; any other null space PETSc's method removes). A
   PC that offers Eisenstat's trick where it fits is set up and asked for its step (SSOR: CG on
   the transformed system, the PC's sweeps in place of the product with A and its scaling as the
   preconditioner; the PC keeps the sweeps' arrays); one whose settings do not allow it
   (ssorgpu's neumann series) offers none, and the general path applies it. */
static PetscErrorCode KSPGKChoosePath_Private(KSP ksp)
{
  KSP_GK      *gk     = (KSP_GK *)ksp->data;
  const char  *method = gk->method == GK_KRYLOV_BICG ? KSPBICG : KSPCG;
  PC           pc;
  PCType       type;
  Mat          A;
  MatNullSpace nsp;
  PetscBool    isjacobi, isnone, readable, fits = PETSC_FALSE;
  PetscErrorCode (*geteis)(PC, const GKEisenstat **) = NULL;

  PetscFunctionBegin;
  gk->eis      = NULL;
  gk->general  = GK_GENERAL_NONE;
  gk->nullcnst = PETSC_FALSE;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &type));
  if (!type) {
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(PCGetType(pc, &type));
  }
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(KSPGKOperatorReadable_Private(A, &readable));
  PetscCall(MatGetNullSpace(A, &nsp));
  PetscCall(PetscStrcmp(type, PCJACOBI, &isjacobi));
  PetscCall(PetscStrcmp(type, PCNONE, &isnone));
  PetscCall(PetscObjectQueryFunction((PetscObject)pc, GK_EISENSTAT_C, &geteis));
  if (geteis && readable && !nsp) PetscCall(KSPGKEisenstatFits_Private(ksp, &fits));
  if (fits && !ksp->calc_sings) {
    PetscCall(PCSetUp(pc));
    PetscCall((*geteis)(pc, &gk->eis));
    if (!gk->eis) PetscCall(PetscInfo(ksp, "PC %s offers no Eisenstat step with its settings\n", type));
  }
  if (!isjacobi && !isnone && !gk->eis) {
    gk->general = GK_GENERAL_PC;
    PetscCall(PetscInfo(ksp,
                        "PC %s is not one the fused kernels apply (jacobi, none, or ssorgpu's Eisenstat step for cggpu on one process): PETSc's %s "
                        "iterates\n",
                        type, method));
  } else if (!readable) {
    gk->general = GK_GENERAL_OPERATOR;
    PetscCall(PetscInfo(ksp, "The operator is a %s matrix, whose entries the fused kernels cannot read: PETSc's %s multiplies by it\n",
                        ((PetscObject)A)->type_name, method));
  } else if (ksp->calc_sings) {
    gk->general = GK_GENERAL_SINGULAR;
    PetscCall(PetscInfo(ksp,
                        "Extreme singular values asked for (KSPSetComputeSingularValues; PCGAMG's and Chebyshev's estimates): PETSc's %s iterates "
                        "and estimates them\n",
                        method));
  } else if (nsp) {
    PetscBool   cnst;
    PetscInt    nv;
    const Vec  *vecs;
    PetscMPIInt size;

    PetscCall(MatNullSpaceGetVecs(nsp, &cnst, &nv, &vecs));
    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)ksp), &size));
    if (cnst && !nv && size == 1 && gk->method != GK_KRYLOV_BICG && !ksp->transpose_solve) gk->nullcnst = PETSC_TRUE;
    else {
      gk->general = GK_GENERAL_NULLSPACE;
      PetscCall(PetscInfo(ksp,
                          "The operator has a null space the fused kernels do not remove (they remove the constants, for CG on one process and not "
                          "transposed): PETSc's %s iterates and removes it\n",
                          method));
    }
  }
  if (gk->general) gk->eis = NULL;
  PetscFunctionReturn(0);
}

/* Jacobi on the device: the inverted diagonal as PETSc's PCJACOBI holds it, whatever its
   options (-pc_jacobi_type, -pc_jacobi_abs, -pc_jacobi_fixdiagonal, and any a release adds),
   read out as its application to a vector of ones (d .* 1 is d) in every solve, so that the
   diagonal is the PC's as PCSetUp() left it (a changed preconditioning matrix, or one reused
   under PCSetReusePreconditioner()); PCNONE, Eisenstat's trick (its operations, found by
   KSPGKChoosePath_Private()) and the general path (PETSc applies the PC): no diagonal */
static PetscErrorCode KSPGKSetUpPC_Private(KSP ksp)
{
  KSP_GK        *gk = (KSP_GK *)ksp->data;
  PC             pc;
  PetscBool      isnone, noop;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCNONE, &isnone));
  if (gk->general || gk->eis || isnone) {
    PetscCall(VecDestroy(&gk->diag));
    PetscCall(VecDestroy(&gk->ones));
    PetscCall(GKFree(gk->sdiag));
    PetscFunctionReturn(0);
  }
  if (!gk->diag) PetscCall(VecDuplicate(gk->work.r, &gk->diag));
  if (!gk->ones) PetscCall(VecDuplicate(gk->work.r, &gk->ones));
  PetscCall(VecSet(gk->ones, 1.0)); /* launches nothing while it holds ones (veccuda.c) */
  PetscCall(PCGKJacobiFixIsNoop_Private(pc, &noop));
  if (noop) PetscCall(PCJacobiSetFixDiagonal(pc, PETSC_FALSE)); /* a pass that would change nothing, on the host (pcgraph.c) */
  ierr = PCApply(pc, gk->ones, gk->diag);
  if (noop) PetscCall(PCJacobiSetFixDiagonal(pc, PETSC_TRUE));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPGKDestroyWork_Private(KSP_GK *gk)
{
  KSPGKWork *w = &gk->work;

  PetscFunctionBegin;
  PetscCall(VecDestroy(&w->r));
  PetscCall(VecDestroy(&w->z));
  PetscCall(VecDestroy(&w->w));
  PetscCall(VecDestroy(&w->rt));
  PetscCall(VecDestroy(&w->zt));
  PetscCall(VecDestroy(&w->wt));
  PetscCall(VecDestroy(&w->t));
  PetscCall(VecDestroy(&w->xbest));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&w->p[k]));
    PetscCall(VecDestroy(&w->pt[k]));
  }
  PetscCall(VecDestroy(&gk->X));
  PetscCall(VecDestroy(&gk->B));
  PetscCall(VecDestroy(&gk->diag));
  PetscCall(VecDestroy(&gk->ones));
  PetscCall(GKFree(gk->sdiag));
  PetscFunctionReturn(0);
}

/* A work vector (one of gk->work's), made from r at its first use: CG never makes BiCG's, nor z
   without a preconditioner */
static PetscErrorCode KSPGKWork_Private(KSP_GK *gk, Vec *v)
{
  PetscFunctionBegin;
  if (!*v) PetscCall(VecDuplicate(gk->work.r, v));
  PetscFunctionReturn(0);
}

/* z is a vector of its own: a preconditioner is applied, or the constants are removed from z
   (else z is r) */
static inline PetscBool KSPGKHasZ_Private(KSP_GK *gk)
{
  return gk->diag || gk->eis || gk->nullcnst ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode KSPSetUp_GK(KSP ksp)
{
  KSP_GK   *gk = (KSP_GK *)ksp->data;
  Mat       A;
  PetscInt  n, nw = -1;
  PetscBool redo;

  PetscFunctionBegin;
  PetscCall(KSPGKChoosePath_Private(ksp));
  PetscCall(KSPGKSetUpOperator_Private(ksp));
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(MatGetLocalSize(A, &n, NULL));
  if (gk->work.r) PetscCall(VecGetLocalSize(gk->work.r, &nw));
  redo = nw != n ? PETSC_TRUE : PETSC_FALSE; /* the operator's row layout changed on some process */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &redo, 1, GK_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (redo) {
    PetscCall(KSPGKDestroyWork_Private(gk));
    PetscCall(VecCreate(PetscObjectComm((PetscObject)A), &gk->work.r));
    PetscCall(VecSetLayout(gk->work.r, A->rmap));
    PetscCall(VecSetType(gk->work.r, VECGKCUDA));
  }
  PetscCall(KSPGKSetUpPC_Private(ksp));
  if (gk->general) PetscCall(KSPGKSetUpGeneral_Private(ksp));
  PetscFunctionReturn(0);
}

/* The iteration's norm from the device state */
static PetscReal KSPGKNorm_Private(KSP ksp, const GKKrylovState *S)
{
  if (ksp->normtype == KSP_NORM_NATURAL) return PetscSqrtReal(PetscSqrtReal(S->rho[0] * S->rho[0] + S->rho[1] * S->rho[1]));
  if (ksp->normtype == KSP_NORM_NONE) return 0.0;
  return PetscSqrtReal(S->norm2);
}

/* Records a norm as PETSc's Krylov methods do and tests it; false when it is Inf or NaN */
PetscErrorCode KSPGKTest_Private(KSP ksp, PetscInt its, PetscReal dp, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok      = PETSC_TRUE;
  ksp->its = its;
  if (PetscIsInfOrNanReal(dp)) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED,
               "KSPSolve has not converged due to Nan or Inf norm");
    ksp->reason = KSP_DIVERGED_NANORINF;
    *ok         = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  ksp->rnorm = dp;
  PetscCall(KSPLogResidualHistory(ksp, dp));
  PetscCall(KSPMonitor(ksp, its, dp));
  PetscCall((*ksp->converged)(ksp, its, dp, &ksp->reason, ksp->cnvP));
  PetscFunctionReturn(0);
}

/* z = diag .* r, or z~ = conj(diag) .* r~ (hermitian), or z = r without a preconditioner;
   Eisenstat's: the PC's scaling of the transformed system; the operator's null space (the
   constants) then removed from z, as PETSc's KSP_PCApply() does */
static PetscErrorCode KSPGKApplyPC_Private(KSP ksp, Vec r, Vec z, PetscBool hermitian)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  if (gk->eis) PetscCall(gk->eis->apply(ksp->pc, r, z));
  else if (!gk->diag) {
    if (z != r) PetscCall(VecCopy(r, z));
  } else if (!hermitian || !PetscDefined(USE_COMPLEX)) PetscCall(VecPointwiseMult(z, gk->diag, r));
  else {
    /* conj(d) r = conj(d conj(r)) */
    PetscCall(VecCopy(r, z));
    PetscCall(VecConjugate(z));
    PetscCall(VecPointwiseMult(z, gk->diag, z));
    PetscCall(VecConjugate(z));
  }
  if (gk->nullcnst) {
    Mat          A;
    MatNullSpace nsp;

    PetscCall(KSPGetOperators(ksp, &A, NULL));
    PetscCall(MatGetNullSpace(A, &nsp));
    PetscCall(MatNullSpaceRemove(nsp, z));
  }
  PetscFunctionReturn(0);
}

/*
   An operator whose values are kept in single precision too (MatGPUKitSetStorage()): the CG,
   COCG and BiCG steps read those (BiCG's A^H products too; on several processes both blocks'),
   half the bytes, and the solve still reaches the double-precision answer by residual
   replacement (van der Vorst and Ye, "Residual replacement strategies for Krylov subspace
   iterative methods for the convergence of true residuals", SISC 22, 2000; as "reliable updates"
   in mixed-precision lattice QCD solvers): the recursive residual of the single-precision
   products drifts from b - A x, so whenever its norm has fallen tenfold below the last true
   one, and whenever it would pass the convergence test, the next test replaces r by b - A x
   computed with the double values, x and the direction kept, and that norm is the one recorded
   and tested; so, too, when the recursion has not fallen tenfold in
   four times the iterations the first replacement took. The solve converges only on a true
   residual, and the last norm recorded is always one. A true residual that neither halves nor
   stays near the recursive one, three replacements running, is the single-precision values'
   limit (a condition number near 1/eps of single precision): the solve stops with
   KSP_DIVERGED_BREAKDOWN and says so, rather than iterate on. BiCG restarts (its shadow residual
   taken again from r) once a replaced residual is GK_REPLACE_LOST times the recursive one: kept,
   the shadow residual the recursion paired with the old r leads the next steps astray (an
   ill-conditioned operator diverged at its first replacement); and a recursive norm that
   diverges is replaced and tested too, so the norm reported is a true one either way. BiCG
   keeps the iterate of its smallest true residual: a replaced residual GK_REPLACE_LOST times that
   one (the recursion diverged with x, where the shadow residual went astray below that ratio)
   takes x back to it, and the method restarts from there.
*/
#define GK_REPLACE_DROP  0.1 /* the recursive norm's fall since the last true one that asks for a replacement */
#define GK_REPLACE_STALL 3   /* replacements running without progress that stop the solve */
#define GK_REPLACE_WAIT  4   /* iterations since the last replacement, in the first one's, that ask for one */
#define GK_REPLACE_LOST  4.0 /* BiCG: a true norm so many times the recursive one that asked restarts it (the recursion has lost it) */
typedef struct {
  const GKOperator  *op;         /* the double values' arrays (one process) */
  Mat                Ampi;       /* or the MPI matrix whose blocks hold them */
  PetscInt           n, N;       /* the local and global sizes */
  const PetscScalar *b, *d;      /* b; the Jacobi scaling or NULL */
  PetscScalar       *x, *r, *z;  /* z: where d .* r goes (the update recomputes it) */
  PetscBool          pending;    /* replace at the next test (its update was not queued) */
  PetscBool          waited;     /* that replacement asked for by the iterations since the last one */
  PetscReal          last, trig; /* the last true norm; the recursive norm that asked for the pending replacement */
  PetscInt           stalls;
  PetscInt           lastits, window; /* the last replacement's iteration; GK_REPLACE_WAIT times the first's (0 before it) */
  /* once the direction kept across replacements stalls, each replacement restarts the method from
     the true residual (iterative refinement, each phase a CG or BiCG on the single-precision
     operator; BiCG's shadow residual taken again from it): restart
     says so, restartnow that the loop ended for one, its0 the iterations before this phase */
  PetscBool restart, restartnow;
  PetscInt  its0;
  /* BiCG: the iterate of the smallest true residual so far, that norm, the returns to it since */
  PetscScalar *xbest;
  PetscReal    best;
  PetscInt     rollbacks;
} KSPGKReplace;

/* r = b - A x with the operator's double-precision values, whatever its storage: one process's
   operator op, or the MPI matrix A (collective) */
static PetscErrorCode KSPGKResidualDouble_Private(const GKOperator *op, Mat A, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  PetscFunctionBegin;
  if (A) PetscCall(MatMPIGKResidualDouble_Private(A, b, x, r));
  else PetscCall(GKOperatorResidualDouble_Private(op, b, x, r));
  PetscFunctionReturn(0);
}

/* y^H x (y^T x without conj) over the processes of the KSP where mpi */
static PetscErrorCode KSPGKDot_Private(KSP ksp, PetscBool mpi, PetscInt n, const PetscScalar *x, const PetscScalar *y, PetscBool conj, PetscScalar *d)
{
  const PetscScalar *ys[1] = {y};
  PetscScalar        loc;

  PetscFunctionBegin;
  PetscCall(GKDev->dots(n, x, 1, ys, conj, &loc));
  if (mpi) PetscCall(MPIU_Allreduce(&loc, d, 1, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  else *d = loc;
  PetscFunctionReturn(0);
}

/* r = b - A x in double precision, and its norm of the KSP's type (z = d .* r for the
   preconditioned and natural norms); counts the replacement and its progress */
static PetscErrorCode KSPGKReplace_Private(KSP ksp, KSPGKReplace *rep, PetscInt its, PetscReal *nrm)
{
  KSP_GK            *gk = (KSP_GK *)ksp->data;
  const PetscScalar *z  = rep->r;
  PetscReal          parts[3];

  PetscFunctionBegin;
  PetscCall(KSPGKResidualDouble_Private(rep->op, rep->Ampi, rep->b, rep->x, rep->r));
  if (rep->d && ksp->normtype != KSP_NORM_UNPRECONDITIONED) {
    PetscCall(GKDev->pointwise(rep->n, GK_POINTWISE_MULT, rep->z, rep->d, rep->r));
    z = rep->z;
  }
  if (ksp->normtype == KSP_NORM_NATURAL) {
    PetscScalar rho;

    PetscCall(KSPGKDot_Private(ksp, gk->mpi, rep->n, z, rep->r, gk->method == GK_KRYLOV_CG ? PETSC_TRUE : PETSC_FALSE, &rho));
    *nrm = PetscSqrtReal(PetscAbsScalar(rho));
  } else {
    PetscReal sq;

    PetscCall(GKDev->norms(rep->n, ksp->normtype == KSP_NORM_UNPRECONDITIONED ? rep->r : z, GK_NORM_SQ, parts));
    if (gk->mpi) PetscCall(MPIU_Allreduce(&parts[1], &sq, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
    else sq = parts[1];
    *nrm = PetscSqrtReal(sq);
  }
  /* no progress: the true norm has not halved, and is not near the recursive one that asked (or
     that one had not fallen tenfold either) */
  if (*nrm > 0.5 * rep->last && (*nrm > 2.0 * rep->trig || rep->waited)) rep->stalls++;
  else rep->stalls = 0;
  PetscCall(PetscInfo(ksp, "Residual replaced by b - A x in double precision: norm %g (the recursion's %g)\n", (double)*nrm, (double)rep->trig));
  if (rep->xbest && *nrm < rep->best) {
    PetscCall(GKMemcpyD2D(rep->xbest, rep->x, sizeof(PetscScalar) * (size_t)rep->n));
    rep->best      = *nrm;
    rep->rollbacks = 0;
  }
  rep->last    = *nrm;
  rep->pending = PETSC_FALSE;
  rep->waited  = PETSC_FALSE;
  rep->lastits = its;
  if (!rep->window) rep->window = GK_REPLACE_WAIT * its;
  gk->replaced++;
  PetscFunctionReturn(0);
}

/* Whether this solve's steps read the operator's single-precision values, with the residual
   replacement (KSPGKReplace): CG, COCG and BiCG, the operator stored so, a norm to test, no
   Eisenstat and no constants removed; elsewhere the fused kernels read its double values */
static PetscErrorCode KSPGKSingle_Private(KSP ksp, PetscBool *single)
{
  KSP_GK            *gk = (KSP_GK *)ksp->data;
  PetscGPUKitStorage st;

  PetscFunctionBegin;
  *single = PETSC_FALSE;
  if (gk->eis || gk->nullcnst || ksp->normtype == KSP_NORM_NONE) PetscFunctionReturn(0);
  PetscCall(MatGPUKitGetStorage(gk->Adev, &st));
  *single = st == PETSCGPUKIT_STORAGE_SINGLE ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* For a solve on the operator's single-precision values: the Jacobi scaling (gk->diag) rounded
   to single precision, kept so in gk->sdiag for the updates, which read it there (the
   preconditioner's data stored as its matrix is), and in gk->diag itself for the start and the
   replacements, so that every z of the solve is the same fixed diagonal's (CG and BiCG iterate
   with one preconditioner, the one rounded). Where some entry is beyond single precision's
   range, the PC's double scaling is taken again and read in double. sdiag goes with diag (a
   new row layout destroys both), so it has diag's length. */
static PetscErrorCode KSPGKSingleDiag_Private(KSP ksp)
{
  KSP_GK      *gk = (KSP_GK *)ksp->data;
  PetscScalar *d;
  PetscInt     n;
  PetscBool    ok;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(gk->diag, &n));
  if (!gk->sdiag) PetscCall(GKDev->malloc(GK_SINGLE_SIZE * (size_t)n, &gk->sdiag));
  PetscCall(VecGPUKitGetDeviceArray(gk->diag, &d));
  PetscCall(GKDev->demote((size_t)n, d, gk->sdiag, d, &ok));
  PetscCall(VecGPUKitRestoreDeviceArray(gk->diag, &d));
  if (!ok) {
    PetscCall(PetscInfo(ksp, "The Jacobi scaling has entries beyond single precision's range: read in double precision\n"));
    PetscCall(KSPGKSetUpPC_Private(ksp));
  }
  gk->sjacobi = ok;
  PetscFunctionReturn(0);
}

/* The start, as KSPCG/KSPBICG: r = b - A x, z = B r (r~ = r, z~ = B^H r~), the first norm and
   its test, rho_0. Returns with ksp->reason set if the iterations need not run. */
static PetscErrorCode KSPGKStart_Private(KSP ksp, Vec X, Vec Bv, PetscScalar *rho0)
{
  KSP_GK    *gk = (KSP_GK *)ksp->data;
  KSPGKWork *w  = &gk->work;
  Vec        R = w->r, Z = R, RT = NULL, ZT = NULL;
  PetscReal  dp = 0.0;
  PetscBool  ok;

  PetscFunctionBegin;
  if (KSPGKHasZ_Private(gk)) {
    PetscCall(KSPGKWork_Private(gk, &w->z));
    Z = w->z;
  }
  if (gk->method == GK_KRYLOV_BICG) {
    PetscCall(KSPGKWork_Private(gk, &w->rt));
    RT = ZT = w->rt;
    if (gk->diag) {
      PetscCall(KSPGKWork_Private(gk, &w->zt));
      ZT = w->zt;
    }
  }
  if (!ksp->guess_zero && gk->single) { /* r <- b - A x with the double values */
    GKOperator         op;
    const PetscScalar *b, *x;
    PetscScalar       *r;

    if (!gk->mpi) PetscCall(MatSeqGKGetOperator(gk->Adev, PETSC_FALSE, &op));
    PetscCall(VecGPUKitGetDeviceArrayRead(Bv, &b));
    PetscCall(VecGPUKitGetDeviceArrayRead(X, &x));
    PetscCall(VecGPUKitGetDeviceArrayWrite(R, &r));
    PetscCall(KSPGKResidualDouble_Private(&op, gk->mpi ? gk->Adev : NULL, b, x, r));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(R, &r));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(X, &x));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(Bv, &b));
  } else if (!ksp->guess_zero) {
    PetscCall(MatMult(gk->Adev, X, R)); /* r <- b - A x */
    PetscCall(VecAYPX(R, -1.0, Bv));
  } else PetscCall(VecGKCopy_Private(Bv, R));                             /* r <- b (b may be PETSc's own VECCUDA) */
  if (gk->eis) PetscCall(gk->eis->begin(ksp->pc, R, X, ksp->guess_zero)); /* Eisenstat: r^ = (D/w + L)^-1 r, x^ = (D/w + U) x */
  PetscCall(KSPGKApplyPC_Private(ksp, R, Z, PETSC_FALSE));                /* z <- B r */
  if (gk->method == GK_KRYLOV_BICG) {
    PetscCall(VecCopy(R, RT));                                /* r~ <- r */
    PetscCall(KSPGKApplyPC_Private(ksp, RT, ZT, PETSC_TRUE)); /* z~ <- B^H r~ */
  }
  if (gk->method == GK_KRYLOV_BICG) PetscCall(VecDot(Z, RT, rho0));      /* rho <- r~^H z */
  else if (gk->method == GK_KRYLOV_COCG) PetscCall(VecTDot(Z, R, rho0)); /* rho <- r^T z */
  else PetscCall(VecDot(Z, R, rho0));                                    /* rho <- r^H z */
  switch (ksp->normtype) {
  case KSP_NORM_PRECONDITIONED:
    PetscCall(VecNorm(Z, NORM_2, &dp));
    break;
  case KSP_NORM_UNPRECONDITIONED:
    PetscCall(VecNorm(R, NORM_2, &dp));
    break;
  case KSP_NORM_NATURAL:
    dp = PetscSqrtReal(PetscAbsScalar(*rho0));
    break;
  default:
    dp = 0.0;
  }
  PetscCall(KSPGKTest_Private(ksp, 0, dp, &ok));
  if (!ok || ksp->reason) PetscFunctionReturn(0);
  if (PetscIsInfOrNanScalar(*rho0)) {
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED,
               "KSPSolve has not converged due to Nan or Inf inner product");
    ksp->reason = KSP_DIVERGED_NANORINF;
  } else if (*rho0 == (PetscScalar)0.0) { /* as KSPCG ("converged due to beta = 0", its 1) and KSPBICG */
    if (gk->method == GK_KRYLOV_BICG) ksp->reason = KSP_DIVERGED_BREAKDOWN_BICG;
    else {
      ksp->its    = 1;
      ksp->reason = KSP_CONVERGED_ATOL;
    }
  }
  PetscFunctionReturn(0);
}

/* Tests the state the last step left (its = that step's iteration); done when the solve ends.
   rep: the residual replacement of single-precision values, else NULL. */
static PetscErrorCode KSPGKCheck_Private(KSP ksp, GKKrylov K, PetscInt its, PetscBool last, KSPGKReplace *rep, PetscBool *done)
{
  const PetscBool bicg = ((KSP_GK *)ksp->data)->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE;
  GKKrylovState   S;
  PetscBool       ok;

  PetscFunctionBegin;
  *done = PETSC_TRUE;
  PetscCall(GKDev->krylovstateend(K, &S));
  PetscCheck(S.flag != GK_KRYLOV_PEER_TIMEOUT, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "KSP %s waited a minute on this process's GPU for the sums of process %" PetscInt_FMT
             ", which never came: is that process still in KSPSolve? -ksp_%s_device_sums 0 sums through MPI instead",
             ((PetscObject)ksp)->type_name, -1 - S.flagit, ((PetscObject)ksp)->type_name);
  if (rep) S.flagit += rep->its0;                                           /* the phase's iterations counted from the solve's start */
  if (S.flag == GK_KRYLOV_INDEFINITE_MAT || S.flag == GK_KRYLOV_ZERO_DPI) { /* in the update of iteration flagit: x kept */
    PetscCheck(!ksp->errorifnotconverged || S.flag != GK_KRYLOV_INDEFINITE_MAT, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED,
               "Diverged due to an indefinite matrix: p^H A p is 0 or changed sign in iteration %" PetscInt_FMT, S.flagit + 1);
    ksp->its    = S.flagit + 1;
    ksp->reason = S.flag == GK_KRYLOV_INDEFINITE_MAT ? KSP_DIVERGED_INDEFINITE_MAT : KSP_DIVERGED_BREAKDOWN;
    PetscFunctionReturn(0);
  }
  if (S.flag) { /* rho of iteration flagit: the norm before it is still tested */
    PetscCall(KSPGKTest_Private(ksp, S.flagit, KSPGKNorm_Private(ksp, &S), &ok));
    if (ok && !ksp->reason) {
      if (S.flag == GK_KRYLOV_INDEFINITE_PC) { /* KSPCG: in the next iteration */
        ksp->its    = S.flagit + 1;
        ksp->reason = KSP_DIVERGED_INDEFINITE_PC;
      } else if (bicg) ksp->reason = KSP_DIVERGED_BREAKDOWN; /* KSPBICG goes on, into a NaN */
      else {
        /* KSPCG: "converged due to beta = 0", in the next iteration */
        ksp->its    = S.flagit + 1;
        ksp->reason = KSP_CONVERGED_ATOL;
      }
    }
    PetscFunctionReturn(0);
  }
  {
    PetscReal       nrm      = KSPGKNorm_Private(ksp, &S);
    const PetscBool replaced = rep && (rep->pending || last) ? PETSC_TRUE : PETSC_FALSE;

    if (replaced) {
      if (!rep->pending) rep->trig = nrm;
      PetscCall(KSPGKReplace_Private(ksp, rep, its, &nrm));
      if (rep->xbest && !last && nrm > GK_REPLACE_LOST * rep->best) {
        /* BiCG diverged from its best iterate: x taken back to it, its residual replaced again,
           and the method restarted from there (below), each phase from then on; returns with no
           better iterate between them count as stalls */
        PetscCall(PetscInfo(ksp, "The true residual %g is %g times the smallest one: BiCG taken back to that iterate and restarted from it\n",
                            (double)nrm, (double)(nrm / rep->best)));
        PetscCall(GKMemcpyD2D(rep->x, rep->xbest, sizeof(PetscScalar) * (size_t)rep->n));
        rep->trig = nrm;
        PetscCall(KSPGKReplace_Private(ksp, rep, its, &nrm));
        rep->stalls  = ++rep->rollbacks;
        rep->restart = PETSC_TRUE;
        rep->window  = PetscMax(rep->window, rep->N);
      }
    }
    PetscCall(KSPGKTest_Private(ksp, its, nrm, &ok));
    if (!ok) PetscFunctionReturn(0);
    if (rep && !replaced &&
        (ksp->reason > 0 || ksp->reason == KSP_DIVERGED_DTOL)) { /* the recursive norm passed, or diverged: the true one is tested next */
      ksp->reason  = KSP_CONVERGED_ITERATING;
      rep->pending = PETSC_TRUE;
      rep->trig    = nrm;
    }
    if (ksp->reason) PetscFunctionReturn(0);
    if (rep && replaced && rep->stalls >= GK_REPLACE_STALL && !rep->restart && !last) {
      PetscCall(PetscInfo(ksp, "The true residual stalls at %g with the direction kept: %s restarted from each true residual from now on\n",
                          (double)nrm, bicg ? "BiCG" : "CG"));
      rep->restart = PETSC_TRUE;
      rep->stalls  = 0;
      rep->window  = PetscMax(rep->window, rep->N); /* a phase may take CG's n steps to fall tenfold */
    }
    if (rep && replaced && rep->stalls >= GK_REPLACE_STALL) {
      /* BiCG's returns to its best iterate: its divergence, which double values may show as
         well (BiCG has no minimization property), so the message says both causes */
      PetscCheck(!ksp->errorifnotconverged || rep->rollbacks, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED,
                 "KSPSolve has not converged: with the operator's values in single precision the true residual stalls at %g (the matrix's "
                 "condition number is beyond single precision); store them in double: -mat_gpukit_storage double or MatGPUKitSetStorage()",
                 (double)nrm);
      PetscCheck(!ksp->errorifnotconverged || !rep->rollbacks, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED,
                 "KSPSolve has not converged: with the operator's values in single precision BiCG diverged from its best iterate (true residual "
                 "%g) %" PetscInt_FMT " times running: BiCG may diverge on this matrix with its double values as well, or the matrix's "
                 "condition number is beyond single precision; a solve with them stored in double tells which (-mat_gpukit_storage double or "
                 "MatGPUKitSetStorage())",
                 (double)rep->best, rep->rollbacks);
      PetscCall(PetscInfo(ksp, "The true residual stalls at %g with the operator's single-precision values%s: diverged (breakdown)\n", (double)nrm,
                          rep->rollbacks ? " (BiCG diverging from its best iterate)" : ""));
      ksp->reason = KSP_DIVERGED_BREAKDOWN;
      PetscFunctionReturn(0);
    }
    if (rep && replaced && !rep->restart && !last && bicg && nrm > GK_REPLACE_LOST * rep->trig) {
      /* BiCG whose recursion has lost the true residual: the replaced r no longer matches the
         shadow residual it is paired with, and kept, the next steps diverge (an ill-conditioned
         operator); restarted from here on, each phase from r~ = r */
      PetscCall(PetscInfo(ksp, "The true residual %g is %g times the recursion's: BiCG restarted from each true residual from now on\n", (double)nrm,
                          (double)(nrm / rep->trig)));
      rep->restart = PETSC_TRUE;
      rep->stalls  = 0;
      rep->window  = PetscMax(rep->window, rep->N);
    }
    if (rep && replaced && rep->restart && !last) { /* the loop ends; KSPGKIterate_Private starts the next phase */
      rep->restartnow = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
    if (rep && !replaced && !rep->pending) {
      const PetscBool dropped = nrm <= GK_REPLACE_DROP * rep->last ? PETSC_TRUE : PETSC_FALSE;

      if (dropped || (rep->window && its - rep->lastits >= rep->window)) {
        rep->pending = PETSC_TRUE;
        rep->waited  = dropped ? PETSC_FALSE : PETSC_TRUE;
        rep->trig    = nrm;
      }
    }
  }
  if (last) {
    ksp->reason = KSP_DIVERGED_ITS;
    PetscFunctionReturn(0);
  }
  *done = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Step i of one process: the fused kernel, or the PC's Eisenstat step */
static PetscErrorCode KSPGKStep_Private(KSP ksp, GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *op,
                                        const GKKrylovVecs *v)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  if (gk->eis) PetscCall(gk->eis->step(ksp->pc, K, i, rho0, last, v));
  else PetscCall(GKDev->krylovstep(K, i, rho0, last, op, v));
  PetscFunctionReturn(0);
}

/* The update i: r -= a w, z = B r */
static PetscErrorCode KSPGKUpdate_Private(KSP ksp, GKKrylov K, PetscInt i, const GKKrylovVecs *v)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  if (gk->eis) PetscCall(gk->eis->update(ksp->pc, K, i, v));
  else PetscCall(GKDev->krylovupdate(K, i, v));
  PetscFunctionReturn(0);
}

/* One process: two fused kernels an iteration (device.h), the state read every `every`
   iterations. While the host waits for the state it has already queued the next update, which
   moves neither x nor the state the test reads: the device keeps working through the wait, and
   a solve that stops there loses nothing but that kernel's work. */
static PetscErrorCode KSPGKLoop_Private(KSP ksp, GKKrylov K, const GKOperator *op, const GKKrylovVecs *v, PetscScalar rho0, PetscInt every,
                                        PetscLogDouble flops, KSPGKReplace *rep)
{
  PetscBool      queued = PETSC_FALSE, done;
  const PetscInt its0   = rep ? rep->its0 : 0; /* a restarted phase's steps count on from the iterations before it */

  PetscFunctionBegin;
  PetscCall(KSPGKStep_Private(ksp, K, 0, rho0, PETSC_FALSE, op, v)); /* p_0 = z, w = A p_0 */
  for (PetscInt i = 0;; i++) {
    const PetscInt  its  = its0 + i + 1;
    const PetscBool last = its >= ksp->max_it ? PETSC_TRUE : PETSC_FALSE;

    if (!queued) PetscCall(KSPGKUpdate_Private(ksp, K, i, v)); /* r -= a w, z = B r */
    queued = PETSC_FALSE;
    /* x += a p_i, p_i+1 = z + b p_i, w = A p_i+1 */
    PetscCall(KSPGKStep_Private(ksp, K, i + 1, 0.0, last, op, v));
    PetscCall(PetscLogFlops(flops));
    if (its % every && !last && !(rep && rep->pending)) continue;
    PetscCall(GKDev->krylovstatebegin(K));
    if (!last && !(rep && rep->pending)) { /* the next update, queued before the wait (not before a replacement of the r it reads) */
      PetscCall(KSPGKUpdate_Private(ksp, K, i + 1, v));
      queued = PETSC_TRUE;
    }
    PetscCall(KSPGKCheck_Private(ksp, K, its, last, rep, &done));
    if (done) break;
  }
  PetscFunctionReturn(0);
}

/* After a step on the diagonal block of an MPI matrix: the direction's ghosts (gathered before
   the step and sent while it runs) received, the off-diagonal block's part of w and dpi added
   (BiCG: w~'s part too, through the reverse exchange), and dpi summed over the processes (kept
   on the GPUs: the kernels did it) */
static PetscErrorCode KSPGKOffDiag_Private(KSP ksp, GKKrylov K, PetscBool single, PetscScalar *p, PetscScalar *w, PetscScalar *pt, PetscScalar *wt,
                                           PetscScalar glob[3])
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  PetscScalar loc[GK_KRYLOV_SUMS], dpi;
  PetscBool   added;

  PetscFunctionBegin;
  if (!gk->halonow) PetscCall(MatMPIGKKrylovSend_Private(gk->Adev, K));
  PetscCall(
    MatMPIGKKrylovOffDiag_Private(gk->Adev, K, gk->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE, gk->halonow, single, p, w, pt, wt, &added));
  if (gk->peersnow) PetscFunctionReturn(0);
  PetscCall(GKDev->krylovgetsums(K, loc));
  dpi = added ? loc[0] + loc[3] : loc[0];
  PetscCall(MPIU_Allreduce(&dpi, &glob[0], 1, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
  PetscCall(GKDev->krylovsetsums(K, glob));
  PetscFunctionReturn(0);
}

/* Several processes: the step runs on the diagonal block while the direction's ghosts travel,
   the off-diagonal block's part follows, and the processes' sums are added up in one
   allreduce at each of the method's two synchronisation points (dpi after the products; the
   norm and rho after the update), which the kernels then use in place of their own; or, kept on
   the GPUs, by the kernels themselves, the host waiting only for the ghosts it sends. Every
   process takes the same decisions from the same sums (the residual replacement's too: its
   norms are summed over the processes). */
static PetscErrorCode KSPGKLoopMPI_Private(KSP ksp, GKKrylov K, const GKKrylovVecs *v, PetscScalar rho0, PetscInt every, PetscLogDouble flops,
                                           KSPGKReplace *rep)
{
  KSP_GK        *gk   = (KSP_GK *)ksp->data;
  const PetscInt its0 = rep ? rep->its0 : 0;
  GKOperator     Ad;
  PetscScalar    glob[3] = {0.0, 0.0, 0.0}, loc[GK_KRYLOV_SUMS], nr[2];
  PetscBool      done, offdiag, single, queued = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatMPIGKGetKrylovOperator_Private(gk->Adev, gk->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE, &Ad, &offdiag));
  Ad.single = gk->single;
  single    = GKOperatorSingle(&Ad, gk->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE); /* the off-diagonal block read alike */
  /* the sums kept on the GPUs: BiCG's reverse exchange waits on the host anyway */
  if (gk->devsums && gk->method != GK_KRYLOV_BICG) PetscCall(MatGKTransportPeers_Private(&gk->transport, (PetscObject)ksp));
  /* the mailboxes, made by an earlier solve, serve this one only as CG or COCG and while asked */
  gk->peersnow = gk->transport.peers && gk->devsums && gk->method != GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE;
  gk->halonow  = PETSC_FALSE;
  if (gk->peersnow) {
    PetscCall(
      MatMPIGKTransportHalo_Private(&gk->transport, gk->Adev, gk->devhalo, (PetscObject)ksp, &gk->halonow)); /* the ghosts too, sent by the gathers */
    PetscCall(GKDev->krylovsetpeers(K, gk->transport.peers, ++gk->transport.solves, offdiag ? PETSC_FALSE : PETSC_TRUE));
  }
  PetscCall(MatMPIGKKrylovGather_Private(gk->Adev, K, gk->halonow, 0, v->z, NULL));
  PetscCall(GKDev->krylovstep(K, 0, rho0, PETSC_FALSE, &Ad, v));
  PetscCall(KSPGKOffDiag_Private(ksp, K, single, v->p[0], v->w, v->pt[0], v->wt, glob));
  for (PetscInt i = 0;; i++) {
    const PetscInt  its  = i + 1; /* the phase's step: a restarted phase's iterations count on from its0 */
    const PetscBool last = its0 + its >= ksp->max_it ? PETSC_TRUE : PETSC_FALSE;

    if (!queued) PetscCall(GKDev->krylovupdate(K, i, v));
    queued = PETSC_FALSE;
    if (!gk->peersnow) {
      PetscCall(GKDev->krylovgetsums(K, loc));
      PetscCall(MPIU_Allreduce(&loc[1], nr, 2, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)ksp)));
      glob[1] = nr[0];
      glob[2] = nr[1];
      PetscCall(GKDev->krylovsetsums(K, glob));
    }
    if (!last) PetscCall(MatMPIGKKrylovGather_Private(gk->Adev, K, gk->halonow, its, v->z, v->p[i % 2]));
    PetscCall(GKDev->krylovstep(K, its, 0.0, last, &Ad, v)); /* p_its in p[its % 2], p_i in the other */
    PetscCall(PetscLogFlops(flops));
    if (!last) PetscCall(KSPGKOffDiag_Private(ksp, K, single, v->p[its % 2], v->w, v->pt[its % 2], v->wt, glob));
    if ((its0 + its) % every && !last && !(rep && rep->pending)) continue;
    PetscCall(GKDev->krylovstatebegin(K));
    /* as on one process: the next update queued before the wait (it needs no sum from the host),
       but not before a replacement of the r it reads */
    if (gk->peersnow && !last && !(rep && rep->pending)) {
      PetscCall(GKDev->krylovupdate(K, its, v));
      queued = PETSC_TRUE;
    }
    PetscCall(KSPGKCheck_Private(ksp, K, its0 + its, last, rep, &done));
    if (done) break;
  }
  PetscFunctionReturn(0);
}

/* The next phase of a solve restarted at a replacement (KSPGKReplace's restart): r is b - A x in
   double precision, z = B r and rho = r^H z (r^T z for COCG; BiCG: r~ = r, z~ = B^H r~, rho =
   r~^H z) made from it, and the method runs again from p = z (p~ = z~) with a new state, its
   iterations counted on */
static PetscErrorCode KSPGKRestart_Private(KSP ksp, GKKrylov *K, const GKOperator *op, const GKKrylovVecs *v, KSPGKReplace *rep, PetscInt every,
                                           PetscLogDouble flops, GKKrylovNorm norm)
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  PetscScalar rho;

  PetscFunctionBegin;
  rep->restartnow = PETSC_FALSE;
  rep->its0       = ksp->its;
  gk->restarts++;
  if (v->d) PetscCall(GKDev->pointwise(rep->n, GK_POINTWISE_MULT, v->z, v->d, v->r));
  if (gk->method == GK_KRYLOV_BICG) { /* as the start: r~ = r, z~ = B^H r~ = conj(d conj(r~)), rho = r~^H z */
    PetscCall(GKMemcpyD2D(v->rt, v->r, sizeof(PetscScalar) * (size_t)rep->n));
    if (v->d) {
      PetscCall(GKMemcpyD2D(v->zt, v->rt, sizeof(PetscScalar) * (size_t)rep->n));
      if (PetscDefined(USE_COMPLEX)) PetscCall(GKDev->conjugate(rep->n, v->zt));
      PetscCall(GKDev->pointwise(rep->n, GK_POINTWISE_MULT, v->zt, v->d, v->zt));
      if (PetscDefined(USE_COMPLEX)) PetscCall(GKDev->conjugate(rep->n, v->zt));
    }
    PetscCall(KSPGKDot_Private(ksp, gk->mpi, rep->n, v->z, v->rt, PETSC_TRUE, &rho));
  } else PetscCall(KSPGKDot_Private(ksp, gk->mpi, rep->n, v->z, v->r, gk->method == GK_KRYLOV_CG ? PETSC_TRUE : PETSC_FALSE, &rho));
  PetscCall(GKDev->krylovdestroy(K));
  PetscCall(GKDev->krylovcreate(rep->n, gk->method, norm, gk->nullcnst, K));
  if (gk->mpi) PetscCall(KSPGKLoopMPI_Private(ksp, *K, v, rho, every, flops, rep));
  else PetscCall(KSPGKLoop_Private(ksp, *K, op, v, rho, every, flops, rep));
  PetscFunctionReturn(0);
}

/* The iterations, on the device arrays of the solve's vectors; the state is read every
   checkevery iterations (every iteration when monitors or a residual history want each norm) */
static PetscErrorCode KSPGKIterate_Private(KSP ksp, Vec X, Vec Bv, PetscScalar rho0)
{
  KSP_GK            *gk    = (KSP_GK *)ksp->data;
  const PetscBool    bicg  = gk->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt     every = (ksp->numbermonitors || ksp->res_hist) ? 1 : gk->checkevery;
  const GKKrylovNorm norm  = ksp->normtype == KSP_NORM_PRECONDITIONED   ? GK_KRYLOV_NORM_Z
                           : ksp->normtype == KSP_NORM_UNPRECONDITIONED ? GK_KRYLOV_NORM_R
                                                                        : GK_KRYLOV_NORM_NONE;
  GKKrylov           K;
  GKOperator         op;
  KSPGKWork         *wk = &gk->work;
  Vec               *need[10];
  PetscScalar      **to[10];
  PetscInt           nn = 0;
  GKKrylovVecs       v;
  KSPGKReplace       rep;
  const PetscScalar *b = NULL;
  PetscErrorCode     ierr;
  PetscInt           n;
  MatInfo            info;
  PetscLogDouble     flops;

  PetscFunctionBegin;
  if (ksp->max_it < 1) {
    ksp->reason = KSP_DIVERGED_ITS;
    PetscFunctionReturn(0);
  }
  if (!gk->mpi) {
    PetscCall(MatSeqGKGetOperator(gk->Adev, bicg, &op));
    op.single = gk->single;
  }
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(PetscMemzero(&v, sizeof(v)));
  /* the work vectors this solve uses, each with its place in v: z where a preconditioner is
     applied (and stored: Eisenstat's permuted step computes it from r), the shadow system's for
     BiCG, t for Eisenstat's */
#define GK_NEED(V, A) (need[nn] = &(V), to[nn++] = &(A))
  GK_NEED(wk->r, v.r);
  GK_NEED(wk->w, v.w);
  GK_NEED(wk->p[0], v.p[0]);
  GK_NEED(wk->p[1], v.p[1]);
  if (KSPGKHasZ_Private(gk) && !(gk->eis && gk->eis->permuted)) GK_NEED(wk->z, v.z);
  if (gk->eis) GK_NEED(wk->t, v.t);
  if (bicg) {
    GK_NEED(wk->rt, v.rt);
    GK_NEED(wk->wt, v.wt);
    GK_NEED(wk->pt[0], v.pt[0]);
    GK_NEED(wk->pt[1], v.pt[1]);
    if (gk->diag) GK_NEED(wk->zt, v.zt);
  }
#undef GK_NEED
  for (PetscInt k = 0; k < nn; k++) {
    PetscCall(KSPGKWork_Private(gk, need[k]));
    PetscCall(VecGPUKitGetDeviceArray(*need[k], to[k]));
  }
  PetscCall(VecGPUKitGetDeviceArray(X, &v.x));
  if (gk->diag) PetscCall(VecGPUKitGetDeviceArrayRead(gk->diag, &v.d));
  if (gk->sjacobi) v.sd = gk->sdiag;
  if (!KSPGKHasZ_Private(gk)) v.z = v.r; /* without a preconditioner z is r */
  if (bicg && !gk->diag) v.zt = v.rt;
  PetscCall(MatGetInfo(gk->Adev, MAT_LOCAL, &info));
  /* an iteration's floating point work: the product(s), 3 dots, 3 (BiCG 5) updates, the PC */
  flops = (bicg ? 2.0 : 1.0) * 2.0 * info.nz_used + (bicg ? 22.0 : 14.0) * n;
  PetscCall(PetscMemzero(&rep, sizeof(rep)));
  if (gk->single) {
    PetscCall(VecGPUKitGetDeviceArrayRead(Bv, &b));
    rep.op   = &op;
    rep.Ampi = gk->mpi ? gk->Adev : NULL;
    rep.n    = n;
    rep.N    = X->map->N;
    rep.b    = b;
    rep.d    = v.d;
    rep.x    = v.x;
    rep.r    = v.r;
    rep.z    = v.z;
    rep.last = ksp->rnorm; /* r_0's, in double (KSPGKStart_Private) */
    if (bicg) {            /* x_0 the best so far */
      PetscCall(KSPGKWork_Private(gk, &wk->xbest));
      PetscCall(VecGPUKitGetDeviceArrayWrite(wk->xbest, &rep.xbest));
      PetscCall(GKMemcpyD2D(rep.xbest, v.x, sizeof(PetscScalar) * (size_t)n));
      rep.best = ksp->rnorm;
    }
  }
  PetscCall(GKDev->krylovcreate(n, gk->method, norm, gk->nullcnst, &K));
  /* the work space freed and the arrays given back also after an error in the loop (one of
     KSPSetErrorIfNotConverged()'s), which is then passed on */
  if (gk->mpi) ierr = KSPGKLoopMPI_Private(ksp, K, &v, rho0, every, flops, gk->single ? &rep : NULL);
  else ierr = KSPGKLoop_Private(ksp, K, &op, &v, rho0, every, flops, gk->single ? &rep : NULL);
  while (!ierr && gk->single && rep.restartnow && !ksp->reason) ierr = KSPGKRestart_Private(ksp, &K, &op, &v, &rep, every, flops, norm);
  PetscCall(GKDev->krylovdestroy(&K));
  if (b) PetscCall(VecGPUKitRestoreDeviceArrayRead(Bv, &b));
  if (rep.xbest) PetscCall(VecGPUKitRestoreDeviceArrayWrite(wk->xbest, &rep.xbest));
  PetscCall(VecGPUKitRestoreDeviceArray(X, &v.x));
  for (PetscInt k = 0; k < nn; k++) PetscCall(VecGPUKitRestoreDeviceArray(*need[k], to[k]));
  if (v.d) PetscCall(VecGPUKitRestoreDeviceArrayRead(gk->diag, &v.d));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSolve_GK(KSP ksp)
{
  KSP_GK     *gk = (KSP_GK *)ksp->data;
  Vec         X = ksp->vec_sol, Bv = ksp->vec_rhs;
  PetscScalar rho0 = 0.0;
  PetscBool   diagonalscale, iscg;
  char        msg[256] = "";

  PetscFunctionBegin;
  PetscCall(GKPCGetDiagonalScale(ksp->pc, &diagonalscale));
  PetscCheck(!diagonalscale, PetscObjectComm((PetscObject)ksp), PETSC_ERR_SUP, "Krylov method %s does not support diagonal scaling",
             ((PetscObject)ksp)->type_name);
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPCGGPU, &iscg));
  gk->method = iscg ? GK_KRYLOV_CG : (gk->cocg ? GK_KRYLOV_COCG : GK_KRYLOV_BICG);
  PetscCall(KSPSetUp_GK(ksp)); /* a changed operator is converted again, a changed diagonal taken again */
  gk->single   = PETSC_FALSE;
  gk->sjacobi  = PETSC_FALSE;
  gk->replaced = 0;
  gk->restarts = 0;
  if (!gk->general) PetscCall(KSPGKSingle_Private(ksp, &gk->single));
  if (gk->single && gk->diag) PetscCall(KSPGKSingleDiag_Private(ksp));
  /* b in and x in and out once per solve, when they are not device vectors */
  if (!VecIsGK(Bv)) {
    if (!gk->B) PetscCall(VecDuplicate(gk->work.r, &gk->B));
    PetscCall(VecCopy(Bv, gk->B));
    Bv = gk->B;
  }
  if (!VecIsGK(X)) {
    if (!gk->X) PetscCall(VecDuplicate(gk->work.r, &gk->X));
    if (!ksp->guess_zero) PetscCall(VecCopy(X, gk->X));
    else PetscCall(VecSet(gk->X, 0.0));
    X = gk->X;
  } else if (ksp->guess_zero) PetscCall(VecSet(X, 0.0));
  ksp->its    = 0;
  ksp->reason = KSP_CONVERGED_ITERATING;
  if (gk->eis) PetscCall(gk->eis->failure(ksp->pc, msg, sizeof(msg)));
  if (msg[0]) { /* the PC failed at setup: x as PETSc's KSPs leave it */
    ksp->reason = KSP_DIVERGED_PC_FAILED;
    PetscCheck(!ksp->errorifnotconverged, PetscObjectComm((PetscObject)ksp), PETSC_ERR_NOT_CONVERGED, "KSPSolve has not converged: %s", msg);
    if (X != ksp->vec_sol) PetscCall(VecCopy(X, ksp->vec_sol));
    if (GK_KSP_FLAGS_SOLUTION_ON_PC_FAILURE) PetscCall(VecFlag(ksp->vec_sol, 1));
    PetscFunctionReturn(0);
  }
  if (gk->general) {
    PetscCall(KSPGKSolveGeneral_Private(ksp, Bv, X));
    if (X != ksp->vec_sol) PetscCall(VecCopy(X, ksp->vec_sol));
    PetscFunctionReturn(0);
  }
  PetscCall(KSPGKStart_Private(ksp, X, Bv, &rho0));
  if (!ksp->reason) PetscCall(KSPGKIterate_Private(ksp, X, Bv, rho0));
  if (gk->eis) PetscCall(gk->eis->end(ksp->pc, X)); /* Eisenstat: x = (D/w + U)^-1 x^ */
  if (X != ksp->vec_sol) PetscCall(VecCopy(X, ksp->vec_sol));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPView_GK(KSP ksp, PetscViewer viewer)
{
  KSP_GK   *gk = (KSP_GK *)ksp->data;
  PetscBool iascii, iscg;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPCGGPU, &iscg));
  if (gk->general) {
    const char *why[] = {"", "the PC is applied by PETSc, not fused (the fused kernels apply jacobi, none, and ssorgpu for cggpu on one process)",
                         "the operator has no entries the fused kernels can read (a shell), and PETSc multiplies by it",
                         "it estimates the extreme singular values",
                         "it removes the operator's null space (the fused kernels remove the constants, for CG on one process)"};

    PetscCall(PetscViewerASCIIPrintf(viewer, "  PETSc's %s%s on the device %s: %s\n", iscg || gk->cocg ? KSPCG : KSPBICG,
                                     gk->cocg ? " (symmetric, COCG)" : "", gk->general == GK_GENERAL_OPERATOR ? "vectors" : "matrix and vectors",
                                     why[gk->general]));
    PetscFunctionReturn(0);
  }
  if (iscg) PetscCall(PetscViewerASCIIPrintf(viewer, "  fused device CG (Michels, Algorithm 5): 2 kernels an iteration\n"));
  else if (gk->cocg)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  fused device COCG (unconjugated BiCG for complex symmetric matrices): 2 kernels an iteration\n"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  fused device BiCG (Jost et al., 3.1; A^H as De Donno et al.): 2 kernels an iteration\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "  convergence tested every %" PetscInt_FMT " iteration%s (one wait for the device each), on the %s backend\n",
                                   gk->checkevery, gk->checkevery > 1 ? "s" : "", GKDev ? GKDev->name : "(not yet chosen)"));
  if (gk->mpi) {
    if (gk->peersnow) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "  sums over the processes kept on their GPUs (CUDA IPC mailboxes)\n"));
      if (gk->halonow) PetscCall(PetscViewerASCIIPrintf(viewer, "  the direction's ghosts sent GPU to GPU (CUDA IPC), no MPI an iteration\n"));
      else
        PetscCall(PetscViewerASCIIPrintf(viewer, "  the direction's ghosts through MPI on the host%s\n",
                                         gk->devhalo ? " (-info says why not GPU to GPU)" : ""));
    } else
      PetscCall(
        PetscViewerASCIIPrintf(viewer, "  sums over the processes through MPI_Allreduce on the host%s\n",
                               gk->devsums && gk->method != GK_KRYLOV_BICG ? (gk->transport.tried ? " (-info says why not on the GPUs)" : "") : ""));
  }
  if (gk->Aconv) PetscCall(PetscViewerASCIIPrintf(viewer, "  the operator is converted to %s for the device\n", ((PetscObject)gk->Aconv)->type_name));
  if (gk->single)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  the operator's products read its values in single precision%s; the residual replaced by b - A x in double "
                                     "precision %" PetscInt_FMT " time%s in the last solve (%s restarted from it %" PetscInt_FMT
                                     " of them: iterative refinement), whose norms the convergence tests took\n",
                                     gk->sjacobi ? ", the updates the Jacobi scaling" : "", gk->replaced, gk->replaced == 1 ? "" : "s",
                                     gk->method == GK_KRYLOV_BICG ? "BiCG" : "CG", gk->restarts));
  if (gk->eis)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  SSOR by Eisenstat's trick: CG on (D/w + L)^-1 A (D/w + U)^-1, no product with A an iteration; its "
                                             "norms are the transformed system's (the natural norm is SSOR-PCG's)\n"));
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetFromOptions_GK(KSP ksp, GKOptionItems PetscOptionsObject)
{
  KSP_GK   *gk = (KSP_GK *)ksp->data;
  PetscBool iscg;
  char      opt[64];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPCGGPU, &iscg));
  PetscOptionsHeadBegin(PetscOptionsObject, iscg ? "KSP cggpu options" : "KSP bicggpu options");
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-ksp_%s_check_every", ((PetscObject)ksp)->type_name));
  PetscCall(PetscOptionsInt(opt, "Test convergence every k iterations only (the device is waited for at each test)", NULL, gk->checkevery,
                            &gk->checkevery, NULL));
  PetscCheck(gk->checkevery >= 1, PetscObjectComm((PetscObject)ksp), PETSC_ERR_ARG_OUTOFRANGE, "%s must be at least 1, not %" PetscInt_FMT, opt,
             gk->checkevery);
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-ksp_%s_device_sums", ((PetscObject)ksp)->type_name));
  PetscCall(PetscOptionsBool(opt,
                             "Several processes of one node, each with its own GPU: keep the sums on the GPUs (CUDA IPC), not through MPI on the "
                             "host (CG and COCG)",
                             NULL, gk->devsums, &gk->devsums, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-ksp_%s_device_halo", ((PetscObject)ksp)->type_name));
  PetscCall(
    PetscOptionsBool(opt, "With the sums kept on the GPUs: send the direction's ghosts GPU to GPU too (CUDA IPC) instead of through MPI on the host",
                     NULL, gk->devhalo, &gk->devhalo, NULL));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-ksp_%s_graph", ((PetscObject)ksp)->type_name));
  PetscCall(
    PetscOptionsBool(opt,
                     "One process: replay a multigrid PC's V-cycle as a CUDA graph once it is seen to be the device's work alone (PCGPUKitSetGraph)",
                     NULL, gk->graph, &gk->graph, NULL));
  if (!iscg)
    PetscCall(PetscOptionsBool("-ksp_bicggpu_cocg", "COCG: one product an iteration, for complex symmetric (A^T = A) matrices", NULL, gk->cocg,
                               &gk->cocg, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPReset_GK(KSP ksp)
{
  KSP_GK *gk = (KSP_GK *)ksp->data;

  PetscFunctionBegin;
  PetscCall(MatGKTransportDestroy_Private(&gk->transport, PetscObjectComm((PetscObject)ksp)));
  gk->halonow = PETSC_FALSE;
  PetscCall(KSPGKDestroyWork_Private(gk));
  PetscCall(KSPDestroy(&gk->inner));
  PetscCall(MatDestroy(&gk->Aconv));
  PetscCall(MatDestroy(&gk->Atrans));
  gk->Adev = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPDestroy_GK(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPReset_GK(ksp));
  PetscCall(KSPDestroyDefault(ksp));
  PetscFunctionReturn(0);
}

/* The shared creator: the norms each method supports, the operations, Jacobi as default PC */
PetscErrorCode KSPCreate_GK_Private(KSP ksp, const char *type)
{
  KSP_GK   *gk;
  PetscBool iscg;
  PC        pc;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(PetscStrcmp(type, KSPCGGPU, &iscg));
  PetscCall(PetscNew(&gk));
  gk->checkevery = 1;
  gk->devsums    = PETSC_TRUE;
  gk->graph      = PETSC_TRUE;
  gk->devhalo    = PETSC_FALSE; /* measured no faster than the ghosts through MPI, which the step hides */
  gk->method     = iscg ? GK_KRYLOV_CG : GK_KRYLOV_BICG;
  ksp->data      = gk;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_PRECONDITIONED, PC_LEFT, 3));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_UNPRECONDITIONED, PC_LEFT, 2));
  if (iscg) PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NATURAL, PC_LEFT, 2));
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  ksp->ops->setup                        = KSPSetUp_GK;
  ksp->ops->solve                        = KSPSolve_GK;
  ksp->ops->destroy                      = KSPDestroy_GK;
  ksp->ops->reset                        = KSPReset_GK;
  ksp->ops->view                         = KSPView_GK;
  ksp->ops->setfromoptions               = KSPSetFromOptions_GK;
  ksp->ops->buildsolution                = KSPBuildSolutionDefault;
  ksp->ops->buildresidual                = KSPBuildResidualDefault;
  ksp->ops->computeextremesingularvalues = KSPComputeExtremeSingularValues_GK;
  /* the preconditioner the kernels apply, unless one is set already */
  PetscCall(KSPGetPC(ksp, &pc));
  if (!((PetscObject)pc)->type_name) PetscCall(PCSetType(pc, PCJACOBI));
  PetscFunctionReturn(0);
}

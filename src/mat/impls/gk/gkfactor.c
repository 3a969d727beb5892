/*
   The factorizations of PETSc and of the packages it was built with (MUMPS, SuperLU, SuperLU_dist,
   UMFPACK, CHOLMOD, KLU) on the device types. Those are SEQAIJ and MPIAIJ underneath, which is
   all the packages read; but the packages also check the matrix's type name against SEQAIJ or
   MPIAIJ (by prefix, as PETSc's own GPU types, "seqaijcusparse", pass) when they make a factor and
   in its symbolic and numeric steps. Each of those steps therefore runs with the matrix under its
   base type's name, and under its own again after: the factor is the package's, unchanged.
*/
#include "gkmat.h"
#include "vec/impls/cuda/gkvec.h"

static const char *const GKSolvers[] = {MATSOLVERPETSC,   MATSOLVERMUMPS,   MATSOLVERSUPERLU, MATSOLVERSUPERLU_DIST,
                                        MATSOLVERUMFPACK, MATSOLVERCHOLMOD, MATSOLVERKLU};
#define GK_NSOLVERS ((int)PETSC_STATIC_ARRAY_LENGTH(GKSolvers))

/* The coarsest solve on the device (multigrid's LU of some hundreds of rows): the operator's
   dense LU in natural order without pivoting, as PETSc's own LU (which reorders, but does not
   pivot), kept as the two triangles' inverses, L^-1 and U^-1, on the device. A solve is their two
   triangular products, x = U^-1 (L^-1 b): no copy between host and device, no wait. The factors'
   inverses are kept apart, not multiplied into A^-1: for a singular coarse operator (a pure
   Neumann problem's, ex50's) A^-1's entries are huge and its product with a consistent b cancels
   in floating point, where L^-1 b is well conditioned. Made at each
   numeric factorization, beside PETSc's own factor, which serves everything else (host vectors,
   MatSolveTranspose, MatMatSolve...). */
typedef struct {
  PetscInt     n;
  PetscScalar *linv, *uinv; /* device, n x n by rows: the lower (unit diagonal) and upper inverses */
  PetscScalar *t;           /* device, n: L^-1 b */
} GKDenseFactor;

/* the package's steps of a factor, called by the wrappers below */
typedef struct {
  PetscErrorCode (*lusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*cholsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lunum)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*cholnum)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*solve)(Mat, Vec, Vec); /* the package's, with the dense inverses in place */
  PetscBool     petsclu;                  /* PETSc's own LU of a sequential matrix */
  GKDenseFactor dense;                    /* its inverses on the device, n 0 where there are none */
} GKFactorSteps;

static PetscErrorCode GKDenseFactorReset_Private(GKDenseFactor *d)
{
  PetscFunctionBegin;
  PetscCall(GKFree(d->linv));
  PetscCall(GKFree(d->uinv));
  PetscCall(GKFree(d->t));
  d->n = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKFactorStepsDestroy_Private(void *arg)
{
  GKFactorSteps *st = (GKFactorSteps *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GKDenseFactorReset_Private(&st->dense));
  PetscCall(PetscFree(st));
  PetscFunctionReturn(0);
}

/* A's base type (MPIAIJ for the MPI device types, else SEQAIJ) */
static PetscErrorCode MatGKBaseType_Private(Mat A, MatType *base)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(A, NULL, &mpi));
  *base = mpi ? MATMPIAIJ : MATSEQAIJ;
  PetscFunctionReturn(0);
}

/* A under its base type's name (*own: its own, to give back), or under its own again. The
   string itself is set aside and put back, not freed and copied: MatGetType() hands out that
   pointer, which a program may hold */
static PetscErrorCode MatGKAsBase_Private(Mat A, char **own)
{
  MatType base;
  char   *name;

  PetscFunctionBegin;
  PetscCall(MatGKBaseType_Private(A, &base));
  PetscCall(PetscStrallocpy(base, &name));
  *own                        = ((PetscObject)A)->type_name;
  ((PetscObject)A)->type_name = name;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGKAsOwn_Private(Mat A, char **own)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(((PetscObject)A)->type_name));
  ((PetscObject)A)->type_name = *own;
  *own                        = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGKFactorSteps_Private(Mat F, GKFactorSteps **steps)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)F, "GKFactorSteps", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A factor of a device matrix without its package's steps");
  PetscCall(PetscContainerGetPointer(c, (void **)steps));
  PetscFunctionReturn(0);
}

/* Each wrapper: the package's step with A under its base type's name (its host values first
   brought up to date where they are behind, gkhost.c: the packages read them); a symbolic step
   then wraps the numeric step it installed */
#define GK_FACTOR_STEP(NAME, FIELD, ARGS, CALL, AFTER) \
  static PetscErrorCode NAME ARGS \
  { \
    GKFactorSteps *st; \
    char          *own; \
\
    PetscFunctionBegin; \
    PetscCall(MatGKFactorSteps_Private(F, &st)); \
    PetscCall(MatGKHostSyncIf_Private(A)); \
    PetscCall(MatGKAsBase_Private(A, &own)); \
    PetscCall((*st->FIELD)CALL); \
    PetscCall(MatGKAsOwn_Private(A, &own)); \
    AFTER; \
    PetscFunctionReturn(0); \
  }

static PetscErrorCode MatGKDenseFactor_Private(Mat, Mat, const MatFactorInfo *, GKFactorSteps *);
GK_FACTOR_STEP(MatLUFactorNumeric_GK, lunum, (Mat F, Mat A, const MatFactorInfo *info), (F, A, info),
               PetscCall(MatGKDenseFactor_Private(F, A, info, st)))
GK_FACTOR_STEP(MatCholeskyFactorNumeric_GK, cholnum, (Mat F, Mat A, const MatFactorInfo *info), (F, A, info), (void)0)

/* F's step OP kept in st as FIELD and replaced by its wrapper (once) */
#define GK_WRAP_STEP(F, OP, FIELD, WRAPPER) \
  do { \
    if ((F)->ops->OP && (F)->ops->OP != WRAPPER) { \
      st->FIELD    = (F)->ops->OP; \
      (F)->ops->OP = WRAPPER; \
    } \
  } while (0)

/* after a symbolic step: its numeric steps through the wrappers */
static PetscErrorCode MatGKWrapNumeric_Private(Mat F, GKFactorSteps *st)
{
  PetscFunctionBegin;
  GK_WRAP_STEP(F, lufactornumeric, lunum, MatLUFactorNumeric_GK);
  GK_WRAP_STEP(F, choleskyfactornumeric, cholnum, MatCholeskyFactorNumeric_GK);
  PetscFunctionReturn(0);
}

#define GK_FACTOR_SYMBOLIC(NAME, FIELD, ARGS, CALL) GK_FACTOR_STEP(NAME, FIELD, ARGS, CALL, PetscCall(MatGKWrapNumeric_Private(F, st)))

GK_FACTOR_SYMBOLIC(MatLUFactorSymbolic_GK, lusym, (Mat F, Mat A, IS r, IS c, const MatFactorInfo *info), (F, A, r, c, info))
GK_FACTOR_SYMBOLIC(MatILUFactorSymbolic_GK, ilusym, (Mat F, Mat A, IS r, IS c, const MatFactorInfo *info), (F, A, r, c, info))
GK_FACTOR_SYMBOLIC(MatCholeskyFactorSymbolic_GK, cholsym, (Mat F, Mat A, IS r, const MatFactorInfo *info), (F, A, r, info))
GK_FACTOR_SYMBOLIC(MatICCFactorSymbolic_GK, iccsym, (Mat F, Mat A, IS r, const MatFactorInfo *info), (F, A, r, info))

/* x = U^-1 (L^-1 b) on the device where b is one of the library's vectors with its values there;
   else the package's solve */
static PetscErrorCode MatSolve_GKDense(Mat F, Vec b, Vec x)
{
  GKFactorSteps     *st;
  const PetscScalar *db;
  PetscScalar       *dx;
  PetscInt           n;
  PetscBool          on = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatGKFactorSteps_Private(F, &st));
  n = st->dense.n;
  if (n && VecIsGK(x) && b->map->n == n && x->map->n == n) PetscCall(VecGKOnDevice_Private(b, &on));
  if (!on) { /* b's values on the host (PCBJACOBI's block vectors, placed host arrays): the host's solve */
    PetscCall((*st->solve)(F, b, x));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(b, &db));
  PetscCall(VecGPUKitGetDeviceArrayWrite(x, &dx));
  PetscCall(GKDev->densetrimv(n, st->dense.linv, PETSC_FALSE, db, st->dense.t));
  PetscCall(GKDev->densetrimv(n, st->dense.uinv, PETSC_TRUE, st->dense.t, dx));
  GK_COUNT_BYTES(sizeof(PetscScalar) * ((PetscLogDouble)n * (n + 1) + 4.0 * n));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(x, &dx));
  PetscCall(VecGPUKitRestoreDeviceArrayRead(b, &db));
  PetscCall(PetscLogFlops(2.0 * n * n));
  PetscFunctionReturn(0);
}

/* After PETSc's numeric LU of A (sequential, PETSc's own, no shift but PCLU's default one of a
   zero pivot in blocks, no pivot it found zero, at most -gpukit_dense_solve_max rows): A's dense
   LU in natural order and its triangles' inverses, on the host, then on the device, where F's
   solve reads them. A pivot at most PETSc's zero pivot tolerance is shifted as PETSc's LU shifts
   its own under the in-blocks shift; with no shift there are no inverses (PETSc's ordering may
   have had no such pivot), and the package's solve runs. */
static PetscErrorCode MatGKDenseFactor_Private(Mat F, Mat A, const MatFactorInfo *info, GKFactorSteps *st)
{
  PetscInt           n, ncols;
  const PetscInt    *cols;
  const PetscScalar *vals;
  PetscScalar       *a, *l, *u;
  PetscBool          ok = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCall(GKDenseFactorReset_Private(&st->dense));
  PetscCall(MatGetSize(A, &n, NULL));
  if (!st->petsclu || !GKDev || !n || n > GKDenseSolveMax ||
      (info->shifttype != (PetscReal)MAT_SHIFT_NONE && info->shifttype != (PetscReal)MAT_SHIFT_INBLOCKS) || F->factorerrortype != MAT_FACTOR_NOERROR)
    PetscFunctionReturn(0);
  PetscCall(PetscCalloc3(n * n, &a, n * n, &l, n * n, &u));
  for (PetscInt i = 0; i < n; i++) {
    PetscCall(MatGetRow(A, i, &ncols, &cols, &vals));
    for (PetscInt k = 0; k < ncols; k++) a[i * n + cols[k]] = vals[k];
    PetscCall(MatRestoreRow(A, i, &ncols, &cols, &vals));
  }
  /* A = L U in place: L below the diagonal (its unit diagonal implied), U on and above */
  for (PetscInt k = 0; k < n && ok; k++) {
    PetscScalar piv = a[k * n + k];

    if (PetscAbsScalar(piv) <= info->zeropivot) {
      if (info->shifttype == (PetscReal)MAT_SHIFT_INBLOCKS) { /* PETSc's own rule for such a pivot (MatPivotCheck_inblocks) */
        PetscCall(PetscInfo(F, "Pivot %g of row %" PetscInt_FMT " in natural order shifted by %g, as PETSc's LU shifts its own\n",
                            (double)PetscAbsScalar(piv), k, (double)info->shiftamount));
        piv += info->shiftamount;
        a[k * n + k] = piv;
      } else {
        ok = PETSC_FALSE;
        PetscCall(PetscInfo(F, "No device solve: pivot %g of row %" PetscInt_FMT " in natural order, tolerance %g\n", (double)PetscAbsScalar(piv), k,
                            (double)info->zeropivot));
        break;
      }
    }
    for (PetscInt i = k + 1; i < n; i++) {
      const PetscScalar m = a[i * n + k] / piv;

      a[i * n + k] = m;
      if (m != (PetscScalar)0.0)
        for (PetscInt j = k + 1; j < n; j++) a[i * n + j] -= m * a[k * n + j];
    }
  }
  if (ok) {
    /* l = L^-1: row i = e_i - sum_{k < i} L_ik (row k of l), rows k holding entries j <= k */
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt k = 0; k < i; k++) {
        const PetscScalar m = a[i * n + k];

        if (m != (PetscScalar)0.0)
          for (PetscInt j = 0; j <= k; j++) l[i * n + j] -= m * l[k * n + j];
      }
      l[i * n + i] = 1.0;
    }
    /* u = U^-1: row i = (e_i - sum_{k > i} U_ik (row k of u)) / U_ii, rows k holding j >= k */
    for (PetscInt i = n - 1; i >= 0; i--) {
      for (PetscInt k = i + 1; k < n; k++) {
        const PetscScalar m = a[i * n + k];

        if (m != (PetscScalar)0.0)
          for (PetscInt j = k; j < n; j++) u[i * n + j] -= m * u[k * n + j];
      }
      u[i * n + i] += 1.0;
      for (PetscInt j = i; j < n; j++) u[i * n + j] /= a[i * n + i];
    }
    PetscCall(GKMallocH2D(n * n, l, &st->dense.linv));
    PetscCall(GKMallocH2D(n * n, u, &st->dense.uinv));
    PetscCall(GKMalloc(n, &st->dense.t));
    st->dense.n = n;
    if (F->ops->solve != MatSolve_GKDense) {
      st->solve     = F->ops->solve;
      F->ops->solve = MatSolve_GKDense;
    }
    PetscCall(PetscInfo(F, "LU of %" PetscInt_FMT " rows: its solves on device vectors by its dense inverses\n", n));
  }
  PetscCall(PetscFree3(a, l, u));
  PetscFunctionReturn(0);
}

/* The package's factor of the base type, made with A under that name, its steps wrapped */
static PetscErrorCode MatGetFactor_GK(int s, Mat A, MatFactorType ftype, Mat *F)
{
  PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;
  MatType        base;
  GKFactorSteps *st;
  PetscContainer c;
  char          *own;

  PetscFunctionBegin;
  PetscCall(MatGKBaseType_Private(A, &base));
  PetscCall(MatSolverTypeGet(GKSolvers[s], base, ftype, NULL, NULL, &create));
  PetscCheck(create, PetscObjectComm((PetscObject)A), PETSC_ERR_MISSING_FACTOR, "MatSolverType %s has no factorization %s for %s", GKSolvers[s],
             MatFactorTypes[ftype], base);
  PetscCall(MatGKAsBase_Private(A, &own));
  PetscCall((*create)(A, ftype, F));
  PetscCall(MatGKAsOwn_Private(A, &own));
  if (!*F) PetscFunctionReturn(0);
  PetscCall(PetscNew(&st));
  st->petsclu = (PetscBool)(s == 0 && ftype == MAT_FACTOR_LU && !strcmp(base, MATSEQAIJ));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, st));
  PetscCall(GKContainerSetDestroy(c, GKFactorStepsDestroy_Private));
  PetscCall(PetscObjectCompose((PetscObject)*F, "GKFactorSteps", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  GK_WRAP_STEP(*F, lufactorsymbolic, lusym, MatLUFactorSymbolic_GK);
  GK_WRAP_STEP(*F, ilufactorsymbolic, ilusym, MatILUFactorSymbolic_GK);
  GK_WRAP_STEP(*F, choleskyfactorsymbolic, cholsym, MatCholeskyFactorSymbolic_GK);
  GK_WRAP_STEP(*F, iccfactorsymbolic, iccsym, MatICCFactorSymbolic_GK);
  PetscCall(MatGKWrapNumeric_Private(*F, st));
  PetscFunctionReturn(0);
}

/* one registered function a package: the registry passes no package name */
#define GK_GET_FACTOR(S) \
  static PetscErrorCode MatGetFactor_GK_##S(Mat A, MatFactorType ftype, Mat *F) \
  { \
    PetscFunctionBegin; \
    PetscCall(MatGetFactor_GK(S, A, ftype, F)); \
    PetscFunctionReturn(0); \
  }
GK_GET_FACTOR(0)
GK_GET_FACTOR(1)
GK_GET_FACTOR(2)
GK_GET_FACTOR(3)
GK_GET_FACTOR(4)
GK_GET_FACTOR(5)
GK_GET_FACTOR(6)
static PetscErrorCode (*const GKGetFactor[])(Mat, MatFactorType, Mat *) = {MatGetFactor_GK_0, MatGetFactor_GK_1, MatGetFactor_GK_2, MatGetFactor_GK_3,
                                                                           MatGetFactor_GK_4, MatGetFactor_GK_5, MatGetFactor_GK_6};

/* Registers, for each device type, every factorization this PETSc has for its base type, so that
   PCs such as the sequential default ILU, -pc_type lu with any -pc_factor_mat_solver_type, and
   Cholesky keep working */
PetscErrorCode MatGKRegisterFactors_Private(void)
{
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};
  const GKMatFormat  *fmt;

  PetscFunctionBegin;
  PetscCheck(GK_NSOLVERS == (int)PETSC_STATIC_ARRAY_LENGTH(GKGetFactor), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "A factorization package without its registered function");
  PetscCall(MatInitializePackage());
  for (int s = 0; s < GK_NSOLVERS; s++) {
    for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(ftypes); f++) {
      for (size_t i = 0; (fmt = MatGKFormatAt_Private(i)); i++) {
        for (int mpi = 0; mpi < 2; mpi++) {
          PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;

          PetscCall(MatSolverTypeGet(GKSolvers[s], mpi ? MATMPIAIJ : MATSEQAIJ, ftypes[f], NULL, NULL, &create));
          if (create) PetscCall(MatSolverTypeRegister(GKSolvers[s], mpi ? fmt->mpitype : fmt->type, ftypes[f], GKGetFactor[s]));
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

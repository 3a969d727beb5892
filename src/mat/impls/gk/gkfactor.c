/*
   The factorizations of PETSc and of the packages it was built with (MUMPS, SuperLU, SuperLU_dist,
   UMFPACK, CHOLMOD, KLU) on the device types. Those are SEQAIJ and MPIAIJ underneath, which is
   all the packages read; but the packages also check the matrix's type name against SEQAIJ or
   MPIAIJ (by prefix, as PETSc's own GPU types, "seqaijcusparse", pass) when they make a factor and
   in its symbolic and numeric steps. Each of those steps therefore runs with the matrix under its
   base type's name, and under its own again after: the factor is the package's, unchanged.
*/
#include "gkmat.h"

static const char *const GKSolvers[] = {MATSOLVERPETSC, MATSOLVERMUMPS, MATSOLVERSUPERLU, MATSOLVERSUPERLU_DIST, MATSOLVERUMFPACK, MATSOLVERCHOLMOD, MATSOLVERKLU};
#define GK_NSOLVERS ((int)PETSC_STATIC_ARRAY_LENGTH(GKSolvers))

/* the package's steps of a factor, called by the wrappers below */
typedef struct {
  PetscErrorCode (*lusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*ilusym)(Mat, Mat, IS, IS, const MatFactorInfo *);
  PetscErrorCode (*cholsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*iccsym)(Mat, Mat, IS, const MatFactorInfo *);
  PetscErrorCode (*lunum)(Mat, Mat, const MatFactorInfo *);
  PetscErrorCode (*cholnum)(Mat, Mat, const MatFactorInfo *);
} GKFactorSteps;

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

GK_FACTOR_STEP(MatLUFactorNumeric_GK, lunum, (Mat F, Mat A, const MatFactorInfo *info), (F, A, info), (void)0)
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
  PetscCheck(create, PetscObjectComm((PetscObject)A), PETSC_ERR_MISSING_FACTOR, "MatSolverType %s has no factorization %s for %s", GKSolvers[s], MatFactorTypes[ftype], base);
  PetscCall(MatGKAsBase_Private(A, &own));
  PetscCall((*create)(A, ftype, F));
  PetscCall(MatGKAsOwn_Private(A, &own));
  if (!*F) PetscFunctionReturn(0);
  PetscCall(PetscNew(&st));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, st));
  PetscCall(GKContainerFreeOnDestroy(c));
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
static PetscErrorCode (*const GKGetFactor[])(Mat, MatFactorType, Mat *) = {MatGetFactor_GK_0, MatGetFactor_GK_1, MatGetFactor_GK_2, MatGetFactor_GK_3, MatGetFactor_GK_4, MatGetFactor_GK_5, MatGetFactor_GK_6};

/* Registers, for each device type, every factorization this PETSc has for its base type, so that
   PCs such as the sequential default ILU, -pc_type lu with any -pc_factor_mat_solver_type, and
   Cholesky keep working */
PetscErrorCode MatGKRegisterFactors_Private(void)
{
  const MatFactorType ftypes[] = {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC};
  const char         *types[]  = {MATSEQELLRCUDA, MATSEQDIACUDA, MATMPIELLRCUDA, MATMPIDIACUDA};

  PetscFunctionBegin;
  PetscCheck(GK_NSOLVERS == (int)PETSC_STATIC_ARRAY_LENGTH(GKGetFactor), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A factorization package without its registered function");
  PetscCall(MatInitializePackage());
  for (int s = 0; s < GK_NSOLVERS; s++) {
    for (size_t f = 0; f < PETSC_STATIC_ARRAY_LENGTH(ftypes); f++) {
      for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++) {
        PetscErrorCode (*create)(Mat, MatFactorType, Mat *) = NULL;

        PetscCall(MatSolverTypeGet(GKSolvers[s], t < 2 ? MATSEQAIJ : MATMPIAIJ, ftypes[f], NULL, NULL, &create));
        if (create) PetscCall(MatSolverTypeRegister(GKSolvers[s], types[t], ftypes[f], GKGetFactor[s]));
      }
    }
  }
  PetscFunctionReturn(0);
}

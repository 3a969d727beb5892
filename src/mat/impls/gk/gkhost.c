/*
   A device matrix whose host values are behind its device copy's (MatSetValuesCOO() from device
   memory: the sums exist on the device alone). PETSc's AIJ code reads the host arrays directly,
   so every operation of such a matrix is replaced by a wrapper, written by tools/gen-matops from
   the struct _MatOps of the PETSc built against, that first brings the host values up to date
   (one copy down) and gives the matrix its operations back. The operations that read the device
   copy, or no values at all, stay as they are: a time step or a Newton step that sets new values
   from device memory and solves on the device then copies nothing down.
*/
#include "gkmat.h"
#include "gkmatops.inc"

/* Replaces A's operations by the wrappers (own: the operations, given back later), except those
   that read the device copy or no values. productsetfromoptions stays: PETSc chooses a product
   by comparing the operands'. A sequential matrix keeps MatSOR (its own, on the device). An MPI
   matrix keeps equal and axpy: MatEqual() and MatAXPY() compare them with the other matrix's
   before calling, and the processes must agree on the outcome, though a matrix is brought up to
   date on some processes only by an operation on some (MatGetRow()); MPIAIJ's own read the
   values through the blocks' operations, which bring the blocks up to date. */
PetscErrorCode MatGKHostWrap_Private(Mat A, struct _MatOps *own, PetscBool mpi)
{
  PetscFunctionBegin;
  *own = *A->ops;
  GKHostOpsWrap(A->ops);
  A->ops->mult                      = own->mult;
  A->ops->multadd                   = own->multadd;
  A->ops->residual                  = own->residual;
  A->ops->multtranspose             = own->multtranspose;
  A->ops->multtransposeadd          = own->multtransposeadd;
  A->ops->multhermitiantranspose    = own->multhermitiantranspose;
  A->ops->multhermitiantransposeadd = own->multhermitiantransposeadd;
  A->ops->getdiagonal               = own->getdiagonal;
  A->ops->assemblybegin             = own->assemblybegin;
  A->ops->assemblyend               = own->assemblyend;
  A->ops->setoption                 = own->setoption;
  A->ops->setfromoptions = own->setfromoptions; /* options read; a change of layout brings the host up to date first (MatSeqGKInvalidate_Private) */
  A->ops->getvecs        = own->getvecs;
  A->ops->getinfo        = own->getinfo;
  A->ops->destroy        = own->destroy;
  A->ops->productsetfromoptions = own->productsetfromoptions;
  if (own->productnumeric == MatProductNumeric_GK)
    A->ops->productnumeric = own->productnumeric; /* a product's result: its numeric step replaces the values */
  if (!mpi) A->ops->sor = own->sor;
  else {
    A->ops->equal = own->equal;
    A->ops->axpy  = own->axpy;
  }
  PetscFunctionReturn(0);
}

/* Gives back the operations still wrapped (one set meanwhile, by an operation that ran, keeps
   its new value) */
PetscErrorCode MatGKHostUnwrap_Private(Mat A, const struct _MatOps *own)
{
  PetscFunctionBegin;
  GKHostOpsUnwrap(A->ops, own);
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKHostSync_Private(Mat A)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(A, NULL, &mpi));
  if (mpi) PetscCall(MatMPIGKHostSync_Private(A, PETSC_TRUE));
  else PetscCall(MatSeqGKHostSync_Private(A, PETSC_TRUE));
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKHostSyncIf_Private(Mat A)
{
  PetscFunctionBegin;
  if (A && GKHostOpsWrapped(A->ops)) PetscCall(MatGKHostSync_Private(A));
  PetscFunctionReturn(0);
}

/* The functions SEQAIJ composes that read its values outside its operations (MatRetrieveValues(),
   which writes them all, has a wrapper of its own, gkmat.c): while a
   sequential device matrix is behind, each is replaced by a wrapper that brings it up to date
   (which composes SEQAIJ's back) and calls what is composed then. MatIsTranspose() and
   MatIsHermitianTranspose() first check that both matrices compose the same function: with a
   matrix behind and one that is not, they refuse (an error, not values read stale). */
static PetscErrorCode MatGKHostCall_Private(Mat A, const char *name, PetscErrorCode (**f)(void))
{
  PetscFunctionBegin;
  PetscCall(MatGKHostSync_Private(A));
  PetscCall(PetscObjectQueryFunction((PetscObject)A, name, f));
  PetscCheck(*f, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The %s matrix lost %s when its host values were brought up to date", ((PetscObject)A)->type_name,
             name);
  PetscFunctionReturn(0);
}

static PetscErrorCode MatStoreValues_GKHost(Mat A)
{
  PetscErrorCode (*f)(Mat);

  PetscFunctionBegin;
  PetscCall(MatGKHostCall_Private(A, "MatStoreValues_C", (PetscErrorCode (**)(void))&f));
  PetscCall((*f)(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatReorderForNonzeroDiagonal_GKHost(Mat A, PetscReal tol, IS r, IS c)
{
  PetscErrorCode (*f)(Mat, PetscReal, IS, IS);

  PetscFunctionBegin;
  PetscCall(MatGKHostCall_Private(A, "MatReorderForNonzeroDiagonal_C", (PetscErrorCode (**)(void))&f));
  PetscCall((*f)(A, tol, r, c));
  PetscFunctionReturn(0);
}

/* MatIsTranspose() and MatIsHermitianTranspose() (name: the one composed) */
static PetscErrorCode MatIsTransposeCall_Private(const char *name, Mat A, Mat B, PetscReal tol, PetscBool *flg)
{
  PetscErrorCode (*f)(Mat, Mat, PetscReal, PetscBool *);

  PetscFunctionBegin;
  PetscCall(MatGKHostSyncIf_Private(B));
  PetscCall(MatGKHostCall_Private(A, name, (PetscErrorCode (**)(void))&f));
  PetscCall((*f)(A, B, tol, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatIsTranspose_GKHost(Mat A, Mat B, PetscReal tol, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(MatIsTransposeCall_Private("MatIsTranspose_C", A, B, tol, flg));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatIsHermitianTranspose_GKHost(Mat A, Mat B, PetscReal tol, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscCall(MatIsTransposeCall_Private("MatIsHermitianTranspose_C", A, B, tol, flg));
  PetscFunctionReturn(0);
}

static const char *const GKHostComposedNames[GK_HOST_COMPOSED] = {"MatStoreValues_C", "MatReorderForNonzeroDiagonal_C", "MatIsTranspose_C",
                                                                  "MatIsHermitianTranspose_C"};

/* wrap: SEQAIJ's functions saved in own and the wrappers composed; else own's composed back */
PetscErrorCode MatGKHostComposed_Private(Mat A, PetscBool wrap, PetscErrorCode (*own[GK_HOST_COMPOSED])(void))
{
  PetscErrorCode (*const wrappers[GK_HOST_COMPOSED])(
    void) = {(PetscErrorCode (*)(void))MatStoreValues_GKHost, (PetscErrorCode (*)(void))MatReorderForNonzeroDiagonal_GKHost,
             (PetscErrorCode (*)(void))MatIsTranspose_GKHost, (PetscErrorCode (*)(void))MatIsHermitianTranspose_GKHost};

  PetscFunctionBegin;
  for (int k = 0; k < GK_HOST_COMPOSED; k++) {
    if (wrap) PetscCall(PetscObjectQueryFunction((PetscObject)A, GKHostComposedNames[k], &own[k]));
    if (own[k]) PetscCall(PetscObjectComposeFunction((PetscObject)A, GKHostComposedNames[k], wrap ? wrappers[k] : own[k]));
  }
  PetscFunctionReturn(0);
}

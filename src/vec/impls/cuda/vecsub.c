/*
   VecGetSubVector() and VecRestoreSubVector() of the device vectors. PETSc's own, for a
   contiguous index set, takes its VECCUDA's branch by the type name ("seqcuda", "mpicuda"),
   which a PETSc without CUDA compiles out, leaving the subvector unset (every release from 3.18).
   Here the subvector is a device vector of its own: a contiguous set's values copied in where
   the vector's values are (on the device, or on the host), any other set's gathered by a
   VecScatter as PETSc's default does; VecRestoreSubVector() copies them back only if the
   subvector was changed.
*/
#include "gkvec.h"

/* What a subvector was made as, composed on it: its object state then, and where a contiguous
   set starts in the vector's local array (-1: a scatter, composed as PETSc composes its own) */
typedef struct {
  PetscObjectState state;
  PetscInt         start;
} VecGKSub;
#define GK_SUB "VecGKSubVector"

/* to[toff...] = from[foff...], n entries, on the device where place's values are, else on the
   host */
static PetscErrorCode VecGKSubCopy_Private(Vec place, Vec from, PetscInt foff, Vec to, PetscInt toff, PetscInt n)
{
  PetscBool on;

  PetscFunctionBegin;
  PetscCall(VecGKOnDevice_Private(place, &on));
  if (on) {
    const PetscScalar *f;
    PetscScalar       *t;

    PetscCall(VecGPUKitGetDeviceArrayRead(from, &f));
    PetscCall(VecGPUKitGetDeviceArray(to, &t));
    if (n) PetscCall(GKMemcpyD2D(t + toff, f + foff, (size_t)n * sizeof(PetscScalar)));
    GK_COUNT_BYTES(2.0 * n * sizeof(PetscScalar));
    PetscCall(VecGPUKitRestoreDeviceArray(to, &t));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(from, &f));
  } else {
    const PetscScalar *f;
    PetscScalar       *t;

    PetscCall(VecGetArrayRead(from, &f));
    PetscCall(VecGetArray(to, &t));
    if (n) PetscCall(PetscArraycpy(t + toff, f + foff, n));
    PetscCall(VecRestoreArray(to, &t));
    PetscCall(VecRestoreArrayRead(from, &f));
  }
  PetscFunctionReturn(0);
}

/* The entries of X that is names, as a device vector of X's type: block size and contiguity as
   PETSc's default decides them */
PetscErrorCode VecGetSubVector_GK(Vec X, IS is, Vec *Y)
{
  PetscInt       n, N, ibs, vbs, bs = 1, gstart, gend, start = 0, lock;
  PetscBool      red[2] = {PETSC_TRUE, PETSC_TRUE}; /* contiguous, a valid block size */
  Vec            Z;
  VecGKSub      *sub;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(ISGetLocalSize(is, &n));
  PetscCall(ISGetSize(is, &N));
  PetscCall(ISGetBlockSize(is, &ibs));
  PetscCall(VecGetBlockSize(X, &vbs));
  PetscCall(VecGetOwnershipRange(X, &gstart, &gend));
  PetscCall(ISContiguousLocal(is, gstart, gend, &start, &red[0]));
  if (ibs > 1) {
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, red, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)is)));
    bs = ibs;
  } else {
    if (n % vbs || vbs == 1) red[1] = PETSC_FALSE;
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, red, 2, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)is)));
    if (red[0] && red[1]) bs = vbs;
  }
  PetscCall(VecCreate(PetscObjectComm((PetscObject)is), &Z));
  PetscCall(VecSetSizes(Z, n, N));
  PetscCall(VecSetBlockSize(Z, bs));
  PetscCall(VecSetType(Z, ((PetscObject)X)->type_name));
  PetscCall(PetscNew(&sub));
  sub->start = red[0] ? start : -1;
  if (red[0]) {
    PetscCall(VecGKSubCopy_Private(X, X, start, Z, 0, n));
    PetscCall(VecLockGet(X, &lock));
    if (lock) PetscCall(VecLockReadPush(Z)); /* as PETSc's: a subvector of a locked vector is read only */
  } else {
    VecScatter sc;

    PetscCall(VecScatterCreate(X, is, Z, NULL, &sc));
    PetscCall(VecScatterBegin(sc, X, Z, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, X, Z, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(PetscObjectCompose((PetscObject)Z, "VecGetSubVector_Scatter", (PetscObject)sc));
    PetscCall(VecScatterDestroy(&sc));
  }
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, sub));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)Z, GK_SUB, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscCall(PetscObjectStateGet((PetscObject)Z, &sub->state));
  *Y = Z;
  PetscFunctionReturn(0);
}

/* Y's values back into X where Y was changed since VecGetSubVector_GK(); VecRestoreSubVector()
   destroys Y after */
PetscErrorCode VecRestoreSubVector_GK(Vec X, IS is, Vec *Y)
{
  PetscObjectState state;
  PetscInt         lock, n;
  PetscContainer   c;
  VecGKSub        *sub;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)*Y, GK_SUB, (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The vector given back was not made by VecGetSubVector() of this %s vector",
             ((PetscObject)X)->type_name);
  PetscCall(PetscContainerGetPointer(c, (void **)&sub));
  PetscCall(PetscObjectStateGet((PetscObject)*Y, &state));
  if (state == sub->state) PetscFunctionReturn(0);
  PetscCall(VecLockGet(X, &lock));
  PetscCheck(!lock, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Vec X is locked for read-only or read/write access");
  if (sub->start >= 0) {
    PetscCall(VecGetLocalSize(*Y, &n));
    PetscCall(VecGKSubCopy_Private(X, *Y, 0, X, sub->start, n));
  } else {
    VecScatter sc;

    PetscCall(PetscObjectQuery((PetscObject)*Y, "VecGetSubVector_Scatter", (PetscObject *)&sc));
    PetscCall(VecScatterBegin(sc, *Y, X, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(sc, *Y, X, INSERT_VALUES, SCATTER_REVERSE));
  }
  PetscFunctionReturn(0);
}

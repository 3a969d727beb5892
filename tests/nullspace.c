static char help[] = "The constants removed from a device vector as a recorded V-cycle's smoothers remove them\n\
(VecGKRemoveConstant_Private(), which the library swaps in for a level's null space of the\n\
constants while a multigrid application is recorded) against MatNullSpaceRemove() of the\n\
constants on the same values: the same bits; with no wait for the device and no copy where the\n\
values are on the device on one process; PETSc's own arithmetic where they are on the host.\n\
  -n <n> : global length\n\n";

#include <petscgpukit.h>
#include <petscmat.h>
#include "include/gpukitimpl.h"
#include "vec/impls/cuda/gkvec.h"

/* a and b hold the same bits, entry by entry */
static PetscErrorCode SameBits(Vec a, Vec b, PetscBool *same)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscBool          mine;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  PetscCall(PetscMemcmp(x, y, sizeof(PetscScalar) * (size_t)n, &mine));
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(MPIU_Allreduce(&mine, same, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)a))); /* gkcompat.h */
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt                  n = 100003;
  Vec                       y, ref, x;
  MatNullSpace              sp;
  PetscRandom               rnd;
  PetscMPIInt               size;
  PetscBool                 same;
  PetscGPUKitTransferCounts c0, c1;
  PetscLogDouble            s0, s1;
  PetscScalar               sum;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &y));
  PetscCall(VecSetSizes(y, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(y));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 17));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(y, rnd));
  PetscCall(VecShift(y, 0.3));       /* a mean far from 0 */
  PetscCall(VecScale(y, 1.0 / 3.0)); /* the values on the device now */
  PetscCall(VecDuplicate(y, &ref));
  PetscCall(VecDuplicate(y, &x));
  PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &sp));

  /* values on the device */
  PetscCall(VecCopy(y, ref));
  PetscCall(VecCopy(y, x));
  PetscCall(MatNullSpaceRemove(sp, ref));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  s0 = GKCounts.syncs;
  PetscCall(VecGKRemoveConstant_Private(x));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  s1 = GKCounts.syncs;
  PetscCall(SameBits(ref, x, &same));
  PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Removed on the device: not MatNullSpaceRemove()'s bits");
  PetscCall(VecSum(x, &sum));
  PetscCheck(PetscAbsScalar(sum) < 1e-10 * n, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The mean left: sum %g", (double)PetscAbsScalar(sum));
  if (size == 1) {
    PetscCheck(s1 == s0 && c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Removed on the device: %g waits, %g copies", s1 - s0, c1.h2d_count + c1.d2h_count - c0.h2d_count - c0.d2h_count);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values on the device: MatNullSpaceRemove()'s bits, no wait, no copy\n"));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values on the device, several processes: MatNullSpaceRemove()'s bits\n"));

  /* values written on the host since */
  PetscCall(VecCopy(y, ref));
  PetscCall(VecCopy(y, x));
  {
    PetscScalar *a;

    PetscCall(VecGetArray(ref, &a));
    PetscCall(VecRestoreArray(ref, &a));
    PetscCall(VecGetArray(x, &a));
    PetscCall(VecRestoreArray(x, &a));
  }
  PetscCall(MatNullSpaceRemove(sp, ref));
  PetscCall(VecGKRemoveConstant_Private(x));
  PetscCall(SameBits(ref, x, &same));
  PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Removed on the host: not MatNullSpaceRemove()'s bits");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "values on the host: MatNullSpaceRemove()'s bits\n"));

  PetscCall(MatNullSpaceDestroy(&sp));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&ref));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    args: -vec_type ${GKVEC} -n {{1 1000 100003}shared output} -gpukit_backend {{host cuda}shared output}

  test:
    suffix: mpi
    nsize: 2
    args: -vec_type ${GKVEC} -n 1000 -gpukit_backend {{host cuda}shared output}

TEST*/

static char help[] = "VecGPUKitPlaceDeviceArray() and VecGPUKitResetDeviceArray(): a caller's array as a vector's values.\n\n";

/*
   Another vector's device array stands for the caller's memory. Placed, it is the vector's
   values: PETSc's operations read it and write into it, no copy made; reset, the vector has its
   own values again and the placed array keeps what was written; destroyed while placed, the
   vector leaves the array alone. Placing twice, resetting what was never placed, placing into a
   vector of another type: clear errors.
*/
#include <petscgpukit.h>
#include "testutil.h"

/* ierr is the error code, not success */
#define CheckFails(call, code, what) \
  do { \
    PetscErrorCode ierr_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    ierr_ = (call); \
    PetscCall(PetscPopErrorHandler()); \
    PetscCheck(ierr_ == (code), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s gave error %d, not %d", what, (int)ierr_, (int)(code)); \
  } while (0)

static PetscErrorCode CheckSum(Vec v, PetscReal want, const char *what)
{
  PetscScalar s;

  PetscFunctionBegin;
  PetscCall(VecSum(v, &s));
  PetscCheck(PetscAbsScalar(s - want) <= 1e-12 * PetscAbsReal(want), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the sum is %g, not %g", what,
             (double)PetscRealPart(s), (double)want);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt            n = 10;
  Vec                       v, w, h;
  PetscScalar              *dw;
  PetscGPUKitTransferCounts c0, c1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &v));
  PetscCall(VecSetType(v, VECGKCUDA));
  PetscCall(VecDuplicate(v, &w));
  PetscCall(VecSet(v, 1.0));
  PetscCall(VecSet(w, 7.0));
  PetscCall(VecGPUKitGetDeviceArray(w, &dw)); /* the caller's memory */

  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(VecGPUKitPlaceDeviceArray(v, dw));
  PetscCall(CheckSum(v, 7.0 * n, "placed"));
  PetscCall(VecScale(v, 2.0)); /* into the placed array */
  PetscCall(CheckSum(v, 14.0 * n, "placed and scaled"));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  PetscCheck(c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Placing and using the array copied");
  CheckFails(VecGPUKitPlaceDeviceArray(v, dw), PETSC_ERR_ARG_WRONGSTATE, "Placing twice");
  PetscCall(VecGPUKitResetDeviceArray(v));
  PetscCall(CheckSum(v, 1.0 * n, "reset: the own values"));
  CheckFails(VecGPUKitResetDeviceArray(v), PETSC_ERR_ARG_WRONGSTATE, "Resetting what is not placed");
  PetscCall(VecGPUKitRestoreDeviceArray(w, &dw));
  PetscCall(CheckSum(w, 14.0 * n, "the caller's array after the reset"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "placed: the vector's values, written in place; reset: its own again, the array keeps the writes\n"));

  /* a host read of a placed vector comes from the placed array; a vector destroyed while placed leaves it alone */
  PetscCall(VecGPUKitGetDeviceArray(w, &dw));
  PetscCall(VecGPUKitPlaceDeviceArray(v, dw));
  {
    const PetscScalar *a;

    PetscCall(VecGetArrayRead(v, &a));
    PetscCheck(a[n - 1] == (PetscScalar)14.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host copy holds %g, not 14", (double)PetscRealPart(a[n - 1]));
    PetscCall(VecRestoreArrayRead(v, &a));
  }
  PetscCall(VecDestroy(&v));
  PetscCall(VecGPUKitRestoreDeviceArray(w, &dw));
  PetscCall(CheckSum(w, 14.0 * n, "the caller's array after the vector's destruction"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "a host read copies from the placed array; destroyed, the vector leaves it alone\n"));

  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &h));
  PetscCall(VecGPUKitGetDeviceArray(w, &dw));
  CheckFails(VecGPUKitPlaceDeviceArray(h, dw), PETSC_ERR_ARG_WRONG, "Placing into a VECSEQ");
  PetscCall(VecGPUKitRestoreDeviceArray(w, &dw));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "a vector of another type: refused\n"));
  PetscCall(VecDestroy(&h));
  PetscCall(VecDestroy(&w));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    output_file: output/placearray.out
    args: -gpukit_backend {{host cuda}shared output}

TEST*/

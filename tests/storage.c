static char help[] = "Single-precision storage of a device matrix's values for its products (-mat_gpukit_storage).\n\
  -type <ellrcuda,diacuda> : the device type\n\
  -n <n>                   : the grid's side (a 5-point stencil of n^2 rows)\n\
  -by_option               : single storage from -mat_gpukit_storage single, not MatGPUKitSetStorage()\n\n";

/*
   The products of a device matrix in single storage are those of the matrix with its values
   rounded to single precision, summed in double: held to an AIJ matrix of the rounded values (to
   the last digits), and away from the double products (by more than double rounding gives), for
   MatMult, MatMultAdd and MatMultTranspose. Everything else reads the double values: the diagonal
   is AIJ's exactly, and cggpu's fused iterations give PETSc's cg's on AIJ. A product reads fewer
   bytes, the view says "single", and double storage set back gives AIJ's products again.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include "testutil.h"

/* the matrix, its values away from single precision's (not sums of few powers of 2); with round,
   those values rounded to single precision */
static PetscErrorCode Assemble(PetscInt n, PetscBool round, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt  i = r / n, j = r % n, c[5] = {r - n, r - 1, r, r + 1, r + n};
    const PetscBool in[5] = {i > 0, j > 0, PETSC_TRUE, j < n - 1, i < n - 1};

    for (int k = 0; k < 5; k++) {
      PetscScalar v = k == 2 ? 4.0 + 0.1 * PetscSinReal(0.37 * r) : -1.0 - PetscCosReal(0.11 * r + k) / 3.0;

#if defined(PETSC_USE_COMPLEX)
      v += PETSC_i * PetscSinReal(0.23 * r + k) / 7.0;
#endif
      if (round) { /* through float variables: gcc 12 -O2 drops the casts inside PetscCMPLX()'s arguments */
        volatile float re = (float)PetscRealPart(v), im = (float)PetscImaginaryPart(v);

#if defined(PETSC_USE_COMPLEX)
        v = PetscCMPLX(re, im);
#else
        v = re + 0.0 * im;
#endif
      }
      if (in[k]) PetscCall(MatSetValue(*A, r, c[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* ||y - yref|| <= tol ||yref|| (near), or >= tol ||yref|| (far) */
static PetscErrorCode Compare(const char *what, Vec y, Vec yref, PetscReal tol, PetscBool near)
{
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(yref, y, NORM_2, &nd, &nr));
  PetscCheck(near ? nd <= tol * nr : nd >= tol * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: ||difference|| / ||reference|| = %g, %s %g", what,
             (double)(nd / nr), near ? "above" : "below", (double)tol);
  PetscFunctionReturn(0);
}

/* the bytes one product reads at the least (PetscGPUKitDeviceCounts) */
static PetscErrorCode ProductBytes(Mat S, Vec x, Vec y, PetscLogDouble *bytes)
{
  PetscGPUKitDeviceCounts c0, c1;

  PetscFunctionBegin;
  PetscCall(MatMult(S, x, y)); /* the copy brought up to date first */
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(MatMult(S, x, y));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  *bytes = c1.bytes - c0.bytes;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char               type[64] = MATELLRCUDA;
  PetscInt           n        = 20, its[2];
  PetscBool          byopt    = PETSC_FALSE;
  Mat                A, Ar, S;
  Vec                x, y, yref, w, d1, d2;
  PetscRandom        rnd;
  PetscGPUKitStorage st;
  PetscLogDouble     bsingle, bdouble;
  PetscReal          nd, nr;
  PetscViewer        sv;
  char               buf[4096] = "";

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-by_option", &byopt, NULL));
  PetscCall(Assemble(n, PETSC_FALSE, &A));
  PetscCall(Assemble(n, PETSC_TRUE, &Ar));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
  if (byopt) PetscCall(MatSetFromOptions(S));
  else PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatGPUKitGetStorage(S, &st));
  PetscCheck(st == PETSCGPUKIT_STORAGE_SINGLE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The storage is %s, not single", PetscGPUKitStorages[st]);

  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(S, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(w, rnd));

  /* the products: the rounded matrix's to the last digits, away from the double matrix's */
  PetscCall(MatMult(S, x, y));
  PetscCall(MatMult(Ar, x, yref));
  PetscCall(Compare("MatMult against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMult(A, x, yref));
  PetscCall(Compare("MatMult against the double values'", y, yref, 1e-10, PETSC_FALSE));
  PetscCall(MatMultAdd(S, x, w, y));
  PetscCall(MatMultAdd(Ar, x, w, yref));
  PetscCall(Compare("MatMultAdd against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMultTranspose(S, x, y));
  PetscCall(MatMultTranspose(Ar, x, yref));
  PetscCall(Compare("MatMultTranspose against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMultTranspose(A, x, yref));
  PetscCall(Compare("MatMultTranspose against the double values'", y, yref, 1e-10, PETSC_FALSE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "single storage: the products are those of the values rounded to single precision, summed in double\n"));

  /* the rest reads the double values: the diagonal, and cggpu's fused iterations */
  PetscCall(MatCreateVecs(A, NULL, &d1));
  PetscCall(VecDuplicate(y, &d2));
  PetscCall(MatGetDiagonal(A, d1));
  PetscCall(MatGetDiagonal(S, d2));
  PetscCall(TestDiffNorms(d1, d2, NORM_INFINITY, &nd, &nr));
  PetscCheck(nd == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatGetDiagonal differs from AIJ's by %g", (double)nd);
  for (int k = 0; k < 2; k++) {
    KSP ksp;
    PC  pc;

    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, k ? S : A, k ? S : A));
    PetscCall(KSPSetType(ksp, k ? KSPCGGPU : KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 500));
    PetscCall(MatMult(A, x, w));
    PetscCall(KSPSolve(ksp, w, y));
    PetscCall(KSPGetIterationNumber(ksp, &its[k]));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCheck(its[0] == its[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "cggpu took %" PetscInt_FMT " iterations, cg on AIJ %" PetscInt_FMT, its[1], its[0]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the diagonal and cggpu's iterations read the double values\n"));

  /* what a product reads, and what the view says */
  PetscCall(ProductBytes(S, x, y, &bsingle));
  { /* the view, written to a file and read back (an MPI matrix's view has no lines of its blocks) */
    PetscMPIInt size;
    FILE       *f;
    size_t      len;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (size == 1) {
      PetscCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, "storage-view.txt", &sv));
      PetscCall(PetscViewerPushFormat(sv, PETSC_VIEWER_ASCII_INFO));
      PetscCall(MatView(S, sv));
      PetscCall(PetscViewerPopFormat(sv));
      PetscCall(PetscViewerDestroy(&sv));
      PetscCall(PetscFOpen(PETSC_COMM_SELF, "storage-view.txt", "r", &f));
      len      = fread(buf, 1, sizeof(buf) - 1, f);
      buf[len] = 0;
      PetscCall(PetscFClose(PETSC_COMM_SELF, f));
      (void)remove("storage-view.txt");
      PetscCheck(strstr(buf, "single precision storage"), PETSC_COMM_SELF, PETSC_ERR_PLIB, "-mat_view ::ascii_info does not say single:\n%s", buf);
    }
  }
  PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_DOUBLE));
  PetscCall(ProductBytes(S, x, y, &bdouble));
  PetscCheck(bsingle < bdouble, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product reads %g bytes in single storage, %g in double", bsingle, bdouble);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "single storage: the view says so, and a product reads fewer bytes\n"));
  PetscCall(MatMult(S, x, y));
  PetscCall(MatMult(A, x, yref));
  PetscCall(Compare("MatMult in double storage again", y, yref, 1e-14, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "double storage again: AIJ's products\n"));

  { /* a value beyond single precision's range: refused with PETSC_ERR_FP, and double storage still serves */
    PetscInt       rstart;
    PetscErrorCode ierr;

    PetscCall(MatDestroy(&S));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    PetscCall(MatSetValue(A, rstart, rstart, 1e39, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
    PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(S, x, y);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A value of 1e39 in single storage gave error %d, not PETSC_ERR_FP", (int)ierr);
    PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_DOUBLE));
    PetscCall(MatMult(S, x, y));
    PetscCall(MatMult(A, x, yref));
    PetscCall(Compare("MatMult in double storage after the refusal", y, yref, 1e-14, PETSC_TRUE));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a value beyond single precision's range: refused, and double storage serves\n"));
  }

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&d1));
  PetscCall(VecDestroy(&d2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ar));
  PetscCall(MatDestroy(&S));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # both device types, on both backends, on one and two processes; single storage by the setter
  # or by the option
  testset:
    output_file: output/storage.out
    args: -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: seq
    test:
      suffix: seq_option
      args: -by_option -mat_gpukit_storage single
    test:
      suffix: mpi
      nsize: 2

TEST*/

static char help[] = "PCGAMG's prolongators made on the device (agggpu) have no host pattern until a host operation asks for one.\n\
  -n <n> : the 2D Laplacian's grid is n x n\n\n";

/*
   Each level's prolongator keeps the device CSR its smoothing made and no host arrays: its
   MatGetInfo() counts the device CSR's nonzeros, its products read the device copy. A host
   operation (here MatConvert() to SEQAIJ) makes the host pattern from the device CSR, once
   (-info says when); the result is the same matrix (its products and nonzero count those of the
   device copy) and its object and nonzero states do not move (the setup that made it stays
   valid). The coarse operators (Galerkin products made on the device, each row ascending) have
   none either until one is asked for: the coarsest's is made at the solve, for its LU. The
   output is the same on both backends.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet() */

int main(int argc, char **argv)
{
  PetscInt    n = 40, nl;
  Mat         A;
  Vec         b, u;
  KSP         ksp;
  PC          pc;
  PetscRandom rnd;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, n * n, n * n, n * n, n * n));
  PetscCall(MatSetType(A, MATSEQELLRCUDA));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
  for (PetscInt y = 0; y < n; y++)
    for (PetscInt x = 0; x < n; x++) {
      const PetscInt r = y * n + x;

      if (x > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0, INSERT_VALUES));
      if (x < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
      if (y > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, INSERT_VALUES));
      if (y < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
      PetscCall(MatSetValue(A, r, r, 4.0, INSERT_VALUES));
    }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &u, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCGAMGSetType(pc, "agggpu"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCMGGetLevels(pc, &nl));
  PetscCheck(nl > 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GAMG made %" PetscInt_FMT " levels: the test needs prolongators", nl);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (PetscInt l = 1; l < nl; l++) {
    Mat              P, Q;
    Vec              x, y, yq;
    MatInfo          info, infoq;
    PetscObjectState s0, s1, nz0, nz1;
    PetscReal        dy, ny;

    PetscCall(PCMGGetInterpolation(pc, l, &P));
    PetscCall(MatCreateVecs(P, &x, &y));
    PetscCall(VecDuplicate(y, &yq));
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatGetInfo(P, MAT_LOCAL, &info));
    PetscCall(PetscObjectStateGet((PetscObject)P, &s0));
    PetscCall(MatGetNonzeroState(P, &nz0));
    PetscCall(MatMult(P, x, y));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "level %" PetscInt_FMT ": %s prolongator of %.0f nonzeros, its host pattern made by MatConvert():\n", l,
                          ((PetscObject)P)->type_name, (double)info.nz_used));
    PetscCall(MatConvert(P, MATSEQAIJ, MAT_INITIAL_MATRIX, &Q));
    PetscCall(MatGetInfo(Q, MAT_LOCAL, &infoq));
    PetscCheck(infoq.nz_used == info.nz_used && info.nz_used > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Level %" PetscInt_FMT ": the prolongator counted %g nonzeros, its host matrix has %g", l, (double)info.nz_used,
               (double)infoq.nz_used);
    PetscCall(MatMult(Q, x, yq));
    PetscCall(VecAXPY(yq, -1.0, y));
    PetscCall(VecNorm(yq, NORM_2, &dy));
    PetscCall(VecNorm(y, NORM_2, &ny));
    PetscCheck(dy <= 1e-14 * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Level %" PetscInt_FMT ": P x on the host %g from the device's", l,
               (double)(dy / ny));
    PetscCall(PetscObjectStateGet((PetscObject)P, &s1));
    PetscCall(MatGetNonzeroState(P, &nz1));
    PetscCheck(s1 == s0 && nz1 == nz0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Level %" PetscInt_FMT ": making the host pattern moved the states on", l);
    PetscCall(MatGetInfo(P, MAT_LOCAL, &infoq));
    PetscCheck(infoq.nz_used == info.nz_used, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Level %" PetscInt_FMT ": the prolongator counts %g nonzeros after, %g before", l, (double)infoq.nz_used, (double)info.nz_used);
    PetscCall(MatMult(P, x, yq)); /* the device copy, still the prolongator's */
    PetscCall(VecAXPY(yq, -1.0, y));
    PetscCall(VecNorm(yq, NORM_2, &dy));
    PetscCheck(dy <= 1e-14 * ny, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Level %" PetscInt_FMT ": P x after the host pattern %g from before", l,
               (double)(dy / ny));
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "level %" PetscInt_FMT ": the host matrix's nonzeros and product are the device copy's, the states unchanged\n", l));
    PetscCall(MatDestroy(&Q));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&yq));
  }
  { /* a solve with the host patterns made */
    KSPConvergedReason reason;
    PetscInt           its;

    PetscCall(KSPSolve(ksp, b, u));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCheck(reason > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The solve after ended %s", KSPConvergedReasons[reason]);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "solve: %s\n", KSPConvergedReasons[reason]));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  test:
    suffix: agggpu
    args: -n 40 -info :mat -gpukit_backend {{host cuda}shared output}
    # -info names the object's class, and from 3.19 on its type too: the function and message kept
    filter: grep -E "^level|host pattern|^solve" | sed -e "s/^.*MatSeqGKMakeHostPattern_Private/MatSeqGKMakeHostPattern_Private/"

TEST*/

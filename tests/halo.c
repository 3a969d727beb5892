static char help[] = "The halo exchange of an MPI device matrix whose ghosts arrive out of ghost order.\n\
  -type <ellrcuda,diacuda> : the device type\n\n";

/*
   An MPIAIJ's off-diagonal block numbers its ghost columns in ascending order when PETSc makes
   them, but MatCreateMPIAIJWithSeqAIJ() takes them in the order given from PETSc 3.24 on: ghosts
   of different owners interleaved then arrive from their owners out of ghost order, and the
   device matrix's halo exchange puts them in place (through the host, and through device memory
   where MPI takes it, -gpukit_cuda_aware_mpi). Each process's ghosts here are every other
   process's first rows, in the order (row within its owner, owner). The device type made from
   that matrix by MatConvert() multiplies as the MPIAIJ does. Prints whether the ghosts are out of
   order (PETSc before 3.24 sorts them), then the verdict.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include "include/gkcompat.h" /* GKCreateMPIAIJWithSeqAIJ() */
#include "testutil.h"

#define NL 6 /* rows and columns of each process */
#define NG 3 /* ghosts of each other process */

int main(int argc, char **argv)
{
  char        type[64] = MATELLRCUDA;
  Mat         Ad, Ao, C, D;
  Vec         x, y1, y2, xt, yt1, yt2;
  PetscRandom rnd;
  PetscReal   nd, n1;
  PetscInt   *garray, nghost, k   = 0;
  PetscMPIInt rank, size, inorder = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nghost = NG * (size - 1);
  PetscCall(PetscMalloc1(nghost, &garray));
  for (PetscInt g = 0; g < NG; g++)
    for (PetscMPIInt p = 0; p < size; p++)
      if (p != rank) garray[k++] = p * NL + g;
  for (PetscInt g = 1; g < nghost; g++) inorder = inorder && garray[g - 1] < garray[g];
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, NL, NL, 3, NULL, &Ad));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, NL, nghost, 2, NULL, &Ao));
  for (PetscInt r = 0; r < NL; r++) {
    PetscCall(MatSetValue(Ad, r, r, 4.0 + r + rank, INSERT_VALUES));
    if (r) PetscCall(MatSetValue(Ad, r, r - 1, -1.0, INSERT_VALUES));
    if (nghost) {
      PetscCall(MatSetValue(Ao, r, r % nghost, -0.5 - 0.1 * r, INSERT_VALUES));
      if ((r + 2) % nghost != r % nghost) PetscCall(MatSetValue(Ao, r, (r + 2) % nghost, 0.25 + rank, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ad, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Ao, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Ao, MAT_FINAL_ASSEMBLY));
  PetscCall(GKCreateMPIAIJWithSeqAIJ(PETSC_COMM_WORLD, NL * size, NL * size, Ad, Ao, garray, &C)); /* Ad, Ao and garray are C's */
  PetscCall(MatConvert(C, type, MAT_INITIAL_MATRIX, &D));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ghosts %s\n",
                        inorder ? "in ascending order" : "of several owners interleaved (in this PETSc's off-diagonal block too, from 3.24 on)"));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 3));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(D, &x, &y2));
  PetscCall(MatCreateVecs(D, &yt2, &xt));
  PetscCall(VecDuplicate(y2, &y1));
  PetscCall(VecDuplicate(yt2, &yt1));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(xt, rnd));
  for (int pass = 0; pass < 2; pass++) { /* twice: the lists made at the first product, kept for the second */
    PetscCall(MatMult(C, x, y1));
    PetscCall(MatMult(D, x, y2));
    PetscCall(TestDiffNorms(y1, y2, NORM_2, &nd, &n1));
    PetscCheck(nd <= 1e-13 * n1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult: ||difference|| %g of ||MPIAIJ's|| %g", (double)nd, (double)n1);
    PetscCall(MatMultTranspose(C, xt, yt1));
    PetscCall(MatMultTranspose(D, xt, yt2));
    PetscCall(TestDiffNorms(yt1, yt2, NORM_2, &nd, &n1));
    PetscCheck(nd <= 1e-13 * n1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultTranspose: ||difference|| %g of ||MPIAIJ's|| %g", (double)nd, (double)n1);
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "products equal MPIAIJ's\n"));
  { /* the fused BiCG, whose step gathers the direction's ghosts by the same lists, against PETSc's */
    KSP                ksp[2];
    PetscInt           its[2];
    KSPConvergedReason reason[2];

    for (int m = 0; m < 2; m++) {
      PC pc;

      PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp[m]));
      PetscCall(KSPSetOperators(ksp[m], m ? D : C, m ? D : C));
      PetscCall(KSPSetType(ksp[m], m ? KSPBICGGPU : KSPBICG));
      PetscCall(KSPGetPC(ksp[m], &pc));
      PetscCall(PCSetType(pc, PCJACOBI));
      PetscCall(KSPSetTolerances(ksp[m], 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 200));
      PetscCall(KSPSolve(ksp[m], y1, m ? yt2 : yt1));
      PetscCall(KSPGetIterationNumber(ksp[m], &its[m]));
      PetscCall(KSPGetConvergedReason(ksp[m], &reason[m]));
      PetscCall(KSPDestroy(&ksp[m]));
    }
    PetscCall(TestDiffNorms(yt1, yt2, NORM_2, &nd, &n1));
    PetscCheck(reason[0] > 0 && reason[1] == reason[0] && PetscAbs(its[0] - its[1]) <= 1 && nd <= 1e-8 * n1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "bicggpu: %s after %" PetscInt_FMT " iterations, bicg %s after %" PetscInt_FMT "; solutions differ by %g",
               KSPConvergedReasons[reason[1]], its[1], KSPConvergedReasons[reason[0]], its[0], (double)(nd / n1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bicggpu: bicg's iterations and solution\n"));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt1));
  PetscCall(VecDestroy(&yt2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # three processes interleave their ghosts' owners (two have only one other to interleave);
  # the first line, which says whether this PETSc kept the order given, filtered out
  testset:
    nsize: 3
    args: -type {{ellrcuda diacuda}shared output} -mat_diacuda_max_fill 100 -options_left 0
    filter: grep -v "^ghosts"
    output_file: output/halo.out
    test:
    # the ghosts through device memory, where MPI takes it: on the host backend, or a GPU's
    test:
      suffix: aware
      requires: !gpu
      args: -gpukit_cuda_aware_mpi
    test:
      suffix: aware_gpu
      requires: gpu cuda_aware_mpi
      args: -gpukit_cuda_aware_mpi

TEST*/

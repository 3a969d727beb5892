static char help[] = "GAMG's eigenvalue estimates for the prolongators' smoothing by GMRES's Arnoldi steps on the device\n\
(-pc_gamg_agggpu_arnoldi, the default) against PETSc's KSPSolve() of the same GMRES.\n\
  -problem <p> : lap2d (the 5-point Laplacian, Dirichlet), neumann (Neumann: its constants the\n\
                 matrix's null space, removed after each preconditioner application) or pairs\n\
                 (2 x 2 blocks alike: two eigenvalues, GMRES's later steps orthogonalizing rounding)\n\
  -n <n>       : grid points a side (lap2d, neumann) or blocks (pairs)\n\n";

/*
   Two KSPs (cg with gamg) set up on the same device matrix: prefix a_ as the options say, prefix
   b_ with -b_pc_gamg_agggpu_arnoldi 0 (PETSc's KSPSolve() of the esteig KSP, then
   KSPComputeExtremeSingularValues()). Every level's estimates (the largest and smallest singular
   values that PCMG keeps for the Chebyshev smoothers) must agree to 1e-12 relative: the device's
   Arnoldi steps sum in another order, and the SVD is not LAPACK's. The a_ KSP's view says on how
   many levels the device ran them: all (on pairs too, whose Krylov space is exhausted after two
   steps: the later ones orthogonalize rounding, in another order on the device, and the extreme
   singular values still agree), none where the options make it another computation (a restart
   shorter than the iterations) or ask for what the KSP's solve shows (a monitor), which then is
   PETSc's own. Both solves take the same iterations.
*/
#include <petscksp.h>
#include <petscgpukit.h>
#include <petsc/private/pcmgimpl.h>
#include "testutil.h"

typedef enum {
  LAP2D,
  NEUMANN,
  PAIRS
} Problem;
static const char *const Problems[] = {"lap2d", "neumann", "pairs", "Problem", "", NULL};

static PetscErrorCode Assemble(Mat A, Problem p, PetscInt n)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    if (p == PAIRS) {
      PetscCall(MatSetValue(A, r, r, 2.0, INSERT_VALUES));
      PetscCall(MatSetValue(A, r, r ^ 1, -1.0, INSERT_VALUES));
      continue;
    }
    const PetscInt xi = r % n, yi = r / n, nb[4] = {xi > 0 ? r - 1 : -1, xi < n - 1 ? r + 1 : -1, yi > 0 ? r - n : -1, yi < n - 1 ? r + n : -1};
    PetscScalar    diag = 0.0;

    for (int f = 0; f < 4; f++) {
      if (nb[f] >= 0) PetscCall(MatSetValue(A, r, nb[f], -1.0, INSERT_VALUES));
      if (nb[f] >= 0 || p == LAP2D) diag += 1.0;
    }
    PetscCall(MatSetValue(A, r, r, diag, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(Mat A, const char *prefix, Vec b, KSP *ksp, PetscInt *its)
{
  PC  pc;
  Vec x;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCGAMGSetType(pc, "agggpu"));
  PetscCall(KSPSetTolerances(*ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPSolve(*ksp, b, x));
  PetscCall(KSPGetIterationNumber(*ksp, its));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Problem      p = LAP2D;
  PetscInt     n = 40, N, ita, itb, nlev = 0;
  Mat          A;
  Vec          b;
  KSP          ka, kb;
  PC           pa, pb;
  PC_MG       *ma, *mb;
  PetscReal    worst = 0.0;
  char         view[16384], *line, *end;
  MatNullSpace nsp;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-problem", Problems, (PetscEnum *)&p, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  N = p == PAIRS ? 2 * n : n * n;
  PetscCall(PetscOptionsSetValue(NULL, "-b_pc_gamg_agggpu_arnoldi", "0"));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, MATELLRCUDA));
  PetscCall(MatSetUp(A));
  PetscCall(Assemble(A, p, n));
  if (p == NEUMANN) {
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, &nsp));
    PetscCall(MatSetNullSpace(A, nsp));
  }
  PetscCall(MatCreateVecs(A, &b, NULL));
  PetscCall(VecSet(b, 1.0));
  if (p == NEUMANN) {
    PetscCall(VecSetValue(b, 0, 1.0 - N, INSERT_VALUES)); /* in the range: sums to zero */
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    PetscCall(MatNullSpaceDestroy(&nsp));
  }
  PetscCall(Solve(A, "a_", b, &ka, &ita));
  PetscCall(Solve(A, "b_", b, &kb, &itb));
  PetscCall(KSPGetPC(ka, &pa));
  PetscCall(KSPGetPC(kb, &pb));
  ma = (PC_MG *)pa->data;
  mb = (PC_MG *)pb->data;
  for (PetscInt l = 0; l < PETSC_MG_MAXLEVELS; l++) {
    const PetscReal ea[2] = {ma->max_eigen_DinvA[l], ma->min_eigen_DinvA[l]}, eb[2] = {mb->max_eigen_DinvA[l], mb->min_eigen_DinvA[l]};

    if (eb[0] == 0.0 && ea[0] == 0.0) continue;
    nlev++;
    for (int k = 0; k < 2; k++) worst = PetscMax(worst, eb[k] != 0.0 ? PetscAbsReal(ea[k] - eb[k]) / PetscAbsReal(eb[k]) : PetscAbsReal(ea[k]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " levels' estimates, %s\n", Problems[p], nlev,
                        worst <= 1e-12 ? "the same as PETSc's GMRES to 1e-12" : "NOT those of PETSc's GMRES"));
  if (worst > 1e-12) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "largest relative difference %g\n", (double)worst));
  PetscCall(TestViewText((PetscObject)pa, PETSC_VIEWER_DEFAULT, view, sizeof(view)));
  line = strstr(view, "Smoothing's eigenvalue estimates");
  PetscCheck(line, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No estimates' line in the PC's view");
  if ((end = strchr(line, '\n'))) *end = 0;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", line));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations: %s\n", ita == itb ? "the same" : "DIFFER"));
  PetscCall(KSPDestroy(&ka));
  PetscCall(KSPDestroy(&kb));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    args: -gpukit_backend {{host cuda}shared output}
    test:
      suffix: lap2d
      args: -problem lap2d -n 40
    test:
      suffix: neumann
      args: -problem neumann -n 40
    test:
      suffix: pairs
      args: -problem pairs -n 200
    # options that make the estimate another computation than the device's: PETSc's runs
    test:
      suffix: options
      args: -problem lap2d -n 40 -a_pc_gamg_esteig_ksp_gmres_restart 5 -b_pc_gamg_esteig_ksp_gmres_restart 5
    test:
      suffix: monitor
      args: -problem lap2d -n 40 -a_pc_gamg_esteig_ksp_monitor
      filter: grep -v "KSP Residual norm"

TEST*/

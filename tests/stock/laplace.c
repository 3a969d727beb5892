static char help[] = "An unmodified PETSc program: it knows nothing of petsc-gpukit and uses only public\n\
PETSc API. It solves the 2D 5-point Laplacian with a known solution and prints the iteration\n\
count and the error norm. The types come from -mat_type and -vec_type (or -dm_mat_type and\n\
-dm_vec_type with -dmda).\n\
  -n <n>   : grid points per side\n\
  -dmda    : build the matrix with DMDA and DMCreateMatrix\n\n";

#include <petscksp.h>
#include <petscdmda.h>

/* A with MatSetFromOptions(): the 5-point stencil, Dirichlet boundaries eliminated */
static PetscErrorCode AssembleLaplacian(PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt i = row / n, j = row % n;

    if (i > 0) PetscCall(MatSetValue(*A, row, row - n, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(*A, row, row - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, row, row, 4.0, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(*A, row, row + 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, row, row + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The same operator through DMDA: the matrix type comes from -dm_mat_type */
static PetscErrorCode AssembleLaplacianDMDA(PetscInt n, DM *da, Mat *A)
{
  DMDALocalInfo info;
  MatStencil    row, col[5];
  PetscScalar   v[5];

  PetscFunctionBegin;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  PetscCall(DMSetUp(*da));
  PetscCall(DMCreateMatrix(*da, A));
  PetscCall(DMDAGetLocalInfo(*da, &info));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++) {
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      PetscInt k = 0;

      row.i = i;
      row.j = j;
      if (j > 0) {
        col[k].i = i;
        col[k].j = j - 1;
        v[k++]   = -1.0;
      }
      if (i > 0) {
        col[k].i = i - 1;
        col[k].j = j;
        v[k++]   = -1.0;
      }
      col[k].i = i;
      col[k].j = j;
      v[k++]   = 4.0;
      if (i < n - 1) {
        col[k].i = i + 1;
        col[k].j = j;
        v[k++]   = -1.0;
      }
      if (j < n - 1) {
        col[k].i = i;
        col[k].j = j + 1;
        v[k++]   = -1.0;
      }
      PetscCall(MatSetValuesStencil(*A, 1, &row, k, col, v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat       A;
  Vec       x, b, u;
  KSP       ksp;
  DM        da   = NULL;
  PetscInt  n    = 40, its;
  PetscBool dmda = PETSC_FALSE;
  PetscReal err;
  MatType   type;
  VecType   vtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-dmda", &dmda, NULL));
  if (dmda) PetscCall(AssembleLaplacianDMDA(n, &da, &A));
  else PetscCall(AssembleLaplacian(n, &A));
  PetscCall(MatGetType(A, &type));
  if (dmda) PetscCall(DMCreateGlobalVector(da, &x)); /* type from -dm_vec_type */
  else {
    /* type from -vec_type */
    PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
    PetscCall(VecSetSizes(x, PETSC_DECIDE, n * n));
    PetscCall(VecSetFromOptions(x));
  }
  PetscCall(VecDuplicate(x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b)); /* b = A u, so the solution is u */

  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1.0, u));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecGetType(x, &vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix type %s, vector type %s\n", type, vtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error norm %.4e\n", (double)err));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

static char help[] = "Solves the Poisson problem -laplace(u) = f on the unit square (or cube) with a DMDA, once with the\n\
matrix type chosen by -dm_mat_type and once with AIJ, and compares the two solves.\n\
This is a plain PETSc program: it gets the GPU types by loading petsc-gpukit at run time,\n\
  -dll_append /path/to/libpetscgpukit.so -dm_mat_type ellrcuda -dm_vec_type cuda\n\
Options:\n\
  -dim <2,3>   : space dimension\n\
  -n <n>       : grid points per side\n\
  -timing      : also print the time of each solve (not stable across machines)\n\
and PETSc's solver options: CG with Jacobi unless told otherwise; -pc_type gamg is PETSc's algebraic\n\
multigrid, on the device matrices with -dm_mat_type ellrcuda or diacuda; -pc_type mg -pc_mg_levels 4\n\
-pc_mg_galerkin -mg_levels_pc_type jacobi is PETSc's geometric multigrid on the DMDA's levels, its\n\
interpolations and coarse operators device matrices too\n\n";

#include <petscksp.h>
#include <petscdmda.h>

/* The 5-point (7-point in 3D) Laplacian scaled by h^2; the Dirichlet boundary's rows are the
   identity and its columns are left out of the interior rows, which keeps the operator symmetric */
static PetscErrorCode AssembleOperator(DM da, Mat A)
{
  DMDALocalInfo info;
  MatStencil    row, col[7];
  PetscScalar   v[7];

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++) {
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++) {
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        const PetscBool boundary = (i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1 || (info.dim == 3 && (k == 0 || k == info.mz - 1)));
        PetscInt        nc       = 0;

        row.i = i;
        row.j = j;
        row.k = k;
        if (boundary) { /* u = 0 on the boundary */
          col[0] = row;
          v[0]   = 1.0;
          PetscCall(MatSetValuesStencil(A, 1, &row, 1, col, v, INSERT_VALUES));
          continue;
        }
        for (PetscInt d = 0; d < info.dim; d++) {
          for (PetscInt s = -1; s <= 1; s += 2) {
            const PetscInt ii = i + (d == 0 ? s : 0), jj = j + (d == 1 ? s : 0), kk = k + (d == 2 ? s : 0);

            if (ii == 0 || jj == 0 || ii == info.mx - 1 || jj == info.my - 1 || (info.dim == 3 && (kk == 0 || kk == info.mz - 1))) continue;
            col[nc].i = ii;
            col[nc].j = jj;
            col[nc].k = kk;
            v[nc++]   = -1.0;
          }
        }
        col[nc] = row;
        v[nc++] = 2.0 * info.dim;
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The grid; the AIJ solve's gets AIJ matrices and standard vectors whatever the options say */
static PetscErrorCode CreateGrid(PetscInt dim, PetscInt n, PetscBool aij, DM *da)
{
  PetscFunctionBegin;
  if (dim == 2)
    PetscCall(
      DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, da));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE,
                           PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, da));
  PetscCall(DMSetFromOptions(*da));
  if (aij) {
    PetscCall(DMSetMatType(*da, MATAIJ));
    PetscCall(DMSetVecType(*da, VECSTANDARD));
  }
  PetscCall(DMSetUp(*da));
  PetscFunctionReturn(0);
}

/* Solves A x = b with CG and Jacobi (changeable from the options) and reports on it */
static PetscErrorCode Solve(DM da, Mat A, Vec b, Vec x, PetscBool timing, PetscInt *its)
{
  KSP            ksp;
  PC             pc;
  MatType        type;
  PetscLogDouble t0, t1;
  PetscReal      rnorm;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPGetPC(ksp, &pc));
  /* the grid, for PCMG's interpolations (-pc_type mg -pc_mg_galerkin); the operator stays A */
  PetscCall(PCSetDM(pc, da));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  /* one product before the clock starts: a GPU matrix builds its device copy at its first use */
  PetscCall(MatMult(A, b, x));
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(MatGetType(A, &type));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "%-12s %4" PetscInt_FMT " iterations", type, *its));
  if (timing)
    PetscCall(
      PetscPrintf(PetscObjectComm((PetscObject)A), ", %8.2f ms, %7.3f ms per iteration", 1e3 * (t1 - t0), 1e3 * (t1 - t0) / PetscMax(*its, 1)));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "\n"));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM        da, daaij;
  Mat       A, Aaij;
  Vec       b, x, baij, xaij;
  PetscInt  dim = 2, n = 65, its, itsaij;
  PetscBool timing = PETSC_FALSE;
  PetscReal diff, norm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-dim must be 2 or 3, not %" PetscInt_FMT, dim);
  PetscCall(CreateGrid(dim, n, PETSC_FALSE, &da)); /* -dm_mat_type, -dm_vec_type */
  PetscCall(CreateGrid(dim, n, PETSC_TRUE, &daaij));

  /* the matrix in the type from the options, and the same matrix as AIJ */
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(AssembleOperator(da, A));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aaij));

  /* f = 1 inside, with h^2 folded into the operator's scaling; the AIJ solve gets vectors of
     the standard type, the others those of the DM (-dm_vec_type) */
  PetscCall(DMCreateGlobalVector(da, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(VecSet(b, 1.0 / ((n - 1) * (n - 1))));
  PetscCall(MatCreateVecs(Aaij, &xaij, &baij));
  PetscCall(VecCopy(b, baij));

  PetscCall(Solve(da, A, b, x, timing, &its));
  PetscCall(Solve(daaij, Aaij, baij, xaij, timing, &itsaij));
  PetscCall(VecNorm(xaij, NORM_2, &norm));
  PetscCall(VecAXPY(xaij, -1.0, x));
  PetscCall(VecNorm(xaij, NORM_2, &diff));
  /* the device's sums round differently from the CPU's: a long solve may take one iteration more or less */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iteration counts %s; solutions %s (relative difference below 1e-8)\n",
                        PetscAbs(its - itsaij) <= 1 ? "agree (within one)" : "DIFFER", diff <= 1e-8 * norm ? "agree" : "DIFFER"));

  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xaij));
  PetscCall(VecDestroy(&baij));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(DMDestroy(&da));
  PetscCall(DMDestroy(&daaij));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  testset:
    args: -dll_append ${LIB}
    test:
      suffix: 2d_ellrcuda
      args: -n 65 -dm_mat_type ellrcuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 3d_diacuda
      args: -dim 3 -n 17 -dm_mat_type diacuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 2d_cuda_vectors
      args: -n 65 -dm_mat_type ellrcuda -dm_vec_type cuda
    test:
      suffix: 2d_mpi
      nsize: 3
      args: -n 65 -dm_mat_type diacuda -dm_vec_type cuda
    # PETSc's algebraic multigrid on the device types (one process): a handful of iterations
    # where Jacobi takes a hundred; cggpu applies it through PETSc's cg (the general path). The
    # counts, which change between PETSc releases, are left out: the program compares them
    test:
      suffix: 2d_gamg
      args: -n 65 -dm_mat_type ellrcuda -dm_vec_type cuda -pc_type gamg -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
      filter: grep -v "iterations$"
    # PETSc's geometric multigrid on the DMDA's levels (Galerkin coarse operators)
    testset:
      args: -n 65 -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -pc_type mg -pc_mg_levels 4 -pc_mg_galerkin
      filter: grep -v "iterations$"
      test:
        suffix: 2d_mg
        args: -mg_levels_pc_type jacobi -ksp_type {{cg cggpu}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: 3d_gamg
      args: -dim 3 -n 17 -dm_mat_type diacuda -dm_vec_type cuda -pc_type gamg -gpukit_backend {{host cuda}shared output}
      filter: grep -v "iterations$"

TEST*/

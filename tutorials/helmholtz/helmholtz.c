static char help[] = "A complex symmetric system: the Helmholtz equation -laplace(u) - k^2 (1 + i s(x, y)) u = f on the unit\n\
square with a point source, u = 0 on the boundary, and an absorbing layer where s rises from 0 to s0\n\
(De Donno et al.'s setting: complex BiCG with Jacobi for electromagnetics). Solved with bicggpu (BiCG,\n\
A^H products) and with its COCG form (-ksp_bicggpu_cocg: one product an iteration, for A^T = A), the\n\
solutions compared. Needs PETSc with complex scalars. A plain PETSc program: the GPU types come from\n\
loading petsc-gpukit at run time,\n\
  -dll_append /path/to/libpetscgpukit.so -dm_mat_type diacuda -dm_vec_type cuda\n\
Options:\n\
  -n <n>       : grid points per side (default 128)\n\
  -k <k>       : the wave number (default 20)\n\
  -layer <w>   : the absorbing layer's width, as a fraction of the side (default 0.15)\n\
  -s0 <s>      : its strongest damping (default 2)\n\
  -timing      : also print each solve's time (not stable across machines)\n\n";

#include <petscksp.h>
#include <petscdmda.h>

#if defined(PETSC_USE_COMPLEX)
/* the 5-point Laplacian scaled by h^2 minus h^2 k^2 (1 + i s), s = s0 (d/w)^2 within the layer
   (d: the depth into it); boundary rows the identity; f = 1 at the centre */
static PetscErrorCode Assemble(DM da, PetscReal k, PetscReal w, PetscReal s0, Mat A, Vec f)
{
  DMDALocalInfo info;
  PetscScalar **fa;
  PetscReal     h;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  h = 1.0 / (info.mx - 1);
  PetscCall(VecSet(f, 0.0));
  PetscCall(DMDAVecGetArray(da, f, &fa));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      MatStencil  row = {0}, col[5];
      PetscScalar v[5];
      PetscInt    nc = 0;
      PetscReal   x = i * h, y = j * h, d = PetscMax(PetscMax(w - x, x - (1 - w)), PetscMax(w - y, y - (1 - w))), s;

      row.i = i;
      row.j = j;
      if (i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1) {
        v[0] = 1.0;
        PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
        continue;
      }
      s = d > 0 ? s0 * (d / w) * (d / w) : 0.0;
      /* the boundary's columns left out (u = 0 there): the matrix stays symmetric */
      if (i > 1) col[nc] = row, col[nc].i = i - 1, v[nc++] = -1.0;
      if (i < info.mx - 2) col[nc] = row, col[nc].i = i + 1, v[nc++] = -1.0;
      if (j > 1) col[nc] = row, col[nc].j = j - 1, v[nc++] = -1.0;
      if (j < info.my - 2) col[nc] = row, col[nc].j = j + 1, v[nc++] = -1.0;
      col[nc] = row, v[nc++] = 4.0 - h * h * k * k * (1.0 + PETSC_i * s);
      PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      if (i == info.mx / 2 && j == info.my / 2) fa[j][i] = 1.0;
    }
  PetscCall(DMDAVecRestoreArray(da, f, &fa));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}
#endif

int main(int argc, char **argv)
{
#if defined(PETSC_USE_COMPLEX)
  PetscInt  n = 128;
  PetscReal k = 20.0, w = 0.15, s0 = 2.0, nd, n0;
  PetscBool timing = PETSC_FALSE, sym;
  DM        da;
  Mat       A, At;
  Vec       f, x[2];
  MatType   mtype;
#endif

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
#if !defined(PETSC_USE_COMPLEX)
  SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_SUP,
          "helmholtz solves a complex system: build it against PETSc with complex scalars (make "
          "PETSC_DIR=/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-complex)");
#else
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-k", &k, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-layer", &w, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-s0", &s0, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCheck(n >= 5 && w > 0 && w < 0.5 && s0 >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -n >= 5, 0 < -layer < 0.5, -s0 >= 0");
  PetscCall(
    DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &f));
  PetscCall(Assemble(da, k, w, s0, A, f));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At)); /* complex symmetric: A^T = A, and not Hermitian */
  PetscCall(MatEqual(A, At, &sym));
  PetscCall(MatDestroy(&At));
  PetscCheck(sym, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The matrix is not complex symmetric");
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "Helmholtz on a %d x %d grid, k = %g, absorbing layer %g wide (damping up to %g), %s matrix: complex symmetric\n", (int)n,
                        (int)n, (double)k, (double)w, (double)s0, mtype));
  for (int c = 0; c < 2; c++) {
    KSP                ksp;
    PC                 pc;
    PetscInt           its;
    KSPConvergedReason reason;
    PetscLogDouble     t0, t1;
    PetscReal          nr, nf;
    Vec                r;

    PetscCall(VecDuplicate(f, &x[c]));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, "bicggpu"));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, 1e12, 20000));
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_bicggpu_cocg", c ? "1" : "0"));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(PetscOptionsClearValue(NULL, "-ksp_bicggpu_cocg"));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, f, x[c]));
    PetscCall(VecNorm(x[c], NORM_1, &nr)); /* waits for a solve on the GPU */
    PetscCall(PetscTime(&t1));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(VecDuplicate(f, &r));
    PetscCall(MatMult(A, x[c], r));
    PetscCall(VecAYPX(r, -1.0, f));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(f, NORM_2, &nf));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-5s %5d iterations, %s, |b - A x| / |b| < 1e-6: %s", c ? "COCG" : "BiCG", (int)its,
                          KSPConvergedReasons[reason], nr <= 1e-6 * nf ? "yes" : "NO"));
    if (timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", %.2f ms", 1e3 * (t1 - t0)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCheck(reason > 0 && nr <= 1e-6 * nf, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not solve the system", c ? "COCG" : "BiCG");
    PetscCall(VecDestroy(&r));
    PetscCall(KSPDestroy(&ksp));
  }
  PetscCall(VecNorm(x[0], NORM_2, &n0));
  PetscCall(VecAXPY(x[1], -1.0, x[0]));
  PetscCall(VecNorm(x[1], NORM_2, &nd));
  PetscCheck(nd <= 1e-5 * n0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "COCG's solution differs from BiCG's by %g (relative)", (double)(nd / n0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solutions agree (relative difference below 1e-5)\n"));
  PetscCall(VecDestroy(&x[0]));
  PetscCall(VecDestroy(&x[1]));
  PetscCall(VecDestroy(&f));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
#endif
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # BiCG's and COCG's iteration counts move with the rounding of their sums: the cases compare
  # the reasons, the residuals and the solutions
  testset:
    requires: complex
    args: -dll_append ${LIB} -dm_vec_type cuda
    filter: sed -E "s/(BiCG|COCG) +[0-9]+ iterations/\\1 N iterations/"
    test:
      suffix: diacuda
      args: -n 48 -k 12 -dm_mat_type diacuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: ellrcuda
      nsize: 2
      args: -n 40 -k 10 -dm_mat_type ellrcuda

  test:
    suffix: real
    requires: real
    exit: nonzero
    args: -dll_append ${LIB}
    filter: grep -o "helmholtz solves a complex system"

TEST*/

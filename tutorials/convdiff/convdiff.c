static char help[] = "A nonsymmetric convection-diffusion problem, -eps laplace(u) + b . grad(u) = 1 on the unit square,\n\
u = 0 on the boundary, upwind differences (Jost, Contassot-Vivier and Vialle's setting): solved by\n\
bicggpu and by PETSc's bcgs and gmres on the same matrix, and the three solutions compared. A plain\n\
PETSc program: the GPU types come from loading petsc-gpukit at run time,\n\
  -dll_append /path/to/libpetscgpukit.so -dm_mat_type diacuda -dm_vec_type cuda\n\
Options:\n\
  -n <n>             : grid points per side (default 128)\n\
  -eps <e>           : the diffusion (default 0.01)\n\
  -bx <b>, -by <b>   : the velocity (default 1, 0.5)\n\
  -methods <list>    : the Krylov methods, in order (default bicggpu,bcgs,gmres)\n\
  -timing            : also print each solve's time (not stable across machines)\n\n";

#include <petscksp.h>
#include <petscdmda.h>

/* Upwind differences scaled by h^2: the convection term's upwind neighbour gets -h b, the row's
   diagonal +h |b|, per direction; boundary rows are the identity */
static PetscErrorCode Assemble(DM da, PetscReal eps, PetscReal bx, PetscReal by, Mat A, Vec f)
{
  DMDALocalInfo info;
  PetscScalar **fa;
  PetscReal     h;

  PetscFunctionBegin;
  PetscCall(DMDAGetLocalInfo(da, &info));
  h = 1.0 / (info.mx - 1);
  PetscCall(DMDAVecGetArray(da, f, &fa));
  for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
    for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
      MatStencil  row = {0}, col[5];
      PetscScalar v[5];
      PetscInt    nc = 0;

      row.i = i;
      row.j = j;
      if (i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1) {
        v[0] = 1.0;
        PetscCall(MatSetValuesStencil(A, 1, &row, 1, &row, v, INSERT_VALUES));
        fa[j][i] = 0.0;
        continue;
      }
      col[nc] = row, col[nc].i = i - 1, v[nc++] = -eps - (bx > 0 ? h * bx : 0.0);
      col[nc] = row, col[nc].i = i + 1, v[nc++] = -eps + (bx < 0 ? h * bx : 0.0);
      col[nc] = row, col[nc].j = j - 1, v[nc++] = -eps - (by > 0 ? h * by : 0.0);
      col[nc] = row, col[nc].j = j + 1, v[nc++] = -eps + (by < 0 ? h * by : 0.0);
      col[nc] = row, v[nc++] = 4.0 * eps + h * (PetscAbsReal(bx) + PetscAbsReal(by));
      PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      fa[j][i] = h * h;
    }
  PetscCall(DMDAVecRestoreArray(da, f, &fa));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  n = 128, nm = 8;
  PetscReal eps = 0.01, bx = 1.0, by = 0.5;
  char     *methods[8];
  char      defaults[][8] = {"bicggpu", "bcgs", "gmres"};
  PetscBool set, timing = PETSC_FALSE;
  DM        da;
  Mat       A;
  Vec       f, x[8];
  MatType   mtype;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-eps", &eps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-bx", &bx, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-by", &by, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-timing", &timing, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-methods", methods, &nm, &set));
  if (!set) {
    nm = 3;
    for (int k = 0; k < 3; k++) PetscCall(PetscStrallocpy(defaults[k], &methods[k]));
  }
  PetscCheck(eps > 0 && n >= 3 && nm >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "Need -eps > 0, -n >= 3 and at least one method");
  PetscCall(
    DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(DMCreateGlobalVector(da, &f));
  PetscCall(Assemble(da, eps, bx, by, A, f));
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "convection-diffusion on a %d x %d grid, eps %g, b = (%g, %g), %s matrix; Jacobi, rtol 1e-8 (each method's default norm)\n",
                        (int)n, (int)n, (double)eps, (double)bx, (double)by, mtype));
  for (PetscInt k = 0; k < nm; k++) {
    KSP                ksp;
    PC                 pc;
    PetscInt           its;
    KSPConvergedReason reason;
    PetscLogDouble     t0, t1;
    PetscReal          nr, nf;
    Vec                r;

    PetscCall(VecDuplicate(f, &x[k]));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, methods[k]));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    /* BiCG's residual rises far above the first before it falls here: PETSc's default divergence
       test (1e5 times the first norm) would stop bicg and bicggpu alike after 21 iterations */
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, 1e12, 10000));
    PetscCall(KSPGMRESSetRestart(ksp, 50));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSetUp(ksp));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, f, x[k]));
    PetscCall(VecNorm(x[k], NORM_1, &nr)); /* waits for a solve on the GPU */
    PetscCall(PetscTime(&t1));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(VecDuplicate(f, &r));
    PetscCall(MatMult(A, x[k], r));
    PetscCall(VecAYPX(r, -1.0, f));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(f, NORM_2, &nf));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-8s %5d iterations, %s, |b - A x| / |b| < 1e-6: %s", methods[k], (int)its,
                          KSPConvergedReasons[reason], nr <= 1e-6 * nf ? "yes" : "NO"));
    if (timing) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", %.2f ms", 1e3 * (t1 - t0)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    PetscCheck(reason > 0 && nr <= 1e-6 * nf, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "%s did not solve the system", methods[k]);
    PetscCall(VecDestroy(&r));
    PetscCall(KSPDestroy(&ksp));
  }
  for (PetscInt k = 1; k < nm; k++) { /* every solution against the first */
    PetscReal nd, n0;

    PetscCall(VecNorm(x[0], NORM_2, &n0));
    PetscCall(VecAXPY(x[k], -1.0, x[0]));
    PetscCall(VecNorm(x[k], NORM_2, &nd));
    PetscCheck(nd <= 1e-5 * n0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s's solution differs from %s's by %g (relative)", methods[k], methods[0],
               (double)(nd / n0));
  }
  if (nm > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "solutions agree (relative differences below 1e-5)\n"));
  for (PetscInt k = 0; k < nm; k++) {
    PetscCall(VecDestroy(&x[k]));
    PetscCall(PetscFree(methods[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # BiCG's iteration count moves with the rounding of its sums (PETSc's own bicg takes different
  # counts on AIJ and on diacuda): the cases compare the reasons, the residuals and the solutions
  testset:
    args: -dll_append ${LIB} -dm_vec_type cuda
    filter: sed -E "s/(bicggpu) +[0-9]+ iterations/\\1 N iterations/"
    test:
      suffix: diacuda
      args: -n 48 -dm_mat_type diacuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: ellrcuda
      args: -n 40 -bx -0.5 -by 1 -dm_mat_type ellrcuda
    test:
      suffix: mpi
      nsize: 2
      args: -n 40 -dm_mat_type diacuda

TEST*/

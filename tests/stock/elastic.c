static char help[] = "An unmodified PETSc program: 3D linear elasticity (Navier-Lame), the displacement's three\n\
components a point (block size 3) on a DMDA, with the rigid-body modes as the near null space, as\n\
PETSc's ksp ex56 gives GAMG. Prints the iteration count, whether the error is small, and its norm. The types\n\
come from -dm_mat_type and -dm_vec_type.\n\
  -n <n>        : interior grid points per side (the displacement is 0 outside)\n\
  -lambda <l>   : Lame's first parameter (mu is 1)\n\
  -no_nearnull  : leave the near null space unset (GAMG then takes the constants of each component)\n\n";

#include <petscksp.h>
#include <petscdmda.h>

/* -mu Laplace(u) - (lambda + mu) grad(div u) by centred differences (h = 1): the second
   derivative along a direction by three points, the mixed ones by the four corners. Symmetric,
   and positive definite: the grad-div part is at least the positive semidefinite product of the
   centred divergence with its transpose. Points outside the grid are the boundary's zeros. */
static PetscErrorCode Assemble(DM da, PetscReal lambda, Mat A)
{
  const PetscReal mu = 1.0, lm = lambda + mu;
  PetscInt        xs, ys, zs, xm, ym, zm, M, N, P;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(da, NULL, &M, &N, &P, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(da, &xs, &ys, &zs, &xm, &ym, &zm));
  for (PetscInt k = zs; k < zs + zm; k++) {
    for (PetscInt j = ys; j < ys + ym; j++) {
      for (PetscInt i = xs; i < xs + xm; i++) {
        const PetscInt p[3] = {i, j, k}, size[3] = {M, N, P};

        for (PetscInt c = 0; c < 3; c++) {
          MatStencil  row = {.k = k, .j = j, .i = i, .c = c}, col[32];
          PetscScalar v[32];
          PetscInt    nc = 0;

          col[nc] = row;
          v[nc++] = 6 * mu + 2 * lm;
          for (PetscInt d = 0; d < 3; d++) { /* the three-point second differences */
            for (PetscInt s = -1; s <= 1; s += 2) {
              PetscInt q[3] = {p[0], p[1], p[2]};

              q[d] += s;
              if (q[d] < 0 || q[d] >= size[d]) continue;
              col[nc] = (MatStencil){.k = q[2], .j = q[1], .i = q[0], .c = c};
              v[nc++] = d == c ? -(mu + lm) : -mu;
            }
          }
          for (PetscInt d = 0; d < 3; d++) { /* the mixed derivatives of component d */
            if (d == c) continue;
            for (PetscInt s = -1; s <= 1; s += 2) {
              for (PetscInt t = -1; t <= 1; t += 2) {
                PetscInt q[3] = {p[0], p[1], p[2]};

                q[c] += s;
                q[d] += t;
                if (q[c] < 0 || q[c] >= size[c] || q[d] < 0 || q[d] >= size[d]) continue;
                col[nc] = (MatStencil){.k = q[2], .j = q[1], .i = q[0], .c = d};
                v[nc++] = -lm * s * t / 4;
              }
            }
          }
          PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
        }
      }
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  DM           da;
  Mat          A;
  Vec          x, b, xs, coords;
  KSP          ksp;
  MatNullSpace nsp;
  PetscInt     n      = 9, its;
  PetscReal    lambda = 1.0, err, nrm;
  PetscBool    nonear = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-lambda", &lambda, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-no_nearnull", &nonear, NULL));
  PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, n, PETSC_DECIDE,
                         PETSC_DECIDE, PETSC_DECIDE, 3, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMDASetUniformCoordinates(da, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(Assemble(da, lambda, A));
  if (!nonear) {
    PetscCall(DMGetCoordinates(da, &coords));
    PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
    PetscCall(MatSetNearNullSpace(A, nsp));
    PetscCall(MatNullSpaceDestroy(&nsp));
  }
  /* x* a smooth displacement, b = A x* */
  PetscCall(DMCreateGlobalVector(da, &xs));
  PetscCall(VecDuplicate(xs, &x));
  PetscCall(VecDuplicate(xs, &b));
  {
    PetscScalar ****u;
    PetscInt        s[3], m[3];

    PetscCall(DMDAGetCorners(da, &s[0], &s[1], &s[2], &m[0], &m[1], &m[2]));
    PetscCall(DMDAVecGetArrayDOF(da, xs, &u));
    for (PetscInt k = s[2]; k < s[2] + m[2]; k++)
      for (PetscInt j = s[1]; j < s[1] + m[1]; j++)
        for (PetscInt i = s[0]; i < s[0] + m[0]; i++)
          for (PetscInt c = 0; c < 3; c++) u[k][j][i][c] = PetscSinReal(0.3 * (i + 1) + 0.2 * (c + 1)) * PetscCosReal(0.25 * j - 0.1 * k);
    PetscCall(DMDAVecRestoreArrayDOF(da, xs, &u));
  }
  PetscCall(MatMult(A, xs, b));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(VecAXPY(x, -1.0, xs));
  PetscCall(VecNorm(x, NORM_2, &err));
  PetscCall(VecNorm(xs, NORM_2, &nrm));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "iterations %" PetscInt_FMT "\n", its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "relative error below 1e-5: %s\n", err <= 1e-5 * nrm ? "yes" : "no"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "error norm %.2e\n", (double)(err / nrm)));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&xs));
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # GAMG on elasticity of block size 3 with the rigid-body modes (as ksp ex56), and without them:
  # the plug-in's matrices and vectors give PETSc's iterations on AIJ, with the device's
  # aggregation of the blocks (agggpu, on either backend) and with PETSc's
  # (-pc_gamg_type agg);
  # tests/run holds agggpu to PETSc's iterations within 15% on a larger grid, and two processes
  # (PETSc's aggregation there) to the same iterations as PETSc's in the release tested
  testset:
    args: -n 9 -ksp_rtol 1e-8 -pc_type gamg
    filter: grep -E "^(iterations|relative)"
    output_file: output/elastic_gamg.out
    test:
      suffix: gamg_petsc
    test:
      suffix: gamg
      args: -dll_append ${LIB} -dm_mat_type {{ellrcuda diacuda}shared output} -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: gamg_agg
      args: -dll_append ${LIB} -dm_mat_type ellrcuda -dm_vec_type cuda -pc_gamg_type agg
    test:
      suffix: gamg_cggpu
      args: -dll_append ${LIB} -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_type cggpu
  testset:
    args: -n 9 -ksp_rtol 1e-8 -pc_type gamg -no_nearnull
    filter: grep -E "^(iterations|relative)"
    output_file: output/elastic_gamg_constants.out
    test:
      suffix: constants_petsc
    test:
      suffix: constants
      args: -dll_append ${LIB} -dm_mat_type ellrcuda -dm_vec_type cuda -gpukit_backend {{host cuda}shared output}
  # every coarsening of the blocks on the device
  test:
    suffix: gamg_view
    args: -n 9 -ksp_rtol 1e-8 -pc_type gamg -dll_append ${LIB} -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_view -gpukit_backend {{host cuda}shared output}
    filter: grep -E -o "Aggregation on the GPU .*coarsenings"
  # the graph of some of the blocks' rows and columns (PETSc 3.21+) is PETSc's alone, and says so
  # (the option under the prefix the release gives GAMG's coarsening: none before 3.20, pc_gamg_)
  test:
    suffix: gamg_strength_index
    args: -n 9 -ksp_rtol 1e-8 -pc_type gamg -dll_append ${LIB} -dm_mat_type ellrcuda -dm_vec_type cuda -ksp_view -gpukit_backend host -mat_coarsen_strength_index 0,1 -pc_gamg_mat_coarsen_strength_index 0,1
    filter: grep -E -o "host aggregation on the others: -mat_coarsen_strength_index"

TEST*/

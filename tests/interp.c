static char help[] = "DMDA's interpolation for the device types against PETSc's own: the same entries, exactly, and\n\
the same scale vector, 2D and 3D, refinement ratios 2 and 3, grids of any size (Q1 is built by the\n\
library: by the backend on one process, by the host's threads on several; the rest is PETSc's,\n\
converted).\n\
  -dim <d>     : 2 or 3\n\
  -n <n>       : coarse points a side (default 5)\n\
  -ratio <r>   : the refinement ratio (default 2)\n\
  -periodic    : a periodic x boundary (PETSc's own interpolation)\n\
  -dof <k>     : components (default 1)\n\
  -own <0,1>   : whether the library built it (checked)\n\n";

#include <petscdmda.h>
#include <petscgpukit.h>

/* A coarse DMDA of n points a side (n + 1 and n + 2 in y and z: rows and columns not confused)
   and its refinement by ratio, matrices of type mtype; for the device type one matrix made and
   assembled on the coarse one, which the library then wraps */
static PetscErrorCode Grids(PetscInt dim, PetscInt n, PetscInt ratio, PetscBool periodic, PetscInt dof, MatType mtype, DM *dac, DM *daf)
{
  const DMBoundaryType bx = periodic ? DM_BOUNDARY_PERIODIC : DM_BOUNDARY_NONE;
  PetscBool            dev;

  PetscFunctionBegin;
  if (dim == 2)
    PetscCall(DMDACreate2d(PETSC_COMM_WORLD, bx, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n + 1, PETSC_DECIDE, PETSC_DECIDE, dof, 1, NULL, NULL, dac));
  else
    PetscCall(DMDACreate3d(PETSC_COMM_WORLD, bx, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n + 1, n + 2, PETSC_DECIDE, PETSC_DECIDE,
                           PETSC_DECIDE, dof, 1, NULL, NULL, NULL, dac));
  PetscCall(DMSetMatType(*dac, mtype));
  PetscCall(DMSetUp(*dac));
  PetscCall(PetscStrcmp(mtype, MATELLRCUDA, &dev));
  if (dev) {
    Mat A;

    PetscCall(DMCreateMatrix(*dac, &A));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(DMDASetRefinementFactor(*dac, ratio, ratio, ratio));
  PetscCall(DMRefine(*dac, PETSC_COMM_WORLD, daf));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt    dim = 2, n = 5, ratio = 2, dof = 1;
  PetscBool   periodic = PETSC_FALSE, own = PETSC_TRUE, eq, isdev;
  PetscObject arrays;
  DM          dac[2], daf[2];
  Mat         P[2], Paij;
  Vec         scale[2];
  PetscReal   d;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ratio", &ratio, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dof", &dof, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-periodic", &periodic, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-own", &own, NULL));
  /* [0]: PETSc alone (AIJ); [1]: the device type */
  for (PetscInt t = 0; t < 2; t++) PetscCall(Grids(dim, n, ratio, periodic, dof, t ? MATELLRCUDA : MATAIJ, &dac[t], &daf[t]));
  for (PetscInt t = 0; t < 2; t++) PetscCall(DMCreateInterpolation(dac[t], daf[t], &P[t], &scale[t]));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)P[1], &isdev, MATSEQELLRCUDA, MATMPIELLRCUDA, ""));
  PetscCheck(isdev, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The interpolation is not a device matrix");
  /* the library's own says so by what it composes on the matrix */
  PetscCall(PetscObjectQuery((PetscObject)P[1], "GKInterpolationQ1", &arrays));
  PetscCheck(!arrays == !own, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The interpolation was %s, not %s", arrays ? "the library's own" : "PETSc's",
             own ? "the library's own" : "PETSc's");
  /* entry by entry (a MAIJ of PETSc's expanded as the library expands it) */
  PetscCall(MatConvert(P[1], MATAIJ, MAT_INITIAL_MATRIX, &Paij));
  if (dof > 1) PetscCall(MatConvert(P[0], MATAIJ, MAT_INPLACE_MATRIX, &P[0]));
  PetscCall(MatEqual(P[0], Paij, &eq));
  PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The device type's interpolation differs from PETSc's");
  PetscCall(VecAXPY(scale[1], -1.0, scale[0]));
  PetscCall(VecNorm(scale[1], NORM_INFINITY, &d));
  PetscCheck(d == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The scale vectors differ by %g", (double)d);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%dD, ratio %d: the interpolation and its scale equal PETSc's\n", (int)dim, (int)ratio));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&P[t]));
    PetscCall(VecDestroy(&scale[t]));
    PetscCall(DMDestroy(&dac[t]));
    PetscCall(DMDestroy(&daf[t]));
  }
  PetscCall(MatDestroy(&Paij));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the library's own Q1, 2D and 3D, ratios 2 and 3, one to three processes, both backends
  test:
    suffix: q1
    nsize: {{1 2 3}shared output}
    args: -dim {{2 3}separate output} -ratio {{2 3}separate output} -n {{2 5}shared output} -gpukit_backend {{host cuda}shared output}

  test:
    suffix: mpi
    nsize: 3
    args: -dim 3 -n 6

  # on one process the backend makes it (its kernels, or its host twin)
  test:
    suffix: q1_backend
    args: -dim {{2 3}separate output} -ratio 3 -n 7 -info
    filter: grep -o "rows made by the [a-z]* backend\|interpolation and its scale equal PETSc's" | sed "s/the [a-z]* backend/the backend/" | sort -u

  # on several processes the host's threads write each process's rows: fine grids large enough
  # for them to share the rows (more threads than cores where the machine has fewer)
  testset:
    nsize: 2
    args: -ratio 2 -gpukit_host_threads 4 -info
    filter: grep -o "written by [0-9]* threads\|interpolation and its scale equal PETSc's" | sort -u
    test:
      suffix: q1_threads_2d
      args: -dim 2 -n 170
    test:
      suffix: q1_threads_3d
      args: -dim 3 -n 30

  # PETSc's own, converted: a periodic boundary, two components
  test:
    suffix: petsc
    nsize: {{1 2}shared output}
    args: -dim {{2 3}separate output} -periodic -own 0
  test:
    suffix: dof
    nsize: {{1 2}shared output}
    args: -dim 2 -dof 2 -own 0

TEST*/

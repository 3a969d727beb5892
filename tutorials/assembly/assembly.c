static char help[] = "Assembly on the GPU: implicit diffusion with a coefficient that changes every time step,\n\
  (I + dt L(t)) u_new = u_old,  L(t) u = -div(k(x, y, t) grad u),  k = 1 + t x^2 y^2,\n\
on the unit square (n x n cells, finite volumes, u = 0 outside). The matrix changes each step. Its\n\
pattern is given once (MatSetPreallocationCOO); each step its values are computed on the GPU, with\n\
the library's vector operations on device vectors, and handed to MatSetValuesCOO from device\n\
memory: they are summed on the GPU straight into the device matrix (on several processes the\n\
entries of other processes' rows pass through the host).\n\
Linked with the library (-lpetscgpukit, petscgpukit.h) for the device arrays.\n\
Options:\n\
  -n <n>       : cells a side (default 128)\n\
  -steps <s>   : time steps (default 5)\n\
  -dt <dt>     : the time step (default 0.01)\n\
  -mat_type    : ellrcuda (default) or diacuda\n\
  -spd <b>     : declare the matrix symmetric positive definite (MatSetOption MAT_SPD; default\n\
                 true, as PETSc asks of such matrices: PCJacobi then makes no host pass over the\n\
                 diagonal for zeros, and GAMG estimates eigenvalues with CG)\n\
  -check       : assemble every step's matrix again with MatSetValues on AIJ, from the same formula\n\
                 computed on the host, and compare\n\n";

#include <petscksp.h>
#include <petscgpukit.h>

/*
   The entries of cell i (row i), nine: the identity's (i, i), then for each of its four faces
   (i, i) +c k_f and (i, j) -c k_f, j the neighbour across the face, -1 on the boundary (a
   negative index: MatSetValuesCOO drops the entry, the face's flux into u = 0 stays on the
   diagonal). c = dt/h^2 and k_f is k at the face's centre. The repeated (i, i) are summed.
   What an entry needs besides t: its face's centre (X, Y), its factor S (+c, -c, 0 for the
   identity's) and I (1 for the identity's, else 0), so that its value is
     v = S (1 + t X^2 Y^2) + I,
   computed on the device from these four vectors, made once.
*/
#define GK_ENTRIES 9

static PetscReal Coefficient(PetscReal x, PetscReal y, PetscReal t)
{
  return 1 + t * x * x * y * y;
}

int main(int argc, char **argv)
{
  PetscInt      n = 128, steps = 5, rs, re, nl;
  PetscReal     dt       = 0.01, h, c;
  PetscBool     check    = PETSC_FALSE;
  char          type[64] = MATELLRCUDA;
  Mat           A, Acheck = NULL;
  Vec           X, Y, S, Id, V, u, uold;
  KSP           ksp;
  PetscInt     *ci, *cj;
  PetscScalar  *x, *y, *s, *id;
  PetscMPIInt   size;
  PetscLogStage stage[2];
  PetscBool     spd = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mat_type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-spd", &spd, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-check", &check, NULL));
  PetscCheck(n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n must be at least 2, not %" PetscInt_FMT, n);
  h = 1.0 / n;
  c = dt / (h * h);

  /* the matrix: this process's rows, its entries' pattern given once */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(A, type));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSetUp(A));
  PetscCall(MatSetOption(A, MAT_SPD, spd));
  PetscCall(MatSetOption(A, MAT_SPD_ETERNAL, PETSC_TRUE)); /* every step's matrix */
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  nl = GK_ENTRIES * (re - rs);
  PetscCall(PetscMalloc6(nl, &ci, nl, &cj, nl, &x, nl, &y, nl, &s, nl, &id));
  for (PetscInt i = rs, e = 0; i < re; i++) {
    const PetscInt  col = i % n, row = i / n;
    const PetscReal xc = (col + 0.5) * h, yc = (row + 0.5) * h;
    /* the faces west, east, south, north: the neighbour and the face's centre */
    const PetscInt  nb[4] = {col > 0 ? i - 1 : -1, col < n - 1 ? i + 1 : -1, row > 0 ? i - n : -1, row < n - 1 ? i + n : -1};
    const PetscReal fx[4] = {xc - h / 2, xc + h / 2, xc, xc}, fy[4] = {yc, yc, yc - h / 2, yc + h / 2};

    ci[e] = cj[e] = i;
    x[e] = y[e] = s[e] = 0;
    id[e++]            = 1;
    for (PetscInt f = 0; f < 4; f++)
      for (PetscInt k = 0; k < 2; k++, e++) {
        ci[e] = i;
        cj[e] = k ? nb[f] : i;
        x[e]  = fx[f];
        y[e]  = fy[f];
        s[e]  = k ? -c : c;
        id[e] = 0;
      }
  }
  { /* MatSetPreallocationCOO() may reorder the lists it is given: -check keeps them */
    PetscInt *ti, *tj;

    PetscCall(PetscMalloc2(nl, &ti, nl, &tj));
    PetscCall(PetscArraycpy(ti, ci, nl));
    PetscCall(PetscArraycpy(tj, cj, nl));
    PetscCall(MatSetPreallocationCOO(A, nl, ti, tj));
    PetscCall(PetscFree2(ti, tj));
  }

  /* the entries' geometry as device vectors (one copy up, once) */
  {
    Vec         *geo[4] = {&X, &Y, &S, &Id};
    PetscScalar *src[4] = {x, y, s, id};

    for (PetscInt g = 0; g < 4; g++) {
      PetscScalar *a;

      PetscCall(VecCreate(PETSC_COMM_SELF, geo[g]));
      PetscCall(VecSetSizes(*geo[g], nl, nl));
      PetscCall(VecSetType(*geo[g], VECGKCUDA));
      PetscCall(VecGetArrayWrite(*geo[g], &a));
      PetscCall(PetscArraycpy(a, src[g], nl));
      PetscCall(VecRestoreArrayWrite(*geo[g], &a));
    }
  }
  PetscCall(VecDuplicate(X, &V));

  /* u_old: a warm square in the middle */
  PetscCall(MatCreateVecs(A, &u, &uold));
  for (PetscInt i = rs; i < re; i++) {
    const PetscReal xc = (i % n + 0.5) * h, yc = (i / n + 0.5) * h;

    if (PetscAbsReal(xc - 0.5) < 0.25 && PetscAbsReal(yc - 0.5) < 0.25) PetscCall(VecSetValue(uold, i, 1.0, INSERT_VALUES));
  }
  PetscCall(VecAssemblyBegin(uold));
  PetscCall(VecAssemblyEnd(uold));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCGGPU));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));

  /* the first step's work (the matrix's first device copy, the preconditioner's first setup) and
     the later steps' in log stages of their own (-log_view) */
  PetscCall(PetscLogStageRegister("First step", &stage[0]));
  PetscCall(PetscLogStageRegister("Later steps", &stage[1]));
  for (PetscInt step = 1; step <= steps; step++) {
    const PetscReal           t = step * dt;
    const PetscScalar        *dv;
    PetscInt                  its;
    PetscReal                 nrm;
    PetscGPUKitTransferCounts c0, c1;

    /* the values on the device: V = S (1 + t X^2 Y^2) + I */
    PetscCall(PetscLogStagePush(stage[step > 1]));
    PetscCall(VecPointwiseMult(V, X, X));
    PetscCall(VecPointwiseMult(V, V, Y));
    PetscCall(VecPointwiseMult(V, V, Y));
    PetscCall(VecScale(V, t));
    PetscCall(VecShift(V, 1.0));
    PetscCall(VecPointwiseMult(V, V, S));
    PetscCall(VecAXPY(V, 1.0, Id));
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(VecGPUKitGetDeviceArrayRead(V, &dv));
    PetscCall(MatSetValuesCOO(A, dv, INSERT_VALUES));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(V, &dv));
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    /* one process, after the first step (which made the device matrix): nothing went up to the
       device for the new values (they went down once, to the host matrix underneath) */
    if (size == 1 && step > 1)
      PetscCheck(c1.h2d_count == c0.h2d_count, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The assembly copied %g times to the device",
                 c1.h2d_count - c0.h2d_count);

    if (check) { /* the same matrix from MatSetValues on AIJ, the formula on the host */
      PetscBool eq;

      if (!Acheck) {
        PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, re - rs, re - rs, n * n, n * n, 5, NULL, 2, NULL, &Acheck));
        PetscCall(MatSetOption(Acheck, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
      }
      PetscCall(MatZeroEntries(Acheck));
      for (PetscInt e = 0; e < nl; e++)
        if (cj[e] >= 0)
          PetscCall(MatSetValue(Acheck, ci[e], cj[e], s[e] * Coefficient(PetscRealPart(x[e]), PetscRealPart(y[e]), t) + id[e], ADD_VALUES));
      PetscCall(MatAssemblyBegin(Acheck, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(Acheck, MAT_FINAL_ASSEMBLY));
      PetscCall(MatMultEqual(A, Acheck, 3, &eq));
      PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Step %" PetscInt_FMT ": the matrix assembled on the device differs from MatSetValues' on AIJ",
                 step);
    }

    PetscCall(KSPSolve(ksp, uold, u));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    PetscCall(VecNorm(u, NORM_1, &nrm));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "step %" PetscInt_FMT ": %" PetscInt_FMT " iterations, heat %.6f%s\n", step, its, (double)(nrm * h * h),
                          check ? ", matrix equal to AIJ's" : ""));
    PetscCall(VecCopy(u, uold));
    PetscCall(PetscLogStagePop());
  }

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&uold));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&S));
  PetscCall(VecDestroy(&Id));
  PetscCall(VecDestroy(&V));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Acheck));
  PetscCall(PetscFree6(ci, cj, x, y, s, id));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # one process: the values summed on the device (host and GPU print the same)
  test:
    args: -n 32 -steps 3 -check -mat_type {{ellrcuda diacuda}shared output} -pc_type jacobi -gpukit_backend {{host cuda}shared output}
    output_file: output/assembly.out

  # several processes: MPIAIJ's assembly on the values copied down
  test:
    suffix: mpi
    nsize: {{2 3}shared output}
    args: -n 32 -steps 3 -check -pc_type jacobi
    output_file: output/assembly.out

TEST*/

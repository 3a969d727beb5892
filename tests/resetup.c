static char help[] = "PCGAMG's setup again for a new matrix of the same pattern, with the aggregates kept\n\
(-pc_gamg_agggpu_reuse_aggregates), against a full setup of the same matrix.\n\
  -n <n>       : grid points a side of the 2D problem -div(k grad u) = f (5-point stencil)\n\
  -change <c>  : the new values: scale (the matrix times 3: the same aggregates as a full setup)\n\
                 or coefficient (k = 1 + 50 x^2 y: other values, other strengths)\n\
  -coo <b>     : assemble with MatSetValuesCOO() (default) or MatSetValues()\n\
  -steps <s>   : how many new matrices (default 2)\n\
  -bs <bs>     : 1, or 2 for two copies of the problem interleaved (a block size of 2)\n\n";

/*
   One KSP (prefix reuse_) solves with the first matrix, then with each new one, its PC set up
   again; a second KSP (prefix full_), made for each new matrix, sets up from nothing. With the
   option given to the first, the re-setup must keep the aggregates (its -pc_view says how many
   setups did), bring down fewer bytes than the full setup does (the levels' values stay on the
   device: the prolongators' and the Galerkin products' host values are left behind, as their
   host patterns are in either setup; what comes down is the coarsest level's, for its LU), and solve as the full setup does. Under PETSc's
   -pc_gamg_reuse_interpolation the smoothers' Chebyshev estimates run again in the re-setup, and
   their PCJacobi's fix of zero diagonal entries brings each level's diagonal down (the full
   setup takes the estimates from the prolongators' smoothing, whose PCJacobi pass the library
   skips where the device finds no zero): more than the full setup, which the output says (on
   one process: on several the rows of the products and of the smoothing come down to be
   written into the matrices in either setup, and no bytes are compared). With change scale, the same iterations and the
   same solution to roundoff; with change coefficient, iterations within 15% of the full setup's
   and the same true residual tolerance. Without the option the re-setup is a full one (the
   output says so). Host and CUDA backends print the same. On several processes each process
   assembles its rows. With -bs 2 the two copies (the second's values doubled) give GAMG two
   near-null-space vectors, the constants of each.
*/
#include <petscksp.h>
#include <petscgpukit.h>
#include "testutil.h"

typedef enum {
  SCALE,
  COEFFICIENT
} Change;
static const char *const Changes[] = {"scale", "coefficient", "Change", "", NULL};

/* the matrix of step s (0: the first): -div(k grad u) on the n x n interior points of the unit
   square (Dirichlet), k at the faces' centres */
static PetscReal K(Change c, PetscInt s, PetscReal x, PetscReal y)
{
  if (c == SCALE) return s ? 3.0 : 1.0;
  return 1.0 + 50.0 * s * x * x * y;
}

static PetscErrorCode Assemble(Mat A, PetscInt n, Change c, PetscInt s, PetscBool coo)
{
  const PetscReal h  = 1.0 / (n + 1);
  PetscInt        nz = 0, *ci = NULL, *cj = NULL, bs, rstart, rend;
  PetscScalar    *cv;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(PetscMalloc3(5 * (rend - rstart), &ci, 5 * (rend - rstart), &cj, 5 * (rend - rstart), &cv));
  for (PetscInt row = rstart; row < rend; row++) { /* a copy's point r: row r bs + copy */
    const PetscInt  yi = row / bs / n, xi = row / bs % n, cp = row % bs, r = yi * n + xi;
    const PetscReal x = (xi + 1) * h, y = (yi + 1) * h;
    const PetscReal kf[4] = {K(c, s, x - h / 2, y), K(c, s, x + h / 2, y), K(c, s, x, y - h / 2), K(c, s, x, y + h / 2)};
    const PetscInt  nb[4] = {xi > 0 ? r - 1 : -1, xi < n - 1 ? r + 1 : -1, yi > 0 ? r - n : -1, yi < n - 1 ? r + n : -1};
    PetscScalar     diag  = 0;

    for (int f = 0; f < 4; f++) {
      diag += kf[f];
      if (nb[f] < 0) continue;
      ci[nz]   = r * bs + cp;
      cj[nz]   = nb[f] * bs + cp;
      cv[nz++] = -kf[f] * (1 + cp);
    }
    ci[nz]   = r * bs + cp;
    cj[nz]   = r * bs + cp;
    cv[nz++] = diag * (1 + cp);
  }
  if (coo) {
    if (!s) PetscCall(MatSetPreallocationCOO(A, nz, ci, cj));
    PetscCall(MatSetValuesCOO(A, cv, INSERT_VALUES));
  } else {
    for (PetscInt k = 0; k < nz; k++) PetscCall(MatSetValue(A, ci[k], cj[k], cv[k], INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(PetscFree3(ci, cj, cv));
  PetscFunctionReturn(0);
}

/* a solver of A with the options of prefix; its setup's bytes copied down (*d2h) */
static PetscErrorCode Solve(KSP ksp, Vec b, Vec x, PetscInt *its, PetscLogDouble *d2h)
{
  PetscGPUKitTransferCounts c0, c1;
  KSPConvergedReason        reason;
  PC                        pc;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(PCSetUp(pc));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  *d2h = c1.d2h_bytes - c0.d2h_bytes;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, d2h, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PetscObjectComm((PetscObject)ksp)));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "The solve did not converge: %s", KSPConvergedReasons[reason]);
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscFunctionReturn(0);
}

static PetscErrorCode MakeKSP(Mat A, const char *prefix, KSP *ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOptionsPrefix(*ksp, prefix));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, KSPCG));
  PetscCall(KSPSetTolerances(*ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  {
    PC pc;

    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
  }
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt       n = 48, steps = 2, its0, its, itsf, bs = 1, start, end;
  Change         change = SCALE;
  PetscBool      coo    = PETSC_TRUE;
  Mat            A;
  Vec            b, x, xf;
  KSP            ksp;
  PetscLogDouble d2h0, d2h, d2hf;
  PetscMPIInt    size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-change", Changes, (PetscEnum *)&change, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-coo", &coo, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, n * n * bs, n * n * bs));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatSetType(A, MATELLRCUDA));
  PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 2, NULL));
  PetscCall(Assemble(A, n, change, 0, coo));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xf));
  {
    PetscScalar *a;

    PetscCall(VecGetOwnershipRange(b, &start, &end));
    PetscCall(VecGetArrayWrite(b, &a));
    for (PetscInt i = start; i < end; i++) a[i - start] = PetscSinReal(0.37 * i) + 0.5;
    PetscCall(VecRestoreArrayWrite(b, &a));
  }
  PetscCall(MakeKSP(A, "reuse_", &ksp));
  PetscCall(Solve(ksp, b, x, &its0, &d2h0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "first matrix: %" PetscInt_FMT " iterations\n", its0));
  for (PetscInt s = 1; s <= steps; s++) {
    KSP       kspf;
    PetscReal nd, nx, rr, rf, rtol;

    PetscCall(Assemble(A, n, change, s, coo));
    PetscCall(Solve(ksp, b, x, &its, &d2h));
    PetscCall(MakeKSP(A, "full_", &kspf));
    PetscCall(Solve(kspf, b, xf, &itsf, &d2hf));
    PetscCall(TestTrueResidual(A, x, b, &rr));
    PetscCall(TestTrueResidual(A, xf, b, &rf));
    PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
    PetscCheck(rr < 100 * rtol && rf < 100 * rtol, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
               "True residuals %g (setup again) and %g (full setup) above 100 rtol", (double)rr, (double)rf);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %" PetscInt_FMT ":", s));
    if (size == 1) /* on several processes the products' and the smoothing's rows come down to be written into the matrices, in either setup */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " the setup brought down %s,",
                            d2h < d2hf ? "less than a full setup does" : (d2h == d2hf ? "as much as a full setup" : "more than a full setup does")));
    if (change == SCALE) {
      PetscCall(TestDiffNorms(x, xf, NORM_2, &nd, &nx));
      PetscCheck(its == itsf && nd <= 1e-8 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                 "Matrix %" PetscInt_FMT ": %" PetscInt_FMT " iterations and %" PetscInt_FMT " with a full setup, solutions %g apart", s, its, itsf,
                 (double)(nd / nx));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " iterations and solution a full setup's (%" PetscInt_FMT ")\n", its));
    } else {
      PetscCheck(its <= PetscCeilReal(1.15 * itsf), PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                 "Matrix %" PetscInt_FMT ": %" PetscInt_FMT " iterations, a full setup's %" PetscInt_FMT, s, its, itsf);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " iterations within 15%% of a full setup's\n"));
    }
    PetscCall(KSPDestroy(&kspf));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xf));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the KSP's view after each solve says how many setups kept the aggregates
  testset:
    args: -n 48 -reuse_pc_gamg_type agggpu -full_pc_gamg_type agggpu -reuse_ksp_view -gpukit_backend {{host cuda}shared output}
    filter: grep -E "^(first )?matrix|setups of the last|Hierarchy in single"
    # PETSc's default (-pc_gamg_reuse_interpolation): the prolongators kept whole, the Galerkin
    # products' numeric steps in place on the device
    test:
      suffix: interpolation
      args: -change {{scale coefficient}separate output} -coo {{0 1}separate output}
    # the aggregates kept, the prolongators smoothed again
    test:
      suffix: aggregates
      args: -reuse_pc_gamg_reuse_interpolation 0 -reuse_pc_gamg_agggpu_reuse_aggregates -change {{scale coefficient}separate output} -steps 3
    # neither: every setup a full one
    test:
      suffix: full
      args: -reuse_pc_gamg_reuse_interpolation 0 -change scale
    # the hierarchy in single-precision storage (both KSPs): the products' new values made single
    # in place, as the full setup makes them
    test:
      suffix: single
      args: -reuse_pc_mg_gpukit_storage single -full_pc_mg_gpukit_storage single -change {{scale coefficient}separate output}

  # several processes: the aggregates kept on each process's device, the prolongators' rows
  # smoothed again there and written into the kept prolongators
  testset:
    nsize: {{2 3}shared output}
    args: -n 48 -reuse_pc_gamg_type agggpu -full_pc_gamg_type agggpu -reuse_ksp_view -gpukit_backend {{host cuda}shared output} -reuse_pc_gamg_reuse_interpolation 0 -reuse_pc_gamg_agggpu_reuse_aggregates -steps 3
    filter: grep -E "^(first )?matrix|setups of the last|several processes"
    test:
      suffix: mpi
      args: -change {{scale coefficient}separate output}

  # a block size of 2 (two near-null-space vectors: the blocks' graph, their QR), on one process
  # and on two
  testset:
    args: -n 32 -bs 2 -reuse_pc_gamg_type agggpu -full_pc_gamg_type agggpu -reuse_ksp_view -gpukit_backend {{host cuda}shared output} -reuse_pc_gamg_reuse_interpolation 0 -reuse_pc_gamg_agggpu_reuse_aggregates -steps 2 -change coefficient
    filter: grep -E "^(first )?matrix|setups of the last"
    test:
      suffix: block
    test:
      suffix: block_mpi
      nsize: 2

TEST*/

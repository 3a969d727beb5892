static char
  help[] = "cggpu and bicggpu with preconditioners the fused kernels do not apply, against PETSc's CG and BiCG with the same preconditioner on AIJ.\n\
  -type <ellrcuda,diacuda,aij> : the matrix type of the device solves (aij: AIJ with the library's vectors)\n\
  -n <n>                       : grid points per side\n\n";

/*
   The general path of cggpu and bicggpu (src/ksp/impls/gk/general.c): with a PC other than none,
   jacobi, or ssorgpu under cggpu on one process, PETSc's own CG or BiCG iterates on the device
   matrix and vectors. Each case solves one system twice, with the plug-in's KSP on the device
   matrix and with PETSc's on AIJ, the same PC on both: the iteration counts must be equal, the
   convergence reasons too, the solutions agree to the tolerance, the outer KSP's monitor must
   see every iteration. Prints one verdict line a case.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include "testutil.h"

/* The 5-point Laplacian with a varying diagonal, symmetric and known so, on an n x n grid */
static PetscErrorCode Operator(PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n;

    if (i > 0) PetscCall(MatSetValue(*A, r, r - n, -1.0, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, r, r, 4.0 + 0.25 * (j % 3), INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, r, r + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Counts the outer KSP's monitor calls */
static PetscErrorCode CountMonitor(KSP ksp, PetscInt its, PetscReal rnorm, void *ctx)
{
  PetscFunctionBegin;
  (*(PetscInt *)ctx)++;
  PetscFunctionReturn(0);
}

typedef struct {
  const char *what;
  KSPType     ours, petsc;
  PCType      pc;
  const char *opts; /* PC options, set before KSPSetFromOptions */
  KSPNormType norm;
  PetscBool   transpose;
} Case;

/* One solve of A x = b (A^T x = b) with method ktype and the case's PC; its iterations, reason
   and the monitor's calls */
static PetscErrorCode Solve(Mat A, KSPType ktype, const Case *c, Vec b, Vec x, PetscInt *its, KSPConvergedReason *reason, PetscInt *calls)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInsertString(NULL, c->opts));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ktype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, c->pc));
  PetscCall(KSPSetTolerances(ksp, 1e-9, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetNormType(ksp, c->norm));
  PetscCall(KSPSetFromOptions(ksp));
  *calls = 0;
  PetscCall(KSPMonitorSet(ksp, CountMonitor, calls, NULL));
  PetscCall(VecSet(x, 0.0));
  if (c->transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PetscOptionsClearValue(NULL, "-pc_ssorgpu_type"));
  PetscCall(PetscOptionsClearValue(NULL, "-sub_pc_type"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat         A, D;
  Vec         b, xr, xd, bd, xdd;
  PetscInt    n        = 20;
  char        type[64] = MATELLRCUDA;
  PetscMPIInt size;
  PetscBool   aij;
  /* ssorgpu's neumann series offers no Eisenstat step, and on several processes none does: the
     general path; natural on one process is the fused Eisenstat step, whose natural norm is
     SSOR-preconditioned CG's */
  const Case cases[] = {
    {"block Jacobi",                        KSPCGGPU,   KSPCG,   PCBJACOBI, "",                            KSP_NORM_PRECONDITIONED,   PETSC_FALSE},
    {"block Jacobi, unpreconditioned norm", KSPCGGPU,   KSPCG,   PCBJACOBI, "",                            KSP_NORM_UNPRECONDITIONED, PETSC_FALSE},
    {"block Jacobi, natural norm",          KSPCGGPU,   KSPCG,   PCBJACOBI, "",                            KSP_NORM_NATURAL,          PETSC_FALSE},
    {"block Jacobi, transpose",             KSPCGGPU,   KSPCG,   PCBJACOBI, "",                            KSP_NORM_PRECONDITIONED,   PETSC_TRUE },
    {"ssorgpu neumann",                     KSPCGGPU,   KSPCG,   PCSSORGPU, "-pc_ssorgpu_type neumann",    KSP_NORM_PRECONDITIONED,   PETSC_FALSE},
    {"ssorgpu natural",                     KSPCGGPU,   KSPCG,   PCSSORGPU, "-pc_ssorgpu_type natural",    KSP_NORM_NATURAL,          PETSC_FALSE},
    {"block Jacobi",                        KSPBICGGPU, KSPBICG, PCBJACOBI, "",                            KSP_NORM_PRECONDITIONED,   PETSC_FALSE},
    {"ssorgpu multicolor",                  KSPBICGGPU, KSPBICG, PCSSORGPU, "-pc_ssorgpu_type multicolor", KSP_NORM_PRECONDITIONED,   PETSC_FALSE},
    {"block Jacobi, transpose",             KSPBICGGPU, KSPBICG, PCBJACOBI, "",                            KSP_NORM_UNPRECONDITIONED, PETSC_TRUE },
  };

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(Operator(n, &A));
  PetscCall(PetscStrcmp(type, MATAIJ, &aij));
  if (aij) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
    PetscCall(MatSetVecType(D, VECGKCUDA));
  } else PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &D));
  PetscCall(MatSetOption(D, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(MatSetOption(D, MAT_SPD, PETSC_TRUE));
  PetscCall(MatCreateVecs(A, &xr, &b));
  PetscCall(MatCreateVecs(D, &xd, &bd));
  PetscCall(VecDuplicate(xd, &xdd));
  PetscCall(VecSetRandom(b, NULL));
  PetscCall(VecCopy(b, bd));
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    const Case        *c = &cases[k];
    PetscInt           its[2], calls[2];
    KSPConvergedReason reason[2];
    PetscReal          nd, na;

    PetscCall(Solve(A, c->petsc, c, b, xr, &its[0], &reason[0], &calls[0]));
    PetscCall(Solve(D, c->ours, c, bd, xd, &its[1], &reason[1], &calls[1]));
    PetscCall(VecCopy(xd, xdd));
    PetscCall(VecCopy(xr, xd));
    PetscCall(TestDiffNorms(xdd, xd, NORM_2, &nd, &na));
    PetscCheck(its[0] == its[1] && reason[0] == reason[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
               "%s with %s: %" PetscInt_FMT " iterations (%s), %s: %" PetscInt_FMT " (%s)", c->ours, c->what, its[1], KSPConvergedReasons[reason[1]],
               c->petsc, its[0], KSPConvergedReasons[reason[0]]);
    PetscCheck(reason[1] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s with %s did not converge: %s", c->ours, c->what, KSPConvergedReasons[reason[1]]);
    PetscCheck(nd <= 1e-6 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s with %s: the solutions differ by %g relative", c->ours, c->what,
               (double)(nd / na));
    PetscCheck(calls[1] == its[1] + 1 && calls[0] == calls[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
               "%s with %s: the monitor saw %" PetscInt_FMT " norms for %" PetscInt_FMT " iterations (%s's %" PetscInt_FMT ")", c->ours, c->what,
               calls[1], its[1], c->petsc, calls[0]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-7s %-36s %-16s%s: %s's iterations and reason (%s), the solutions agree to 1e-6\n", c->ours, c->what,
                          KSPNormTypes[c->norm], c->transpose ? " A^T" : "", c->petsc, KSPConvergedReasons[reason[1]]));
  }
  PetscCall(VecDestroy(&xdd));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&bd));
  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&D));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the same verdicts on one process and on several (the ssorgpu cases: local sweeps there, as
  # PCSOR's), on both formats and on AIJ with the library's vectors, on the host and the GPU
  testset:
    output_file: output/general.out
    test:
      suffix: ellrcuda
      nsize: {{1 2 3}shared output}
      args: -type ellrcuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: diacuda
      nsize: {{1 2}shared output}
      args: -type diacuda -mat_diacuda_max_fill 100
    test:
      suffix: aij
      args: -type aij

TEST*/

static char help[] = "PETSc's Krylov methods on the device types against the same solves on AIJ and standard vectors.\n\
  -type <aij,ellrcuda,diacuda> : the matrix type of the device solve (aij: an AIJ matrix with cuda vectors)\n\
  -n <n>                       : grid points per side\n\
  -copies                      : instead, count host/device copies inside a CG solve\n\n";

/*
   For each method and each of PCNONE and PCJACOBI: the reference solve (AIJ matrix, standard
   vectors) and the device solve (-type matrix, cuda vectors) from the same right-hand side;
   their iteration counts must agree within one (the device's sums round differently) and their
   solutions within the tolerance. With -copies: after KSPSetUp, the right-hand side made on the
   device, 100 iterations of CG with Jacobi must copy no vector between host and device.
*/
#include <petscgpukit.h>
#include <petscksp.h>

#if defined(PETSC_USE_COMPLEX)
  #define CPLX(re, im) ((re) + (im) * PETSC_i)
#else
  #define CPLX(re, im) (re)
#endif

/* The 5-point Laplacian (SPD), or with an upwinded convection term (nonsymmetric; complex in
   complex builds), on an n x n grid distributed by rows */
static PetscErrorCode Operator(PetscInt n, PetscBool convection, Mat *A)
{
  PetscInt          rstart, rend;
  const PetscScalar c = convection ? CPLX(0.4, 0.2) : 0.0;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n;

    if (i > 0) PetscCall(MatSetValue(*A, r, r - n, -1.0 - c, INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0 - c, INSERT_VALUES));
    PetscCall(MatSetValue(*A, r, r, 4.0 + 2.0 * c + 0.5 * (j % 5), INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, r, r + n, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  if (!convection) PetscCall(MatSetOption(*A, MAT_SPD, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* The device counterpart of A: converted to type, or (aij) A itself handing out cuda vectors */
static PetscErrorCode DeviceOperator(Mat A, const char *type, Mat *D)
{
  PetscBool aij, set, spd;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, MATAIJ, &aij));
  if (aij) {
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, D));
    PetscCall(MatSetVecType(*D, VECGKCUDA));
  } else PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, D));
  /* SPD known, PCJACOBI skips its host pass over the diagonal looking for zeros */
  PetscCall(MatIsSPDKnown(A, &set, &spd));
  if (set) PetscCall(MatSetOption(*D, MAT_SPD, spd));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(Mat A, KSPType ktype, PCType ptype, Vec b, Vec x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, ktype));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, ptype));
  PetscCall(KSPSetTolerances(ksp, 1e-9, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* the right-hand side b = A u for a u of varying entries, in the vector types of A */
static PetscErrorCode RightHandSide(Mat A, Vec *b, Vec *x)
{
  Vec          u;
  PetscInt     rstart, rend;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &u, b));
  PetscCall(VecDuplicate(u, x));
  PetscCall(VecGetOwnershipRange(u, &rstart, &rend));
  PetscCall(VecGetArray(u, &a));
  for (PetscInt i = rstart; i < rend; i++) a[i - rstart] = 1.0 + 0.5 * PetscSinReal(0.1 * i);
  PetscCall(VecRestoreArray(u, &a));
  PetscCall(MatMult(A, u, *b));
  PetscCall(VecDestroy(&u));
  PetscFunctionReturn(0);
}

/* CG, MINRES and CR need a symmetric (Hermitian) operator */
static PetscErrorCode NeedsSymmetric(const char *type, PetscBool *symmetric)
{
  PetscBool cg = PETSC_FALSE, minres = PETSC_FALSE, cr = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, KSPCG, &cg));
  PetscCall(PetscStrcmp(type, KSPMINRES, &minres));
  PetscCall(PetscStrcmp(type, KSPCR, &cr));
  *symmetric = (PetscBool)(cg || minres || cr);
  PetscFunctionReturn(0);
}

static PetscErrorCode CompareSolves(PetscInt n, const char *type)
{
  const KSPType ktypes[] = {KSPCG, KSPBICG, KSPBCGS, KSPGMRES, KSPMINRES, KSPCR, KSPTFQMR};
  const PCType  ptypes[] = {PCNONE, PCJACOBI};
  Mat           A[2], D[2];

  PetscFunctionBegin;
  PetscCall(Operator(n, PETSC_FALSE, &A[0]));
  PetscCall(Operator(n, PETSC_TRUE, &A[1]));
  PetscCall(DeviceOperator(A[0], type, &D[0]));
  PetscCall(DeviceOperator(A[1], type, &D[1]));
  for (size_t k = 0; k < PETSC_STATIC_ARRAY_LENGTH(ktypes); k++) {
    PetscBool symmetric = PETSC_FALSE;
    const int s = 0, c = 1;

    PetscCall(NeedsSymmetric(ktypes[k], &symmetric));
    for (size_t p = 0; p < PETSC_STATIC_ARRAY_LENGTH(ptypes); p++) {
      const int          o = symmetric ? s : c;
      Vec                b, x, bd, xd;
      PetscInt           its, itsd;
      KSPConvergedReason reason, reasond;
      PetscReal          nx, diff;
      const PetscScalar *xa;
      VecType            vt;

      PetscCall(RightHandSide(A[o], &b, &x));
      PetscCall(RightHandSide(D[o], &bd, &xd));
      PetscCall(VecGetType(xd, &vt));
      PetscCall(Solve(A[o], ktypes[k], ptypes[p], b, x, &its, &reason));
      PetscCall(Solve(D[o], ktypes[k], ptypes[p], bd, xd, &itsd, &reasond));
      PetscCall(VecNorm(x, NORM_2, &nx));
      PetscCall(VecGetArrayRead(xd, &xa)); /* compare on the host: the types differ */
      {
        Vec xh;

        PetscCall(VecDuplicate(x, &xh));
        PetscCall(VecPlaceArray(xh, xa));
        PetscCall(VecAXPY(xh, -1.0, x));
        PetscCall(VecNorm(xh, NORM_2, &diff));
        PetscCall(VecResetArray(xh));
        PetscCall(VecDestroy(&xh));
      }
      PetscCall(VecRestoreArrayRead(xd, &xa));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "%-7s %-7s iterations %4" PetscInt_FMT " (reference %4" PetscInt_FMT "), %s, vectors %s, relative difference %.1e\n",
                            ktypes[k], ptypes[p], itsd, its, KSPConvergedReasons[reasond], vt, (double)(diff / nx)));
      PetscCheck(reason > 0 && reasond > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s/%s did not converge: %s (reference %s)", ktypes[k], ptypes[p],
                 KSPConvergedReasons[reasond], KSPConvergedReasons[reason]);
      PetscCheck(PetscAbs(its - itsd) <= 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                 "%s/%s: %" PetscInt_FMT " iterations on the device, %" PetscInt_FMT " in the reference", ktypes[k], ptypes[p], itsd, its);
      PetscCheck(diff <= 1e-6 * nx, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s/%s: solutions differ by %g relative", ktypes[k], ptypes[p],
                 (double)(diff / nx));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&bd));
      PetscCall(VecDestroy(&xd));
    }
  }
  for (int i = 0; i < 2; i++) {
    PetscCall(MatDestroy(&A[i]));
    PetscCall(MatDestroy(&D[i]));
  }
  PetscFunctionReturn(0);
}

/* CG with Jacobi, 100 iterations: no vector crosses between host and device inside the solve */
static PetscErrorCode CountCopies(PetscInt n, const char *type, PCType ptype)
{
  Mat                       A, D;
  Vec                       b, x;
  KSP                       ksp;
  PC                        pc;
  PetscInt                  its;
  PetscGPUKitTransferCounts c0, c1;
  PetscReal                 nb;

  PetscFunctionBegin;
  PetscCall(Operator(n, PETSC_FALSE, &A));
  PetscCall(DeviceOperator(A, type, &D));
  PetscCall(RightHandSide(D, &b, &x)); /* b = D u: made on the device */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, D, D));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, ptype));
  PetscCall(KSPSetTolerances(ksp, 1e-30, 1e-300, PETSC_DEFAULT, 100));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "CG/%s: %" PetscInt_FMT " iterations, %g vectors to the device and %g back (%g bytes) inside KSPSolve\n",
                        ptype, its, c1.h2d_count - c0.h2d_count, c1.d2h_count - c0.d2h_count,
                        (c1.h2d_bytes - c0.h2d_bytes) + (c1.d2h_bytes - c0.d2h_bytes)));
  PetscCheck(its == 100, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CG ran %" PetscInt_FMT " iterations, not 100", its);
  PetscCheck(c1.h2d_count == c0.h2d_count && c1.d2h_count == c0.d2h_count, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "KSPSolve copied vectors between host and device");
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  n        = 24;
  PetscBool copies   = PETSC_FALSE;
  char      type[64] = MATELLRCUDA;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-copies", &copies, NULL));
  if (copies) {
    PetscCall(CountCopies(n, type, PCJACOBI));
    PetscCall(CountCopies(n, type, PCNONE));
  } else PetscCall(CompareSolves(n, type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "done\n"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # PETSc's Krylov methods with PCNONE and PCJACOBI on device matrices and vectors vs AIJ. The
  # program holds the iteration counts to the reference's within one (the device's sums round
  # differently) and the solutions to the tolerance: the compared lines keep each method's
  # reason and vector type, not the counts or the differences' digits (the library's vectors are
  # gkcuda where PETSc has a VECCUDA of its own)
  testset:
    filter: sed -E -e "s/iterations +[0-9]+ \(reference +[0-9]+\)/iterations N (reference N)/" -e "s/, relative difference [0-9.e+-]+$//" -e "s/vectors (seq|mpi)gkcuda/vectors \1cuda/"
    test:
      args: -type {{ellrcuda diacuda}shared output}
    # AIJ with cuda vectors
    test:
      suffix: aij_cuda_vectors
      nsize: {{1 2 3}}
      args: -type aij

  # 100 iterations of CG with Jacobi, and without: no vector crosses between host and device
  # inside KSPSolve, on both backends
  test:
    suffix: copies
    args: -copies -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}

TEST*/

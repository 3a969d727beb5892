static char help[] = "Single-precision storage of a device matrix's values for its products (-mat_gpukit_storage).\n\
  -type <ellrcuda,diacuda> : the device type\n\
  -n <n>                   : the grid's side (a 5-point stencil of n^2 rows)\n\
  -by_option               : single storage from -mat_gpukit_storage single, not MatGPUKitSetStorage()\n\n";

/*
   The products of a device matrix in single storage are those of the matrix with its values
   rounded to single precision, summed in double: held to an AIJ matrix of the rounded values (to
   the last digits), and away from the double products (by more than double rounding gives), for
   MatMult, MatMultAdd and MatMultTranspose. The diagonal reads the double values (AIJ's exactly);
   cggpu's and bicggpu's fused iterations read the single ones, on one process and on several
   (both blocks), and reach the double answer by residual replacement. A product reads fewer
   bytes, the view says "single", and double storage set back gives AIJ's products again.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include "testutil.h"

/* v rounded to single precision (each part), through float variables: gcc 12 -O2 drops the casts
   inside PetscCMPLX()'s arguments */
static PetscScalar RoundSingle(PetscScalar v)
{
  volatile float re = (float)PetscRealPart(v), im = (float)PetscImaginaryPart(v);

#if defined(PETSC_USE_COMPLEX)
  return PetscCMPLX(re, im);
#else
  return re + 0.0 * im;
#endif
}

/* the matrix, Hermitian positive definite (diagonally dominant), its values away from single
   precision's (not sums of few powers of 2); with round, those values rounded to single precision */
static PetscErrorCode Assemble(PetscInt n, PetscBool round, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt  i = r / n, j = r % n, c[5] = {r - n, r - 1, r, r + 1, r + n};
    const PetscBool in[5] = {i > 0, j > 0, PETSC_TRUE, j < n - 1, i < n - 1};

    for (int k = 0; k < 5; k++) {
      PetscScalar v = k == 2 ? 6.0 + 0.1 * PetscSinReal(0.37 * r) : -1.0 - PetscCosReal(0.11 * (r + c[k])) / 3.0;

#if defined(PETSC_USE_COMPLEX)
      if (k != 2) v += (r < c[k] ? 1.0 : -1.0) * PETSC_i * PetscSinReal(0.23 * (r + c[k])) / 7.0;
#endif
      if (round) v = RoundSingle(v);
      if (in[k]) PetscCall(MatSetValue(*A, r, c[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* ||y - yref|| <= tol ||yref|| (near), or >= tol ||yref|| (far) */
static PetscErrorCode Compare(const char *what, Vec y, Vec yref, PetscReal tol, PetscBool near)
{
  PetscReal nd, nr;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(yref, y, NORM_2, &nd, &nr));
  PetscCheck(near ? nd <= tol * nr : nd >= tol * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: ||difference|| / ||reference|| = %g, %s %g", what,
             (double)(nd / nr), near ? "above" : "below", (double)tol);
  PetscFunctionReturn(0);
}

/* the bytes one product reads at the least (PetscGPUKitDeviceCounts) */
static PetscErrorCode ProductBytes(Mat S, Vec x, Vec y, PetscLogDouble *bytes)
{
  PetscGPUKitDeviceCounts c0, c1;

  PetscFunctionBegin;
  PetscCall(MatMult(S, x, y)); /* the copy brought up to date first */
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(MatMult(S, x, y));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  *bytes = c1.bytes - c0.bytes;
  PetscFunctionReturn(0);
}

/* the object's view in the format fmt says what, or with want false does not */
static PetscErrorCode ViewSays(PetscObject o, PetscViewerFormat fmt, const char *what, PetscBool want)
{
  char        buf[8192];
  const char *cname;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetClassName(o, &cname));
  PetscCall(TestViewText(o, fmt, buf, sizeof(buf)));
  PetscCheck(!strstr(buf, what) == !want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The %s's view %s \"%s\":\n%s", cname, want ? "does not say" : "says",
             what, buf);
  PetscFunctionReturn(0);
}

/* an error handler that keeps the first message of an error in ctx (GK_MESSAGE_LEN characters)
   and returns the error, as PetscReturnErrorHandler() does */
#define GK_MESSAGE_LEN 1024
static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                  void *ctx)
{
  (void)comm;
  (void)line;
  (void)fun;
  (void)file;
  if (p == PETSC_ERROR_INITIAL && mess) {
    strncpy((char *)ctx, mess, GK_MESSAGE_LEN - 1);
    ((char *)ctx)[GK_MESSAGE_LEN - 1] = 0;
  }
  return n;
}

/* An ill-conditioned operator: a 1D Neumann operator with values away from single precision's,
   shifted by shift of its diagonal, on the processes of comm (each process its own on
   PETSC_COMM_SELF). With shift 3e-7 (a condition number near 1e7) cggpu (method) on its single
   storage reaches the double-precision answer to 1e-8, restarting CG from the true residual once
   keeping the direction stalls (iterative refinement; kept, the direction stalls near the start;
   the view counts the restarts); bicggpu restarts BiCG once a true residual is far above the
   recursion's. With 1e-9 neither can: CG stops, saying so (KSP_DIVERGED_BREAKDOWN), BiCG's
   recursion may diverge first (KSP_DIVERGED_DTOL, the true residual tested); with
   KSPSetErrorIfNotConverged() the error. Either way the norm reported is the true residual's. */
static PetscErrorCode Stall(MPI_Comm comm, const char *type, const char *method, PetscReal shift)
{
  const PetscInt     n = 1000;
  Mat                A, Aabs, S;
  Vec                b, x, r, s;
  KSP                ksp;
  KSPConvergedReason reason;
  PetscReal          rnorm, tnorm, bound;
  PetscInt           rstart, rend;
  PetscErrorCode     ierr;
  char               mess[GK_MESSAGE_LEN] = "";

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &A));
  PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &Aabs));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscReal lo = i > 0 ? 1.0 + 0.3 * PetscCosReal(0.7 * (i - 1)) : 0.0, hi = i < n - 1 ? 1.0 + 0.3 * PetscCosReal(0.7 * i) : 0.0;

    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -lo, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -hi, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, (lo + hi) * (1.0 + shift), INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(Aabs, i, i - 1, lo, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(Aabs, i, i + 1, hi, INSERT_VALUES));
    PetscCall(MatSetValue(Aabs, i, i, (lo + hi) * (1.0 + shift), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(Aabs, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aabs, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatCreateVecs(S, &x, &b));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecSet(b, 1.0));
  if (!rstart) PetscCall(VecSetValue(b, 0, 2.0, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, S, S));
  PetscCall(KSPSetType(ksp, method));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, shift > 1e-8 ? 1e-8 : 1e-10, 1e-50, PETSC_DEFAULT, 20000));
  {
    PC pc;

    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
  }
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &tnorm));
  /* b - A x computed in double precision twice, on the device and here, summed in other orders:
     apart by rounding alone, of the order of eps || |A| |x| + |b| || each (the norm cggpu would
     report from single-precision values is that times 2^29) */
  PetscCall(VecDuplicate(b, &s));
  PetscCall(VecCopy(x, r));
  PetscCall(VecAbs(r));
  PetscCall(VecCopy(b, s));
  PetscCall(VecAbs(s));
  PetscCall(MatMultAdd(Aabs, r, s, s));
  PetscCall(VecNorm(s, NORM_2, &bound));
  bound *= 2 * PETSC_MACHINE_EPSILON;
  PetscCheck(PetscAbsReal(rnorm - tnorm) <= 1e-8 * tnorm + bound, comm, PETSC_ERR_PLIB,
             "%s reported %g, the true residual is %g (double precision's rounding: %g)", method, (double)rnorm, (double)tnorm, (double)bound);
  if (shift > 1e-8) {
    PetscReal bnorm;

    PetscCall(VecNorm(b, NORM_2, &bnorm));
    PetscCheck(reason > 0 && tnorm <= 1e-8 * bnorm, comm, PETSC_ERR_PLIB,
               "%s on single storage, condition number near 1e7: %s, true residual %g of %g", method, KSPConvergedReasons[reason], (double)tnorm,
               (double)bnorm);
    if (!strcmp(method, KSPCGGPU)) PetscCall(ViewSays((PetscObject)ksp, PETSC_VIEWER_DEFAULT, "(CG restarted from it 0 of them", PETSC_FALSE));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a condition number near 1e7: %s on single storage reaches the double answer%s\n", method,
                          comm == PETSC_COMM_SELF ? "" : " (over the processes)"));
  } else {
    /* CG stalls; BiCG's recursion may diverge first (the true residual tested: DIVERGED_DTOL) */
    PetscCheck(reason == KSP_DIVERGED_BREAKDOWN || (reason == KSP_DIVERGED_DTOL && !strcmp(method, KSPBICGGPU)), comm, PETSC_ERR_PLIB,
               "%s beyond single precision ended %s, not DIVERGED_BREAKDOWN", method, KSPConvergedReasons[reason]);
    PetscCall(KSPSetErrorIfNotConverged(ksp, PETSC_TRUE));
    PetscCall(PetscPushErrorHandler(KeepMessage, mess));
    ierr = KSPSolve(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_NOT_CONVERGED, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPSetErrorIfNotConverged gave error %d", (int)ierr);
    /* the error names what single storage cannot do and what to use instead; BiCG's, where it
       diverged from its best iterate, that BiCG may diverge with double values too */
    PetscCheck(strstr(mess, "condition number is beyond single precision") && strstr(mess, "-mat_gpukit_storage double") &&
                 (!strstr(mess, "best iterate") || strstr(mess, "with its double values as well")),
               PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s's error beyond single precision: %s", method, mess);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "beyond single precision: %s stops, says so, and reports the true residual%s\n", method,
                          comm == PETSC_COMM_SELF ? "" : " (over the processes)"));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&r));
  PetscCall(VecDestroy(&s));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aabs));
  PetscFunctionReturn(0);
}

/* PC_SHELL's application of a diagonal scaling (its context): y = d .* x, and the transpose alike
   (PCJACOBI's) */
static PetscErrorCode ApplyRounded(PC pc, Vec x, Vec y)
{
  Vec d;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &d));
  PetscCall(VecPointwiseMult(y, d, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode DestroyRounded(PC pc)
{
  Vec d;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &d));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* pc: Jacobi on Op, with round the inverted diagonal rounded to single precision (a PC_SHELL) */
static PetscErrorCode SetJacobi(PC pc, Mat Op, PetscBool round)
{
  Vec          d;
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  if (!round) {
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscFunctionReturn(0);
  }
  PetscCall(MatCreateVecs(Op, NULL, &d));
  PetscCall(MatGetDiagonal(Op, d));
  PetscCall(VecReciprocal(d));
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetArray(d, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = RoundSingle(a[i]);
  PetscCall(VecRestoreArray(d, &a));
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, d));
  PetscCall(PCShellSetApply(pc, ApplyRounded));
  PetscCall(PCShellSetApplyTranspose(pc, ApplyRounded));
  PetscCall(PCShellSetDestroy(pc, DestroyRounded));
  PetscFunctionReturn(0);
}

/* A solve of A x = b (x = 0 first) by method on the operator Op (A itself, or its single
   storage): Jacobi (round: its scaling rounded to single precision), the unpreconditioned norm,
   to 1e-10 or maxit iterations; its iterations, reason and true residual ||b - A x|| / ||b||
   with A's double values where asked, and where says is given, that its view says so */
static PetscErrorCode SolveJacobi(Mat Op, KSPType method, PetscBool round, PetscInt maxit, Mat A, Vec b, Vec y, PetscInt *its,
                                  KSPConvergedReason *reason, PetscReal *rel, const char *says)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, Op, Op));
  PetscCall(KSPSetType(ksp, method));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(SetJacobi(pc, Op, round));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, maxit));
  PetscCall(KSPSolve(ksp, b, y));
  if (its) PetscCall(KSPGetIterationNumber(ksp, its));
  if (reason) PetscCall(KSPGetConvergedReason(ksp, reason));
  if (rel) PetscCall(TestTrueResidual(A, y, b, rel));
  if (says) PetscCall(ViewSays((PetscObject)ksp, PETSC_VIEWER_DEFAULT, says, PETSC_TRUE));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

/* A solve on the single storage S from a nonzero guess, x0 + 1 (cggpu, bicggpu): its first residual,
   the norm recorded first, is b - A x0 with A's double values (the rounded operator's is further
   from it than 1e-10, relative), on one process and on several, and the solve meets 1e-10 in A's
   true residual */
static PetscErrorCode GuessNonzero(Mat S, Mat A, KSPType method, Vec b, Vec x0)
{
  KSP              ksp;
  PC               pc;
  Vec              x, g, r;
  const PetscReal *hist;
  PetscReal        r0, rs, rel;
  PetscInt         nh;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(x0, &x));
  PetscCall(VecDuplicate(x0, &g));
  PetscCall(VecDuplicate(b, &r));
  PetscCall(VecCopy(x0, g));
  PetscCall(VecShift(g, 1.0)); /* the guess (x0 may solve the system) */
  PetscCall(MatMult(A, g, r)); /* b - A g, A's double values */
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &r0));
  PetscCall(MatMult(S, g, r)); /* the rounded operator's */
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &rs));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, S, S));
  PetscCall(KSPSetType(ksp, method));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 500));
  PetscCall(KSPSetResidualHistory(ksp, NULL, PETSC_DECIDE, PETSC_TRUE));
  PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  PetscCall(VecCopy(g, x));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetResidualHistory(ksp, &hist, &nh));
  PetscCall(TestTrueResidual(A, x, b, &rel));
  PetscCheck(nh > 0 && PetscAbsReal(hist[0] - r0) <= 1e-12 * r0 && PetscAbsReal(rs - r0) > 1e-10 * r0, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s from a nonzero guess recorded %.15e first; b - A x0 is %.15e with the double values, %.15e with the single ones", method,
             nh ? (double)hist[0] : -1.0, (double)r0, (double)rs);
  PetscCheck(rel <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s from a nonzero guess: true residual %g", method, (double)rel);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s from a nonzero guess: its first residual is b - A x0 in double precision\n", method));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&g));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

/* What the steps read: after 3 iterations from x = 0 (no replacement has moved x; the third's
   direction depends on the products through rho, BiCG's on A^H's too), gk's x on the single
   storage S is PETSc's ref's on S with the Jacobi scaling rounded to single precision, to
   rounding; away from ref's on S with PCJACOBI's double scaling (the updates read it in single
   precision), and further from ref's on A; on several processes too (the off-diagonal block's
   products read its single values as well) */
static PetscErrorCode ThirdIterate(Mat A, Mat S, KSPType ref, KSPType gk, Vec b)
{
  Vec       xk[4];
  PetscReal dS, dD, dA, nx;

  PetscFunctionBegin;
  for (int k = 0; k < 4; k++) { /* ref on A; ref on S, rounded scaling; gk on S; ref on S, double scaling */
    PetscCall(VecDuplicate(b, &xk[k]));
    PetscCall(SolveJacobi(k ? S : A, k == 2 ? gk : ref, k == 1 ? PETSC_TRUE : PETSC_FALSE, 3, A, b, xk[k], NULL, NULL, NULL, NULL));
  }
  PetscCall(VecNorm(xk[0], NORM_2, &nx));
  for (int k = 0; k < 4; k++)
    if (k != 2) PetscCall(VecAXPY(xk[k], -1.0, xk[2]));
  PetscCall(VecNorm(xk[1], NORM_2, &dS));
  PetscCall(VecNorm(xk[3], NORM_2, &dD));
  PetscCall(VecNorm(xk[0], NORM_2, &dA));
  dS /= nx;
  dD /= nx;
  dA /= nx;
  PetscCheck(dS <= 1e-12 && dD >= 1e-10 && dA >= 1e-8, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "%s's third iterate: %g from %s's on the single storage with the scaling rounded to single precision, %g with its double scaling, %g "
             "from "
             "%s's on AIJ",
             gk, (double)dS, ref, (double)dD, (double)dA, ref);
  for (int k = 0; k < 4; k++) PetscCall(VecDestroy(&xk[k]));
  PetscFunctionReturn(0);
}

/* A Jacobi scaling beyond single precision's range: a tridiagonal operator of values near 1e-40
   (single precision's subnormals: stored, with fewer digits), whose inverted diagonal (near 2.5e39)
   single precision cannot hold. cggpu on its single storage reads the scaling in double, its
   view not naming it among what is read in single precision, and meets 1e-10 in the true
   residual. */
static PetscErrorCode TinyDiagonal(const char *type)
{
  Mat       A, S;
  Vec       x, b;
  KSP       ksp;
  PC        pc;
  PetscInt  rstart, rend;
  PetscReal rel;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, 64, 64, 3, NULL, 1, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscCall(MatSetValue(A, i, i, 4e-40 + 1e-41 * PetscSinReal(0.7 * i), INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1e-40, INSERT_VALUES));
    if (i < 63) PetscCall(MatSetValue(A, i, i + 1, -1e-40, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatCreateVecs(S, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, S, S));
  PetscCall(KSPSetType(ksp, KSPCGGPU));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-300, PETSC_DEFAULT, 500));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(TestTrueResidual(A, x, b, &rel));
  PetscCheck(rel <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "cggpu on the tiny operator's single storage: true residual %g", (double)rel);
  PetscCall(ViewSays((PetscObject)ksp, PETSC_VIEWER_DEFAULT, "replaced by b - A x in double precision", PETSC_TRUE));
  PetscCall(ViewSays((PetscObject)ksp, PETSC_VIEWER_DEFAULT, "the Jacobi scaling", PETSC_FALSE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a Jacobi scaling beyond single precision's range is read in double precision\n"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* BiCG on single storage: a nonsymmetric operator (the 5-point matrix of Assemble with a skew
   part, convection's), its values away from single precision's. PETSc's bicg on AIJ meets 1e-10
   in the true residual; PETSc's bicg on the single storage, whose products (A's and A^H's) are
   the rounded matrix's, does not; bicggpu on the single storage, which reads the single values
   in both products (on several processes both blocks') and replaces the residual by b - A x in
   double, does, in at most a few iterations more than on AIJ, and its view says so */
static PetscErrorCode BiCGSingle(const char *type, PetscInt n)
{
  Mat                A, S;
  Vec                x, b, y;
  PetscInt           rstart, rend, its[3];
  KSPConvergedReason reason[3];
  PetscReal          rel[3];

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    const PetscInt  i = row / n, j = row % n, c[5] = {row - n, row - 1, row, row + 1, row + n};
    const PetscBool in[5] = {i > 0, j > 0, PETSC_TRUE, j < n - 1, i < n - 1};

    for (int k = 0; k < 5; k++) {
      PetscScalar v = k == 2 ? 6.0 + 0.1 * PetscSinReal(0.37 * row) : -1.0 - PetscCosReal(0.11 * (row + c[k])) / 3.0 + (k < 2 ? 0.4 : -0.4);

#if defined(PETSC_USE_COMPLEX)
      if (k != 2) v += PETSC_i * PetscSinReal(0.23 * (row + 2 * c[k])) / 7.0;
#endif
      if (in[k]) PetscCall(MatSetValue(A, row, c[k], v, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
  PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatCreateVecs(S, &x, &b));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(A, x, b));
  for (int k = 0; k < 3; k++)
    PetscCall(SolveJacobi(k ? S : A, k == 2 ? KSPBICGGPU : KSPBICG, PETSC_FALSE, 500, A, b, y, &its[k], &reason[k], &rel[k],
                          k == 2 ? "the updates the Jacobi scaling; the residual replaced by b - A x in double precision" : NULL));
  for (int k = 0; k < 3; k++)
    PetscCheck(reason[k] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "BiCG solve %d did not converge: %s", k, KSPConvergedReasons[reason[k]]);
  PetscCheck(rel[0] <= 1e-10 && rel[2] <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "True residuals %g (bicg, AIJ) and %g (bicggpu, single) above 1e-10", (double)rel[0], (double)rel[2]);
  PetscCheck(rel[1] > 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "PETSc's bicg on the single storage met 1e-10 in A's true residual (%g): the test cannot tell", (double)rel[1]);
  PetscCheck(its[2] <= its[0] + 2 + its[0] / 10, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "bicggpu on the single values took %" PetscInt_FMT " iterations, bicg on AIJ %" PetscInt_FMT, its[2], its[0]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bicggpu on single storage meets the tolerance in the double true residual\n"));

  PetscCall(ThirdIterate(A, S, KSPBICG, KSPBICGGPU, b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* A Galerkin product P^T A P of a device matrix P (here A = P) is stored as P is: a hierarchy's
   coarse operators follow its interpolations (PCMG without a DM, -pc_mg_galerkin) */
static PetscErrorCode GalerkinStorage(Mat P, PetscGPUKitStorage want)
{
  Mat                C;
  PetscGPUKitStorage st;

  PetscFunctionBegin;
  PetscCall(MatPtAP(P, P, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C));
  PetscCall(MatGPUKitGetStorage(C, &st));
  PetscCheck(st == want, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatPtAP of a matrix in %s storage is in %s storage", PetscGPUKitStorages[want],
             PetscGPUKitStorages[st]);
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char               type[64] = MATELLRCUDA;
  PetscInt           n        = 20, its[3];
  KSPConvergedReason reason[3];
  PetscReal          rel[3];
  PetscBool          byopt = PETSC_FALSE;
  Mat                A, Ar, S;
  Vec                x, y, yref, w, d1, d2;
  PetscRandom        rnd;
  PetscGPUKitStorage st;
  PetscLogDouble     bsingle, bdouble;
  PetscReal          nd, nr;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-by_option", &byopt, NULL));
  PetscCall(Assemble(n, PETSC_FALSE, &A));
  PetscCall(Assemble(n, PETSC_TRUE, &Ar));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
  if (byopt) PetscCall(MatSetFromOptions(S));
  else PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatGPUKitGetStorage(S, &st));
  PetscCheck(st == PETSCGPUKIT_STORAGE_SINGLE, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The storage is %s, not single", PetscGPUKitStorages[st]);

  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(S, &x, &y));
  PetscCall(VecDuplicate(y, &yref));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(w, rnd));

  /* the products: the rounded matrix's to the last digits, away from the double matrix's */
  PetscCall(MatMult(S, x, y));
  PetscCall(MatMult(Ar, x, yref));
  PetscCall(Compare("MatMult against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMult(A, x, yref));
  PetscCall(Compare("MatMult against the double values'", y, yref, 1e-10, PETSC_FALSE));
  PetscCall(MatMultAdd(S, x, w, y));
  PetscCall(MatMultAdd(Ar, x, w, yref));
  PetscCall(Compare("MatMultAdd against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMultTranspose(S, x, y));
  PetscCall(MatMultTranspose(Ar, x, yref));
  PetscCall(Compare("MatMultTranspose against the rounded values'", y, yref, 1e-13, PETSC_TRUE));
  PetscCall(MatMultTranspose(A, x, yref));
  PetscCall(Compare("MatMultTranspose against the double values'", y, yref, 1e-10, PETSC_FALSE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "single storage: the products are those of the values rounded to single precision, summed in double\n"));

  /* the diagonal reads the double values */
  PetscCall(MatCreateVecs(A, NULL, &d1));
  PetscCall(VecDuplicate(y, &d2));
  PetscCall(MatGetDiagonal(A, d1));
  PetscCall(MatGetDiagonal(S, d2));
  PetscCall(TestDiffNorms(d1, d2, NORM_INFINITY, &nd, &nr));
  PetscCheck(nd == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatGetDiagonal differs from AIJ's by %g", (double)nd);

  /* solves to ||b - A x|| <= 1e-10 ||b|| (x_0 = 0, the unpreconditioned norm): PETSc's cg on AIJ;
     PETSc's cg on the single storage, whose products are the rounded matrix's, so that its
     answer is the rounded matrix's, further from A's than the tolerance; cggpu on the single
     storage, which reads the single values (on several processes both blocks') and replaces the
     residual by b - A x in double, and meets the tolerance in A's true residual, in a few
     iterations more than cg on AIJ at most */
  PetscCall(MatMult(A, x, w));
  for (int k = 0; k < 3; k++)
    PetscCall(SolveJacobi(k ? S : A, k == 2 ? KSPCGGPU : KSPCG, PETSC_FALSE, 500, A, w, y, &its[k], &reason[k], &rel[k],
                          k == 2 ? "the updates the Jacobi scaling; the residual replaced by b - A x in double precision" : NULL));
  for (int k = 0; k < 3; k++)
    PetscCheck(reason[k] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "Solve %d did not converge: %s", k, KSPConvergedReasons[reason[k]]);
  PetscCheck(rel[0] <= 1e-10 && rel[2] <= 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "True residuals %g (cg, AIJ) and %g (cggpu, single) above 1e-10",
             (double)rel[0], (double)rel[2]);
  PetscCheck(rel[1] > 1e-10, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "PETSc's cg on the single storage met 1e-10 in A's true residual (%g): the test cannot tell", (double)rel[1]);
  PetscCheck(its[2] <= its[0] + 2 + its[0] / 10, PETSC_COMM_WORLD, PETSC_ERR_PLIB,
             "cggpu on the single values took %" PetscInt_FMT " iterations, cg on AIJ %" PetscInt_FMT, its[2], its[0]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the diagonal reads the double values; cggpu meets the tolerance in the double true residual\n"));
  PetscCall(ThirdIterate(A, S, KSPCG, KSPCGGPU, w));
  {
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    for (int c = 0; c < (size > 1 ? 2 : 1); c++) { /* each process its own, then one over all */
      const MPI_Comm comm = c ? PETSC_COMM_WORLD : PETSC_COMM_SELF;

      PetscCall(Stall(comm, type, KSPCGGPU, 3e-7));
      PetscCall(Stall(comm, type, KSPCGGPU, 1e-9));
      PetscCall(Stall(comm, type, KSPBICGGPU, 3e-7)); /* BiCG's restarts take its shadow residual again */
      PetscCall(Stall(comm, type, KSPBICGGPU, 1e-9));
    }
  }
  PetscCall(GuessNonzero(S, A, KSPCGGPU, w, x));
  PetscCall(GuessNonzero(S, A, KSPBICGGPU, w, x));
  PetscCall(BiCGSingle(type, n));
  PetscCall(TinyDiagonal(type));

  /* what a product reads, and what the view says */
  PetscCall(ProductBytes(S, x, y, &bsingle));
  {
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    if (size == 1) PetscCall(ViewSays((PetscObject)S, PETSC_VIEWER_ASCII_INFO, "single precision storage", PETSC_TRUE));
  }
  PetscCall(GalerkinStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
  PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_DOUBLE));
  if (!byopt) PetscCall(GalerkinStorage(S, PETSCGPUKIT_STORAGE_DOUBLE)); /* -mat_gpukit_storage single reaches every new device matrix */
  PetscCall(ProductBytes(S, x, y, &bdouble));
  PetscCheck(bsingle < bdouble, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product reads %g bytes in single storage, %g in double", bsingle, bdouble);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "single storage: the view says so, and a product reads fewer bytes\n"));
  PetscCall(MatMult(S, x, y));
  PetscCall(MatMult(A, x, yref));
  PetscCall(Compare("MatMult in double storage again", y, yref, 1e-14, PETSC_TRUE));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "double storage again: AIJ's products\n"));

  { /* a value beyond single precision's range: refused with PETSC_ERR_FP, and double storage still serves */
    PetscInt       rstart;
    PetscErrorCode ierr;

    PetscCall(MatDestroy(&S));
    PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
    PetscCall(MatSetValue(A, rstart, rstart, 1e39, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &S));
    PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_SINGLE));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(S, x, y);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_FP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A value of 1e39 in single storage gave error %d, not PETSC_ERR_FP", (int)ierr);
    PetscCall(MatGPUKitSetStorage(S, PETSCGPUKIT_STORAGE_DOUBLE));
    PetscCall(MatMult(S, x, y));
    PetscCall(MatMult(A, x, yref));
    PetscCall(Compare("MatMult in double storage after the refusal", y, yref, 1e-14, PETSC_TRUE));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a value beyond single precision's range: refused, and double storage serves\n"));
  }

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&d1));
  PetscCall(VecDestroy(&d2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ar));
  PetscCall(MatDestroy(&S));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # both device types, on both backends, on one process; single storage by the setter or by the
  # option
  testset:
    output_file: output/storage.out
    args: -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}
    test:
      suffix: seq
    test:
      suffix: seq_option
      args: -by_option -mat_gpukit_storage single

  # each process's ill-conditioned solves, then the same over both
  test:
    suffix: mpi
    nsize: 2
    output_file: output/storage_mpi.out
    args: -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}

TEST*/

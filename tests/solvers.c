static char help[] = "cggpu and bicggpu against KSPCG and KSPBICG, their breakdowns, and their launch and wait counts.\n\
  -mode <compare,errors,counts,reuse,rows>\n\
  -type <ellrcuda,diacuda,aij> : the operator given to the solvers (aij: converted by them)\n\
  -n <n>                        : grid points per side\n\n";

/*
   compare: for each problem, preconditioner, norm type and initial guess, the fused solver and
            PETSc's own method from the same data: iteration counts within one, solutions within
            the tolerance; COCG checked by its true residual (and, with real scalars, against CG)
   errors:  an indefinite matrix, a BiCG breakdown, a NaN in b, a shell operator, an
            unsupported PC: the reasons or errors PETSc users expect, and no leak
   reuse:   one KSP given another matrix of the same state number, and KSPSolveTranspose
   rows:    a matrix of long rows, all alike: ELLPACK-R's products take one row a slice, the
            fused solvers' first use chooses the layout again; products and solves before and
            after, against AIJ and PETSc's methods
   counts:  the library's own counters: 3 launches and 1 wait an iteration (1 wait per k
            iterations with -ksp_cggpu_check_every k)
*/
#include <petscgpukit.h>
#include "testutil.h"
#include <petscksp.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet */

#if defined(PETSC_USE_COMPLEX)
  #define CPLX(re, im) ((re) + (im) * PETSC_i)
#else
  #define CPLX(re, im) (re)
#endif

typedef enum {
  SPD2D,     /* the 5-point Laplacian with a varying diagonal: SPD */
  SPD3D,     /* the 7-point Laplacian: SPD */
  CONVDIFF,  /* upwinded convection-diffusion: nonsymmetric (complex coefficients in complex builds) */
  HELMHOLTZ, /* Laplacian - k^2 + i sigma: complex symmetric, not Hermitian (complex builds) */
  HERMITIAN, /* Hermitian positive definite with complex off-diagonals (complex builds) */
  SPD9       /* the 9-point Laplacian with a varying diagonal: SPD, rows of 9 entries */
} Problem;
static const char *Problems[] = {"spd2d", "spd3d", "convdiff", "helmholtz", "hermitian", "spd9"};

/* on PETSC_COMM_WORLD, the rows split evenly: ellrcuda and diacuda are the MPI types there;
   row r's diagonal entry has shift (1 + r % 7) added (a diagonal that Jacobi's scaling changes) */
static PetscErrorCode OperatorShifted(Problem p, PetscInt n, MatType type, PetscReal shift, Mat *A)
{
  const PetscInt N = p == SPD3D ? n * n * n : n * n;
  PetscInt       rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 9, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 9, NULL, 9, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    if (p == SPD3D) {
      const PetscInt i = r / (n * n), j = (r / n) % n, k = r % n;

      if (i > 0) PetscCall(MatSetValue(*A, r, r - n * n, -1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(*A, r, r - n, -1.0, INSERT_VALUES));
      if (k > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0, INSERT_VALUES));
      PetscCall(MatSetValue(*A, r, r, 6.0 + shift * (1 + r % 7), INSERT_VALUES));
      if (k < n - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0, INSERT_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(*A, r, r + n, -1.0, INSERT_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(*A, r, r + n * n, -1.0, INSERT_VALUES));
    } else if (p == SPD9) {
      const PetscInt i = r / n, j = r % n;

      for (PetscInt di = -1; di <= 1; di++)
        for (PetscInt dj = -1; dj <= 1; dj++)
          if (i + di >= 0 && i + di < n && j + dj >= 0 && j + dj < n)
            PetscCall(MatSetValue(*A, r, r + di * n + dj, di || dj ? -1.0 : 8.0 + shift * (1 + r % 7) + 0.5 * (j % 5), INSERT_VALUES));
    } else {
      const PetscInt    i = r / n, j = r % n;
      const PetscScalar c = p == CONVDIFF ? CPLX(0.4, 0.2) : 0.0;
      const PetscScalar d = p == HELMHOLTZ ? CPLX(4.0 - 0.5, 0.3 + 0.2 * (j % 3)) : 4.0 + 2.0 * c + 0.5 * (j % 5);
      const PetscScalar h = p == HERMITIAN ? CPLX(0.0, 0.6) : 0.0; /* A(r, r+1) = -1 + h, A(r+1, r) = -1 - h */

      if (i > 0) PetscCall(MatSetValue(*A, r, r - n, -1.0 - c, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(*A, r, r - 1, -1.0 - c - h, INSERT_VALUES));
      PetscCall(MatSetValue(*A, r, r, d + shift * (1 + r % 7), INSERT_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(*A, r, r + 1, -1.0 + h, INSERT_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(*A, r, r + n, -1.0, INSERT_VALUES));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Operator(Problem p, PetscInt n, MatType type, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(OperatorShifted(p, n, type, 0.0, A));
  PetscFunctionReturn(0);
}

/* v_i = sin(s + 0.37 i) (+ i cos(s + 0.53 i)): the same vector whatever the process count */
static PetscErrorCode Fill(Vec v, PetscReal s)
{
  PetscScalar *a;
  PetscInt     rs, re;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &rs, &re));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = rs; i < re; i++) a[i - rs] = CPLX(PetscSinReal(s + 0.37 * i), PetscCosReal(s + 0.53 * i));
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

/* x = KSP(A) b (transpose: KSP(A)^T b, by KSPSolveTranspose), with the given method, PC, norm,
   iteration limit and initial guess x0 (NULL: zero) */
static PetscErrorCode SolveAny(Mat A, KSPType kt, PCType pt, KSPNormType nt, PetscInt maxit, PetscBool transpose, Vec b, Vec x0, Vec x, PetscInt *its,
                               KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetNormType(ksp, nt));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, maxit));
  if (x0) {
    PetscCall(VecCopy(x0, x));
    PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
  }
  PetscCall(KSPSetFromOptions(ksp));
  if (transpose) PetscCall(KSPSolveTranspose(ksp, b, x));
  else PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(Mat A, KSPType kt, PCType pt, KSPNormType nt, Vec b, Vec x0, Vec x, PetscInt *its, KSPConvergedReason *reason)
{
  PetscFunctionBegin;
  PetscCall(SolveAny(A, kt, pt, nt, 1000, PETSC_FALSE, b, x0, x, its, reason));
  PetscFunctionReturn(0);
}

/* ||x - y|| <= tol ||y|| */
static PetscErrorCode Close(Vec x, Vec y, PetscReal tol, PetscReal *rel)
{
  PetscReal nd, ny;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(y, x, NORM_2, &nd, &ny));
  *rel = nd / ny;
  PetscCheck(*rel <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Solutions differ by %g (relative), more than %g", (double)*rel, (double)tol);
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(PetscInt n, MatType type)
{
  const PCType      pcs[]      = {PCNONE, PCJACOBI};
  const KSPNormType norms[]    = {KSP_NORM_PRECONDITIONED, KSP_NORM_UNPRECONDITIONED, KSP_NORM_NATURAL};
  const Problem     problems[] = {SPD2D, SPD3D, CONVDIFF, HELMHOLTZ, HERMITIAN, SPD9};

  PetscFunctionBegin;
  for (size_t q = 0; q < PETSC_STATIC_ARRAY_LENGTH(problems); q++) {
    const Problem  p  = problems[q];
    const PetscInt np = p == SPD3D ? PetscMax(n / 3, 4) : n;
    Mat            A, Aref;
    Vec            b, x, xref, x0;

    if ((p == HELMHOLTZ || p == HERMITIAN) && !PetscDefined(USE_COMPLEX)) continue;
    PetscCall(Operator(p, np, type, &A));
    PetscCall(Operator(p, np, MATAIJ, &Aref));
    PetscCall(MatCreateVecs(Aref, &x, &b)); /* host vectors for the reference */
    PetscCall(VecDuplicate(x, &xref));
    PetscCall(VecDuplicate(x, &x0));
    PetscCall(Fill(b, 1.0));
    PetscCall(Fill(x0, 2.0));
    for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(pcs); c++) {
      for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(norms); t++) {
        for (int guess = 0; guess < 2; guess++) {
          const PetscBool    spd = (PetscBool)(p == SPD2D || p == SPD3D || p == HERMITIAN || p == SPD9);
          const KSPType      kt = spd ? KSPCGGPU : KSPBICGGPU, kref = spd ? KSPCG : KSPBICG;
          PetscInt           its, itsref;
          KSPConvergedReason reason, reasonref;
          PetscReal          rel = 0.0;

          if (norms[t] == KSP_NORM_NATURAL && !spd) continue; /* BiCG has no natural norm */
          if (p == HELMHOLTZ) {                               /* COCG, checked by its true residual; BiCG done with CONVDIFF */
            PetscCall(PetscOptionsSetValue(NULL, "-ksp_bicggpu_cocg", "1"));
            PetscCall(Solve(A, KSPBICGGPU, pcs[c], norms[t], b, guess ? x0 : NULL, x, &its, &reason));
            PetscCall(PetscOptionsClearValue(NULL, "-ksp_bicggpu_cocg"));
            PetscCall(TestTrueResidual(Aref, x, b, &rel));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-9s cocg    %-7s %-16s %s: %4" PetscInt_FMT " iterations, %s\n  true residual %.1e\n",
                                  Problems[p], pcs[c], KSPNormTypes[norms[t]], guess ? "guess" : "zero ", its, KSPConvergedReasons[reason],
                                  (double)rel));
            PetscCheck(reason > 0 && rel < 1e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COCG did not solve the complex symmetric system");
            if (norms[t] == KSP_NORM_NATURAL) continue;
            /* and BiCG on the same system, against KSPBICG */
            PetscCall(Solve(Aref, KSPBICG, pcs[c], norms[t], b, guess ? x0 : NULL, xref, &itsref, &reasonref));
            PetscCall(Solve(A, KSPBICGGPU, pcs[c], norms[t], b, guess ? x0 : NULL, x, &its, &reason));
            PetscCall(Close(x, xref, 1e-6, &rel));
            PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                  "%-9s bicggpu %-7s %-16s %s: %4" PetscInt_FMT " iterations (bicg %4" PetscInt_FMT
                                  "), %s\n  solutions differ by %.1e\n",
                                  Problems[p], pcs[c], KSPNormTypes[norms[t]], guess ? "guess" : "zero ", its, itsref, KSPConvergedReasons[reason],
                                  (double)rel));
            PetscCheck(reason == reasonref && PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                       "bicggpu: %" PetscInt_FMT " iterations, %s; bicg %" PetscInt_FMT ", %s", its, KSPConvergedReasons[reason], itsref,
                       KSPConvergedReasons[reasonref]);
            continue;
          }
          PetscCall(Solve(Aref, kref, pcs[c], norms[t], b, guess ? x0 : NULL, xref, &itsref, &reasonref));
          PetscCall(Solve(A, kt, pcs[c], norms[t], b, guess ? x0 : NULL, x, &its, &reason));
          PetscCall(Close(x, xref, 1e-6, &rel));
          PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                                "%-9s %-7s %-7s %-16s %s: %4" PetscInt_FMT " iterations (%s %4" PetscInt_FMT "), %s\n  solutions differ by %.1e\n",
                                Problems[p], kt, pcs[c], KSPNormTypes[norms[t]], guess ? "guess" : "zero ", its, kref, itsref,
                                KSPConvergedReasons[reason], (double)rel));
          PetscCheck(reason == reasonref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s ended %s, %s %s", kt, KSPConvergedReasons[reason], kref,
                     KSPConvergedReasons[reasonref]);
          PetscCheck(PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s took %" PetscInt_FMT " iterations, %s %" PetscInt_FMT, kt, its,
                     kref, itsref);
          if (spd && norms[t] != KSP_NORM_NATURAL) { /* BiCG on the same (Hermitian) system */
            PetscCall(Solve(Aref, KSPBICG, pcs[c], norms[t], b, guess ? x0 : NULL, xref, &itsref, &reasonref));
            PetscCall(Solve(A, KSPBICGGPU, pcs[c], norms[t], b, guess ? x0 : NULL, x, &its, &reason));
            PetscCall(Close(x, xref, 1e-6, &rel));
            PetscCheck(reason == reasonref && PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                       "bicggpu: %" PetscInt_FMT " iterations, %s; bicg %" PetscInt_FMT ", %s", its, KSPConvergedReasons[reason], itsref,
                       KSPConvergedReasons[reasonref]);
          }
          if (!PetscDefined(USE_COMPLEX) && spd) { /* COCG is CG in real arithmetic */
            PetscInt           itsc;
            KSPConvergedReason rc;

            PetscCall(PetscOptionsSetValue(NULL, "-ksp_bicggpu_cocg", "1"));
            PetscCall(
              Solve(A, KSPBICGGPU, pcs[c], norms[t] == KSP_NORM_NATURAL ? KSP_NORM_PRECONDITIONED : norms[t], b, guess ? x0 : NULL, x, &itsc, &rc));
            PetscCall(PetscOptionsClearValue(NULL, "-ksp_bicggpu_cocg"));
            if (norms[t] != KSP_NORM_NATURAL)
              PetscCheck(itsc == its, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COCG took %" PetscInt_FMT " iterations, CG %" PetscInt_FMT, itsc, its);
          }
        }
      }
    }
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&xref));
    PetscCall(VecDestroy(&x0));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&Aref));
  }
  PetscFunctionReturn(0);
}

/* A diagonal matrix diag(d[k % nd]) and b = 1 */
static PetscErrorCode Diagonal(PetscInt N, PetscInt nd, const PetscScalar *d, MatType type, Mat *A, Vec *b)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 1, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 1, NULL, 0, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt k = rs; k < re; k++) PetscCall(MatSetValue(*A, k, k, d[k % nd], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(*A, NULL, b));
  PetscCall(VecSet(*b, 1.0));
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectReason(Mat A, Vec b, KSPType kt, PCType pt, KSPConvergedReason want, const char *what)
{
  Vec                x;
  PetscInt           its;
  KSPConvergedReason reason;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(Solve(A, kt, pt, KSP_NORM_DEFAULT, b, NULL, x, &its, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s with %s: %s after %" PetscInt_FMT " iterations\n", what, kt, KSPConvergedReasons[reason], its));
  PetscCheck(reason == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %s ended %s, not %s", what, kt, KSPConvergedReasons[reason],
             KSPConvergedReasons[want]);
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

/* The fused method kt and PETSc's kref on the same matrix and b: the same reason, and iterations
   within one (the device's sums round differently) */
static PetscErrorCode ExpectLikePETSc(Mat A, Vec b, KSPType kt, KSPType kref, PCType pt, const char *what)
{
  Vec                x;
  PetscInt           its, itsref;
  KSPConvergedReason reason, reasonref;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &x));
  PetscCall(Solve(A, kref, pt, KSP_NORM_DEFAULT, b, NULL, x, &itsref, &reasonref));
  PetscCall(Solve(A, kt, pt, KSP_NORM_DEFAULT, b, NULL, x, &its, &reason));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s with %s: %s after %" PetscInt_FMT " iterations (%s: %s after %" PetscInt_FMT ")\n", what, kt,
                        KSPConvergedReasons[reason], its, kref, KSPConvergedReasons[reasonref], itsref));
  PetscCheck(reason == reasonref && PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: %s ended %s after %" PetscInt_FMT " iterations, %s %s after %" PetscInt_FMT, what, kt, KSPConvergedReasons[reason], its, kref,
             KSPConvergedReasons[reasonref], itsref);
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(0);
}

/* One KSP solves with a NaN in the matrix (DIVERGED_NANORINF, after the NaN has run through
   the iteration's vectors), then with the entry mended: nothing of the first solve, NaNs left
   in its work vectors included, may spoil the second */
static PetscErrorCode ReuseAfterNaN(MatType type, KSPType kt)
{
  const PetscScalar  d[] = {2.0, 3.0};
  Mat                A;
  Vec                b, x;
  KSP                ksp;
  PC                 pc;
  PetscInt           i = 5, rs, re;
  PetscScalar        v = PETSC_MAX_REAL;
  KSPConvergedReason reason[2];

  PetscFunctionBegin;
  PetscCall(Diagonal(40, 2, d, type, &A, &b));
  PetscCall(VecDuplicate(b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  v = v * 10.0 - v * 10.0; /* NaN */
  if (i >= rs && i < re) PetscCall(MatSetValue(A, i, i, v, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason[0]));
  if (i >= rs && i < re) PetscCall(MatSetValue(A, i, i, d[i % 2], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetConvergedReason(ksp, &reason[1]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "one %s KSP: %s with a NaN in the matrix, then %s\n", kt, KSPConvergedReasons[reason[0]],
                        KSPConvergedReasons[reason[1]]));
  PetscCheck(reason[0] == KSP_DIVERGED_NANORINF && reason[1] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: a solve after a NaN ended %s", kt,
             KSPConvergedReasons[reason[1]]);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

static PetscErrorCode ShellMult(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecCopy(x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode Errors(MatType type)
{
  const PetscScalar indefinite[] = {1.0, -2.0}, mixed[] = {1.0, -1.0}, negative[] = {-1.0, -2.0, -3.5};
  Mat               A, S;
  Vec               b;
  PetscInt          nl;
  PetscMPIInt       rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  /* p^T A p = 1 - 2 < 0 at the first step, > 0 at the second: KSPCG's test is a change of sign */
  PetscCall(Diagonal(40, 2, indefinite, type, &A, &b));
  PetscCall(ExpectReason(A, b, KSPCGGPU, PCNONE, KSP_DIVERGED_INDEFINITE_MAT, "an indefinite matrix"));
  PetscCall(ExpectLikePETSc(A, b, KSPCGGPU, KSPCG, PCNONE, "an indefinite matrix"));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  /* negative definite: p^T A p < 0 at every step, which KSPCG accepts and solves (sherman1 is one) */
  PetscCall(Diagonal(40, 3, negative, type, &A, &b));
  PetscCall(ExpectLikePETSc(A, b, KSPCGGPU, KSPCG, PCNONE, "a negative definite matrix"));
  PetscCall(ExpectLikePETSc(A, b, KSPCGGPU, KSPCG, PCJACOBI, "a negative definite matrix"));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  /* Jacobi's D^-1 = diag(1, -1): rho = r~^H D^-1 r = 0 for r = 1 */
  PetscCall(Diagonal(40, 2, mixed, type, &A, &b));
  PetscCall(ExpectReason(A, b, KSPBICGGPU, PCJACOBI, KSP_DIVERGED_BREAKDOWN_BICG, "a BiCG breakdown (rho = 0)"));
  PetscCall(ExpectLikePETSc(A, b, KSPBICGGPU, KSPBICG, PCJACOBI, "a BiCG breakdown (rho = 0)"));
  PetscCall(ExpectReason(A, b, KSPCGGPU, PCJACOBI, KSP_CONVERGED_ATOL, "rho = 0 in CG (KSPCG: converged due to beta = 0)"));
  PetscCall(ExpectLikePETSc(A, b, KSPCGGPU, KSPCG, PCJACOBI, "rho = 0 in CG"));
  /* a NaN in b */
  {
    PetscInt    i = 7;
    PetscScalar v = PETSC_MAX_REAL;

    v = v * 10.0 - v * 10.0; /* NaN */
    if (!rank) PetscCall(VecSetValues(b, 1, &i, &v, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    PetscCall(ExpectReason(A, b, KSPCGGPU, PCJACOBI, KSP_DIVERGED_NANORINF, "a NaN in b"));
    PetscCall(ExpectReason(A, b, KSPBICGGPU, PCNONE, KSP_DIVERGED_NANORINF, "a NaN in b"));
  }
  PetscCall(ReuseAfterNaN(type, KSPCGGPU));
  PetscCall(ReuseAfterNaN(type, KSPBICGGPU));
  /* an operator without entries to copy, and a preconditioner the kernels do not fuse: PETSc's
     method multiplies by it, and applies the PC */
  PetscCall(VecGetLocalSize(b, &nl));
  PetscCall(MatCreateShell(PETSC_COMM_WORLD, nl, nl, 40, 40, NULL, &S));
  PetscCall(MatShellSetOperation(S, MATOP_MULT, (void (*)(void))ShellMult));
  PetscCall(MatShellSetOperation(S, MATOP_MULT_TRANSPOSE, (void (*)(void))ShellMult));
  {
    Vec bs; /* b holds a NaN by now */

    PetscCall(VecDuplicate(b, &bs));
    PetscCall(VecSet(bs, 1.0));
    PetscCall(ExpectLikePETSc(S, bs, KSPCGGPU, KSPCG, PCNONE, "a MATSHELL operator (the general path)"));
    PetscCall(ExpectLikePETSc(S, bs, KSPBICGGPU, KSPBICG, PCNONE, "a MATSHELL operator (the general path)"));
    PetscCall(VecDestroy(&bs));
  }
  PetscCall(ExpectLikePETSc(A, b, KSPBICGGPU, KSPBICG, PCBJACOBI, "PCBJACOBI (the general path)"));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  PetscFunctionReturn(0);
}

/* Launches and waits per iteration, from two solves that differ by 20 iterations */
static PetscErrorCode Counts(PetscInt n, MatType type, const char *kt, PetscInt every)
{
  Mat                     A;
  Vec                     b, x;
  PetscGPUKitDeviceCounts c[3];
  PetscInt                its[2];
  KSPConvergedReason      reason;
  char                    opt[64], val[16];
  PetscBool               iscg;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(kt, KSPCGGPU, &iscg));
  PetscCall(Operator(iscg ? SPD2D : CONVDIFF, n, type, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(Solve(A, kt, PCJACOBI, KSP_NORM_DEFAULT, b, NULL, x, &its[0], &reason)); /* builds the device copy once */
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-ksp_%s_check_every", kt));
  PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, every));
  PetscCall(PetscOptionsSetValue(NULL, opt, val));
  PetscCall(PetscOptionsSetValue(NULL, "-ksp_rtol", "1e-30"));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscOptionsSetValue(NULL, "-ksp_max_it", k ? "40" : "20"));
    PetscCall(PetscGPUKitGetDeviceCounts(&c[k]));
    PetscCall(Solve(A, kt, PCJACOBI, KSP_NORM_DEFAULT, b, NULL, x, &its[k], &reason));
    PetscCheck(reason == KSP_DIVERGED_ITS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s ended %s, not at its iteration limit", kt,
               KSPConvergedReasons[reason]);
  }
  PetscCall(PetscGPUKitGetDeviceCounts(&c[2]));
  PetscCall(PetscOptionsClearValue(NULL, opt));
  PetscCall(PetscOptionsClearValue(NULL, "-ksp_max_it"));
  PetscCall(PetscOptionsClearValue(NULL, "-ksp_rtol"));
  {
    const PetscLogDouble dl = (c[2].launches - c[1].launches) - (c[1].launches - c[0].launches);
    const PetscLogDouble ds = (c[2].syncs - c[1].syncs) - (c[1].syncs - c[0].syncs);
    const PetscInt       di = its[1] - its[0];

    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s, check every %" PetscInt_FMT ": %g launches and %g waits for %" PetscInt_FMT " more iterations\n", kt,
                          every, dl, ds, di));
    PetscCheck(di == 20, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The solves differ by %" PetscInt_FMT " iterations, not 20", di);
    PetscCheck(dl == 2 * di, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%g launches for %" PetscInt_FMT " iterations: not 2 an iteration", dl, di);
    PetscCheck(ds == di / every, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%g waits for %" PetscInt_FMT " iterations: not one per %" PetscInt_FMT, ds, di,
               every);
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

/* One KSP, its operator switched to another matrix of the same size, pattern and object state
   number (assembled alike, with a different diagonal): the second solve must use the second
   matrix (its true residual, and PETSc's iterations on it), not what was made from the first */
static PetscErrorCode Switch(PetscInt n, MatType type, KSPType kt, PCType pt)
{
  const PetscBool    cg = (PetscBool)(kt[0] == 'c');
  const Problem      p  = cg ? SPD2D : CONVDIFF;
  Mat                A[2], Aref;
  Vec                b, x;
  KSP                ksp;
  PC                 pc;
  PetscObjectState   st[2];
  PetscInt           its, itsref;
  PetscReal          rel = 0.0;
  KSPConvergedReason reason, reasonref;

  PetscFunctionBegin;
  PetscCall(OperatorShifted(p, n, type, 0.0, &A[0]));
  PetscCall(OperatorShifted(p, n, type, 3.0, &A[1]));
  PetscCall(OperatorShifted(p, n, MATAIJ, 3.0, &Aref));
  PetscCall(PetscObjectStateGet((PetscObject)A[0], &st[0]));
  PetscCall(PetscObjectStateGet((PetscObject)A[1], &st[1]));
  PetscCheck(st[0] == st[1], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "The two operators' states differ (%" PetscInt64_FMT ", %" PetscInt64_FMT "): the test needs them equal", (PetscInt64)st[0],
             (PetscInt64)st[1]);
  PetscCall(MatCreateVecs(A[0], &x, &b));
  PetscCall(Fill(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetType(ksp, kt));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  PetscCall(KSPSetFromOptions(ksp));
  for (int k = 0; k < 2; k++) {
    PetscCall(KSPSetOperators(ksp, A[k], A[k]));
    PetscCall(KSPSolve(ksp, b, x));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(TestTrueResidual(A[1], x, b, &rel));
  PetscCall(Solve(Aref, cg ? KSPCG : KSPBICG, pt, KSP_NORM_DEFAULT, b, NULL, x, &itsref, &reasonref));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "%s %s, operator switched (same state): %" PetscInt_FMT " iterations (%s %" PetscInt_FMT "), %s, true residual %s\n", kt, pt,
                        its, cg ? KSPCG : KSPBICG, itsref, KSPConvergedReasons[reason], rel < 1e-6 ? "below 1e-6" : "too large"));
  PetscCheck(reason > 0 && rel < 1e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s after KSPSetOperators: %s with |b - Ax|/|b| = %g", kt,
             KSPConvergedReasons[reason], (double)rel);
  PetscCheck(PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s after KSPSetOperators: %" PetscInt_FMT " iterations, PETSc's %" PetscInt_FMT, kt, its, itsref);
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(MatDestroy(&A[0]));
  PetscCall(MatDestroy(&A[1]));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(0);
}

/* KSPSolveTranspose on the nonsymmetric problem against PETSc's: BiCG to convergence (and the
   true residual of A^T x = b), CG for a fixed number of iterations (the same iterates); each
   against the plain solve's answer too, which a solver ignoring the transpose would give */
static PetscErrorCode Transpose(PetscInt n, MatType type, PCType pt)
{
  Mat A, Aref;
  Vec b, x, xref, xplain, r;

  PetscFunctionBegin;
  PetscCall(Operator(CONVDIFF, n, type, &A));
  PetscCall(Operator(CONVDIFF, n, MATAIJ, &Aref));
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(VecDuplicate(xref, &x));
  PetscCall(VecDuplicate(xref, &xplain));
  PetscCall(VecDuplicate(xref, &r));
  PetscCall(Fill(b, 1.0));
  for (int m = 0; m < 2; m++) {
    const KSPType      kt = m ? KSPCGGPU : KSPBICGGPU, kref = m ? KSPCG : KSPBICG;
    const PetscInt     maxit = m ? 8 : 1000;
    PetscInt           its, itsref, itsplain;
    KSPConvergedReason reason, reasonref;
    PetscReal          rel, nr, nb, dplain;

    PetscCall(SolveAny(Aref, kref, pt, KSP_NORM_DEFAULT, maxit, PETSC_TRUE, b, NULL, xref, &itsref, &reasonref));
    PetscCall(SolveAny(A, kt, pt, KSP_NORM_DEFAULT, maxit, PETSC_TRUE, b, NULL, x, &its, &reason));
    PetscCall(Close(x, xref, m ? 1e-10 : 1e-6, &rel));
    PetscCall(Solve(Aref, kref, pt, KSP_NORM_DEFAULT, b, NULL, xplain, &itsplain, &reasonref));
    PetscCall(TestDiffNorms(xref, xplain, NORM_2, &dplain, &nb));
    PetscCheck(dplain > 1e-3 * nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The transposed and plain solves agree: the test cannot tell them apart");
    PetscCall(MatMultTranspose(Aref, x, r)); /* r = b - A^T x */
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, &nr));
    PetscCall(VecNorm(b, NORM_2, &nb));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "KSPSolveTranspose %s %s: %" PetscInt_FMT " iterations (%s %" PetscInt_FMT "), %s; solutions differ by %s\n", kt, pt, its,
                          kref, itsref, KSPConvergedReasons[reason], rel < 1e-6 ? "less than 1e-6" : "more"));
    PetscCheck(its == itsref, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPSolveTranspose: %s took %" PetscInt_FMT " iterations, %s %" PetscInt_FMT, kt, its,
               kref, itsref);
    if (!m)
      PetscCheck(reason > 0 && nr < 1e-6 * nb, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPSolveTranspose: %s ended %s with |b - A^T x|/|b| = %g", kt,
                 KSPConvergedReasons[reason], (double)(nr / nb));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&xplain));
  PetscCall(VecDestroy(&r));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(0);
}

static PetscErrorCode Reuse(PetscInt n, MatType type)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    const PCType pt = k ? PCJACOBI : PCNONE;

    PetscCall(Switch(n, type, KSPCGGPU, pt));
    PetscCall(Switch(n, type, KSPBICGGPU, pt));
    PetscCall(Transpose(n, type, pt));
  }
  { /* cggpu applies ssorgpu by Eisenstat's trick, which has no transposed form: refused */
    Mat            A;
    Vec            b, x;
    KSP            ksp;
    PC             pc;
    PetscErrorCode ierr;

    PetscCall(Operator(SPD2D, n, type, &A));
    PetscCall(MatCreateVecs(A, &x, &b));
    PetscCall(VecSet(b, 1.0));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCGGPU));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCSSORGPU));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = KSPSolveTranspose(ksp, b, x);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "KSPSolveTranspose with cggpu and ssorgpu returned %d, not PETSC_ERR_SUP",
               (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSPSolveTranspose %s %s: refused (PETSC_ERR_SUP)\n", KSPCGGPU, PCSSORGPU));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
  }
  PetscFunctionReturn(0);
}

/* A banded SPD matrix, 2 bw + 1 entries a row (33: GK_ELLR_WIDE or more, all alike, so ELLPACK-R
   takes one row a slice where no layout is set); its products and the fused solvers' solves
   against AIJ's and PETSc's methods, -rows_view before and after them (the fused solvers choose
   the layout again: their kernels take a row a thread) */
static PetscErrorCode Rows(PetscInt n, MatType type)
{
  const PetscInt N = n * n, bw = 16;
  const KSPType  kts[2][2] = {
    {KSPCG,   KSPCGGPU  },
    {KSPBICG, KSPBICGGPU}
  };
  Mat                A, Aref;
  Vec                b, x, xref;
  PetscInt           rs, re, its, itsref;
  KSPConvergedReason reason, reasonref;
  PetscReal          rel;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, type));
  PetscCall(MatSeqAIJSetPreallocation(A, 2 * bw + 1, NULL));
  PetscCall(MatMPIAIJSetPreallocation(A, 2 * bw + 1, NULL, 2 * bw, NULL));
  PetscCall(MatGetOwnershipRange(A, &rs, &re));
  for (PetscInt r = rs; r < re; r++)
    for (PetscInt c = PetscMax(0, r - bw); c <= PetscMin(N - 1, r + bw); c++)
      PetscCall(MatSetValue(A, r, c, c == r ? 2.0 * bw + 1.0 + (r % 7) : -1.0 + 0.01 * ((r + c) % 5), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(A, MATAIJ, MAT_INITIAL_MATRIX, &Aref));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &xref));
  PetscCall(Fill(b, 0.3));
  for (int pass = 0; pass < 2; pass++) {
    PetscCall(MatMult(A, b, x));
    PetscCall(MatMult(Aref, b, xref));
    PetscCall(Close(x, xref, 1e-12, &rel));
    PetscCall(MatMultTranspose(A, b, x));
    PetscCall(MatMultTranspose(Aref, b, xref));
    PetscCall(Close(x, xref, 1e-12, &rel));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "products and transposed products equal %s the fused solvers\n", pass ? "after" : "before"));
    PetscCall(MatViewFromOptions(A, NULL, "-rows_view"));
    if (pass) break;
    for (int k = 0; k < 2; k++) {
      PetscCall(Solve(Aref, kts[k][0], PCJACOBI, KSP_NORM_PRECONDITIONED, b, NULL, xref, &itsref, &reasonref));
      PetscCall(Solve(A, kts[k][1], PCJACOBI, KSP_NORM_PRECONDITIONED, b, NULL, x, &its, &reason));
      PetscCall(Close(x, xref, 1e-6, &rel));
      PetscCheck(reason == reasonref && PetscAbs(its - itsref) <= 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "%s: %" PetscInt_FMT " iterations, %s; %s %" PetscInt_FMT ", %s", kts[k][1], its, KSPConvergedReasons[reason], kts[k][0], itsref,
                 KSPConvergedReasons[reasonref]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s jacobi: %" PetscInt_FMT " iterations (%s %" PetscInt_FMT "), %s\n", kts[k][1], its, kts[k][0],
                            itsref, KSPConvergedReasons[reason]));
    }
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  n        = 20;
  char      mode[32] = "compare", type[64] = MATELLRCUDA;
  PetscBool compare, errors, reuse, rows;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscStrcmp(mode, "compare", &compare));
  PetscCall(PetscStrcmp(mode, "errors", &errors));
  PetscCall(PetscStrcmp(mode, "reuse", &reuse));
  PetscCall(PetscStrcmp(mode, "rows", &rows));
  if (rows) PetscCall(Rows(n, type));
  else if (compare) PetscCall(Compare(n, type));
  else if (reuse) PetscCall(Reuse(n, type));
  else if (errors) PetscCall(Errors(type));
  else {
    PetscCall(Counts(n, type, KSPCGGPU, 1));
    PetscCall(Counts(n, type, KSPCGGPU, 5));
    PetscCall(Counts(n, type, KSPBICGGPU, 1));
    PetscCall(Counts(n, type, KSPBICGGPU, 4));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "done\n"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # cggpu and bicggpu: against KSPCG/KSPBICG, breakdowns, launch and wait counts; on several
  # processes the MPI device types (aij: converted to mpiellrcuda by the solvers).
  # The program holds the fused solvers' iteration counts to PETSc's within one (a GPU's sums
  # round in another order) and their solutions to the tolerance: the compared lines keep the
  # problem, PC, norm, guess, PETSc's count and the reason, not the fused count or the digits of
  # the differences. Complex scalars add the complex symmetric (COCG) and Hermitian problems and
  # complex convection: their own output file.
  testset:
    requires: real
    output_file: output/solvers_compare_real.out
    filter: grep -v -E "^  (solutions differ by|true residual) " | sed -E "s/ +[0-9]+ iterations/ N iterations/"
    test:
      suffix: compare_real
      nsize: {{1 2 3}shared output}
      args: -mode compare -type {{ellrcuda diacuda aij}shared output}
    # on both backends
    test:
      suffix: compare_real_backends
      args: -mode compare -type diacuda -gpukit_backend {{host cuda}shared output}
    # ELLPACK-R's columns: 32-bit indices (-mat_ellrcuda_short_columns 0) with slices, and the
    # 16-bit default sliced and sorted
    test:
      suffix: compare_real_columns32_sliced
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0 -mat_ellrcuda_slice_height 16
    test:
      suffix: compare_real_sliced
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 16
    test:
      suffix: compare_real_sorted
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 24
    # a sort window dividing 1024: the product's blocks each own a window of rows (x's entries there
    # read into shared memory, y written in row order); 24 above does not divide 1024
    test:
      suffix: compare_real_sorted_window
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 32
    # the MPI matrices with 32-bit columns, on 1 to 3 processes and 4
    test:
      suffix: compare_real_columns32
      nsize: {{1 2 3}shared output}
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0
    test:
      suffix: compare_real_columns32_4_ranks
      nsize: 4
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0

  testset:
    requires: complex
    output_file: output/solvers_compare_complex.out
    filter: grep -v -E "^  (solutions differ by|true residual) " | sed -E "s/ +[0-9]+ iterations/ N iterations/"
    test:
      suffix: compare_complex
      nsize: {{1 2 3}shared output}
      args: -mode compare -type {{ellrcuda diacuda aij}shared output}
    test:
      suffix: compare_complex_backends
      args: -mode compare -type diacuda -gpukit_backend {{host cuda}shared output}
    test:
      suffix: compare_complex_columns32_sliced
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0 -mat_ellrcuda_slice_height 16
    test:
      suffix: compare_complex_sliced
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 16
    test:
      suffix: compare_complex_sorted
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 24
    test:
      suffix: compare_complex_sorted_window
      args: -mode compare -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 32
    test:
      suffix: compare_complex_columns32
      nsize: {{1 2 3}shared output}
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0
    test:
      suffix: compare_complex_columns32_4_ranks
      nsize: 4
      args: -mode compare -type ellrcuda -mat_ellrcuda_short_columns 0

  # another operator of the same state number, and KSPSolveTranspose (the fused counts left out
  # as above)
  test:
    suffix: reuse
    nsize: {{1 2 3}shared output}
    args: -mode reuse -type {{ellrcuda diacuda aij}shared output}
    filter: sed -E "s/ [0-9]+ iterations/ N iterations/"

  # an indefinite matrix, a BiCG breakdown, a NaN in b, a shell operator, a PC the kernels do not
  # fuse (PETSc's method applies it): the reasons or errors PETSc users expect, and no leak. A
  # diagonal of three values (two after the NaN) is solved in three iterations (two), its residual
  # then rounding or exactly 0 by the order of the sums: CONVERGED_RTOL or CONVERGED_ATOL (the
  # program holds cggpu's reason to KSPCG's)
  test:
    suffix: errors
    nsize: {{1 2 3}shared output}
    args: -mode errors
    filter: sed -E -e "s/CONVERGED_[AR]TOL after 3/CONVERGED_RTOL or ATOL after 3/g" -e "s/then CONVERGED_[AR]TOL$/then CONVERGED_RTOL or ATOL/"

  # a matrix of 33-entry rows: ELLPACK-R's products one row a slice (a group of 8 lanes a row),
  # then the fused solvers' layout (the paper's, a warp a row), -rows_view saying which; products
  # and solves equal AIJ's and PETSc's methods' (within one iteration; the counts left out: complex
  # scalars take more), on both backends, and on 2 processes (the diagonal block)
  test:
    suffix: rows
    args: -mode rows -rows_view ::ascii_info -gpukit_backend {{host cuda}shared output}
    filter: grep -E "products|jacobi|sliced automatically|wide:" | sed -E "s/ [0-9]+ iterations \(([a-z]+) [0-9]+\)/ N iterations (\\1 N)/"
  test:
    suffix: rows_mpi
    nsize: 2
    args: -mode rows
    filter: grep -E "products|jacobi" | sed -E "s/ [0-9]+ iterations \(([a-z]+) [0-9]+\)/ N iterations (\\1 N)/"
    output_file: output/solvers_rows_mpi.out

  # the library's own counters: 2 launches an iteration, and 1 wait an iteration (1 per k
  # iterations with -ksp_*_check_every k), on both backends
  test:
    suffix: counts
    args: -mode counts -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}

  # the same iterations, for the fused solvers and PETSc's, whatever the process count: the
  # counts of 1 to 3 processes in one output file, which the GPU's cases below share
  testset:
    requires: real
    output_file: output/solvers_iterations_real.out
    filter: grep iterations
    test:
      suffix: iterations_real
      nsize: {{1 2 3}shared output}
      args: -mode compare -type diacuda -n 16
    # each fused kernel launched only when the one before has ended (-gpukit_overlap_kernels 0,
    # where the GPU would overlap them): the same iterations in every case; on a GPU only (the
    # host backend has no launches to overlap, and the case could not fail there)
    test:
      suffix: overlap_real
      requires: real gpu
      args: -mode compare -type {{ellrcuda diacuda}shared output} -n 16 -gpukit_overlap_kernels {{on off}shared output}
    # the fused solvers' sums over the processes, a GPU each: the same iterations with the sums
    # kept on the GPUs as through MPI (the solutions' differences from PETSc's, which solvers
    # checks against the tolerance, may move in the last bit: complex sums are added in another
    # order); the host backend, and processes sharing a GPU, have one way only: these could not
    # fail there
    test:
      suffix: device_sums_real
      requires: real gpu_per_rank
      nsize: {{2 3}shared output}
      args: -mode compare -type {{ellrcuda diacuda}shared output} -n 16 -ksp_cggpu_device_sums {{on off}shared output} -ksp_bicggpu_device_sums {{on off}shared output}

  testset:
    requires: complex
    output_file: output/solvers_iterations_complex.out
    filter: grep iterations
    test:
      suffix: iterations_complex
      nsize: {{1 2 3}shared output}
      args: -mode compare -type diacuda -n 16
    test:
      suffix: overlap_complex
      requires: complex gpu
      args: -mode compare -type {{ellrcuda diacuda}shared output} -n 16 -gpukit_overlap_kernels {{on off}shared output}
    test:
      suffix: device_sums_complex
      requires: complex gpu_per_rank
      nsize: {{2 3}shared output}
      args: -mode compare -type {{ellrcuda diacuda}shared output} -n 16 -ksp_cggpu_device_sums {{on off}shared output} -ksp_bicggpu_device_sums {{on off}shared output}

  # breakdowns stop every process alike, the sums on the GPUs or through MPI
  test:
    suffix: device_sums_errors
    requires: gpu_per_rank
    nsize: {{2 3}shared output}
    output_file: output/solvers_errors.out
    args: -mode errors -ksp_cggpu_device_sums {{on off}shared output} -ksp_bicggpu_device_sums {{on off}shared output}
    filter: sed -E -e "s/CONVERGED_[AR]TOL after 3/CONVERGED_RTOL or ATOL after 3/g" -e "s/then CONVERGED_[AR]TOL$/then CONVERGED_RTOL or ATOL/"

TEST*/

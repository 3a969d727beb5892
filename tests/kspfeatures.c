static char help[] = "cggpu and bicggpu under PETSc features their users rely on, against PETSc's KSPCG and KSPBICG on AIJ.\n\
  -mode <changes,nullspace,jacobi,guess>\n\
  -type <ellrcuda,diacuda,aij> : the operator given to the solvers (aij: converted by them)\n\
  -n <n>                       : grid points per side\n\n";

/*
   changes:   one KSP solves, then its operator's values change in place (MatScale, MatShift,
              MatSetValues and assembly) and it solves again, with each PC (the fused kernels'
              and PETSc's on the general path): every solve's true residual is the changed
              matrix's, its iterations and reason PETSc's KSPCG's or KSPBICG's on an AIJ copy
              changed alike
   nullspace: a Neumann Laplacian with the constants as its null space (MatSetNullSpace: PETSc's
              KSPs remove it from the preconditioned residual), given as PETSc's flag or as a
              vector: x PETSc's (not PETSc's plus a constant), with each norm, on the fused and
              the general path
   jacobi:    every PCJacobiType this PETSc has, with and without -pc_jacobi_abs and
              -pc_jacobi_fixdiagonal, on a matrix where they make a difference (rows whose sum is
              0 or negative, off-diagonal entries larger than the diagonal): the fused kernels'
              Jacobi is PETSc's
   guess:     an initial guess PETSc's KSP makes: Fischer's from earlier solves (KSPGuess), Knoll's
              (the PC applied to b), the last solution (nonzero guess): PETSc's iterations
   Prints one verdict line a case; the iteration counts, which change between PETSc releases, are
   checked by the program (the fused solvers' within one of PETSc's), not printed.
*/
#include <petscgpukit.h>
#include <petscksp.h>
#include "testutil.h"

/* The 5-point Laplacian on n x n with diagonal d0 + dv (j % 3), Dirichlet; with scale, row and
   column i scaled by s_i = 1 on the left half of the grid and 5 on the right (A = S K S: SPD,
   with rows whose sum is 0, negative, or positive, and off-diagonal entries larger than the
   diagonal at the interface); d0 < 0: Neumann, each row's diagonal the number of its neighbours
   (its sum 0, the constants its null space) */
static PetscErrorCode Laplacian(PetscInt n, MatType type, PetscReal d0, PetscReal dv, PetscBool scale, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 5, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    const PetscInt  i = r / n, j = r % n, nb[4] = {i > 0 ? r - n : -1, j > 0 ? r - 1 : -1, j < n - 1 ? r + 1 : -1, i < n - 1 ? r + n : -1};
    const PetscReal sr = scale && 2 * j >= n ? 5.0 : 1.0;
    PetscInt        d  = 0;

    for (int k = 0; k < 4; k++)
      if (nb[k] >= 0) {
        PetscCall(MatSetValue(*A, r, nb[k], -sr * (scale && 2 * (nb[k] % n) >= n ? 5.0 : 1.0), INSERT_VALUES));
        d++;
      }
    PetscCall(MatSetValue(*A, r, r, d0 < 0 ? (PetscScalar)d : sr * sr * (d0 + dv * (j % 3)), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* v_i = sin(0.37 i) + 0.5 cos(0.11 i): the same vector whatever the process count */
static PetscErrorCode Smooth(Vec v)
{
  PetscScalar *a;
  PetscInt     rs, re;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(v, &rs, &re));
  PetscCall(VecGetArray(v, &a));
  for (PetscInt i = rs; i < re; i++) a[i - rs] = PetscSinReal(0.37 * i) + 0.5 * PetscCosReal(0.11 * i);
  PetscCall(VecRestoreArray(v, &a));
  PetscFunctionReturn(0);
}

/* A KSP of method kt on A with PC pt and norm nt, the options database's settings taken */
static PetscErrorCode MakeKSP(Mat A, KSPType kt, PCType pt, KSPNormType nt, KSP *ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, ksp));
  PetscCall(KSPSetOperators(*ksp, A, A));
  PetscCall(KSPSetType(*ksp, kt));
  PetscCall(KSPGetPC(*ksp, &pc));
  PetscCall(PCSetType(pc, pt));
  PetscCall(KSPSetTolerances(*ksp, 1e-9, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  if (nt != KSP_NORM_DEFAULT) PetscCall(KSPSetNormType(*ksp, nt));
  PetscCall(KSPSetFromOptions(*ksp));
  PetscFunctionReturn(0);
}

/* The fused solver's and PETSc's solves agree: the same reason, iterations within one (within
   slack of PETSc's count besides, where a slow convergence lets rounding move it further) */
static PetscErrorCode AgreeWithin(KSP ksp, KSP ref, PetscReal slack, const char *what)
{
  PetscInt           its, itsref;
  KSPConvergedReason reason, reasonref;
  KSPType            kt, kref;

  PetscFunctionBegin;
  PetscCall(KSPGetType(ksp, &kt));
  PetscCall(KSPGetType(ref, &kref));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetIterationNumber(ref, &itsref));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetConvergedReason(ref, &reasonref));
  PetscCheck(reason == reasonref && PetscAbs(its - itsref) <= 1 + slack * itsref, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: %s %s after %" PetscInt_FMT " iterations, %s %s after %" PetscInt_FMT, what, kt, KSPConvergedReasons[reason], its, kref,
             KSPConvergedReasons[reasonref], itsref);
  PetscFunctionReturn(0);
}

static PetscErrorCode Agree(KSP ksp, KSP ref, const char *what)
{
  PetscFunctionBegin;
  PetscCall(AgreeWithin(ksp, ref, 0.0, what));
  PetscFunctionReturn(0);
}

/* Changes A's values in place, step k of three: MatScale, MatShift, MatSetValues of the diagonal
   and assembly */
static PetscErrorCode Change(Mat A, int k)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  if (k == 0) PetscCall(MatScale(A, 2.0));
  else if (k == 1) PetscCall(MatShift(A, 1.5));
  else {
    PetscCall(MatGetOwnershipRange(A, &rs, &re));
    for (PetscInt r = rs; r < re; r++) PetscCall(MatSetValue(A, r, r, 1.0 + (r % 3), ADD_VALUES));
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Changes(PetscInt n, MatType type)
{
  /* the fused kernels' PCs, then PETSc's: on one process also the factorizations, ILU (its
     transpose for BiCG) and Eisenstat (PETSc's PCEisenstat replaces the operator by its own in
     PCPreSolve()); BiCG applies the PC's transpose, which PCSOR has only for symmetric sweeps */
  const char *const cgpcs[] = {PCNONE, PCJACOBI, PCBJACOBI, PCASM, PCGAMG, PCSOR, PCILU, PCICC, PCLU, PCCHOLESKY, PCEISENSTAT};
  const char *const bipcs[] = {PCNONE, PCJACOBI, PCBJACOBI, PCILU};
  PetscMPIInt       size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (int m = 0; m < 2; m++) {
    const PetscInt np = m ? (size > 1 ? 3 : 4) : (size > 1 ? 6 : 11);

    for (PetscInt p = 0; p < np; p++) {
      const char *pt = m ? bipcs[p] : cgpcs[p];
      Mat         A, Aref;
      Vec         b, x, xref;
      KSP         ksp, ref;
      PetscReal   rel = 0.0;
      char        what[128];

      PetscCall(Laplacian(n, type, 4.0, 0.5, PETSC_FALSE, &A));
      PetscCall(Laplacian(n, MATAIJ, 4.0, 0.5, PETSC_FALSE, &Aref));
      PetscCall(MatCreateVecs(Aref, &xref, &b));
      PetscCall(VecDuplicate(xref, &x));
      PetscCall(Smooth(b));
      PetscCall(MakeKSP(A, m ? KSPBICGGPU : KSPCGGPU, pt, KSP_NORM_DEFAULT, &ksp));
      PetscCall(MakeKSP(Aref, m ? KSPBICG : KSPCG, pt, KSP_NORM_DEFAULT, &ref));
      for (int k = 0; k < 4; k++) {
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPSolve(ref, b, xref));
        PetscCall(PetscSNPrintf(what, sizeof(what), "PC %s, solve %d", pt, k));
        PetscCall(Agree(ksp, ref, what));
        PetscCall(TestTrueResidual(Aref, x, b, &rel)); /* the changed matrix's */
        PetscCheck(rel < 1e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: |b - A x|/|b| = %g for the matrix as it is now", what, (double)rel);
        if (k < 3) {
          PetscCall(Change(A, k));
          PetscCall(Change(Aref, k));
        }
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s, operator changed in place 3 times: %s's iterations, true residuals below 1e-6\n",
                            m ? KSPBICGGPU : KSPCGGPU, pt, m ? KSPBICG : KSPCG));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(KSPDestroy(&ref));
      PetscCall(VecDestroy(&b));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&xref));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&Aref));
    }
  }
  PetscFunctionReturn(0);
}

/* The constants as a null space: PETSc's flag, or as a vector of its own (the general path) */
static PetscErrorCode ConstantNullSpace(Mat A, PetscBool asvec, MatNullSpace *nsp)
{
  Vec       c;
  PetscReal nc;

  PetscFunctionBegin;
  if (!asvec) {
    PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_TRUE, 0, NULL, nsp));
    PetscFunctionReturn(0);
  }
  PetscCall(MatCreateVecs(A, &c, NULL));
  PetscCall(VecSet(c, 1.0));
  PetscCall(VecNormalize(c, &nc));
  PetscCall(MatNullSpaceCreate(PETSC_COMM_WORLD, PETSC_FALSE, 1, &c, nsp));
  PetscCall(VecDestroy(&c));
  PetscFunctionReturn(0);
}

static PetscErrorCode NullSpace(PetscInt n, MatType type)
{
  const struct {
    KSPType     kt, kref;
    PCType      pt;
    KSPNormType nt;
  } cases[] = {
    {KSPCGGPU,   KSPCG,   PCJACOBI,  KSP_NORM_PRECONDITIONED  },
    {KSPCGGPU,   KSPCG,   PCJACOBI,  KSP_NORM_UNPRECONDITIONED},
    {KSPCGGPU,   KSPCG,   PCJACOBI,  KSP_NORM_NATURAL         },
    {KSPCGGPU,   KSPCG,   PCNONE,    KSP_NORM_PRECONDITIONED  },
    {KSPCGGPU,   KSPCG,   PCBJACOBI, KSP_NORM_PRECONDITIONED  },
    {KSPBICGGPU, KSPBICG, PCJACOBI,  KSP_NORM_PRECONDITIONED  },
  };
  Mat A, Aref;
  Vec b, x, xref, xe;

  PetscFunctionBegin;
  PetscCall(Laplacian(n, type, -1.0, 0.0, PETSC_FALSE, &A));
  PetscCall(Laplacian(n, MATAIJ, -1.0, 0.0, PETSC_FALSE, &Aref));
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(VecDuplicate(xref, &x));
  PetscCall(VecDuplicate(xref, &xe));
  PetscCall(Smooth(xe));
  PetscCall(MatMult(Aref, xe, b)); /* consistent */
  for (int v = 0; v < 2; v++)
    for (size_t c = 0; c < PETSC_STATIC_ARRAY_LENGTH(cases); c++) {
      MatNullSpace nsp;
      KSP          ksp, ref;
      PetscReal    nd, nr;
      PetscScalar  sum;
      char         what[128];

      PetscCall(ConstantNullSpace(Aref, (PetscBool)v, &nsp));
      PetscCall(MatSetNullSpace(A, nsp));
      PetscCall(MatSetNullSpace(Aref, nsp));
      PetscCall(MakeKSP(A, cases[c].kt, cases[c].pt, cases[c].nt, &ksp));
      PetscCall(MakeKSP(Aref, cases[c].kref, cases[c].pt, cases[c].nt, &ref));
      PetscCall(KSPSolve(ksp, b, x));
      PetscCall(KSPSolve(ref, b, xref));
      PetscCall(PetscSNPrintf(what, sizeof(what), "null space %s, PC %s, norm %s", v ? "vector" : "flag", cases[c].pt, KSPNormTypes[cases[c].nt]));
      PetscCall(Agree(ksp, ref, what));
      /* x is PETSc's: not PETSc's plus a constant, which A x cannot tell apart */
      PetscCall(TestDiffNorms(xref, x, NORM_2, &nd, &nr));
      PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: ||x - x_petsc|| / ||x_petsc|| = %g", what, (double)(nd / nr));
      PetscCall(VecSum(x, &sum));
      PetscCall(VecNorm(x, NORM_1, &nr));
      PetscCheck(PetscAbsScalar(sum) <= 1e-8 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: x holds the constants: sum %g of |x|_1 %g", what,
                 (double)PetscAbsScalar(sum), (double)nr);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: %s's iterations, x PETSc's, free of the constants\n", cases[c].kt, what, cases[c].kref));
      PetscCall(KSPDestroy(&ksp));
      PetscCall(KSPDestroy(&ref));
      PetscCall(MatNullSpaceDestroy(&nsp));
    }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&xe));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(0);
}

static PetscErrorCode Jacobi(PetscInt n, MatType type)
{
  Mat         A, Aref;
  Vec         b, x, xref;
  PetscInt    ntypes = 0, first[2] = {-1, -1};
  PetscBool   differ  = PETSC_FALSE;
  const char *names[] = {"off", "on"};

  PetscFunctionBegin;
  PetscCall(Laplacian(n, type, 4.0, 0.0, PETSC_TRUE, &A));
  PetscCall(Laplacian(n, MATAIJ, 4.0, 0.0, PETSC_TRUE, &Aref));
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(VecDuplicate(xref, &x));
  PetscCall(Smooth(b));
  while (strcmp(PCJacobiTypes[ntypes], "PCJacobiType")) ntypes++; /* the types this PETSc has */
  for (PetscInt t = 0; t < ntypes; t++)
    for (int abs = 0; abs < 2; abs++)
      for (int fix = 0; fix < 2; fix++) {
        KSP                ksp, ref;
        PC                 pc[2];
        PetscInt           itsref;
        KSPConvergedReason reasonref;
        char               what[128];

        /* row sums without abs are negative on some rows: an indefinite PC, which KSPCG stops at
           with real scalars; with complex ones it has no such test, and its iterations are
           rounding's */
        if (PetscDefined(USE_COMPLEX) && !abs && !strcmp(PCJacobiTypes[t], "ROWSUM")) continue;

        PetscCall(MakeKSP(A, KSPCGGPU, PCJACOBI, KSP_NORM_DEFAULT, &ksp));
        PetscCall(MakeKSP(Aref, KSPCG, PCJACOBI, KSP_NORM_DEFAULT, &ref));
        PetscCall(KSPGetPC(ksp, &pc[0]));
        PetscCall(KSPGetPC(ref, &pc[1]));
        for (int k = 0; k < 2; k++) {
          PetscCall(PCJacobiSetType(pc[k], (PCJacobiType)t));
          PetscCall(PCJacobiSetUseAbs(pc[k], (PetscBool)abs));
          PetscCall(PCJacobiSetFixDiagonal(pc[k], (PetscBool)fix));
        }
        PetscCall(KSPSolve(ksp, b, x));
        PetscCall(KSPSolve(ref, b, xref));
        PetscCall(PetscSNPrintf(what, sizeof(what), "-pc_jacobi_type %s -pc_jacobi_abs %s -pc_jacobi_fixdiagonal %s", PCJacobiTypes[t], names[abs],
                                names[fix]));
        PetscCall(AgreeWithin(ksp, ref, 0.05, what)); /* up to 150 iterations of a poor preconditioner */
        PetscCall(KSPGetIterationNumber(ref, &itsref));
        PetscCall(KSPGetConvergedReason(ref, &reasonref));
        if (reasonref > 0) {
          PetscReal nd, nr;

          PetscCall(TestDiffNorms(xref, x, NORM_2, &nd, &nr));
          PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: ||x - x_petsc|| / ||x_petsc|| = %g", what, (double)(nd / nr));
        }
        /* the settings must matter on this matrix, or the test could not fail */
        if (first[0] < 0) {
          first[0] = itsref;
          first[1] = reasonref;
        } else if (itsref != first[0] || reasonref != first[1]) differ = PETSC_TRUE;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: %s, with %s's iterations\n", KSPCGGPU, what, KSPConvergedReasons[reasonref], KSPCG));
        PetscCall(KSPDestroy(&ksp));
        PetscCall(KSPDestroy(&ref));
      }
  PetscCheck(differ, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Jacobi's settings all solve alike on this matrix: the test cannot tell them apart");
  /* the fix of zero diagonal entries still on after a solve (the library turns it off while the
     PC sets itself up where it would change nothing), and a zero diagonal entry fixed as
     PETSc's Jacobi fixes it */
  {
    KSP                ksp, ref;
    PC                 pc;
    PetscBool          fix;
    PetscInt           rs, re, mid = n * (n / 2) + n / 2;
    KSPConvergedReason reasonref;

    PetscCall(MakeKSP(A, KSPCGGPU, PCJACOBI, KSP_NORM_DEFAULT, &ksp));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCJacobiGetFixDiagonal(pc, &fix));
    PetscCheck(fix, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-pc_jacobi_fixdiagonal is off after a solve");
    PetscCall(KSPDestroy(&ksp));
    for (int k = 0; k < 2; k++) {
      Mat M = k ? Aref : A;

      PetscCall(MatGetOwnershipRange(M, &rs, &re));
      if (mid >= rs && mid < re) PetscCall(MatSetValue(M, mid, mid, 0.0, INSERT_VALUES));
      PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
    }
    PetscCall(MakeKSP(A, KSPCGGPU, PCJACOBI, KSP_NORM_DEFAULT, &ksp));
    PetscCall(MakeKSP(Aref, KSPCG, PCJACOBI, KSP_NORM_DEFAULT, &ref));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPSolve(ref, b, xref));
    PetscCall(AgreeWithin(ksp, ref, 0.05, "a zero diagonal entry, fixed by -pc_jacobi_fixdiagonal"));
    PetscCall(KSPGetConvergedReason(ref, &reasonref));
    if (reasonref > 0) {
      PetscReal nd, nr;

      PetscCall(TestDiffNorms(xref, x, NORM_2, &nd, &nr));
      PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "a zero diagonal entry: ||x - x_petsc|| / ||x_petsc|| = %g", (double)(nd / nr));
    }
    { /* the PCs' inverted diagonals, the zero entry made one by both */
      Vec                o[2], d[2];
      const PetscScalar *a[2];
      PetscInt           m;

      for (int k = 0; k < 2; k++) {
        PetscCall(KSPGetPC(k ? ref : ksp, &pc));
        PetscCall(MatCreateVecs(k ? Aref : A, &o[k], &d[k]));
        PetscCall(VecSet(o[k], 1.0));
        PetscCall(PCApply(pc, o[k], d[k]));
        PetscCall(VecGetArrayRead(d[k], &a[k]));
      }
      PetscCall(VecGetLocalSize(d[0], &m));
      for (PetscInt i = 0; i < m; i++)
        PetscCheck(PetscAbsScalar(a[0][i] - a[1][i]) <= 1e-14 * PetscAbsScalar(a[1][i]), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "a zero diagonal entry: the inverted diagonal's entry %" PetscInt_FMT " is %g, PETSc's %g", rs + i, (double)PetscRealPart(a[0][i]),
                   (double)PetscRealPart(a[1][i]));
      for (int k = 0; k < 2; k++) {
        PetscCall(VecRestoreArrayRead(d[k], &a[k]));
        PetscCall(VecDestroy(&o[k]));
        PetscCall(VecDestroy(&d[k]));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "%s a zero diagonal entry fixed by -pc_jacobi_fixdiagonal: %s, with %s's iterations and inverted diagonal\n", KSPCGGPU,
                          KSPConvergedReasons[reasonref], KSPCG));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(KSPDestroy(&ref));
  }
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Aref));
  PetscFunctionReturn(0);
}

static PetscErrorCode Guess(PetscInt n, MatType type)
{
  const char *const what[] = {"Fischer's guess (KSPGuess fischer, model 1, size 10)", "Knoll's guess (-ksp_knoll)",
                              "the last solution as the guess (-ksp_initial_guess_nonzero)"};
  Mat               A, Aref;
  Vec               b, x, xref;

  PetscFunctionBegin;
  PetscCall(Laplacian(n, type, 4.0, 0.5, PETSC_FALSE, &A));
  PetscCall(Laplacian(n, MATAIJ, 4.0, 0.5, PETSC_FALSE, &Aref));
  PetscCall(MatCreateVecs(Aref, &xref, &b));
  PetscCall(VecDuplicate(xref, &x));
  for (int g = 0; g < 3; g++) {
    KSP ksp[2];

    for (int k = 0; k < 2; k++) {
      PetscCall(MakeKSP(k ? Aref : A, k ? KSPCG : KSPCGGPU, PCJACOBI, KSP_NORM_DEFAULT, &ksp[k]));
      if (g == 0) {
        KSPGuess guess;

        PetscCall(KSPGetGuess(ksp[k], &guess));
        PetscCall(KSPGuessSetType(guess, KSPGUESSFISCHER));
        PetscCall(KSPGuessFischerSetModel(guess, 1, 10));
      } else if (g == 1) PetscCall(KSPSetInitialGuessKnoll(ksp[k], PETSC_TRUE));
      else PetscCall(KSPSetInitialGuessNonzero(ksp[k], PETSC_TRUE));
    }
    PetscCall(VecSet(x, 0.0));
    PetscCall(VecSet(xref, 0.0));
    for (int r = 0; r < 4; r++) { /* right-hand sides that change a little: a guess saves iterations */
      PetscReal nd, nr;
      char      msg[160];

      PetscCall(Smooth(b));
      PetscCall(VecScale(b, 1.0 + 0.1 * r));
      PetscCall(VecShift(b, 0.01 * r));
      PetscCall(KSPSolve(ksp[0], b, x));
      PetscCall(KSPSolve(ksp[1], b, xref));
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s, solve %d", what[g], r));
      PetscCall(Agree(ksp[0], ksp[1], msg));
      PetscCall(TestDiffNorms(xref, x, NORM_2, &nd, &nr));
      PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: ||x - x_petsc|| / ||x_petsc|| = %g", msg, (double)(nd / nr));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s %s: 4 solves, %s's iterations and solutions\n", KSPCGGPU, what[g], KSPCG));
    for (int k = 0; k < 2; k++) PetscCall(KSPDestroy(&ksp[k]));
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
  PetscInt  n        = 12;
  char      mode[32] = "changes", type[64] = MATELLRCUDA;
  PetscBool changes, nullspace, guess;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscStrcmp(mode, "changes", &changes));
  PetscCall(PetscStrcmp(mode, "nullspace", &nullspace));
  PetscCall(PetscStrcmp(mode, "guess", &guess));
  if (changes) PetscCall(Changes(n, type));
  else if (nullspace) PetscCall(NullSpace(n, type));
  else if (guess) PetscCall(Guess(n, type));
  else PetscCall(Jacobi(n, type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "done\n"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # a matrix changed in place between the solves of one KSP, with the fused kernels' PCs and
  # PETSc's (the general path); the operator given as each device type, and as AIJ (converted by
  # the solvers, again after each change); the device types' MatSOR in AIJ's order (its default
  # is the multicolour one), so that PCSOR's and PCEisenstat's iterations are AIJ's
  test:
    suffix: changes
    args: -mode changes -type {{ellrcuda diacuda aij}shared output} -mat_sor_ordering natural -options_left 0
  test:
    suffix: changes_mpi
    nsize: {{2 3}separate output}
    args: -mode changes -type {{ellrcuda diacuda aij}shared output} -mat_sor_ordering natural -options_left 0
  # the constants as the operator's null space, on both backends where the fused kernels remove
  # them (one process), and on several processes (PETSc's method removes them)
  test:
    suffix: nullspace
    args: -mode nullspace -type {{ellrcuda diacuda aij}shared output} -gpukit_backend {{host cuda}shared output}
  test:
    suffix: nullspace_mpi
    nsize: {{2 3}separate output}
    args: -mode nullspace -type {{ellrcuda diacuda}shared output}
  # the initial guesses PETSc's KSP makes
  test:
    suffix: guess
    nsize: {{1 2}separate output}
    args: -mode guess -type {{ellrcuda aij}shared output}
  # Jacobi's options, as PETSc's PCJACOBI takes them (its types: those of the release); with
  # complex scalars KSPCG does not test rho's sign, and an indefinite PC may converge
  test:
    suffix: jacobi
    requires: real
    nsize: {{1 2}separate output}
    args: -mode jacobi -type {{ellrcuda diacuda aij}shared output}
    filter: grep -v -i rowl1
  test:
    suffix: jacobi_complex
    requires: complex
    nsize: {{1 2}separate output}
    args: -mode jacobi -type {{ellrcuda diacuda aij}shared output}
    filter: grep -v -i rowl1

TEST*/

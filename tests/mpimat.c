static char help[] = "MPI device matrices (mpiellrcuda, mpidiacuda) against MPIAIJ: every product on device and\n\
standard vectors, the diagonal, values set on other processes, new nonzeros after assembly,\n\
MatZeroRows, MatConvert, MatDuplicate and MatLoad; with -ksp, cggpu against KSPCG instead; with\n\
-graph, MatCreateGraph (PCGAMG's strength graph) against MPIAIJ's instead; with -spgemm,\n\
MatMatMult and MatPtAP against AIJ's instead.\n\
  -type ellrcuda|diacuda\n\
  -problem lap2d|blockdiag|random|rect : blockdiag has no entries off the process's own columns\n\
  -layout even|uneven|empty            : empty gives process 1 no rows (and no columns)\n\
  -n <n>                               : the size\n\
  -ksp                                 : one cggpu KSP through three operators in the layout (the\n\
                                         5-point Laplacian on an n x n grid; the same with new\n\
                                         couplings across processes; a copy), against KSPCG on\n\
                                         MPIAIJ: iterations within one, solutions within the\n\
                                         tolerance; prints the iterations and residual norms\n\n";
#include <petscksp.h>

#include <petscmat.h>
#include <petscgpukit.h>
#include "testutil.h"
#include "mat/impls/gk/gkmat.h" /* MatSeqELLRCUDAGetDeviceFormat: the blocks' slice height */

typedef enum {
  LAP2D,
  BLOCKDIAG,
  RANDOM,
  RECT
} Problem;
static const char *const Problems[] = {"lap2d", "blockdiag", "random", "rect", "Problem", "", NULL};

#if defined(PETSC_USE_COMPLEX)
  #define CPLX(re, im) ((re) + (im) * PETSC_i)
#else
  #define CPLX(re, im) (re)
#endif

/* The problem's entries, the same into both matrices; each process also adds into a row the
   next process owns, so that assembly moves values between processes */
static PetscErrorCode Fill(Mat A, Problem p, PetscInt n, PetscInt seedrow)
{
  PetscInt    M, N, rstart, rend, cstart, cend;
  PetscRandom rnd;
  PetscMPIInt rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetSize(A, &M, &N));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261122 + rank));
  PetscCall(PetscRandomSeed(rnd));
  for (PetscInt r = rstart; r < rend; r++) {
    if (p == LAP2D) {
      const PetscInt i = r / n, j = r % n;

      if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, ADD_VALUES));
      if (j > 0) PetscCall(MatSetValue(A, r, r - 1, CPLX(-1.0, 0.25), ADD_VALUES));
      PetscCall(MatSetValue(A, r, r, 4.0, ADD_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, ADD_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, CPLX(-1.0, -0.5), ADD_VALUES));
    } else if (p == BLOCKDIAG) { /* tridiagonal inside the process's own columns */
      for (PetscInt c = PetscMax(r - 1, cstart); c <= PetscMin(r + 1, cend - 1); c++)
        PetscCall(MatSetValue(A, r, c, c == r ? 3.0 : CPLX(-1.0, 0.5), INSERT_VALUES));
    } else { /* up to 7 entries a row at random columns, every 5th row empty, the diagonal */
      PetscReal u;

      if (r % 5 == 2) continue;
      PetscCall(PetscRandomGetValueReal(rnd, &u));
      for (PetscInt k = 0; k < (PetscInt)(u * 8); k++) {
        PetscScalar v;

        PetscCall(PetscRandomGetValueReal(rnd, &u));
        PetscCall(PetscRandomGetValue(rnd, &v));
        PetscCall(MatSetValue(A, r, PetscMin((PetscInt)(u * N), N - 1), v - 0.5, ADD_VALUES));
      }
      if (r < N) PetscCall(MatSetValue(A, r, r, 5.0, ADD_VALUES));
    }
  }
  if (p != BLOCKDIAG && size > 1 && rend < M)
    PetscCall(MatSetValue(A, rend, PetscMin(seedrow, N - 1), 0.125, ADD_VALUES)); /* a row of the next process */
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Create(MatType type, PetscInt m, PetscInt nl, PetscInt M, PetscInt N, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, m, nl, M, N));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  PetscCall(MatSeqAIJSetPreallocation(*A, 12, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 12, NULL, 12, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode Close(Vec a, Vec b, const char *what, const char *stage)
{
  PetscReal na, nd;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(a, b, NORM_INFINITY, &nd, &na));
  PetscCheck(nd <= 1e-12 * PetscMax(na, 1.0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s differs from MPIAIJ's (%s): |diff| = %g, |ref| = %g", what, stage,
             (double)nd, (double)na);
  PetscFunctionReturn(0);
}

typedef enum {
  MULT,
  MULTADD,
  MULTT,
  MULTTADD,
  MULTH,
  MULTHADD,
  RESIDUAL
} Op;
static const char *const OpNames[] =
  {"MatMult", "MatMultAdd", "MatMultTranspose", "MatMultTransposeAdd", "MatMultHermitianTranspose", "MatMultHermitianTransposeAdd", "MatResidual"};

/* out = op(M) x (+ v), or v - M x (MatResidual) */
static PetscErrorCode Apply(Mat M, Op op, Vec x, Vec v, Vec out)
{
  PetscFunctionBegin;
  switch (op) {
  case MULT:
    PetscCall(MatMult(M, x, out));
    break;
  case MULTADD:
    PetscCall(MatMultAdd(M, x, v, out));
    break;
  case MULTT:
    PetscCall(MatMultTranspose(M, x, out));
    break;
  case MULTTADD:
    PetscCall(MatMultTransposeAdd(M, x, v, out));
    break;
  case MULTH:
    PetscCall(MatMultHermitianTranspose(M, x, out));
    break;
  case MULTHADD:
    PetscCall(MatMultHermitianTransposeAdd(M, x, v, out));
    break;
  case RESIDUAL:
    PetscCall(MatResidual(M, v, x, out));
    break;
  }
  PetscFunctionReturn(0);
}

/* Every product of D against A's, on D's vectors (device) and A's (standard); MatMultAdd also
   in place (z = A x + z); the diagonal of square matrices */
static PetscErrorCode Products(Mat A, Mat D, const char *stage)
{
  PetscRandom rnd;

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  for (int kind = 0; kind < 2; kind++) {
    Vec      cols, rows, in, v, ref, out;
    PetscInt M, N;

    PetscCall(MatCreateVecs(kind ? A : D, &cols, &rows));
    for (Op op = MULT; op <= RESIDUAL; op++) {
      const PetscBool tr = op >= MULTT && op <= MULTHADD ? PETSC_TRUE : PETSC_FALSE;

      in = tr ? rows : cols;
      PetscCall(VecDuplicate(tr ? cols : rows, &v));
      PetscCall(VecDuplicate(v, &ref));
      PetscCall(VecDuplicate(v, &out));
      PetscCall(VecSetRandom(in, rnd));
      PetscCall(VecSetRandom(v, rnd));
      PetscCall(Apply(A, op, in, v, ref));
      PetscCall(Apply(D, op, in, v, out));
      PetscCall(Close(ref, out, OpNames[op], stage));
      if (op == MULTADD) {
        PetscCall(VecCopy(v, out));
        PetscCall(MatMultAdd(D, in, out, out));
        PetscCall(Close(ref, out, "MatMultAdd in place", stage));
      }
      if (op == RESIDUAL) { /* r aliased to b: an error, of MPIAIJ's code where its default gives one (PETSc 3.18's VecAYPX's;
                               newer releases scale in place and give r = 0) */
        PetscErrorCode ierr[2];
        PetscBool      dev; /* else D is an AIJ converted back: MPIAIJ's answer */

        PetscCall(PetscObjectTypeCompareAny((PetscObject)D, &dev, MATSEQELLRCUDA, MATMPIELLRCUDA, MATSEQDIACUDA, MATMPIDIACUDA, ""));
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        ierr[0] = MatResidual(A, ref, in, ref);
        ierr[1] = MatResidual(D, out, in, out);
        PetscCall(PetscPopErrorHandler());
        PetscCheck(dev ? ierr[1] == PETSC_ERR_ARG_IDN && (!ierr[0] || ierr[0] == ierr[1]) : ierr[1] == ierr[0], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
                   "MatResidual with r aliased to b (%s): error %d for MPIAIJ, %d for the device type", stage, (int)ierr[0], (int)ierr[1]);
      }
      PetscCall(VecDestroy(&v));
      PetscCall(VecDestroy(&ref));
      PetscCall(VecDestroy(&out));
    }
    PetscCall(MatGetSize(A, &M, &N));
    if (M == N) {
      PetscCall(VecDuplicate(rows, &ref));
      PetscCall(MatGetDiagonal(A, ref));
      PetscCall(MatGetDiagonal(D, rows));
      PetscCall(Close(ref, rows, "MatGetDiagonal", stage));
      PetscCall(VecDestroy(&ref));
    }
    PetscCall(VecDestroy(&cols));
    PetscCall(VecDestroy(&rows));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscFunctionReturn(0);
}

/* The SPD 5-point Laplacian on an n x n grid; with extra, only what adds to it a coupling
   from this process's first row to the row half the grid away, 0.25 (e_r - e_c)(e_r - e_c)^T,
   set from this process (so also into another process's row) */
static PetscErrorCode FillSPD(Mat A, PetscInt n, PetscBool extra)
{
  PetscInt M, rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend && !extra; r++) {
    const PetscInt i = r / n, j = r % n;

    if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, ADD_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0, ADD_VALUES));
    PetscCall(MatSetValue(A, r, r, 4.0 + 0.01 * (PetscReal)(r % 5), ADD_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, ADD_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, ADD_VALUES));
  }
  if (extra && rend > rstart && (rstart + M / 2) % M != rstart) {
    const PetscInt    rc[2] = {rstart, (rstart + M / 2) % M};
    const PetscScalar v[4]  = {0.25, -0.25, -0.25, 0.25};

    PetscCall(MatSetValues(A, 2, rc, 2, rc, v, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* one solve of each KSP with the operators A (MPIAIJ, KSPCG) and D (the device type, cggpu) */
static PetscErrorCode SolveBoth(KSP kref, KSP kgk, Mat A, Mat D, const char *stage)
{
  Vec                b, x, xr;
  PetscInt           its, itsr, rstart, rend;
  PetscReal          nd, nr, rn;
  KSPConvergedReason reason, reasonr;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &xr, &b));
  PetscCall(VecDuplicate(xr, &x));
  PetscCall(VecGetOwnershipRange(b, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) PetscCall(VecSetValue(b, r, 1.0 + 0.1 * (PetscReal)(r % 7), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPSetOperators(kref, A, A));
  PetscCall(KSPSolve(kref, b, xr));
  PetscCall(KSPSetOperators(kgk, D, D));
  PetscCall(KSPSolve(kgk, b, x));
  PetscCall(KSPGetIterationNumber(kref, &itsr));
  PetscCall(KSPGetIterationNumber(kgk, &its));
  PetscCall(KSPGetConvergedReason(kref, &reasonr));
  PetscCall(KSPGetConvergedReason(kgk, &reason));
  PetscCall(KSPGetResidualNorm(kgk, &rn));
  PetscCall(TestDiffNorms(x, xr, NORM_2, &nd, &nr));
  PetscCheck(reason > 0 && reasonr > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: cggpu %s, KSPCG %s", stage, KSPConvergedReasons[reason],
             KSPConvergedReasons[reasonr]);
  PetscCheck(PetscAbsInt(its - itsr) <= 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: cggpu took %" PetscInt_FMT " iterations, KSPCG %" PetscInt_FMT,
             stage, its, itsr);
  PetscCheck(nd <= 1e-6 * nr, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the solutions differ by %g (|x| = %g)", stage, (double)nd, (double)nr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: cggpu %" PetscInt_FMT " iterations, residual norm %.8e (KSPCG %" PetscInt_FMT ")\n", stage, its,
                        (double)rn, itsr));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xr));
  PetscFunctionReturn(0);
}

/* -ksp: the operators change under one KSP of each kind (the fused solvers redo what they made
   for the operator's halo: its lists, and the ghost buffers where the GPUs exchange ghosts) */
static PetscErrorCode Solves(MatType type, Layout layout, PetscInt n)
{
  const PetscInt M = n * n;
  PetscMPIInt    rank, size;
  PetscInt       m;
  Mat            A, D, C;
  KSP            kref, kgk;
  PC             pc;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  m = LocalSize(layout, M, rank, size);
  PetscCall(Create(MATAIJ, m, m, M, M, &A));
  PetscCall(Create(type, m, m, M, M, &D));
  PetscCall(FillSPD(A, n, PETSC_FALSE));
  PetscCall(FillSPD(D, n, PETSC_FALSE));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &kref));
  PetscCall(KSPSetType(kref, KSPCG));
  PetscCall(KSPGetPC(kref, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(kref, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &kgk));
  PetscCall(KSPSetType(kgk, KSPCGGPU));
  PetscCall(KSPGetPC(kgk, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(kgk, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 2000));
  PetscCall(KSPSetFromOptions(kgk));
  PetscCall(SolveBoth(kref, kgk, A, D, "assembled"));
  PetscCall(FillSPD(A, n, PETSC_TRUE));
  PetscCall(FillSPD(D, n, PETSC_TRUE));
  PetscCall(SolveBoth(kref, kgk, A, D, "new couplings"));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &C));
  PetscCall(SolveBoth(kref, kgk, A, C, "a copy"));
  PetscCall(SolveBoth(kref, kgk, A, C, "the copy again"));
  PetscCall(KSPDestroy(&kref));
  PetscCall(KSPDestroy(&kgk));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "cggpu on %s %s on %d processes: all solves agree\n", type, Layouts[layout], (int)size));
  PetscFunctionReturn(0);
}

/* MatCreateGraph() (PCGAMG's strength graph) of either type, the number of MatTranspose() calls
   it made on this process */
static PetscErrorCode Graph(Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *G, PetscInt *transposes)
{
  PetscLogEvent      ev;
  PetscEventPerfInfo i0, i1;

  PetscFunctionBegin;
  PetscCall(PetscLogEventGetId("MatTranspose", &ev));
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &i0));
#if PETSC_VERSION_LT(3, 21, 0)
  PetscCall(MatCreateGraph(A, sym, scale, filter, G));
#else
  PetscCall(MatCreateGraph(A, sym, scale, filter, 0, NULL, G));
#endif
  PetscCall(PetscLogEventGetPerfInfo(0, ev, &i1));
  *transposes = i1.count - i0.count;
  PetscFunctionReturn(0);
}

typedef enum {
  GRAPH_PATTERN,  /* a symmetric pattern, values not symmetric (a negative diagonal, explicit zeros) */
  GRAPH_UNPAIRED, /* the same with two entries whose mirrors are not stored: (M-1, 0) below the
                     diagonal, (0, M-2) above it (whose place in row 0 the first's mirror would take) */
  GRAPH_UPPER,    /* the same with one entry above the diagonal whose mirror is not stored */
  GRAPH_SYMMETRIC /* symmetric values, the matrix marked MAT_SYMMETRIC */
} GraphKind;
static const char *const GraphKinds[] = {"symmetric pattern", "pattern not symmetric", "pattern not symmetric above the diagonal",
                                         "marked symmetric"};

/* entry (r, c) of the graph tests' matrices (of size M) */
static PetscScalar GraphEntry(GraphKind kind, PetscInt r, PetscInt c)
{
  if (r == c) return r == 0 ? -3.0 : 4.0 + (PetscReal)(r % 3);
  if (kind == GRAPH_SYMMETRIC) return -1.0 - 0.01 * (PetscReal)((r + c) % 7);
  if (r % 11 == 3 && c == r + 1) return 0.0;
  return CPLX(-1.0 - 0.01 * (PetscReal)(r % 7), 0.1 * (PetscReal)(c % 3));
}

static PetscErrorCode GraphFill(Mat A, GraphKind kind, PetscInt n)
{
  const PetscInt M = n * n;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n, far = (r + M / 2) % M;
    PetscInt       cols[6], nc = 0;

    if (i > 0) cols[nc++] = r - n;
    if (j > 0) cols[nc++] = r - 1;
    cols[nc++] = r;
    if (j < n - 1) cols[nc++] = r + 1;
    if (i < n - 1) cols[nc++] = r + n;
    if (M % 2 == 0 && PetscMin(r, far) % 4 == 1 && PetscAbsInt(far - r) > n) cols[nc++] = far; /* a pair far apart, both ways */
    for (PetscInt k = 0; k < nc; k++) PetscCall(MatSetValue(A, r, cols[k], GraphEntry(kind, r, cols[k]), INSERT_VALUES));
    if (kind == GRAPH_UNPAIRED && r == M - 1) PetscCall(MatSetValue(A, r, 0, -0.5, INSERT_VALUES));
    if (kind == GRAPH_UNPAIRED && r == 0) PetscCall(MatSetValue(A, r, M - 2, -0.25, INSERT_VALUES));
    if (kind == GRAPH_UPPER && r == 0) PetscCall(MatSetValue(A, r, M - 1, -0.5, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (kind == GRAPH_SYMMETRIC) PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* -graph: MatCreateGraph() of the device type against MPIAIJ's (SEQAIJ's on one process), equal
   bit for bit with the same symmetry flags, in five settings (symmetrized or not, scaled or not,
   filtered or not); where the pattern is symmetric and the matrix not marked symmetric, the
   device type's symmetrized graph makes no transpose, where MPIAIJ's makes one */
static PetscErrorCode Graphs(MatType type, Layout layout, PetscInt n)
{
  const PetscInt M = n * n;
  const struct {
    PetscBool sym, scale;
    PetscReal filter;
  } set[] = {
    {PETSC_TRUE,  PETSC_TRUE,  0.0 },
    {PETSC_TRUE,  PETSC_FALSE, -1.0},
    {PETSC_TRUE,  PETSC_TRUE,  -1.0},
    {PETSC_TRUE,  PETSC_FALSE, 0.02},
    {PETSC_FALSE, PETSC_TRUE,  0.0 }
  };
  PetscMPIInt rank, size;
  PetscInt    m;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscLogDefaultBegin());
  m = LocalSize(layout, M, rank, size);
  for (GraphKind kind = GRAPH_PATTERN; kind <= GRAPH_SYMMETRIC; kind = (GraphKind)(kind + 1)) {
    Mat      A, D;
    PetscInt skipped = 0;

    PetscCall(Create(MATAIJ, m, m, M, M, &A));
    PetscCall(Create(type, m, m, M, M, &D));
    PetscCall(GraphFill(A, kind, n));
    PetscCall(GraphFill(D, kind, n));
    for (size_t s = 0; s < PETSC_STATIC_ARRAY_LENGTH(set); s++) {
      Mat       GA, GD;
      PetscInt  ta, td;
      PetscBool eq, seta, syma, setd, symd;

      PetscCall(Graph(A, set[s].sym, set[s].scale, set[s].filter, &GA, &ta));
      PetscCall(Graph(D, set[s].sym, set[s].scale, set[s].filter, &GD, &td));
      PetscCall(MatEqual(GA, GD, &eq));
      PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, setting %d: the %s graph differs from MPIAIJ's", GraphKinds[kind], (int)s, type);
      PetscCall(MatIsSymmetricKnown(GA, &seta, &syma));
      PetscCall(MatIsSymmetricKnown(GD, &setd, &symd));
      PetscCheck(seta == setd && (!seta || syma == symd), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s, setting %d: the graphs' symmetry flags differ",
                 GraphKinds[kind], (int)s);
      if (set[s].sym && kind == GRAPH_PATTERN) {
        /* MPIAIJ's sum needs a transpose on every process; the device type's none */
        PetscCheck(ta == 1 && td == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "%s, setting %d: %" PetscInt_FMT " transposes for MPIAIJ's graph (1 expected), %" PetscInt_FMT " for the %s one (0 expected)",
                   GraphKinds[kind], (int)s, ta, td, type);
        skipped++;
      } else
        PetscCheck(ta == td, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "%s, setting %d: %" PetscInt_FMT " transposes for MPIAIJ's graph, %" PetscInt_FMT " for the %s one", GraphKinds[kind], (int)s, ta,
                   td, type);
      PetscCall(MatDestroy(&GA));
      PetscCall(MatDestroy(&GD));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "graph of %s, %s, %s, on %d processes: equal to AIJ's in %d settings, symmetrized without a transpose in %d\n", type,
                          GraphKinds[kind], Layouts[layout], (int)size, (int)PETSC_STATIC_ARRAY_LENGTH(set), (int)skipped));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&D));
  }
  PetscFunctionReturn(0);
}

/* -spgemm: MatMatMult() and MatPtAP() of device matrices against AIJ's (SEQAIJ's, or MPIAIJ's in
   the layout), the operator of the given type and P ELLPACK-R (an aggregation's prolongator,
   smoothed: 1 to 4 entries a row, some of other processes' columns); the same pattern, values
   within rounding (the device sums in another order), made and then reused after new values;
   computed by the backend's products (its copies down counted on every process) unless
   -mat_product_algorithm_backend_cpu, by PETSc's host code */
static PetscErrorCode SpGEMMFill(Mat A, Mat P, PetscInt n, PetscInt round)
{ /* P NULL: A's values alone */
  const PetscInt M = n * n, nc = (M + 3) / 4;
  PetscInt       rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt i = r / n, j = r % n;

    if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0 - 0.01 * (PetscReal)((r + round) % 5), INSERT_VALUES));
    if (j > 0) PetscCall(MatSetValue(A, r, r - 1, CPLX(-1.0, 0.125 * (PetscReal)(r % 3)), INSERT_VALUES));
    PetscCall(MatSetValue(A, r, r, 4.0 + (PetscReal)round, INSERT_VALUES));
    if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, -0.5 - 0.03 * (PetscReal)(r % 7), INSERT_VALUES));
    for (PetscInt k = 0; k <= r % 4 && P; k++) PetscCall(MatSetValue(P, r, (r / 4 + 3 * k) % nc, 1.0 / (PetscReal)(k + 1 + round), INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  if (!P) PetscFunctionReturn(0);
  PetscCall(MatAssemblyBegin(P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* C (a device matrix) against R (AIJ's product): the same local rows and columns in each (on
   several processes, as many in the diagonal block), entries within 1e-13 of R's largest, and
   C's product with a vector (its device copy's) R's */
static PetscErrorCode SpGEMMCompare(Mat R, Mat C, const char *what, PetscBool dev, PetscLogDouble d2h)
{
  PetscInt  rstart, rend, cstart, cend, bad = 0;
  PetscReal dn[2] = {0.0, 0.0};

  PetscFunctionBegin;
  PetscCheck(dev == (d2h > 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %g copies to the host, but the product should run %s", what, (double)d2h,
             dev ? "on the device" : "on the host");
  PetscCall(MatGetOwnershipRange(R, &rstart, &rend));
  PetscCall(MatGetOwnershipRange(C, &cstart, &cend));
  PetscCheck(rstart == cstart && rend == cend, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "%s: the device type's rows are %" PetscInt_FMT "..%" PetscInt_FMT ", AIJ's %" PetscInt_FMT "..%" PetscInt_FMT, what, cstart, cend,
             rstart, rend);
  for (PetscInt r = rstart; r < rend; r++) {
    const PetscInt    *rj, *cj;
    const PetscScalar *ra, *ca;
    PetscInt           rn, cn;

    PetscCall(MatGetRow(R, r, &rn, &rj, &ra));
    PetscCall(MatGetRow(C, r, &cn, &cj, &ca));
    if (rn != cn) bad++;
    for (PetscInt k = 0; k < PetscMin(rn, cn); k++) {
      if (rj[k] != cj[k]) bad++;
      dn[0] = PetscMax(dn[0], PetscAbsScalar(ra[k] - ca[k]));
      dn[1] = PetscMax(dn[1], PetscAbsScalar(ra[k]));
    }
    PetscCall(MatRestoreRow(C, r, &cn, &cj, &ca));
    PetscCall(MatRestoreRow(R, r, &rn, &rj, &ra));
  }
  { /* the same split between the diagonal and the off-diagonal block */
    PetscMPIInt size;

    PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)R), &size));
    if (size > 1) {
      Mat     Rd, Cd;
      MatInfo ri, ci;

      PetscCall(MatGetDiagonalBlock(R, &Rd));
      PetscCall(MatGetDiagonalBlock(C, &Cd));
      PetscCall(MatGetInfo(Rd, MAT_LOCAL, &ri));
      PetscCall(MatGetInfo(Cd, MAT_LOCAL, &ci));
      if (ri.nz_used != ci.nz_used) bad++;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)R)));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dn, 2, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)R)));
  { /* C's product (its device copy, on device vectors) against R's */
    Vec                x, y, u, v;
    PetscReal          e, nv;
    PetscInt           lo, hi;
    const PetscScalar *ya, *va;

    PetscCall(MatCreateVecs(C, &x, &y));
    PetscCall(MatCreateVecs(R, &u, &v));
    PetscCall(VecGetOwnershipRange(u, &lo, &hi));
    for (PetscInt i = lo; i < hi; i++) PetscCall(VecSetValue(u, i, 1.0 + 0.1 * (PetscReal)(i % 7), INSERT_VALUES));
    PetscCall(VecAssemblyBegin(u));
    PetscCall(VecAssemblyEnd(u));
    PetscCall(VecCopy(u, x));
    PetscCall(MatMult(C, x, y));
    PetscCall(MatMult(R, u, v));
    PetscCall(VecGetOwnershipRange(v, &lo, &hi));
    PetscCall(VecNorm(v, NORM_INFINITY, &nv));
    PetscCall(VecGetArrayRead(y, &ya));
    PetscCall(VecGetArrayRead(v, &va));
    e = 0.0;
    for (PetscInt i = 0; i < hi - lo; i++) e = PetscMax(e, PetscAbsScalar(ya[i] - va[i]));
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(VecRestoreArrayRead(v, &va));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPI_MAX, PetscObjectComm((PetscObject)R)));
    PetscCheck(e <= 1e-12 * nv, PetscObjectComm((PetscObject)R), PETSC_ERR_PLIB,
               "%s: the device type's MatMult differs from AIJ's by %g (largest %g)", what, (double)e, (double)nv);
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&u));
    PetscCall(VecDestroy(&v));
  }
  PetscCheck(!bad, PetscObjectComm((PetscObject)R), PETSC_ERR_PLIB, "%s: the device type's pattern differs from AIJ's in %" PetscInt_FMT " places",
             what, bad);
  PetscCheck(dn[0] <= 1e-13 * dn[1], PetscObjectComm((PetscObject)R), PETSC_ERR_PLIB, "%s: the entries differ from AIJ's by %g (largest %g)", what,
             (double)dn[0], (double)dn[1]);
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)R), "%s: the pattern and the entries of AIJ's\n", what));
  PetscFunctionReturn(0);
}

static PetscErrorCode SpGEMMs(MatType type, Layout layout, PetscInt n)
{
  const PetscInt M = n * n, nc = (M + 3) / 4;
  Mat            A[2], P[2], C[2], D[2];
  PetscBool      dev, isellr, cpu;
  PetscMPIInt    rank, size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_product_algorithm_backend_cpu", &cpu));
  dev = (PetscBool)!cpu;
  for (PetscInt t = 0; t < 2; t++) {
    const PetscInt m = LocalSize(layout, M, rank, size);

    PetscCall(MatCreate(PETSC_COMM_WORLD, &A[t]));
    PetscCall(MatSetSizes(A[t], m, m, M, M));
    PetscCall(MatSetType(A[t], t ? type : MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(A[t], 5, NULL));
    PetscCall(MatMPIAIJSetPreallocation(A[t], 5, NULL, 2, NULL));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &P[t]));
    PetscCall(MatSetSizes(P[t], m, LocalSize(layout, nc, rank, size), M, nc));
    PetscCall(MatSetType(P[t], t ? MATELLRCUDA : MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(P[t], 4, NULL));
    PetscCall(MatMPIAIJSetPreallocation(P[t], 4, NULL, 4, NULL));
    PetscCall(SpGEMMFill(A[t], P[t], n, 0));
  }
  for (PetscInt round = 0; round < 2; round++) {
    const MatReuse            reuse = round ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX;
    PetscGPUKitTransferCounts t0, t1, t2;

    if (round)
      for (PetscInt t = 0; t < 2; t++) PetscCall(SpGEMMFill(A[t], P[t], n, round));
    { /* P's device copies made before the counts (a coarse operator's assembly makes them, its
         transposed one bringing its row starts down): the counts see the products' copies alone */
      Vec x, y;

      PetscCall(MatCreateVecs(P[1], &x, &y));
      PetscCall(VecSet(y, 1.0));
      PetscCall(MatMultTranspose(P[1], y, x));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
    PetscCall(MatMatMult(A[0], P[0], reuse, PETSC_DEFAULT, &C[0]));
    PetscCall(MatPtAP(A[0], P[0], reuse, PETSC_DEFAULT, &D[0]));
    PetscCall(PetscGPUKitGetTransferCounts(&t0));
    PetscCall(MatMatMult(A[1], P[1], reuse, PETSC_DEFAULT, &C[1]));
    PetscCall(PetscGPUKitGetTransferCounts(&t1));
    PetscCall(MatPtAP(A[1], P[1], reuse, PETSC_DEFAULT, &D[1]));
    PetscCall(PetscGPUKitGetTransferCounts(&t2));
    PetscCall(SpGEMMCompare(C[0], C[1], round ? "MatMatMult reused" : "MatMatMult", dev, t1.d2h_count - t0.d2h_count));
    PetscCall(SpGEMMCompare(D[0], D[1], round ? "MatPtAP reused" : "MatPtAP", dev, t2.d2h_count - t1.d2h_count));
  }
  { /* MatProduct's own steps, the operator's values changed between the symbolic and the numeric
       one (not P's: MPIAIJ's first numeric step reuses the P it gathered in its symbolic one) */
    Mat                       E[2];
    PetscGPUKitTransferCounts t0, t1;

    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatProductCreate(A[t], P[t], NULL, &E[t]));
      PetscCall(MatProductSetType(E[t], MATPRODUCT_PtAP));
      PetscCall(MatProductSetFromOptions(E[t]));
      PetscCall(MatProductSymbolic(E[t]));
      PetscCall(SpGEMMFill(A[t], NULL, n, 2));
    }
    PetscCall(MatProductNumeric(E[0]));
    PetscCall(PetscGPUKitGetTransferCounts(&t0));
    PetscCall(MatProductNumeric(E[1]));
    PetscCall(PetscGPUKitGetTransferCounts(&t1));
    PetscCall(SpGEMMCompare(E[0], E[1], "MatProductNumeric after new values", dev, t1.d2h_count - t0.d2h_count));
    for (PetscInt t = 0; t < 2; t++) PetscCall(MatDestroy(&E[t]));
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)D[1], &isellr, MATSEQELLRCUDA, MATMPIELLRCUDA, ""));
  PetscCheck(isellr, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatPtAP of %s gave no ELLPACK-R matrix", type);
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&A[t]));
    PetscCall(MatDestroy(&P[t]));
    PetscCall(MatDestroy(&C[t]));
    PetscCall(MatDestroy(&D[t]));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char        type[64] = "ellrcuda", mpitype[80];
  Problem     p        = LAP2D;
  Layout      layout   = LAYOUT_EVEN;
  PetscInt    n = 20, M, N, m, nl, rstart, rend, apih = -1;
  Mat         A, D, C;
  PetscMPIInt rank, size;
  PetscBool   match, apisc = PETSC_FALSE, apiscset = PETSC_FALSE;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-problem", Problems, (PetscEnum *)&p, NULL));
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-layout", Layouts, (PetscEnum *)&layout, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp", &match));
  if (match) {
    PetscCall(Solves(type, layout, n));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-spgemm", &match));
  if (match) {
    PetscCall(SpGEMMs(type, layout, n));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-graph", &match));
  if (match) {
    PetscCall(Graphs(type, layout, n));
    PetscCall(PetscFinalize());
    return 0;
  }
  M  = p == LAP2D ? n * n : n;
  N  = p == RECT ? (3 * n) / 2 : M;
  m  = LocalSize(layout, M, rank, size);
  nl = LocalSize(layout, N, rank, size);
  PetscCall(Create(MATAIJ, m, nl, M, N, &A));
  PetscCall(Create(type, m, nl, M, N, &D));
  /* ELLPACK-R settings made on the matrix itself (the MPI type keeps them for its blocks) */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-api_slice_height", &apih, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-api_short_columns", &apisc, &apiscset));
  if (apih >= 0) PetscCall(MatELLRCUDASetSliceHeight(D, apih));
  if (apiscset) PetscCall(MatELLRCUDASetShortColumns(D, apisc));
  PetscCall(PetscSNPrintf(mpitype, sizeof(mpitype), "%s%s", size > 1 ? "mpi" : "seq", type));
  PetscCall(PetscObjectTypeCompare((PetscObject)D, mpitype, &match));
  if (!match) {
    MatType t;

    PetscCall(MatGetType(D, &t));
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "The matrix is %s, not %s", t, mpitype);
  }
  PetscCall(Fill(A, p, n, 0));
  PetscCall(Fill(D, p, n, 0));
  PetscCall(Products(A, D, "assembled"));

  /* new nonzeros after the first assembly, in other processes' columns: the ghosts change */
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  if (rend > rstart) {
    PetscCall(MatSetValue(A, rstart, (rstart + M / 2) % N, 0.75, ADD_VALUES));
    PetscCall(MatSetValue(D, rstart, (rstart + M / 2) % N, 0.75, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyBegin(D, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(D, MAT_FINAL_ASSEMBLY));
  PetscCall(Products(A, D, "new nonzeros"));

  if (M == N) { /* MatZeroRows: a few rows, some of them another process's */
    PetscInt rows[3] = {0, M / 2, M - 1};

    PetscCall(MatZeroRows(A, rank ? 1 : 3, rows + (rank ? 1 : 0), 2.0, NULL, NULL));
    PetscCall(MatZeroRows(D, rank ? 1 : 3, rows + (rank ? 1 : 0), 2.0, NULL, NULL));
    PetscCall(Products(A, D, "zeroed rows"));
  }
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &C)); /* from MPIAIJ */
  PetscCall(PetscObjectTypeCompare((PetscObject)C, mpitype, &match));
  if (!match) {
    MatType t;

    PetscCall(MatGetType(C, &t));
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatConvert gave %s, not %s", t, mpitype);
  }
  PetscCall(Products(A, C, "converted"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDuplicate(D, MAT_COPY_VALUES, &C));
  PetscCall(Products(A, C, "duplicated"));
  for (int inplace = 0; inplace < 2; inplace++) { /* MatConvert back to AIJ: a copy, and in place */
    const char *want = size > 1 ? MATMPIAIJ : MATSEQAIJ;
    Mat         E = C, blk[2] = {NULL, NULL};

    if (inplace) PetscCall(MatConvert(C, MATAIJ, MAT_INPLACE_MATRIX, &C));
    else PetscCall(MatConvert(D, MATAIJ, MAT_INITIAL_MATRIX, &E));
    PetscCall(PetscObjectTypeCompare((PetscObject)E, want, &match));
    PetscCheck(match, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatConvert to %s gave %s", MATAIJ, ((PetscObject)E)->type_name);
    if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(E, &blk[0], &blk[1], NULL));
    for (int k = 0; k < 2; k++) {
      if (blk[k]) PetscCall(PetscObjectTypeCompare((PetscObject)blk[k], MATSEQAIJ, &match));
      PetscCheck(!blk[k] || match, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to %s left a block %s", MATAIJ, ((PetscObject)blk[k])->type_name);
    }
    PetscCall(Products(A, E, inplace ? "converted to AIJ in place" : "converted to AIJ"));
    if (!inplace) PetscCall(MatDestroy(&E));
  }
  PetscCall(MatDestroy(&C));
  { /* MatLoad of a file written from MPIAIJ, into the layout set beforehand */
    PetscViewer v;
    char        file[PETSC_MAX_PATH_LEN], info[PETSC_MAX_PATH_LEN];

    PetscCall(PetscSNPrintf(file, sizeof(file), "mpimat-%s-%s-%d.bin", type, Problems[p], (int)size));
    PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", file));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatCreate(PETSC_COMM_WORLD, &C));
    PetscCall(MatSetSizes(C, m, nl, M, N));
    PetscCall(MatSetType(C, type));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_WORLD, file, FILE_MODE_READ, &v));
    PetscCall(MatLoad(C, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscObjectTypeCompare((PetscObject)C, mpitype, &match));
    PetscCheck(match, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "MatLoad gave a matrix that is not %s", mpitype);
    PetscCall(Products(A, C, "loaded"));
    PetscCall(MatDestroy(&C));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    if (!rank) PetscCheck(!remove(file) && !remove(info), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Could not remove %s", file);
  }
  { /* ELLPACK-R: on how many processes the diagonal block got 16-bit columns (MatELLRCUDASetShortColumns) */
    PetscBool   ellr, sc = PETSC_FALSE;
    PetscMPIInt nsc, nh;
    char        note[128] = "";
    Mat         Dd        = D;

    PetscCall(PetscStrcmp(type, "ellrcuda", &ellr));
    if (ellr) {
      if (size > 1) PetscCall(MatGetDiagonalBlock(D, &Dd));
      PetscCall(MatELLRCUDAGetShortColumns(Dd, &sc));
      nsc = sc ? 1 : 0;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nsc, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
      PetscCall(PetscSNPrintf(note, sizeof(note), " (16-bit column offsets on %d of %d processes)", (int)nsc, (int)size));
      if (apih > 0) { /* the diagonal blocks' slices, where they have rows */
        const GKEllr *E;
        size_t        len;

        PetscCall(MatSeqELLRCUDAGetDeviceFormat(Dd, &E, NULL));
        nh = !E->m || E->h == PetscMin(apih, E->m);
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nh, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
        PetscCall(PetscStrlen(note, &len));
        PetscCall(PetscSNPrintf(note + len, sizeof(note) - len, " (slices of %d rows on %d of %d processes)", (int)apih, (int)nh, (int)size));
      }
    }
    PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "%s %s %s on %d processes: all products equal%s\n", mpitype, Problems[p], Layouts[layout], (int)size, note));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # MatMatMult and MatPtAP of the device types against AIJ's, made and reused, on 1 to 3
  # processes in uneven layouts, 3 with one of no rows, and 4: computed by the backend's products
  # (on the GPU cuSPARSE's, on the host its twin; the same lines), every process's copies down
  # asserted
  test:
    suffix: spgemm
    nsize: {{1 2 3}shared output}
    output_file: output/mpimat_spgemm.out
    args: -spgemm -type {{ellrcuda diacuda}shared output} -layout uneven -n 13 -gpukit_backend {{host cuda}shared output}
  test:
    suffix: spgemm_empty
    nsize: 3
    output_file: output/mpimat_spgemm.out
    args: -spgemm -type ellrcuda -layout empty -n 11 -gpukit_backend {{host cuda}shared output}
  test:
    suffix: spgemm_np4
    nsize: 4
    output_file: output/mpimat_spgemm.out
    args: -spgemm -type diacuda -layout even -n 12 -gpukit_backend {{host cuda}shared output}
  # -mat_product_algorithm_backend_cpu: PETSc's host code instead (no copy down)
  test:
    suffix: spgemm_backend_cpu
    nsize: {{1 2}shared output}
    output_file: output/mpimat_spgemm.out
    args: -spgemm -type ellrcuda -layout uneven -n 13 -mat_product_algorithm_backend_cpu -gpukit_backend {{host cuda}shared output}

  # PCGAMG's strength graph (MatCreateGraph) of the device types against MPIAIJ's, bit for bit:
  # a symmetric pattern (symmetrized by the device types without a transpose: asserted by the
  # MatTranspose event's count), a pattern not symmetric and a matrix marked symmetric (both
  # PETSc's own path), on 1 to 3 processes and 4, one of them with no rows
  test:
    suffix: graph
    nsize: {{1 2 3}}
    args: -graph -type {{ellrcuda diacuda}} -layout {{uneven empty}} -n 12
  test:
    suffix: graph_np4
    nsize: 4
    args: -graph -type ellrcuda -layout empty -n 9

  # the MPI device matrices against MPIAIJ: every product, on 1 to 3 processes (the nsize loops:
  # those of RANKS) and 4, uneven layouts, a process with no rows, no entries off the process's
  # columns, rectangular; each case's line names the type, the process count and, for ellrcuda,
  # on how many processes the diagonal block got 16-bit columns (and slices of the height set)
  # (lap2d_uneven and blockdiag_even also on both backends: the same line)
  testset:
    nsize: {{1 2 3}}
    args: -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000 -options_left 0
    test:
      suffix: lap2d_uneven
      args: -type {{ellrcuda diacuda}} -problem lap2d -layout uneven -n 20 -gpukit_backend {{host cuda}shared output}
    test:
      suffix: blockdiag_even
      args: -type {{ellrcuda diacuda}} -problem blockdiag -layout even -n 40 -gpukit_backend {{host cuda}shared output}
    test:
      suffix: random_empty
      args: -type {{ellrcuda diacuda}} -problem random -layout empty -n 60
    test:
      suffix: rect_uneven
      args: -type {{ellrcuda diacuda}} -problem rect -layout uneven -n 60
    #   both blocks with 16-bit columns by default (the off-diagonal one's are offsets into the
    #   ghosts: the first cases' ellrcuda lines count the processes whose blocks got them), and
    #   with 32-bit ones when asked
    test:
      suffix: columns32_lap2d_uneven
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -problem lap2d -layout uneven -n 20
    test:
      suffix: columns32_random_empty
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -problem random -layout empty -n 60
    #   both blocks sorted, windows dividing 1024 (the product's window kernel) and not
    test:
      suffix: sorted64_random_empty
      args: -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 64 -problem random -layout empty -n 60
    test:
      suffix: sorted40_lap2d_uneven
      args: -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 40 -problem lap2d -layout uneven -n 20
    #   the same settings made on the MPI matrix itself (MatELLRCUDASetSliceHeight, ...ShortColumns)
    #   before its assembly: its blocks get them, and get them again when new nonzeros remake them
    test:
      suffix: api_lap2d_uneven
      args: -type ellrcuda -api_slice_height 7 -api_short_columns 0 -problem lap2d -layout uneven -n 20
    test:
      suffix: api_random_empty
      args: -type ellrcuda -api_slice_height 7 -api_short_columns 0 -problem random -layout empty -n 60
    test:
      suffix: api_short_lap2d_uneven
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -api_short_columns 1 -problem lap2d -layout uneven -n 20

  # the same on 4 processes, whatever RANKS says
  testset:
    nsize: 4
    args: -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000 -options_left 0
    test:
      suffix: lap2d_uneven_np4
      args: -type {{ellrcuda diacuda}} -problem lap2d -layout uneven -n 20
    test:
      suffix: blockdiag_even_np4
      args: -type {{ellrcuda diacuda}} -problem blockdiag -layout even -n 40
    test:
      suffix: random_empty_np4
      args: -type {{ellrcuda diacuda}} -problem random -layout empty -n 60
    test:
      suffix: rect_uneven_np4
      args: -type {{ellrcuda diacuda}} -problem rect -layout uneven -n 60
    #   both blocks with 16-bit columns by default (the off-diagonal one's are offsets into the
    #   ghosts: the first cases' ellrcuda lines count the processes whose blocks got them), and
    #   with 32-bit ones when asked
    test:
      suffix: columns32_lap2d_uneven_np4
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -problem lap2d -layout uneven -n 20
    test:
      suffix: columns32_random_empty_np4
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -problem random -layout empty -n 60
    #   both blocks sorted, windows dividing 1024 (the product's window kernel) and not
    test:
      suffix: sorted64_random_empty_np4
      args: -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 64 -problem random -layout empty -n 60
    test:
      suffix: sorted40_lap2d_uneven_np4
      args: -type ellrcuda -mat_ellrcuda_slice_height 8 -mat_ellrcuda_sort_window 40 -problem lap2d -layout uneven -n 20
    #   the same settings made on the MPI matrix itself (MatELLRCUDASetSliceHeight, ...ShortColumns)
    #   before its assembly: its blocks get them, and get them again when new nonzeros remake them
    test:
      suffix: api_lap2d_uneven_np4
      args: -type ellrcuda -api_slice_height 7 -api_short_columns 0 -problem lap2d -layout uneven -n 20
    test:
      suffix: api_random_empty_np4
      args: -type ellrcuda -api_slice_height 7 -api_short_columns 0 -problem random -layout empty -n 60
    test:
      suffix: api_short_lap2d_uneven_np4
      args: -type ellrcuda -mat_ellrcuda_short_columns 0 -api_short_columns 1 -problem lap2d -layout uneven -n 20

  # the halo exchanges handing device memory to MPI (-gpukit_cuda_aware_mpi): on the host backend
  # any MPI takes it (so CI runs that path), on a GPU only a CUDA-aware MPI; the products' lines
  # are those without the option (the two cases: no GPU, or a GPU with a CUDA-aware MPI)
  testset:
    nsize: {{2 3}}
    args: -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000 -options_left 0 -gpukit_cuda_aware_mpi -type ellrcuda -problem random -layout empty -n 60
    output_file: output/mpimat_random_empty_type-ellrcuda.out
    test:
      suffix: aware_ellrcuda
      requires: !gpu
    test:
      suffix: aware_ellrcuda_gpu
      requires: gpu cuda_aware_mpi
  testset:
    nsize: {{2 3}}
    args: -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000 -options_left 0 -gpukit_cuda_aware_mpi -type diacuda -problem lap2d -layout uneven -n 20
    output_file: output/mpimat_lap2d_uneven_type-diacuda.out
    test:
      suffix: aware_diacuda
      requires: !gpu
    test:
      suffix: aware_diacuda_gpu
      requires: gpu cuda_aware_mpi

  # the direction's ghosts sent GPU to GPU, with the sums kept there: one KSP through operators
  # whose halo changes (new couplings across processes, another matrix), in layouts with uneven
  # shares and a process without rows, against KSPCG (iterations within one, solutions within
  # the tolerance, checked by the program; the lines give cggpu's and KSPCG's iterations, the
  # residual norms, which the GPU's sums round otherwise, filtered out). On a GPU for each
  # process, with -ksp_cggpu_device_halo: the same iterations as with the ghosts through MPI on
  # the host (the default), the same output file
  testset:
    nsize: {{1 2 3}}
    filter: sed -E "s/, residual norm [^ ]+//"
    test:
      suffix: ksp_ellrcuda_empty
      args: -type ellrcuda -ksp -layout empty -n 20
    test:
      suffix: ksp_diacuda_uneven
      args: -type diacuda -ksp -layout uneven -n 20
  testset:
    requires: gpu_per_rank
    nsize: {{2 3}}
    filter: sed -E "s/, residual norm [^ ]+//"
    test:
      suffix: ksp_device_halo_ellrcuda
      args: -type ellrcuda -ksp -layout empty -n 20 -ksp_cggpu_device_halo
      output_file: output/mpimat_ksp_ellrcuda_empty.out
    test:
      suffix: ksp_device_halo_diacuda
      args: -type diacuda -ksp -layout uneven -n 20 -ksp_cggpu_device_halo
      output_file: output/mpimat_ksp_diacuda_uneven.out

TEST*/

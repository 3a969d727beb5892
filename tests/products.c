static char help[] = "The device matrices' products against SEQAIJ's, before and after changes.\n\
  -problem <lap2d,lap3d,convdiff,random,rect,outside,empty,one,longcol,denserow,band,uneven>\n\
  -n <n>        : the problem's size parameter\n\
  -band_width <w> : band: rows of 2w + 1 to 3w entries (default 16)\n\
  -m <m>        : rows of the rectangular problem (columns: n)\n\
  -type <type>  : ellrcuda or diacuda\n\n";

/*
   Each check holds B (the device type) to A (SEQAIJ, the oracle): MatMultEqual and friends at
   PETSc's tolerance, a tight relative bound on one product of each kind, the diagonal exactly,
   and the transfer counters, which prove the product ran through the device path.
*/
#include <petscgpukit.h>
#include "testutil.h"

typedef enum {
  LAP2D,
  LAP3D,
  CONVDIFF,
  RANDOM,
  RECT,
  OUTSIDE,
  EMPTY,
  ONE,
  LONGCOL,
  DENSEROW,
  BAND,
  UNEVEN
} Problem;
static const char *const Problems[] = {"lap2d",   "lap3d",    "convdiff", "random", "rect",    "outside", "empty", "one",
                                       "longcol", "denserow", "band",     "uneven", "Problem", "",        NULL};

#if defined(PETSC_USE_COMPLEX)
  #define CPLX(re, im) ((re) + (im) * PETSC_i)
#else
  #define CPLX(re, im) (re)
#endif

/* band's w (-band_width) */
static PetscErrorCode BandWidth(PetscInt *w)
{
  PetscFunctionBegin;
  *w = 16;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-band_width", w, NULL));
  PetscFunctionReturn(0);
}

/* Inserts the problem's entries into any preallocated SEQAIJ-based matrix */
static PetscErrorCode FillProblem(Mat A, Problem p, PetscInt n)
{
  PetscInt m, nc;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &nc));
  switch (p) {
  case LAP2D:
  case CONVDIFF:
    /* 5-point stencil on an n x n grid; convection-diffusion adds an upwinded, nonsymmetric
       (complex, in complex builds) first-order term */
    for (PetscInt r = 0; r < m; r++) {
      const PetscInt    i = r / n, j = r % n;
      const PetscScalar c = p == CONVDIFF ? CPLX(0.3, 0.1) : 0.0;

      if (i > 0) PetscCall(MatSetValue(A, r, r - n, -1.0 - c, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0 - 2.0 * c, INSERT_VALUES));
      PetscCall(MatSetValue(A, r, r, 4.0 + 3.0 * c, INSERT_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
    }
    break;
  case LAP3D:
    for (PetscInt r = 0; r < m; r++) {
      const PetscInt i = r / (n * n), j = (r / n) % n, k = r % n;

      if (i > 0) PetscCall(MatSetValue(A, r, r - n * n, -1.0, INSERT_VALUES));
      if (j > 0) PetscCall(MatSetValue(A, r, r - n, -1.0, INSERT_VALUES));
      if (k > 0) PetscCall(MatSetValue(A, r, r - 1, -1.0, INSERT_VALUES));
      PetscCall(MatSetValue(A, r, r, 6.0, INSERT_VALUES));
      if (k < n - 1) PetscCall(MatSetValue(A, r, r + 1, -1.0, INSERT_VALUES));
      if (j < n - 1) PetscCall(MatSetValue(A, r, r + n, -1.0, INSERT_VALUES));
      if (i < n - 1) PetscCall(MatSetValue(A, r, r + n * n, -1.0, INSERT_VALUES));
    }
    break;
  case RANDOM:
  case RECT: {
    /* seeded: up to 8 entries a row at random columns; every 7th row empty; in RANDOM, row
       m/3 long (60 entries) */
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetSeed(rnd, 20261121));
    PetscCall(PetscRandomSeed(rnd));
    for (PetscInt r = 0; r < m; r++) {
      PetscReal   u;
      PetscInt    len;
      PetscScalar v;

      if (r % 7 == 3) continue;
      PetscCall(PetscRandomGetValueReal(rnd, &u));
      len = (p == RANDOM && r == m / 3) ? 60 : (PetscInt)(u * 9);
      for (PetscInt k = 0; k < len; k++) {
        PetscCall(PetscRandomGetValueReal(rnd, &u));
        PetscCall(PetscRandomGetValue(rnd, &v));
        PetscCall(MatSetValue(A, r, PetscMin((PetscInt)(u * nc), nc - 1), v - 0.5, ADD_VALUES));
      }
    }
    PetscCall(PetscRandomDestroy(&rnd));
  } break;
  case OUTSIDE:
    /* diagonals at offsets -(n-3), -1, 0, 2, n-5: all but the main one partly outside */
    for (PetscInt r = 0; r < m; r++) {
      const PetscInt    off[] = {-(n - 3), -1, 0, 2, n - 5};
      const PetscScalar val[] = {CPLX(0.5, 1.0), -1.0, 3.0, CPLX(-0.25, -0.5), 0.125};

      for (PetscInt d = 0; d < 5; d++)
        if (r + off[d] >= 0 && r + off[d] < nc) PetscCall(MatSetValue(A, r, r + off[d], val[d], INSERT_VALUES));
    }
    break;
  case ONE:
    PetscCall(MatSetValue(A, 0, 0, CPLX(-2.5, 0.5), INSERT_VALUES));
    break;
  case LONGCOL:
    /* tridiagonal plus a full first column: short rows, one long column */
    for (PetscInt r = 0; r < m; r++) {
      for (PetscInt c = PetscMax(r - 1, 0); c <= PetscMin(r + 1, nc - 1); c++) PetscCall(MatSetValue(A, r, c, c == r ? 4.0 : -1.0, INSERT_VALUES));
      if (r > 1) PetscCall(MatSetValue(A, r, 0, 0.5, INSERT_VALUES));
    }
    break;
  case DENSEROW:
    /* the diagonal and one full row: padding every row to it needs m^2 entries */
    for (PetscInt r = 0; r < m; r++) PetscCall(MatSetValue(A, r, r, 4.0, INSERT_VALUES));
    for (PetscInt c = 1; c < nc; c++) PetscCall(MatSetValue(A, 0, c, -1.0 / nc, INSERT_VALUES));
    break;
  case BAND: {
    /* row r: columns r - w .. r + w + r % w (clipped), rows of 2w + 1 to 3w entries inside, alike */
    PetscInt w;

    PetscCall(BandWidth(&w));
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt c = PetscMax(r - w, 0); c <= PetscMin(r + w + r % w, nc - 1); c++)
        PetscCall(MatSetValue(A, r, c, c == r ? CPLX(50.0, 1.0) : CPLX(-1.0 / (1 + c % 7), 0.25), INSERT_VALUES));
  } break;
  case UNEVEN:
    /* row r: columns r - 4 .. r + 4, and every 8th row also r + 5 .. r + 20 (clipped): rows of 9
       and 25 entries, 11 on average, none 32 long */
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt c = PetscMax(r - 4, 0); c <= PetscMin(r + (r % 8 ? 4 : 20), nc - 1); c++)
        PetscCall(MatSetValue(A, r, c, c == r ? CPLX(12.0, -1.0) : CPLX(-1.0 / (1 + c % 5), 0.5), INSERT_VALUES));
    break;
  case EMPTY:
    break;
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* preallocated for nzrow entries a row; nzrow < 0: denserow's (its row 0 full, the others 1) */
static PetscErrorCode CreateMatrix(MatType type, PetscInt m, PetscInt nc, PetscInt nzrow, Mat *A)
{
  PetscInt *nnz = NULL;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, m, nc, m, nc));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSetFromOptions(*A));
  if (nzrow < 0) {
    PetscCall(PetscMalloc1(m, &nnz));
    for (PetscInt i = 0; i < m; i++) nnz[i] = i ? 1 : nc;
  }
  PetscCall(MatSeqAIJSetPreallocation(*A, nzrow, nnz));
  PetscCall(PetscFree(nnz));
  PetscFunctionReturn(0);
}

/* ||y1 - y2|| <= tol ||y1|| (or both zero) */
static PetscErrorCode CheckClose(Vec y1, Vec y2, PetscReal tol, const char *what, const char *stage)
{
  PetscReal nd, n1;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(y1, y2, NORM_2, &nd, &n1));
  PetscCheck(nd <= tol * n1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s after %s: ||difference|| %g > %g ||AIJ result|| (%g)", what, stage, (double)nd,
             (double)tol, (double)n1);
  PetscFunctionReturn(0);
}

/* Products one after another on device vectors, each reading the one before's result, with no
   copy between them: with -gpukit_overlap_kernels (the default) each is scheduled while the one
   before it ends, and a product that did not wait for it would read a stale vector. A square
   matrix: w = B x, y = B w, w = B y + w, y = B^T w, w = B^T y + w against A's. */
static PetscErrorCode CheckChain(Mat A, Mat B, const char *stage)
{
  Vec                       x, y[2], w[2];
  PetscRandom               rnd;
  PetscGPUKitTransferCounts before, after;
  PetscInt                  n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(B, &n, NULL));
  PetscCall(VecCreate(PETSC_COMM_SELF, &x));
  PetscCall(VecSetSizes(x, n, n));
  PetscCall(VecSetType(x, VECGKCUDA));
  PetscCall(VecDuplicate(x, &y[1]));
  PetscCall(VecDuplicate(x, &y[0]));
  PetscCall(VecDuplicate(x, &w[0]));
  PetscCall(VecDuplicate(x, &w[1]));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 5));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (int k = 1; k >= 0; k--) { /* B on the device first, then A, the oracle */
    Mat M = k ? B : A;

    PetscCall(MatMult(M, x, w[k]));
    if (k) PetscCall(PetscGPUKitGetTransferCounts(&before));
    PetscCall(MatMult(M, w[k], y[k]));
    PetscCall(MatMultAdd(M, y[k], w[k], w[k]));
    PetscCall(MatMultTranspose(M, w[k], y[k]));
    PetscCall(MatMultTransposeAdd(M, y[k], w[k], w[k]));
    PetscCall(MatResidual(M, x, w[k], y[k]));
    PetscCall(MatResidual(M, y[k], x, w[k]));
    if (k) PetscCall(PetscGPUKitGetTransferCounts(&after));
  }
  PetscCheck(after.h2d_count == before.h2d_count && after.d2h_count == before.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "After %s the chained products copied between host and device", stage);
  PetscCall(CheckClose(y[0], y[1], 1e-12, "chained products, y", stage));
  PetscCall(CheckClose(w[0], w[1], 1e-12, "chained products, w", stage));
  PetscCall(VecDestroy(&x));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&y[k]));
    PetscCall(VecDestroy(&w[k]));
  }
  PetscFunctionReturn(0);
}

/* Every product of B against A's, on random vectors, and the device path taken */
static PetscErrorCode CheckProducts(Mat A, Mat B, const char *stage)
{
  PetscBool                 flg;
  Vec                       x, y1, y2, z, xt, yt1, yt2, zt, d1, d2;
  PetscRandom               rnd;
  PetscGPUKitTransferCounts before, after;
  PetscInt                  m, nc;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &nc));
  PetscCall(MatMultEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultEqual failed after %s", stage);
  PetscCall(MatMultAddEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultAddEqual failed after %s", stage);
  PetscCall(MatMultTransposeEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultTransposeEqual failed after %s", stage);
  PetscCall(MatMultTransposeAddEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultTransposeAddEqual failed after %s", stage);
#if defined(PETSC_USE_COMPLEX)
  PetscCall(MatMultHermitianTransposeEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultHermitianTransposeEqual failed after %s", stage);
  PetscCall(MatMultHermitianTransposeAddEqual(A, B, 3, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMultHermitianTransposeAddEqual failed after %s", stage);
#endif

  /* tighter than MatMultEqual's sqrt(eps): the sums differ from AIJ's only in rounding */
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 7));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(VecDuplicate(y1, &z));
  PetscCall(VecDuplicate(y1, &xt)); /* transposed products: from the row space to the column space */
  PetscCall(VecDuplicate(x, &yt1));
  PetscCall(VecDuplicate(x, &yt2));
  PetscCall(VecDuplicate(x, &zt));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(z, rnd));
  PetscCall(VecSetRandom(zt, rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(PetscGPUKitGetTransferCounts(&before));
  PetscCall(MatMult(A, x, y1));
  PetscCall(MatMult(B, x, y2));
  PetscCall(CheckClose(y1, y2, 1e-13, "MatMult", stage));
  PetscCall(MatMultAdd(A, x, z, y1));
  PetscCall(MatMultAdd(B, x, z, y2));
  PetscCall(CheckClose(y1, y2, 1e-13, "MatMultAdd", stage));
  PetscCall(MatMultAdd(B, x, y2, y2)); /* z aliased to y */
  PetscCall(MatMultAdd(A, x, y1, y1));
  PetscCall(CheckClose(y1, y2, 1e-13, "MatMultAdd (y = Ax + y)", stage));
  PetscCall(MatResidual(A, z, x, y1));
  PetscCall(MatResidual(B, z, x, y2));
  PetscCall(CheckClose(y1, y2, 1e-13, "MatResidual", stage));
  PetscCall(MatMultTranspose(A, xt, yt1));
  PetscCall(MatMultTranspose(B, xt, yt2));
  PetscCall(CheckClose(yt1, yt2, 1e-13, "MatMultTranspose", stage));
  PetscCall(MatMultTransposeAdd(A, xt, zt, yt1));
  PetscCall(MatMultTransposeAdd(B, xt, zt, yt2));
  PetscCall(CheckClose(yt1, yt2, 1e-13, "MatMultTransposeAdd", stage));
  PetscCall(MatMultHermitianTranspose(A, xt, yt1));
  PetscCall(MatMultHermitianTranspose(B, xt, yt2));
  PetscCall(CheckClose(yt1, yt2, 1e-13, "MatMultHermitianTranspose", stage));
  PetscCall(MatMultHermitianTransposeAdd(A, xt, zt, yt1));
  PetscCall(MatMultHermitianTransposeAdd(B, xt, zt, yt2));
  PetscCall(CheckClose(yt1, yt2, 1e-13, "MatMultHermitianTransposeAdd", stage));
  PetscCall(PetscGPUKitGetTransferCounts(&after));
  /* host vectors: y comes back once from each of B's 8 products */
  if (m && nc)
    PetscCheck(after.d2h_count - before.d2h_count == 8, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "After %s the products did not all go through the device: %g copies back, not 8", stage, after.d2h_count - before.d2h_count);
  if (m == nc) { /* r aliased to x or b: an error, of AIJ's code where AIJ's default gives one (its MatMult's; its VecAYPX's in
                    PETSc 3.18, whose newer releases scale in place and give r = 0 for b aliased) */
    for (int alias = 0; alias < 2; alias++) {
      PetscErrorCode ierr[2];

      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      for (int k = 0; k < 2; k++) ierr[k] = alias ? MatResidual(k ? B : A, y1, x, y1) : MatResidual(k ? B : A, z, x, x);
      PetscCall(PetscPopErrorHandler());
      PetscCheck(ierr[1] == (alias ? PETSC_ERR_ARG_IDN : PETSC_ERR_ARG_WRONGSTATE) && (ierr[0] == ierr[1] || (alias && !ierr[0])), PETSC_COMM_SELF,
                 PETSC_ERR_PLIB, "MatResidual with r aliased to %s: error %d for AIJ, %d for the device type", alias ? "b" : "x", (int)ierr[0],
                 (int)ierr[1]);
    }
  }

  /* the diagonal is copied, not computed: exactly equal */
  PetscCall(VecDuplicate(y1, &d1));
  PetscCall(VecDuplicate(y1, &d2));
  PetscCall(VecSet(d2, 99.0));
  PetscCall(MatGetDiagonal(A, d1));
  PetscCall(MatGetDiagonal(B, d2));
  PetscCall(VecEqual(d1, d2, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatGetDiagonal differs after %s", stage);

  if (m && m == nc) PetscCall(CheckChain(A, B, stage));

  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt1));
  PetscCall(VecDestroy(&yt2));
  PetscCall(VecDestroy(&zt));
  PetscCall(VecDestroy(&d1));
  PetscCall(VecDestroy(&d2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  products equal after %s\n", stage));
  PetscFunctionReturn(0);
}

/* The same change to A and B */
static PetscErrorCode SetValuesBoth(Mat A, Mat B, PetscInt r, PetscInt c, PetscScalar v)
{
  PetscFunctionBegin;
  for (Mat M = A; M; M = (M == A ? B : NULL)) {
    PetscCall(MatSetValue(M, r, c, v, ADD_VALUES));
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscFunctionReturn(0);
}

/* An infinite value at the first and last entries of every 7th row: A x against B x, x all 1, row
   by row: those rows not finite in both, every other row finite and equal to rounding. A product
   that loaded a neighbouring row's entries with a row's own (as a kernel loading two entries at a
   time from even places would) and multiplied them, even by 0, would make
   the rows beside them not finite */
static PetscErrorCode CheckInfiniteRows(Mat A, Mat B)
{
  PetscInt           m, ncols, bad = 0, *c;
  const PetscInt    *cidx;
  Vec                xa, ya, xb, yb;
  const PetscScalar *a, *b;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, NULL));
  PetscCall(PetscMalloc1(2 * (m / 7 + 1), &c));
  for (PetscInt i = 3; i < m; i += 7) { /* the places first: MatGetRow needs an assembled matrix */
    PetscCall(MatGetRow(A, i, &ncols, &cidx, NULL));
    c[2 * (i / 7)]     = ncols ? cidx[0] : -1;
    c[2 * (i / 7) + 1] = ncols ? cidx[ncols - 1] : -1;
    PetscCall(MatRestoreRow(A, i, &ncols, &cidx, NULL));
  }
  for (PetscInt i = 3; i < m; i += 7)
    for (int k = 0; k < 2 && c[2 * (i / 7)] >= 0; k++) {
      PetscCall(MatSetValue(A, i, c[2 * (i / 7) + k], (PetscReal)INFINITY, INSERT_VALUES));
      PetscCall(MatSetValue(B, i, c[2 * (i / 7) + k], (PetscReal)INFINITY, INSERT_VALUES));
    }
  for (Mat M = A; M; M = (M == A ? B : NULL)) {
    PetscCall(MatAssemblyBegin(M, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(MatCreateVecs(A, &xa, &ya));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecSet(xa, 1.0));
  PetscCall(VecSet(xb, 1.0));
  PetscCall(MatMult(A, xa, ya));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecGetArrayRead(ya, &a));
  PetscCall(VecGetArrayRead(yb, &b));
  for (PetscInt i = 0; i < m; i++) {
    const PetscBool infrow = i % 7 == 3 && c[2 * (i / 7)] >= 0 ? PETSC_TRUE : PETSC_FALSE; /* a row given infinite entries */

    if (infrow ? !PetscIsInfOrNanScalar(a[i]) || !PetscIsInfOrNanScalar(b[i])
               : PetscIsInfOrNanScalar(b[i]) || PetscAbsScalar(a[i] - b[i]) > 1e-10 * (1.0 + PetscAbsScalar(a[i]))) {
      if (!bad++)
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "row %" PetscInt_FMT "%s: AIJ %g, the type %g\n", i, infrow ? " (infinite entries)" : "",
                              (double)PetscRealPart(a[i]), (double)PetscRealPart(b[i])));
    }
  }
  PetscCall(VecRestoreArrayRead(ya, &a));
  PetscCall(VecRestoreArrayRead(yb, &b));
  PetscCall(PetscFree(c));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatMult with infinite entries: %" PetscInt_FMT " rows differ from AIJ's", bad);
  PetscCall(VecDestroy(&xa));
  PetscCall(VecDestroy(&ya));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat         A, B, B2, C, D;
  PetscInt    n = 37, m = 0, rows, cols, nzrow = 9;
  const char *colnote  = "";
  Problem     p        = LAP2D;
  char        type[64] = MATELLRCUDA;
  PetscBool   flg;
  PetscRandom rnd;
  Vec         l, r;
  MatType     tb, tb2;
  PetscInt    c0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Product test options", NULL);
  PetscCall(PetscOptionsEnum("-problem", "The test matrix", NULL, Problems, (PetscEnum)p, (PetscEnum *)&p, NULL));
  PetscCall(PetscOptionsInt("-n", "Size parameter", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "Rows of the rectangular problem", NULL, m, &m, NULL));
  PetscCall(PetscOptionsString("-type", "Device matrix type", NULL, type, type, sizeof(type), NULL));
  PetscOptionsEnd();
  switch (p) {
  case LAP2D:
  case CONVDIFF:
    rows = cols = n * n;
    break;
  case LAP3D:
    rows = cols = n * n * n;
    break;
  case RECT:
    rows = m ? m : n / 2 + 3;
    cols = n;
    break;
  case ONE:
    rows = cols = 1;
    break;
  case EMPTY:
    rows = cols = 0;
    break;
  default:
    rows = cols = n;
  }
  if (p == RANDOM) nzrow = 61;
  if (p == DENSEROW) nzrow = -1;
  if (p == UNEVEN) nzrow = 25;
  if (p == BAND) {
    PetscInt w;

    PetscCall(BandWidth(&w));
    nzrow = 3 * w;
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s: %" PetscInt_FMT " x %" PetscInt_FMT "\n", type, Problems[p], rows, cols));

  /* A: the oracle; B: assembled directly as the device type; B2: converted from A */
  PetscCall(CreateMatrix(MATSEQAIJ, rows, cols, nzrow, &A));
  PetscCall(FillProblem(A, p, n));
  PetscCall(CreateMatrix(type, rows, cols, nzrow, &B));
  PetscCall(FillProblem(B, p, n));
  PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &B2));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)B, &flg, MATSEQELLRCUDA, MATSEQDIACUDA, ""));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "-type %s did not give a device matrix", type);
  PetscCall(CheckProducts(A, B, "assembly"));
  PetscCall(CheckProducts(A, B2, "MatConvert from AIJ"));
  PetscCall(MatDestroy(&B2));

  if (rows && cols) {
    /* values at an existing place, then at a new place */
    PetscInt        r0 = 0, ncols;
    const PetscInt *cidx;

    PetscCall(MatGetRow(A, r0, &ncols, &cidx, NULL));
    while (!ncols && r0 < rows - 1) {
      PetscCall(MatRestoreRow(A, r0, &ncols, &cidx, NULL));
      PetscCall(MatGetRow(A, ++r0, &ncols, &cidx, NULL));
    }
    c0 = ncols ? cidx[ncols - 1] : 0;
    PetscCall(MatRestoreRow(A, r0, &ncols, &cidx, NULL));
    PetscCall(SetValuesBoth(A, B, r0, c0, 1.5));
    PetscCall(CheckProducts(A, B, "MatSetValues (same pattern)"));
    PetscCall(MatSetOption(A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetOption(B, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(SetValuesBoth(A, B, rows / 2, (rows / 2 + 1) % cols, CPLX(-0.75, 0.25)));
    PetscCall(SetValuesBoth(A, B, rows - 1, 0, 1.25));
    PetscCall(CheckProducts(A, B, "MatSetValues (new nonzero)"));
  }
  PetscCall(MatScale(A, CPLX(2.5, -1.0)));
  PetscCall(MatScale(B, CPLX(2.5, -1.0)));
  PetscCall(CheckProducts(A, B, "MatScale"));
  PetscCall(MatShift(A, 0.7));
  PetscCall(MatShift(B, 0.7));
  PetscCall(CheckProducts(A, B, "MatShift"));
  if (rows) {
    const PetscInt zr[] = {0, rows / 2, rows - 1};
    const PetscInt nzr  = rows > 2 ? 3 : 1;

    PetscCall(MatZeroRows(A, nzr, zr, rows == cols ? 2.0 : 0.0, NULL, NULL));
    PetscCall(MatZeroRows(B, nzr, zr, rows == cols ? 2.0 : 0.0, NULL, NULL));
    PetscCall(CheckProducts(A, B, "MatZeroRows"));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(A, &r, &l));
  PetscCall(VecSetRandom(l, rnd));
  PetscCall(VecSetRandom(r, rnd));
  PetscCall(MatDiagonalScale(A, l, r));
  PetscCall(MatDiagonalScale(B, l, r));
  PetscCall(CheckProducts(A, B, "MatDiagonalScale"));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscRandomDestroy(&rnd));

  /* Y = Y + a X with X of the same pattern as Y, then with one of a different pattern */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &C));
  PetscCall(MatAXPY(A, -0.5, C, SAME_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, -0.5, C, SAME_NONZERO_PATTERN));
  PetscCall(CheckProducts(A, B, "MatAXPY (same pattern)"));
  PetscCall(MatDestroy(&C));
  PetscCall(CreateMatrix(MATSEQAIJ, rows, cols, 1, &C));
  for (PetscInt i = 0; i + 3 < cols && i < rows; i += 5) PetscCall(MatSetValue(C, i, i + 3, 0.25, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAXPY(A, 3.0, C, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatAXPY(B, 3.0, C, DIFFERENT_NONZERO_PATTERN));
  PetscCall(CheckProducts(A, B, "MatAXPY (other pattern)"));
  PetscCall(MatDestroy(&C));

  /* duplicate, and back to AIJ */
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
  PetscCall(MatGetType(B, &tb));
  PetscCall(MatGetType(B2, &tb2));
  PetscCall(PetscStrcmp(tb, tb2, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatDuplicate of a %s gave a %s", tb, tb2);
  PetscCall(CheckProducts(A, B2, "MatDuplicate"));
  PetscCall(MatDestroy(&B2));
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &D));
  PetscCall(PetscObjectTypeCompare((PetscObject)D, MATSEQAIJ, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to aij did not give seqaij");
  PetscCall(MatEqual(A, D, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to aij changed the matrix");
  PetscCall(MatDestroy(&D));

  /* into the other device format, and from it back into this one */
  {
    PetscBool   isellr;
    const char *other;

    PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQELLRCUDA, &isellr));
    other = isellr ? MATDIACUDA : MATELLRCUDA;
    PetscCall(MatConvert(B, other, MAT_INITIAL_MATRIX, &D));
    PetscCall(PetscObjectTypeCompare((PetscObject)D, isellr ? MATSEQDIACUDA : MATSEQELLRCUDA, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert to %s gave another type", other);
    PetscCall(CheckProducts(A, D, "MatConvert between the device formats"));
    PetscCall(MatConvert(D, type, MAT_INPLACE_MATRIX, &D));
    PetscCall(CheckProducts(A, D, "MatConvert back, in place"));
    PetscCall(MatDestroy(&D));
  }

  /* in place, both ways */
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(MatConvert(D, type, MAT_INPLACE_MATRIX, &D));
  PetscCall(CheckProducts(A, D, "MatConvert in place"));
  PetscCall(MatConvert(D, MATSEQAIJ, MAT_INPLACE_MATRIX, &D));
  PetscCall(PetscObjectTypeCompare((PetscObject)D, MATSEQAIJ, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert in place to seqaij did not give seqaij");
  PetscCall(MatEqual(A, D, &flg));
  PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatConvert in place to seqaij changed the matrix");
  PetscCall(MatDestroy(&D));

  /* MatLoad of a file written from AIJ */
  {
    PetscViewer v;
    char        file[PETSC_MAX_PATH_LEN], info[PETSC_MAX_PATH_LEN];

    PetscCall(PetscSNPrintf(file, sizeof(file), "products-%s-%s.bin", type, Problems[p]));
    PetscCall(PetscSNPrintf(info, sizeof(info), "%s.info", file));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_WRITE, &v));
    PetscCall(MatView(A, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(MatCreate(PETSC_COMM_SELF, &D));
    PetscCall(MatSetType(D, type));
    PetscCall(MatSetFromOptions(D));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, file, FILE_MODE_READ, &v));
    PetscCall(MatLoad(D, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(CheckProducts(A, D, "MatLoad"));
    PetscCall(MatDestroy(&D));
    PetscCheck(!remove(file) && !remove(info), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Could not remove %s", file);
  }

  /* MatTranspose, new, reused and in place: the type kept, AIJ's entries, the type's products */
  {
    Mat       At, Dt, X;
    PetscBool same;
    MatType   t;
    char      seqtype[64];

    PetscCall(PetscSNPrintf(seqtype, sizeof(seqtype), "seq%s", type));
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
    PetscCall(MatConvert(A, type, MAT_INITIAL_MATRIX, &D));
    for (int stage = 0; stage < 3; stage++) {
      if (stage == 0) PetscCall(MatTranspose(D, MAT_INITIAL_MATRIX, &Dt));
      else if (stage == 1) PetscCall(MatTranspose(D, MAT_REUSE_MATRIX, &Dt));
      else {
        PetscCall(MatDestroy(&Dt));
        PetscCall(MatTranspose(D, MAT_INPLACE_MATRIX, &D));
        Dt = D;
      }
      PetscCall(MatGetType(Dt, &t));
      PetscCall(PetscStrcmp(t, seqtype, &same));
      PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatTranspose gave a %s matrix, not %s", t, seqtype);
      PetscCall(MatConvert(Dt, MATSEQAIJ, MAT_INITIAL_MATRIX, &X));
      PetscCall(MatEqual(At, X, &same));
      PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatTranspose (%s) differs from AIJ's",
                 stage == 0 ? "new" : (stage == 1 ? "reused" : "in place"));
      PetscCall(MatDestroy(&X));
      PetscCall(CheckProducts(At, Dt, stage == 0 ? "MatTranspose" : (stage == 1 ? "MatTranspose reused" : "MatTranspose in place")));
    }
    PetscCall(MatDestroy(&D));
    PetscCall(MatDestroy(&At));
  }

  if (rows && cols) PetscCall(CheckInfiniteRows(A, B)); /* the last check: A and B keep those values */

  /* ELLPACK-R: which columns the device copy ended with (MatELLRCUDASetShortColumns) */
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQELLRCUDA, &flg));
  if (flg) {
    PetscCall(MatELLRCUDAGetShortColumns(B, &flg));
    colnote = flg ? " (columns: 16-bit offsets)" : " (columns: 32-bit indices)";
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all products equal%s\n", colnote));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # products against SEQAIJ, before and after changes, for both formats (lap2d and convdiff on
  # both backends); the last line names the columns ELLPACK-R ended with: lap2d's shows the
  # default, 16-bit offsets from the row wherever every entry's fits (an empty matrix has none,
  # and says 32-bit indices)
  testset:
    args: -type {{ellrcuda diacuda}separate output}
    test:
      suffix: lap2d
      args: -problem lap2d -n 37 -gpukit_backend {{host cuda}shared output}
    test:
      suffix: lap3d
      args: -problem lap3d -n 11
    test:
      suffix: convdiff
      args: -problem convdiff -n 41 -gpukit_backend {{host cuda}shared output}
    test:
      suffix: outside
      args: -problem outside -n 1000
    test:
      suffix: random
      args: -problem random -n 1001 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: rect_wide
      args: -problem rect -m 333 -n 517 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: rect_tall
      args: -problem rect -m 517 -n 333 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: 1x1
      args: -problem one
    test:
      suffix: 0x0
      args: -problem empty

  # sliced ELLPACK-R: every product test again, for slice heights 1, 32 and 7 (7 divides
  # none of the row counts); the random matrix's long row then pads only its slice
  # sorted (SELL-C-sigma): rows ordered longest first within windows before slicing; window
  # a multiple of the slice height, not one, and one slice with sorting
  # (the layout changes nothing printed: each compares with the unsliced matrix's output)
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem lap2d -n 37
    output_file: output/products_lap2d_type-ellrcuda.out
    test:
      suffix: sliced_lap2d
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_lap2d
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted7_50_lap2d
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted0_16_lap2d
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16 -mat_ellrcuda_max_fill 20
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem convdiff -n 41
    output_file: output/products_convdiff_type-ellrcuda.out
    test:
      suffix: sliced_convdiff
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_convdiff
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted7_50_convdiff
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted0_16_convdiff
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16 -mat_ellrcuda_max_fill 20
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem random -n 1001
    output_file: output/products_random_type-ellrcuda.out
    test:
      suffix: sliced_random
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_random
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted7_50_random
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted0_16_random
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16 -mat_ellrcuda_max_fill 20
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem rect -m 333 -n 517 -mat_ellrcuda_max_fill 20
    output_file: output/products_rect_wide_type-ellrcuda.out
    test:
      suffix: sliced_rect_wide
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_rect_wide
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64
    test:
      suffix: sorted7_50_rect_wide
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50
    test:
      suffix: sorted0_16_rect_wide
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem rect -m 517 -n 333 -mat_ellrcuda_max_fill 20
    output_file: output/products_rect_tall_type-ellrcuda.out
    test:
      suffix: sliced_rect_tall
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_rect_tall
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64
    test:
      suffix: sorted7_50_rect_tall
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50
    test:
      suffix: sorted0_16_rect_tall
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem one
    output_file: output/products_1x1_type-ellrcuda.out
    test:
      suffix: sliced_1x1
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}
    test:
      suffix: sorted32_64_1x1
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted7_50_1x1
      args: -mat_ellrcuda_slice_height 7 -mat_ellrcuda_sort_window 50 -mat_ellrcuda_max_fill 20
    test:
      suffix: sorted0_16_1x1
      args: -mat_ellrcuda_slice_height 0 -mat_ellrcuda_sort_window 16 -mat_ellrcuda_max_fill 20
  testset:
    args: -type ellrcuda -mat_diacuda_max_fill 1000 -problem empty
    output_file: output/products_0x0_type-ellrcuda.out
    test:
      suffix: sliced_0x0
      args: -mat_ellrcuda_slice_height {{1 32 7}shared output}

  # a long column: short rows, while the transposed copy's first row is full. Sliced, or with
  # the layout left to ELLPACK-R (the transposed copy is sliced on its own where the paper's
  # single slice would exceed the fill limit), or with that padding accepted
  testset:
    args: -type ellrcuda -problem longcol -n 300 -mat_diacuda_max_fill 100
    output_file: output/products_longcol.out
    test:
      suffix: sliced1_longcol
      args: -mat_ellrcuda_slice_height 1
    test:
      suffix: ellr_transpose_auto_sliced
    test:
      suffix: ellr_transpose_fill_accepted
      args: -mat_ellrcuda_max_fill 100

  # one full row among m: padding the others to it needs m^2 entries, more than 32-bit PetscInt
  # counts from m = 46341 on (a crash and an allocation error before). With the layout left to it,
  # ELLPACK-R slices and sorts (the paper's single slice exceeds the fill limit); with the paper's
  # layout asked for, the fill limit refuses it, and the index range does when the limit is raised
  # (-mat_view: the view's line saying so, once; PETSc's own views are left out)
  test:
    suffix: denserow
    args: -problem denserow -n {{46341 65536}separate output} -mat_view ::ascii_info
    filter: grep -E "^ellrcuda |products equal|sliced automatically" | awk '!/sliced automatically/ || !n++'
  test:
    suffix: denserow_one_slice
    exit: nonzero
    args: -problem denserow -n {{46341 65536}separate output} -mat_ellrcuda_slice_height 0
    filter: grep -E "^ellrcuda |PETSC ERROR: ELLPACK-R"
  test:
    suffix: denserow_index_range
    exit: nonzero
    args: -problem denserow -n 65536 -mat_ellrcuda_max_fill 1e9 -mat_ellrcuda_slice_height 0
    filter: grep -E "^ellrcuda |PETSC ERROR: ELLPACK-R"
  test:
    suffix: denserow_sliced
    args: -problem denserow -n 65536 -mat_ellrcuda_slice_height 32

  # ELLPACK-R's columns: 16-bit offsets from the row wherever every entry's fits (the default,
  # which the cases above run where they fit), or 32-bit indices when asked
  # (-mat_ellrcuda_short_columns 0); 32-bit too when some entry's column is more than 32768
  # before or 32767 after its row (outside: diagonals n - 3 below and n - 5 above the main one,
  # so n = 32771 fits and 32772 does not; the transposed copy, its offsets negated, fits up to
  # n = 32770)
  testset:
    args: -type ellrcuda -mat_ellrcuda_short_columns 0
    test:
      suffix: columns32_lap2d
      args: -problem lap2d -n 37
    test:
      suffix: columns32_lap3d
      args: -problem lap3d -n 11
    test:
      suffix: columns32_convdiff
      args: -problem convdiff -n 41
    test:
      suffix: columns32_outside
      args: -problem outside -n 1000
    test:
      suffix: columns32_random
      args: -problem random -n 1001 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: columns32_rect_wide
      args: -problem rect -m 333 -n 517 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: columns32_rect_tall
      args: -problem rect -m 517 -n 333 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
    test:
      suffix: columns32_1x1
      args: -problem one
    test:
      suffix: columns32_0x0
      args: -problem empty
    test:
      suffix: columns32_sliced32_random
      args: -mat_ellrcuda_slice_height 32 -problem random -n 1001 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
      output_file: output/products_columns32_random.out
    test:
      suffix: columns32_sliced7_convdiff
      args: -mat_ellrcuda_slice_height 7 -problem convdiff -n 41 -mat_diacuda_max_fill 1000
      output_file: output/products_columns32_convdiff.out
    test:
      suffix: columns32_sorted32_64_random
      args: -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 64 -problem random -n 1001 -mat_ellrcuda_max_fill 20 -mat_diacuda_max_fill 1000
      output_file: output/products_columns32_random.out
    test:
      suffix: columns32_sliced1_longcol
      args: -mat_ellrcuda_slice_height 1 -problem longcol -n 300 -mat_diacuda_max_fill 100
  test:
    suffix: short_fit_32771
    args: -type ellrcuda -problem outside -n 32771
  test:
    suffix: short_far_32772
    args: -type ellrcuda -problem outside -n 32772

  # errors: clear PETSc errors, never crashes. The fill limit refuses a layout asked for; one
  # left to ELLPACK-R is sliced where the paper's single slice would exceed it, the matrix's and
  # the transposed copy's each on its own (-mat_view: the view's line saying so, once). The
  # random matrix's pattern differs with the scalars (a complex random value takes two draws):
  # its counts in the messages too
  testset:
    exit: nonzero
    filter: grep -E "^(ellrcuda|diacuda) |PETSC ERROR: (ELLPACK-R|DIA) "
    test:
      suffix: error_ellr_fill_real
      requires: real
      args: -type ellrcuda -problem random -n 1001 -mat_ellrcuda_slice_height 0
    test:
      suffix: error_ellr_fill_complex
      requires: complex
      args: -type ellrcuda -problem random -n 1001 -mat_ellrcuda_slice_height 0
    test:
      suffix: error_ellr_transpose_fill
      args: -type ellrcuda -problem longcol -n 300 -mat_ellrcuda_sort_window 0
    test:
      suffix: error_dia_fill_real
      requires: real
      args: -type diacuda -problem random -n 1001
    test:
      suffix: error_dia_fill_complex
      requires: complex
      args: -type diacuda -problem random -n 1001
  test:
    suffix: ellr_auto_sliced
    args: -type ellrcuda -problem random -n 1001 -mat_view ::ascii_info -mat_diacuda_max_fill 1000
    filter: grep -E "^ellrcuda |products equal|sliced automatically|wide slices" | awk '!/sliced automatically|wide slices/ || !n[$1]++'

  # rows of 33 to 48 entries, alike: one row a slice automatically, a group of 8 lanes a row, on
  # both backends
  test:
    suffix: ellr_auto_band
    args: -type ellrcuda -problem band -n 66000 -mat_view ::ascii_info -gpukit_backend {{host cuda}shared output}
    filter: grep -E "^ellrcuda |products equal|sliced automatically|wide slices|Nz =" | awk '!/sliced automatically|wide slices|Nz =/ || !n[$1]++'

  # longer rows, alike: 65 to 96 entries (16 lanes a row), 129 to 192 (32 lanes), on both backends
  test:
    suffix: ellr_auto_band_lanes
    args: -type ellrcuda -problem band -n 3000 -band_width {{32 64}separate output} -mat_view ::ascii_info -gpukit_backend {{host cuda}shared output}
    filter: grep -E "^ellrcuda |products equal|sliced automatically|wide slices|Nz =" | awk '!/sliced automatically|wide slices|Nz =/ || !n[$1]++'

  # rows of 9 and 25 entries (11 on average, none 32 long): uneven, so sliced and sorted
  # automatically, on both backends
  test:
    suffix: ellr_auto_uneven
    args: -type ellrcuda -problem uneven -n 5000 -mat_view ::ascii_info -gpukit_backend {{host cuda}shared output}
    filter: grep -E "^ellrcuda |products equal|sliced automatically|wide slices|Nz =" | awk '!/sliced automatically|wide slices|Nz =/ || !n[$1]++'

  # the same rows sliced and sorted as the automatic layout was for them before (slices of 32 rows
  # sorted within windows of 1024), and rows enough (GK_ELLR_MANY_ROWS): each slice a thread a row
  # (no wide slices), on both backends
  test:
    suffix: ellr_threadrows_band
    args: -type ellrcuda -problem band -n 66000 -mat_ellrcuda_slice_height 32 -mat_ellrcuda_sort_window 1024 -mat_view ::ascii_info -gpukit_backend {{host cuda}shared output}
    filter: grep -E "^ellrcuda |products equal|sliced:|sorted:|wide slices|Nz =" | awk '!/sliced:|sorted:|wide slices|Nz =/ || !n[$1]++'

  # no row 32 long, but the paper's single slice over the fill limit: sliced automatically for that reason
  test:
    suffix: ellr_auto_sliced_fill
    args: -type ellrcuda -problem rect -m 517 -n 333 -mat_view ::ascii_info -mat_ellrcuda_max_fill 2 -mat_diacuda_max_fill 1000
    filter: grep -E "^ellrcuda |products equal|sliced automatically|wide slices" | awk '!/sliced automatically|wide slices/ || !n[$1]++'

TEST*/

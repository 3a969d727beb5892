static char help[] = "COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of the device matrices against AIJ's,\n\
1 to 3 processes: repeated pairs summed, negative indices dropped, entries of other processes'\n\
rows, INSERT_VALUES and ADD_VALUES, new values on the same pattern; an index past the matrix is\n\
an error; values in device memory (a device vector's array), summed on the device with no copy\n\
to the device on one process, and only the other processes' sums on several; MatSetValuesCOO()\n\
after the pattern changed is an error, after a MatZeroRows() of no rows (the same pattern) not.\n\
  -type <type> : ellrcuda or diacuda\n\
  -n <n>       : rows (default 60)\n\
  -outside     : give one entry a column past the matrix (the error)\n\
  -repattern   : add a nonzero after the first values, then set values again (the error)\n\
  -idle        : process 0 gives no entries; the last process gives those of process 0's rows\n\
  -behind      : values from device memory leave the host values behind the device copy's (no\n\
                 copy down); each host operation after that (values, rows, norms, duplicate,\n\
                 scale, MatSetValues, MatAXPY, transpose, products and their reuse, a\n\
                 factorization's reuse, zeroed rows, diagonal scaling, submatrices, COO again,\n\
                 stored and retrieved values)\n\
                 sees the matrix AIJ has\n\n";

#include <petscgpukit.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet() */
#include "testutil.h"

/* Each process's entries: for each of its rows i, (i, i) twice, (i, i + 1) and (i, i - 1) (a
   5-point-like band that wraps), one pair with a negative row and one with a negative column
   (dropped), and (i + 7, i) (7 rows on: another process's row for the last rows) */
static PetscErrorCode Entries(PetscInt rs, PetscInt re, PetscInt n, PetscBool outside, PetscCount *nc, PetscInt **ci, PetscInt **cj)
{
  PetscInt c = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(7 * (re - rs), ci, 7 * (re - rs), cj));
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt r[7] = {i, i, i, i, -1, i, (i + 7) % n}, col[7] = {i, i, (i + 1) % n, (i + n - 1) % n, i, -3, i};

    for (PetscInt k = 0; k < 7; k++, c++) {
      (*ci)[c] = r[k];
      (*cj)[c] = col[k];
    }
  }
  if (outside && re > rs) (*cj)[2] = n; /* one column past the last */
  *nc = c;
  PetscFunctionReturn(0);
}

/* v[k] for entry k, round 0 and 1 (distinct values, exactly representable sums) */
static PetscScalar Value(PetscInt rank, PetscCount k, PetscInt round)
{
  return (PetscScalar)(1 + (k % 13) + 16 * rank + 100 * round) / 8;
}

/* ||A x - B x|| over ||A x|| for x random, on B's own vectors */
static PetscErrorCode Compare(Mat A, Mat B, const char *what)
{
  Vec       x, y, xb, yb;
  PetscReal nd, na;
  Mat       C;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCopy(x, xb));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecCopy(yb, x)); /* B's result on a host vector */
  PetscCall(TestDiffNorms(y, x, NORM_2, &nd, &na));
  PetscCheck(nd <= 1e-13 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the device matrix's product differs from AIJ's by %g (relative)", what,
             (double)(nd / na));
  /* the host matrix underneath, entry by entry (the sums are exact), as converted to AIJ (which
     brings host values left behind up to date): B - A is zero (MatEqual() of two MPIAIJ would
     need the same off-process columns in both) */
  PetscCall(MatConvert(B, MATAIJ, MAT_INITIAL_MATRIX, &C));
  PetscCall(MatAXPY(C, -1.0, A, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(C, NORM_INFINITY, &nd));
  PetscCall(MatDestroy(&C));
  PetscCheck(nd == 0.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the device matrix's host entries differ from AIJ's by %g", what, (double)nd);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: products and entries equal\n", what));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(0);
}

/* -behind: new values for both, from device memory for the device matrix (a dominant diagonal:
   the factorization below needs no pivoting); with several processes only the entries that
   cross between processes are copied down, with one none */
static PetscErrorCode SetBoth(Mat M[2], Vec dv, PetscInt rank, PetscCount nc, PetscInt round, InsertMode mode)
{
  PetscScalar              *a, *v;
  const PetscScalar        *d;
  PetscGPUKitTransferCounts c0, c1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nc, &v));
  PetscCall(VecGetArrayWrite(dv, &a));
  for (PetscCount k = 0; k < nc; k++) v[k] = a[k] = Value(rank, k, round) + (k % 7 < 2 ? 10 : 0);
  PetscCall(VecRestoreArrayWrite(dv, &a));
  PetscCall(MatSetValuesCOO(M[0], v, mode));
  PetscCall(VecGPUKitGetDeviceArrayRead(dv, &d));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(MatSetValuesCOO(M[1], d, mode));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  PetscCall(VecGPUKitRestoreDeviceArrayRead(dv, &d));
  PetscCheck(c1.d2h_bytes - c0.d2h_bytes <= 7 * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "MatSetValuesCOO() from device memory copied %g bytes to the host", c1.d2h_bytes - c0.d2h_bytes);
  PetscCall(PetscFree(v));
  PetscFunctionReturn(0);
}

/* a and b equal to a relative 1e-13 (n values) */
static PetscErrorCode CheckClose(PetscInt n, const PetscScalar a[], const PetscScalar b[], const char *what)
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++)
    PetscCheck(PetscAbsScalar(a[k] - b[k]) <= 1e-13 * PetscMax(1.0, PetscAbsScalar(a[k])), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "%s: value %" PetscInt_FMT " is %g on the device matrix, %g on AIJ", what, k, (double)PetscRealPart(b[k]),
               (double)PetscRealPart(a[k]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Behind(Mat M[2], Vec dv, PetscInt rank, PetscMPIInt size, PetscCount nc)
{
  PetscInt  rs, re, round = 10, n;
  Mat       D[2], T[2], C[2], P[2], S[2];
  PC        pc[2];
  Vec       b[2], x[2], l[2], r[2];
  IS        is;
  PetscReal nrm[2][3];

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(M[0], &rs, &re));
  PetscCall(MatGetSize(M[0], &n, NULL));
  /* products with vectors and the diagonal read the device copy: nothing is copied down (on
     several processes the halo's exchange passes through host memory) */
  {
    PetscGPUKitTransferCounts c0, c1;
    Vec                       y;

    PetscCall(MatCreateVecs(M[1], &x[1], &y));
    PetscCall(VecSet(x[1], 1.0));
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
    PetscCall(MatMult(M[1], x[1], y));
    PetscCall(MatMultAdd(M[1], x[1], y, y));
    PetscCall(MatGetDiagonal(M[1], y));
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    PetscCheck(size > 1 || c1.d2h_count == c0.d2h_count, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "MatSetValuesCOO() from device memory and products on the device copied %g times to the host", c1.d2h_count - c0.d2h_count);
    PetscCall(VecDestroy(&x[1]));
    PetscCall(VecDestroy(&y));
    PetscCall(Compare(M[0], M[1], "behind: products on the device, nothing copied down"));
  }
  /* transposed products (ELLPACK-R's transposed copy is made from the host values) */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  {
    Vec       xt[2], yt[2];
    PetscReal nd, na;

    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(MatCreateVecs(M[t], &xt[t], &yt[t]));
      PetscCall(VecSet(xt[t], 1.0));
      PetscCall(VecSetValue(xt[t], rs, 3.0, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(xt[t]));
      PetscCall(VecAssemblyEnd(xt[t]));
      PetscCall(MatMultTranspose(M[t], xt[t], yt[t]));
    }
    PetscCall(VecCopy(yt[1], xt[0]));
    PetscCall(TestDiffNorms(yt[0], xt[0], NORM_2, &nd, &na));
    PetscCheck(nd <= 1e-13 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "behind: MatMultTranspose differs from AIJ's by %g (relative)", (double)(nd / na));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(VecDestroy(&xt[t]));
      PetscCall(VecDestroy(&yt[t]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "behind: MatMultTranspose equal\n"));
  }
  /* values and rows; bringing the host values up to date changes no value, and leaves the
     matrix's state as it was (a PC set up with it is not set up again) */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  {
    PetscObjectState s0, s1;

    PetscCall(PetscObjectStateGet((PetscObject)M[1], &s0));
    if (re > rs) {
      PetscScalar val;

      PetscCall(MatGetValue(M[1], rs, rs, &val));
    }
    PetscCall(PetscObjectStateGet((PetscObject)M[1], &s1));
    PetscCheck(s1 == s0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "behind: bringing the host values up to date moved the matrix's state on");
  }
  for (PetscInt i = rs; i < re; i++) {
    const PetscInt c[2] = {i, (i + 1) % n};
    PetscScalar    val[2][2], sum[2] = {0, 0};

    for (PetscInt t = 0; t < 2; t++) {
      const PetscScalar *rv;
      PetscInt           nz;

      PetscCall(MatGetValues(M[t], 1, &i, 2, c, val[t]));
      PetscCall(MatGetRow(M[t], i, &nz, NULL, &rv));
      for (PetscInt k = 0; k < nz; k++) sum[t] += rv[k];
      PetscCall(MatRestoreRow(M[t], i, &nz, NULL, &rv));
    }
    PetscCall(CheckClose(2, val[0], val[1], "behind: MatGetValues"));
    PetscCall(CheckClose(1, &sum[0], &sum[1], "behind: MatGetRow"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "behind: MatGetValues and MatGetRow equal\n"));
  /* norms */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatNorm(M[t], NORM_FROBENIUS, &nrm[t][0]));
    PetscCall(MatNorm(M[t], NORM_1, &nrm[t][1]));
    PetscCall(MatNorm(M[t], NORM_INFINITY, &nrm[t][2]));
  }
  for (int k = 0; k < 3; k++)
    PetscCheck(PetscAbsReal(nrm[0][k] - nrm[1][k]) <= 1e-13 * nrm[0][k], PETSC_COMM_WORLD, PETSC_ERR_PLIB,
               "behind: norm %d is %g on the device matrix, %g on AIJ", k, (double)nrm[1][k], (double)nrm[0][k]);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "behind: MatNorm equal\n"));
  /* a function SEQAIJ composes (MatIsTranspose() of the matrix and itself: is it symmetric) */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  {
    PetscBool sym[2];

    for (PetscInt t = 0; t < 2; t++) PetscCall(MatIsTranspose(M[t], M[t], 0.0, &sym[t]));
    PetscCheck(sym[0] == sym[1], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "behind: MatIsTranspose says %d on the device matrix, %d on AIJ", (int)sym[1],
               (int)sym[0]);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "behind: MatIsTranspose equal\n"));
  }
  /* a duplicate, scaling, MatSetValues, MatAXPY both ways */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatDuplicate(M[t], MAT_COPY_VALUES, &D[t]));
  PetscCall(Compare(D[0], D[1], "behind: MatDuplicate"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatScale(M[t], 2.0));
  PetscCall(Compare(M[0], M[1], "behind: MatScale"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) {
    if (re > rs) PetscCall(MatSetValue(M[t], rs, rs, 1.0, ADD_VALUES));
    PetscCall(MatAssemblyBegin(M[t], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[t], MAT_FINAL_ASSEMBLY));
  }
  PetscCall(Compare(M[0], M[1], "behind: MatSetValues with ADD_VALUES"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatAXPY(M[t], 0.5, D[t], SAME_NONZERO_PATTERN));
  PetscCall(Compare(M[0], M[1], "behind: MatAXPY into it"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatAXPY(D[t], 0.5, M[t], SAME_NONZERO_PATTERN));
  PetscCall(Compare(D[0], D[1], "behind: MatAXPY of it"));
  /* transpose; products, made and reused after new values */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatTranspose(M[t], MAT_INITIAL_MATRIX, &T[t]));
  PetscCall(Compare(T[0], T[1], "behind: MatTranspose"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatMatMult(M[t], D[t], MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C[t]));
  PetscCall(Compare(C[0], C[1], "behind: MatMatMult"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatMatMult(M[t], D[t], MAT_REUSE_MATRIX, PETSC_DEFAULT, &C[t]));
  PetscCall(Compare(C[0], C[1], "behind: MatMatMult reused"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatPtAP(M[t], D[t], MAT_INITIAL_MATRIX, PETSC_DEFAULT, &P[t]));
  PetscCall(Compare(P[0], P[1], "behind: MatPtAP"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatPtAP(M[t], D[t], MAT_REUSE_MATRIX, PETSC_DEFAULT, &P[t]));
  PetscCall(Compare(P[0], P[1], "behind: MatPtAP reused"));
  /* a factorization (ILU, of each process's block on several), set up again after new values */
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatCreateVecs(M[t], &x[t], &b[t]));
    PetscCall(PCCreate(PETSC_COMM_WORLD, &pc[t]));
    PetscCall(PCSetType(pc[t], size == 1 ? PCILU : PCBJACOBI));
    PetscCall(PCSetOperators(pc[t], M[t], M[t]));
  }
  PetscCall(VecSetRandom(b[0], NULL));
  PetscCall(VecCopy(b[0], b[1]));
  for (PetscInt k = 0; k < 2; k++) {
    PetscReal nd, na;

    PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
    for (PetscInt t = 0; t < 2; t++) {
      PetscCall(PCSetUp(pc[t]));
      PetscCall(PCApply(pc[t], b[t], x[t]));
    }
    PetscCall(VecCopy(x[1], b[1])); /* onto the same kind of vector as x[0] */
    PetscCall(VecCopy(x[0], x[1]));
    PetscCall(TestDiffNorms(x[0], b[1], NORM_2, &nd, &na));
    PetscCheck(nd <= 1e-12 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "behind: the factorization's solution differs from AIJ's by %g (relative)",
               (double)(nd / na));
    PetscCall(VecCopy(b[0], b[1]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "behind: a factorization made and made again, solutions equal\n"));
  /* zeroed rows, diagonal scaling, submatrices */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatSetOption(M[t], MAT_KEEP_NONZERO_PATTERN, PETSC_TRUE)); /* the pattern COO assembly was given */
    PetscCall(MatZeroRows(M[t], re > rs ? 1 : 0, &rs, 3.0, NULL, NULL));
  }
  PetscCall(Compare(M[0], M[1], "behind: MatZeroRows"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatCreateVecs(M[t], &r[t], &l[t]));
    PetscCall(VecSet(l[t], 2.0));
    PetscCall(VecSet(r[t], 0.5));
    PetscCall(VecSetValue(r[t], rs, 4.0, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(r[t]));
    PetscCall(VecAssemblyEnd(r[t]));
    PetscCall(MatDiagonalScale(M[t], l[t], r[t]));
  }
  PetscCall(Compare(M[0], M[1], "behind: MatDiagonalScale"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  PetscCall(ISCreateStride(PETSC_COMM_WORLD, (re - rs) / 2, rs, 2, &is));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatCreateSubMatrix(M[t], is, is, MAT_INITIAL_MATRIX, &S[t]));
  PetscCall(Compare(S[0], S[1], "behind: MatCreateSubMatrix"));
  /* COO again while behind: added to, and host values */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  PetscCall(SetBoth(M, dv, rank, nc, round++, ADD_VALUES));
  PetscCall(Compare(M[0], M[1], "behind: MatSetValuesCOO from device memory with ADD_VALUES"));
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  {
    PetscScalar *v;

    PetscCall(PetscMalloc1(nc, &v));
    for (PetscCount k = 0; k < nc; k++) v[k] = Value(rank, k, round) + 10;
    for (PetscInt t = 0; t < 2; t++) PetscCall(MatSetValuesCOO(M[t], v, ADD_VALUES));
    PetscCall(PetscFree(v));
  }
  PetscCall(Compare(M[0], M[1], "behind: MatSetValuesCOO from host memory with ADD_VALUES"));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatDestroy(&D[t]));
    PetscCall(MatDestroy(&T[t]));
    PetscCall(MatDestroy(&C[t]));
    PetscCall(MatDestroy(&P[t]));
    PetscCall(MatDestroy(&S[t]));
    PetscCall(PCDestroy(&pc[t]));
    PetscCall(VecDestroy(&x[t]));
    PetscCall(VecDestroy(&b[t]));
    PetscCall(VecDestroy(&l[t]));
    PetscCall(VecDestroy(&r[t]));
  }
  PetscCall(ISDestroy(&is));
  /* values stored while behind, and given back after newer ones (the device copy too) */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) {
    PetscCall(MatSetOption(M[t], MAT_NEW_NONZERO_LOCATIONS, PETSC_FALSE));
    PetscCall(MatStoreValues(M[t]));
  }
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatRetrieveValues(M[t]));
  PetscCall(Compare(M[0], M[1], "behind: MatStoreValues and MatRetrieveValues"));
  /* destroyed while behind */
  PetscCall(SetBoth(M, dv, rank, nc, round++, INSERT_VALUES));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt     n = 60, nl, rs = 0;
  char         type[64] = "ellrcuda";
  PetscBool    outside = PETSC_FALSE, repattern = PETSC_FALSE, idle = PETSC_FALSE, behind = PETSC_FALSE, isdev;
  Mat          M[2];
  Vec          dv;
  PetscMPIInt  rank, size;
  PetscScalar *v, *a;
  PetscCount   nc = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-outside", &outside, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-repattern", &repattern, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-idle", &idle, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-behind", &behind, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nl = n / size + (rank < n % size ? 1 : 0);
  PetscCallMPI(MPI_Exscan(&nl, &rs, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (!rank) rs = 0;
  for (PetscInt t = 0; t < 2; t++) { /* M[0] AIJ, the oracle; M[1] the device type */
    PetscInt *ci, *cj, lo = rs, hi = rs + nl;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &M[t]));
    PetscCall(MatSetSizes(M[t], nl, nl, n, n));
    PetscCall(MatSetType(M[t], t ? type : MATAIJ));
    if (idle && size > 1) { /* process 0 idle, its rows' entries all another process's */
      if (rank == 0) hi = lo;
      if (rank == size - 1) lo = 0;
    }
    PetscCall(Entries(lo, hi, n, (PetscBool)(t && outside), &nc, &ci, &cj));
    PetscCall(MatSetPreallocationCOO(M[t], nc, ci, cj));
    PetscCall(PetscFree2(ci, cj));
  }
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M[1], &isdev, MATSEQELLRCUDA, MATMPIELLRCUDA, MATSEQDIACUDA, MATMPIDIACUDA, ""));
  PetscCheck(isdev, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "COO preallocation lost the device type");
  PetscCall(PetscMalloc1(nc, &v));
  for (PetscInt round = 0; round < 2; round++) {
    for (PetscCount k = 0; k < nc; k++) v[k] = Value(rank, k, round);
    for (PetscInt t = 0; t < 2; t++) PetscCall(MatSetValuesCOO(M[t], v, round ? ADD_VALUES : INSERT_VALUES));
    PetscCall(Compare(M[0], M[1], round ? "ADD_VALUES on the same pattern" : "INSERT_VALUES"));
  }
  for (PetscCount k = 0; k < nc; k++) v[k] = -Value(rank, k, 2);
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatSetValuesCOO(M[t], v, INSERT_VALUES));
  PetscCall(Compare(M[0], M[1], "new values, INSERT_VALUES"));
  /* MatZeroRows() of no rows moves the nonzero state on (SEQAIJ's does whatever it removes): the
     pattern is the same, and MatSetValuesCOO() takes new values */
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatZeroRows(M[t], 0, NULL, 1.0, NULL, NULL));
  for (PetscCount k = 0; k < nc; k++) v[k] = Value(rank, k, 3);
  for (PetscInt t = 0; t < 2; t++) PetscCall(MatSetValuesCOO(M[t], v, INSERT_VALUES));
  PetscCall(Compare(M[0], M[1], "MatZeroRows() of no rows, then INSERT_VALUES"));
  if (repattern) { /* a nonzero the entries do not have: MatSetValuesCOO() must refuse */
    PetscCall(MatSetOption(M[1], MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatSetValue(M[1], rs, (rs + n / 2) % n, 1.0, INSERT_VALUES));
    PetscCall(MatAssemblyBegin(M[1], MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(M[1], MAT_FINAL_ASSEMBLY));
    PetscCall(MatSetValuesCOO(M[1], v, INSERT_VALUES));
  }
  /* values in device memory: a device vector's array (the host backend's "device" memory alike) */
  PetscCall(VecCreate(PETSC_COMM_SELF, &dv));
  PetscCall(VecSetSizes(dv, nc, nc));
  PetscCall(VecSetType(dv, VECGKCUDA));
  for (PetscInt round = 3; round < 5; round++) {
    PetscGPUKitTransferCounts c0, c1;
    const PetscScalar        *d;
    Vec                       diag;

    PetscCall(VecGetArrayWrite(dv, &a));
    for (PetscCount k = 0; k < nc; k++) v[k] = a[k] = Value(rank, k, round);
    PetscCall(VecRestoreArrayWrite(dv, &a));
    if (round == 4) /* the values added to changed on the host */
      for (PetscInt t = 0; t < 2; t++) PetscCall(MatScale(M[t], 2.0));
    PetscCall(MatCreateVecs(M[1], NULL, &diag));
    PetscCall(VecGPUKitGetDeviceArrayRead(dv, &d));
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(MatSetValuesCOO(M[1], d, round == 3 ? INSERT_VALUES : ADD_VALUES));
    PetscCall(MatGetDiagonal(M[1], diag)); /* a device operation: the device copy must be current */
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(dv, &d));
    PetscCall(VecDestroy(&diag));
    /* one process: summed on the device, the host values left behind (nothing copied down); an
       INSERT sends nothing up, an ADD after MatScale() the host's values only */
    if (size == 1)
      PetscCheck(c1.h2d_count - c0.h2d_count == (round == 3 ? 0 : 1) && c1.d2h_count - c0.d2h_count == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "MatSetValuesCOO() with device values copied %g times to the device and %g times to the host", c1.h2d_count - c0.h2d_count,
                 c1.d2h_count - c0.d2h_count);
    /* several: an INSERT sends up only the sums of other processes' entries of this one's rows
       and down only its entries of other processes' rows (at most 7 nonzeros, (i + 7, i)), not
       the blocks' values */
    else if (round == 3 && !idle)
      PetscCheck(c1.h2d_bytes - c0.h2d_bytes <= 7 * sizeof(PetscScalar) && c1.d2h_bytes - c0.d2h_bytes <= 7 * sizeof(PetscScalar), PETSC_COMM_SELF,
                 PETSC_ERR_PLIB,
                 "MatSetValuesCOO() with device values on %d processes copied %g bytes to the device and %g to the host, more than the entries "
                 "crossing between processes",
                 (int)size, c1.h2d_bytes - c0.h2d_bytes, c1.d2h_bytes - c0.d2h_bytes);
    PetscCall(MatSetValuesCOO(M[0], v, round == 3 ? INSERT_VALUES : ADD_VALUES));
    PetscCall(Compare(M[0], M[1], round == 3 ? "device values, INSERT_VALUES" : "device values, ADD_VALUES after MatScale"));
  }
  if (behind) PetscCall(Behind(M, dv, rank, size, nc));
  PetscCall(VecDestroy(&dv));
  PetscCall(PetscFree(v));
  PetscCall(MatDestroy(&M[0]));
  PetscCall(MatDestroy(&M[1]));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # host values on both backends, 1 to 3 processes (the device copy rebuilt after each
  # MatSetValuesCOO, values only on the same pattern)
  test:
    nsize: {{1 2 3}shared output}
    args: -type {{ellrcuda diacuda}shared output} -gpukit_backend {{host cuda}shared output}

  # values from device memory left on the device; every host operation after that sees them
  test:
    suffix: behind
    nsize: {{1 2 3}shared output}
    args: -type {{ellrcuda diacuda}shared output} -behind -gpukit_backend {{host cuda}shared output}

  # process 0 with no entries, all of its rows' entries sent by another process
  test:
    suffix: idle
    nsize: {{2 3}shared output}
    args: -type {{ellrcuda diacuda}shared output} -idle -gpukit_backend {{host cuda}shared output}

  # an index past the matrix: a PETSc error naming the entry, not a write past PETSc's arrays
  test:
    suffix: outside
    nsize: {{1 2}shared output}
    exit: nonzero
    args: -type ellrcuda -outside
    filter: grep -o "outside the 60 x 60 matrix" | head -1

  # a nonzero added after MatSetPreallocationCOO(): MatSetValuesCOO() says to call it again
  test:
    suffix: repattern
    exit: nonzero
    args: -type {{ellrcuda diacuda}shared output} -repattern
    filter: grep -o "changed after MatSetPreallocationCOO()" | head -1

TEST*/

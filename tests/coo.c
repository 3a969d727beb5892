static char help[] = "COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of the device matrices against AIJ's,\n\
1 to 3 processes: repeated pairs summed, negative indices dropped, entries of other processes'\n\
rows, INSERT_VALUES and ADD_VALUES, new values on the same pattern; an index past the matrix is\n\
an error; values in device memory (a device vector's array), summed on the device with no copy\n\
to the device on one process, and only the other processes' sums on several; MatSetValuesCOO()\n\
after the pattern changed is an error.\n\
  -type <type> : ellrcuda or diacuda\n\
  -n <n>       : rows (default 60)\n\
  -outside     : give one entry a column past the matrix (the error)\n\
  -repattern   : add a nonzero after the first values, then set values again (the error)\n\
  -idle        : process 0 gives no entries; the last process gives those of process 0's rows\n\n";

#include <petscgpukit.h>
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
  PetscBool eq;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCopy(x, xb));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecCopy(yb, x)); /* B's result on a host vector */
  PetscCall(TestDiffNorms(y, x, NORM_2, &nd, &na));
  PetscCheck(nd <= 1e-13 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the device matrix's product differs from AIJ's by %g (relative)", what, (double)(nd / na));
  /* the host matrix underneath, entry by entry (the sums are exact) */
  PetscCall(MatEqual(A, B, &eq));
  PetscCheck(eq, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the device matrix's host entries differ from AIJ's", what);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: products and entries equal\n", what));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xb));
  PetscCall(VecDestroy(&yb));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt     n = 60, nl, rs = 0;
  char         type[64] = "ellrcuda";
  PetscBool    outside = PETSC_FALSE, repattern = PETSC_FALSE, idle = PETSC_FALSE, isdev;
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
    /* one process: summed on the device, the host matrix given the sums (one copy down); an
       INSERT sends nothing up, an ADD after MatScale() the host's values only */
    if (size == 1)
      PetscCheck(c1.h2d_count - c0.h2d_count == (round == 3 ? 0 : 1) && c1.d2h_count - c0.d2h_count == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSetValuesCOO() with device values copied %g times to the device and %g times to the host", c1.h2d_count - c0.h2d_count, c1.d2h_count - c0.d2h_count);
    /* several: an INSERT sends up only the sums of other processes' entries of this one's rows
       (at most 7 nonzeros, (i + 7, i)), not the blocks' values */
    else if (round == 3 && !idle)
      PetscCheck(c1.h2d_bytes - c0.h2d_bytes <= 7 * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatSetValuesCOO() with device values on %d processes copied %g bytes to the device, more than the other processes' sums", (int)size, c1.h2d_bytes - c0.h2d_bytes);
    PetscCall(MatSetValuesCOO(M[0], v, round == 3 ? INSERT_VALUES : ADD_VALUES));
    PetscCall(Compare(M[0], M[1], round == 3 ? "device values, INSERT_VALUES" : "device values, ADD_VALUES after MatScale"));
  }
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

static char help[] = "COO assembly (MatSetPreallocationCOO, MatSetValuesCOO) of the device matrices against AIJ's,\n\
1 to 3 processes: repeated pairs summed, negative indices dropped, entries of other processes'\n\
rows, INSERT_VALUES and ADD_VALUES, new values on the same pattern; an index past the matrix is\n\
an error.\n\
  -type <type> : ellrcuda or diacuda\n\
  -n <n>       : rows (default 60)\n\
  -outside     : give one entry a column past the matrix (the error)\n\n";

#include <petscgpukit.h>

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

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(B, &xb, &yb));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(VecCopy(x, xb));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMult(B, xb, yb));
  PetscCall(VecCopy(yb, x)); /* B's result on a host vector */
  PetscCall(VecAXPY(x, -1.0, y));
  PetscCall(VecNorm(x, NORM_2, &nd));
  PetscCall(VecNorm(y, NORM_2, &na));
  PetscCheck(nd <= 1e-13 * na, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: the device matrix's product differs from AIJ's by %g (relative)", what, (double)(nd / na));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: products equal\n", what));
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
  PetscBool    outside  = PETSC_FALSE, isdev;
  Mat          M[2];
  PetscMPIInt  rank, size;
  PetscScalar *v;
  PetscCount   nc = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-outside", &outside, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nl = n / size + (rank < n % size ? 1 : 0);
  PetscCallMPI(MPI_Exscan(&nl, &rs, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (!rank) rs = 0;
  for (PetscInt t = 0; t < 2; t++) { /* M[0] AIJ, the oracle; M[1] the device type */
    PetscInt *ci, *cj;

    PetscCall(MatCreate(PETSC_COMM_WORLD, &M[t]));
    PetscCall(MatSetSizes(M[t], nl, nl, n, n));
    PetscCall(MatSetType(M[t], t ? type : MATAIJ));
    PetscCall(Entries(rs, rs + nl, n, (PetscBool)(t && outside), &nc, &ci, &cj));
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

  # an index past the matrix: a PETSc error naming the entry, not a write past PETSc's arrays
  test:
    suffix: outside
    nsize: {{1 2}shared output}
    exit: nonzero
    args: -type ellrcuda -outside
    filter: grep -o "outside the 60 x 60 matrix" | head -1

TEST*/

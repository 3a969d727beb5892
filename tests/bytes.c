static char help[] = "The bytes the device counts for its vector operations and products (PetscGPUKitDeviceCounts):\n\
each the least the operation moves, on either backend.\n\
  -type <type> : ellrcuda or diacuda\n\
  -n <n>       : the length (default 1000)\n\
  -logged      : with PETSc's log on, count the waits of a vector operation and a product\n\n";

/*
   One operation at a time, the count's change against the operation's own arrays: a vector
   operation reads each input and writes its output once (8 bytes an entry, real); a product
   reads the matrix (ELLPACK-R: each nonzero's value and column, 2 bytes a column where the
   format stores 16-bit offsets, and a 4-byte row length a row; DIA: each stored diagonal whole
   and its offset), x once and writes y once (reads it too when adding).
*/
#include <petscgpukit.h>

static PetscErrorCode Bytes(PetscLogDouble *b)
{
  PetscGPUKitDeviceCounts c;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitGetDeviceCounts(&c));
  *b = c.bytes;
  PetscFunctionReturn(0);
}

/* the change since *b0 is want; *b0 moves on */
static PetscErrorCode Expect(PetscLogDouble *b0, double want, const char *what)
{
  PetscLogDouble b;

  PetscFunctionBegin;
  PetscCall(Bytes(&b));
  PetscCheck(b - *b0 == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: %.0f bytes counted, %.0f expected", what, (double)(b - *b0), want);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: counted as expected\n", what)); /* the figures depend on the scalar's size */
  *b0 = b;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt       n = 1000, nnz = 0;
  char           type[64] = "ellrcuda";
  PetscBool      dia;
  Mat            A;
  Vec            x, y, w, v[3];
  PetscScalar    r[3];
  PetscReal      nrm;
  PetscLogDouble b0;
  const double   S = sizeof(PetscScalar);

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscStrcmp(type, MATDIACUDA, &dia));

  /* the 1D Laplacian: 3 diagonals, 3n - 2 nonzeros */
  PetscCall(MatCreate(PETSC_COMM_SELF, &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetType(A, type));
  PetscCall(MatSeqAIJSetPreallocation(A, 3, NULL));
  for (PetscInt i = 0; i < n; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    nnz += 1 + (i > 0) + (i < n - 1);
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(x, &w));
  for (PetscInt k = 0; k < 3; k++) PetscCall(VecDuplicate(x, &v[k]));

  PetscCall(Bytes(&b0));
  PetscCall(VecSet(x, 1.0));
  PetscCall(Expect(&b0, 0, "VecSet of a new vector (its value kept, set where first needed)"));
  PetscCall(VecSum(x, &r[0])); /* not VecNorm: VecSet() left x's norms cached */
  PetscCall(Expect(&b0, S * n * 2, "VecSum of it (the value set, then read)"));
  PetscCall(VecSet(x, 2.0));
  PetscCall(Expect(&b0, S * n, "VecSet"));
  PetscCall(VecSet(x, 2.0));
  PetscCall(Expect(&b0, 0, "VecSet of the value every entry holds (nothing written since)"));
  PetscCall(VecSet(y, 2.0));
  PetscCall(VecAXPY(y, 3.0, x));
  PetscCall(Expect(&b0, S * n * (1 + 3), "VecSet, VecAXPY"));
  PetscCall(VecAXPBYPCZ(w, 1.0, 2.0, 0.0, x, y));
  PetscCall(Expect(&b0, S * n * 3, "VecAXPBYPCZ (gamma 0)"));
  PetscCall(VecPointwiseMult(w, x, y));
  PetscCall(Expect(&b0, S * n * 3, "VecPointwiseMult"));
  PetscCall(VecCopy(y, w));
  PetscCall(Expect(&b0, S * n * 2, "VecCopy"));
  PetscCall(VecNorm(w, NORM_2, &nrm));
  PetscCall(Expect(&b0, S * n, "VecNorm"));
  for (PetscInt k = 0; k < 3; k++) PetscCall(VecCopy(y, v[k]));
  PetscCall(Bytes(&b0));
  PetscCall(VecMDot(x, 3, v, r));
  PetscCall(Expect(&b0, S * n * 4, "VecMDot (3)"));
  PetscCall(VecMAXPY(w, 3, r, v));
  PetscCall(Expect(&b0, S * n * 5, "VecMAXPY (3)"));

  /* the device copies built first (a build is not a product) */
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMultTranspose(A, x, w));
  PetscCall(Bytes(&b0));
  {
    const double ib = sizeof(PetscInt), mat = dia ? 3 * (ib + S * n) : nnz * (S + 2) + ib * n;

    PetscCall(MatMult(A, x, y));
    PetscCall(Expect(&b0, mat + S * 2 * n, "MatMult"));
    PetscCall(MatMultAdd(A, x, y, y));
    PetscCall(Expect(&b0, mat + S * 3 * n, "MatMultAdd (y = y + A x)"));
    PetscCall(MatMultAdd(A, x, y, w));
    PetscCall(Expect(&b0, mat + S * 3 * n, "MatMultAdd (w = y + A x, read in the product's pass)"));
    PetscCall(MatResidual(A, w, x, y));
    PetscCall(Expect(&b0, mat + S * 3 * n, "MatResidual (y = w - A x, one pass)"));
    PetscCall(MatMultTranspose(A, x, w));
    PetscCall(Expect(&b0, mat + S * 2 * n, "MatMultTranspose"));
  }
  { /* COO assembly from device values: the lists (jmap, perm), the values, the sums written */
    Mat                B;
    Vec                cv;
    PetscInt          *ci, *cj;
    const PetscScalar *d;
    const PetscInt     nc = 3 * n - 1, nz = 2 * n - 1; /* (i, i) twice, (i, i + 1) */

    PetscCall(PetscMalloc2(nc, &ci, nc, &cj));
    for (PetscInt i = 0, c = 0; i < n; i++)
      for (PetscInt k = 0; k < (i < n - 1 ? 3 : 2); k++, c++) {
        ci[c] = i;
        cj[c] = k == 2 ? i + 1 : i;
      }
    PetscCall(MatCreate(PETSC_COMM_SELF, &B));
    PetscCall(MatSetSizes(B, n, n, n, n));
    PetscCall(MatSetType(B, type));
    PetscCall(MatSetPreallocationCOO(B, nc, ci, cj));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(VecCreate(PETSC_COMM_SELF, &cv));
    PetscCall(VecSetSizes(cv, nc, nc));
    PetscCall(VecSetType(cv, VECGKCUDA));
    PetscCall(VecSet(cv, 1.0));
    PetscCall(VecGPUKitGetDeviceArrayRead(cv, &d));
    PetscCall(MatSetValuesCOO(B, d, INSERT_VALUES)); /* the device copy built first */
    PetscCall(Bytes(&b0));
    PetscCall(MatSetValuesCOO(B, d, INSERT_VALUES));
    PetscCall(Expect(&b0, (double)sizeof(PetscCount) * (nz + 1 + nc) + S * (nc + nz), "MatSetValuesCOO"));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(cv, &d));
    PetscCall(VecDestroy(&cv));
    PetscCall(MatDestroy(&B));
  }
  /* -logged: with PETSc's log on, the library's events wait for the device (one wait a vector
     operation or product) only under PETSc's -log_view_gpu_time, as PETSc's own GPU types do */
  {
    PetscBool               logged = PETSC_FALSE, gputime;
    PetscGPUKitDeviceCounts c0, c1;

    PetscCall(PetscOptionsGetBool(NULL, NULL, "-logged", &logged, NULL));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-log_view_gpu_time", &gputime));
    if (logged) {
      PetscCall(PetscLogDefaultBegin());
      PetscCall(PetscGPUKitGetDeviceCounts(&c0));
      PetscCall(VecAXPY(y, 2.0, x));
      PetscCall(MatMult(A, x, y));
      PetscCall(PetscGPUKitGetDeviceCounts(&c1));
      PetscCheck(c1.syncs - c0.syncs == (gputime ? 2 : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "VecAXPY and MatMult under the log waited %.0f times for the device, %d expected", (double)(c1.syncs - c0.syncs), gputime ? 2 : 0);
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "VecAXPY and MatMult under the log: %s\n", gputime ? "each waits for the device" : "no wait"));
    }
  }
  for (PetscInt k = 0; k < 3; k++) PetscCall(VecDestroy(&v[k]));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # each count the least its operation moves, the same on both backends (ELLPACK-R stores this
  # matrix's columns as 16-bit offsets)
  test:
    args: -type {{ellrcuda diacuda}separate output} -gpukit_backend {{host cuda}shared output}

  # under PETSc's log the events wait for the device only with -log_view_gpu_time
  testset:
    args: -type ellrcuda -logged -gpukit_backend {{host cuda}shared output}
    filter: grep "under the log"
    test:
      suffix: log_async
    test:
      suffix: log_gpu_time
      args: -log_view_gpu_time

TEST*/

static char help[] = "Matrices no user laid out in the device formats (a transpose, an operator of a few long rows or\n\
columns): each stored in a layout that fits, its products equal to AIJ's, on 1 to 3 processes.\n\
  -type <ellrcuda,diacuda> : the device type\n\
  -square <bool>           : the square case too\n\n";

/*
   The fill limit (-mat_ellrcuda_max_fill) holds a layout the user chose; where the library
   chooses, it must find one that fits: ELLPACK-R stores one row a slice, no padding, where the
   paper's single slice and sorted slices of 32 rows would exceed the limit. Each case makes the
   matrix as AIJ and as the device type and compares every product on random vectors (the
   transposed products read a transposed copy the library makes itself):
   - a 30 x 45 matrix of one to three entries a row and three long columns, and its MatTranspose;
   - 30 rows, one of them of 23 entries, the others of one.
   DIA has no layout to choose: a rectangular matrix whose diagonals would exceed its fill limit
   (PCGAMG's tentative prolongator, PCFIELDSPLIT's blocks of columns, which PETSc makes in the
   operator's type) is made ELLPACK-R at its assembly; a square one is the user's, and keeps DIA.
   Prints one verdict line a case, with the device matrix's type.
*/
#include <petscgpukit.h>
#include "testutil.h"

/* ||y1 - y2|| <= 1e-13 ||y1|| */
static PetscErrorCode Same(Vec y1, Vec y2, const char *what)
{
  PetscReal nd, n1;

  PetscFunctionBegin;
  PetscCall(TestDiffNorms(y1, y2, NORM_2, &nd, &n1));
  PetscCheck(nd <= 1e-13 * n1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: ||difference|| %g of ||AIJ's|| %g", what, (double)nd, (double)n1);
  PetscFunctionReturn(0);
}

/* B's products against A's: y = B x, y = B^T x, y = B x + z; the verdict, with B's type */
static PetscErrorCode Products(Mat A, Mat B, const char *what)
{
  MatType     type;
  Vec         x, y1, y2, xt, yt1, yt2;
  PetscRandom rnd;
  char        msg[128];

  PetscFunctionBegin;
  PetscCall(PetscRandomCreate(PetscObjectComm((PetscObject)A), &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 11));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(MatCreateVecs(B, &x, &y2));
  PetscCall(MatCreateVecs(B, &yt2, &xt));
  PetscCall(VecDuplicate(y2, &y1));
  PetscCall(VecDuplicate(yt2, &yt1));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(VecSetRandom(xt, rnd));
  PetscCall(MatMult(A, x, y1));
  PetscCall(MatMult(B, x, y2));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s, MatMult", what));
  PetscCall(Same(y1, y2, msg));
  PetscCall(MatMultAdd(A, x, y1, y1));
  PetscCall(MatMultAdd(B, x, y2, y2));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s, MatMultAdd", what));
  PetscCall(Same(y1, y2, msg));
  PetscCall(MatMultTranspose(A, xt, yt1));
  PetscCall(MatMultTranspose(B, xt, yt2));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s, MatMultTranspose", what));
  PetscCall(Same(yt1, yt2, msg));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(VecDestroy(&xt));
  PetscCall(VecDestroy(&yt1));
  PetscCall(VecDestroy(&yt2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(MatGetType(B, &type));
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)A), "%s, %s: products equal\n", what, type));
  PetscFunctionReturn(0);
}

/* m x n: row r has its entry (r, r % n), and one at (r, (7 r + 3) % n) on even rows and entries in
   columns 0, 1 and 2 on every third (longcols: long columns); or else row 5 of 23 entries (longrow) */
static PetscErrorCode Build(MatType type, PetscInt m, PetscInt n, PetscBool longcols, PetscBool longrow, Mat *A)
{
  PetscInt rs, re;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, m, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, 26, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, 26, NULL, 26, NULL));
  PetscCall(MatGetOwnershipRange(*A, &rs, &re));
  for (PetscInt r = rs; r < re; r++) {
    PetscCall(MatSetValue(*A, r, r % n, 2.0 + r, ADD_VALUES));
    if (!longrow && r % 2 == 0) PetscCall(MatSetValue(*A, r, (7 * r + 3) % n, -1.0, ADD_VALUES));
    if (longcols && r % 3 == 0)
      for (PetscInt c = 0; c < 3; c++) PetscCall(MatSetValue(*A, r, c, 0.5 + c, ADD_VALUES));
    if (longrow && r == 5)
      for (PetscInt c = 0; c < 23; c++) PetscCall(MatSetValue(*A, r, (c * 13) % n, 0.25 * c - 1.0, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      type[64] = MATELLRCUDA;
  Mat       A, B, At, Bt;
  PetscBool square = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-square", &square, NULL));
  /* 30 x 45 with long columns, then its transpose */
  PetscCall(Build(MATAIJ, 30, 45, PETSC_TRUE, PETSC_FALSE, &A));
  PetscCall(Build(type, 30, 45, PETSC_TRUE, PETSC_FALSE, &B));
  PetscCall(Products(A, B, "30 x 45, long columns"));
  PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
  PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &Bt));
  PetscCall(Products(At, Bt, "its MatTranspose (long rows)"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&At));
  PetscCall(MatDestroy(&Bt));
  if (square) { /* 30 rows, one of 23 entries */
    PetscCall(Build(MATAIJ, 30, 30, PETSC_FALSE, PETSC_TRUE, &A));
    PetscCall(Build(type, 30, 30, PETSC_FALSE, PETSC_TRUE, &B));
    PetscCall(Products(A, B, "30 rows, one of 23 entries"));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # ELLPACK-R's own layout for what nobody laid out
  test:
    nsize: {{1 2 3}separate output}
    args: -type ellrcuda
  # DIA where its diagonals fit (-mat_diacuda_max_fill accepts their padding)
  test:
    suffix: dia
    nsize: {{1 2 3}separate output}
    args: -type diacuda -mat_diacuda_max_fill 1e3
  # and where they do not: the rectangular matrices made ELLPACK-R
  test:
    suffix: dia_rect
    nsize: {{1 2 3}separate output}
    args: -type diacuda -square 0

TEST*/

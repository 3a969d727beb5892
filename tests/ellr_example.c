static char help[] = "The ELLPACK-R example of Michels, 5.3.1, by hand: the arrays and the products, exactly;\n\
and the same matrix in DIA storage.\n\n";

#include <petscgpukit.h>
#include "mat/impls/gk/gkmat.h"

/*
       ( 1 3 0 )                 ( 1 3 )       ( 0 1 )        ( 2 )
   A = ( 0 1 1 )   Nz = 2,  A = ( 1 1 ),  j = ( 1 2 ),  rl = ( 2 )
       ( 4 0 0 )                 ( 4 * )       ( 0 * )        ( 1 )
       ( 0 0 2 )                 ( 2 * )       ( 2 * )        ( 1 )
   stored column-major, * as zeros (Michels, 5.3.1); with 16-bit columns (MatELLRCUDASetShortColumns)
   j holds each column minus its row, ( 0 1 | 0 1 | -2 * | -1 * ), and col is NULL
*/
static const PetscInt    rl_ref[4]   = {2, 2, 1, 1};
static const PetscInt    col_ref[8]  = {0, 1, 0, 2, 1, 2, 0, 0};
static const PetscScalar val_ref[8]  = {1, 1, 4, 2, 3, 1, 0, 0};
static const short       dcol_ref[8] = {0, 0, -2, -1, 1, 1, 0, 0};

static PetscErrorCode BuildExample(PetscBool dia, Mat *A)
{
  const PetscInt    r[6] = {0, 0, 1, 1, 2, 3}, c[6] = {0, 1, 1, 2, 0, 2};
  const PetscScalar v[6] = {1, 3, 1, 1, 4, 2};

  PetscFunctionBegin;
  if (dia) PetscCall(MatCreateSeqDIACUDA(PETSC_COMM_SELF, 4, 3, 2, NULL, A));
  else PetscCall(MatCreateSeqELLRCUDA(PETSC_COMM_SELF, 4, 3, 2, NULL, A));
  for (PetscInt k = 0; k < 6; k++) PetscCall(MatSetValue(*A, r[k], c[k], v[k], INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* y = A x and A^T w with small integers: exact in floating point */
static PetscErrorCode CheckProductsExact(Mat A)
{
  const PetscScalar  xv[3] = {1, 2, 3}, wv[4] = {1, -1, 2, 1};
  const PetscScalar  yref[4] = {7, 5, 4, 6}, tref[3] = {9, 2, 1}, dref[4] = {1, 1, 0, 0};
  Vec                x, y, w, t, d;
  const PetscScalar *ya, *ta, *da;
  const PetscInt     idx[4] = {0, 1, 2, 3};

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecDuplicate(y, &w));
  PetscCall(VecDuplicate(y, &d));
  PetscCall(VecDuplicate(x, &t));
  PetscCall(VecSetValues(x, 3, idx, xv, INSERT_VALUES));
  PetscCall(VecSetValues(w, 4, idx, wv, INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(VecAssemblyBegin(w));
  PetscCall(VecAssemblyEnd(w));
  PetscCall(MatMult(A, x, y));
  PetscCall(MatMultTranspose(A, w, t));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(t, &ta));
  PetscCall(VecGetArrayRead(d, &da));
  for (PetscInt i = 0; i < 4; i++)
    PetscCheck(ya[i] == yref[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "(A x)[%" PetscInt_FMT "] = %g, not %g", i, (double)PetscRealPart(ya[i]),
               (double)PetscRealPart(yref[i]));
  for (PetscInt i = 0; i < 3; i++)
    PetscCheck(ta[i] == tref[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "(A^T w)[%" PetscInt_FMT "] = %g, not %g", i, (double)PetscRealPart(ta[i]),
               (double)PetscRealPart(tref[i]));
  for (PetscInt i = 0; i < 4; i++)
    PetscCheck(da[i] == dref[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "diag[%" PetscInt_FMT "] = %g, not %g", i, (double)PetscRealPart(da[i]),
               (double)PetscRealPart(dref[i]));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(t, &ta));
  PetscCall(VecRestoreArrayRead(d, &da));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* A limit just under the example's fill (stored / nonzeros) refuses it at the next product;
   one just above accepts it again */
static PetscErrorCode CheckFillLimit(Mat A, PetscErrorCode (*setfill)(Mat, PetscReal), PetscReal fill)
{
  Vec            x, y;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(setfill(A, fill - 0.01));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(A, x, y);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(ierr == PETSC_ERR_SUP, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A fill limit of %g did not refuse fill %g (error %d)", (double)(fill - 0.01),
             (double)fill, (int)ierr);
  PetscCall(setfill(A, fill + 0.01));
  PetscCall(MatMult(A, x, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* ELLPACK-R's layout chosen by the library always fits: under a limit below the paper's single
   slice's fill, one row a slice (h 1, no padding), with the same products; the limit refuses
   the same slice where the user set it (slice height 0) */
static PetscErrorCode CheckFillLimitELLR(Mat A, PetscReal fill)
{
  const GKEllr *E;

  PetscFunctionBegin;
  PetscCall(MatELLRCUDASetMaxFill(A, fill - 0.01));
  PetscCall(CheckProductsExact(A));
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL));
  PetscCheck(E->h == 1, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "Under a fill limit of %g the library's layout is slices of %" PetscInt_FMT " rows, not one row a slice", (double)(fill - 0.01), E->h);
  PetscCall(MatELLRCUDASetMaxFill(A, fill + 0.01));
  PetscCall(MatELLRCUDASetSliceHeight(A, 0));
  PetscCall(CheckFillLimit(A, MatELLRCUDASetMaxFill, fill));
  PetscFunctionReturn(0);
}

/* A row of GK_ELLR_WIDE or more entries makes its slice wide (device.h): row 0 of this 4 x 40
   matrix holds 35, A(0, j) = j + 1 for j < 35; row 1 holds A(1, 0) = 1, A(1, 39) = 2; rows 2
   and 3 hold A(2, 5) = 3 and A(3, 1) = 4. Sliced, h = 2: slice 0 is wide, rows 0 and 1 one after
   the other without padding (entries 0-34, 35-36), the slice rounded up to a multiple of h
   entries (to 38, so that every slice starts at a multiple of h), slice 1 column-major from 38. The paper's
   layout (h0 = 0): one wide slice, each row padded to Nz = 35. The arrays are checked, and the
   products against AIJ's, exactly (small integers). Row 1 starts at 35 either way. */
static PetscErrorCode CheckWide(PetscInt h0)
{
  const PetscBool    sliced = h0 ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt     total = sliced ? 40 : 140, nwide = sliced ? 2 : 4, ns = sliced ? 2 : 1;
  Mat                A, B;
  const GKEllr      *E;
  PetscInt           sp[3], wfirst[2], wide[4], wptr[4], col[140];
  PetscScalar        val[140];
  Vec                x, y, yb, w, t, tb;
  const PetscScalar *ya, *yba;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, 4, 40, 35, NULL, &B));
  for (PetscInt j = 0; j < 35; j++) PetscCall(MatSetValue(B, 0, j, (PetscScalar)(j + 1), INSERT_VALUES));
  PetscCall(MatSetValue(B, 1, 0, 1.0, INSERT_VALUES));
  PetscCall(MatSetValue(B, 1, 39, 2.0, INSERT_VALUES));
  PetscCall(MatSetValue(B, 2, 5, 3.0, INSERT_VALUES));
  PetscCall(MatSetValue(B, 3, 1, 4.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(B, MATSEQELLRCUDA, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatELLRCUDASetShortColumns(A, PETSC_FALSE));
  PetscCall(MatELLRCUDASetSliceHeight(A, h0));
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL)); /* fill 140/39 in the paper's layout, under the default limit 4 */
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_SELF)); /* its wide slices named (tests/run) */
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCheck(E->nz == 35 && E->nwide == nwide, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "h0 = %" PetscInt_FMT ": Nz %" PetscInt_FMT ", %" PetscInt_FMT " wide slots; expected 35 and %" PetscInt_FMT, h0, E->nz, E->nwide,
             nwide);
  PetscCall(GKMemcpyD2H(sp, E->sliceptr, (size_t)(ns + 1) * sizeof(PetscInt)));
  PetscCall(GKMemcpyD2H(wfirst, E->wfirst, (size_t)ns * sizeof(PetscInt)));
  PetscCall(GKMemcpyD2H(wide, E->wide, (size_t)nwide * sizeof(PetscInt)));
  PetscCall(GKMemcpyD2H(wptr, E->wptr, (size_t)nwide * sizeof(PetscInt)));
  PetscCall(GKMemcpyD2H(col, E->col, (size_t)total * sizeof(PetscInt)));
  PetscCall(GKMemcpyD2H(val, E->val, (size_t)total * sizeof(PetscScalar)));
  PetscCheck(sp[0] == 0 && sp[ns] == total && wfirst[0] == 0 && (!sliced || (sp[1] == 38 && wfirst[1] == -1)), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "h0 = %" PetscInt_FMT ": sliceptr ends at %" PetscInt_FMT " (expected %" PetscInt_FMT "), wfirst[0] = %" PetscInt_FMT, h0, sp[ns], total,
             wfirst[0]);
  for (PetscInt g = 0; g < nwide; g++)
    PetscCheck(wide[g] == g && wptr[g] == 35 * g, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "h0 = %" PetscInt_FMT ": wide slot %" PetscInt_FMT " is %" PetscInt_FMT " from %" PetscInt_FMT, h0, g, wide[g], wptr[g]);
  for (PetscInt k = 0; k < 35; k++)
    PetscCheck(col[k] == k && val[k] == (PetscScalar)(k + 1), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "h0 = %" PetscInt_FMT ": row 0's entry %" PetscInt_FMT " is (%" PetscInt_FMT ", %g)", h0, k, col[k], (double)PetscRealPart(val[k]));
  PetscCheck(col[35] == 0 && val[35] == 1.0 && col[36] == 39 && val[36] == 2.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "h0 = %" PetscInt_FMT ": row 1 does not follow row 0 at 35", h0);
  if (sliced)
    PetscCheck(col[38] == 5 && val[38] == 3.0 && col[39] == 1 && val[39] == 4.0 && val[37] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "rows 2 and 3 are not column-major from 38");
  else
    PetscCheck(col[70] == 5 && val[70] == 3.0 && col[105] == 1 && val[105] == 4.0 && val[37] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "the paper's layout: rows not padded to Nz = 35");
  PetscCall(MatCreateVecs(A, &x, &y));
  PetscCall(MatCreateVecs(A, &t, &w));
  PetscCall(VecDuplicate(y, &yb));
  PetscCall(VecDuplicate(t, &tb));
  for (PetscInt j = 0; j < 40; j++) PetscCall(VecSetValue(x, j, (PetscScalar)(j % 7 - 3), INSERT_VALUES));
  PetscCall(VecAssemblyBegin(x));
  PetscCall(VecAssemblyEnd(x));
  PetscCall(VecSet(yb, 2.0));
  PetscCall(VecCopy(yb, y));
  PetscCall(MatMultAdd(A, x, y, y));
  PetscCall(MatMultAdd(B, x, yb, yb));
  PetscCall(MatGetDiagonal(A, w));
  PetscCall(VecAXPY(y, 1.0, w)); /* the diagonal (1 and 0, 0, 0) in the same sum */
  PetscCall(MatGetDiagonal(B, w));
  PetscCall(VecAXPY(yb, 1.0, w));
  PetscCall(MatMultTranspose(A, yb, t));
  PetscCall(MatMultTranspose(B, yb, tb));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayRead(yb, &yba));
  for (PetscInt i = 0; i < 4; i++)
    PetscCheck(ya[i] == yba[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "h0 = %" PetscInt_FMT ": (y + A x + diag)[%" PetscInt_FMT "] = %g, AIJ's %g", h0, i,
               (double)PetscRealPart(ya[i]), (double)PetscRealPart(yba[i]));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayRead(yb, &yba));
  PetscCall(VecGetArrayRead(t, &ya));
  PetscCall(VecGetArrayRead(tb, &yba));
  for (PetscInt j = 0; j < 40; j++)
    PetscCheck(ya[j] == yba[j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "h0 = %" PetscInt_FMT ": (A^T y)[%" PetscInt_FMT "] = %g, AIJ's %g", h0, j,
               (double)PetscRealPart(ya[j]), (double)PetscRealPart(yba[j]));
  PetscCall(VecRestoreArrayRead(t, &ya));
  PetscCall(VecRestoreArrayRead(tb, &yba));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yb));
  PetscCall(VecDestroy(&w));
  PetscCall(VecDestroy(&t));
  PetscCall(VecDestroy(&tb));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat           A;
  const GKEllr *E, *Et;
  const GKDia  *D;
  PetscInt      rl[4], col[8], off[4];
  PetscScalar   val[16];

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());

  PetscCall(BuildExample(PETSC_FALSE, &A));
  PetscCall(MatELLRCUDASetShortColumns(A, PETSC_FALSE)); /* the paper's 32-bit columns (the default is 16-bit offsets where they fit) */
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, &Et));
  PetscCheck(E->col && !E->dcol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "32-bit columns asked for, and the device copy has %s",
             E->dcol ? "16-bit offsets" : "no columns");
  PetscCheck(E->m == 4 && E->n == 3 && E->nz == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "ELLPACK-R of the example: %" PetscInt_FMT " x %" PetscInt_FMT ", Nz %" PetscInt_FMT "; expected 4 x 3, Nz 2", E->m, E->n, E->nz);
  PetscCheck(!Et, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The transposed copy exists before any transposed product");
  PetscCall(GKMemcpyD2H(rl, E->rl, sizeof(rl)));
  PetscCall(GKMemcpyD2H(col, E->col, sizeof(col)));
  PetscCall(GKMemcpyD2H(val, E->val, 8 * sizeof(PetscScalar)));
  for (PetscInt i = 0; i < 4; i++)
    PetscCheck(rl[i] == rl_ref[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "rl[%" PetscInt_FMT "] = %" PetscInt_FMT ", not %" PetscInt_FMT, i, rl[i],
               rl_ref[i]);
  for (PetscInt k = 0; k < 8; k++) {
    PetscCheck(col[k] == col_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "j[%" PetscInt_FMT "] (column-major) = %" PetscInt_FMT ", not %" PetscInt_FMT,
               k, col[k], col_ref[k]);
    PetscCheck(val[k] == val_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "A[%" PetscInt_FMT "] (column-major) = %g, not %g", k,
               (double)PetscRealPart(val[k]), (double)PetscRealPart(val_ref[k]));
  }
  PetscCall(CheckProductsExact(A));
  /* the transposed copy, 3 x 4: columns of A as rows, Nz = 2 (columns 0 and 2 of A hold two) */
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, &Et));
  PetscCheck(Et && Et->m == 3 && Et->n == 4 && Et->nz == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The transposed copy is not the 3 x 4, Nz 2 matrix A^T");
  PetscCall(CheckFillLimitELLR(A, 8.0 / 6.0));
  {
    PetscInt sp[2];

    PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL));
    PetscCheck(E->h == 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "One slice should be 4 rows high, not %" PetscInt_FMT, E->h);
    PetscCall(GKMemcpyD2H(sp, E->sliceptr, sizeof(sp)));
    PetscCheck(sp[0] == 0 && sp[1] == 8, PETSC_COMM_SELF, PETSC_ERR_PLIB, "One slice of 4 x 2 entries, not %" PetscInt_FMT " to %" PetscInt_FMT,
               sp[0], sp[1]);
  }
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ELLPACK-R arrays and products of Michels 5.3.1 exact\n"));

  /* sliced, h = 2: rows 0-1 padded to 2 entries, rows 2-3 to 1:
       slice 0 (from 0): values 1 1 | 3 1, columns 0 1 | 1 2
       slice 1 (from 4): values 4 2,         columns 0 2 */
  PetscCall(BuildExample(PETSC_FALSE, &A));
  PetscCall(MatELLRCUDASetShortColumns(A, PETSC_FALSE));
  PetscCall(MatELLRCUDASetSliceHeight(A, 2));
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL));
  {
    const PetscInt    sp_ref[3] = {0, 4, 6}, scol_ref[6] = {0, 1, 1, 2, 0, 2};
    const PetscScalar sval_ref[6] = {1, 1, 3, 1, 4, 2};
    PetscInt          sp[3];

    PetscCheck(E->h == 2 && E->nz == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Sliced: h %" PetscInt_FMT ", Nz %" PetscInt_FMT "; expected 2 and 2", E->h,
               E->nz);
    PetscCall(GKMemcpyD2H(sp, E->sliceptr, sizeof(sp)));
    PetscCall(GKMemcpyD2H(col, E->col, 6 * sizeof(PetscInt)));
    PetscCall(GKMemcpyD2H(val, E->val, 6 * sizeof(PetscScalar)));
    for (PetscInt k = 0; k < 3; k++)
      PetscCheck(sp[k] == sp_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "sliceptr[%" PetscInt_FMT "] = %" PetscInt_FMT ", not %" PetscInt_FMT, k, sp[k],
                 sp_ref[k]);
    for (PetscInt k = 0; k < 6; k++) {
      PetscCheck(col[k] == scol_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "sliced j[%" PetscInt_FMT "] = %" PetscInt_FMT ", not %" PetscInt_FMT, k,
                 col[k], scol_ref[k]);
      PetscCheck(val[k] == sval_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "sliced A[%" PetscInt_FMT "] = %g, not %g", k, (double)PetscRealPart(val[k]),
                 (double)PetscRealPart(sval_ref[k]));
    }
  }
  PetscCall(CheckProductsExact(A));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "sliced ELLPACK-R (h = 2) arrays and products exact\n"));
  PetscCall(CheckWide(2));
  PetscCall(CheckWide(0));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "wide slices: row by row, without padding where sliced: arrays and products exact\n"));

  /* 16-bit offsets from the row, for the matrix and its transposed copy: the default, where
     they fit as here */
  PetscCall(BuildExample(PETSC_FALSE, &A));
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL));
  PetscCheck(E->dcol && !E->col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The example's columns fit 16 bits, and by default the device copy keeps %s",
             E->col ? "32-bit indices" : "no columns");
  {
    short     dcol[8];
    PetscBool flg;

    PetscCall(GKMemcpyD2H(dcol, E->dcol, sizeof(dcol)));
    for (PetscInt k = 0; k < 8; k++)
      PetscCheck(dcol[k] == dcol_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "offset j[%" PetscInt_FMT "] (column-major) = %d, not %d", k, (int)dcol[k],
                 (int)dcol_ref[k]);
    PetscCall(MatELLRCUDAGetShortColumns(A, &flg));
    PetscCheck(flg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MatELLRCUDAGetShortColumns says 32-bit of a copy with offsets");
  }
  PetscCall(CheckProductsExact(A));
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, &Et));
  PetscCheck(Et && Et->dcol && !Et->col, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The transposed copy's columns fit 16 bits too");
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "ELLPACK-R with 16-bit column offsets: arrays and products exact\n"));

  /* DIA: offsets -2, -1, 0, 1; val[d*4 + i] = A(i, i + off[d]) */
  PetscCall(BuildExample(PETSC_TRUE, &A));
  PetscCall(MatSeqDIACUDAGetDeviceFormat(A, &D));
  PetscCheck(D->ndiag == 4, PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIA of the example: %" PetscInt_FMT " diagonals, not 4", D->ndiag);
  PetscCall(GKMemcpyD2H(off, D->off, sizeof(off)));
  PetscCall(GKMemcpyD2H(val, D->val, 16 * sizeof(PetscScalar)));
  {
    const PetscInt    off_ref[4]   = {-2, -1, 0, 1};
    const PetscScalar dval_ref[16] = {0, 0, 4, 0, /* -2 */ 0, 0, 0, 2, /* -1 */ 1, 1, 0, 0, /* 0 */ 3, 1, 0, 0 /* 1 */};

    for (PetscInt d = 0; d < 4; d++)
      PetscCheck(off[d] == off_ref[d], PETSC_COMM_SELF, PETSC_ERR_PLIB, "offset %" PetscInt_FMT " = %" PetscInt_FMT ", not %" PetscInt_FMT, d, off[d],
                 off_ref[d]);
    for (PetscInt k = 0; k < 16; k++)
      PetscCheck(val[k] == dval_ref[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "DIA val[%" PetscInt_FMT "] = %g, not %g", k, (double)PetscRealPart(val[k]),
                 (double)PetscRealPart(dval_ref[k]));
  }
  PetscCall(CheckProductsExact(A));
  PetscCall(CheckFillLimit(A, MatDIACUDASetMaxFill, 16.0 / 6.0));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "DIA arrays and products of the same matrix exact\n"));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the arrays and products checked by hand, on both backends; the views' last line names the backend
  test:
    args: -gpukit_backend {{host cuda}shared output}
    filter: grep -v "device memory:"

TEST*/

/*
   MATSEQELLRCUDA: the ELLPACK-R format of Michels, "Sparse-Matrix-CG-Solver in CUDA", 5.3.1,
   built on the host from the SEQAIJ master copy and kept on the device. Transposed products
   use an explicit transposed copy, built on first use (as De Donno et al. precompute A^H).
*/
#include "../../gk/gkmat.h"

typedef struct {
  GKEllr    A;     /* the matrix */
  GKEllr    At;    /* its transpose, when hasAt */
  PetscBool hasAt;
  size_t    bytesA, bytesAt;
} Mat_SeqELLR;

static PetscErrorCode GKEllrFree_Private(GKEllr *E)
{
  PetscFunctionBegin;
  PetscCall(GKFree(E->rl));
  PetscCall(GKFree(E->col));
  PetscCall(GKFree(E->val));
  PetscFunctionReturn(0);
}

/* Copies host ELLPACK-R arrays (m x nz, column-major) to the device; the structure only when
   the device has none yet */
static PetscErrorCode GKEllrUpload_Private(GKEllr *E, PetscBool valuesonly, PetscInt m, PetscInt n, PetscInt nz, const PetscInt *rl, const PetscInt *col, const PetscScalar *val, size_t *bytes)
{
  const size_t len = (size_t)m * (size_t)nz;

  PetscFunctionBegin;
  if (!valuesonly) {
    PetscCall(GKEllrFree_Private(E));
    E->m  = m;
    E->n  = n;
    E->nz = nz;
    PetscCall(GKMalloc(m, &E->rl));
    PetscCall(GKMalloc(len, &E->col));
    PetscCall(GKMalloc(len, &E->val));
    PetscCall(GKMemcpyH2D(E->rl, rl, (size_t)m * sizeof(PetscInt)));
    PetscCall(GKMemcpyH2D(E->col, col, len * sizeof(PetscInt)));
  }
  PetscCall(GKMemcpyH2D(E->val, val, len * sizeof(PetscScalar)));
  *bytes = (size_t)m * sizeof(PetscInt) + len * (sizeof(PetscInt) + sizeof(PetscScalar));
  PetscFunctionReturn(0);
}

/* The ELLPACK-R arrays of an m-row CSR matrix (row pointers ai, columns aj, values aa):
   entry k of row i at i + k*m, padding value 0 and column 0 */
static PetscErrorCode GKEllrFromCSR_Private(PetscInt m, PetscInt nz, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscInt *rl, PetscInt *col, PetscScalar *val)
{
  PetscFunctionBegin;
  PetscCall(PetscArrayzero(col, (size_t)m * nz));
  PetscCall(PetscArrayzero(val, (size_t)m * nz));
  for (PetscInt i = 0; i < m; i++) {
    rl[i] = ai[i + 1] - ai[i];
    for (PetscInt k = 0; k < rl[i]; k++) {
      col[i + k * m] = aj[ai[i] + k];
      val[i + k * m] = aa[ai[i] + k];
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRBuild_Private(Mat A, PetscBool valuesonly)
{
  Mat_SeqGK         *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR       *e  = (Mat_SeqELLR *)gk->data;
  const PetscInt     m = A->rmap->n, n = A->cmap->n;
  const PetscInt    *ai, *aj;
  PetscScalar       *aa;
  PetscMemType       mtype;
  PetscInt           nz = 0, *rl, *col;
  PetscScalar       *val;
  char               why[128], msg[512];
  PetscBool          fits;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  for (PetscInt i = 0; i < m; i++) nz = PetscMax(nz, ai[i + 1] - ai[i]);
  PetscCall(PetscSNPrintf(why, sizeof(why), "Its longest row has %" PetscInt_FMT " entries, its rows %.1f on average.", nz, m ? (double)ai[m] / m : 0.0));
  PetscCall(MatSeqGKCheckFill_Private(A, "ELLPACK-R", m, nz, ai[m], why, &fits, msg, sizeof(msg)));
  PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", msg);
  PetscCall(PetscMalloc3(m, &rl, (size_t)m * nz, &col, (size_t)m * nz, &val));
  PetscCall(GKEllrFromCSR_Private(m, nz, ai, aj, aa, rl, col, val));
  PetscCall(GKEllrUpload_Private(&e->A, valuesonly, m, n, nz, rl, col, val, &e->bytesA));
  PetscCall(PetscFree3(rl, col, val));
  /* the transposed copy is rebuilt at its next use */
  PetscCall(GKEllrFree_Private(&e->At));
  e->hasAt   = PETSC_FALSE;
  e->bytesAt = 0;
  gk->nnz    = ai[m];
  gk->bytes  = e->bytesA;
  PetscFunctionReturn(0);
}

/* The explicit transpose A^T (n rows) in ELLPACK-R, from the host CSR of A */
static PetscErrorCode MatSeqELLRBuildTranspose_Private(Mat A)
{
  Mat_SeqGK         *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR       *e  = (Mat_SeqELLR *)gk->data;
  const PetscInt     m = A->rmap->n, n = A->cmap->n;
  const PetscInt    *ai, *aj;
  PetscScalar       *aa;
  PetscMemType       mtype;
  PetscInt           nz = 0, *rl, *col, *ati, *atj;
  PetscScalar       *val, *ata;
  char               why[128], msg[512];
  PetscBool          fits;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  /* CSR of A^T: count the entries of each column, then place them row by row of A */
  PetscCall(PetscCalloc1(n + 1, &ati));
  PetscCall(PetscMalloc2(ai[m], &atj, ai[m], &ata));
  for (PetscInt k = 0; k < ai[m]; k++) ati[aj[k] + 1]++;
  for (PetscInt j = 0; j < n; j++) {
    nz = PetscMax(nz, ati[j + 1]);
    ati[j + 1] += ati[j];
  }
  PetscCall(PetscSNPrintf(why, sizeof(why), "The transposed copy, used by transposed products, has a longest row (a column of A) of %" PetscInt_FMT " entries.", nz));
  PetscCall(MatSeqGKCheckFill_Private(A, "ELLPACK-R (transposed copy)", n, nz, ai[m], why, &fits, msg, sizeof(msg)));
  if (!fits) {
    PetscCall(PetscFree(ati));
    PetscCall(PetscFree2(atj, ata));
  }
  PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", msg);
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscInt p = ati[aj[k]]++;

      atj[p] = i;
      ata[p] = aa[k];
    }
  }
  for (PetscInt j = n; j > 0; j--) ati[j] = ati[j - 1];
  ati[0] = 0;
  PetscCall(PetscMalloc3(n, &rl, (size_t)n * nz, &col, (size_t)n * nz, &val));
  PetscCall(GKEllrFromCSR_Private(n, nz, ati, atj, ata, rl, col, val));
  PetscCall(GKEllrUpload_Private(&e->At, PETSC_FALSE, n, m, nz, rl, col, val, &e->bytesAt));
  PetscCall(PetscFree3(rl, col, val));
  PetscCall(PetscFree(ati));
  PetscCall(PetscFree2(atj, ata));
  e->hasAt  = PETSC_TRUE;
  gk->bytes = e->bytesA + e->bytesAt;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRReset_Private(Mat A)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;

  PetscFunctionBegin;
  PetscCall(GKEllrFree_Private(&e->A));
  PetscCall(GKEllrFree_Private(&e->At));
  e->hasAt = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRMult_Private(Mat A, GKMatOp op, const PetscScalar *x, PetscBool add, PetscScalar *y)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;

  PetscFunctionBegin;
  if (op == GK_OP_N) {
    PetscCall(GKDev->ellrmult(&e->A, PETSC_FALSE, x, add, y));
  } else {
    if (!e->hasAt) PetscCall(MatSeqELLRBuildTranspose_Private(A));
    PetscCall(GKDev->ellrmult(&e->At, op == GK_OP_H ? PETSC_TRUE : PETSC_FALSE, x, add, y));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRGetDiagonal_Private(Mat A, PetscScalar *d)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKDev->ellrgetdiagonal(&e->A, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;
  const double stored = (double)e->A.m * (double)e->A.nz;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "ELLPACK-R (Michels 5.3.1): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, Nz = %" PetscInt_FMT ", stored %.0f, fill %.3f (limit %.2f, %s)\n", e->A.m, gk->nnz, e->A.nz, stored, gk->nnz ? stored / (double)gk->nnz : 1.0, (double)gk->maxfill, gk->fmt->fillopt));
  if (e->hasAt) PetscCall(PetscViewerASCIIPrintf(viewer, "transposed copy: %" PetscInt_FMT " rows, Nz = %" PetscInt_FMT "\n", e->At.m, e->At.nz));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRGetOperator_Private(Mat A, PetscBool transpose, GKOperator *op)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  if (transpose && !e->hasAt) PetscCall(MatSeqELLRBuildTranspose_Private(A));
  op->ellr  = &e->A;
  op->ellrt = transpose ? &e->At : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_SeqAIJ_SeqELLRCUDA(Mat, MatType, MatReuse, Mat *);

static const GKMatFormat GKFormatELLR = {
  MATSEQELLRCUDA, "ELLPACK-R", "-mat_ellrcuda_max_fill", "MatELLRCUDASetMaxFill", 4.0, sizeof(Mat_SeqELLR), MatSeqELLRBuild_Private, MatSeqELLRReset_Private, MatSeqELLRMult_Private, MatSeqELLRGetDiagonal_Private, MatSeqELLRView_Private, MatSeqELLRGetOperator_Private, MatConvert_SeqAIJ_SeqELLRCUDA,
};

static PetscErrorCode MatConvert_SeqAIJ_SeqELLRCUDA(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(A, &GKFormatELLR, reuse, newmat));
  PetscFunctionReturn(0);
}

/*MC
   MATSEQELLRCUDA - "seqellrcuda" - a sequential matrix in ELLPACK-R storage on the GPU

   ELLPACK-R (Michels, 5.3.1) stores Nz = the longest row's length, the rows' values and columns
   as n x Nz column-major arrays padded with zeros, and each row's length, so that the product
   runs one thread per row and each thread stops at its own row's end. The matrix is a `MATSEQAIJ`
   underneath: assembly, `MatSetValues()`, `MatLoad()`, `MatConvert()` and the rest are AIJ's,
   and the device copy is rebuilt at the next product after any change (the values alone when
   the nonzero pattern is unchanged).

   On the device: `MatMult()`, `MatMultAdd()`, `MatMultTranspose()`, `MatMultTransposeAdd()`,
   the Hermitian transposes, `MatGetDiagonal()`. Transposed products use an explicit transposed
   copy built at their first use.

   Options Database Keys:
+  -mat_type ellrcuda - selects this type with `MatSetFromOptions()` (also -dm_mat_type)
.  -mat_ellrcuda_max_fill <4> - the largest fill (n Nz / nonzeros) accepted; more is an error
.  -gpukit_backend <auto,cuda,host> - where the kernels run
-  -gpukit_device <n> - the CUDA device of this process

   Level: beginner

.seealso: `MATELLRCUDA`, `MATSEQDIACUDA`, `MatCreateSeqELLRCUDA()`, `MatELLRCUDASetMaxFill()`
M*/
PetscErrorCode MatCreate_SeqELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGK_Private(B, &GKFormatELLR));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreate_MPIELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGK_Private(B, MATMPIELLRCUDA));
  PetscFunctionReturn(0);
}

PetscErrorCode MatCreate_ELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_GK_Private(B, &GKFormatELLR, MATMPIELLRCUDA));
  PetscFunctionReturn(0);
}

/*@C
   MatCreateSeqELLRCUDA - Creates a sequential ELLPACK-R matrix on the GPU, preallocated as
   `MatCreateSeqAIJ()` does

   Collective

   Input Parameters:
+  comm - a communicator of one process
.  m, n - rows and columns
.  nz - nonzeros per row (the same for all rows), or
-  nnz - nonzeros in each row (or NULL)

   Output Parameter:
.  A - the matrix

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatCreateSeqAIJ()`
@*/
PetscErrorCode MatCreateSeqELLRCUDA(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqGK_Private(comm, MATSEQELLRCUDA, m, n, nz, nnz, A));
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDASetMaxFill - Sets the largest fill (stored entries n Nz over nonzeros) the
   ELLPACK-R format may reach before it refuses the matrix

   Logically Collective

   Input Parameters:
+  A - the matrix
-  fill - at least 1 (default 4)

   Options Database Key:
.  -mat_ellrcuda_max_fill <fill> - the same

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatDIACUDASetMaxFill()`
@*/
PetscErrorCode MatELLRCUDASetMaxFill(Mat A, PetscReal fill)
{
  PetscFunctionBegin;
  PetscCall(MatSeqGKSetMaxFill_Private(A, MATSEQELLRCUDA, fill));
  PetscFunctionReturn(0);
}

/* The device arrays, brought up to date: the matrix's and, once a transposed product has been
   made, its transpose's (else NULL) */
PetscErrorCode MatSeqELLRCUDAGetDeviceFormat(Mat A, const GKEllr **E, const GKEllr **Et)
{
  Mat_SeqELLR *e;
  PetscBool    match;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQELLRCUDA, &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a %s matrix", MATSEQELLRCUDA);
  PetscCall(MatSeqGKSyncDevice_Private(A));
  e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;
  if (E) *E = &e->A;
  if (Et) *Et = e->hasAt ? &e->At : NULL;
  PetscFunctionReturn(0);
}

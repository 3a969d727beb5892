/*
   MATSEQDIACUDA: the DIA format of Jost, Contassot-Vivier and Vialle, 3.2 (one row of values
   per diagonal holding a nonzero, and the diagonals' offsets), built from the SEQAIJ master
   copy (its CSR arrays copied to the device, where the diagonals are found and the values
   placed) and kept on the device. Transposed products read the same arrays.
*/
#include "mat/impls/gk/gkmat.h"
#include <petscbt.h>

typedef struct {
  GKDia     A;
  PetscInt *hoff; /* host copy of the offsets, for views */
} Mat_SeqDIA;

static PetscErrorCode MatSeqDIAReset_Private(Mat A)
{
  Mat_SeqDIA *d = (Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKFree(d->A.off));
  PetscCall(GKFree(d->A.val));
  PetscCall(GKFree(d->A.sval));
  PetscCall(PetscFree(d->hoff));
  d->A.ndiag = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqDIABuild_Private(Mat A, PetscBool valuesonly)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqDIA     *d  = (Mat_SeqDIA *)gk->data;
  const PetscInt  m = A->rmap->n, n = A->cmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa, *daa = NULL;
  PetscMemType    mtype;
  PetscInt       *dai = NULL, *daj = NULL;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  /* the CSR arrays go to the device once; the diagonals are found (a values-only build keeps
     them) and filled there */
  PetscCall(GKMallocH2D(m + 1, ai, &dai));
  PetscCall(GKMallocH2D(ai[m], aj, &daj));
  PetscCall(GKMallocH2D(ai[m], aa, &daa));
  if (!valuesonly) {
    char     *flag, *dflag; /* flag[k + m - 1]: whether offset k holds a nonzero */
    PetscInt  ndiag = 0;
    char      why[160], msg[512];
    PetscBool fits, ok;

    PetscCall(GKDev->checkcols(ai[m], n, daj, &ok)); /* before the offsets are marked by them */
    if (!ok) {
      PetscCall(GKFree(dai));
      PetscCall(GKFree(daj));
      PetscCall(GKFree(daa));
      PetscCall(MatSeqGKColumnsError_Private(A));
    }
    PetscCall(GKMalloc(m + n, &dflag));
    PetscCall(GKDev->memzero(dflag, (size_t)(m + n)));
    PetscCall(GKDev->diaoffsets(m, dai, daj, dflag));
    PetscCall(PetscMalloc1(m + n, &flag));
    PetscCall(GKMemcpyD2H(flag, dflag, (size_t)(m + n)));
    PetscCall(GKFree(dflag));
    for (PetscInt k = 0; k < m + n; k++) ndiag += flag[k] ? 1 : 0;
    PetscCall(PetscSNPrintf(why, sizeof(why),
                            "Its nonzeros lie on %" PetscInt_FMT
                            " diagonals; DIA suits matrices with a few (stencils on structured grids): ellrcuda suits the others.",
                            ndiag));
    PetscCall(MatSeqGKCheckFill_Private(A, "DIA", (double)m * ndiag, ai[m], why, &fits, msg, sizeof(msg)));
    if (!fits) {
      PetscCall(PetscFree(flag));
      PetscCall(GKFree(dai));
      PetscCall(GKFree(daj));
      PetscCall(GKFree(daa));
    }
    PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", msg);
    PetscCall(MatSeqDIAReset_Private(A));
    PetscCall(PetscMalloc1(ndiag, &d->hoff));
    ndiag = 0;
    for (PetscInt k = 0; k < m + n; k++)
      if (flag[k]) d->hoff[ndiag++] = k - m + 1;
    PetscCall(PetscFree(flag));
    d->A.m     = m;
    d->A.n     = n;
    d->A.ndiag = ndiag;
    PetscCall(GKMallocH2D(ndiag, d->hoff, &d->A.off));
    PetscCall(GKMalloc((size_t)ndiag * m, &d->A.val));
  }
  PetscCall(GKDev->memzero(d->A.val, (size_t)d->A.ndiag * m * sizeof(PetscScalar)));
  PetscCall(GKDev->diafill(&d->A, dai, daj, daa));
  PetscCall(GKFree(dai));
  PetscCall(GKFree(daj));
  PetscCall(GKFree(daa));
  PetscCall(MatSeqGKStorageValues_Private(A, (size_t)d->A.ndiag * m, d->A.val, &d->A.sval));
  gk->nnz   = ai[m];
  gk->bytes = (size_t)d->A.ndiag * (sizeof(PetscInt) + (size_t)m * (sizeof(PetscScalar) + (d->A.sval ? GK_SINGLE_SIZE : 0)));
  /* DIA reads every stored diagonal whole (Jost et al. 3.2), in the precision its products read */
  gk->mbytes[0] = gk->mbytes[1] = (double)d->A.ndiag * (sizeof(PetscInt) + (size_t)m * (d->A.sval ? GK_SINGLE_SIZE : sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

/* The diagonals A's pattern lies on, counted on the host, against the fill limit */
static PetscErrorCode MatSeqDIAFits_Private(Mat A, PetscBool *fits)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  const PetscInt  m = A->rmap->n, n = A->cmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscBT         on;
  PetscInt        ndiag = 0;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCall(PetscBTCreate(m + n, &on));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (!PetscBTLookupSet(on, aj[k] - i + m - 1)) ndiag++;
  PetscCall(PetscBTDestroy(&on));
  *fits = !ai[m] || (double)m * ndiag <= (double)gk->maxfill * ai[m] ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* New values from CSR values on the device, the pattern unchanged (COO assembly) */
static PetscErrorCode MatSeqDIASetValues_Private(Mat A, const PetscInt *ai, const PetscInt *aj, const PetscScalar *val)
{
  Mat_SeqDIA *d = (Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKDev->memzero(d->A.val, (size_t)d->A.ndiag * d->A.m * sizeof(PetscScalar)));
  PetscCall(GKDev->diafill(&d->A, ai, aj, val));
  PetscCall(MatSeqGKStorageValues_Private(A, (size_t)d->A.ndiag * d->A.m, d->A.val, &d->A.sval));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqDIAMult_Private(Mat A, GKMatOp op, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  Mat_SeqDIA *d = (Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  if (op == GK_OP_N) PetscCall(GKDev->diamult(&d->A, x, w, neg, y));
  else PetscCall(GKDev->diamulttranspose(&d->A, op == GK_OP_H ? PETSC_TRUE : PETSC_FALSE, x, w, neg, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqDIAGetDiagonal_Private(Mat A, PetscScalar *diag)
{
  Mat_SeqDIA *d = (Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKDev->diagetdiagonal(&d->A, diag));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqDIAView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqGK   *gk           = (Mat_SeqGK *)A->spptr;
  Mat_SeqDIA  *d            = (Mat_SeqDIA *)gk->data;
  const double stored       = (double)d->A.m * (double)d->A.ndiag;
  char         offsets[256] = "";
  size_t       len;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "DIA (Jost et al. 3.2): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, %" PetscInt_FMT
                                   " diagonals, stored %.0f, fill %.3f (limit %.2f, %s)\n",
                                   d->A.m, gk->nnz, d->A.ndiag, stored, gk->nnz ? stored / (double)gk->nnz : 1.0, (double)gk->maxfill,
                                   gk->fmt->fillopt));
  for (PetscInt k = 0; k < d->A.ndiag; k++) {
    PetscCall(PetscStrlen(offsets, &len));
    if (d->A.ndiag > 16 && k == 8) {
      PetscCall(PetscSNPrintf(offsets + len, sizeof(offsets) - len, " ..."));
      k = d->A.ndiag - 8;
      PetscCall(PetscStrlen(offsets, &len));
    }
    PetscCall(PetscSNPrintf(offsets + len, sizeof(offsets) - len, " %" PetscInt_FMT, d->hoff[k]));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "diagonal offsets:%s\n", offsets));
  PetscFunctionReturn(0);
}

/* transposed products read the same arrays */
static PetscErrorCode MatSeqDIAGetOperator_Private(Mat A, PetscBool transpose, GKOperator *op)
{
  PetscFunctionBegin;
  (void)transpose;
  op->dia = &((Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data)->A;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_SeqAIJ_SeqDIACUDA(Mat, MatType, MatReuse, Mat *);

static PetscErrorCode MatCreate_SeqDIACUDA(Mat);
static PetscErrorCode MatCreate_MPIDIACUDA(Mat);
static PetscErrorCode MatCreate_DIACUDA(Mat);

PETSC_INTERN const GKMatFormat GKFormatDIA; /* added to the registry by src/gpukitreg.c */
const GKMatFormat              GKFormatDIA = {
  .type        = MATSEQDIACUDA,
  .mpitype     = MATMPIDIACUDA,
  .roottype    = MATDIACUDA,
  .name        = "DIA",
  .createseq   = MatCreate_SeqDIACUDA,
  .creatempi   = MatCreate_MPIDIACUDA,
  .createroot  = MatCreate_DIACUDA,
  .fillopt     = "-mat_diacuda_max_fill",
  .fillsetter  = "MatDIACUDASetMaxFill",
  .defaultfill = 3.0,
  .fits        = MatSeqDIAFits_Private,
  .datasize    = sizeof(Mat_SeqDIA),
  .build       = MatSeqDIABuild_Private,
  .setvalues   = MatSeqDIASetValues_Private,
  .reset       = MatSeqDIAReset_Private,
  .mult        = MatSeqDIAMult_Private,
  .getdiagonal = MatSeqDIAGetDiagonal_Private,
  .view        = MatSeqDIAView_Private,
  .getoperator = MatSeqDIAGetOperator_Private,
  .convertfrom = MatConvert_SeqAIJ_SeqDIACUDA,
};
static PetscErrorCode MatConvert_SeqAIJ_SeqDIACUDA(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(A, &GKFormatDIA, reuse, newmat));
  PetscFunctionReturn(0);
}

/*MC
   MATSEQDIACUDA - "seqdiacuda" - a sequential matrix in diagonal (DIA) storage on the GPU

   DIA (Jost, Contassot-Vivier and Vialle, 3.2) stores one row of values per diagonal that holds
   a nonzero, with the diagonals' offsets: the product reads every array contiguously, which
   suits stencil matrices of structured grids. The matrix is a `MATSEQAIJ` underneath, as
   `MATSEQELLRCUDA` is, with its device copy rebuilt lazily after changes.

   On the device: `MatMult()`, `MatMultAdd()`, `MatMultTranspose()`, `MatMultTransposeAdd()`,
   the Hermitian transposes (from the same arrays), `MatGetDiagonal()`.

   Options Database Keys:
+  -mat_type diacuda - selects this type with `MatSetFromOptions()` (also -dm_mat_type)
.  -mat_diacuda_max_fill <3> - the largest fill (n diagonals / nonzeros) accepted; more is an error
.  -gpukit_backend <auto,cuda,host> - where the kernels run
-  -gpukit_device <n> - the CUDA device of this process

   Level: beginner

.seealso: `MATDIACUDA`, `MATSEQELLRCUDA`, `MatCreateSeqDIACUDA()`, `MatDIACUDASetMaxFill()`
M*/
static PetscErrorCode MatCreate_SeqDIACUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGK_Private(B, &GKFormatDIA));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_MPIDIACUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGK_Private(B, &GKFormatDIA));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_DIACUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_GK_Private(B, &GKFormatDIA));
  PetscFunctionReturn(0);
}

/*@C
   MatCreateSeqDIACUDA - Creates a sequential DIA matrix on the GPU, preallocated as
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

.seealso: `MATSEQDIACUDA`, `MatCreateSeqAIJ()`
@*/
PetscErrorCode MatCreateSeqDIACUDA(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqGK_Private(comm, MATSEQDIACUDA, m, n, nz, nnz, A));
  PetscFunctionReturn(0);
}

/*@
   MatDIACUDASetMaxFill - Sets the largest fill (stored entries, rows times diagonals, over
   nonzeros) the DIA format may reach before it refuses the matrix

   Logically Collective

   Input Parameters:
+  A - the matrix
-  fill - at least 1 (default 3)

   Options Database Key:
.  -mat_diacuda_max_fill <fill> - the same

   Level: intermediate

.seealso: `MATSEQDIACUDA`, `MatELLRCUDASetMaxFill()`
@*/
PetscErrorCode MatDIACUDASetMaxFill(Mat A, PetscReal fill)
{
  PetscFunctionBegin;
  PetscCall(MatSeqGKSetMaxFill_Private(A, MATSEQDIACUDA, fill));
  PetscFunctionReturn(0);
}

/* The device arrays, brought up to date */
PetscErrorCode MatSeqDIACUDAGetDeviceFormat(Mat A, const GKDia **D)
{
  PetscBool match;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQDIACUDA, &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a %s matrix", MATSEQDIACUDA);
  PetscCall(MatSeqGKSyncDevice_Private(A));
  *D = &((Mat_SeqDIA *)((Mat_SeqGK *)A->spptr)->data)->A;
  PetscFunctionReturn(0);
}

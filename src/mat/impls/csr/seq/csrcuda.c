/*
   MATSEQCSRCUDA: the SEQAIJ master copy's CSR arrays kept on the device as they are, each
   product a thread a row
*/
#include "mat/impls/gk/gkmat.h"

static PetscErrorCode MatSeqCSRReset_Private(Mat A)
{
  GKCsr *c = (GKCsr *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKFree(c->i));
  PetscCall(GKFree(c->j));
  PetscCall(GKFree(c->a));
  c->m = c->n = c->nnz = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqCSRBuild_Private(Mat A, PetscBool valuesonly)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  GKCsr          *c  = (GKCsr *)gk->data;
  const PetscInt  m  = A->rmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  if (!valuesonly) {
    PetscBool ok;

    PetscCall(MatSeqCSRReset_Private(A));
    c->m   = m;
    c->n   = A->cmap->n;
    c->nnz = ai[m];
    PetscCall(GKMallocH2D(m + 1, ai, &c->i));
    PetscCall(GKMallocH2D(ai[m], aj, &c->j));
    PetscCall(GKMalloc(ai[m], &c->a));
    PetscCall(GKDev->checkcols(ai[m], c->n, c->j, &ok));
    if (!ok) PetscCall(MatSeqGKColumnsError_Private(A));
  }
  PetscCall(GKMemcpyH2D(c->a, aa, (size_t)ai[m] * sizeof(PetscScalar)));
  gk->nnz       = ai[m];
  gk->bytes     = (size_t)(m + 1 + ai[m]) * sizeof(PetscInt) + (size_t)ai[m] * sizeof(PetscScalar);
  gk->mbytes[0] = gk->mbytes[1] = (double)gk->bytes;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqCSRMult_Private(Mat A, GKMatOp op, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  PetscCheck(op == GK_OP_N, PETSC_COMM_SELF, PETSC_ERR_SUP, "The csrcuda format has no transposed products: use ellrcuda or diacuda");
  PetscCall(GKDev->csrmult((GKCsr *)((Mat_SeqGK *)A->spptr)->data, x, w, neg, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqCSRGetDiagonal_Private(Mat A, PetscScalar *d)
{
  PetscFunctionBegin;
  PetscCall(GKDev->csrgetdiagonal((GKCsr *)((Mat_SeqGK *)A->spptr)->data, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqCSRView_Private(Mat A, PetscViewer viewer)
{
  GKCsr *c = (GKCsr *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "CSR: %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, a thread a row\n", c->m, c->nnz));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_SeqAIJ_SeqCSRCUDA(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatCreate_SeqCSRCUDA(Mat);
static PetscErrorCode MatCreate_MPICSRCUDA(Mat);
static PetscErrorCode MatCreate_CSRCUDA(Mat);

PETSC_INTERN const GKMatFormat GKFormatCSR; /* listed by the registry, gkformats.c */
const GKMatFormat              GKFormatCSR = {
  .type        = MATSEQCSRCUDA,
  .mpitype     = MATMPICSRCUDA,
  .roottype    = MATCSRCUDA,
  .name        = "CSR",
  .createseq   = MatCreate_SeqCSRCUDA,
  .creatempi   = MatCreate_MPICSRCUDA,
  .createroot  = MatCreate_CSRCUDA,
  .fillopt     = "-mat_csrcuda_max_fill",
  .fillsetter  = "MatSetFromOptions",
  .defaultfill = 1.0,
  .datasize    = sizeof(GKCsr),
  .build       = MatSeqCSRBuild_Private,
  .reset       = MatSeqCSRReset_Private,
  .mult        = MatSeqCSRMult_Private,
  .getdiagonal = MatSeqCSRGetDiagonal_Private,
  .view        = MatSeqCSRView_Private,
  .convertfrom = MatConvert_SeqAIJ_SeqCSRCUDA,
};

static PetscErrorCode MatConvert_SeqAIJ_SeqCSRCUDA(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(A, &GKFormatCSR, reuse, newmat));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_SeqCSRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGK_Private(B, &GKFormatCSR));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_MPICSRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGK_Private(B, &GKFormatCSR));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_CSRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_GK_Private(B, &GKFormatCSR));
  PetscFunctionReturn(0);
}

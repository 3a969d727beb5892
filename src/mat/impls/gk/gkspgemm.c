/*
   MatMatMult() and MatPtAP() of the device types on the device: the operands' CSR arrays copied
   up, C = A P or C = P^T A P computed by the backend (cuSPARSE's SpGEMM; the host backend's twin
   where there is no GPU), C's arrays copied down into the result, a device matrix whose host CSR
   is the master copy like any other's. PETSc's AIJ code does the same on the host cores: that is
   most of PCGAMG's setup (the coarse operators and smoothed prolongators) and of PCMG's Galerkin
   operators. Two sequential matrices: below; two MPI ones: each process's share, mpigkspgemm.c.

   Taken for AB and PtAP of two sequential or two MPI device matrices (32-bit indices, double
   scalars), unless -mat_product_algorithm_backend_cpu (PETSc's option for its own GPU types)
   asks for the host; else, or where the backend cannot (cuSPARSE not found, on any process; an
   empty sequential operand), PETSc's own product runs as before. The symbolic step computes the
   values too, so the numeric step that follows it copies nothing; a later numeric step
   (MAT_REUSE_MATRIX) computes the values again through a plan the result keeps from its first
   numeric step on (the backend's spgemmnumeric: the operands' patterns analysed once, the
   intermediate A P and R^T kept), and takes them, the pattern being the same. The plan holds
   A P, P^T and the result in device memory: the price of a re-setup's products at the speed of
   their values alone.
*/
#include "gkmat.h"
#include <petscsf.h>

/* Whether C's product runs on the device (the operands' types and the product's; the backend
   is set up here, as the product's first need of it): two sequential device matrices, or two MPI
   ones */
PetscErrorCode MatProductGKDeviceEligible_Private(Mat C, PetscBool *ok)
{
  Mat_Product *p = C->product;
  PetscBool    seqa, seqb, mpia, mpib, cpu = PETSC_FALSE;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!p || (p->type != MATPRODUCT_AB && p->type != MATPRODUCT_PtAP)) PetscFunctionReturn(0);
  PetscCall(GKMatIsDevice_Private(p->A, &seqa, &mpia));
  PetscCall(GKMatIsDevice_Private(p->B, &seqb, &mpib));
  if (!(seqa && seqb) && !(mpia && mpib)) PetscFunctionReturn(0);
  if (sizeof(PetscInt) != 4 || sizeof(PetscReal) != 8) PetscFunctionReturn(0);
  if (p->type == MATPRODUCT_PtAP && (p->A->rmap->N != p->A->cmap->N || p->A->rmap->n != p->A->cmap->n)) PetscFunctionReturn(0);
  PetscOptionsBegin(PetscObjectComm((PetscObject)C), ((PetscObject)C)->prefix, "Products of petsc-gpukit's device matrices", "Mat");
  PetscCall(PetscOptionsBool("-mat_product_algorithm_backend_cpu",
                             "MatMatMult() and MatPtAP() of device matrices by PETSc's host code, not on the GPU", "MatProductSetFromOptions", cpu,
                             &cpu, NULL));
  PetscOptionsEnd();
  if (cpu) PetscFunctionReturn(0);
  PetscCall(PetscGPUKitBackendSetUp_Private());
  *ok = GKDev->spgemm ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* A CSR matrix of m rows and n columns (host arrays) copied into device memory */
PetscErrorCode GKCsrToDevice_Private(PetscInt m, PetscInt n, const PetscInt *ia, const PetscInt *ja, const PetscScalar *a, GKCsr *d)
{
  PetscFunctionBegin;
  d->m   = m;
  d->n   = n;
  d->nnz = ia[m];
  PetscCall(GKMallocH2D(m + 1, ia, &d->i));
  PetscCall(GKMallocH2D(d->nnz, ja, &d->j));
  PetscCall(GKMallocH2D(d->nnz, a, &d->a));
  PetscFunctionReturn(0);
}

/* The device CSR of M's COO lists (its pattern and values in the host's order), where they hold
   M's values now: lent, never freed nor adopted by the borrower */
static PetscBool MatSeqGKCOOCsr_Private(Mat M, PetscObjectState state, GKCsr *d)
{
  Mat_SeqGK *gk  = (Mat_SeqGK *)M->spptr;
  GKCoo     *coo = gk->coo;

  if (!coo || !coo->ai || coo->valstate != state || coo->nzstate != M->nonzerostate || gk->nzstate != M->nonzerostate) return PETSC_FALSE;
  if (d) {
    d->m   = M->rmap->n;
    d->n   = M->cmap->n;
    d->nnz = coo->nnz;
    d->i   = coo->ai;
    d->j   = coo->aj;
    d->a   = coo->val;
  }
  return PETSC_TRUE;
}

static PetscBool GKCsrIsCOO_Private(Mat M, const GKCsr *d)
{
  GKCoo *coo = ((Mat_SeqGK *)M->spptr)->coo;

  return coo && d->i && d->i == coo->ai ? PETSC_TRUE : PETSC_FALSE;
}

/* M's CSR in device memory: the copy M keeps (MatSeqGKKeepCsr_Private) while its object state is
   the one it was kept at, or its COO lists' arrays where they hold its values (a matrix assembled
   with MatSetValuesCOO()), lent; else its host CSR copied up now (M's host values brought up to
   date first). Either way given back with MatSeqGKReleaseCsr_Private() */
PetscErrorCode MatSeqGKCsrToDevice_Private(Mat M, GKCsr *d)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  const GKCsr       *kept;
  PetscInt           m;
  PetscBool          done;
  PetscObjectState   state;

  PetscFunctionBegin;
  PetscCall(MatSeqGKKeptCsr_Private(M, &kept));
  if (kept) {
    *d = *kept;
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqGKDropCsr_Private(M)); /* M changed since it was kept */
  PetscCall(PetscObjectStateGet((PetscObject)M, &state));
  if (MatSeqGKCOOCsr_Private(M, state, d)) PetscFunctionReturn(0);
  PetscCall(MatGKHostSyncIf_Private(M));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of a device matrix");
  PetscCall(MatSeqAIJGetArrayRead(M, &a));
  PetscCall(GKCsrToDevice_Private(m, M->cmap->n, ia, ja, a, d));
  PetscCall(MatSeqAIJRestoreArrayRead(M, &a));
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCsrFree_Private(GKCsr *d)
{
  PetscFunctionBegin;
  PetscCall(GKFree(d->i));
  PetscCall(GKFree(d->j));
  PetscCall(GKFree(d->a));
  PetscFunctionReturn(0);
}

/* d, had from MatSeqGKCsrToDevice_Private(M): freed unless it is the copy M keeps */
PetscErrorCode MatSeqGKReleaseCsr_Private(Mat M, GKCsr *d)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)M->spptr;

  PetscFunctionBegin;
  if (d->i && (d->i == gk->csr.i || GKCsrIsCOO_Private(M, d))) {
    d->i = d->j = NULL;
    d->a        = NULL;
  } else PetscCall(GKCsrFree_Private(d));
  PetscFunctionReturn(0);
}

/* M keeps d (device arrays holding M's CSR as its host matrix holds it now, each row's columns
   ascending) until it changes or MatSeqGKDropCsr_Private(); d is M's from now on (a kept copy
   given again is kept as it is; the COO lists' arrays stay theirs, lent again when asked for) */
PetscErrorCode MatSeqGKKeepCsr_Private(Mat M, GKCsr *d)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)M->spptr;

  PetscFunctionBegin;
  if (GKCsrIsCOO_Private(M, d)) {
    d->i = d->j = NULL;
    d->a        = NULL;
    PetscFunctionReturn(0);
  }
  if (d->i != gk->csr.i) {
    PetscCall(MatSeqGKDropCsr_Private(M));
    gk->csr = *d;
  }
  PetscCall(PetscObjectStateGet((PetscObject)M, &gk->csrstate));
  d->i = d->j = NULL;
  d->a        = NULL;
  PetscFunctionReturn(0);
}

/* the device CSR M keeps, where it is current (NULL where M keeps none): what a format's build
   reads in place of the host CSR copied up. While M's host values are behind the values it was
   given from the device (MatSeqGKSetValuesFromDevice_Private), it is: every operation that would
   write them brings the host up to date first, and an assembly moves the state on alone. */
PetscErrorCode MatSeqGKKeptCsr_Private(Mat M, const GKCsr **d)
{
  Mat_SeqGK       *gk = (Mat_SeqGK *)M->spptr;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)M, &state));
  *d = gk->csr.i && (gk->csrstate == state || MatSeqGKBehindCsr(gk)) ? &gk->csr : NULL;
  PetscFunctionReturn(0);
}

/* the kept CSR freed; where it is the source of host values left behind, they come down first */
PetscErrorCode MatSeqGKDropCsr_Private(Mat M)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)M->spptr;

  PetscFunctionBegin;
  if (gk->csr.i && MatSeqGKBehindCsr(gk)) PetscCall(MatSeqGKHostSync_Private(M, PETSC_TRUE));
  PetscCall(GKCsrFree_Private(&gk->csr));
  PetscFunctionReturn(0);
}

/* the kept CSR dropped, unless it holds the values M's host arrays are behind */
PetscErrorCode MatSeqGKTrimCsr_Private(Mat M)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)M->spptr;

  PetscFunctionBegin;
  if (!MatSeqGKBehindCsr(gk)) PetscCall(GKCsrFree_Private(&gk->csr));
  PetscFunctionReturn(0);
}

/* d (a device CSR of M's pattern, each row as M's host matrix orders it) gives M its values: the
   device copy's set in place, d kept by M, the host values left behind (gkhost.c), copied down
   from d only where a host operation reads them. M's state moves on, as a write does. */
PetscErrorCode MatSeqGKSetValuesFromDevice_Private(Mat M, GKCsr *d)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)M->spptr;
  const PetscInt *ai;

  PetscFunctionBegin;
  PetscCall(MatSeqGKRowStarts_Private(M, &ai));
  PetscCheck(d->m == M->rmap->n && d->n == M->cmap->n && d->nnz == ai[M->rmap->n], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "New values of a %" PetscInt_FMT " x %" PetscInt_FMT " matrix with %" PetscInt_FMT " nonzeros for a %" PetscInt_FMT " x %" PetscInt_FMT
             " %s matrix with %" PetscInt_FMT,
             d->m, d->n, d->nnz, M->rmap->n, M->cmap->n, ((PetscObject)M)->type_name, ai[M->rmap->n]);
  PetscCheck(!gk->coo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "New values from the device for a matrix assembled with MatSetValuesCOO()");
  PetscCall(MatSeqGKSyncDevice_Private(M)); /* the device copy of M's pattern */
  /* values left behind before: replaced whole, as is a CSR kept (below); with no host pattern yet,
     the CSR kept goes (d has its pattern) and none is made */
  if (gk->rowstarts) PetscCall(GKCsrFree_Private(&gk->csr));
  else PetscCall(MatSeqGKHostSync_Private(M, PETSC_FALSE));
  PetscCall(gk->fmt->setvalues(M, d->i, d->j, d->a));
  PetscCall(PetscObjectStateIncrease((PetscObject)M));
  PetscCall(PetscObjectStateGet((PetscObject)M, &gk->state));
  PetscCall(MatSeqGKKeepCsr_Private(M, d));
  PetscCall(MatSeqGKHostBehind_Private(M));
  PetscFunctionReturn(0);
}

/* the backend's product, logged (GKSpGEMM: the device's products, cuSPARSE's loading at the first) */
PetscErrorCode GKSpGEMM_Private(Mat C, const GKCsr *A, const GKCsr *P, const GKCsr *R, GKCsr *AP, PetscBool *done, char *why, size_t len)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GK_SpGEMM, C, 0, 0, 0));
  PetscCall(GKDev->spgemm(A, P, R, AP, done, why, len));
  PetscCall(PetscLogEventEnd(GK_SpGEMM, C, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* Each row of the CSR (i, j, v) of m rows ordered by column where it is not; *sorted false where
   one was not */
static PetscErrorCode GKCsrSortRows_Private(PetscInt m, const PetscInt *i, PetscInt *j, PetscScalar *v, PetscBool *sorted)
{
  PetscFunctionBegin;
  *sorted = PETSC_TRUE;
  for (PetscInt r = 0; r < m; r++) {
    for (PetscInt k = i[r] + 1; k < i[r + 1]; k++) {
      if (j[k - 1] > j[k]) {
        PetscCall(PetscSortIntWithScalarArray(i[r + 1] - i[r], j + i[r], v + i[r]));
        *sorted = PETSC_FALSE;
        break;
      }
    }
  }
  PetscFunctionReturn(0);
}

/* M's SEQAIJ arrays preallocated from the row starts rs (host) and the nnz columns dj (device)
   copied straight into them (no second array of the pattern's size, whose first touch would cost
   as much as the copy); *ia and *ja are MatGetRowIJ()'s, given back by the caller once
   MatSeqAIJSetColumnIndices() has set the rows' lengths */
static PetscErrorCode MatSeqGKPatternFromDevice_Private(Mat M, const PetscInt *rs, const PetscInt *dj, PetscInt nnz, const PetscInt **ia,
                                                        const PetscInt **ja)
{
  const PetscInt m = M->rmap->n;
  PetscInt      *len, mm;
  PetscBool      done;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &len));
  for (PetscInt r = 0; r < m; r++) len[r] = rs[r + 1] - rs[r];
  PetscCall(MatSeqAIJSetPreallocation(M, 0, len));
  PetscCall(PetscFree(len));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &mm, ia, ja, &done));
  PetscCheck(done && mm == m && (*ia)[m] == nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "A device matrix preallocated for %" PetscInt_FMT " rows and %" PetscInt_FMT " nonzeros has other row arrays", m, nnz);
  PetscCall(GKMemcpyD2H((PetscInt *)*ja, dj, sizeof(PetscInt) * (size_t)nnz));
  PetscFunctionReturn(0);
}

/* M, a new sequential device matrix of d's sizes with its type set, given d's pattern and values
   (d in device memory): its rows' lengths from d's row starts, which alone come down first; then
   d's columns and values straight into the arrays M's preallocation made (no second copy of the
   size of the pattern, whose first touch would cost as much as the copy), each row ordered there
   where it is not (*sorted false). Where M's format builds from a device CSR M keeps (ELLPACK-R)
   and d's rows come in order, the values do not come down: M keeps d, its host values left behind
   (copied down from d only where a host operation reads them), and *adopted is set: d is M's.
   Where the caller knows each of d's rows ascending (ascending: PCGAMG's smoothed prolongator) and
   M's format builds from d, nothing of the pattern comes down but the row starts: M's host matrix
   has no arrays (SEQAIJ's preallocation skipped, its assembly too) until a host operation asks
   for them, which makes them from d (MatSeqGKHostSync_Private()); MatGetInfo() counts d's
   nonzeros meanwhile. M's assembly is the caller's. */
PetscErrorCode MatSeqGKSetFromDeviceCsr_Private(Mat M, GKCsr *d, PetscBool ascending, PetscBool *sorted, PetscBool *adopted)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)M->spptr;
  PetscInt       *rs, m;
  const PetscInt *ia, *ja;
  PetscScalar    *v;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(GK_MatFromDevice, M, 0, 0, 0));
  *adopted = PETSC_FALSE;
  PetscCall(PetscMalloc1(d->m + 1, &rs));
  PetscCall(GKMemcpyD2H(rs, d->i, sizeof(PetscInt) * (size_t)(d->m + 1)));
  if (ascending && gk->fmt->devicecsr && !gk->coo) {
    PetscCall(PetscFree(gk->rowstarts));
    gk->rowstarts = rs;
    *sorted = *adopted = PETSC_TRUE;
    PetscCall(MatSeqAIJSetPreallocation(M, MAT_SKIP_ALLOCATION, NULL));
    PetscCall(MatSetOption(M, MAT_USE_INODES, PETSC_FALSE));
    PetscCall(MatSeqGKKeepCsr_Private(M, d));
    PetscCall(MatSeqGKHostBehind_Private(M));
    PetscCall(PetscLogEventEnd(GK_MatFromDevice, M, 0, 0, 0));
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqGKPatternFromDevice_Private(M, rs, d->j, d->nnz, &ia, &ja));
  PetscCall(PetscFree(rs));
  m = d->m;
  if (gk->fmt->devicecsr && !gk->coo) { /* the values may stay on the device where every row comes in order */
    *adopted = PETSC_TRUE;
    for (PetscInt r = 0; r < m && *adopted; r++)
      for (PetscInt k = ia[r] + 1; k < ia[r + 1] && *adopted; k++) *adopted = (PetscBool)(ja[k - 1] <= ja[k]);
  }
  *sorted = *adopted;
  if (!*adopted) {
    PetscCall(MatSeqAIJGetArrayWrite(M, &v));
    PetscCall(GKMemcpyD2H(v, d->a, sizeof(PetscScalar) * (size_t)d->nnz));
    PetscCall(GKCsrSortRows_Private(m, ia, (PetscInt *)ja, v, sorted));
    PetscCall(MatSeqAIJRestoreArrayWrite(M, &v));
  }
  PetscCall(MatSeqAIJSetColumnIndices(M, (PetscInt *)ja)); /* onto itself: the rows' lengths set */
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatSetOption(M, MAT_USE_INODES, PETSC_FALSE)); /* the device's products need none, and finding them is a pass over M */
  if (*adopted) {                                          /* before the assembly, whose -mat_view then reads the values through the wrappers */
    PetscCall(MatSeqGKKeepCsr_Private(M, d));
    PetscCall(MatSeqGKHostBehind_Private(M));
  }
  PetscCall(PetscLogEventEnd(GK_MatFromDevice, M, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* The host pattern of M, which has none yet (rowstarts set): SEQAIJ's arrays preallocated from
   the row starts, the kept CSR's columns copied into them and SEQAIJ's assembly, M's object and
   nonzero states kept as they were (its pattern and values are those it had all along) */
PetscErrorCode MatSeqGKMakeHostPattern_Private(Mat M)
{
  Mat_SeqGK       *gk = (Mat_SeqGK *)M->spptr;
  PetscInt         m  = M->rmap->n;
  const PetscInt  *ia, *ja;
  PetscBool        done;
  PetscObjectState state, nzstate = M->nonzerostate;

  PetscFunctionBegin;
  if (!gk->rowstarts) PetscFunctionReturn(0);
  PetscCheck(gk->csr.i && gk->csr.m == m && gk->csr.nnz == gk->rowstarts[m], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "The %s matrix has no host pattern and no device CSR to make it from", gk->fmt->type);
  PetscCall(PetscLogEventBegin(GK_MatFromDevice, M, 0, 0, 0));
  PetscCall(PetscInfo(M, "The host pattern of the %s matrix made from its device CSR (%" PetscInt_FMT " nonzeros)\n", gk->fmt->type, gk->csr.nnz));
  PetscCall(PetscObjectStateGet((PetscObject)M, &state));
  PetscCall(MatSeqGKPatternFromDevice_Private(M, gk->rowstarts, gk->csr.j, gk->csr.nnz, &ia, &ja));
  PetscCall(MatSeqAIJSetColumnIndices(M, (PetscInt *)ja)); /* onto itself: the rows' lengths set */
  PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(PetscFree(gk->rowstarts));
  PetscCall(gk->base.assemblyend(M, MAT_FINAL_ASSEMBLY)); /* SEQAIJ's alone: the device copy is M's already */
  M->assembled            = PETSC_TRUE;
  M->nonzerostate         = nzstate;
  M->ass_nonzerostate     = nzstate;
  ((PetscObject)M)->state = state;
  PetscCall(PetscLogEventEnd(GK_MatFromDevice, M, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKRowStarts_Private(Mat M, const PetscInt **ai)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)M->spptr;
  const PetscInt *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;

  PetscFunctionBegin;
  if (gk->rowstarts) *ai = gk->rowstarts;
  else PetscCall(MatSeqAIJGetCSRAndMemType(M, ai, &aj, &aa, &mtype));
  PetscFunctionReturn(0);
}

/* A numeric step's result dC whose values can go straight into C's device copy: C's pattern
   (the row starts compared where rows: not for a plan's later results, whose first was; the
   columns follow from the operands', whose patterns are unchanged
   since C's nonzero state is the symbolic step's) in the order of C's host matrix, which the
   symbolic step found the device's product gives (each row ascending, as a plan's results are),
   and no COO lists */
static PetscErrorCode MatSeqGKProductInPlace_Private(Mat C, const GKCsr *dC, PetscBool rows, PetscBool *inplace)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)C->spptr;
  const PetscInt *ai;
  PetscInt       *ci;

  PetscFunctionBegin;
  *inplace = PETSC_FALSE;
  PetscCall(MatSeqGKRowStarts_Private(C, &ai));
  if (!gk->prodsorted || gk->coo || dC->m != C->rmap->n || dC->n != C->cmap->n || dC->nnz != ai[C->rmap->n] || gk->nzstate != C->nonzerostate)
    PetscFunctionReturn(0);
  *inplace = PETSC_TRUE;
  if (!rows) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(dC->m + 1, &ci));
  PetscCall(GKMemcpyD2H(ci, dC->i, sizeof(PetscInt) * (size_t)(dC->m + 1)));
  PetscCall(PetscArraycmp(ci, ai, dC->m + 1, inplace));
  PetscCall(PetscFree(ci));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKProductPlanFree_Private(Mat C)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)C->spptr;

  PetscFunctionBegin;
  if (gk->plan) PetscCall(GKDev->spgemmplanfree(&gk->plan));
  PetscFunctionReturn(0);
}

/* C's numeric step through its plan (the backend's spgemmnumeric, logged as the product), made
   at the first, and again where the operands are other matrices or their patterns changed;
   *fresh where it was made now */
static PetscErrorCode MatSeqGKProductPlanNumeric_Private(Mat C, Mat A, Mat P, const GKCsr *dA, const GKCsr *dP, PetscBool ptap, GKCsr *dC,
                                                         PetscBool *fresh, PetscBool *done, char *why, size_t len)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)C->spptr;

  PetscFunctionBegin;
  if (gk->plan && (gk->planid[0] != ((PetscObject)A)->id || gk->planid[1] != ((PetscObject)P)->id || gk->plannz[0] != A->nonzerostate ||
                   gk->plannz[1] != P->nonzerostate))
    PetscCall(MatSeqGKProductPlanFree_Private(C));
  *fresh = (PetscBool)!gk->plan;
  PetscCall(PetscLogEventBegin(GK_SpGEMM, C, 0, 0, 0));
  PetscCall(GKDev->spgemmnumeric(&gk->plan, dA, dP, ptap ? dP : NULL, dC, done, why, len));
  PetscCall(PetscLogEventEnd(GK_SpGEMM, C, 0, 0, 0));
  if (!*done) {
    PetscCall(PetscInfo(C, "%s: no plan for the numeric steps (%s); each computes the product whole\n", ptap ? "MatPtAP" : "MatMatMult", why));
    gk->noplan = PETSC_TRUE;
  }
  if (*fresh && gk->plan) {
    PetscCall(PetscInfo(C, "%s: a plan for the numeric steps made (the operands' patterns analysed once)\n", ptap ? "MatPtAP" : "MatMatMult"));
    gk->planid[0] = ((PetscObject)A)->id;
    gk->planid[1] = ((PetscObject)P)->id;
    gk->plannz[0] = A->nonzerostate;
    gk->plannz[1] = P->nonzerostate;
  }
  PetscFunctionReturn(0);
}

/* C's product of two sequential device matrices (below) */
static PetscErrorCode MatProductGKDeviceSeq_Private(Mat C, PetscBool symbolic, PetscBool *done)
{
  Mat_Product *p = C->product;
  Mat          A = p->A, P = p->B;
  PetscBool    ptap = (PetscBool)(p->type == MATPRODUCT_PtAP);
  GKCsr        dA = {0, 0, 0, NULL, NULL, NULL}, dP = dA, dC = dA;
  PetscBool    keep, sorted = PETSC_FALSE, inplace = PETSC_FALSE, adopted, plan, fresh = PETSC_FALSE, ascending = PETSC_FALSE;
  char         why[256] = "";

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!A->rmap->n || !A->cmap->n || !P->rmap->n || !P->cmap->n) PetscFunctionReturn(0);
  PetscCall(MatSeqGKCsrToDevice_Private(A, &dA));
  PetscCall(MatSeqGKCsrToDevice_Private(P, &dP));
  PetscCall(GKMatIsDevice_Private(C, &plan, NULL)); /* a numeric step of a device result, whose backend keeps plans */
  plan = (PetscBool)(plan && !symbolic && GKDev->spgemmnumeric && !((Mat_SeqGK *)C->spptr)->noplan);
  if (dA.nnz && dP.nnz && plan) PetscCall(MatSeqGKProductPlanNumeric_Private(C, A, P, &dA, &dP, ptap, &dC, &fresh, done, why, sizeof(why)));
  if (dA.nnz && dP.nnz && !*done) PetscCall(GKSpGEMM_Private(C, &dA, &dP, ptap ? &dP : NULL, &dC, done, why, sizeof(why)));
  keep = (PetscBool)(dA.i && dA.i == ((Mat_SeqGK *)A->spptr)->csr.i);
  PetscCall(MatSeqGKReleaseCsr_Private(A, &dA));
  PetscCall(MatSeqGKReleaseCsr_Private(P, &dP));
  if (!*done) {
    PetscCall(PetscInfo(C, "%s of %s matrices by PETSc's host code%s%s\n", ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name,
                        why[0] ? ": " : " (an operand with no entries)", why));
    PetscFunctionReturn(0);
  }
  if (!symbolic) PetscCall(MatSeqGKProductInPlace_Private(C, &dC, (PetscBool)(!plan || fresh || !((Mat_SeqGK *)C->spptr)->plan), &inplace));
  if (fresh && !inplace) PetscCall(MatSeqGKProductPlanFree_Private(C)); /* of no use where the values go through the host */
  if (symbolic) {
    PetscCall(PetscInfo(C, "%s of %s matrices on the device (cuSPARSE): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros\n",
                        ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name, dC.m, dC.nnz));
    PetscCall(MatSetSizes(C, dC.m, dC.n, dC.m, dC.n));
    if (ptap) PetscCall(MatSetBlockSizes(C, PetscAbs(P->cmap->bs), PetscAbs(P->cmap->bs)));
    else PetscCall(MatSetBlockSizesFromMats(C, A, P));
    PetscCall(MatSetType(C, ((PetscObject)A)->type_name));                             /* DIA's product is made ELLPACK-R */
    if (GKDev->csrsorted) PetscCall(GKDev->csrsorted(dC.m, dC.i, dC.j, &ascending));   /* then C's host pattern waits until asked for */
    PetscCall(MatSeqGKSetFromDeviceCsr_Private(C, &dC, ascending, &sorted, &adopted)); /* adopted: dC is C's, its arrays NULL here */
    ((Mat_SeqGK *)C->spptr)->prodsorted = sorted;
  } else if (inplace) { /* the same pattern, new values, in the order the symbolic step found */
    PetscCall(
      PetscInfo(C, "%s numeric step on the device: the values set in the device copy, the host's left behind\n", ptap ? "MatPtAP" : "MatMatMult"));
    PetscCall(MatSeqGKSetValuesFromDevice_Private(C, &dC)); /* dC is C's, its arrays NULL here */
  } else {                                                  /* the same pattern, new values, through the host */
    const PetscInt *ia, *ja;
    PetscInt        m, *ci, *cj;
    PetscScalar    *ca, *v;
    PetscBool       same, ok;

    PetscCall(PetscMalloc3(dC.m + 1, &ci, dC.nnz, &cj, dC.nnz, &ca));
    PetscCall(GKMemcpyD2H(ci, dC.i, sizeof(PetscInt) * (size_t)(dC.m + 1)));
    PetscCall(GKMemcpyD2H(cj, dC.j, sizeof(PetscInt) * (size_t)dC.nnz));
    PetscCall(GKMemcpyD2H(ca, dC.a, sizeof(PetscScalar) * (size_t)dC.nnz));
    PetscCall(GKCsrSortRows_Private(dC.m, ci, cj, ca, &sorted));
    PetscCall(MatGetRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &ok));
    same = (PetscBool)(ok && m == dC.m && ia[m] == dC.nnz);
    if (same) PetscCall(PetscArraycmp(ia, ci, m + 1, &same));
    if (same) PetscCall(PetscArraycmp(ja, cj, dC.nnz, &same));
    PetscCall(MatRestoreRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &ok));
    if (same) {
      PetscCall(MatSeqGKHostSync_Private(C, PETSC_FALSE)); /* values left behind before: replaced whole */
      PetscCall(MatSeqAIJGetArrayWrite(C, &v));
      PetscCall(PetscArraycpy(v, ca, dC.nnz));
      PetscCall(MatSeqAIJRestoreArrayWrite(C, &v));
    }
    PetscCall(PetscFree3(ci, cj, ca));
    if (!same) PetscCall(GKCsrFree_Private(&dC));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
               "The operands' nonzero patterns changed since the product was made: make it again with MAT_INITIAL_MATRIX");
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  /* where A's device CSR is kept (PCGAMG's setup on the device, agggpu.c), C keeps its own, for
     the next level's graph and products; only as the host holds it, each row ascending */
  if (dC.i && keep && sorted) PetscCall(MatSeqGKKeepCsr_Private(C, &dC));
  else PetscCall(GKCsrFree_Private(&dC));
  PetscFunctionReturn(0);
}

/* C's product computed on the device: with symbolic, C made (sizes, A's device type, the
   pattern and the values); else C's values, its pattern checked to be the product's. *done
   false where the backend could not (nothing changed then; on every process alike for MPI
   matrices). */
PetscErrorCode MatProductGKDevice_Private(Mat C, PetscBool symbolic, PetscBool *done)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(C->product->A, NULL, &mpi));
  if (mpi) PetscCall(MatProductGKDeviceMPI_Private(C, symbolic, done));
  else PetscCall(MatProductGKDeviceSeq_Private(C, symbolic, done));
  PetscFunctionReturn(0);
}

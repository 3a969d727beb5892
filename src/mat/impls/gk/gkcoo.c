/*
   COO assembly of the sequential device matrices (MatSetPreallocationCOO(), MatSetValuesCOO()):
   the indices checked, then the AIJ type's own preallocation; PETSc's jmap/perm lists made from
   it and the entries summed on the device into the format; the host matrix given the sums by one
   copy (values from host memory) or left behind (values from device memory), and brought up to
   date when a host operation reads it (MatSeqGKHostSync_Private()).
*/
#include "gkmat.h"

static PetscErrorCode MatSeqGKCOOCopyDown_Private(Mat);

/* The base type's own COO functions (not exported), found once on a new matrix of that type */
PetscErrorCode MatGKCOOBase_Private(PetscBool mpi, const GKCOOBase **base)
{
  static GKCOOBase found[2];
  const int        t = mpi ? 1 : 0;

  PetscFunctionBegin;
  if (!found[t].prealloc || !found[t].values) {
    Mat T;

    PetscCall(MatCreate(PETSC_COMM_SELF, &T));
    PetscCall(MatSetType(T, mpi ? MATMPIAIJ : MATSEQAIJ));
    PetscCall(PetscObjectQueryFunction((PetscObject)T, "MatSetPreallocationCOO_C", &found[t].prealloc));
    PetscCall(PetscObjectQueryFunction((PetscObject)T, "MatSetValuesCOO_C", &found[t].values));
    PetscCall(MatDestroy(&T));
    PetscCheck(found[t].prealloc && found[t].values, PETSC_COMM_SELF, PETSC_ERR_SUP, "This PETSc's %s has no COO assembly (MatSetPreallocationCOO())",
               mpi ? MATMPIAIJ : MATSEQAIJ);
  }
  *base = &found[t];
  PetscFunctionReturn(0);
}

/* Every index checked against the global sizes: PETSc 3.18's SEQAIJ does not check, and writes
   past its arrays */
PetscErrorCode MatGKCOOCheck_Private(Mat A, PetscCount n, const PetscInt i[], const PetscInt j[])
{
  PetscInt M, N;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &M, &N));
  for (PetscCount k = 0; k < n; k++)
    PetscCheck(i[k] < M && j[k] < N, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "MatSetPreallocationCOO(): entry %" PetscCount_FMT " is (%" PetscInt_FMT ", %" PetscInt_FMT "), outside the %" PetscInt_FMT
               " x %" PetscInt_FMT " matrix: a negative row or column drops its entry, the others must be below the global sizes",
               k, i[k], j[k], M, N);
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKComposeCOO_Private(Mat B, GKCOOPreallocFn prealloc, GKCOOValuesFn values)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetPreallocationCOO_C", prealloc));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatSetValuesCOO_C", values));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKCOOReset_Private(Mat A)
{
  GKCoo *coo = ((Mat_SeqGK *)A->spptr)->coo;

  PetscFunctionBegin;
  if (!coo) PetscFunctionReturn(0);
  if (coo->pinned) PetscCall(GKDev->hostunregister(coo->pinned)); /* before AIJ frees it */
  PetscCall(GKFree(coo->jmap));
  PetscCall(GKFree(coo->perm));
  PetscCall(GKFree(coo->jmap2));
  PetscCall(GKFree(coo->perm2));
  PetscCall(GKFree(coo->ai));
  PetscCall(GKFree(coo->aj));
  PetscCall(PetscFree2(coo->hai, coo->haj));
  PetscCall(GKFree(coo->val));
  PetscCall(GKFree(coo->v));
  PetscCall(PetscFree(((Mat_SeqGK *)A->spptr)->coo));
  PetscFunctionReturn(0);
}

/* The lists of PETSc's COO assembly (its jmap and perm) for n entries of A's pattern (negative
   indices: dropped), on the device: nonzero p sums the entries perm[jmap[p]] ... Each entry's
   nonzero is found in its row (AIJ's columns are sorted); the entries summed into one nonzero
   keep their order. */
static PetscErrorCode MatSeqGKCOOMakeLists_Private(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], PetscCount **djmap,
                                                   PetscCount **dperm, PetscCount *nperm)
{
  const PetscInt  m = A->rmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  PetscCount     *jmap, *perm, *at, *next;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCall(PetscCalloc1(ai[m] + 1, &jmap));
  PetscCall(PetscMalloc1(n, &at));
  for (PetscCount k = 0; k < n; k++) {
    PetscInt loc = -1;

    at[k] = -1;
    if (ci[k] < 0 || cj[k] < 0) continue; /* dropped, as AIJ drops it */
    PetscCall(PetscFindInt(cj[k], ai[ci[k] + 1] - ai[ci[k]], aj + ai[ci[k]], &loc));
    PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "COO entry %" PetscCount_FMT " (%" PetscInt_FMT ", %" PetscInt_FMT ") is not among the nonzeros AIJ's MatSetPreallocationCOO() made",
               k, ci[k], cj[k]);
    at[k] = ai[ci[k]] + loc;
    jmap[at[k] + 1]++;
  }
  for (PetscInt p = 0; p < ai[m]; p++) jmap[p + 1] += jmap[p];
  PetscCall(PetscMalloc2(jmap[ai[m]], &perm, ai[m], &next));
  PetscCall(PetscArraycpy(next, jmap, ai[m]));
  for (PetscCount k = 0; k < n; k++)
    if (at[k] >= 0) perm[next[at[k]]++] = k;
  *nperm = jmap[ai[m]];
  PetscCall(GKMallocH2D(ai[m] + 1, jmap, djmap));
  PetscCall(GKMallocH2D(*nperm, perm, dperm));
  PetscCall(PetscFree(jmap));
  PetscCall(PetscFree(at));
  PetscCall(PetscFree2(perm, next));
  PetscFunctionReturn(0);
}

/* The lists for the entries MatSetPreallocationCOO() was given (n) and, for an MPI matrix's
   block, for the other processes' sums (nr), with the pattern, on the device */
PetscErrorCode MatSeqGKCOOSetLists_Private(Mat A, PetscCount n, const PetscInt ci[], const PetscInt cj[], PetscCount nr, const PetscInt ri[],
                                           const PetscInt rj[])
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  const PetscInt  m  = A->rmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  GKCoo          *coo;

  PetscFunctionBegin;
  PetscCall(MatSeqGKCOOReset_Private(A));
  PetscCall(PetscNew(&coo));
  gk->coo = coo;
  PetscCall(MatSeqGKCOOMakeLists_Private(A, n, ci, cj, &coo->jmap, &coo->perm, &coo->nperm));
  if (nr) PetscCall(MatSeqGKCOOMakeLists_Private(A, nr, ri, rj, &coo->jmap2, &coo->perm2, &coo->nperm2));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  coo->n   = n;
  coo->nnz = ai[m];
  PetscCall(PetscMalloc2(m + 1, &coo->hai, ai[m], &coo->haj));
  PetscCall(PetscArraycpy(coo->hai, ai, m + 1));
  PetscCall(PetscArraycpy(coo->haj, aj, ai[m]));
  PetscCall(GKMallocH2D(m + 1, ai, &coo->ai));
  PetscCall(GKMallocH2D(ai[m], aj, &coo->aj));
  PetscCall(GKMalloc(ai[m], &coo->val));
  PetscFunctionReturn(0);
}

/* Indices checked, AIJ's preallocation (which may reorder i and j: the lists take a copy), then
   the lists */
static PetscErrorCode MatSetPreallocationCOO_SeqGK(Mat A, PetscCount n, PetscInt i[], PetscInt j[])
{
  const GKCOOBase *base;
  PetscInt        *ci, *cj;

  PetscFunctionBegin;
  PetscCall(MatGKCOOCheck_Private(A, n, i, j));
  PetscCall(MatGKCOOBase_Private(PETSC_FALSE, &base));
  PetscCall(MatSeqGKCOOReset_Private(A));
  PetscCall(PetscMalloc2(n, &ci, n, &cj));
  PetscCall(PetscArraycpy(ci, i, n));
  PetscCall(PetscArraycpy(cj, j, n));
  PetscCall((*base->prealloc)(A, n, i, j));
  PetscCall(MatSeqGKCOOSetLists_Private(A, n, ci, cj, 0, NULL, NULL));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

/* The values (dv: device, the entries'; drv: device, the other processes' sums, or NULL)
   summed into the device copy. With behind, the host values are left behind (values given from
   device memory: the next step is likely a solve on the device); else the device copy gives the
   host matrix its values by one copy down now. The assembly MatSetValuesCOO() ends with finds
   the device copy current (MatAssemblyEnd_SeqGK). */
PetscErrorCode MatSeqGKCOOSetValues_Private(Mat A, const PetscScalar dv[], const PetscScalar drv[], InsertMode imode, PetscBool behind)
{
  Mat_SeqGK       *gk  = (Mat_SeqGK *)A->spptr;
  GKCoo           *coo = gk->coo;
  const PetscBool  add = imode == INSERT_VALUES ? PETSC_FALSE : PETSC_TRUE; /* AIJ's rule */
  PetscObjectState state;

  PetscFunctionBegin;
  if (!coo->nzstate) coo->nzstate = A->nonzerostate; /* the state MatSetPreallocationCOO() left */
  if (coo->nzstate != A->nonzerostate) {
    /* the nonzero state moves on where the pattern did not change (SEQAIJ's MatZeroRows() of no
       rows, an assembly that added no entry): the pattern itself is compared */
    const PetscInt *ai, *aj;
    PetscScalar    *aa;
    PetscMemType    mtype;
    PetscBool       same;

    PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
    PetscCall(PetscArraycmp(coo->hai, ai, A->rmap->n + 1, &same));
    if (same) PetscCall(PetscArraycmp(coo->haj, aj, ai[A->rmap->n], &same));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
               "The nonzero pattern of the %s matrix changed after MatSetPreallocationCOO(): call MatSetPreallocationCOO() again before "
               "MatSetValuesCOO()",
               gk->fmt->type);
    coo->nzstate = A->nonzerostate;
  }
  /* the layout, made at the first values (before MatSetValuesCOO()'s first assembly: the pattern
     is final); after that every value is written below, and nothing need go up first */
  if (gk->nzstate != A->nonzerostate) PetscCall(MatSeqGKBuildDevice_Private(A));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (add && coo->valstate != state) { /* the values added to are the host matrix's */
    const PetscScalar *ha;

    PetscCall(MatSeqAIJGetArrayRead(A, &ha));
    PetscCall(GKMemcpyH2D(coo->val, ha, (size_t)coo->nnz * sizeof(PetscScalar)));
    PetscCall(MatSeqAIJRestoreArrayRead(A, &ha));
  }
  PetscCall(GKDev->cooscatter(coo->nnz, coo->jmap, coo->perm, dv, add, coo->val));
  GK_COUNT_BYTES((double)(coo->nnz + 1 + coo->nperm) * sizeof(PetscCount) + (double)coo->nperm * sizeof(PetscScalar) +
                 (double)(add ? 2 : 1) * coo->nnz * sizeof(PetscScalar));
  if (drv && coo->jmap2) {
    PetscCall(GKDev->cooscatter(coo->nnz, coo->jmap2, coo->perm2, drv, PETSC_TRUE, coo->val));
    GK_COUNT_BYTES((double)(coo->nnz + 1 + coo->nperm2) * sizeof(PetscCount) + (double)coo->nperm2 * sizeof(PetscScalar) +
                   2.0 * coo->nnz * sizeof(PetscScalar));
  }
  PetscCall(gk->fmt->setvalues(A, coo->ai, coo->aj, coo->val));
  if (behind) PetscCall(MatSeqGKHostBehind_Private(A));
  else {
    PetscCall(MatSeqGKHostSync_Private(A, PETSC_FALSE)); /* the values of an earlier call left behind: these replace them */
    PetscCall(MatSeqGKCOOCopyDown_Private(A));
  }
  coo->pending = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The host matrix given the device copy's values (coo->val) */
static PetscErrorCode MatSeqGKCOOCopyDown_Private(Mat A)
{
  GKCoo       *coo = ((Mat_SeqGK *)A->spptr)->coo;
  PetscScalar *aa;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayWrite(A, &aa));
  if (GKDev->hostregister && aa != coo->tried) { /* page-locked once: a copy into pageable memory runs at a fraction of the bus's speed */
    PetscBool ok;

    if (coo->pinned) PetscCall(GKDev->hostunregister(coo->pinned));
    PetscCall(GKDev->hostregister(aa, (size_t)coo->nnz * sizeof(PetscScalar), &ok));
    coo->pinned = ok ? aa : NULL;
    coo->tried  = aa;
  }
  PetscCall(GKMemcpyD2H(aa, coo->val, (size_t)coo->nnz * sizeof(PetscScalar)));
  PetscCall(MatSeqAIJRestoreArrayWrite(A, &aa));
  PetscFunctionReturn(0);
}

/* The host values behind the device copy's: the operations wrapped (gkhost.c) */
PetscErrorCode MatSeqGKHostBehind_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (gk->behind) PetscFunctionReturn(0);
  PetscCall(MatGKHostWrap_Private(A, &gk->own, PETSC_FALSE));
  PetscCall(MatGKHostComposed_Private(A, PETSC_TRUE, gk->owncomposed));
  gk->behind = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The host values brought up to date: the device copy's copied down where copy is set and the
   host matrix was not written since it fell behind (its state is the device copy's); the
   operations given back. The copy changes none of the matrix's values, so its state stays what
   it was (the write access would move it on, and a PC set up with the matrix would be set up
   again at its next use). */
PetscErrorCode MatSeqGKHostSync_Private(Mat A, PetscBool copy)
{
  Mat_SeqGK       *gk = (Mat_SeqGK *)A->spptr;
  PetscObjectState state;

  PetscFunctionBegin;
  if (!gk->behind) PetscFunctionReturn(0);
  gk->behind = PETSC_FALSE;
  PetscCall(MatGKHostUnwrap_Private(A, &gk->own));
  PetscCall(MatGKHostComposed_Private(A, PETSC_FALSE, gk->owncomposed));
  PetscCall(MatSeqGKMakeHostPattern_Private(A)); /* where it has none yet: the values' place, whoever writes them */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (!copy || (gk->coo && (gk->state != state || gk->nzstate != A->nonzerostate))) PetscFunctionReturn(0);
  PetscCall(PetscInfo(A, "The host values of the %s matrix brought up to date from its device copy\n", gk->fmt->type));
  if (gk->coo) PetscCall(MatSeqGKCOOCopyDown_Private(A));
  else { /* values given from a device CSR, which the matrix keeps (MatSeqGKSetValuesFromDevice_Private):
            nothing wrote the host matrix since, whatever moved its state on (see BuildDevice) */
    PetscScalar *aa;

    PetscCheck(gk->csr.a, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host values of the %s matrix are behind, with no device values to copy",
               gk->fmt->type);
    PetscCall(MatSeqAIJGetArrayWrite(A, &aa));
    PetscCall(GKMemcpyD2H(aa, gk->csr.a, (size_t)gk->csr.nnz * sizeof(PetscScalar)));
    PetscCall(MatSeqAIJRestoreArrayWrite(A, &aa));
    gk->csrstate = gk->state = state; /* the device copy and the CSR kept still the matrix's */
  }
  ((PetscObject)A)->state = state;
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO() on a device matrix preallocated before it was one (no lists of the library's):
   the base type's own assembly, on host values only */
PetscErrorCode MatGKCOOBaseValues_Private(Mat A, PetscBool mpi, const char *type, const PetscScalar v[], InsertMode imode)
{
  const GKCOOBase *base;
  PetscBool        dev;

  PetscFunctionBegin;
  PetscCall(GKDev->ondevice(v, &dev));
  PetscCheck(!dev, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "MatSetValuesCOO() with values in device memory needs MatSetPreallocationCOO() on the %s matrix itself (it was preallocated as another "
             "type)",
             type);
  PetscCall(MatGKCOOBase_Private(mpi, &base));
  PetscCall((*base->values)(A, v, imode));
  PetscFunctionReturn(0);
}

/* MatSetValuesCOO()'s n values as a device array: v where it is device memory (*dev set), else
   a copy of v up in *stage (made at its first use) */
PetscErrorCode MatGKCOOStage_Private(PetscCount n, const PetscScalar v[], PetscScalar **stage, const PetscScalar **dv, PetscBool *dev)
{
  PetscFunctionBegin;
  PetscCall(GKDev->ondevice(v, dev));
  *dv = v;
  if (*dev || !n) PetscFunctionReturn(0);
  if (!*stage) PetscCall(GKMalloc(n, stage));
  PetscCall(GKMemcpyH2D(*stage, v, (size_t)n * sizeof(PetscScalar)));
  *dv = *stage;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetValuesCOO_SeqGK(Mat A, const PetscScalar v[], InsertMode imode)
{
  Mat_SeqGK         *gk  = (Mat_SeqGK *)A->spptr;
  GKCoo             *coo = gk->coo;
  const PetscScalar *dv;
  PetscBool          dev;

  PetscFunctionBegin;
  if (!coo) {
    PetscCall(MatGKCOOBaseValues_Private(A, PETSC_FALSE, gk->fmt->type, v, imode));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGKCOOStage_Private(coo->n, v, &coo->v, &dv, &dev));
  PetscCall(MatSeqGKCOOSetValues_Private(A, dv, NULL, imode, dev));
  PetscFunctionReturn(0);
}

/* Composes (or, with on false, removes) the COO functions on a sequential device matrix */
PetscErrorCode MatSeqGKComposeCOO_Private(Mat B, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(MatGKComposeCOO_Private(B, on ? MatSetPreallocationCOO_SeqGK : NULL, on ? MatSetValuesCOO_SeqGK : NULL));
  PetscFunctionReturn(0);
}

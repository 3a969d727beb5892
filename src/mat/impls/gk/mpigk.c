/*
   The MPI device matrices (mpiellrcuda, mpidiacuda): an MPIAIJ whose diagonal block is a
   sequential device matrix of the format and whose off-diagonal block is a sliced ELLPACK-R
   matrix (its columns are the compacted ghost columns, where diagonals mean nothing), both
   made after each final assembly. Products do their own halo exchange: the owned entries other
   processes need are gathered on the device, staged through host buffers and sent with
   nonblocking MPI along the neighbour lists of a PetscSF built from the off-diagonal block's
   global columns (PETSc's PetscSF never sees device memory); the diagonal block's product runs
   while the messages travel, then the off-diagonal block's product adds in. PETSc's own
   MatMult_MPIAIJ would copy all of x to the host on every product.
*/
#include "mpigk.h"
#include "vec/impls/cuda/gkvec.h"
#include <petscsf.h>

/* exported by libpetsc, not declared in its headers */
PETSC_EXTERN PetscErrorCode MatCreate_MPIAIJ(Mat);

/* What the halo's kernels move at the least (GK_COUNT_BYTES): a gather reads an index and an
   entry and writes one; a scatter-add reads an index and two entries and writes one */
static inline double GKGatherBytes_Private(PetscInt n)
{
  return (double)n * (sizeof(PetscInt) + 2 * sizeof(PetscScalar));
}

static inline double GKScatterBytes_Private(PetscInt n)
{
  return (double)n * (sizeof(PetscInt) + 3 * sizeof(PetscScalar));
}

/* The diagonal and off-diagonal blocks and the ghosts' global columns. MatMPIAIJGetSeqAIJ()
   accepts only type names beginning with "mpiaij"; these matrices are MPIAIJ underneath, so
   it is called with that name in place for the moment of the call. */
PetscErrorCode MatMPIGKGetBlocks_Private(Mat A, Mat *Ad, Mat *Ao, const PetscInt **garray)
{
  char          *name = ((PetscObject)A)->type_name;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ((PetscObject)A)->type_name = (char *)MATMPIAIJ;
  ierr                        = MatMPIAIJGetSeqAIJ(A, Ad, Ao, garray);
  ((PetscObject)A)->type_name = name;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* staging memory, or device memory when MPI takes it */
static PetscErrorCode MatMPIGKBufMalloc_Private(Mat_MPIGK *mg, PetscInt n, PetscScalar **p)
{
  PetscFunctionBegin;
  if (mg->aware) PetscCall(GKMalloc(n, p));
  else PetscCall(GKDev->hostmalloc((size_t)n * sizeof(PetscScalar), (void **)p));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMPIGKBufFree_Private(Mat_MPIGK *mg, PetscScalar **p)
{
  PetscFunctionBegin;
  if (mg->aware) PetscCall(GKFree(*p));
  else PetscCall(GKDev->hostfree(*p));
  *p = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMPIGKFreeLists_Private(Mat_MPIGK *mg)
{
  PetscFunctionBegin;
  PetscCall(PetscSFDestroy(&mg->sf));
  PetscCall(MatMPIGKBufFree_Private(mg, &mg->sendbuf));
  PetscCall(MatMPIGKBufFree_Private(mg, &mg->ghostbuf));
  PetscCall(MatMPIGKBufFree_Private(mg, &mg->recvbuf));
  PetscCall(PetscFree(mg->reqs));
  PetscCall(GKFree(mg->dsidx));
  PetscCall(GKFree(mg->dridx));
  PetscCall(GKFree(mg->dslots));
  PetscCall(VecDestroy(&mg->lvec));
  mg->haveslots = PETSC_FALSE;
  mg->nsr = mg->nrr = 0;
  mg->nzstate       = -1;
  PetscFunctionReturn(0);
}

/* The blocks as device matrices: after any assembly that left them SEQAIJ */
PetscErrorCode MatMPIGKConvertBlocks_Private(Mat A)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad, Ao;
  PetscBool  isgk;

  PetscFunctionBegin;
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ad, mg->fmt->type, &isgk));
  if (!isgk) PetscCall(MatConvert_SeqAIJ_SeqGK_Private(Ad, mg->fmt, MAT_INPLACE_MATRIX, &Ad));
  PetscCall(PetscObjectTypeCompare((PetscObject)Ao, GKFormatDefault->type, &isgk));
  if (!isgk) PetscCall(MatConvert_SeqAIJ_SeqGK_Private(Ao, GKFormatDefault, MAT_INPLACE_MATRIX, &Ao));
  /* also when MPIAIJ remade the block with its type (new nonzeros after assembly) */
  PetscCall(GKFormatDefault->offdiag(Ao));
  if (mg->fmt->mpiblocks) PetscCall(mg->fmt->mpiblocks(A, Ad, Ao));
  if (mg->storageset) {
    PetscCall(MatGPUKitSetStorage(Ad, mg->storage));
    PetscCall(MatGPUKitSetStorage(Ao, mg->storage));
  }
  PetscFunctionReturn(0);
}

/* The neighbour lists of the halo exchange, from a PetscSF of the ghost columns; made again
   when the nonzero pattern (so the ghosts) changed */
static PetscErrorCode MatMPIGKSetUpHalo_Private(Mat A)
{
  Mat_MPIGK      *mg = (Mat_MPIGK *)A->spptr;
  Mat             Ad, Ao;
  const PetscInt *garray, *rremote;
  PetscInt        nghost;
  PetscBool       inorder = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(A->assembled, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE,
             "The %s matrix must be assembled before products (MatAssemblyBegin/End)", mg->fmt->mpitype);
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, &garray));
  if (mg->nzstate == A->nonzerostate && mg->garray == garray) PetscFunctionReturn(0);
  PetscCall(MatMPIGKFreeLists_Private(mg));
  PetscCall(PetscGPUKitMPIDeviceMemory_Private(&mg->aware));
  nghost = Ao->cmap->n;
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &mg->sf));
  PetscCall(PetscSFSetGraphLayout(mg->sf, A->cmap, nghost, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFSetUp(mg->sf));
  PetscCall(PetscSFGetRootRanks(mg->sf, &mg->nrr, &mg->rranks, &mg->roff, &mg->ridx, &rremote)); /* owners of my ghosts */
  PetscCall(PetscSFGetLeafRanks(mg->sf, &mg->nsr, &mg->sranks, &mg->soff, &mg->sidx));           /* who needs what I own */
  for (PetscInt k = 0; k < mg->roff[mg->nrr]; k++) inorder = (PetscBool)(inorder && mg->ridx[k] == k);
  PetscCall(MatMPIGKBufMalloc_Private(mg, mg->soff[mg->nsr], &mg->sendbuf));
  PetscCall(MatMPIGKBufMalloc_Private(mg, nghost, &mg->ghostbuf));
  if (!inorder) {
    PetscCall(MatMPIGKBufMalloc_Private(mg, nghost, &mg->recvbuf));
    if (mg->aware) PetscCall(GKMallocH2D(nghost, mg->ridx, &mg->dridx));
  }
  PetscCall(PetscMalloc1(mg->nsr + mg->nrr, &mg->reqs));
  PetscCall(GKMallocH2D(mg->soff[mg->nsr], mg->sidx, &mg->dsidx));
  PetscCall(VecCreate(PETSC_COMM_SELF, &mg->lvec));
  PetscCall(VecSetSizes(mg->lvec, nghost, nghost));
  PetscCall(VecSetType(mg->lvec, VECSEQGKCUDA));
  mg->nghost  = nghost;
  mg->garray  = garray;
  mg->nzstate = A->nonzerostate;
  PetscCall(PetscInfo(A,
                      "Halo exchange: %" PetscInt_FMT " ghosts from %" PetscInt_FMT " processes, %" PetscInt_FMT " entries to %" PetscInt_FMT
                      " processes, through %s memory\n",
                      nghost, mg->nrr, mg->soff[mg->nsr], mg->nsr, mg->aware ? "device" : "pinned host"));
  PetscFunctionReturn(0);
}

/* Forward exchange: the ghosts' receives posted, then sendbuf (packed already) sent */
static PetscErrorCode MatMPIGKHaloPost_Private(Mat A)
{
  Mat_MPIGK   *mg   = (Mat_MPIGK *)A->spptr;
  PetscScalar *recv = mg->recvbuf ? mg->recvbuf : mg->ghostbuf;
  MPI_Comm     comm;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  for (PetscInt r = 0; r < mg->nrr; r++)
    PetscCallMPI(
      MPI_Irecv(recv + mg->roff[r], (PetscMPIInt)(mg->roff[r + 1] - mg->roff[r]), MPIU_SCALAR, mg->rranks[r], mg->tag, comm, &mg->reqs[r]));
  for (PetscInt r = 0; r < mg->nsr; r++)
    PetscCallMPI(MPI_Isend(mg->sendbuf + mg->soff[r], (PetscMPIInt)(mg->soff[r + 1] - mg->soff[r]), MPIU_SCALAR, mg->sranks[r], mg->tag, comm,
                           &mg->reqs[mg->nrr + r]));
  PetscFunctionReturn(0);
}

/* Forward exchange, ended: the ghosts in ghost order in ghostbuf */
static PetscErrorCode MatMPIGKHaloWait_Private(Mat A)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Waitall((PetscMPIInt)(mg->nrr + mg->nsr), mg->reqs, MPI_STATUSES_IGNORE));
  if (!mg->recvbuf) PetscFunctionReturn(0);
  if (mg->aware) { /* every ghost arrives once: a scatter-add onto zeros puts it in place */
    PetscCall(GKDev->memzero(mg->ghostbuf, (size_t)mg->nghost * sizeof(PetscScalar)));
    PetscCall(GKDev->scatteradd(mg->nghost, mg->dridx, mg->recvbuf, mg->ghostbuf));
    GK_COUNT_BYTES(GKScatterBytes_Private(mg->nghost) + (double)sizeof(PetscScalar) * mg->nghost);
  } else
    for (PetscInt k = 0; k < mg->nghost; k++) mg->ghostbuf[mg->ridx[k]] = mg->recvbuf[k];
  PetscFunctionReturn(0);
}

/* The entries of the device array xd that others need, packed into sendbuf by a kernel */
static PetscErrorCode MatMPIGKHaloPackDevice_Private(Mat A, const PetscScalar *xd)
{
  Mat_MPIGK     *mg = (Mat_MPIGK *)A->spptr;
  const PetscInt ns = mg->soff[mg->nsr];

  PetscFunctionBegin;
  PetscCall(GKDev->gather(ns, mg->dsidx, xd, mg->sendbuf));
  GK_COUNT_BYTES(GKGatherBytes_Private(ns));
  if (ns) PetscCall(GKDev->synchronize()); /* the kernel's writes done before MPI reads them */
  PetscFunctionReturn(0);
}

/* Forward exchange, begun: the entries of x others need packed (by a kernel for a device
   vector) and sent; the ghosts' receives posted */
static PetscErrorCode MatMPIGKHaloBegin_Private(Mat A, Vec x)
{
  Mat_MPIGK     *mg = (Mat_MPIGK *)A->spptr;
  const PetscInt ns = mg->soff[mg->nsr];

  PetscFunctionBegin;
  if (VecIsGK(x)) {
    const PetscScalar *xd;

    PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
    PetscCall(MatMPIGKHaloPackDevice_Private(A, xd));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(x, &xd));
  } else {
    const PetscScalar *xa;
    PetscScalar       *h = mg->sendbuf;

    if (mg->aware) PetscCall(PetscMalloc1(ns, &h));
    PetscCall(VecGetArrayRead(x, &xa));
    for (PetscInt k = 0; k < ns; k++) h[k] = xa[mg->sidx[k]];
    PetscCall(VecRestoreArrayRead(x, &xa));
    if (mg->aware) {
      PetscCall(GKMemcpyH2D(mg->sendbuf, h, (size_t)ns * sizeof(PetscScalar)));
      PetscCall(PetscFree(h));
    }
  }
  PetscCall(MatMPIGKHaloPost_Private(A));
  PetscFunctionReturn(0);
}

/* Forward exchange, ended: the ghosts in the device vector lvec */
static PetscErrorCode MatMPIGKHaloEnd_Private(Mat A)
{
  Mat_MPIGK   *mg = (Mat_MPIGK *)A->spptr;
  PetscScalar *ld;

  PetscFunctionBegin;
  PetscCall(MatMPIGKHaloWait_Private(A));
  PetscCall(VecGPUKitGetDeviceArrayWrite(mg->lvec, &ld));
  if (mg->aware) PetscCall(GKMemcpyD2D(ld, mg->ghostbuf, (size_t)mg->nghost * sizeof(PetscScalar)));
  else PetscCall(GKMemcpyH2D(ld, mg->ghostbuf, (size_t)mg->nghost * sizeof(PetscScalar)));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(mg->lvec, &ld));
  PetscFunctionReturn(0);
}

/* z = A x (+ v), or z = v - A x with neg (MatResidual): the ghosts travel while the diagonal
   block multiplies; the off-diagonal block's product is then added to (subtracted from) z in
   place, in the same pass as its own */
static PetscErrorCode MatMultAny_MPIGK(Mat A, Vec x, Vec v, PetscBool neg, Vec z)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIGKSetUpHalo_Private(A));
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatMPIGKHaloBegin_Private(A, x));
  if (neg) PetscCall((*Ad->ops->residual)(Ad, v, x, z));
  else if (v) PetscCall((*Ad->ops->multadd)(Ad, x, v, z));
  else PetscCall((*Ad->ops->mult)(Ad, x, z));
  PetscCall(MatMPIGKHaloEnd_Private(A));
  if (mg->nghost && neg) PetscCall(MatSeqGKMultSub_Private(Ao, mg->lvec, z));
  else if (mg->nghost) PetscCall((*Ao->ops->multadd)(Ao, mg->lvec, z, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_MPIGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultAny_MPIGK(A, x, NULL, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_MPIGK(Mat A, Vec x, Vec v, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMultAny_MPIGK(A, x, v, PETSC_FALSE, z));
  PetscFunctionReturn(0);
}

/* r = b - A x: each block's product subtracted in its own pass (MatResidual_SeqGK); r must
   differ from x and b (MatGKResidualCheck_Private says why) */
static PetscErrorCode MatResidual_MPIGK(Mat A, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCall(MatGKResidualCheck_Private(A, b, x, r));
  PetscCall(MatMultAny_MPIGK(A, x, b, PETSC_TRUE, r));
  PetscFunctionReturn(0);
}

/* Reverse exchange, begun: the ghosts' values in ghostbuf (ghost order) go back to their
   owners; the owners' receives land in sendbuf */
static PetscErrorCode MatMPIGKReverseBegin_Private(Mat A)
{
  Mat_MPIGK   *mg   = (Mat_MPIGK *)A->spptr;
  PetscScalar *pack = mg->ghostbuf;
  MPI_Comm     comm;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  if (mg->recvbuf) { /* packed by owner */
    pack = mg->recvbuf;
    if (mg->aware) {
      PetscCall(GKDev->gather(mg->nghost, mg->dridx, mg->ghostbuf, pack));
      GK_COUNT_BYTES(GKGatherBytes_Private(mg->nghost));
    } else
      for (PetscInt k = 0; k < mg->nghost; k++) pack[k] = mg->ghostbuf[mg->ridx[k]];
  }
  if (mg->aware && mg->recvbuf) PetscCall(GKDev->synchronize());
  for (PetscInt r = 0; r < mg->nsr; r++)
    PetscCallMPI(
      MPI_Irecv(mg->sendbuf + mg->soff[r], (PetscMPIInt)(mg->soff[r + 1] - mg->soff[r]), MPIU_SCALAR, mg->sranks[r], mg->tag, comm, &mg->reqs[r]));
  for (PetscInt r = 0; r < mg->nrr; r++)
    PetscCallMPI(
      MPI_Isend(pack + mg->roff[r], (PetscMPIInt)(mg->roff[r + 1] - mg->roff[r]), MPIU_SCALAR, mg->rranks[r], mg->tag, comm, &mg->reqs[mg->nsr + r]));
  PetscFunctionReturn(0);
}

/* Reverse exchange, ended: what others sent added to my entries, into the device array zd or
   the host array za; one add per sending process, whose indices are distinct */
static PetscErrorCode MatMPIGKReverseEnd_Private(Mat A, PetscScalar *zd, PetscScalar *za)
{
  Mat_MPIGK     *mg = (Mat_MPIGK *)A->spptr;
  const PetscInt ns = mg->soff[mg->nsr];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Waitall((PetscMPIInt)(mg->nrr + mg->nsr), mg->reqs, MPI_STATUSES_IGNORE));
  if (zd)
    for (PetscInt r = 0; r < mg->nsr; r++) {
      PetscCall(GKDev->scatteradd(mg->soff[r + 1] - mg->soff[r], mg->dsidx + mg->soff[r], mg->sendbuf + mg->soff[r], zd));
      GK_COUNT_BYTES(GKScatterBytes_Private(mg->soff[r + 1] - mg->soff[r]));
    }
  else {
    PetscScalar *h = mg->sendbuf;

    if (mg->aware) {
      PetscCall(PetscMalloc1(ns, &h));
      PetscCall(GKMemcpyD2H(h, mg->sendbuf, (size_t)ns * sizeof(PetscScalar)));
    }
    for (PetscInt k = 0; k < ns; k++) za[mg->sidx[k]] += h[k];
    if (mg->aware) PetscCall(PetscFree(h));
  }
  PetscFunctionReturn(0);
}

/* z = op(A) x (+ v), op the transpose or the Hermitian transpose: the off-diagonal block's
   product lands on the ghosts, which go back to their owners and are added there */
static PetscErrorCode MatMultTransposeAny_MPIGK(Mat A, PetscBool hermitian, Vec x, Vec v, Vec z)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIGKSetUpHalo_Private(A));
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  if (mg->nghost) { /* lvec = op(Ao) x, then into ghostbuf */
    const PetscScalar *ld;

    if (hermitian) PetscCall((*Ao->ops->multhermitiantranspose)(Ao, x, mg->lvec));
    else PetscCall((*Ao->ops->multtranspose)(Ao, x, mg->lvec));
    PetscCall(VecGPUKitGetDeviceArrayRead(mg->lvec, &ld));
    if (mg->aware) PetscCall(GKMemcpyD2D(mg->ghostbuf, ld, (size_t)mg->nghost * sizeof(PetscScalar)));
    else PetscCall(GKMemcpyD2H(mg->ghostbuf, ld, (size_t)mg->nghost * sizeof(PetscScalar)));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(mg->lvec, &ld));
    if (mg->aware) PetscCall(GKDev->synchronize());
  }
  PetscCall(MatMPIGKReverseBegin_Private(A));
  if (hermitian) {
    if (v) PetscCall((*Ad->ops->multhermitiantransposeadd)(Ad, x, v, z));
    else PetscCall((*Ad->ops->multhermitiantranspose)(Ad, x, z));
  } else {
    if (v) PetscCall((*Ad->ops->multtransposeadd)(Ad, x, v, z));
    else PetscCall((*Ad->ops->multtranspose)(Ad, x, z));
  }
  if (VecIsGK(z)) {
    PetscScalar *zd;

    PetscCall(VecGPUKitGetDeviceArray(z, &zd));
    PetscCall(MatMPIGKReverseEnd_Private(A, zd, NULL));
    PetscCall(VecGPUKitRestoreDeviceArray(z, &zd));
  } else {
    PetscScalar *za;

    PetscCall(VecGetArray(z, &za));
    PetscCall(MatMPIGKReverseEnd_Private(A, NULL, za));
    PetscCall(VecRestoreArray(z, &za));
  }
  PetscFunctionReturn(0);
}

/* The fused solvers (gkksp.c) on these matrices: the diagonal block's device arrays, with its
   A^H ones when asked; the lists of the exchanges and of the off-diagonal block's slots with
   entries (whose rows the ghosts change) made when they are out of date; *offdiag says whether
   the off-diagonal block has any (whether MatMPIGKKrylovOffDiag_Private runs a kernel) */
PetscErrorCode MatMPIGKGetKrylovOperator_Private(Mat A, PetscBool transpose, GKOperator *Ad, PetscBool *offdiag)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Bd, Bo;
  GKOperator Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIGKSetUpHalo_Private(A));
  PetscCall(MatMPIGKGetBlocks_Private(A, &Bd, &Bo, NULL));
  PetscCall(MatSeqGKGetOperator(Bd, transpose, Ad));
  PetscCall(MatSeqGKGetOperator(Bo, transpose, &Ao));
  if (!mg->haveslots) {
    const PetscInt m = Ao.ellr->m;
    PetscInt      *rl, *slots, ns = 0;

    PetscCall(PetscMalloc2(m, &rl, m, &slots));
    PetscCall(GKMemcpyD2H(rl, Ao.ellr->rl, (size_t)m * sizeof(PetscInt)));
    for (PetscInt t = 0; t < m; t++)
      if (rl[t]) slots[ns++] = t;
    PetscCall(GKMallocH2D(ns, slots, &mg->dslots));
    PetscCall(PetscFree2(rl, slots));
    mg->nslots    = ns;
    mg->haveslots = PETSC_TRUE;
  }
  *offdiag = mg->nslots ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The lists of the halo exchange for the fused solvers' gathers that send the direction's
   entries GPU to GPU (device.h, peershalo): the ghost count, the send lists (sranks, soff) and,
   for each entry sent, its position in its receiver's ghost order (*pos, to be freed by the
   caller), which each receiver sends its senders here. Collective. */
PetscErrorCode MatMPIGKGetHaloLists_Private(Mat A, PetscInt *nghost, PetscInt *nsr, const PetscMPIInt **sranks, const PetscInt **soff, PetscInt **pos)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  MPI_Comm   comm;

  PetscFunctionBegin;
  PetscCall(MatMPIGKSetUpHalo_Private(A));
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  PetscCall(PetscMalloc1(mg->soff[mg->nsr], pos));
  for (PetscInt r = 0; r < mg->nsr; r++)
    PetscCallMPI(MPI_Irecv(*pos + mg->soff[r], (PetscMPIInt)(mg->soff[r + 1] - mg->soff[r]), MPIU_INT, mg->sranks[r], mg->tag, comm, &mg->reqs[r]));
  for (PetscInt r = 0; r < mg->nrr; r++)
    PetscCallMPI(MPI_Isend(mg->ridx + mg->roff[r], (PetscMPIInt)(mg->roff[r + 1] - mg->roff[r]), MPIU_INT, mg->rranks[r], mg->tag, comm,
                           &mg->reqs[mg->nsr + r]));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)(mg->nrr + mg->nsr), mg->reqs, MPI_STATUSES_IGNORE));
  *nghost = mg->nghost;
  *nsr    = mg->nsr;
  *sranks = mg->sranks;
  *soff   = mg->soff;
  PetscFunctionReturn(0);
}

/* Step i's direction entries that other processes need, computed into sendbuf by a kernel
   queued now and sent by MatMPIGKKrylovSend_Private() once it ran; with devhalo, sent GPU to
   GPU by the kernel itself */
PetscErrorCode MatMPIGKKrylovGather_Private(Mat A, GKKrylov K, PetscBool devhalo, PetscInt i, const PetscScalar *z, const PetscScalar *pold)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(GKDev->krylovgather(K, i, mg->soff[mg->nsr], mg->dsidx, z, pold, devhalo ? NULL : mg->sendbuf));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMPIGKKrylovSend_Private(Mat A, GKKrylov K)
{
  PetscFunctionBegin;
  PetscCall(GKDev->krylovgatherwait(K));
  PetscCall(MatMPIGKHaloPost_Private(A));
  PetscFunctionReturn(0);
}

/* After the step: the direction's ghosts received, then w += Ao g and that part of dpi into the
   sums' slot 3 (*added says whether it ran); for BiCG also w~ += the off-diagonal part of A^H
   p~, Ao^H p~ on the ghosts sent back to their owners and added there. With devhalo the gathers
   sent the ghosts GPU to GPU (CG and COCG): nothing went through MPI, and the kernel waits on
   the device for them. With single, the block's single-precision values where it stores them
   (as the diagonal block's step read its own), else its double ones. */
PetscErrorCode MatMPIGKKrylovOffDiag_Private(Mat A, GKKrylov K, PetscBool bicg, PetscBool devhalo, PetscBool single, const PetscScalar *p,
                                             PetscScalar *w, const PetscScalar *pt, PetscScalar *wt, PetscBool *added)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Bo;
  GKOperator Ao;
  GKEllr     E, Et;

  PetscFunctionBegin;
  PetscCheck(!devhalo || !bicg, PETSC_COMM_SELF, PETSC_ERR_PLIB, "BiCG's ghosts go through MPI");
  if (!devhalo) PetscCall(MatMPIGKHaloWait_Private(A));
  *added = mg->nslots ? PETSC_TRUE : PETSC_FALSE;
  if (!mg->nslots && !bicg) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, NULL, &Bo, NULL));
  PetscCall(MatSeqGKGetOperator(Bo, bicg, &Ao));
  E = *Ao.ellr; /* the kernels read sval where it is set */
  if (!single) E.sval = NULL;
  if (mg->nslots) PetscCall(GKDev->krylovoffdiag(K, &E, mg->nslots, mg->dslots, devhalo ? NULL : mg->ghostbuf, p, w, pt));
  if (!bicg) PetscFunctionReturn(0);
  if (mg->nghost) {
    Et = *Ao.ellrt;
    if (!single) Et.sval = NULL;
    PetscCall(GKDev->ellrmult(&Et, PETSC_TRUE, pt, NULL, PETSC_FALSE, mg->ghostbuf));
    PetscCall(GKDev->synchronize()); /* the kernel's writes done before MPI reads them */
  }
  PetscCall(MatMPIGKReverseBegin_Private(A));
  PetscCall(MatMPIGKReverseEnd_Private(A, wt, NULL));
  PetscFunctionReturn(0);
}

/* r = b - A x with both blocks' double values whatever the storage, on device arrays (b may be
   r): the fused solvers' residual replacement on several processes. Collective. */
PetscErrorCode MatMPIGKResidualDouble_Private(Mat A, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Bd, Bo;
  GKOperator Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIGKSetUpHalo_Private(A));
  PetscCall(MatMPIGKGetBlocks_Private(A, &Bd, &Bo, NULL));
  PetscCall(MatMPIGKHaloPackDevice_Private(A, x));
  PetscCall(MatMPIGKHaloPost_Private(A));
  PetscCall(MatSeqGKGetOperator(Bd, PETSC_FALSE, &Ad));
  PetscCall(GKOperatorResidualDouble_Private(&Ad, b, x, r));
  PetscCall(MatMPIGKHaloEnd_Private(A));
  if (mg->nghost) {
    const PetscScalar *g;

    PetscCall(MatSeqGKGetOperator(Bo, PETSC_FALSE, &Ao));
    PetscCall(VecGPUKitGetDeviceArrayRead(mg->lvec, &g));
    PetscCall(GKOperatorResidualDouble_Private(&Ao, r, g, r));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(mg->lvec, &g));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTranspose_MPIGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAny_MPIGK(A, PETSC_FALSE, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTransposeAdd_MPIGK(Mat A, Vec x, Vec v, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAny_MPIGK(A, PETSC_FALSE, x, v, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultHermitianTranspose_MPIGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAny_MPIGK(A, PETSC_TRUE, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultHermitianTransposeAdd_MPIGK(Mat A, Vec x, Vec v, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMultTransposeAny_MPIGK(A, PETSC_TRUE, x, v, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_MPIAIJ_MPIGK(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatConvert_MPIGK_MPIAIJ(Mat, MatType, MatReuse, Mat *);

/* Composes (or, with on false, removes) the conversions MatConvert() looks for on a matrix of
   TYPE: into it from MPIAIJ, and back to MPIAIJ (which MatConvert() also finds for MATAIJ) */
/* Composes (or, with on false, removes) MatConvert()'s functions from and to MPIAIJ and the
   format's own composed methods */
/* The storage of the products' values (MatGPUKitSetStorage()), on both blocks now and on those
   MPIAIJ makes anew */
static PetscErrorCode MatGPUKitSetStorage_MPIGK(Mat A, PetscGPUKitStorage storage)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad, Ao;

  PetscFunctionBegin;
  mg->storage    = storage;
  mg->storageset = PETSC_TRUE;
  if (!A->preallocated) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatGPUKitSetStorage(Ad, storage));
  PetscCall(MatGPUKitSetStorage(Ao, storage));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGPUKitGetStorage_MPIGK(Mat A, PetscGPUKitStorage *storage)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad;

  PetscFunctionBegin;
  *storage = mg->storage;
  if (mg->storageset || !A->preallocated) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, NULL, NULL));
  PetscCall(MatGPUKitGetStorage(Ad, storage));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMPIGKComposeConverters_Private(Mat A, PetscBool on)
{
  const GKMatFormat *fmt  = ((Mat_MPIGK *)A->spptr)->fmt;
  const char        *type = fmt->mpitype;
  char               name[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", MATMPIAIJ, type));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_MPIAIJ_MPIGK : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", type, MATMPIAIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, name, on ? MatConvert_MPIGK_MPIAIJ : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGPUKitSetStorage_C", on ? MatGPUKitSetStorage_MPIGK : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatGPUKitGetStorage_C", on ? MatGPUKitGetStorage_MPIGK : NULL));
  if (fmt->mpicompose) PetscCall(fmt->mpicompose(A, on));
  PetscFunctionReturn(0);
}

/* A rectangular matrix whose diagonal block on some process its format does not hold within the
   fill limit is made ELLPACK-R, as a sequential one (MatSeqGKFit_Private): the MPI type with it,
   on every process */
static PetscErrorCode MatMPIGKFit_Private(Mat A)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        Ad, Ao;
  PetscBool  fits = PETSC_TRUE, isseq;

  PetscFunctionBegin;
  if (!mg->fmt->fits || A->rmap->N == A->cmap->N) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(GKMatIsDevice_Private(Ad, &isseq, NULL));
  if (isseq) PetscCall(mg->fmt->fits(Ad, &fits)); /* made the format's by MatMPIGKConvertBlocks_Private() */
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &fits, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (fits) PetscFunctionReturn(0);
  PetscCall(
    PetscInfo(A, "%s would exceed its fill limit on the diagonal block of a process of this %" PetscInt_FMT " x %" PetscInt_FMT " matrix: made %s\n",
              mg->fmt->name, A->rmap->N, A->cmap->N, GKFormatDefault->mpitype));
  PetscCall(MatMPIGKComposeConverters_Private(A, PETSC_FALSE));
  mg->fmt = GKFormatDefault;
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, mg->fmt->mpitype));
  PetscCall(MatMPIGKComposeConverters_Private(A, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatAssemblyEnd_MPIGK(Mat A, MatAssemblyType mode)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(mg->base.assemblyend(A, mode));
  if (mode == MAT_FINAL_ASSEMBLY) {
    PetscCall(MatMPIGKConvertBlocks_Private(A));
    PetscCall(MatMPIGKFit_Private(A));
    PetscCall(MatMPIGKConvertBlocks_Private(A)); /* the diagonal block made the new format's, if it changed */
    PetscCall(MatGKAttachDM_Private(A));
  }
  PetscFunctionReturn(0);
}

/* The blocks' host values (each a sequential device matrix, or not yet) brought up to date (see
   MatSeqGKHostSync_Private) and the operations given back */
PetscErrorCode MatMPIGKHostSync_Private(Mat A, PetscBool copy)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;
  Mat        B[2];

  PetscFunctionBegin;
  if (!mg->behind) PetscFunctionReturn(0);
  mg->behind = PETSC_FALSE;
  PetscCall(MatGKHostUnwrap_Private(A, &mg->own));
  PetscCall(MatMPIGKGetBlocks_Private(A, &B[0], &B[1], NULL));
  for (int k = 0; k < 2; k++) {
    PetscBool isgk;

    PetscCall(GKMatIsDevice_Private(B[k], &isgk, NULL));
    if (isgk) PetscCall(MatSeqGKHostSync_Private(B[k], copy));
  }
  PetscFunctionReturn(0);
}

/* The device type's parts of A undone: its lists and composed functions freed, MPIAIJ's
   operations given back (all of them; with destroy, MPIAIJ's destroy alone, the host values then
   left as they are) */
static PetscErrorCode MatMPIGKStrip_Private(Mat A, PetscBool destroy)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatMPIGKHostSync_Private(A, destroy ? PETSC_FALSE : PETSC_TRUE)); /* the values MPIAIJ keeps */
  PetscCall(MatMPIGKComposeConverters_Private(A, PETSC_FALSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatProductSetFromOptions_anytype_C", NULL));
  PetscCall(MatMPIGKFreeLists_Private(mg));
  PetscCall(MatMPIGKCOOReset_Private(mg));
  if (destroy) A->ops->destroy = mg->base.destroy;
  else PetscCall(PetscMemcpy(A->ops, &mg->base, sizeof(struct _MatOps)));
  PetscCall(PetscFree(A->spptr));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MPIGK(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatMPIGKStrip_Private(A, PETSC_TRUE));
  PetscCall((*A->ops->destroy)(A)); /* MPIAIJ's */
  PetscFunctionReturn(0);
}

/* PCGAMG's strength graph: MPIAIJ's, of the matrix under MPIAIJ's names (a plain MPIAIJ graph,
   which GAMG coarsens on the host). Where the pattern is symmetric, MPIAIJ's graph of a copy
   given the symmetrized values (gkgraph.c), without MPIAIJ's transpose and sum. */
static PetscErrorCode MatCreateGraph_MPIGK(GK_CREATEGRAPH_ARGS)
{
  GKAsMPIAIJ     s;
  PetscErrorCode ierr;
  PetscScalar   *wd, *wo;
  PetscBool      sum = PETSC_FALSE;
  Mat            T   = NULL;

  PetscFunctionBegin;
  PetscCall(MatMPIGKAsMPIAIJ_Private(A, PETSC_TRUE, &s));
  ierr = sym ? MatGKGraphSum_Private(A, (PetscBool)(filter >= 0 || scale), &sum, &wd, &wo) : 0;
  if (!ierr && sum) ierr = MatDuplicate(A, MAT_COPY_VALUES, &T);
  if (!ierr && T) ierr = MatGKGraphSymmetrize_Private(T, &wd, &wo);
  if (!ierr && T) ierr = GKCreateGraphCall(T);
  else if (!ierr) ierr = (*((Mat_MPIGK *)A->spptr)->base.creategraph)(GKCreateGraphArgs);
  PetscCall(MatMPIGKAsOwn_Private(&s));
  PetscCall(ierr);
  PetscCall(MatDestroy(&T));
  PetscFunctionReturn(0);
}

/* MPIAIJ's MatSOR makes a work vector (VecDuplicate() of b) and loses it when a sweep of the
   diagonal block fails (SEQAIJ's zero diagonal: PETSc's MPIAIJ loses it too): the device vectors
   it makes are kept track of, and those it did not destroy are when it fails */
static PetscErrorCode MatSOR_MPIGK(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_MPIGK     *mg = (Mat_MPIGK *)A->spptr;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(VecGKTrackBegin_Private());
  ierr = mg->base.sor(A, bb, omega, flag, fshift, its, lits, xx);
  PetscCall(VecGKTrackEnd_Private(ierr ? PETSC_TRUE : PETSC_FALSE));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode MatMPIGKRetype_Private(Mat B, const GKMatFormat *fmt)
{
  Mat_MPIGK *mg;
  VecType    vtype;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(PetscNew(&mg));
  mg->fmt     = fmt;
  mg->nzstate = -1;
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gpukit_storage", PetscGPUKitStorages,
                                (PetscEnum *)&mg->storage, &mg->storageset));
  PetscCall(PetscMemcpy(&mg->base, B->ops, sizeof(struct _MatOps)));
  PetscCall(PetscObjectGetNewTag((PetscObject)B, &mg->tag));
  B->spptr                          = mg;
  B->ops->mult                      = MatMult_MPIGK;
  B->ops->multadd                   = MatMultAdd_MPIGK;
  B->ops->residual                  = MatResidual_MPIGK;
  B->ops->multtranspose             = MatMultTranspose_MPIGK;
  B->ops->multtransposeadd          = MatMultTransposeAdd_MPIGK;
  B->ops->multhermitiantranspose    = MatMultHermitianTranspose_MPIGK;
  B->ops->multhermitiantransposeadd = MatMultHermitianTransposeAdd_MPIGK;
  B->ops->assemblyend               = MatAssemblyEnd_MPIGK;
  B->ops->creategraph               = MatCreateGraph_MPIGK;
  B->ops->productsetfromoptions     = MatProductSetFromOptions_GK;
  B->ops->sor                       = MatSOR_MPIGK;
  B->ops->destroy                   = MatDestroy_MPIGK;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, fmt->mpitype));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", MatProductSetFromOptions_GK));
  PetscCall(MatMPIGKComposeConverters_Private(B, PETSC_TRUE));
  PetscCall(MatGKComposeCOO_Private(B, MatSetPreallocationCOO_MPIGK, MatSetValuesCOO_MPIGK));
  PetscCall(PetscFree(B->defaultvectype)); /* MatCreateVecs() gives device vectors */
  PetscCall(VecGKDefaultType_Private(&vtype));
  PetscCall(PetscStrallocpy(vtype, &B->defaultvectype));
  if (B->assembled) PetscCall(MatMPIGKConvertBlocks_Private(B));
  PetscFunctionReturn(0);
}

/* MatConvert() from MPIAIJ, found composed on a new matrix of the type (newmat's type names
   the format) */
static PetscErrorCode MatConvert_MPIAIJ_MPIGK(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat                B = *newmat;
  const GKMatFormat *fmt;

  PetscFunctionBegin;
  PetscCall(MatGKFormatFind_Private(type, &fmt));
  PetscCheck(fmt, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "No conversion from %s to %s here", MATMPIAIJ, type);
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatMPIGKRetype_Private(B, fmt));
  *newmat = B;
  PetscFunctionReturn(0);
}

/* MatConvert() to MPIAIJ: the copy (or A itself, in place) given MPIAIJ's operations, COO
   assembly and blocks back (PETSc's MatConvert_Basic otherwise inserts it row by row) */
static PetscErrorCode MatConvert_MPIGK_MPIAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat              B = *newmat, blk[2];
  const GKCOOBase *base;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatMPIGKStrip_Private(B, PETSC_FALSE));
  PetscCall(MatGKCOOBase_Private(PETSC_TRUE, &base));
  PetscCall(MatGKComposeCOO_Private(B, base->prealloc, base->values)); /* MPIAIJ's own again */
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, MATMPIAIJ));
  PetscCall(PetscFree(B->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &B->defaultvectype));
  PetscCall(MatMPIGKGetBlocks_Private(B, &blk[0], &blk[1], NULL));
  for (int k = 0; k < 2; k++) {
    PetscBool isgk;

    PetscCall(GKMatIsDevice_Private(blk[k], &isgk, NULL));
    if (isgk) PetscCall(MatConvert(blk[k], MATSEQAIJ, MAT_INPLACE_MATRIX, &blk[k]));
  }
  *newmat = B;
  PetscFunctionReturn(0);
}

/* The creator of an MPI device type: an MPIAIJ made one in place */
PetscErrorCode MatCreate_MPIGK_Private(Mat B, const GKMatFormat *fmt)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIAIJ(B));
  PetscCall(MatMPIGKRetype_Private(B, fmt));
  PetscFunctionReturn(0);
}

/* An interpolation's device copies, made now: the matrix's and its transpose's (an MPI matrix's
   blocks', whose transposed products its MatMultTranspose runs), so that PCMG's first V-cycle
   does not build them inside KSPSolve; in the layouts its products would give them (not those of
   the fused kernels, which never read an interpolation). Any other type: nothing. */
PetscErrorCode MatGKPrepareInterpolation_Private(Mat P)
{
  PetscBool seq, mpi;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(P, &seq, &mpi));
  if (seq) PetscCall(MatSeqGKPrepareProducts_Private(P));
  else if (mpi) {
    Mat Ad, Ao;

    PetscCall(MatMPIGKGetBlocks_Private(P, &Ad, &Ao, NULL));
    PetscCall(MatSeqGKPrepareProducts_Private(Ad));
    if (Ao->cmap->n) PetscCall(MatSeqGKPrepareProducts_Private(Ao));
  }
  PetscFunctionReturn(0);
}

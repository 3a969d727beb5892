/*
   What the sequential device matrices share: the SEQAIJ subclass (operations saved, overridden
   and restored), the lazy device copy, the products on host vectors (staged through device
   buffers), logging, views and conversions.
*/
#include <float.h> /* FLT_MAX */
#include "gkmat.h"
#include "vec/impls/cuda/gkvec.h"

static PetscErrorCode MatConvert_SeqGK_SeqAIJ(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatRetrieveValues_SeqGK(Mat);

/* Every row's length not negative and every stored column inside the matrix: a device copy built
   from AIJ arrays that are not (PETSc's MatLoad reads a binary file's column indices unchecked)
   would read outside x on the device, or write outside the builders' arrays. The rows are checked
   on the host before a build (cheap: one pass over the row starts); the columns on the device,
   once the format's build has copied them there (the backend's checkcols), and on the host only
   where one lies outside, to name it (columns, true). */
static PetscErrorCode MatSeqGKCheckCSR_Private(Mat A, PetscBool columns)
{
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  const PetscInt  m = A->rmap->n, n = A->cmap->n;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  for (PetscInt i = 0; i < m; i++) {
    PetscCheck(ai[i + 1] >= ai[i], PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT,
               "Row %" PetscInt_FMT " of the %s matrix has %" PetscInt_FMT
               " entries: its AIJ arrays are corrupt (a broken binary file read by MatLoad?)",
               i, ((PetscObject)A)->type_name, ai[i + 1] - ai[i]);
    if (columns)
      for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
        PetscCheck(aj[k] >= 0 && aj[k] < n, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT,
                   "Entry (%" PetscInt_FMT ", %" PetscInt_FMT ") of the %s matrix lies outside its %" PetscInt_FMT
                   " columns: its AIJ arrays are corrupt (a broken binary file read by MatLoad?)",
                   i, aj[k], ((PetscObject)A)->type_name, n);
  }
  PetscFunctionReturn(0);
}

/* The error naming the first column of A outside it, for a format's build whose checkcols found
   one (in a copy made from A or its transpose), once it has freed what it made */
PetscErrorCode MatSeqGKColumnsError_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSeqGKCheckCSR_Private(A, PETSC_TRUE));
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "A device copy of the %s matrix found a column outside it that its AIJ arrays do not have",
          ((PetscObject)A)->type_name);
}

/* Brings the device copy up to date with the host matrix: a full rebuild after a change of the
   nonzero pattern (its rows checked first, its columns by the build), the values alone after any
   other change. */
PetscErrorCode MatSeqGKBuildDevice_Private(Mat A)
{
  Mat_SeqGK       *gk = (Mat_SeqGK *)A->spptr;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (gk->nzstate == A->nonzerostate && gk->state == state) PetscFunctionReturn(0);
  if (MatSeqGKBehindCsr(gk)) {
    /* values given from a device CSR the matrix keeps (MatSeqGKSetValuesFromDevice_Private,
       MatSeqGKSetFromDeviceCsr_Private): nothing wrote the host matrix since (every operation
       that would brings it up to date first), whatever moved its state on (MatProductNumeric()
       does after the numeric step). The device copy is current, or is built from that CSR. */
    PetscCheck(gk->csr.i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The host values of the %s matrix are behind, with no device values to build from",
               gk->fmt->type);
    if (gk->nzstate == A->nonzerostate) {
      gk->state = state;
      PetscFunctionReturn(0);
    }
  } else if (gk->behind) {
    /* behind, yet written since (its state moved on): what the host matrix holds now is the
       matrix's, and it is copied up, not overwritten */
    PetscCall(MatSeqGKHostSync_Private(A, PETSC_FALSE));
  }
  PetscCall(PetscLogEventBegin(GK_MatToDevice, A, 0, 0, 0));
  if (gk->nzstate != A->nonzerostate && !gk->rowstarts) PetscCall(MatSeqGKCheckCSR_Private(A, PETSC_FALSE)); /* none: rows made on the device */
  PetscCall(gk->fmt->build(A, gk->nzstate == A->nonzerostate ? PETSC_TRUE : PETSC_FALSE));
  if (gk->nzstate != A->nonzerostate) PetscCall(MatSeqGKSORInvalidate_Private(A)); /* its lists name the old layout's slots */
  PetscCall(PetscLogEventEnd(GK_MatToDevice, A, 0, 0, 0));
  PetscCall(PetscInfo(A, "%s copy on the %s backend: %s, %zu bytes\n", gk->fmt->name, GKDev->name,
                      gk->nzstate == A->nonzerostate ? "values updated" : "built", gk->bytes));
  gk->state   = state;
  gk->nzstate = A->nonzerostate;
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKSyncDevice_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCheck(A->assembled, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "The %s matrix must be assembled before it is copied to the device (MatAssemblyBegin/End)", ((Mat_SeqGK *)A->spptr)->fmt->type);
  PetscCall(MatSeqGKBuildDevice_Private(A));
  PetscFunctionReturn(0);
}

/* The padding limit: a format storing more than maxfill entries per nonzero is refused. Sets
   fits, and when it does not fit the error message, so that the caller can free its work space
   before it raises the error. */
PetscErrorCode MatSeqGKCheckFill_Private(Mat A, const char *what, double stored, PetscInt nnz, const char *why, PetscBool *fits, char *msg,
                                         size_t len)
{
  Mat_SeqGK   *gk   = (Mat_SeqGK *)A->spptr;
  const double fill = nnz ? stored / (double)nnz : 1.0;

  PetscFunctionBegin;
  *fits = fill <= (double)gk->maxfill ? PETSC_TRUE : PETSC_FALSE;
  if (!*fits)
    PetscCall(PetscSNPrintf(msg, len,
                            "%s would store %.0f entries for %" PetscInt_FMT " nonzeros: fill %.2f exceeds the limit %.2f (%s). %s"
                            " Accept the padding with %s %.2f, or use a format without it (-mat_type aij)",
                            what, stored, nnz, fill, (double)gk->maxfill, gk->fmt->fillopt, why, gk->fmt->fillopt,
                            PetscCeilReal(100.0 * fill) / 100.0));
  PetscFunctionReturn(0);
}

/* A device buffer for host vectors' values, max(m, n) long, made at its first use */
static PetscErrorCode MatSeqGKStage_Private(Mat A, PetscScalar **stage)
{
  PetscFunctionBegin;
  if (!*stage) PetscCall(GKMalloc(PetscMax(A->rmap->n, A->cmap->n), stage));
  PetscFunctionReturn(0);
}

/* Copies the values of a vector of n entries into the device array d */
static PetscErrorCode MatSeqGKVecValues_Private(Vec x, PetscInt n, PetscScalar *d)
{
  const PetscScalar *xa;

  PetscFunctionBegin;
  if (VecIsGK(x)) {
    PetscCall(VecGPUKitGetDeviceArrayRead(x, &xa));
    PetscCall(GKMemcpyD2D(d, xa, (size_t)n * sizeof(PetscScalar)));
    PetscCall(VecGPUKitRestoreDeviceArrayRead(x, &xa));
  } else {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(GKMemcpyH2D(d, xa, (size_t)n * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscFunctionReturn(0);
}

/* The device array of an input vector: its own for a device vector, else a copy in gk->dx */
PetscErrorCode MatSeqGKVecIn_Private(Mat A, Vec x, PetscInt n, const PetscScalar **d)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (VecIsGK(x)) PetscCall(VecGPUKitGetDeviceArrayRead(x, d));
  else {
    PetscCall(MatSeqGKStage_Private(A, &gk->dx));
    PetscCall(MatSeqGKVecValues_Private(x, n, gk->dx));
    *d = gk->dx;
  }
  PetscFunctionReturn(0);
}

/* Ends the input: a device vector's array handed back (PETSc's own VECCUDA counts its accesses) */
PetscErrorCode MatSeqGKVecInEnd_Private(Vec x, const PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsGK(x)) PetscCall(VecGPUKitRestoreDeviceArrayRead(x, d));
  else *d = NULL;
  PetscFunctionReturn(0);
}

/* The device array the result y goes to (its own, or gk->dy for a host vector), holding z's
   values when z is given (y = op(A) x + z) */
PetscErrorCode MatSeqGKVecOut_Private(Mat A, Vec y, Vec z, PetscInt n, PetscScalar **d)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (VecIsGK(y)) {
    if (z == y) {
      PetscCall(VecGPUKitGetDeviceArray(y, d)); /* updated in place */
      PetscFunctionReturn(0);
    }
    PetscCall(VecGPUKitGetDeviceArrayWrite(y, d));
  } else {
    PetscCall(MatSeqGKStage_Private(A, &gk->dy));
    *d = gk->dy;
  }
  if (z) PetscCall(MatSeqGKVecValues_Private(z, n, *d));
  PetscFunctionReturn(0);
}

/* Ends the result: a device vector has it already; a host vector receives it from gk->dy */
PetscErrorCode MatSeqGKVecOutEnd_Private(Mat A, Vec y, PetscInt n, PetscScalar **d)
{
  PetscScalar *ya;

  PetscFunctionBegin;
  if (VecIsGK(y)) PetscCall(VecGPUKitRestoreDeviceArray(y, d));
  else {
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(GKMemcpyD2H(ya, *d, (size_t)n * sizeof(PetscScalar)));
    PetscCall(VecRestoreArrayWrite(y, &ya));
    *d = NULL;
  }
  PetscFunctionReturn(0);
}

/* y = op(A) x, or z + op(A) x, or z - op(A) x with neg (MatResidual), on the device in one
   pass: z read by the product where z and y are device vectors, else first copied into y's
   array; host vectors are staged through the matrix's buffers */
static PetscErrorCode MatMultOp_SeqGK(Mat A, GKMatOp op, Vec x, Vec z, PetscBool neg, Vec y)
{
  Mat_SeqGK          *gk     = (Mat_SeqGK *)A->spptr;
  const PetscInt      nin    = op == GK_OP_N ? A->cmap->n : A->rmap->n;
  const PetscInt      nout   = op == GK_OP_N ? A->rmap->n : A->cmap->n;
  const PetscLogEvent ev     = op == GK_OP_N ? GK_MatMult : GK_MatMultT;
  const PetscBool     direct = z && z != y && VecIsGK(z) && VecIsGK(y) ? PETSC_TRUE : PETSC_FALSE;
  const PetscScalar  *xd, *zd = NULL;
  PetscScalar        *yd;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSyncDevice_Private(A));
  PetscCall(MatSeqGKVecIn_Private(A, x, nin, &xd));
  if (direct) PetscCall(VecGPUKitGetDeviceArrayRead(z, &zd));
  PetscCall(MatSeqGKVecOut_Private(A, y, direct ? NULL : z, nout, &yd));
  PetscCall(PetscLogEventBegin(ev, A, x, y, 0));
  PetscCall(gk->fmt->mult(A, op, xd, direct ? zd : (z ? yd : NULL), neg, yd));
  GK_COUNT_BYTES(gk->mbytes[op == GK_OP_N ? 0 : 1] + (double)sizeof(PetscScalar) * (nin + (z ? 2 : 1) * nout));
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogFlops(2.0 * gk->nnz));
  PetscCall(PetscLogEventEnd(ev, A, x, y, 0));
  PetscCall(MatSeqGKVecOutEnd_Private(A, y, nout, &yd));
  if (direct) PetscCall(VecGPUKitRestoreDeviceArrayRead(z, &zd));
  PetscCall(MatSeqGKVecInEnd_Private(x, &xd));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_SeqGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_N, x, NULL, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_SeqGK(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_N, x, z, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTranspose_SeqGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_T, x, NULL, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultTransposeAdd_SeqGK(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_T, x, z, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultHermitianTranspose_SeqGK(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_H, x, NULL, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultHermitianTransposeAdd_SeqGK(Mat A, Vec x, Vec z, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_H, x, z, PETSC_FALSE, y));
  PetscFunctionReturn(0);
}

/* z = z - A x in one pass: the MPI types' residual, for the off-diagonal block */
PetscErrorCode MatSeqGKMultSub_Private(Mat A, Vec x, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MatMultOp_SeqGK(A, GK_OP_N, x, z, PETSC_TRUE, z));
  PetscFunctionReturn(0);
}

/* MatResidual()'s arguments, for the seq and MPI device types: r must differ from x (PETSc's
   MatMult refuses that alias, with this code) and from b: PETSc 3.18's VecAYPX refuses that one
   (with this code), while newer releases' scale y in place where x is y, so that their default
   gives r = 0. The device types refuse it on every release rather than give that. The local sizes
   are checked, as MatMult checks them */
PetscErrorCode MatGKResidualCheck_Private(Mat A, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCheck(x != r, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "MatResidual(): x and r must be different vectors");
  PetscCheck(b != r, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_IDN, "MatResidual(): b and r must be different vectors");
  PetscCheck(x->map->n == A->cmap->n && b->map->n == A->rmap->n && r->map->n == A->rmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "MatResidual(): vectors of local sizes b %" PetscInt_FMT ", x %" PetscInt_FMT ", r %" PetscInt_FMT " for a matrix of %" PetscInt_FMT
             " x %" PetscInt_FMT " local rows and columns",
             b->map->n, x->map->n, r->map->n, A->rmap->n, A->cmap->n);
  PetscFunctionReturn(0);
}

/* r = b - A x in one pass (PETSc's own MatResidual is a MatMult and a VecAYPX): PCMG's
   residual on each level */
static PetscErrorCode MatResidual_SeqGK(Mat A, Vec b, Vec x, Vec r)
{
  PetscFunctionBegin;
  PetscCall(MatGKResidualCheck_Private(A, b, x, r));
  PetscCall(MatMultOp_SeqGK(A, GK_OP_N, x, b, PETSC_TRUE, r));
  PetscCall(PetscLogFlops((PetscLogDouble)A->rmap->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_SeqGK(Mat A, Vec d)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  PetscScalar *dd;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSyncDevice_Private(A));
  PetscCall(MatSeqGKVecOut_Private(A, d, NULL, A->rmap->n, &dd));
  PetscCall(PetscLogEventBegin(GK_MatGetDiag, A, d, 0, 0));
  PetscCall(gk->fmt->getdiagonal(A, dd));
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogEventEnd(GK_MatGetDiag, A, d, 0, 0));
  PetscCall(MatSeqGKVecOutEnd_Private(A, d, A->rmap->n, &dd));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatView_SeqGK(Mat A, PetscViewer viewer)
{
  Mat_SeqGK        *gk = (Mat_SeqGK *)A->spptr;
  PetscBool         iascii;
  PetscViewerFormat format;

  PetscFunctionBegin;
  PetscCall(gk->base.view(A, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !A->assembled) PetscFunctionReturn(0);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format == PETSC_VIEWER_ASCII_INFO || format == PETSC_VIEWER_ASCII_INFO_DETAIL) {
    char bytes[32];
    int  dev;

    PetscCall(MatSeqGKSyncDevice_Private(A));
    PetscCall(gk->fmt->view(A, viewer));
    PetscCall(GKFormatBytes_Private((PetscLogDouble)gk->bytes, bytes, sizeof(bytes)));
    PetscCall(PetscGPUKitGetDevice(&dev));
    PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: %s (format arrays) on the %s backend, device %d\n", bytes, GKDev->name, dev));
    if (gk->storage == PETSCGPUKIT_STORAGE_SINGLE)
      PetscCall(PetscViewerASCIIPrintf(viewer, "values: single precision storage for the products, which sum in double (MatGPUKitSetStorage(), "
                                               "-mat_gpukit_storage or -pc_mg_gpukit_storage single); "
                                               "double beside them for the rest\n"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSetFromOptions_SeqGK(Mat A, GKOptionItems PetscOptionsObject)
{
  Mat_SeqGK         *gk = (Mat_SeqGK *)A->spptr;
  char               help[128];
  PetscReal          fill    = gk->maxfill;
  PetscGPUKitStorage storage = gk->storage;
  PetscBool          set, sset;

  PetscFunctionBegin;
  if (gk->base.setfromoptions) PetscCall(gk->base.setfromoptions(A, PetscOptionsObject));
  PetscCall(PetscSNPrintf(help, sizeof(help), "Largest fill (stored entries / nonzeros) the %s format may reach", gk->fmt->name));
  PetscOptionsHeadBegin(PetscOptionsObject, "Device matrix options");
  PetscCall(PetscOptionsReal(gk->fmt->fillopt, help, gk->fmt->fillsetter, gk->maxfill, &fill, &set));
  PetscCall(PetscOptionsEnum("-mat_gpukit_storage", "Precision the device copy's values are stored in for the products (they still sum in double)",
                             "MatGPUKitSetStorage", PetscGPUKitStorages, (PetscEnum)storage, (PetscEnum *)&storage, &sset));
  if (gk->fmt->setfromoptions) PetscCall(gk->fmt->setfromoptions(A, PetscOptionsObject));
  PetscCall(MatSeqGKSORSetFromOptions_Private(A, PetscOptionsObject));
  PetscOptionsHeadEnd();
  if (set) PetscCall(MatSeqGKSetMaxFill_Private(A, gk->fmt->type, fill));
  if (sset) PetscCall(MatGPUKitSetStorage(A, storage));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGPUKitSetStorage_SeqGK(Mat A, PetscGPUKitStorage storage)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (gk->storage == storage) PetscFunctionReturn(0);
  gk->storage = storage;
  /* the values made again in that precision at the next use: from the device CSR the matrix
     keeps where its host values are behind it (a prolongator or a Galerkin product made on the
     device: nothing comes down), else from the host matrix */
  if (MatSeqGKBehindCsr(gk) && gk->csr.i) gk->nzstate = -1;
  else PetscCall(MatSeqGKInvalidate_Private(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGPUKitGetStorage_SeqGK(Mat A, PetscGPUKitStorage *storage)
{
  PetscFunctionBegin;
  *storage = ((Mat_SeqGK *)A->spptr)->storage;
  PetscFunctionReturn(0);
}

/* Composes (or, with on false, removes) the conversions MatConvert() looks for on a device
   matrix: back to SEQAIJ, and into its format from SEQAIJ and from the other device formats */
static PetscErrorCode MatSeqGKComposeConverters_Private(Mat B, PetscBool on)
{
  Mat_SeqGK         *gk = (Mat_SeqGK *)B->spptr;
  const GKMatFormat *f;
  char               name[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", gk->fmt->type, MATSEQAIJ));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, name, on ? MatConvert_SeqGK_SeqAIJ : NULL));
  PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", MATSEQAIJ, gk->fmt->type));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, name, on ? gk->fmt->convertfrom : NULL));
  for (size_t i = 0; (f = MatGKFormatAt_Private(i)); i++) {
    if (f == gk->fmt) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatConvert_%s_%s_C", f->type, gk->fmt->type));
    PetscCall(PetscObjectComposeFunction((PetscObject)B, name, on ? gk->fmt->convertfrom : NULL));
  }
  if (gk->fmt->compose) PetscCall(gk->fmt->compose(B, on));
  /* off: removed (in a destroy, the object's list may be gone already) */
  PetscCall(MatSeqGKComposeCOO_Private(B, on));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatProductSetFromOptions_anytype_C", on ? MatProductSetFromOptions_GK : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGPUKitSetStorage_C", on ? MatGPUKitSetStorage_SeqGK : NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatGPUKitGetStorage_C", on ? MatGPUKitGetStorage_SeqGK : NULL));
  if (gk->retrieve && on) PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatRetrieveValues_C", MatRetrieveValues_SeqGK));
  PetscFunctionReturn(0);
}

/* Frees the device side and gives the matrix back SEQAIJ's operations, composed functions (but
   in a destroy, where the object's list may be gone already) and type */
static PetscErrorCode MatSeqGKStrip_Private(Mat A, PetscBool destroy)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqGKHostSync_Private(A, PETSC_TRUE)); /* the values AIJ keeps */
  PetscCall(MatSeqGKComposeConverters_Private(A, PETSC_FALSE));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, "MatRetrieveValues_C", destroy ? NULL : gk->retrieve));
  PetscCall(gk->fmt->reset(A));
  PetscCall(PetscFree(gk->data));
  PetscCall(PetscFree(gk->rowstarts));
  PetscCall(GKFree(gk->dx));
  PetscCall(GKFree(gk->dy));
  PetscCall(MatSeqGKSORReset_Private(A));
  PetscCall(MatSeqGKCOOReset_Private(A));
  PetscCall(MatSeqGKDropCsr_Private(A));
  PetscCall(MatSeqGKProductPlanFree_Private(A));
  A->ops->mult                      = gk->base.mult;
  A->ops->multadd                   = gk->base.multadd;
  A->ops->residual                  = gk->base.residual;
  A->ops->multtranspose             = gk->base.multtranspose;
  A->ops->multtransposeadd          = gk->base.multtransposeadd;
  A->ops->multhermitiantranspose    = gk->base.multhermitiantranspose;
  A->ops->multhermitiantransposeadd = gk->base.multhermitiantransposeadd;
  A->ops->getdiagonal               = gk->base.getdiagonal;
  A->ops->view                      = gk->base.view;
  A->ops->getinfo                   = gk->base.getinfo;
  A->ops->setfromoptions            = gk->base.setfromoptions;
  A->ops->duplicate                 = gk->base.duplicate;
  A->ops->transpose                 = gk->base.transpose;
  A->ops->creategraph               = gk->base.creategraph;
  A->ops->assemblyend               = gk->base.assemblyend;
  A->ops->sor                       = gk->base.sor;
  A->ops->productsetfromoptions     = gk->base.productsetfromoptions;
  A->ops->axpy                      = gk->base.axpy;
  A->ops->destroy                   = gk->base.destroy;
  A->ops->setvalues                 = gk->base.setvalues;
  A->ops->setvalueslocal            = gk->base.setvalueslocal;
  A->ops->setoption                 = gk->base.setoption;
  PetscCall(PetscFree(A->spptr));
  PetscCall(PetscFree(A->defaultvectype));
  PetscCall(PetscStrallocpy(VECSTANDARD, &A->defaultvectype));
  if (!destroy) { /* AIJ's inodes, unless the options turn them off */
    PetscBool noinode = PETSC_FALSE;

    PetscCall(PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_no_inode", &noinode, NULL));
    PetscCall(MatSetOption(A, MAT_USE_INODES, (PetscBool)!noinode));
  }
  PetscCall(PetscObjectChangeTypeName((PetscObject)A, MATSEQAIJ));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_SeqGK(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (gk->behind) { /* nothing to copy down, nor to compose back (the object's list may be gone) */
    gk->behind = PETSC_FALSE;
    PetscCall(MatGKHostUnwrap_Private(A, &gk->own));
  }
  PetscCall(MatSeqGKStrip_Private(A, PETSC_TRUE));
  PetscCall((*A->ops->destroy)(A)); /* SEQAIJ's */
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDuplicate_SeqGK(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;
  PetscBool  isgk;

  PetscFunctionBegin;
  /* SEQAIJ's duplicate creates the copy with A's type, that is through MatCreate_SeqGK_Private() */
  PetscCall(gk->base.duplicate(A, op, B));
  /* a block of an MPI device matrix duplicated by PETSc's MPIAIJ code under the name "seqaij"
     (mpigk.c) gives a plain SEQAIJ */
  PetscCall(GKMatIsDevice_Private(*B, &isgk, NULL));
  if (!isgk) PetscFunctionReturn(0);
  ((Mat_SeqGK *)(*B)->spptr)->maxfill = gk->maxfill;
  ((Mat_SeqGK *)(*B)->spptr)->storage = gk->storage;
  if (gk->fmt->settings) PetscCall(gk->fmt->settings(*B, A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_SeqGK_SeqAIJ(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  Mat              B = *newmat;
  const GKCOOBase *base;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(MatSeqGKStrip_Private(B, PETSC_FALSE));
  PetscCall(MatGKCOOBase_Private(PETSC_FALSE, &base));
  PetscCall(MatGKComposeCOO_Private(B, base->prealloc, base->values)); /* SEQAIJ's own again */
  *newmat = B;
  PetscFunctionReturn(0);
}

/* MatRetrieveValues(): SEQAIJ's copies the stored values back into the host matrix without
   moving its state on, which would leave the device copy as it was */
static PetscErrorCode MatRetrieveValues_SeqGK(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqGKHostSync_Private(A, PETSC_FALSE)); /* every value is replaced */
  PetscCall((*gk->retrieve)(A));
  PetscCall(PetscObjectStateIncrease((PetscObject)A));
  PetscFunctionReturn(0);
}

/* SEQAIJ's MatAXPY(), given X of the same type, reads X's host values, which may be behind */
static PetscErrorCode MatAXPY_SeqGK(Mat Y, PetscScalar a, Mat X, MatStructure str)
{
  PetscFunctionBegin;
  PetscCall(MatGKHostSyncIf_Private(X));
  PetscCall(((Mat_SeqGK *)Y->spptr)->base.axpy(Y, a, X, str));
  PetscFunctionReturn(0);
}

/* PCGAMG's strength graph: SEQAIJ's graph of an AIJ copy (SEQAIJ's own refuses any type whose
   name does not begin with "seqaij", and the graph is a host object GAMG coarsens on the host:
   it gets a plain SEQAIJ). Symmetrized where the pattern is symmetric by the copy's values
   (gkgraph.c), without SEQAIJ's transpose and sum. */
static PetscErrorCode MatCreateGraph_SeqGK(GK_CREATEGRAPH_ARGS)
{
  Mat          B;
  PetscScalar *wd, *wo;
  PetscBool    sum = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatConvert(A, MATSEQAIJ, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatPropagateSymmetryOptions(A, B)); /* A known symmetric: SEQAIJ's graph sums nothing */
  if (sym) PetscCall(MatGKGraphSum_Private(B, (PetscBool)(filter >= 0 || scale), &sum, &wd, &wo));
  if (sum) PetscCall(MatGKGraphSymmetrize_Private(B, &wd, &wo));
  PetscCall(GKCreateGraphCall(B));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
}

/* SEQAIJ's transpose with the type name "seqaij" in place for the call: it gives a new result A's
   type with MatSetType(), which on an assembled SEQAIJ keeps the entries only for a type whose
   name begins with "seqaij" (PETSc's own subclasses, seqaijcusparse...) and would empty the
   matrix for ours. Reusing B with an unchanged pattern, it only refills B's arrays. */
static PetscErrorCode MatTransposeAsAIJ_Private(Mat A, MatReuse reuse, Mat *B)
{
  Mat_SeqGK     *gk   = (Mat_SeqGK *)A->spptr;
  char          *name = ((PetscObject)A)->type_name;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  ((PetscObject)A)->type_name = (char *)MATSEQAIJ;
  ierr                        = (*gk->base.transpose)(A, reuse, B);
  ((PetscObject)A)->type_name = name;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* MatTranspose: a new result made this format; in place, or reusing a B whose pattern no
   longer fits, a new result put in the matrix's header (B keeps MatTranspose()'s record) */
static PetscErrorCode MatTranspose_SeqGK(Mat A, MatReuse reuse, Mat *B)
{
  const GKMatFormat *fmt = ((Mat_SeqGK *)A->spptr)->fmt;
  Mat                T;
  PetscContainer     parent = NULL;
  MatState          *ps;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(PetscObjectQuery((PetscObject)*B, "MatTransposeParent", (PetscObject *)&parent));
    PetscCall(PetscContainerGetPointer(parent, (void **)&ps));
    if (ps->nonzerostate == A->nonzerostate) { /* the same pattern: B's arrays refilled */
      PetscCall(MatTransposeAsAIJ_Private(A, reuse, B));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(MatTransposeAsAIJ_Private(A, MAT_INITIAL_MATRIX, &T));
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(T, fmt, MAT_INPLACE_MATRIX, &T));
  if (reuse == MAT_INITIAL_MATRIX) *B = T;
  else if (reuse == MAT_INPLACE_MATRIX) PetscCall(MatHeaderReplace(A, &T));
  else {
    PetscCall(PetscObjectReference((PetscObject)parent));
    PetscCall(MatHeaderReplace(*B, &T));
    PetscCall(PetscObjectCompose((PetscObject)*B, "MatTransposeParent", (PetscObject)parent));
    PetscCall(PetscContainerDestroy(&parent));
  }
  PetscFunctionReturn(0);
}

/* A rectangular matrix whose pattern its format does not hold within the fill limit (DIA's
   diagonals) is made ELLPACK-R, whose own layouts always fit: PETSc's PCs make their rectangular
   matrices in the operator's type (PCGAMG's tentative prolongator, PCFIELDSPLIT's blocks of
   columns), which suits them no better than it suits any interpolation. A square one keeps its
   format, whose error at the first product names the remedy. */
static PetscErrorCode MatSeqGKFit_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;
  PetscBool  fits;

  PetscFunctionBegin;
  if (!gk->fmt->fits || A->rmap->n == A->cmap->n || gk->fitstate == A->nonzerostate) PetscFunctionReturn(0);
  PetscCall(gk->fmt->fits(A, &fits));
  if (fits) {
    gk->fitstate = A->nonzerostate;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(A, "%s would exceed its fill limit on this %" PetscInt_FMT " x %" PetscInt_FMT " matrix: made %s\n", gk->fmt->name, A->rmap->n,
                      A->cmap->n, GKFormatDefault->type));
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(A, GKFormatDefault, MAT_INPLACE_MATRIX, &A));
  PetscFunctionReturn(0);
}

/* SEQAIJ's, counting the nonzeros of the device CSR a matrix with no host pattern yet keeps */
static PetscErrorCode MatGetInfo_SeqGK(Mat A, MatInfoType flag, MatInfo *info)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(gk->base.getinfo(A, flag, info));
  if (gk->rowstarts) {
    info->nz_allocated = info->nz_used = (PetscLogDouble)gk->rowstarts[A->rmap->n];
    info->nz_unneeded                  = 0;
  }
  PetscFunctionReturn(0);
}

/* The device's room for a matrix assembled on the host and never copied there yet, made ahead
   (device.h, reserve) while the program goes on: -gpukit_device_reserve times its entries' and
   rows' bytes (its device copy, the CSR arrays it is made from, and GAMG's setup: its strength
   graph, prolongator and products), for a matrix of at least GK_RESERVE_MIN bytes. DMDA's
   matrices are assembled empty in DMCreateMatrix(), well before the program's own assembly and
   the first device copy. */
#define GK_RESERVE_MIN ((size_t)16 << 20)
static PetscErrorCode MatSeqGKReserve_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;
  MatInfo    info;
  size_t     bytes;

  PetscFunctionBegin;
  if (!GKDev || !GKDev->reserve || GKDeviceReserve <= 0 || gk->nzstate >= 0 || gk->behind || gk->rowstarts || gk->csr.i) PetscFunctionReturn(0);
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  bytes = (size_t)info.nz_allocated * (sizeof(PetscScalar) + sizeof(PetscInt)) + (size_t)(A->rmap->n + 1) * sizeof(PetscInt);
  if (bytes >= GK_RESERVE_MIN) PetscCall(GKDev->reserve((size_t)(GKDeviceReserve * (double)bytes)));
  PetscFunctionReturn(0);
}

/* SEQAIJ's assembly, then the matrix's DM (DMCreateMatrix() gives it one) made to give device
   interpolations for PCMG */
static PetscErrorCode MatAssemblyEnd_SeqGK(Mat A, MatAssemblyType mode)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscObjectState state0, state;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state0));
  if (!gk->rowstarts) PetscCall(gk->base.assemblyend(A, mode)); /* none without a host pattern: SEQAIJ's when one is made */
  PetscCall(MatSeqGKRowsAssembled_Private(A, mode));
  if (mode != MAT_FINAL_ASSEMBLY) PetscFunctionReturn(0);
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (gk->coo && gk->coo->pending) { /* MatSetValuesCOO_SeqGK's: the device copy holds the values */
    gk->coo->pending = PETSC_FALSE;
    if (gk->nzstate == A->nonzerostate) gk->state = gk->coo->valstate = state + 1; /* MatAssemblyEnd() counts this assembly next */
  } else if (gk->behind && gk->state == state0 && gk->nzstate == A->nonzerostate) {
    /* an assembly of a matrix behind: nothing was set (MatSetValues() would have brought it up
       to date first), and the device copy stays the matrix's, as does a CSR it keeps */
    gk->state = state + 1;
    if (gk->coo) gk->coo->valstate = state + 1;
    if (gk->csr.i && gk->csrstate == state0) gk->csrstate = state + 1;
  }
  PetscCall(MatGKAttachDM_Private(A));
  PetscCall(MatSeqGKReserve_Private(A));
  /* a coarse operator P^T A P (PCGAMG's, PCMG's Galerkin): P interpolates and restricts in every
     V-cycle, so its device copies are made now, in the PC's setup */
  if (A->product && A->product->type == MATPRODUCT_PtAP && A->product->B) PetscCall(MatGKPrepareInterpolation_Private(A->product->B));
  PetscCall(MatSeqGKFit_Private(A));
  PetscFunctionReturn(0);
}

PetscErrorCode MatConvert_SeqAIJ_SeqGK_Private(Mat A, const GKMatFormat *fmt, MatReuse reuse, Mat *newmat)
{
  Mat        B = *newmat;
  Mat_SeqGK *gk;
  PetscBool  isgk;
  VecType    vtype;

  PetscFunctionBegin;
  if (reuse == MAT_REUSE_MATRIX) {
    PetscCall(MatCopy(A, B, SAME_NONZERO_PATTERN));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscGPUKitBackendSetUp_Private());
  if (reuse == MAT_INITIAL_MATRIX) PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &B));
  PetscCall(GKMatIsDevice_Private(B, &isgk, NULL));
  if (isgk) PetscCall(MatSeqGKStrip_Private(B, PETSC_FALSE));

  PetscCall(PetscNew(&gk));
  PetscCall(PetscCalloc(fmt->datasize, &gk->data));
  gk->fmt      = fmt;
  gk->maxfill  = fmt->defaultfill;
  gk->nzstate  = -1;
  gk->state    = -1;
  gk->fitstate = -1;
  PetscCall(PetscOptionsGetReal(((PetscObject)B)->options, ((PetscObject)B)->prefix, fmt->fillopt, &gk->maxfill, NULL));
  PetscCall(PetscOptionsGetEnum(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_gpukit_storage", PetscGPUKitStorages,
                                (PetscEnum *)&gk->storage, NULL));
  PetscCheck(gk->maxfill >= 1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s must be at least 1, not %g", fmt->fillopt, (double)gk->maxfill);
  PetscCall(PetscMemcpy(&gk->base, B->ops, sizeof(struct _MatOps)));
  PetscCall(PetscObjectQueryFunction((PetscObject)B, "MatRetrieveValues_C", &gk->retrieve));
  B->spptr = gk;
  /* no inodes: the products run on the device, and finding them is a pass over the rows at each
     assembly (half of a 5-point matrix's MatAssemblyEnd); a conversion back to AIJ restores them */
  PetscCall(MatSetOption(B, MAT_USE_INODES, PETSC_FALSE));
  if (fmt->settings) PetscCall(fmt->settings(B, NULL));

  B->ops->mult                      = MatMult_SeqGK;
  B->ops->multadd                   = MatMultAdd_SeqGK;
  B->ops->residual                  = MatResidual_SeqGK;
  B->ops->multtranspose             = MatMultTranspose_SeqGK;
  B->ops->multtransposeadd          = MatMultTransposeAdd_SeqGK;
  B->ops->multhermitiantranspose    = MatMultHermitianTranspose_SeqGK;
  B->ops->multhermitiantransposeadd = MatMultHermitianTransposeAdd_SeqGK;
  B->ops->getdiagonal               = MatGetDiagonal_SeqGK;
  B->ops->view                      = MatView_SeqGK;
  B->ops->getinfo                   = MatGetInfo_SeqGK;
  B->ops->setfromoptions            = MatSetFromOptions_SeqGK;
  B->ops->duplicate                 = MatDuplicate_SeqGK;
  B->ops->transpose                 = MatTranspose_SeqGK;
  B->ops->creategraph               = MatCreateGraph_SeqGK;
  B->ops->assemblyend               = MatAssemblyEnd_SeqGK;
  B->ops->sor                       = MatSOR_SeqGK_Private;
  B->ops->productsetfromoptions     = MatProductSetFromOptions_GK;
  B->ops->axpy                      = MatAXPY_SeqGK;
  B->ops->destroy                   = MatDestroy_SeqGK;
  B->ops->setvalues                 = MatSetValues_SeqGK;
  B->ops->setvalueslocal            = MatSetValuesLocal_SeqGK;
  B->ops->setoption                 = MatSetOption_SeqGK;
  PetscCall(PetscObjectChangeTypeName((PetscObject)B, fmt->type));
  PetscCall(MatSeqGKComposeConverters_Private(B, PETSC_TRUE));
  PetscCall(PetscFree(B->defaultvectype)); /* MatCreateVecs() gives device vectors */
  PetscCall(VecGKDefaultType_Private(&vtype));
  PetscCall(PetscStrallocpy(vtype, &B->defaultvectype));
  *newmat = B;
  PetscFunctionReturn(0);
}

/* The creator of a sequential device type: a SEQAIJ converted in place. A product's result
   (MatPtAP, MatMatMult: PCGAMG's and PCMG's coarse operators and interpolations, which PETSc
   makes of the first operand's type) of a format that does not hold every pattern (DIA: the
   result's nonzeros do not lie on a few diagonals, and it would refuse them at the first
   product) is made in the default format */
PetscErrorCode MatCreate_SeqGK_Private(Mat B, const GKMatFormat *fmt)
{
  PetscFunctionBegin;
  if (fmt->fits && B->product) fmt = GKFormatDefault;
  PetscCall(MatCreate_SeqAIJ(B));
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(B, fmt, MAT_INPLACE_MATRIX, &B));
  PetscFunctionReturn(0);
}

/* The root type's creator, for the types list of -help: MatSetType() itself maps the root name
   to the sequential or MPI type by the communicator's size */
PetscErrorCode MatCreate_GK_Private(Mat B, const GKMatFormat *fmt)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)B), &size));
  if (size == 1) PetscCall(MatCreate_SeqGK_Private(B, fmt));
  else PetscCall(MatCreate_MPIGK_Private(B, fmt));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKSetMaxFill_Private(Mat A, const char *type, PetscReal fill)
{
  PetscBool  match;
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveReal(A, fill, 2);
  PetscCall(PetscObjectTypeCompare((PetscObject)A, type, &match));
  if (!match) PetscFunctionReturn(0);
  PetscCheck(fill >= 1.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The fill limit (stored entries / nonzeros) must be at least 1, not %g",
             (double)fill);
  if (gk->maxfill == fill) PetscFunctionReturn(0); /* the device copy stays valid */
  gk->maxfill = fill;
  PetscCall(MatSeqGKInvalidate_Private(A)); /* check the new limit at the next use */
  PetscFunctionReturn(0);
}

/* A format's values in single precision for the products (device.h, GKStorage), made again from
   its n double ones (val) after they changed where A stores them so, else freed */
PetscErrorCode MatSeqGKStorageValues_Private(Mat A, size_t n, const PetscScalar *val, void **sval)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (gk->storage != PETSCGPUKIT_STORAGE_SINGLE || !n) {
    PetscCall(GKFree(*sval));
    PetscFunctionReturn(0);
  }
  PetscCall(GKDemoteValues_Private(gk->fmt->name, n, val, sval));
  PetscFunctionReturn(0);
}

/* The n values val (device) rounded to single precision into *sval (device; made where NULL),
   for single storage's readers; an error naming double storage where one is beyond single
   precision's range (*sval then freed). owner names the matrix in it. */
PetscErrorCode GKDemoteValues_Private(const char *owner, size_t n, const PetscScalar *val, void **sval)
{
  PetscBool ok;

  PetscFunctionBegin;
  if (!*sval) PetscCall(GKDev->malloc(n * GK_SINGLE_SIZE, sval));
  PetscCall(GKDev->demote(n, val, *sval, NULL, &ok));
  if (!ok) PetscCall(GKFree(*sval));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FP,
             "The %s matrix has a value beyond single precision's range (magnitude above %g), which -mat_gpukit_storage single cannot store: "
             "use double storage (MatGPUKitSetStorage(A, PETSCGPUKIT_STORAGE_DOUBLE)), or scale the matrix",
             owner, (double)FLT_MAX);
  PetscFunctionReturn(0);
}

/* The device copy is rebuilt, structure and all, at its next use */
PetscErrorCode MatSeqGKInvalidate_Private(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatSeqGKHostSync_Private(A, PETSC_TRUE)); /* the rebuild reads the host values */
  ((Mat_SeqGK *)A->spptr)->nzstate = -1;
  PetscFunctionReturn(0);
}

/* MatCreateSeqELLRCUDA() and MatCreateSeqDIACUDA(): a device matrix preallocated as MatCreateSeqAIJ() */
PetscErrorCode MatCreateSeqGK_Private(MPI_Comm comm, MatType type, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, m, n));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocation(*A, nz, nnz));
  PetscFunctionReturn(0);
}

/* The device copies that the products and transposed products of a device matrix read, brought
   up to date now. Unlike MatSeqGKGetOperator(), for the products alone: the layouts stay those the
   products were given (an ELLPACK-R matrix's one row a slice, which the fused kernels cannot
   read, is kept) */
PetscErrorCode MatSeqGKPrepareProducts_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSyncDevice_Private(A));
  if (gk->fmt->preparetranspose) PetscCall(gk->fmt->preparetranspose(A));
  PetscFunctionReturn(0);
}

/* The device arrays of a device matrix, brought up to date, for the fused Krylov kernels; with
   transpose, also what A^H products need */
PetscErrorCode MatSeqGKGetOperator(Mat A, PetscBool transpose, GKOperator *op)
{
  PetscBool isgk;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(A, &isgk, NULL));
  PetscCheck(isgk, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a device matrix: %s", ((PetscObject)A)->type_name);
  PetscCall(MatSeqGKSyncDevice_Private(A));
  PetscCall(PetscMemzero(op, sizeof(*op)));
  PetscCheck(((Mat_SeqGK *)A->spptr)->fmt->getoperator, PETSC_COMM_SELF, PETSC_ERR_SUP, "The fused solvers do not read the %s format's arrays",
             ((Mat_SeqGK *)A->spptr)->fmt->name);
  PetscCall(((Mat_SeqGK *)A->spptr)->fmt->getoperator(A, transpose, op));
  PetscFunctionReturn(0);
}

/* r = b - A x with the operator's double-precision values, whatever its storage (the fused
   solvers' residual replacement); b may be r */
PetscErrorCode GKOperatorResidualDouble_Private(const GKOperator *op, const PetscScalar *b, const PetscScalar *x, PetscScalar *r)
{
  PetscFunctionBegin;
  if (op->ellr) {
    GKEllr E = *op->ellr;

    E.sval = NULL;
    PetscCall(GKDev->ellrmult(&E, PETSC_FALSE, x, b, PETSC_TRUE, r));
  } else {
    GKDia D = *op->dia;

    D.sval = NULL;
    PetscCall(GKDev->diamult(&D, x, b, PETSC_TRUE, r));
  }
  PetscFunctionReturn(0);
}

/*@
   MatGPUKitSetStorage - Sets the precision a device matrix's copy stores its values in for its
   products (`MatMult()`, `MatMultAdd()`, `MatMultTranspose()`, ...): single precision halves the
   bytes a product reads for them; the products still sum in double precision, into double
   precision vectors

   Logically Collective

   Input Parameters:
+  A - a `MATELLRCUDA` or `MATDIACUDA` matrix, sequential or MPI (any other type: nothing is done)
-  storage - `PETSCGPUKIT_STORAGE_DOUBLE` (the default) or `PETSCGPUKIT_STORAGE_SINGLE`

   Options Database Key:
.  -mat_gpukit_storage <double,single> - the same

   Level: intermediate

   Notes:
   The host matrix keeps its values in double precision, and so does the device copy for every
   operation other than the products (the diagonal, `MatSOR()`); `-mat_view ::ascii_info` says
   which storage the products read. `KSPCGGPU` and `KSPBICGGPU` read the single values in their
   fused iterations (and `PCJACOBI`'s scaling rounded to single precision) and replace the
   residual by b - A x computed with the double ones, so that they reach the double-precision
   answer.

.seealso: `MatGPUKitGetStorage()`, `PetscGPUKitStorage`, `MATELLRCUDA`, `MATDIACUDA`
@*/
PetscErrorCode MatGPUKitSetStorage(Mat A, PetscGPUKitStorage storage)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(A, storage, 2);
  PetscCheck(storage == PETSCGPUKIT_STORAGE_DOUBLE || storage == PETSCGPUKIT_STORAGE_SINGLE, PetscObjectComm((PetscObject)A),
             PETSC_ERR_ARG_OUTOFRANGE, "Unknown storage %d: use PETSCGPUKIT_STORAGE_DOUBLE or PETSCGPUKIT_STORAGE_SINGLE", (int)storage);
  PetscTryMethod(A, "MatGPUKitSetStorage_C", (Mat, PetscGPUKitStorage), (A, storage));
  PetscFunctionReturn(0);
}

/*@
   MatGPUKitGetStorage - The precision a device matrix's products read its values in
   (`MatGPUKitSetStorage()`)

   Not Collective

   Input Parameter:
.  A - the matrix

   Output Parameter:
.  storage - `PETSCGPUKIT_STORAGE_DOUBLE` or `PETSCGPUKIT_STORAGE_SINGLE` (double for a matrix of another type)

   Level: intermediate

.seealso: `MatGPUKitSetStorage()`
@*/
PetscErrorCode MatGPUKitGetStorage(Mat A, PetscGPUKitStorage *storage)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(storage, 2);
  *storage = PETSCGPUKIT_STORAGE_DOUBLE;
  PetscTryMethod(A, "MatGPUKitGetStorage_C", (Mat, PetscGPUKitStorage *), (A, storage));
  PetscFunctionReturn(0);
}

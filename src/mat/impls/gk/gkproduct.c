/*
   The products of device matrices (MatProductSetFromOptions() of the sequential and MPI types,
   and "anytype" for a pair with another type): PETSc's choice made for the operands under their
   base types' names, its steps wrapped; two device matrices multiply on the device (gkspgemm.c).
*/
#include "mpigk.h"

/* a sequential device matrix given SEQAIJ's productsetfromoptions (*own: its own), or, with
   *own NULL, not one */
static PetscErrorCode MatSeqGKAsSeqAIJ_Private(Mat A, PetscErrorCode (**own)(Mat))
{
  PetscBool isseq;

  PetscFunctionBegin;
  *own = NULL;
  PetscCall(GKMatIsDevice_Private(A, &isseq, NULL));
  if (!isseq) PetscFunctionReturn(0);
  *own                          = A->ops->productsetfromoptions;
  A->ops->productsetfromoptions = ((Mat_SeqGK *)A->spptr)->base.productsetfromoptions;
  PetscFunctionReturn(0);
}

PetscErrorCode MatMPIGKAsMPIAIJ_Private(Mat A, PetscBool sync, GKAsMPIAIJ *s)
{
  PetscBool isgk = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  if (!A) PetscFunctionReturn(0);
  if (sync) PetscCall(MatGKHostSyncIf_Private(A));
  PetscCall(MatSeqGKAsSeqAIJ_Private(A, &s->psfo[0]));
  if (s->psfo[0]) {
    s->A = A;
    PetscFunctionReturn(0);
  }
  PetscCall(GKMatIsDevice_Private(A, NULL, &isgk));
  if (!isgk) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, &s->Ad, &s->Ao, NULL));
  PetscCall(MatSeqGKAsSeqAIJ_Private(s->Ad, &s->psfo[1]));
  PetscCall(MatSeqGKAsSeqAIJ_Private(s->Ao, &s->psfo[2]));
  s->A                            = A;
  s->name                         = ((PetscObject)A)->type_name;
  s->dname                        = ((PetscObject)s->Ad)->type_name;
  s->oname                        = ((PetscObject)s->Ao)->type_name;
  s->psfo[0]                      = A->ops->productsetfromoptions;
  ((PetscObject)A)->type_name     = (char *)MATMPIAIJ;
  ((PetscObject)s->Ad)->type_name = (char *)MATSEQAIJ;
  ((PetscObject)s->Ao)->type_name = (char *)MATSEQAIJ;
  A->ops->productsetfromoptions   = ((Mat_MPIGK *)A->spptr)->base.productsetfromoptions;
  PetscFunctionReturn(0);
}

/* Gives the names back; an error when PETSc replaced a block meanwhile (the names would be lost) */
PetscErrorCode MatMPIGKAsOwn_Private(GKAsMPIAIJ *s)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  if (!s->A) PetscFunctionReturn(0);
  s->A->ops->productsetfromoptions = s->psfo[0];
  if (!s->Ad) { /* a sequential device matrix */
    s->A = NULL;
    PetscFunctionReturn(0);
  }
  ((PetscObject)s->A)->type_name  = s->name;
  ((PetscObject)s->Ad)->type_name = s->dname;
  ((PetscObject)s->Ao)->type_name = s->oname;
  if (s->psfo[1]) s->Ad->ops->productsetfromoptions = s->psfo[1];
  if (s->psfo[2]) s->Ao->ops->productsetfromoptions = s->psfo[2];
  PetscCall(MatMPIGKGetBlocks_Private(s->A, &Ad, &Ao, NULL));
  PetscCheck(Ad == s->Ad && Ao == s->Ao, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product replaced the blocks of a %s operand", s->name);
  s->A = NULL;
  PetscFunctionReturn(0);
}

/* The product's operands (A, B and ABC's C; each once), under MPIAIJ's names or back */
static PetscErrorCode MatProductGKOperands_Private(Mat C, PetscBool asmpiaij, PetscBool sync, GKAsMPIAIJ s[3])
{
  Mat_Product *p    = C->product;
  Mat          m[3] = {p->A, p->B == p->A ? NULL : p->B, p->type == MATPRODUCT_ABC && p->C != p->A && p->C != p->B ? p->C : NULL};

  PetscFunctionBegin;
  for (int k = 0; k < 3; k++) {
    if (asmpiaij) PetscCall(MatMPIGKAsMPIAIJ_Private(m[k], sync, &s[k]));
    else PetscCall(MatMPIGKAsOwn_Private(&s[2 - k]));
  }
  PetscFunctionReturn(0);
}

/* PETSc's step of the product, kept on the result, and the device type its result is given */
typedef struct {
  PetscErrorCode (*symbolic)(Mat);
  PetscErrorCode (*numeric)(Mat);
  PetscBool        todevice; /* A is a device matrix: an MPIAIJ result is made one */
  PetscBool        device;   /* computed on the device instead (gkspgemm.c) */
  PetscBool        fresh;    /* the device's symbolic step left the values of the operands in their states sa, sb: */
  PetscObjectState sa, sb;   /* a numeric step before they change has nothing to do */
} GKProductSteps;

#define GK_PRODUCT_STEPS "GKProductSteps"

static PetscErrorCode MatProductGKSteps_Private(Mat C, GKProductSteps **st)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)C, GK_PRODUCT_STEPS, (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A product of device matrices without its steps");
  PetscCall(PetscContainerGetPointer(c, (void **)st));
  PetscFunctionReturn(0);
}

/* One of PETSc's steps with the operands under MPIAIJ's names (the result C keeps its own: its
   assembly is the device matrix's) */
static PetscErrorCode MatProductGKCall_Private(Mat C, PetscErrorCode (*step)(Mat))
{
  GKAsMPIAIJ     s[3];
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MatProductGKOperands_Private(C, PETSC_TRUE, PETSC_TRUE, s));
  ierr = (*step)(C);
  PetscCall(MatProductGKOperands_Private(C, PETSC_FALSE, PETSC_FALSE, s));
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* (its result's own operation even while the result's host values are behind, gkhost.c: the
   device's numeric step replaces them; before PETSc's, which writes the host arrays, they come
   down) */
PetscErrorCode MatProductNumeric_GK(Mat C)
{
  GKProductSteps *st;

  PetscFunctionBegin;
  PetscCall(MatProductGKSteps_Private(C, &st));
  if (st->device && st->fresh) {
    PetscObjectState sa, sb;

    PetscCall(PetscObjectStateGet((PetscObject)C->product->A, &sa));
    PetscCall(PetscObjectStateGet((PetscObject)C->product->B, &sb));
    st->fresh = (PetscBool)(sa == st->sa && sb == st->sb);
  }
  if (st->device && st->fresh) st->fresh = PETSC_FALSE;
  else if (st->device) {
    PetscBool done;

    PetscCall(MatProductGKDevice_Private(C, PETSC_FALSE, &done));
    PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_GPU, "A product made on the device could not be computed there again");
  } else {
    PetscCall(MatGKHostSyncIf_Private(C));
    PetscCall(MatProductGKCall_Private(C, st->numeric));
  }
  if (C->product && C->product->type == MATPRODUCT_PtAP) PetscCall(MatGKPrepareInterpolation_Private(C->product->B)); /* a coarse operator's P */
  PetscFunctionReturn(0);
}

/* A Galerkin product P^T A P of an interpolation in single-precision storage is stored so too:
   a hierarchy's coarse operators follow its interpolations (gkdm.c, -pc_mg_gpukit_storage) */
static PetscErrorCode MatProductGKStorage_Private(Mat C)
{
  PetscGPUKitStorage st;

  PetscFunctionBegin;
  if (!C->product || C->product->type != MATPRODUCT_PtAP) PetscFunctionReturn(0);
  PetscCall(MatGPUKitGetStorage(C->product->B, &st));
  if (st == PETSCGPUKIT_STORAGE_SINGLE) PetscCall(MatGPUKitSetStorage(C, st));
  PetscFunctionReturn(0);
}

/* PETSc's symbolic step, then the result made the device type of A (ELLPACK-R where A is DIA:
   a product's nonzeros lie on no few diagonals), as PETSc gives a product A's type, and its
   numeric step wrapped */
static PetscErrorCode MatProductSymbolic_GK(Mat C)
{
  GKProductSteps *st;

  PetscFunctionBegin;
  PetscCall(MatProductGKSteps_Private(C, &st));
  if (st->device) {
    PetscCall(MatProductGKDevice_Private(C, PETSC_TRUE, &st->fresh));
    if (st->fresh) {
      PetscCall(PetscObjectStateGet((PetscObject)C->product->A, &st->sa));
      PetscCall(PetscObjectStateGet((PetscObject)C->product->B, &st->sb));
      C->ops->productnumeric = MatProductNumeric_GK;
      PetscCall(MatProductGKStorage_Private(C));
      PetscFunctionReturn(0);
    }
    st->device = PETSC_FALSE; /* PETSc's product, as below */
  }
  PetscCall(MatProductGKCall_Private(C, st->symbolic));
  if (st->todevice) {
    PetscBool isaij;

    PetscCall(PetscObjectTypeCompare((PetscObject)C, MATMPIAIJ, &isaij));
    if (isaij) PetscCall(MatMPIGKRetype_Private(C, GKFormatDefault));
  }
  if (C->ops->productnumeric && C->ops->productnumeric != MatProductNumeric_GK) {
    st->numeric            = C->ops->productnumeric;
    C->ops->productnumeric = MatProductNumeric_GK;
  }
  PetscCall(MatProductGKStorage_Private(C));
  PetscFunctionReturn(0);
}

/* The products of device matrices (the productsetfromoptions of the sequential and MPI types,
   and "anytype" for a pair with another type): PETSc's choice made for the operands under their
   base types' names and productsetfromoptions, its symbolic step wrapped, which wraps the numeric
   one; each of PETSc's steps brings the operands' host values up to date first
   (MatMPIGKAsMPIAIJ_Private), the choice and the device's steps do not */
PetscErrorCode MatProductSetFromOptions_GK(Mat C)
{
  Mat_Product   *p = C->product;
  Mat            A = p->A, B = p->B, D = p->type == MATPRODUCT_ABC ? p->C : NULL;
  GKAsMPIAIJ     s[3];
  PetscErrorCode ierr = 0;
  PetscErrorCode (*fA)(Mat), (*fB)(Mat), (*fD)(Mat), (*f)(Mat) = NULL;
  GKProductSteps *st;
  PetscContainer  c;
  PetscBool       agk;

  PetscFunctionBegin;
  PetscCall(GKMatIsDevice_Private(A, NULL, &agk));
  PetscCall(MatProductGKOperands_Private(C, PETSC_TRUE, PETSC_FALSE, s)); /* the choice reads no values */
  fA = A->ops->productsetfromoptions;
  fB = B->ops->productsetfromoptions;
  fD = D ? D->ops->productsetfromoptions : fA;
  if (fA && fA == fB && fA == fD) ierr = (*fA)(C);
  else {
    /* PETSc's next choice, under the operands' MPIAIJ names: a method for the pair of types */
    char name[256];

    ierr = PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s%s%s_C", ((PetscObject)A)->type_name, ((PetscObject)B)->type_name,
                         D ? "_" : "", D ? ((PetscObject)D)->type_name : "");
    if (!ierr) ierr = PetscObjectQueryFunction((PetscObject)A, name, &f);
    if (!ierr && !f) ierr = PetscObjectQueryFunction((PetscObject)B, name, &f);
    if (!ierr && !f && D) ierr = PetscObjectQueryFunction((PetscObject)D, name, &f);
    if (!ierr && f) ierr = (*f)(C);
  }
  PetscCall(MatProductGKOperands_Private(C, PETSC_FALSE, PETSC_FALSE, s));
  PetscCall(ierr);
  if (!C->ops->productsymbolic) PetscFunctionReturn(0); /* PETSc goes on with its fallbacks */
  PetscCall(PetscNew(&st));
  st->symbolic = C->ops->productsymbolic;
  st->todevice = agk;
  PetscCall(MatProductGKDeviceEligible_Private(C, &st->device));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, st));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)C, GK_PRODUCT_STEPS, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  C->ops->productsymbolic = MatProductSymbolic_GK;
  PetscFunctionReturn(0);
}

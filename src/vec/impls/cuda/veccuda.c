/*
   VECSEQCUDA and VECMPICUDA: VECSEQ and VECMPI (whose creators PETSc exports) with a device
   array beside the host one and the offload mask saying which holds the values:

     UNALLOCATED  the device array holds nothing yet; every entry is cval (zero at creation, a
                  VecSet() of the new vector changes it), as the host array is once made
     CPU          the host array is valid, the device one stale
     GPU          the device array is valid, the host one stale
     BOTH         both are valid

   The array-access hooks keep every inherited host operation correct: VecGetArray() brings the
   values to the host first. The BLAS-1 operations and reductions run on the device; MPI
   reductions add one MPIU_Allreduce of the device's partial result. An operation with a vector
   of another type falls back to the host operation it replaced.
*/
#include "veccudaimpl.h"

PetscBool VecIsGK(Vec v)
{
  return VecIsOwnGK(v) || VecIsPETScCUDA(v) ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode VecGKGetData_Private(Vec v, Vec_GK **g)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)v, "GKVec", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device vector without its data");
  PetscCall(PetscContainerGetPointer(c, (void **)g));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscScalar *a, v;
  PetscBool    zero; /* v's bits all zero (not -0.0) */
} VecGKFill;

static void VecGKFillPart(void *ctx, PetscInt part, PetscInt lo, PetscInt hi)
{
  const VecGKFill *f = (const VecGKFill *)ctx;

  (void)part;
  if (f->zero) memset(f->a + lo, 0, (size_t)(hi - lo) * sizeof(PetscScalar));
  else
    for (PetscInt i = lo; i < hi; i++) f->a[i] = f->v;
}

/* a new host array's n entries set to v (its bits: a VecSet() of -0.0 stays -0.0), the pages'
   first touch (most of the time) spread over the host's threads where there are many
   (gkthreads.c); a vector of fewer than two threads' grains is set here, without asking how
   many threads there are */
#define GK_VEC_FILL_GRAIN ((PetscInt)(((size_t)2 << 20) / sizeof(PetscScalar)))
static PetscErrorCode VecGKHostFill_Private(PetscScalar *a, PetscInt n, PetscScalar v)
{
  const PetscScalar zero = 0.0;
  VecGKFill         f    = {a, v, memcmp(&v, &zero, sizeof(v)) ? PETSC_FALSE : PETSC_TRUE};
  PetscInt          nt   = 1;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  if (n >= 2 * GK_VEC_FILL_GRAIN) PetscCall(GKHostThreads_Private(n, GK_VEC_FILL_GRAIN, &nt));
  PetscCall(GKParallelFor_Private(n, nt, VecGKFillPart, &f));
  PetscFunctionReturn(0);
}

/* The host array is made when the host first needs it (the creator makes none: most device
   vectors, a Krylov method's or a smoother's work vectors, never do, and allocating and zeroing
   one costs more host time than the device spends on the vector); set to cval where that is every
   entry's value (UNALLOCATED: zero, as the creator's array would have been, or a VecSet()'s) */
PetscErrorCode VecGKHostAlloc_Private(Vec v, Vec_GK *g)
{
  Vec_GKHost *s = (Vec_GKHost *)v->data;

  PetscFunctionBegin;
  if (s->array || !v->map->n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(v->map->n, &s->array));
  GKHostAdviseHuge_Private(s->array, sizeof(PetscScalar) * (size_t)v->map->n); /* written whole next: filled, copied down or the program's */
  s->array_allocated = s->array;
  if (g->mask == PETSC_OFFLOAD_UNALLOCATED) PetscCall(VecGKHostFill_Private(s->array, v->map->n, g->cval));
  PetscFunctionReturn(0);
}

/* Before a copy between the arrays: the host array page-locked in place (the backend's
   hostregister) at its second copy where it is large. A vector copied both ways once is copied
   so again at each setup (PCJacobi's diagonal, which PETSc fixes up on the host), and pageable
   memory moves at a fraction of the bus's speed; PETSc's own CUDA vectors allocate theirs
   page-locked (-vec_pinned_memory_min). Not a placed array, which is the caller's. */
#define GK_PIN_MIN_BYTES ((size_t)4 << 20)
static PetscErrorCode VecGKPin_Private(Vec v, Vec_GK *g)
{
  Vec_GKHost  *s     = (Vec_GKHost *)v->data;
  const size_t bytes = (size_t)v->map->n * sizeof(PetscScalar);
  PetscBool    ok;

  PetscFunctionBegin;
  if (g->pinned || !GKDev->hostregister || bytes < GK_PIN_MIN_BYTES || !s->array_allocated || s->array != s->array_allocated || ++g->copies != 2)
    PetscFunctionReturn(0);
  PetscCall(GKDev->hostregister(s->array_allocated, bytes, &ok));
  if (ok) g->pinned = s->array_allocated;
  PetscCall(PetscInfo(v, "host array of %zu bytes %s\n", bytes, ok ? "page-locked" : "left pageable (the backend refused to page-lock it)"));
  PetscFunctionReturn(0);
}

/* before the host array is freed */
static PetscErrorCode VecGKUnpin_Private(Vec_GK *g)
{
  PetscFunctionBegin;
  if (g->pinned) PetscCall(GKDev->hostunregister(g->pinned));
  g->pinned = NULL;
  g->copies = 0;
  PetscFunctionReturn(0);
}

/* Makes the device array valid: CPU to BOTH by a copy; UNALLOCATED by setting every entry to
   cval, copying nothing (to BOTH where the host array was made, else to GPU, the host array to be
   set from cval when made) */
PetscErrorCode VecGKCopyToDevice_Private(Vec v, Vec_GK *g)
{
  const PetscInt n = v->map->n;

  PetscFunctionBegin;
  if (g->mask == PETSC_OFFLOAD_GPU || g->mask == PETSC_OFFLOAD_BOTH) PetscFunctionReturn(0);
  if (!g->d && n) PetscCall(GKMalloc(n, &g->d));
  if (g->mask == PETSC_OFFLOAD_UNALLOCATED) {
    if (g->cval == (PetscScalar)0.0) PetscCall(GKDev->memzero(g->d, (size_t)n * sizeof(PetscScalar)));
    else PetscCall(GKDev->axpbypczd(n, 0.0, NULL, 0.0, NULL, 0.0, g->cval, g->d));
    VecGKCountPasses(n, 1);
    g->mask    = VecGKHostArray_Private(v) ? PETSC_OFFLOAD_BOTH : PETSC_OFFLOAD_GPU;
    g->isconst = PETSC_TRUE;
  } else {
    PetscCall(VecGKPin_Private(v, g));
    PetscCall(GKMemcpyH2D(g->d, VecGKHostArray_Private(v), (size_t)n * sizeof(PetscScalar)));
    g->mask    = PETSC_OFFLOAD_BOTH;
    g->isconst = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* Whether reading v on the device copies nothing: one of the library's own vectors whose values
   are on the device, or a value VecSet() keeps */
PetscErrorCode VecGKOnDevice_Private(Vec v, PetscBool *on)
{
  Vec_GK *g;

  PetscFunctionBegin;
  *on = PETSC_FALSE;
  if (!VecIsOwnGK(v)) PetscFunctionReturn(0);
  PetscCall(VecGKGetData_Private(v, &g));
  *on = (PetscBool)(g->mask != PETSC_OFFLOAD_CPU);
  PetscFunctionReturn(0);
}

/* Makes the host array valid (GPU to BOTH); after VecSet on the device, by setting it, not copying */
PetscErrorCode VecGKCopyToHost_Private(Vec v, Vec_GK *g)
{
  PetscFunctionBegin;
  PetscCall(VecGKHostAlloc_Private(v, g));
  if (g->mask == PETSC_OFFLOAD_GPU) {
    PetscScalar *h = VecGKHostArray_Private(v);

    if (g->isconst) PetscCall(VecGKHostFill_Private(h, v->map->n, g->cval));
    else {
      PetscCall(VecGKPin_Private(v, g));
      PetscCall(GKMemcpyD2H(h, g->d, (size_t)v->map->n * sizeof(PetscScalar)));
    }
    g->mask = PETSC_OFFLOAD_BOTH;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VecGKDevice_Private(Vec v, GKAccess mode, PetscScalar **d)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  if (mode == GK_WRITE) {
    if (!g->d && v->map->n) PetscCall(GKMalloc(v->map->n, &g->d));
  } else PetscCall(VecGKCopyToDevice_Private(v, g));
  if (mode != GK_READ) {
    g->mask    = PETSC_OFFLOAD_GPU;
    g->isconst = PETSC_FALSE;
  }
  *d = g->d;
  PetscFunctionReturn(0);
}

PetscErrorCode VecGetArray_GK(Vec v, PetscScalar **a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKCopyToHost_Private(v, g));
  g->mask = PETSC_OFFLOAD_CPU; /* the caller may change it */
  *a      = VecGKHostArray_Private(v);
  PetscFunctionReturn(0);
}

static PetscErrorCode VecRestoreArray_GK(Vec v, PetscScalar **a)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}

static PetscErrorCode VecGetArrayRead_GK(Vec v, const PetscScalar **a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKCopyToHost_Private(v, g));
  *a = VecGKHostArray_Private(v);
  PetscFunctionReturn(0);
}

/* The host array holding the current values, as a standard vector's does: callers written for
   those read it (PETSc's hypre interface zeroes x by VecSet, then hands this array to hypre as
   its initial guess) */
static PetscErrorCode VecGetArrayWrite_GK(Vec v, PetscScalar **a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKCopyToHost_Private(v, g));
  g->mask = PETSC_OFFLOAD_CPU;
  *a      = VecGKHostArray_Private(v);
  PetscFunctionReturn(0);
}

/* Place, replace, reset: the host array changes, so the host copy becomes the valid one */
static PetscErrorCode VecPlaceArray_GK(Vec v, const PetscScalar *a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKCopyToHost_Private(v, g)); /* the array set aside keeps the current values */
  PetscCall(g->base.placearray(v, a));
  g->mask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(0);
}

static PetscErrorCode VecReplaceArray_GK(Vec v, const PetscScalar *a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKUnpin_Private(g)); /* the array it frees */
  PetscCall(g->base.replacearray(v, a));
  g->mask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(0);
}

static PetscErrorCode VecResetArray_GK(Vec v)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCall(VecGKCopyToHost_Private(v, g)); /* the placed array receives the current values */
  PetscCall(g->base.resetarray(v));
  g->mask = PETSC_OFFLOAD_CPU;
  PetscFunctionReturn(0);
}

/* g's own device array and its state set aside, d (another's, current on the device, every
   entry cval where isconst) its array meanwhile: VecGetLocalVector()'s lending and
   VecGPUKitPlaceDeviceArray() */
static void VecGKLend_Private(Vec_GK *g, PetscScalar *d, PetscBool isconst, PetscScalar cval)
{
  g->down       = g->d;
  g->maskown    = g->mask;
  g->isconstown = g->isconst;
  g->cvalown    = g->cval;
  g->d          = d;
  g->mask       = PETSC_OFFLOAD_GPU;
  g->isconst    = isconst;
  g->cval       = cval;
  g->lent       = PETSC_TRUE;
}

/* g's own device array and its state back */
static void VecGKTakeBack_Private(Vec_GK *g)
{
  g->d       = g->down;
  g->mask    = g->maskown;
  g->isconst = g->isconstown;
  g->cval    = g->cvalown;
  g->down    = NULL;
  g->lent    = PETSC_FALSE;
  g->placed  = PETSC_FALSE;
}

/* VecGetLocalVector() and VecGetLocalVectorRead() (PCBJACOBI's block vectors, among others): where
   both vectors are the library's own and v's values are on the device, w is lent v's device array
   (its own set aside), so that the block's solve runs on the device; else PETSc's way, v's host
   array placed in w. Given back, w's values reach v's device array (copied up first if w's host
   copy is the current one), and v is marked current there when it was lent for writing. */
static PetscErrorCode VecGetLocalVectorAny_GK(Vec v, Vec w, PetscBool write)
{
  Vec_GK   *gv, *gw;
  PetscBool on;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &gv));
  PetscCall(VecGKOnDevice_Private(v, &on));
  if (VecIsOwnGK(w) && on) {
    PetscCall(VecGKGetData_Private(w, &gw));
    PetscCheck(!gw->lent, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The local vector is lent already; restore it first");
    PetscCall(VecGKCopyToDevice_Private(v, gv));
    VecGKLend_Private(gw, gv->d, gv->isconst, gv->cval);
  } else {
    PetscScalar *a;

    if (write) PetscCall(VecGetArray(v, &a));
    else PetscCall(VecGetArrayRead(v, (const PetscScalar **)&a));
    PetscCall(VecPlaceArray(w, a));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode VecRestoreLocalVectorAny_GK(Vec v, Vec w, PetscBool write)
{
  Vec_GK *gv, *gw = NULL;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(v, &gv));
  if (VecIsOwnGK(w)) PetscCall(VecGKGetData_Private(w, &gw));
  if (gw && gw->lent) {
    PetscCall(VecGKCopyToDevice_Private(w, gw)); /* into the lent array, where w's host copy holds the values */
    if (write) {
      gv->mask    = PETSC_OFFLOAD_GPU;
      gv->isconst = PETSC_FALSE;
    }
    VecGKTakeBack_Private(gw);
  } else {
    PetscScalar *a;

    if (write) {
      PetscCall(VecGetArray(w, &a));
      PetscCall(VecRestoreArray(v, &a));
    } else {
      PetscCall(VecGetArrayRead(w, (const PetscScalar **)&a));
      PetscCall(VecRestoreArrayRead(v, (const PetscScalar **)&a));
    }
    PetscCall(VecResetArray(w));
  }
  PetscFunctionReturn(0);
}

/* the four entries PETSc calls, each a call of the two above */
#define GK_LOCAL_VECTOR_OP(NAME, FN, WRITE) \
  static PetscErrorCode NAME(Vec v, Vec w) \
  { \
    PetscFunctionBegin; \
    PetscCall(FN(v, w, WRITE)); \
    PetscFunctionReturn(0); \
  }
GK_LOCAL_VECTOR_OP(VecGetLocalVector_GK, VecGetLocalVectorAny_GK, PETSC_TRUE)
GK_LOCAL_VECTOR_OP(VecRestoreLocalVector_GK, VecRestoreLocalVectorAny_GK, PETSC_TRUE)
GK_LOCAL_VECTOR_OP(VecGetLocalVectorRead_GK, VecGetLocalVectorAny_GK, PETSC_FALSE)
GK_LOCAL_VECTOR_OP(VecRestoreLocalVectorRead_GK, VecRestoreLocalVectorAny_GK, PETSC_FALSE)

/* VecGKTrackBegin_Private()'s record: the vectors duplicated since, not destroyed */
#define GK_TRACK_MAX 8
static struct {
  PetscBool on;
  PetscInt  n;
  Vec       v[GK_TRACK_MAX];
} GKTrack;

PetscErrorCode VecGKTrackBegin_Private(void)
{
  PetscFunctionBegin;
  PetscCheck(!GKTrack.on, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vectors are kept track of already");
  GKTrack.on = PETSC_TRUE;
  GKTrack.n  = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode VecGKTrackEnd_Private(PetscBool destroy)
{
  PetscFunctionBegin;
  GKTrack.on = PETSC_FALSE;
  for (PetscInt k = 0; k < GKTrack.n; k++)
    if (destroy) PetscCall(VecDestroy(&GKTrack.v[k]));
  GKTrack.n = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDuplicate_GK(Vec v, Vec *w)
{
  PetscFunctionBegin;
  /* not VECSEQ's duplicate: it would copy the composed device data too */
  PetscCall(VecCreate(PetscObjectComm((PetscObject)v), w));
  PetscCall(PetscLayoutReference(v->map, &(*w)->map));
  PetscCall(VecSetType(*w, ((PetscObject)v)->type_name));
  (*w)->ops->view          = v->ops->view;
  (*w)->stash.ignorenegidx = v->stash.ignorenegidx;
  if (GKTrack.on && GKTrack.n < GK_TRACK_MAX) GKTrack.v[GKTrack.n++] = *w;
  PetscFunctionReturn(0);
}

/* Each vector its own duplicate, with its own host and device arrays: since 3.21 VECSEQ's and
   VECMPI's VecDuplicateVecs hand out vectors sharing one host block, which this type's arrays
   and destroy do not know */
static PetscErrorCode VecDuplicateVecs_GK(Vec v, PetscInt m, Vec *V[])
{
  PetscFunctionBegin;
  PetscCheck(m > 0, PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_OUTOFRANGE, "m must be > 0: m = %" PetscInt_FMT, m);
  PetscCall(PetscMalloc1(m, V));
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDuplicate(v, *V + i));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDestroyVecs_GK(PetscInt m, Vec V[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) PetscCall(VecDestroy(&V[i]));
  PetscCall(PetscFree(V));
  PetscFunctionReturn(0);
}

/* The values of a vector made anew by VecSetType() of its own type (GK_VECSETTYPE_REMAKES), kept
   on it between its destroy and its creator */
#define GK_REMADE "VecGKRemadeValues"

static PetscErrorCode VecDestroy_GK(Vec v)
{
  Vec_GK *g;
  PetscErrorCode (*destroy)(Vec);

  PetscFunctionBegin;
  for (PetscInt k = 0; GKTrack.on && k < GKTrack.n; k++)
    if (GKTrack.v[k] == v) GKTrack.v[k--] = GKTrack.v[--GKTrack.n];
  if (GK_VECSETTYPE_REMAKES && ((PetscObject)v)->refct > 0 && v->map->n > 0) { /* VecSetType(), not VecDestroy() */
    const PetscScalar *a;
    PetscScalar       *keep;
    PetscContainer     c;

    PetscCall(PetscMalloc1(v->map->n, &keep));
    PetscCall(VecGetArrayRead(v, &a));
    PetscCall(PetscArraycpy(keep, a, v->map->n));
    PetscCall(VecRestoreArrayRead(v, &a));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, keep));
    PetscCall(GKContainerFreeOnDestroy(c));
    PetscCall(PetscObjectCompose((PetscObject)v, GK_REMADE, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  PetscCall(VecGKGetData_Private(v, &g));
  destroy = g->base.destroy;
  if (g->lent) g->d = g->down; /* the lender's array is not this vector's to free */
  PetscCall(GKFree(g->d));
  PetscCall(VecGKUnpin_Private(g));
  PetscCall(PetscObjectCompose((PetscObject)v, "GKVec", NULL)); /* frees g */
  PetscCall(destroy(v));
  PetscFunctionReturn(0);
}

/* Set by the registration (gpukitreg.c): what a device vector's DM is given when the vector is
   given its local-to-global mapping (gkdm.c wraps a DMDA's matrix creation then) */
PetscErrorCode (*VecGKDMHook_Private)(DM) = NULL;

/* VECSEQ's and VECMPI's own (the layout keeps the mapping), then the DM's hook: DMDA's
   DMCreateGlobalVector() calls VecSetDM() and then this, before its DM makes any matrix */
static PetscErrorCode VecSetLocalToGlobalMapping_GK(Vec v, ISLocalToGlobalMapping map)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetISLocalToGlobalMapping(v->map, map));
  PetscCall(VecGetDM(v, &dm));
  if (dm && VecGKDMHook_Private) PetscCall((*VecGKDMHook_Private)(dm));
  PetscFunctionReturn(0);
}

/* Makes a VECSEQ or VECMPI just created a device vector */
static PetscErrorCode VecConvert_GK_Private(Vec v, PetscBool mpi, VecType type)
{
  Vec_GK        *g;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(PetscNew(&g));
  g->mpi = mpi;
  PetscCall(PetscMemcpy(&g->base, v->ops, sizeof(struct _VecOps)));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, g));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)v, "GKVec", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));

  PetscCall(VecGKSetOperations_Private(v));
  v->ops->getarray               = VecGetArray_GK;
  v->ops->restorearray           = VecRestoreArray_GK;
  v->ops->getarrayread           = VecGetArrayRead_GK;
  v->ops->getarraywrite          = VecGetArrayWrite_GK;
  v->ops->restorearraywrite      = VecRestoreArray_GK;
  v->ops->placearray             = VecPlaceArray_GK;
  v->ops->replacearray           = VecReplaceArray_GK;
  v->ops->resetarray             = VecResetArray_GK;
  v->ops->getlocalvector         = VecGetLocalVector_GK;
  v->ops->restorelocalvector     = VecRestoreLocalVector_GK;
  v->ops->getlocalvectorread     = VecGetLocalVectorRead_GK;
  v->ops->restorelocalvectorread = VecRestoreLocalVectorRead_GK;
  v->ops->duplicate              = VecDuplicate_GK;
  v->ops->duplicatevecs          = VecDuplicateVecs_GK;
  v->ops->destroyvecs            = VecDestroyVecs_GK;
  v->ops->destroy                = VecDestroy_GK;
  v->ops->getsubvector           = VecGetSubVector_GK;
  v->ops->restoresubvector       = VecRestoreSubVector_GK;
  /* a DMDA's global vector: its DM hooked (VecGKDMHook_Private) */
  v->ops->setlocaltoglobalmapping = VecSetLocalToGlobalMapping_GK;
  /* PETSc's own device vectors (a PETSc built with CUDA) take any other vector whose offloadmask
     says GPU for one of theirs (VecCopy from one writes to its spptr): to PETSc this vector is a
     host one, reached through the array hooks above, and its own mask lives in g */
  g->mask        = PETSC_OFFLOAD_UNALLOCATED;
  v->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(PetscObjectChangeTypeName((PetscObject)v, type));
  PetscCall(PetscObjectQuery((PetscObject)v, GK_REMADE, (PetscObject *)&c));
  if (c) { /* made anew by VecSetType() of its own type: the values it had */
    const PetscScalar *keep;
    PetscScalar       *a;

    PetscCall(PetscContainerGetPointer(c, (void **)&keep));
    PetscCall(VecGetArrayWrite(v, &a));
    PetscCall(PetscArraycpy(a, keep, v->map->n));
    PetscCall(VecRestoreArrayWrite(v, &a));
    PetscCall(PetscObjectCompose((PetscObject)v, GK_REMADE, NULL));
  }
  PetscFunctionReturn(0);
}

/*MC
   VECSEQCUDA - "seqcuda" - a sequential vector whose values live on the GPU

   A `VECSEQ` with a device array beside its host array: the library's matrices and solvers, and
   PETSc's Krylov methods through the vector operations below, work on the device array; any
   host access (`VecGetArray()`, `VecSetValues()`, `VecView()`...) copies the values to the host
   first, and the next device operation copies them back only if the host changed them.

   On the device: `VecSet()`, `VecCopy()`, `VecSwap()`, `VecScale()`, `VecShift()`, `VecAXPY()`,
   `VecAYPX()`, `VecAXPBY()`, `VecAXPBYPCZ()`, `VecWAXPY()`, `VecMAXPY()`, `VecDot()`, `VecTDot()`,
   `VecMDot()`, `VecMTDot()`, `VecNorm()`, `VecDotNorm2()`, `VecPointwiseMult()`,
   `VecPointwiseDivide()`, `VecReciprocal()`, `VecSum()`, `VecMax()`, `VecMin()`,
   `VecConjugate()` and the split-phase `VecDotBegin()`/`VecNormBegin()` family.

   Options Database Keys:
+  -vec_type cuda - selects it with `VecSetFromOptions()`
-  -dm_vec_type cuda - for a DM's vectors

   Level: beginner

.seealso: `VECCUDA`, `VECMPICUDA`, `VecGPUKitGetDeviceArrayRead()`, `MATELLRCUDA`
M*/
/* PETSc's own creator of type t (VECSEQ, VECMPI), found in VecList (VecCreate_Seq is not
   exported since 3.20), run while the layout's sizes read 0, so that it allocates and zeroes no
   host array (VecGKHostAlloc_Private makes it when needed; the layout is set up first, as the
   creator would, and its sizes restored after) */
static PetscErrorCode VecGKCreateBase_Private(Vec v, VecType t)
{
  PetscErrorCode (*create)(Vec) = NULL;
  PetscLayout    map;
  PetscInt       n, N;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(VecList, t, &create));
  PetscCheck(create, PetscObjectComm((PetscObject)v), PETSC_ERR_PLIB, "PETSc's vector type %s is not registered", t);
  PetscCall(PetscLayoutSetUp(v->map));
  map    = v->map;
  n      = map->n;
  N      = map->N;
  map->n = map->oldn = 0;
  map->N = map->oldN = 0;
  ierr               = (*create)(v);
  map->n = map->oldn = n;
  map->N = map->oldN = N;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

PetscErrorCode VecCreate_SeqGKCUDA(Vec v)
{
  PetscFunctionBegin;
  PetscCall(VecGKCreateBase_Private(v, VECSEQ));
  PetscCall(VecConvert_GK_Private(v, PETSC_FALSE, VECSEQGKCUDA));
  PetscFunctionReturn(0);
}

/*MC
   VECMPICUDA - "mpicuda" - a parallel vector whose values live on the GPUs of its processes

   As `VECSEQCUDA`, one device array per process; a reduction is the device's partial result
   followed by one `MPIU_Allreduce()`. Scatters and ghost updates go through the host.

   Level: beginner

.seealso: `VECCUDA`, `VECSEQCUDA`
M*/
PetscErrorCode VecCreate_MPIGKCUDA(Vec v)
{
  PetscFunctionBegin;
  PetscCall(VecGKCreateBase_Private(v, VECMPI));
  PetscCall(VecConvert_GK_Private(v, PETSC_TRUE, VECMPIGKCUDA));
  PetscFunctionReturn(0);
}

/* The root type: the sequential or MPI creator, called directly */
PetscErrorCode VecCreate_GKCUDA(Vec v)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)v), &size));
  if (size == 1) PetscCall(VecCreate_SeqGKCUDA(v));
  else PetscCall(VecCreate_MPIGKCUDA(v));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecGPUKitCheck_Private(Vec v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, 1);
  PetscCheck(VecIsOwnGK(v), PetscObjectComm((PetscObject)v), PETSC_ERR_ARG_WRONG,
             "Vector of type %s has no device array the library can use: create it with type %s%s", ((PetscObject)v)->type_name, VECGKCUDA,
             PetscDefined(HAVE_CUDA)
               ? (GKDev == &GKBackendCUDA ? " or " VECCUDA
                                          : " (PETSc's " VECCUDA " needs the library's CUDA backend, and this process runs on the host backend)")
               : "");
  PetscFunctionReturn(0);
}

#if defined(PETSC_HAVE_CUDA)
/* The library's kernels run on CUDA's legacy default stream, which orders them after PETSc's
   work on its default (NULL) stream and on blocking streams. A nonblocking stream of PETSc's
   (-root_device_context_stream_type nonblocking) is waited for by hand: PETSc's work before the
   library reads an array (before = PETSC_TRUE), the library's before PETSc goes on. */
static PetscErrorCode VecGKPETScStreamSync_Private(PetscBool before)
{
  PetscDeviceContext dctx;
  PetscStreamType    stype;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamType(dctx, &stype));
  if (GKStreamIsNonBlocking(stype)) {
    if (before) PetscCall(PetscDeviceContextSynchronize(dctx));
    else PetscCall(GKDev->synchronize());
  }
  PetscFunctionReturn(0);
}
  #define GK_PETSC_CUDA_ACCESS(getrestore, v, d, before) \
    do { \
      if (before) PetscCall(getrestore(v, d)); \
      PetscCall(VecGKPETScStreamSync_Private(before)); \
      if (!(before)) PetscCall(getrestore(v, d)); \
    } while (0)
#else
  #define GK_PETSC_CUDA_ACCESS(getrestore, v, d, before) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "no PETSc CUDA vectors in this build")
#endif

/*@C
   VecGPUKitGetDeviceArrayRead - The device array of a `VECGKCUDA` vector (or, in a PETSc built
   with CUDA, of PETSc's `VECCUDA`), holding its values, for reading

   Not Collective

   Level: advanced

.seealso: `VecGPUKitRestoreDeviceArrayRead()`, `VecGPUKitGetDeviceArray()`, `VecGPUKitGetDeviceArrayWrite()`
@*/
PetscErrorCode VecGPUKitGetDeviceArrayRead(Vec v, const PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDAGetArrayRead, v, d, PETSC_TRUE);
  else {
    PetscCall(VecGPUKitCheck_Private(v));
    PetscCall(VecGKDevice_Private(v, GK_READ, (PetscScalar **)d));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VecGPUKitRestoreDeviceArrayRead(Vec v, const PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDARestoreArrayRead, v, d, PETSC_FALSE);
  else *d = NULL;
  PetscFunctionReturn(0);
}

/*@C
   VecGPUKitGetDeviceArray - The device array of a `VECGKCUDA` vector (or, in a PETSc built with
   CUDA, of PETSc's `VECCUDA`), holding its values, for reading and writing

   Not Collective

   Level: advanced

.seealso: `VecGPUKitRestoreDeviceArray()`, `VecGPUKitGetDeviceArrayRead()`, `VecGPUKitGetDeviceArrayWrite()`
@*/
PetscErrorCode VecGPUKitGetDeviceArray(Vec v, PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDAGetArray, v, d, PETSC_TRUE);
  else {
    PetscCall(VecGPUKitCheck_Private(v));
    PetscCall(VecGKDevice_Private(v, GK_READWRITE, d));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VecGPUKitRestoreDeviceArray(Vec v, PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDARestoreArray, v, d, PETSC_FALSE);
  else {
    *d = NULL;
    PetscCall(PetscObjectStateIncrease((PetscObject)v));
  }
  PetscFunctionReturn(0);
}

/*@C
   VecGPUKitGetDeviceArrayWrite - The device array of a `VECGKCUDA` vector (or, in a PETSc built
   with CUDA, of PETSc's `VECCUDA`), for writing all of it (its current values are not copied
   there)

   Not Collective

   Level: advanced

.seealso: `VecGPUKitRestoreDeviceArrayWrite()`, `VecGPUKitGetDeviceArray()`
@*/
PetscErrorCode VecGPUKitGetDeviceArrayWrite(Vec v, PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDAGetArrayWrite, v, d, PETSC_TRUE);
  else {
    PetscCall(VecGPUKitCheck_Private(v));
    PetscCall(VecGKDevice_Private(v, GK_WRITE, d));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode VecGPUKitRestoreDeviceArrayWrite(Vec v, PetscScalar **d)
{
  PetscFunctionBegin;
  if (VecIsPETScCUDA(v)) GK_PETSC_CUDA_ACCESS(VecCUDARestoreArrayWrite, v, d, PETSC_FALSE);
  else {
    *d = NULL;
    PetscCall(PetscObjectStateIncrease((PetscObject)v));
  }
  PetscFunctionReturn(0);
}

/*@
   VecGPUKitPlaceDeviceArray - Makes an array of the caller's the vector's values, with no copy,
   until `VecGPUKitResetDeviceArray()`: device memory while the library runs on a GPU, host memory
   on its host backend; the vector's own values are set aside meanwhile

   Not Collective

   Input Parameters:
+  v - one of the library's vectors (`VECGKCUDA`; in a PETSc without CUDA, `VECCUDA`)
-  a - at least the vector's local length of scalars; it stays the caller's, never freed by the
       vector, and must outlive the placement

   Level: advanced

   Notes:
   The array's contents are the vector's values from now on, as after a write of them: the
   vector's state moves on. A host copy, when a host operation asks for one, is made from it.
   Written by its owner outside PETSc, the vector's state must be moved on
   (`PetscObjectStateIncrease()`) before PETSc reads it again. `VecDestroy()` of a vector with a
   placed array leaves the array alone.

.seealso: `VecGPUKitResetDeviceArray()`, `VecGPUKitGetDeviceArray()`, `VecPlaceArray()`
@*/
PetscErrorCode VecGPUKitPlaceDeviceArray(Vec v, PetscScalar *a)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGPUKitCheck_Private(v));
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCheck(!g->lent, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE,
             "The vector's device array is replaced already (VecGPUKitPlaceDeviceArray() or VecGetLocalVector()): reset or restore it first");
  PetscCheck(a || !v->map->n, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No array given for a vector of local length %" PetscInt_FMT, v->map->n);
  PetscCall(VecGKCopyToDevice_Private(v, g)); /* the own values set aside on the device */
  VecGKLend_Private(g, a, PETSC_FALSE, 0.0);
  g->maskown = PETSC_OFFLOAD_GPU; /* the host copy will be the placed array's */
  g->placed  = PETSC_TRUE;
  PetscCall(PetscObjectStateIncrease((PetscObject)v));
  PetscFunctionReturn(0);
}

/*@
   VecGPUKitResetDeviceArray - Gives the vector its own values back after
   `VecGPUKitPlaceDeviceArray()`; the placed array keeps the values the vector had last

   Not Collective

   Input Parameter:
.  v - the vector

   Level: advanced

.seealso: `VecGPUKitPlaceDeviceArray()`
@*/
PetscErrorCode VecGPUKitResetDeviceArray(Vec v)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGPUKitCheck_Private(v));
  PetscCall(VecGKGetData_Private(v, &g));
  PetscCheck(g->placed, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "The vector has no array placed by VecGPUKitPlaceDeviceArray()");
  PetscCall(VecGKCopyToDevice_Private(v, g)); /* into the placed array, where the host copy holds the values */
  VecGKTakeBack_Private(g);
  PetscCall(PetscObjectStateIncrease((PetscObject)v));
  PetscFunctionReturn(0);
}

PetscErrorCode VecGKDefaultType_Private(VecType *type)
{
  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
#if defined(PETSC_HAVE_CUDA)
  *type = GKDev == &GKBackendCUDA ? VECCUDA : VECGKCUDA;
#else
  *type = VECGKCUDA;
#endif
  PetscFunctionReturn(0);
}

/* y = x, device to device when both have device arrays the kernels use (one may be PETSc's own
   VECCUDA, whose VecCopy would take this library's vectors for host ones), else VecCopy() */
PetscErrorCode VecGKCopy_Private(Vec x, Vec y)
{
  const PetscScalar *xd;
  PetscScalar       *yd;

  PetscFunctionBegin;
  if (x == y) PetscFunctionReturn(0);
  if (!VecIsGK(x) || !VecIsGK(y) || (VecIsOwnGK(x) && VecIsOwnGK(y))) {
    PetscCall(VecCopy(x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(VecGPUKitGetDeviceArrayWrite(y, &yd));
  PetscCall(GKMemcpyD2D(yd, xd, (size_t)x->map->n * sizeof(PetscScalar)));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(y, &yd));
  PetscCall(VecGPUKitRestoreDeviceArrayRead(x, &xd));
  PetscFunctionReturn(0);
}

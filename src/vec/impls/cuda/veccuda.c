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
#include "gkvec.h"

/* exported by libpetsc, not declared in its headers */
PETSC_EXTERN MPI_Op MPIU_MAXLOC, MPIU_MINLOC;

typedef struct {
  PetscScalar     *d;       /* device array, local length (NULL when empty or not allocated) */
  PetscOffloadMask mask;    /* which array holds the values (the Vec's own offloadmask stays CPU: see VecConvert_GK_Private) */
  PetscBool        isconst; /* every entry of the device array is cval (VecSet, or cval set there), and nothing wrote it since */
  PetscScalar      cval;    /* UNALLOCATED: every entry's value */
  PetscBool        mpi;     /* the reductions add an MPIU_Allreduce */
  struct _VecOps   base;    /* VECSEQ's or VECMPI's operations, for the fallbacks */
  /* VecGetLocalVector(): lent, d is another vector's device array, and this vector's own device
     array and state are set aside here until it is given back */
  PetscBool        lent;
  PetscScalar     *down;
  PetscOffloadMask maskown;
  PetscBool        isconstown;
  PetscScalar      cvalown;
  PetscScalar     *pinned; /* the host array, page-locked in place (VecGKPin_Private) */
  PetscInt         copies; /* copies between the host array and the device array so far */
} Vec_GK;

static PetscErrorCode VecGetArray_GK(Vec, PetscScalar **);

/* one of this library's vectors */
static inline PetscBool VecIsOwnGK(Vec v)
{
  return v->ops->getarray == VecGetArray_GK ? PETSC_TRUE : PETSC_FALSE;
}

/* PETSc's own VECSEQCUDA or VECMPICUDA (a PETSc built with CUDA) while the kernels run on the
   GPU: its device array, from PETSc's accessors, is the kernels' to read and write */
static inline PetscBool VecIsPETScCUDA(Vec v)
{
#if defined(PETSC_HAVE_CUDA)
  const char *t = ((PetscObject)v)->type_name;

  return GKDev == &GKBackendCUDA && t && (!strcmp(t, VECSEQCUDA) || !strcmp(t, VECMPICUDA)) ? PETSC_TRUE : PETSC_FALSE;
#else
  return PETSC_FALSE;
#endif
}

PetscBool VecIsGK(Vec v)
{
  return VecIsOwnGK(v) || VecIsPETScCUDA(v) ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode VecGKGetData_Private(Vec v, Vec_GK **g)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)v, "GKVec", (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "device vector without its data");
  PetscCall(PetscContainerGetPointer(c, (void **)g));
  PetscFunctionReturn(0);
}

/* VECSEQ's and VECMPI's data both open with this header */
typedef struct {
  VECHEADER
} Vec_GKHost;

static inline PetscScalar *VecGKHostArray_Private(Vec v)
{
  return ((Vec_GKHost *)v->data)->array;
}

/* GK_COUNT_BYTES of an operation passing k times over n entries */
#define VecGKCountPasses(n, k) GK_COUNT_BYTES((double)sizeof(PetscScalar) * (n) * (k))

/* The host array is made when the host first needs it (the creator makes none: most device
   vectors, a Krylov method's or a smoother's work vectors, never do, and allocating and zeroing
   one costs more host time than the device spends on the vector); set to cval where that is every
   entry's value (UNALLOCATED: zero, as the creator's array would have been, or a VecSet()'s) */
static PetscErrorCode VecGKHostAlloc_Private(Vec v, Vec_GK *g)
{
  Vec_GKHost *s = (Vec_GKHost *)v->data;

  PetscFunctionBegin;
  if (s->array || !v->map->n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(v->map->n, &s->array));
  s->array_allocated = s->array;
  if (g->mask == PETSC_OFFLOAD_UNALLOCATED) {
    if (g->cval == (PetscScalar)0.0) PetscCall(PetscArrayzero(s->array, v->map->n));
    else
      for (PetscInt i = 0; i < v->map->n; i++) s->array[i] = g->cval;
  }
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
static PetscErrorCode VecGKCopyToDevice_Private(Vec v, Vec_GK *g)
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
static PetscErrorCode VecGKCopyToHost_Private(Vec v, Vec_GK *g)
{
  PetscFunctionBegin;
  PetscCall(VecGKHostAlloc_Private(v, g));
  if (g->mask == PETSC_OFFLOAD_GPU) {
    PetscScalar *h = VecGKHostArray_Private(v);

    if (g->isconst)
      for (PetscInt i = 0; i < v->map->n; i++) h[i] = g->cval;
    else {
      PetscCall(VecGKPin_Private(v, g));
      PetscCall(GKMemcpyD2H(h, g->d, (size_t)v->map->n * sizeof(PetscScalar)));
    }
    g->mask = PETSC_OFFLOAD_BOTH;
  }
  PetscFunctionReturn(0);
}

/* The device array for reading (read), writing every entry (write) or both */
typedef enum {
  GK_READ,
  GK_WRITE,
  GK_READWRITE
} GKAccess;

static PetscErrorCode VecGKDevice_Private(Vec v, GKAccess mode, PetscScalar **d)
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

static PetscErrorCode VecGetArray_GK(Vec v, PetscScalar **a)
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
    gw->down       = gw->d;
    gw->maskown    = gw->mask;
    gw->isconstown = gw->isconst;
    gw->cvalown    = gw->cval;
    gw->d          = gv->d;
    gw->mask       = PETSC_OFFLOAD_GPU;
    gw->isconst    = gv->isconst;
    gw->cval       = gv->cval;
    gw->lent       = PETSC_TRUE;
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
    gw->d       = gw->down;
    gw->mask    = gw->maskown;
    gw->isconst = gw->isconstown;
    gw->cval    = gw->cvalown;
    gw->down    = NULL;
    gw->lent    = PETSC_FALSE;
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

/* The fallback test: every operand a device vector of this library */
#define VecGKAll2(a, b)    (VecIsOwnGK(a) && VecIsOwnGK(b))
#define VecGKAll3(a, b, c) (VecIsOwnGK(a) && VecIsOwnGK(b) && VecIsOwnGK(c))

/* z = a x + b y + c z + d on the device, x and y optional; z is written only (c = 0) or updated */
static PetscErrorCode VecGKUpdate_Private(Vec z, PetscScalar a, Vec x, PetscScalar b, Vec y, PetscScalar c, PetscScalar d)
{
  const PetscScalar *xd = NULL, *yd = NULL;
  PetscScalar       *zd;

  PetscFunctionBegin;
  if (x) PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  if (y) PetscCall(VecGPUKitGetDeviceArrayRead(y, &yd));
  PetscCall(VecGKDevice_Private(z, c == (PetscScalar)0.0 ? GK_WRITE : GK_READWRITE, &zd));
  PetscCall(PetscLogEventBegin(GK_VecOp, z, 0, 0, 0));
  PetscCall(GKDev->axpbypczd(z->map->n, a, xd, b, yd, c, d, zd));
  VecGKCountPasses(z->map->n, (xd ? 1 : 0) + (yd ? 1 : 0) + (c == (PetscScalar)0.0 ? 1 : 2));
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogEventEnd(GK_VecOp, z, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* A vector no array of which holds values yet (UNALLOCATED, no host array: a new one) keeps
   alpha as every entry's value, set where the values are first needed: a program's VecSet() of a
   new vector (ex45's initial guess, before its operator is assembled) then does not wait for the
   CUDA start-up, which goes on beside the host work that follows */
static PetscErrorCode VecSet_GK(Vec x, PetscScalar alpha)
{
  Vec_GK   *g;
  PetscBool same;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  if (g->mask == PETSC_OFFLOAD_UNALLOCATED && !VecGKHostArray_Private(x)) {
    g->cval = alpha;
    PetscFunctionReturn(0);
  }
  /* every entry alpha already (bit for bit: -0.0 is set over 0.0), and nothing wrote since: as
     after PCMG's VecZeroEntries() of a level's solution, which its smoother's KSPSolve() sets
     to zero again */
  PetscCall(PetscMemcmp(&g->cval, &alpha, sizeof(alpha), &same));
  if (same && g->isconst && (g->mask == PETSC_OFFLOAD_GPU || g->mask == PETSC_OFFLOAD_BOTH)) PetscFunctionReturn(0);
  PetscCall(VecGKUpdate_Private(x, 0.0, NULL, 0.0, NULL, 0.0, alpha));
  g->isconst = PETSC_TRUE;
  g->cval    = alpha;
  PetscFunctionReturn(0);
}

/* Whether only the host holds the vector's values (written there since the device last had them).
   VecScale(), VecShift() and VecSum() of such a vector run on the host, where PETSc's own would:
   copying the values up would cost as much as the operation, and a program's first such call
   (MatNullSpaceRemove() of a right-hand side just computed on the host: ex50) then does not wait
   for the CUDA start-up. Where the values are decides, never whether the device is ready yet. */
static inline PetscBool VecGKHostOnly(const Vec_GK *g)
{
  return g->mask == PETSC_OFFLOAD_CPU ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode VecScale_GK(Vec x, PetscScalar alpha)
{
  Vec_GK *g;

  PetscFunctionBegin;
  if (alpha == (PetscScalar)1.0) PetscFunctionReturn(0);
  PetscCall(VecGKGetData_Private(x, &g));
  if (VecGKHostOnly(g)) PetscCall(g->base.scale(x, alpha));
  else {
    PetscCall(VecGKUpdate_Private(x, 0.0, NULL, 0.0, NULL, alpha, 0.0));
    PetscCall(PetscLogFlops(x->map->n));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode VecShift_GK(Vec x, PetscScalar alpha)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  if (VecGKHostOnly(g)) {
    PetscScalar *h;

    PetscCall(VecGetArray(x, &h));
    for (PetscInt i = 0; i < x->map->n; i++) h[i] += alpha;
    PetscCall(VecRestoreArray(x, &h));
  } else PetscCall(VecGKUpdate_Private(x, 0.0, NULL, 0.0, NULL, 1.0, alpha));
  PetscCall(PetscLogFlops(x->map->n));
  PetscFunctionReturn(0);
}

/* y = a x + y */
static PetscErrorCode VecAXPY_GK(Vec y, PetscScalar alpha, Vec x)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(y, &g));
  if (!VecGKAll2(x, y)) PetscCall(g->base.axpy(y, alpha, x));
  else PetscCall(VecGKUpdate_Private(y, alpha, x, 0.0, NULL, 1.0, 0.0));
  PetscCall(PetscLogFlops(2.0 * y->map->n));
  PetscFunctionReturn(0);
}

/* y = x + a y */
static PetscErrorCode VecAYPX_GK(Vec y, PetscScalar alpha, Vec x)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(y, &g));
  if (!VecGKAll2(x, y)) PetscCall(g->base.aypx(y, alpha, x));
  else PetscCall(VecGKUpdate_Private(y, 1.0, x, 0.0, NULL, alpha, 0.0));
  PetscCall(PetscLogFlops(2.0 * y->map->n));
  PetscFunctionReturn(0);
}

/* y = a x + b y */
static PetscErrorCode VecAXPBY_GK(Vec y, PetscScalar alpha, PetscScalar beta, Vec x)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(y, &g));
  if (!VecGKAll2(x, y)) PetscCall(g->base.axpby(y, alpha, beta, x));
  else PetscCall(VecGKUpdate_Private(y, alpha, x, 0.0, NULL, beta, 0.0));
  PetscCall(PetscLogFlops(3.0 * y->map->n));
  PetscFunctionReturn(0);
}

/* z = a x + b y + c z */
static PetscErrorCode VecAXPBYPCZ_GK(Vec z, PetscScalar alpha, PetscScalar beta, PetscScalar gamma, Vec x, Vec y)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(z, &g));
  if (!VecGKAll3(x, y, z)) PetscCall(g->base.axpbypcz(z, alpha, beta, gamma, x, y));
  else PetscCall(VecGKUpdate_Private(z, alpha, x, beta, y, gamma, 0.0));
  PetscCall(PetscLogFlops(5.0 * z->map->n));
  PetscFunctionReturn(0);
}

/* w = a x + y */
static PetscErrorCode VecWAXPY_GK(Vec w, PetscScalar alpha, Vec x, Vec y)
{
  Vec_GK *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(w, &g));
  if (!VecGKAll3(w, x, y)) PetscCall(g->base.waxpy(w, alpha, x, y));
  else PetscCall(VecGKUpdate_Private(w, alpha, x, 1.0, y, 0.0, 0.0));
  PetscCall(PetscLogFlops(2.0 * w->map->n));
  PetscFunctionReturn(0);
}

/* y = y + sum_k alpha[k] x[k], GK_MULTI vectors a pass */
static PetscErrorCode VecMAXPY_GK(Vec y, PetscInt nv, const PetscScalar *alpha, Vec *x)
{
  Vec_GK            *g;
  PetscBool          all = VecIsOwnGK(y);
  PetscScalar       *yd;
  const PetscScalar *xd[GK_MULTI];

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(y, &g));
  for (PetscInt k = 0; k < nv; k++) all = (PetscBool)(all && VecIsOwnGK(x[k]));
  if (!all) {
    PetscCall(g->base.maxpy(y, nv, alpha, x));
    PetscFunctionReturn(0);
  }
  for (PetscInt k0 = 0; k0 < nv; k0 += GK_MULTI) {
    const PetscInt kn = PetscMin(nv - k0, GK_MULTI);

    for (PetscInt k = 0; k < kn; k++) PetscCall(VecGPUKitGetDeviceArrayRead(x[k0 + k], &xd[k]));
    PetscCall(VecGKDevice_Private(y, GK_READWRITE, &yd));
    PetscCall(PetscLogEventBegin(GK_VecOp, y, 0, 0, 0));
    PetscCall(GKDev->maxpy(y->map->n, kn, alpha + k0, xd, yd));
    VecGKCountPasses(y->map->n, kn + 2);
    PetscCall(PetscGPUKitLogSync_Private());
    PetscCall(PetscLogEventEnd(GK_VecOp, y, 0, 0, 0));
  }
  PetscCall(PetscLogFlops(2.0 * nv * y->map->n));
  PetscFunctionReturn(0);
}

/* y = x, on the device: where only the host holds x's values (a right-hand side the program
   computed there, copied into a solver's work vector) they go up once and x keeps them, instead of
   a host copy that y's next device operation would copy up; a new x's value (zero, or its
   VecSet()'s) is set, not copied */
static PetscErrorCode VecCopy_GK(Vec x, Vec y)
{
  Vec_GK            *g;
  const PetscScalar *xd;
  PetscScalar       *yd;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  if (!VecGKAll2(x, y)) {
    PetscCall(g->base.copy(x, y));
    PetscFunctionReturn(0);
  }
  if (g->mask == PETSC_OFFLOAD_UNALLOCATED) {
    PetscCall(VecSet_GK(y, g->cval));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(VecGKDevice_Private(y, GK_WRITE, &yd));
  PetscCall(GKMemcpyD2D(yd, xd, (size_t)x->map->n * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecSwap_GK(Vec x, Vec y)
{
  Vec_GK      *g;
  PetscScalar *xd, *yd;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  if (!VecGKAll2(x, y)) {
    PetscCall(g->base.swap(x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGKDevice_Private(x, GK_READWRITE, &xd));
  PetscCall(VecGKDevice_Private(y, GK_READWRITE, &yd));
  PetscCall(GKDev->swap(x->map->n, xd, yd));
  VecGKCountPasses(x->map->n, 4);
  PetscFunctionReturn(0);
}

static PetscErrorCode VecPointwise_GK(Vec w, Vec x, Vec y, GKPointwiseOp op)
{
  Vec_GK            *g;
  const PetscScalar *xd, *yd;
  PetscScalar       *wd;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(w, &g));
  if (!VecGKAll3(w, x, y)) {
    if (op == GK_POINTWISE_MULT) PetscCall(g->base.pointwisemult(w, x, y));
    else PetscCall(g->base.pointwisedivide(w, x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(VecGPUKitGetDeviceArrayRead(y, &yd));
  /* w may be x or y: read-write keeps its values valid either way */
  PetscCall(VecGKDevice_Private(w, (w == x || w == y) ? GK_READWRITE : GK_WRITE, &wd));
  PetscCall(PetscLogEventBegin(GK_VecOp, w, 0, 0, 0));
  PetscCall(GKDev->pointwise(w->map->n, op, wd, xd, yd));
  VecGKCountPasses(w->map->n, 3);
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogEventEnd(GK_VecOp, w, 0, 0, 0));
  PetscCall(PetscLogFlops(w->map->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecPointwiseMult_GK(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_GK(w, x, y, GK_POINTWISE_MULT));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecPointwiseDivide_GK(Vec w, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(VecPointwise_GK(w, x, y, GK_POINTWISE_DIVIDE));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecReciprocal_GK(Vec x)
{
  PetscScalar *xd;

  PetscFunctionBegin;
  PetscCall(VecGKDevice_Private(x, GK_READWRITE, &xd));
  PetscCall(GKDev->reciprocal(x->map->n, xd));
  VecGKCountPasses(x->map->n, 2);
  PetscFunctionReturn(0);
}

static PetscErrorCode VecConjugate_GK(Vec x)
{
  PetscScalar *xd;

  PetscFunctionBegin;
  if (!PetscDefined(USE_COMPLEX)) PetscFunctionReturn(0);
  PetscCall(VecGKDevice_Private(x, GK_READWRITE, &xd));
  PetscCall(GKDev->conjugate(x->map->n, xd));
  VecGKCountPasses(x->map->n, 2);
  PetscFunctionReturn(0);
}

/* Reductions: the local value on the device, then (VECMPICUDA, global flavour) one allreduce */
static PetscErrorCode VecGKAllreduce_Private(Vec x, void *buf, PetscMPIInt count, MPI_Datatype type, MPI_Op op)
{
  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, buf, count, type, op, PetscObjectComm((PetscObject)x)));
  PetscFunctionReturn(0);
}

/* r[k] = y[k]^H x (conj) or y[k]^T x, locally, GK_MULTI vectors a pass */
static PetscErrorCode VecGKDots_Private(Vec x, PetscInt nv, const Vec *y, PetscBool conjugate, PetscScalar *r)
{
  const PetscScalar *xd, *yd[GK_MULTI];

  PetscFunctionBegin;
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  for (PetscInt k0 = 0; k0 < nv; k0 += GK_MULTI) {
    const PetscInt kn = PetscMin(nv - k0, GK_MULTI);

    for (PetscInt k = 0; k < kn; k++) PetscCall(VecGPUKitGetDeviceArrayRead(y[k0 + k], &yd[k]));
    PetscCall(PetscLogEventBegin(GK_VecReduce, x, 0, 0, 0));
    PetscCall(GKDev->dots(x->map->n, xd, kn, yd, conjugate, r + k0));
    VecGKCountPasses(x->map->n, kn + 1);
    PetscCall(PetscLogEventEnd(GK_VecReduce, x, 0, 0, 0));
  }
  PetscCall(PetscLogFlops(2.0 * nv * x->map->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecGKDotsAll_Private(Vec x, PetscInt nv, const Vec *y, PetscBool conjugate, PetscBool global, PetscScalar *r)
{
  Vec_GK   *g;
  PetscBool all = VecIsOwnGK(x);

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  for (PetscInt k = 0; k < nv; k++) all = (PetscBool)(all && VecIsOwnGK(y[k]));
  if (!all) { /* a host vector among them: the replaced operation */
    if (nv == 1) PetscCall((global ? (conjugate ? g->base.dot : g->base.tdot) : (conjugate ? g->base.dot_local : g->base.tdot_local))(x, y[0], r));
    else PetscCall((global ? (conjugate ? g->base.mdot : g->base.mtdot) : (conjugate ? g->base.mdot_local : g->base.mtdot_local))(x, nv, y, r));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGKDots_Private(x, nv, y, conjugate, r));
  if (global && g->mpi) PetscCall(VecGKAllreduce_Private(x, r, (PetscMPIInt)nv, MPIU_SCALAR, MPIU_SUM));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDot_GK(Vec x, Vec y, PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, 1, &y, PETSC_TRUE, PETSC_TRUE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecTDot_GK(Vec x, Vec y, PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, 1, &y, PETSC_FALSE, PETSC_TRUE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMDot_GK(Vec x, PetscInt nv, const Vec y[], PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, nv, y, PETSC_TRUE, PETSC_TRUE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMTDot_GK(Vec x, PetscInt nv, const Vec y[], PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, nv, y, PETSC_FALSE, PETSC_TRUE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecDotLocal_GK(Vec x, Vec y, PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, 1, &y, PETSC_TRUE, PETSC_FALSE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecTDotLocal_GK(Vec x, Vec y, PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, 1, &y, PETSC_FALSE, PETSC_FALSE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMDotLocal_GK(Vec x, PetscInt nv, const Vec y[], PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, nv, y, PETSC_TRUE, PETSC_FALSE, r));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMTDotLocal_GK(Vec x, PetscInt nv, const Vec y[], PetscScalar *r)
{
  PetscFunctionBegin;
  PetscCall(VecGKDotsAll_Private(x, nv, y, PETSC_FALSE, PETSC_FALSE, r));
  PetscFunctionReturn(0);
}

/* The norm from the device's sums (r[0] = sum |x|, r[1] = sum |x|^2, r[2] = max |x|), over
   all processes when global */
static PetscErrorCode VecGKNorm_Private(Vec x, NormType type, PetscBool global, PetscReal *z)
{
  Vec_GK            *g;
  const PetscScalar *xd;
  PetscReal          r[3];

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(PetscLogEventBegin(GK_VecReduce, x, 0, 0, 0));
  PetscCall(GKDev->norms(x->map->n, xd,
                         type == NORM_1          ? GK_NORM_ABS
                         : type == NORM_INFINITY ? GK_NORM_MAX
                         : type == NORM_1_AND_2  ? GK_NORM_ABS | GK_NORM_SQ
                                                 : GK_NORM_SQ,
                         r));
  VecGKCountPasses(x->map->n, 1);
  PetscCall(PetscLogEventEnd(GK_VecReduce, x, 0, 0, 0));
  if (global && g->mpi) {
    if (type == NORM_INFINITY) { /* MPI's maximum may drop a NaN: a flag beside it keeps it */
      PetscReal m[2] = {PetscIsNanReal(r[2]) ? 0.0 : r[2], PetscIsNanReal(r[2]) ? 1.0 : 0.0};

      PetscCall(VecGKAllreduce_Private(x, m, 2, MPIU_REAL, MPIU_MAX));
      r[2] = m[1] > 0.0 ? (PetscReal)NAN : m[0];
    } else PetscCall(VecGKAllreduce_Private(x, r, 2, MPIU_REAL, MPIU_SUM));
  }
  switch (type) {
  case NORM_1:
    z[0] = r[0];
    break;
  case NORM_INFINITY:
    z[0] = r[2];
    break;
  case NORM_1_AND_2:
    z[0] = r[0];
    z[1] = PetscSqrtReal(r[1]);
    break;
  default: /* NORM_2, NORM_FROBENIUS */
    z[0] = PetscSqrtReal(r[1]);
  }
  PetscCall(PetscLogFlops(2.0 * x->map->n));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecNorm_GK(Vec x, NormType type, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecGKNorm_Private(x, type, PETSC_TRUE, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecNormLocal_GK(Vec x, NormType type, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecGKNorm_Private(x, type, PETSC_FALSE, z));
  PetscFunctionReturn(0);
}

/* dp = t^H s, nm = t^H t */
static PetscErrorCode VecDotNorm2_GK(Vec s, Vec t, PetscScalar *dp, PetscScalar *nm)
{
  Vec_GK            *g;
  const PetscScalar *sd, *td;
  PetscScalar        r[2];
  PetscReal          nr;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(s, &g));
  if (!VecGKAll2(s, t)) {
    PetscCall(g->base.dotnorm2(s, t, dp, nm));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(s, &sd));
  PetscCall(VecGPUKitGetDeviceArrayRead(t, &td));
  PetscCall(PetscLogEventBegin(GK_VecReduce, s, 0, 0, 0));
  PetscCall(GKDev->dotnorm2(s->map->n, sd, td, &r[0], &nr));
  VecGKCountPasses(s->map->n, 2);
  PetscCall(PetscLogEventEnd(GK_VecReduce, s, 0, 0, 0));
  r[1] = nr;
  if (g->mpi) PetscCall(VecGKAllreduce_Private(s, r, 2, MPIU_SCALAR, MPIU_SUM));
  *dp = r[0];
  *nm = r[1];
  PetscCall(PetscLogFlops(4.0 * s->map->n));
  PetscFunctionReturn(0);
}

/* the local sum: VecSum() adds the processes' sums itself */
static PetscErrorCode VecSum_GK(Vec x, PetscScalar *s)
{
  const PetscScalar *xd;
  Vec_GK            *g;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  if (VecGKHostOnly(g)) { /* as PETSc's VecSum() without an operation of the type's */
    const PetscScalar *h;
    PetscScalar        sum = 0.0;

    PetscCall(VecGetArrayRead(x, &h));
    for (PetscInt i = 0; i < x->map->n; i++) sum += h[i];
    PetscCall(VecRestoreArrayRead(x, &h));
    *s = sum;
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(PetscLogEventBegin(GK_VecReduce, x, 0, 0, 0));
  PetscCall(GKDev->sum(x->map->n, xd, s));
  VecGKCountPasses(x->map->n, 1);
  PetscCall(PetscLogEventEnd(GK_VecReduce, x, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* the extreme real part and its first (global) index, as VecMax_MPI/VecMin_MPI */
static PetscErrorCode VecGKExtreme_Private(Vec x, GKExtremeOp op, PetscInt *idx, PetscReal *z)
{
  Vec_GK            *g;
  const PetscScalar *xd;
  PetscInt           j;

  PetscFunctionBegin;
  PetscCall(VecGKGetData_Private(x, &g));
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &xd));
  PetscCall(PetscLogEventBegin(GK_VecReduce, x, 0, 0, 0));
  PetscCall(GKDev->extreme(x->map->n, xd, op, &j, z));
  VecGKCountPasses(x->map->n, 1);
  PetscCall(PetscLogEventEnd(GK_VecReduce, x, 0, 0, 0));
  if (g->mpi) {
    struct {
      PetscReal v;
      PetscInt  i;
    } in, out;

    in.v = *z;
    in.i = j < 0 ? -1 : j + x->map->rstart;
    PetscCall(MPIU_Allreduce(&in, &out, 1, MPIU_REAL_INT, op == GK_EXTREME_MAX ? MPIU_MAXLOC : MPIU_MINLOC, PetscObjectComm((PetscObject)x)));
    *z = out.v;
    j  = out.i;
  }
  if (idx) *idx = j;
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMax_GK(Vec x, PetscInt *idx, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecGKExtreme_Private(x, GK_EXTREME_MAX, idx, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecMin_GK(Vec x, PetscInt *idx, PetscReal *z)
{
  PetscFunctionBegin;
  PetscCall(VecGKExtreme_Private(x, GK_EXTREME_MIN, idx, z));
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
  v->ops->set                    = VecSet_GK;
  v->ops->scale                  = VecScale_GK;
  v->ops->shift                  = VecShift_GK;
  v->ops->copy                   = VecCopy_GK;
  v->ops->swap                   = VecSwap_GK;
  v->ops->axpy                   = VecAXPY_GK;
  v->ops->aypx                   = VecAYPX_GK;
  v->ops->axpby                  = VecAXPBY_GK;
  v->ops->axpbypcz               = VecAXPBYPCZ_GK;
  v->ops->waxpy                  = VecWAXPY_GK;
  v->ops->maxpy                  = VecMAXPY_GK;
  v->ops->pointwisemult          = VecPointwiseMult_GK;
  v->ops->pointwisedivide        = VecPointwiseDivide_GK;
  v->ops->reciprocal             = VecReciprocal_GK;
  v->ops->conjugate              = VecConjugate_GK;
  v->ops->dot                    = VecDot_GK;
  v->ops->tdot                   = VecTDot_GK;
  v->ops->mdot                   = VecMDot_GK;
  v->ops->mtdot                  = VecMTDot_GK;
  v->ops->dot_local              = VecDotLocal_GK;
  v->ops->tdot_local             = VecTDotLocal_GK;
  v->ops->mdot_local             = VecMDotLocal_GK;
  v->ops->mtdot_local            = VecMTDotLocal_GK;
  v->ops->norm                   = VecNorm_GK;
  v->ops->norm_local             = VecNormLocal_GK;
  v->ops->dotnorm2               = VecDotNorm2_GK;
  v->ops->sum                    = VecSum_GK;
  v->ops->max                    = VecMax_GK;
  v->ops->min                    = VecMin_GK;
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

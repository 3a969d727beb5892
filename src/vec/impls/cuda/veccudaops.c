/*
   The device vectors' BLAS-1 operations and reductions (veccuda.c keeps their arrays): each on
   the device through the backend, an MPI reduction adding one MPIU_Allreduce of the device's
   partial result; an operation with a vector of another type falls back to the host operation
   it replaced.
*/
#include "veccudaimpl.h"

/* exported by libpetsc, not declared in its headers */
PETSC_EXTERN MPI_Op MPIU_MAXLOC, MPIU_MINLOC;

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
  if (same && g->isconst && !g->placed && (g->mask == PETSC_OFFLOAD_GPU || g->mask == PETSC_OFFLOAD_BOTH))
    PetscFunctionReturn(0); /* a placed array: its owner may have written it */
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

/* x = f(x) entry by entry on the device: one pass over x each way */
static PetscErrorCode VecUnary_GK(Vec x, PetscErrorCode (*f)(PetscInt, PetscScalar *))
{
  PetscScalar *xd;

  PetscFunctionBegin;
  PetscCall(VecGKDevice_Private(x, GK_READWRITE, &xd));
  PetscCall((*f)(x->map->n, xd));
  VecGKCountPasses(x->map->n, 2);
  PetscFunctionReturn(0);
}

static PetscErrorCode VecReciprocal_GK(Vec x)
{
  PetscFunctionBegin;
  PetscCall(VecUnary_GK(x, GKDev->reciprocal));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecAbs_GK(Vec x)
{
  PetscFunctionBegin;
  PetscCall(VecUnary_GK(x, GKDev->abs));
  PetscFunctionReturn(0);
}

static PetscErrorCode VecConjugate_GK(Vec x)
{
  PetscFunctionBegin;
  if (PetscDefined(USE_COMPLEX)) PetscCall(VecUnary_GK(x, GKDev->conjugate));
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

/* v minus the constant of its mean, as MatNullSpaceRemove() removes the constants: VecSum(),
   then VecShift() by the sum over -N, with the same arithmetic. Where the values are on the device
   (one process) the sum stays there and the shift reads it (removeconstant): no wait, so that a
   multigrid application whose smoothers remove it can be recorded as a graph (pcgraph.c) */
PetscErrorCode VecGKRemoveConstant_Private(Vec v)
{
  Vec_GK      *g = NULL;
  PetscScalar *d, s;
  PetscInt     N;
  PetscMPIInt  size;

  PetscFunctionBegin;
  PetscCall(VecGetSize(v, &N));
  if (N <= 0) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)v), &size));
  if (VecIsOwnGK(v) && size == 1) PetscCall(VecGKGetData_Private(v, &g));
  if (!g || VecGKHostOnly(g)) {
    PetscCall(VecSum(v, &s));
    s = s / ((PetscScalar)(-1.0 * N));
    PetscCall(VecShift(v, s));
    PetscFunctionReturn(0);
  }
  PetscCall(VecSetErrorIfLocked(v, 1));
  PetscCall(VecGKDevice_Private(v, GK_READWRITE, &d));
  PetscCall(PetscLogEventBegin(GK_VecReduce, v, 0, 0, 0));
  PetscCall(GKDev->removeconstant(v->map->n, N, d));
  VecGKCountPasses(v->map->n, 3);
  PetscCall(PetscLogFlops(2.0 * v->map->n));
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogEventEnd(GK_VecReduce, v, 0, 0, 0));
  PetscCall(PetscObjectStateIncrease((PetscObject)v));
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

/* The operations above, set on a new device vector by its creator (veccuda.c) */
PetscErrorCode VecGKSetOperations_Private(Vec v)
{
  PetscFunctionBegin;
  v->ops->set             = VecSet_GK;
  v->ops->scale           = VecScale_GK;
  v->ops->shift           = VecShift_GK;
  v->ops->copy            = VecCopy_GK;
  v->ops->swap            = VecSwap_GK;
  v->ops->axpy            = VecAXPY_GK;
  v->ops->aypx            = VecAYPX_GK;
  v->ops->axpby           = VecAXPBY_GK;
  v->ops->axpbypcz        = VecAXPBYPCZ_GK;
  v->ops->waxpy           = VecWAXPY_GK;
  v->ops->maxpy           = VecMAXPY_GK;
  v->ops->pointwisemult   = VecPointwiseMult_GK;
  v->ops->pointwisedivide = VecPointwiseDivide_GK;
  v->ops->reciprocal      = VecReciprocal_GK;
  v->ops->conjugate       = VecConjugate_GK;
  v->ops->abs             = VecAbs_GK;
  v->ops->dot             = VecDot_GK;
  v->ops->tdot            = VecTDot_GK;
  v->ops->mdot            = VecMDot_GK;
  v->ops->mtdot           = VecMTDot_GK;
  v->ops->dot_local       = VecDotLocal_GK;
  v->ops->tdot_local      = VecTDotLocal_GK;
  v->ops->mdot_local      = VecMDotLocal_GK;
  v->ops->mtdot_local     = VecMTDotLocal_GK;
  v->ops->norm            = VecNorm_GK;
  v->ops->norm_local      = VecNormLocal_GK;
  v->ops->dotnorm2        = VecDotNorm2_GK;
  v->ops->sum             = VecSum_GK;
  v->ops->max             = VecMax_GK;
  v->ops->min             = VecMin_GK;
  PetscFunctionReturn(0);
}

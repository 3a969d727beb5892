/*
   PCSSORGPU's Eisenstat operations (eisenstat.h; Eisenstat 1981), which cggpu calls: the
   transformation of the system at the start and of the solution at the end, the transformed
   system's preconditioner ((2 - w)/w) D, and the iterations' steps as sweeps over the PC's levels
   or colours (device.h, krylovssor). Multicolor runs the iterations in its colour-permuted copy,
   where every colour's rows are contiguous.
*/
#include "ssorgpu.h"
#include "eisenstat.h"
#include "vec/impls/cuda/gkvec.h"

/* v in place: (D/w + L)^-1 v (LOWER, forward), (D/w + U) v (UPPER_MULT, a product, through the
   work vector w[1]), (D/w + U)^-1 v (UPPER, backward); with blocks in the permuted numbering */
static PetscErrorCode PCSSORGPUEisenstatVec_Private(PC_SSORGPU *s, GKSsorStep step, Vec v)
{
  PetscScalar *a, *t;

  PetscFunctionBegin;
  PetscCall(VecGPUKitGetDeviceArray(v, &a));
  if (step == GK_SSOR_UPPER_MULT) {
    PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[1], &t));
    if (s->blk) PetscCall(PCSSORGPUBlockSweep_Private(s, &s->S, step, NULL, a, t));
    else PetscCall(GKDev->ssorrows(&s->S, step, 0, NULL, s->omega, NULL, a, t));
    PetscCall(GKMemcpyD2D(a, t, (size_t)s->m * sizeof(PetscScalar)));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[1], &t));
  } else if (s->blk) PetscCall(PCSSORGPUBlockSweep_Private(s, &s->S, step, a, a, a));
  else PetscCall(PCSSORGPUSweep_Private(s, &s->S, step, NULL, a));
  PetscCall(VecGPUKitRestoreDeviceArray(v, &a));
  PetscFunctionReturn(0);
}

/* v[k] = v[idx[k]] in place, through the work vector w[1]: idx = rows[0] (the forward list) into
   the permuted numbering, iperm back */
static PetscErrorCode PCSSORGPUPermute_Private(PC_SSORGPU *s, const PetscInt *idx, Vec v)
{
  PetscScalar *a, *t;

  PetscFunctionBegin;
  PetscCall(VecGPUKitGetDeviceArray(v, &a));
  PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[1], &t));
  PetscCall(GKDev->gather(s->m, idx, a, t));
  PetscCall(GKMemcpyD2D(a, t, (size_t)s->m * sizeof(PetscScalar)));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[1], &t));
  PetscCall(VecGPUKitRestoreDeviceArray(v, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCEisenstatFailure_SSORGPU(PC pc, char *msg, size_t len)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  if (s->badrow >= 0) PetscCall(PCSSORGPUFailure_Private(pc, msg, len));
  else if (len) msg[0] = 0;
  PetscFunctionReturn(0);
}

/* r^ = (D/w + L)^-1 r and x^ = (D/w + U) x; multicolor: then both into the permuted numbering,
   with blocks before (their sweeps run in it) */
static PetscErrorCode PCEisenstatBegin_SSORGPU(PC pc, Vec r, Vec x, PetscBool zeroguess)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  if (s->blk) {
    PetscCall(PCSSORGPUPermute_Private(s, s->rows[0], r));
    PetscCall(PCSSORGPUPermute_Private(s, s->rows[0], x));
  }
  PetscCall(PCSSORGPUEisenstatVec_Private(s, GK_SSOR_LOWER, r));
  if (!zeroguess) PetscCall(PCSSORGPUEisenstatVec_Private(s, GK_SSOR_UPPER_MULT, x));
  if (s->pcolors && !s->blk) {
    PetscCall(PCSSORGPUPermute_Private(s, s->rows[0], r));
    PetscCall(PCSSORGPUPermute_Private(s, s->rows[0], x));
  }
  PetscFunctionReturn(0);
}

/* x = (D/w + U)^-1 x^, back in the matrix's numbering */
static PetscErrorCode PCEisenstatEnd_SSORGPU(PC pc, Vec x)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  if (s->blk) {
    PetscCall(PCSSORGPUEisenstatVec_Private(s, GK_SSOR_UPPER, x));
    PetscCall(PCSSORGPUPermute_Private(s, s->iperm, x));
  } else {
    if (s->pcolors) PetscCall(PCSSORGPUPermute_Private(s, s->iperm, x));
    PetscCall(PCSSORGPUEisenstatVec_Private(s, GK_SSOR_UPPER, x));
  }
  PetscFunctionReturn(0);
}

/* z = ((2 - w)/w) D r: with blocks their product, else the scaling made for the update */
static PetscErrorCode PCEisenstatApply_SSORGPU(PC pc, Vec r, Vec z)
{
  PC_SSORGPU        *s = (PC_SSORGPU *)pc->data;
  const PetscScalar *ra;
  PetscScalar       *za;

  PetscFunctionBegin;
  PetscCall(VecGPUKitGetDeviceArrayRead(r, &ra));
  PetscCall(VecGPUKitGetDeviceArrayWrite(z, &za));
  if (s->blk) PetscCall(PCSSORGPUBlockSweep_Private(s, &s->S, GK_SSOR_BLOCK_Z, NULL, ra, za));
  else PetscCall(GKDev->pointwise(s->m, GK_POINTWISE_MULT, za, s->scale, ra));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(z, &za));
  PetscCall(VecGPUKitRestoreDeviceArrayRead(r, &ra));
  PetscFunctionReturn(0);
}

/* Step i as sweeps (device.h, krylovssor): the upper sweep's lists backward, then the lower
   one's forward, and the sum of dpi; the last step only moves x. Multicolor, permuted: each
   colour's rows contiguous, colour 0's lower rows done by its upper launch, and dpi summed by
   the colours computing w. */
static PetscErrorCode PCEisenstatStep_SSORGPU(PC pc, GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, const GKKrylovVecs *v)
{
  PC_SSORGPU *s  = (PC_SSORGPU *)pc->data;
  GKSsorSweep sw = {.S = &s->S, .omega = s->omega};

  PetscFunctionBegin;
  if (last) {
    sw.last = sw.first = sw.upper = PETSC_TRUE;
    PetscCall(GKDev->krylovssor(K, i, rho0, &sw, v));
    PetscFunctionReturn(0);
  }
  if (s->pcolors) {
    const PetscInt nc = s->ncolors, keep = nc > 1 ? GK_SSOR_KEEP : 0;

    sw.upper = PETSC_TRUE;
    for (PetscInt c = nc - 1; c >= 0; c--) {
      sw.first = c == nc - 1 ? PETSC_TRUE : PETSC_FALSE;
      sw.color = &s->pcolors[c];
      sw.flags = GK_SSOR_ZR | (c ? 0 : GK_SSOR_FUSE | keep | (nc == 1 ? GK_SSOR_DPI_FINISH : 0));
      PetscCall(GKDev->krylovssor(K, i, rho0, &sw, v));
    }
    sw.upper = sw.first = PETSC_FALSE;
    for (PetscInt c = 1; c < nc; c++) {
      sw.color = &s->pcolors[c];
      sw.flags = GK_SSOR_DPI_ADD | (c == nc - 1 ? GK_SSOR_DPI_FINISH : GK_SSOR_KEEP);
      PetscCall(GKDev->krylovssor(K, i, rho0, &sw, v));
    }
    PetscFunctionReturn(0);
  }
  for (int k = 1; k >= 0; k--) { /* the upper levels, then the lower ones */
    sw.upper = k ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt l = 0; l < s->nlev[k]; l++) {
      sw.first = k && !l ? PETSC_TRUE : PETSC_FALSE;
      sw.nrows = s->lev[k][l + 1] - s->lev[k][l];
      sw.rows  = s->rows[k] + s->lev[k][l];
      PetscCall(GKDev->krylovssor(K, i, rho0, &sw, v));
    }
  }
  PetscCall(GKDev->krylovdpi(K, v->p[i % 2], v->w));
  PetscFunctionReturn(0);
}

/* Update i: r -= a w, z = ((2 - w)/w) D r (with blocks not stored: the step computes it,
   GK_SSOR_ZR) */
static PetscErrorCode PCEisenstatUpdate_SSORGPU(PC pc, GKKrylov K, PetscInt i, const GKKrylovVecs *v)
{
  PC_SSORGPU  *s = (PC_SSORGPU *)pc->data;
  GKKrylovVecs u = *v;

  PetscFunctionBegin;
  if (s->blk) PetscCall(GKDev->krylovupdateblocks(K, i, &s->S, s->omega, v->w, v->r));
  else {
    u.d = s->scale;
    PetscCall(GKDev->krylovupdate(K, i, &u));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PCGKGetEisenstat_SSORGPU(PC pc, const GKEisenstat **E)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  *E = NULL;
  /* the step needs the exact sweeps, which the Neumann series is not */
  if (s->type == PC_SSORGPU_NEUMANN) PetscFunctionReturn(0);
  if (s->badrow < 0 && !s->blk) { /* the scaling, in the iterations' numbering */
    if (!s->scale) PetscCall(GKMalloc(s->m, &s->scale));
    PetscCall(GKMemcpyD2D(s->scale, s->pcolors ? s->S.pd : s->S.d, (size_t)s->m * sizeof(PetscScalar)));
    PetscCall(GKDev->axpbypczd(s->m, 0.0, NULL, 0.0, NULL, (2.0 - s->omega) / s->omega, 0.0, s->scale));
  }
  s->eis.permuted = s->pcolors ? PETSC_TRUE : PETSC_FALSE;
  s->eis.failure  = PCEisenstatFailure_SSORGPU;
  s->eis.begin    = PCEisenstatBegin_SSORGPU;
  s->eis.apply    = PCEisenstatApply_SSORGPU;
  s->eis.step     = PCEisenstatStep_SSORGPU;
  s->eis.update   = PCEisenstatUpdate_SSORGPU;
  s->eis.end      = PCEisenstatEnd_SSORGPU;
  *E              = &s->eis;
  PetscFunctionReturn(0);
}

/*
   CG's and COCG's fused kernels (device.h, fused.cuh): the step's kernel chosen for the format
   and its layout, and the update's; krylovstep and krylovupdate hand BiCG to bicg.cu.
*/
#include "fused.cuh"

/* The step kernel of METHOD (CG or COCG) for the operator's layout: DIA with its diagonals known
   at compile time where there are few; ELLPACK-R in the paper's layout with its longest row
   known where that is 5, 7 or 9 entries (the 2D and 3D stencils), else the general loop; the
   values in single precision with SINGLE (one process only: never with PEERS) */
template <GKKrylovMethod METHOD, bool PEERS, bool SINGLE>
static GKStepKernelPtr GKStepKernelFor(const GKOperator *A)
{
  static_assert(!(PEERS && SINGLE), "single-precision values on one process");
  GKStepKernelPtr kern = NULL;

  if (!A->ellr) {
#define GK_DIA_STEP(ND) kern = GKStepKernel<GKStepLayout<false, ND, false, false, SINGLE>, METHOD, PEERS>()
    GKDiaDispatch(A->dia->ndiag, GK_DIA_STEP);
#undef GK_DIA_STEP
    return kern;
  }
  const GKEllr &E     = *A->ellr;
  const bool    plain = E.h == E.m && !E.perm && !E.nwide;
  const bool    dcol  = E.dcol != NULL;

  if (!plain)
    return dcol ? GKStepKernel<GKStepLayout<true, 0, false, true, SINGLE>, METHOD, PEERS>()
                : GKStepKernel<GKStepLayout<true, 0, false, false, SINGLE>, METHOD, PEERS>();
#define GK_ELLR_STEP(NZ) \
  (dcol ? GKStepKernel<GKStepLayout<true, NZ, true, true, SINGLE>, METHOD, PEERS>() \
        : GKStepKernel<GKStepLayout<true, NZ, true, false, SINGLE>, METHOD, PEERS>())
  switch (E.nz) {
  case 5:
    return GK_ELLR_STEP(5);
  case 7:
    return GK_ELLR_STEP(7);
  case 9:
    return GK_ELLR_STEP(9);
  default:
    return GK_ELLR_STEP(0);
  }
#undef GK_ELLR_STEP
}

/* the step kernel of METHOD for A: the sums kept on the GPUs (peers), or the values read in
   single precision (A->single, with the format's copy there) */
template <GKKrylovMethod METHOD>
static GKStepKernelPtr GKStepKernelChoose(const GKOperator *A, bool peers)
{
  const bool single = GKOperatorSingle(A, PETSC_FALSE);

  if (peers) return GKStepKernelFor<METHOD, true, false>(A);
  return single ? GKStepKernelFor<METHOD, false, true>(A) : GKStepKernelFor<METHOD, false, false>(A);
}

PetscErrorCode GKCUDAKrylovStep(GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *A, const GKKrylovVecs *v)
{
  GKKrylovCUDA   *k     = (GKKrylovCUDA *)K;
  const bool      peers = k->g.np > 0; /* the sums kept on the GPUs: the kernels that wait and push */
  GKStepKernelPtr kern;

  PetscFunctionBegin;
  if (k->method == GK_KRYLOV_BICG) {
    PetscCall(GKCUDAKrylovStepBiCG_Private(k, i, rho0, last, A, v));
    PetscFunctionReturn(0);
  }
  kern = k->method == GK_KRYLOV_CG ? GKStepKernelChoose<GK_KRYLOV_CG>(A, peers) : GKStepKernelChoose<GK_KRYLOV_COCG>(A, peers);
  PetscCall(GKStepLaunch(k, kern, i, rho0, last, A, v));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovUpdate(GKKrylov K, PetscInt i, const GKKrylovVecs *v)
{
  GKKrylovCUDA     *k = (GKKrylovCUDA *)K;
  GKUpdateKernelPtr kern;

  PetscFunctionBegin;
  if (k->method == GK_KRYLOV_BICG) {
    PetscCall(GKCUDAKrylovUpdateBiCG_Private(k, i, v));
    PetscFunctionReturn(0);
  }
  if (k->nullconst) { /* the update with the sum of z, then z -= mean(z) and the norm's and rho's sums */
    const bool cg          = k->method == GK_KRYLOV_CG;
    void (*nk)(PetscInt, GKKrylovNorm, double *, GKKrylovDevState *, GKKrylovDevState *, const GKScalar *,
               GKScalar *) = cg ? GKKrylovNullConstKernel<GK_KRYLOV_CG> : GKKrylovNullConstKernel<GK_KRYLOV_COCG>;

    kern = cg ? GKUpdateKernelFor<GK_KRYLOV_CG, false, true>(v) : GKUpdateKernelFor<GK_KRYLOV_COCG, false, true>(v);
    PetscCall(GKUpdateLaunch(k, kern, i, v));
    GKCallCUDA(GKLaunchOverlapped(nk, GKWaveBlocks((const void *)nk, k->n), k->n, k->norm, k->partial, k->state, k->pub, (const GKScalar *)v->r,
                                  (GKScalar *)v->z));
    GKCheckLaunch();
    PetscFunctionReturn(0);
  }
  /* the sums kept on the GPUs: the kernels that wait and push */
  if (k->method == GK_KRYLOV_CG) kern = k->g.np ? GKUpdateKernelFor<GK_KRYLOV_CG, true>(v) : GKUpdateKernelFor<GK_KRYLOV_CG, false>(v);
  else kern = k->g.np ? GKUpdateKernelFor<GK_KRYLOV_COCG, true>(v) : GKUpdateKernelFor<GK_KRYLOV_COCG, false>(v);
  PetscCall(GKUpdateLaunch(k, kern, i, v));
  PetscFunctionReturn(0);
}

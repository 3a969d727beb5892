/*
   BiCG's fused kernels (device.h, fused.cuh; Jost et al., 3.1, with A^H for complex scalars as De
   Donno et al. do): the step computes w = A p and w~ = A^H p~ in one launch, rows n..2n-1 being
   the shadow system's. Its sums always go through the host between processes.
*/
#include "fused.cuh"

/* the general layout's kernel for ELLPACK-R, as for the paper's; DIA with its diagonals known
   where there are few; the values of A and A^T read in single precision with SINGLE */
template <bool SINGLE>
static GKStepKernelPtr GKBiCGStepKernelFor(const GKOperator *A)
{
  GKStepKernelPtr kern = NULL;

  if (A->ellr)
    return A->ellr->dcol ? GKStepKernel<GKStepLayout<true, 0, false, true, SINGLE>, GK_KRYLOV_BICG, false>()
                         : GKStepKernel<GKStepLayout<true, 0, false, false, SINGLE>, GK_KRYLOV_BICG, false>();
#define GK_DIA_STEP(ND) kern = GKStepKernel<GKStepLayout<false, ND, false, false, SINGLE>, GK_KRYLOV_BICG, false>()
  GKDiaDispatch(A->dia->ndiag, GK_DIA_STEP);
#undef GK_DIA_STEP
  return kern;
}

PetscErrorCode GKCUDAKrylovStepBiCG_Private(GKKrylovCUDA *k, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *A, const GKKrylovVecs *v)
{
  GKStepKernelPtr kern = GKOperatorSingle(A, PETSC_TRUE) ? GKBiCGStepKernelFor<true>(A) : GKBiCGStepKernelFor<false>(A);

  PetscFunctionBegin;
  PetscCall(GKStepLaunch(k, kern, i, rho0, last, A, v));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovUpdateBiCG_Private(GKKrylovCUDA *k, PetscInt i, const GKKrylovVecs *v)
{
  PetscFunctionBegin;
  PetscCall(GKUpdateLaunch(k, GKUpdateKernelFor<GK_KRYLOV_BICG, false>(v), i, v));
  PetscFunctionReturn(0);
}

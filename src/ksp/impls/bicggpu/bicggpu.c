/*
   KSPBICGGPU: the BiCG of Jost et al. (3.1) on the device, with A^T products (A^H for complex
   scalars, as De Donno et al.) from ELLPACK-R's transposed copy or DIA's own arrays, and COCG
   for complex symmetric matrices. The solver is shared with KSPCGGPU (../gk/gkksp.c).
*/
#include "ksp/impls/gk/gkksp.h"

/*MC
   KSPBICGGPU - "bicggpu" - BiCG on the GPU, fused; COCG for complex symmetric matrices

   The iterates are PETSc's `KSPBICG`'s (to rounding), with rho = 0 at the start reported as
   `KSP_DIVERGED_BREAKDOWN_BICG`, as `KSPBICG` does, and rho = 0 later or p~^H A p = 0 as
   `KSP_DIVERGED_BREAKDOWN` (where `KSPBICG` divides by zero and ends in a NaN). Each iteration is two kernels: the new directions with w = A p and
   w~ = A^H p~ (one launch) and p~^H w, x moved by the last iteration's alpha p; the updates of
   r, r~, z and z~ with the sums of r~^H z and the norm. With -ksp_bicggpu_cocg the shadow system is dropped: for A = A^T
   (complex symmetric, as De Donno et al.'s electromagnetics matrices) r~ = conj(r), and the
   iteration is CG with unconjugated products, one matrix product an iteration.

   Options Database Keys:
+  -ksp_bicggpu_cocg - COCG instead of BiCG (complex symmetric matrices)
.  -ksp_bicggpu_check_every <k> - test convergence every k iterations only
.  -pc_type <jacobi,none,...> - jacobi (the default) and none are fused into the kernels; any other
                                PC is applied by PETSc's `KSPBICG` iterating on the device matrix and
                                vectors (the general path; the PC must apply its transpose)
-  -ksp_norm_type <preconditioned,unpreconditioned,none> - as `KSPBICG`

   Level: beginner

   Note:
   Runs on any number of MPI processes, each with its GPU (`MATMPIELLRCUDA`, `MATMPIDIACUDA`).

.seealso: `KSPBICG`, `KSPCGGPU`, `MATELLRCUDA`, `VECCUDA`
M*/
PetscErrorCode KSPCreate_BiCGGPU(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPCreate_GK_Private(ksp, KSPBICGGPU));
  PetscFunctionReturn(0);
}

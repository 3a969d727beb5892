/*
   KSPCGGPU: the CG and preconditioned CG of Michels (Algorithms 2 and 5) on the device, each
   iteration two fused kernels (the step: p = z + beta p, w = A p with p^H w, and the last
   iteration's move of x; the update: r, z = D^-1 r with the next r^H z and the norm) and one
   wait for the device, for the convergence test. The solver is shared
   with KSPBICGGPU (../gk/gkksp.c).
*/
#include "ksp/impls/gk/gkksp.h"

/*MC
   KSPCGGPU - "cggpu" - CG and preconditioned CG on the GPU, fused

   The iterates are PETSc's `KSPCG`'s (to rounding): the same norms, monitors, convergence tests
   and reasons, with p^H A p = 0 or changing sign (KSPCG's test: a negative definite A is
   solved) reported as `KSP_DIVERGED_INDEFINITE_MAT`, and r^H z = 0 as `KSP_CONVERGED_ATOL` in the
   iteration after, as `KSPCG`'s "converged due to beta = 0".
   Each iteration is two kernels: p = z + beta p and w = A p with p^H w, x moved by the last
   iteration's alpha p in the same pass; the updates of r and z = D^-1 r with the sums of r^H z
   and the norm. The host waits for the device once per convergence test,
   with the next kernel already queued.

   The operator may be any assembled matrix: `MATSEQELLRCUDA` and `MATSEQDIACUDA` are used as
   they are, others converted once to `MATSEQELLRCUDA` (again when they change). b and x may be
   of any vector type (copied in and out once per solve unless they are `VECCUDA`).

   Options Database Keys:
+  -ksp_cggpu_check_every <k> - test convergence every k iterations only: fewer waits, up to
                                k-1 extra iterations
.  -pc_type <jacobi,none,ssorgpu,...> - jacobi (the default) and none are fused into the kernels,
                                         ssorgpu on one process by Eisenstat's trick; any other PC
                                         is applied by PETSc's `KSPCG` iterating on the device
                                         matrix and vectors (the general path, `-ksp_view` says so)
-  -ksp_norm_type <preconditioned,unpreconditioned,natural,none> - as `KSPCG`

   Level: beginner

   Note:
   Runs on any number of MPI processes, each with its GPU (`MATMPIELLRCUDA`, `MATMPIDIACUDA`).

.seealso: `KSPCG`, `KSPBICGGPU`, `MATELLRCUDA`, `VECCUDA`
M*/
PetscErrorCode KSPCreate_CGGPU(KSP ksp)
{
  PetscFunctionBegin;
  PetscCall(KSPCreate_GK_Private(ksp, KSPCGGPU));
  PetscFunctionReturn(0);
}

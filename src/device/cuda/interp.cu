/*
   DMDA's Q1 interpolation on one process on the device (device.h, q1interp; host twin:
   host/interp.c): a thread a fine point writes its row where GKQ1RowStart() places it (no count
   and no scan: the rows' lengths follow from the grids), then a thread a coarse point sums its
   column over the fine rows in ascending order for the scale. The values are PETSc's, operation
   for operation, without fused multiply-adds (device.h), so that the matrix and its scale equal
   PETSc's bit for bit.
*/
#include "cudaimpl.h"

__global__ static void GKQ1RowsKernel(GKQ1Grid g, PetscInt m, PetscInt *__restrict__ pi, PetscInt *__restrict__ pj, GKScalar *__restrict__ pa)
{
  for (PetscInt r = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; r < m; r += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt i = r % g.M[0], j = (r / g.M[0]) % g.M[1], l = r / ((PetscInt64)g.M[0] * g.M[1]);
    const PetscInt start = (PetscInt)GKQ1RowStart(&g, i, j, l);
    PetscInt       cols[8], n;
    PetscReal      v[8];

    n     = GKQ1Entries(&g, i, j, l, cols, v);
    pi[r] = start;
    for (PetscInt k = 0; k < n; k++) {
      pj[start + k] = cols[k];
      pa[start + k] = v[k];
    }
    if (r == m - 1) pi[m] = start + n; /* the count of entries */
  }
}

__global__ static void GKQ1ScaleKernel(GKQ1Grid g, PetscInt n, GKScalar *__restrict__ s)
{
  for (PetscInt c = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; c < n; c += (PetscInt)gridDim.x * blockDim.x) s[c] = GKQ1Scale(&g, c);
}

PetscErrorCode GKCUDAQ1Interp(const GKQ1Grid *g, GKCsr *P, PetscScalar *scale)
{
  PetscFunctionBegin;
  GKQ1RowsKernel<<<GKBlocks(P->m), GK_BLOCK, 0, GKCUDAStream>>>(*g, P->m, P->i, P->j, (GKScalar *)P->a);
  GKCheckLaunch();
  if (scale) {
    GKQ1ScaleKernel<<<GKBlocks(P->n), GK_BLOCK, 0, GKCUDAStream>>>(*g, P->n, (GKScalar *)scale);
    GKCheckLaunch();
  }
  PetscFunctionReturn(0);
}

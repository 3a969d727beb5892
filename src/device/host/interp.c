/*
   The host twin of DMDA's Q1 interpolation on one process (device.h, q1interp; kernels:
   cuda/interp.cu): each fine point's row written where GKQ1RowStart() places it, then each
   coarse point's scale summed over its column's rows in ascending order.
*/
#include "hostimpl.h"

PetscErrorCode GKHostQ1Interp(const GKQ1Grid *g, GKCsr *P, PetscScalar *scale)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < P->m; r++) {
    const PetscInt i = r % g->M[0], j = (r / g->M[0]) % g->M[1], l = r / (g->M[0] * g->M[1]);
    const PetscInt start = (PetscInt)GKQ1RowStart(g, i, j, l);
    PetscInt       cols[8], n;
    PetscReal      v[8];

    n       = GKQ1Entries(g, i, j, l, cols, v);
    P->i[r] = start;
    for (PetscInt k = 0; k < n; k++) {
      P->j[start + k] = cols[k];
      P->a[start + k] = v[k];
    }
  }
  P->i[P->m] = P->nnz;
  GKCounts.launches += 1;
  if (scale) {
    for (PetscInt c = 0; c < P->n; c++) scale[c] = GKQ1Scale(g, c);
    GKCounts.launches += 1;
  }
  PetscFunctionReturn(0);
}

/*
   The host backend: CSR's products and diagonal (cuda/csr.cu's twins)
*/
#include "hostimpl.h"

PetscErrorCode GKHostCsrMult(const GKCsr *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < A->m; i++) {
    PetscScalar s = 0;

    for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++) s += A->a[k] * x[A->j[k]];
    y[i] = GKHostOut(w, neg, i, s);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostCsrGetDiagonal(const GKCsr *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < A->m; i++) {
    PetscScalar s = 0;

    for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++)
      if (A->j[k] == i) s = A->a[k];
    diag[i] = s;
  }
  PetscFunctionReturn(0);
}

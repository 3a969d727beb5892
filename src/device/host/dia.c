/*
   The host backend: DIA's products, its transpose's, and its diagonal (cuda/dia.cu's twins)
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

/* y = A x (w +- A x): y[i] += val[d*m+i] * x[i+off[d]] for the columns inside the matrix */
PetscErrorCode GKHostDiaLoop(const GKDia *A, PetscBool single, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  const PetscInt m = A->m, n = A->n;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < m; i++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++) {
      const PetscInt j = i + A->off[d];

      if (j >= 0 && j < n) s += GKHostValue(A->val, A->sval, single, (size_t)d * m + i) * x[j];
    }
    y[i] = GKHostOut(w, neg, i, s);
  }
  PetscFunctionReturn(0);
}

/* y = A^T x (w +- A^T x): entry (i, j) of diagonal off[d] sits at val[d*m + i] with i = j - off[d] */
PetscErrorCode GKHostDiaTLoop(const GKDia *A, PetscBool conjugate, PetscBool single, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                              PetscScalar *y)
{
  const PetscInt m = A->m, n = A->n;

  PetscFunctionBegin;
  for (PetscInt j = 0; j < n; j++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++) {
      const PetscInt i = j - A->off[d];

      if (i >= 0 && i < m) {
        const PetscScalar a = GKHostValue(A->val, A->sval, single, (size_t)d * m + i);

        s += (conjugate ? PetscConj(a) : a) * x[i];
      }
    }
    y[j] = GKHostOut(w, neg, j, s);
  }
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): row i of the offset-0 diagonal, if stored */
PetscErrorCode GKHostDiaGetDiagonal(const GKDia *A, PetscScalar *diag)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < m; i++) {
    PetscScalar s = 0.0;

    for (PetscInt d = 0; d < A->ndiag; d++)
      if (A->off[d] == 0 && i < A->n) s = A->val[(size_t)d * m + i];
    diag[i] = s;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostDiaMult(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  PetscCall(GKHostDiaLoop(A, A->sval ? PETSC_TRUE : PETSC_FALSE, x, w, neg, y));
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostDiaMultTranspose(const GKDia *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->n) GKCounts.launches += 1;
  PetscCall(GKHostDiaTLoop(A, conjugate, A->sval ? PETSC_TRUE : PETSC_FALSE, x, w, neg, y));
  PetscFunctionReturn(0);
}

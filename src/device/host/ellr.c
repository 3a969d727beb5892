/*
   The host backend: ELLPACK-R's products and diagonal (the kernels' twins of cuda/ellr.cu)
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

/* where slot t's entries start and their stride: column-major slices, or row by row in wide
   ones (device.h) */
PetscScalar GKHostEllrRow(const GKEllr *A, PetscInt t, PetscBool conjugate, PetscBool single, const PetscScalar *x)
{
  PetscScalar s = 0.0;
  size_t      base;
  PetscInt    st;

  GKHostEllrSlot(A, t, &base, &st);
  for (PetscInt k = 0; k < A->rl[t]; k++) {
    const PetscScalar a = GKHostValue(A->val, A->sval, single, base + (size_t)k * st);

    s += (conjugate ? PetscConj(a) : a) * x[GKHostEllrCol(A, t, base + (size_t)k * st)];
  }
  return s;
}

void GKHostEllrSlot(const GKEllr *A, PetscInt t, size_t *base, PetscInt *stride)
{
  const PetscInt s = t / A->h, g = A->wfirst[s];

  *base   = g >= 0 ? (size_t)A->wptr[g + t % A->h] : (size_t)A->sliceptr[s] + (size_t)(t % A->h);
  *stride = g >= 0 ? 1 : A->h;
}

/* y = A x (w +- A x: GKHostOut): row i sums its rl[i] entries, stored h apart from its slice's start plus
   i % h (Michels, Algorithm 4: h = m, entries at i, i+m, i+2m, ...) */
PetscErrorCode GKHostEllrLoop(const GKEllr *A, PetscBool conjugate, PetscBool single, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                              PetscScalar *y)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  for (PetscInt t = 0; t < m; t++) { /* slot t holds row i */
    const PetscInt    i = A->perm ? A->perm[t] : t;
    const PetscScalar s = GKHostEllrRow(A, t, conjugate, single, x);

    y[i] = GKHostOut(w, neg, i, s);
  }
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): the entry of row i whose column is i, if stored */
PetscErrorCode GKHostEllrGetDiagonal(const GKEllr *A, PetscScalar *diag)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  for (PetscInt t = 0; t < m; t++) { /* slot t holds row i */
    const PetscInt i = A->perm ? A->perm[t] : t;
    PetscScalar    s = 0.0;
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(A, t, &base, &st);
    for (PetscInt k = 0; k < A->rl[t]; k++)
      if (GKHostEllrCol(A, t, base + (size_t)k * st) == i) s += A->val[base + (size_t)k * st];
    diag[i] = s;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostEllrMult(const GKEllr *A, PetscBool conjugate, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->m) GKCounts.launches += 1;
  PetscCall(GKHostEllrLoop(A, conjugate, A->sval ? PETSC_TRUE : PETSC_FALSE, x, w, neg, y));
  PetscFunctionReturn(0);
}

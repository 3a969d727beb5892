/*
   The host backend: the formats filled from CSR arrays, the column and row-order checks, COO assembly's sums (cuda/fill.cu's twins)
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

PetscErrorCode GKHostEllrShortFits(const GKEllr *E, const PetscInt *ai, const PetscInt *aj, PetscBool *fits)
{
  PetscFunctionBegin;
  *fits = PETSC_TRUE;
  if (!E->m) PetscFunctionReturn(0);
  GKCounts.launches += 2; /* the CUDA backend's: the flag set, the test; then it waits for the flag */
  GKCounts.syncs += 1;
  for (PetscInt t = 0; t < E->m; t++) {
    const PetscInt i = E->perm ? E->perm[t] : t;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] - t < SHRT_MIN || aj[k] - t > SHRT_MAX) *fits = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostCheckCols(PetscInt nnz, PetscInt n, const PetscInt *aj, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (!nnz) PetscFunctionReturn(0);
  GKCounts.launches += 2; /* the CUDA backend's: the flag set, the test; then it waits for the flag */
  GKCounts.syncs += 1;
  for (PetscInt k = 0; k < nnz; k++)
    if (aj[k] < 0 || aj[k] >= n) *ok = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostCsrSorted(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscBool *sorted)
{
  PetscFunctionBegin;
  *sorted = PETSC_TRUE;
  if (!m) PetscFunctionReturn(0);
  GKCounts.launches += 2; /* the CUDA backend's: the flag set, the test; then it waits for the flag */
  GKCounts.syncs += 1;
  for (PetscInt i = 0; i < m && *sorted; i++)
    for (PetscInt k = ai[i] + 1; k < ai[i + 1]; k++)
      if (aj[k - 1] > aj[k]) {
        *sorted = PETSC_FALSE;
        break;
      }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostEllrFill(GKEllr *E, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool valuesonly)
{
  PetscFunctionBegin;
  if (E->m) GKCounts.launches += 1;
  for (PetscInt t = 0; t < E->m; t++) { /* slot t holds row i */
    const PetscInt i = E->perm ? E->perm[t] : t, len = ai[i + 1] - ai[i];
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(E, t, &base, &st);
    if (!valuesonly) E->rl[t] = len;
    for (PetscInt k = 0; k < len; k++) {
      const size_t e = base + (size_t)k * st;

      E->val[e] = aa[ai[i] + k];
      if (valuesonly) continue;
      if (E->dcol) E->dcol[e] = (short)(aj[ai[i] + k] - t);
      else E->col[e] = aj[ai[i] + k];
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostDiaOffsets(PetscInt m, const PetscInt *ai, const PetscInt *aj, char *flag)
{
  PetscFunctionBegin;
  if (m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) flag[aj[k] - i + m - 1] = 1;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostDiaFill(GKDia *D, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  PetscFunctionBegin;
  if (D->m) GKCounts.launches += 1;
  for (PetscInt i = 0; i < D->m; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt lo = 0, hi = D->ndiag - 1; /* the diagonal of offset aj[k] - i, by bisection */

      while (lo < hi) {
        const PetscInt mid = (lo + hi) / 2;

        if (D->off[mid] < aj[k] - i) lo = mid + 1;
        else hi = mid;
      }
      D->val[(size_t)lo * D->m + i] = aa[k];
    }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostCooScatter(PetscInt nnz, const PetscCount *jmap, const PetscCount *perm, const PetscScalar *v, PetscBool add, PetscScalar *a)
{
  PetscFunctionBegin;
  if (nnz) GKCounts.launches += 1;
  for (PetscInt p = 0; p < nnz; p++) {
    PetscScalar sum = 0.0;

    for (PetscCount q = jmap[p]; q < jmap[p + 1]; q++) sum += v[perm[q]];
    a[p] = (add ? a[p] : 0.0) + sum;
  }
  PetscFunctionReturn(0);
}

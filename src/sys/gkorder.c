/*
   Orders of a sparse matrix's rows for the triangular sweeps of SSOR and SOR on the device
   (ssorgpu's setup, the device matrices' MatSOR): greedy colourings, the levels of a triangular
   solve, and the rows grouped by either. Host work on the CSR pattern, done once per pattern.
*/
#include "include/gpukitimpl.h"

PetscErrorCode GKGraphTranspose_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, PetscInt **tptr, PetscInt **tcol)
{
  PetscInt *fill;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(m + 1, tptr));
  PetscCall(PetscCalloc1(m, &fill));
  for (PetscInt e = 0; e < ia[m]; e++) (*tptr)[ja[e] + 1]++;
  for (PetscInt i = 0; i < m; i++) (*tptr)[i + 1] += (*tptr)[i];
  PetscCall(PetscMalloc1((*tptr)[m], tcol));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) (*tcol)[(*tptr)[ja[e]] + fill[ja[e]]++] = i;
  PetscCall(PetscFree(fill));
  PetscFunctionReturn(0);
}

/* Whether every entry (i, j) has its mirror (j, i), found by bisection in row j (AIJ's columns are
   sorted; where a row's are not, a mirror may be missed and the answer is no, never a wrong yes) */
static PetscBool GKGraphSymmetric_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja)
{
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
      const PetscInt j = ja[e];
      PetscInt       lo, hi;

      if (j == i) continue;
      if (j < 0 || j >= m) return PETSC_FALSE;
      lo = ia[j];
      hi = ia[j + 1];
      while (lo < hi) {
        const PetscInt mid = lo + (hi - lo) / 2;

        if (ja[mid] < i) lo = mid + 1;
        else hi = mid;
      }
      if (lo == ia[j + 1] || ja[lo] != i) return PETSC_FALSE;
    }
  return PETSC_TRUE;
}

PetscErrorCode GKGraphColor_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, PetscInt *color, PetscInt *ncolors)
{
  PetscInt *tptr = NULL, *tcol = NULL, *mark;

  PetscFunctionBegin;
  /* the neighbours of the symmetrised pattern: a row's own where the pattern is symmetric (DMDA's
     stencils), else its row's and its column's (the transpose) */
  if (!GKGraphSymmetric_Private(m, ia, ja)) PetscCall(GKGraphTranspose_Private(m, ia, ja, &tptr, &tcol));
  PetscCall(PetscMalloc1(m + 1, &mark));
  for (PetscInt c = 0; c <= m; c++) mark[c] = -1;
  *ncolors = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt c = 0;

    for (PetscInt e = ia[i]; e < ia[i + 1]; e++)
      if (ja[e] < i) mark[color[ja[e]]] = i;
    if (tptr)
      for (PetscInt e = tptr[i]; e < tptr[i + 1]; e++)
        if (tcol[e] < i) mark[color[tcol[e]]] = i;
    while (mark[c] == i) c++;
    color[i] = c;
    *ncolors = PetscMax(*ncolors, c + 1);
  }
  PetscCall(PetscFree(tptr));
  PetscCall(PetscFree(tcol));
  PetscCall(PetscFree(mark));
  PetscFunctionReturn(0);
}

PetscErrorCode GKGraphLevels_Private(PetscInt m, const PetscInt *ptr, const PetscInt *col, PetscBool backward, PetscInt *key, PetscInt *nkeys)
{
  PetscFunctionBegin;
  *nkeys = 0;
  for (PetscInt k = 0; k < m; k++) {
    const PetscInt i = backward ? m - 1 - k : k;

    key[i] = 0;
    for (PetscInt e = ptr[i]; e < ptr[i + 1]; e++)
      if (backward ? col[e] > i : col[e] < i) key[i] = PetscMax(key[i], key[col[e]] + 1);
    *nkeys = PetscMax(*nkeys, key[i] + 1);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKGroupRows_Private(PetscInt m, const PetscInt *key, PetscInt nkeys, PetscBool descending, PetscInt **lev, PetscInt *rows)
{
  PetscInt *cnt;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nkeys + 1, lev));
  PetscCall(PetscCalloc1(nkeys, &cnt));
  for (PetscInt i = 0; i < m; i++) (*lev)[(descending ? nkeys - 1 - key[i] : key[i]) + 1]++;
  for (PetscInt l = 0; l < nkeys; l++) (*lev)[l + 1] += (*lev)[l];
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt l = descending ? nkeys - 1 - key[i] : key[i];

    rows[(*lev)[l] + cnt[l]++] = i;
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

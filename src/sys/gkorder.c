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

/* Whether every entry (i, j) has its mirror (j, i), in one pass over the rows in order: the
   mirrors of row i's entries left of the diagonal, (j, i) with j < i, are the entries right of row
   j's diagonal, met in the order of i, so each row keeps where its next one is (next[j]); the
   pattern is symmetric where each was found there and every row's were used up. Where a row's
   columns are not sorted, a mirror may be missed and the answer is no, never a wrong yes. With
   mirror (ia[m] entries), each entry's mirror's position too (the diagonal's own), valid where
   the answer is yes. */
PetscErrorCode GKGraphSymmetric_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, PetscInt *mirror, PetscBool *sym)
{
  PetscInt *next;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m, &next));
  *sym = PETSC_TRUE;
  for (PetscInt i = 0; i < m && *sym; i++) {
    PetscInt k = ia[i];

    for (; k < ia[i + 1] && ja[k] < i; k++) {
      const PetscInt j = ja[k], q = next[j];

      if (j < 0 || q == ia[j + 1] || ja[q] != i) {
        *sym = PETSC_FALSE;
        break;
      }
      if (mirror) {
        mirror[k] = q;
        mirror[q] = k;
      }
      next[j] = q + 1;
    }
    if (k < ia[i + 1] && ja[k] == i) {
      if (mirror) mirror[k] = k;
      k++;
    }
    next[i] = k; /* row i's first entry right of the diagonal */
  }
  for (PetscInt j = 0; j < m && *sym; j++)
    if (next[j] != ia[j + 1]) *sym = PETSC_FALSE; /* an entry right of the diagonal without its mirror */
  PetscCall(PetscFree(next));
  PetscFunctionReturn(0);
}

PetscErrorCode GKGraphColor_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, PetscInt *color, PetscInt *ncolors)
{
  PetscInt *tptr, *tcol, *mark, maxn = 0;
  PetscBool sym = PETSC_FALSE;

  PetscFunctionBegin;
  /* the neighbours of the symmetrised pattern: a row's own where the pattern is symmetric (DMDA's
     stencils), else its row's and its column's (the transpose) */
  PetscCall(GKGraphSymmetric_Private(m, ia, ja, NULL, &sym));
  *ncolors = 0;
  if (sym) { /* each row's colour by the rule both backends' greedycolor follow (device.h) */
    *ncolors = GKGreedyColorRows(m, ia, ja, color);
    PetscFunctionReturn(0);
  }
  PetscCall(GKGraphTranspose_Private(m, ia, ja, &tptr, &tcol));
  /* a row's colour is at most its number of neighbours: the marks of so many colours and one */
  for (PetscInt i = 0; i < m; i++) maxn = PetscMax(maxn, ia[i + 1] - ia[i] + tptr[i + 1] - tptr[i]);
  PetscCall(PetscMalloc1(maxn + 1, &mark));
  for (PetscInt c = 0; c <= maxn; c++) mark[c] = -1;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt c = 0;

    for (PetscInt e = ia[i]; e < ia[i + 1]; e++)
      if (ja[e] < i) mark[color[ja[e]]] = i;
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
  PetscCall(PetscMalloc1(nkeys + 1, lev));
  PetscCall(PetscCalloc1(nkeys + 1, &cnt));
  GKGroupRowsCount(m, key, nkeys, descending, *lev, cnt, rows);
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

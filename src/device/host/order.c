/*
   The host twin of MatSOR's order (device.h: greedycolor, grouprows; kernels: cuda/order.cu):
   the pattern's symmetry checked entry by entry, the greedy colouring row after row in
   ascending order, the rows grouped by a counting sort.
*/
#include "hostimpl.h"

PetscErrorCode GKHostGreedyColor(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt *color, PetscInt *ncolors, PetscBool *sym)
{
  PetscFunctionBegin;
  *ncolors = 0;
  *sym     = PETSC_TRUE;
  for (PetscInt i = 0; i < m && *sym; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] != i && GKFind(ai, aj, aj[k], i) < 0) {
        *sym = PETSC_FALSE;
        break;
      }
  if (!*sym) PetscFunctionReturn(0);
  GKCounts.launches += m ? 2 : 0;
  *ncolors = GKGreedyColorRows(m, ai, aj, color);
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostGroupRows(PetscInt m, const PetscInt *key, PetscInt nkeys, PetscBool descending, PetscInt *lev, PetscInt *rows)
{
  PetscInt *cnt;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nkeys + 1, &cnt));
  GKGroupRowsCount(m, key, nkeys, descending, lev, cnt, rows);
  GKCounts.launches += m && nkeys ? 3 : 0;
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

/*
   The host backend: SSOR's steps (rows in levels or colours, multicolor's blocks) and MatSOR's step on each format (cuda/sor.cu's twins)
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

/* SSOR's step (device.h), row by row in the list's order */
PetscErrorCode GKHostSsorRows(const GKSsor *S, GKSsorStep step, PetscInt nrows, const PetscInt *rows, PetscReal omega, const PetscScalar *b,
                              const PetscScalar *xin, PetscScalar *xout)
{
  const PetscBool    upper = step != GK_SSOR_LOWER ? PETSC_TRUE : PETSC_FALSE;
  const PetscInt    *ptr = upper ? S->uptr : S->lptr, *col = upper ? S->ucol : S->lcol;
  const PetscScalar *val  = upper ? S->uval : S->lval;
  const void        *sval = upper ? S->suval : S->slval; /* the single values where set, as the CUDA kernel reads them */
  const PetscInt     n    = rows ? nrows : S->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = rows ? rows[k] : k;
    PetscScalar    s = 0.0;

    for (PetscInt e = ptr[i]; e < ptr[i + 1]; e++) s += GKHostValue(val, sval, sval ? PETSC_TRUE : PETSC_FALSE, (size_t)e) * xin[col[e]];
    switch (step) {
    case GK_SSOR_UPPER_SSOR:
      xout[i] = (2.0 - omega) * b[i] - omega * s / S->d[i];
      break;
    case GK_SSOR_UPPER_MULT:
      xout[i] = S->d[i] / omega * xin[i] + s;
      break;
    default: /* the solves */
      xout[i] = omega * (b[i] - s) / S->d[i];
    }
  }
  PetscFunctionReturn(0);
}

/* MatSOR's step, or SOR_APPLY_UPPER's product, on ELLPACK-R and DIA (device.h), row after row of
   the list: which entries a row sums, and what it stores */
static inline PetscBool GKHostSorTakes(PetscBool upper, PetscInt i, PetscInt j, const PetscInt *key)
{
  if (upper) return (PetscBool)(key ? key[j] > key[i] : j > i);
  return (PetscBool)(j != i);
}

static inline void GKHostSorStore(PetscBool upper, PetscInt i, PetscScalar s, const PetscScalar *d, PetscReal omega, const PetscScalar *b,
                                  const PetscScalar *x, PetscScalar *y)
{
  if (upper) y[i] = d[i] / omega * x[i] + s;
  else y[i] = (1.0 - omega) * x[i] + omega * (b[i] - s) / d[i];
}

PetscErrorCode GKHostEllrSor(const GKEllr *A, PetscInt nrows, const PetscInt *slots, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                             PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = slots ? nrows : A->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt t = slots ? slots[k] : k, i = A->perm ? A->perm[t] : t;
    PetscScalar    s = 0.0;
    size_t         base;
    PetscInt       st;

    GKHostEllrSlot(A, t, &base, &st);
    for (PetscInt e = 0; e < A->rl[t]; e++) {
      const PetscInt j = GKHostEllrCol(A, t, base + (size_t)e * st);

      if (GKHostSorTakes(upper, i, j, key)) s += A->val[base + (size_t)e * st] * x[j];
    }
    GKHostSorStore(upper, i, s, d, omega, b, x, y);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostDiaSor(const GKDia *A, PetscInt nrows, const PetscInt *rows, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                            PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = rows ? nrows : A->m;

  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt i = rows ? rows[k] : k;
    PetscScalar    s = 0.0;

    for (PetscInt q = 0; q < A->ndiag; q++) {
      const PetscInt j = i + A->off[q];

      if (j >= 0 && j < A->n && GKHostSorTakes(upper, i, j, key)) s += A->val[(size_t)q * A->m + i] * x[j];
    }
    GKHostSorStore(upper, i, s, d, omega, b, x, y);
  }
  PetscFunctionReturn(0);
}

void GKHostSsorBlock(const GKSsor *S, PetscInt J, PetscInt n, PetscBool inv, PetscScalar *v)
{
  const PetscInt     nb   = S->nblk;
  const PetscScalar *dinv = S->fac + (S->bs * (S->bs - 1) / 2) * nb + J;
#define GKF(k, l)  S->fac[((k) * ((k) - 1) / 2 + (l)) * nb + J]
#define GKFS(k, l) (S->herm ? PetscConj(GKF(k, l)) : GKF(k, l))

  if (inv) { /* F^-* Delta^-1 F^-1 v */
    for (PetscInt k = 0; k < n; k++)
      for (PetscInt l = 0; l < k; l++) v[k] -= GKF(k, l) * v[l];
    for (PetscInt k = 0; k < n; k++) v[k] *= dinv[k * nb];
    for (PetscInt k = n - 1; k >= 0; k--)
      for (PetscInt l = k + 1; l < n; l++) v[k] -= GKFS(l, k) * v[l];
  } else { /* F Delta F^* v */
    for (PetscInt k = 0; k < n; k++) {
      for (PetscInt l = k + 1; l < n; l++) v[k] += GKFS(l, k) * v[l];
      v[k] /= dinv[k * nb];
    }
    for (PetscInt k = n - 1; k >= 0; k--)
      for (PetscInt l = 0; l < k; l++) v[k] += GKF(k, l) * v[l];
  }
#undef GKF
#undef GKFS
}

PetscScalar GKHostSsorBlockRow(const GKSsor *S, const GKSsorColor *c, int t, PetscInt j, PetscInt l, const PetscScalar *x)
{
  PetscScalar s = 0.0;

  for (PetscInt k = 0; k < c->w[t]; k++) {
    const PetscInt e = c->off[t] + (k * S->bs + l) * c->nb + j;

    s += GKHostValue(S->pval[t], S->spval[t], S->spval[t] ? PETSC_TRUE : PETSC_FALSE, (size_t)e) * x[S->pcol[t][e]];
  }
  return s;
}

/* SSOR's step (device.h) on colour c's blocks, block by block */
PetscErrorCode GKHostSsorBlocks(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b, const PetscScalar *xin,
                                PetscScalar *xout)
{
  PetscFunctionBegin;
  if (c->nb) GKCounts.launches += 1;
  for (PetscInt j = 0; j < c->nb; j++) {
    PetscInt       r[GK_SSOR_MAX_BS];
    const PetscInt J = c->b0 + j, n = GKHostSsorBlockRows(c, j, r);
    PetscScalar    v[GK_SSOR_MAX_BS], s[GK_SSOR_MAX_BS];

    for (PetscInt l = 0; l < n; l++) s[l] = step == GK_SSOR_BLOCK_Z ? 0.0 : GKHostSsorBlockRow(S, c, step == GK_SSOR_LOWER ? 0 : 1, j, l, xin);
    for (PetscInt l = 0; l < n; l++)
      v[l] = step == GK_SSOR_UPPER_SSOR ? s[l] : step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z ? xin[r[l]] : b[r[l]] - s[l];
    GKHostSsorBlock(S, J, n, step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z ? PETSC_FALSE : PETSC_TRUE, v);
    for (PetscInt l = 0; l < n; l++) {
      switch (step) {
      case GK_SSOR_UPPER_SSOR:
        xout[r[l]] = (2.0 - omega) * b[r[l]] - omega * v[l];
        break;
      case GK_SSOR_UPPER_MULT:
        xout[r[l]] = v[l] / omega + s[l];
        break;
      case GK_SSOR_BLOCK_Z:
        xout[r[l]] = (2.0 - omega) / omega * v[l];
        break;
      default: /* the solves */
        xout[r[l]] = omega * v[l];
      }
    }
  }
  PetscFunctionReturn(0);
}

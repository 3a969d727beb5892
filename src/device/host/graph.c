/*
   The host twin of the strength graph (device.h, strength; kernels: cuda/graph.cu): each row's
   kept entries counted, the counts summed into the row starts, the kept columns written. The
   weights are PETSc's, operation for operation (MatCreateGraph() for block size 1: the absolute
   values, the transpose added, the diagonal scaling by sqrt(1 / w_ii) from the left, then from
   the right; then the filter), so the same entries pass the threshold: the rows' scales first,
   then each entry's weight (its mirror found once), marked kept or not and counted, then the
   marked columns written. On several processes the ghosts' scales come from their owners (the
   halo's exchange) and each row's kept ghosts follow its kept local columns.
*/
#include "hostimpl.h"

/* w_ij of the entry at k (row i, column j): |a_ij| (+ |a_ji|), 0 for a missing mirror */
static inline PetscReal GKHostWeight(const GKCsr *A, PetscBool sym, PetscInt i, PetscInt k, PetscBool *mirrored)
{
  const PetscInt j = A->j[k];
  PetscReal      w = PetscAbsScalar(A->a[k]);

  if (sym) {
    const PetscInt t = GKFind(A->i, A->j, j, i);

    if (t < 0) *mirrored = PETSC_FALSE;
    else w += PetscAbsScalar(A->a[t]);
  }
  return w;
}

/* s_i = sqrt(1 / w_ii), 0 where w_ii is 0 or missing (VecReciprocal() leaves a zero) */
static inline PetscReal GKHostScale(const GKCsr *A, PetscBool sym, PetscInt i)
{
  const PetscInt k = GKFind(A->i, A->j, i, i);
  PetscBool      mirrored;
  PetscReal      w;

  if (k < 0) return 0.0;
  w = GKHostWeight(A, sym, i, k, &mirrored);
  return w != 0.0 ? PetscSqrtReal(PetscAbsReal(1.0 / w)) : 0.0;
}

/* entry k's weight w (in row i, column j) kept where (w s_i) s_j passes; the scales at sc */
static inline PetscBool GKHostKeep(PetscReal w, PetscReal thr, const PetscReal *sc, PetscInt i, PetscInt j)
{
  return thr < 0 || (w * sc[i]) * sc[j] > thr ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode GKHostStrength(const GKCsr *A, const GKStrengthHalo *h, PetscBool sym, PetscReal thr, GKCsr *G, PetscBool *mirrored)
{
  const PetscInt m = A->m;
  PetscReal     *sc;
  char          *keep;

  PetscFunctionBegin;
  *mirrored = PETSC_TRUE;
  G->m      = A->m;
  G->n      = A->n + (h ? h->halo->nghost : 0);
  G->a      = NULL;
  G->j      = NULL;
  /* the rows' scales (with a halo, the ghosts' from their owners after them) */
  PetscCall(PetscMalloc2(m + (h ? h->halo->nghost : 0), &sc, A->nnz, &keep));
  for (PetscInt i = 0; i < m; i++) sc[i] = GKHostScale(A, sym, i);
  GKCounts.launches += 1;
  if (h) {
    char *buf;

    PetscCall(PetscMalloc1(h->halo->nsend * (PetscInt)sizeof(PetscReal), &buf));
    PetscCall(GKHostAggExchange(h->halo, m, sizeof(PetscReal), sc, buf));
    PetscCall(PetscFree(buf));
  }
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(m + 1), (void **)&G->i));
  G->i[0] = 0;
  for (PetscInt i = 0; i < m; i++) { /* each entry's weight and its mirror's found once, marked */
    PetscInt n = 0;

    for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++) {
      keep[k] = (char)GKHostKeep(GKHostWeight(A, sym, i, k, mirrored), thr, sc, i, A->j[k]);
      n += keep[k];
    }
    if (h)
      for (PetscInt k = h->oi[i]; k < h->oi[i + 1]; k++) n += GKHostKeep(h->ow[k], thr, sc, i, m + h->oj[k]);
    G->i[i + 1] = n;
  }
  GKCounts.launches += 3; /* the counts (and the flag) zeroed, counted, summed */
  GKCounts.syncs += 1;    /* the flag and the total read */
  if (!*mirrored) {
    PetscCall(GKBackendHost.free(G->i));
    G->i = NULL;
  } else {
    for (PetscInt i = 0; i < m; i++) G->i[i + 1] += G->i[i];
    G->nnz = G->i[m];
    PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)G->nnz, (void **)&G->j));
    for (PetscInt i = 0; i < m; i++) {
      PetscInt q = G->i[i];

      for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++)
        if (keep[k]) G->j[q++] = A->j[k];
      if (h)
        for (PetscInt k = h->oi[i]; k < h->oi[i + 1]; k++)
          if (GKHostKeep(h->ow[k], thr, sc, i, m + h->oj[k])) G->j[q++] = m + h->oj[k];
    }
    GKCounts.launches += 1; /* the columns written */
  }
  PetscCall(PetscFree2(sc, keep));
  PetscFunctionReturn(0);
}

/* The graph of A's blocks (device.h, collapse): each node row's block columns marked as its
   rows meet them, counted, then listed ascending and summed row by row */
PetscErrorCode GKHostCollapse(const GKCsr *A, PetscInt bs, GKCsr *G)
{
  const PetscInt nn = A->m / bs, nc = A->n / bs;
  PetscInt      *pos;

  PetscFunctionBegin;
  G->m = nn;
  G->n = nc;
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(nn + 1), (void **)&G->i));
  PetscCall(PetscMalloc1(PetscMax(nc, 1), &pos));
  for (PetscInt w = 0; w < nc; w++) pos[w] = -1;
  G->i[0] = 0;
  for (PetscInt u = 0; u < nn; u++) {
    PetscInt n = 0;

    for (PetscInt k = A->i[u * bs]; k < A->i[u * bs + bs]; k++)
      if (pos[A->j[k] / bs] != u) {
        pos[A->j[k] / bs] = u;
        n++;
      }
    G->i[u + 1] = G->i[u] + n;
  }
  G->nnz = G->i[nn];
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)G->nnz, (void **)&G->j));
  PetscCall(GKBackendHost.malloc(sizeof(PetscScalar) * (size_t)G->nnz, (void **)&G->a));
  for (PetscInt w = 0; w < nc; w++) pos[w] = -1;
  for (PetscInt u = 0; u < nn; u++) {
    PetscInt q = G->i[u];

    for (PetscInt k = A->i[u * bs]; k < A->i[u * bs + bs]; k++) /* the block columns, ascending */
      if (pos[A->j[k] / bs] < G->i[u]) {
        pos[A->j[k] / bs] = q;
        G->j[q++]         = A->j[k] / bs;
      }
    for (PetscInt a = G->i[u] + 1; a < G->i[u + 1]; a++)
      for (PetscInt c = a; c > G->i[u] && G->j[c - 1] > G->j[c]; c--) {
        const PetscInt t = G->j[c];

        G->j[c]     = G->j[c - 1];
        G->j[c - 1] = t;
      }
    for (PetscInt a = G->i[u]; a < G->i[u + 1]; a++) {
      pos[G->j[a]] = a;
      G->a[a]      = 0.0;
    }
    for (PetscInt k = A->i[u * bs]; k < A->i[u * bs + bs]; k++) G->a[pos[A->j[k] / bs]] += PetscAbsReal(PetscRealPart(A->a[k]));
  }
  GKCounts.launches += 3; /* counted, summed, written */
  GKCounts.syncs += 1;    /* the total read */
  PetscCall(PetscFree(pos));
  PetscFunctionReturn(0);
}

/*
   The host twin of the coarsening (device.h, aggregate): the same rounds as the CUDA kernels
   (cuda/coarsen.cu), each reading the states the round before left, so that both find the same
   roots and the same aggregates. The maximal independent sets are Luby's rounds with the
   vertices' keys for priorities (distance 1), and Bell, Dalton and Olson's for distance 2 (the
   largest key over each vertex's neighbourhood, twice); the aggregates are theirs: a root and the
   vertices next to it, then at distance 2 the vertices next to those.
*/
#include "hostimpl.h"

/* the largest key over v and its neighbours, of the keys in key */
static inline uint64_t GKHostAggNeighbourMax(const PetscInt *ai, const PetscInt *aj, PetscInt v, const uint64_t *key)
{
  uint64_t m = key[v];

  for (PetscInt k = ai[v]; k < ai[v + 1]; k++) m = key[aj[k]] > m ? key[aj[k]] : m;
  return m;
}

/* vertex v's global number: v where the graph is all of it */
static inline PetscInt GKHostAggGid(const PetscInt *gid, PetscInt v)
{
  return gid ? gid[v] : v;
}

/* One round at distance 1 from the states s into t: an undecided vertex next to one in the set
   is out; one whose key is above every undecided neighbour's joins the set; the number still
   undecided */
static PetscInt GKHostAggRound1(PetscInt m, const PetscInt *ai, const PetscInt *aj, const PetscInt *gid, const char *s, char *t)
{
  PetscInt und = 0;

  for (PetscInt v = 0; v < m; v++) {
    PetscBool out = PETSC_FALSE, top = PETSC_TRUE;

    t[v] = s[v];
    if (s[v] != GK_AGG_UNDECIDED) continue;
    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
      const PetscInt u = aj[k];

      if (u == v) continue;
      if (s[u] == GK_AGG_IN) out = PETSC_TRUE;
      else if (s[u] == GK_AGG_UNDECIDED && GKAggKey(GK_AGG_UNDECIDED, GKHostAggGid(gid, u)) > GKAggKey(GK_AGG_UNDECIDED, GKHostAggGid(gid, v)))
        top = PETSC_FALSE;
    }
    t[v] = out ? GK_AGG_OUT : top ? GK_AGG_IN : GK_AGG_UNDECIDED;
    und += t[v] == GK_AGG_UNDECIDED;
  }
  return und;
}

/* The ghosts' entries of the array a (m local entries, then the ghosts') from their owners: the
   local entries other processes read gathered into buf, exchanged into the ghosts' place */
PetscErrorCode GKHostAggExchange(const GKAggHalo *h, PetscInt m, size_t unit, void *a, char *buf)
{
  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < h->nsend; k++) PetscCall(PetscMemcpy(buf + (size_t)k * unit, (char *)a + (size_t)h->send[k] * unit, unit));
  PetscCall(h->exchange(h->ctx, unit, buf, (char *)a + (size_t)m * unit));
  GKCounts.launches += 1; /* the gather */
  GKCounts.syncs += 1;    /* its copy down, the ghosts' up */
  PetscFunctionReturn(0);
}

/* One round at distance 2: the largest key within one edge (m1), then within two (m2); an
   undecided vertex whose own key that is joins the set, one that finds a vertex in the set there
   is out */
static PetscErrorCode GKHostAggRound2(PetscInt m, const PetscInt *ai, const PetscInt *aj, const GKAggHalo *h, char *buf, const char *s, char *t,
                                      uint64_t *k0, uint64_t *m1, PetscInt *und)
{
  const PetscInt *gid = h ? h->gid : NULL, n = m + (h ? h->nghost : 0);

  PetscFunctionBegin;
  *und = 0;
  for (PetscInt v = 0; v < n; v++) k0[v] = GKAggKey(s[v], GKHostAggGid(gid, v));
  for (PetscInt v = 0; v < m; v++) m1[v] = GKHostAggNeighbourMax(ai, aj, v, k0);
  PetscCall(GKHostAggExchange(h, m, sizeof(uint64_t), m1, buf));
  for (PetscInt v = 0; v < m; v++) {
    const uint64_t m2 = GKHostAggNeighbourMax(ai, aj, v, m1);

    t[v] = s[v];
    if (s[v] != GK_AGG_UNDECIDED) continue;
    if (m2 == k0[v]) t[v] = GK_AGG_IN;
    else if (GKAggKeyState(m2) == GK_AGG_IN) t[v] = GK_AGG_OUT;
    *und += t[v] == GK_AGG_UNDECIDED;
  }
  PetscFunctionReturn(0);
}

/* whether v has an edge to another vertex */
static inline PetscBool GKHostAggLinked(const PetscInt *ai, const PetscInt *aj, PetscInt v)
{
  for (PetscInt k = ai[v]; k < ai[v + 1]; k++)
    if (aj[k] != v) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* root[v]: v itself in the set, else its neighbour in the set of the largest key, else -1 */
static void GKHostAggJoinRoot(PetscInt m, const PetscInt *ai, const PetscInt *aj, const PetscInt *gid, const char *s, PetscInt *root)
{
  for (PetscInt v = 0; v < m; v++) {
    uint64_t best = 0;

    root[v] = s[v] == GK_AGG_IN ? v : -1;
    if (root[v] >= 0 || !GKHostAggLinked(ai, aj, v)) continue;
    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
      const PetscInt u = aj[k];

      if (s[u] == GK_AGG_IN && GKAggKey(GK_AGG_IN, GKHostAggGid(gid, u)) > best) {
        best    = GKAggKey(GK_AGG_IN, GKHostAggGid(gid, u));
        root[v] = u;
      }
    }
  }
}

/* at distance 2, the vertices no root is next to: the root (one process) or the aggregate (a halo)
   of their neighbour of the largest key that has one (root1, the first pass's), into root */
static void GKHostAggJoinNeighbour(PetscInt m, const PetscInt *ai, const PetscInt *aj, const PetscInt *gid, const PetscInt *root1, PetscInt *root)
{
  for (PetscInt v = 0; v < m; v++) {
    uint64_t best = 0;

    root[v] = root1[v];
    if (root[v] >= 0 || !GKHostAggLinked(ai, aj, v)) continue;
    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
      const PetscInt u = aj[k];

      if (root1[u] >= 0 && GKAggKey(GK_AGG_UNDECIDED, GKHostAggGid(gid, u)) > best) {
        best    = GKAggKey(GK_AGG_UNDECIDED, GKHostAggGid(gid, u));
        root[v] = root1[u];
      }
    }
  }
}

/* With a halo: the local roots numbered after the other processes' before them (num, m + nghost
   entries, -1 for no root; the ghosts' from their owners), each vertex given its root's number
   (a1), at distance 2 its neighbour's where it has none, and exchanged between them */
static PetscErrorCode GKHostAggNumberHalo(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt dist, const GKAggHalo *h, char *buf,
                                          const char *s, const PetscInt *root1, PetscInt *num, PetscInt *a1, PetscInt *agg, PetscInt *roots,
                                          PetscInt *nagg)
{
  PetscInt n = 0, start;

  PetscFunctionBegin;
  for (PetscInt v = 0; v < m; v++) n += s[v] == GK_AGG_IN;
  GKCounts.launches += 1; /* the scan */
  GKCounts.syncs += 1;    /* its count read */
  PetscCall(h->offset(h->ctx, n, &start));
  n = 0;
  for (PetscInt v = 0; v < m; v++) {
    num[v] = s[v] == GK_AGG_IN ? start + n : -1;
    if (s[v] == GK_AGG_IN) roots[n++] = v;
  }
  PetscCall(GKHostAggExchange(h, m, sizeof(PetscInt), num, buf));
  for (PetscInt v = 0; v < m; v++) a1[v] = root1[v] >= 0 ? num[root1[v]] : -1;
  GKCounts.launches += 2; /* the numbers, the aggregates */
  if (dist == 2) {
    PetscCall(GKHostAggExchange(h, m, sizeof(PetscInt), a1, buf));
    GKHostAggJoinNeighbour(m, ai, aj, h->gid, a1, agg);
    GKCounts.launches += 1;
  } else PetscCall(PetscArraycpy(agg, a1, m));
  *nagg = n;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostAggregate(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt dist, const GKAggHalo *h, PetscInt *agg, PetscInt *roots,
                               PetscInt *nagg)
{
  char          *sa, *ta, *s, *t, *buf = NULL;
  uint64_t      *k0 = NULL, *m1 = NULL;
  PetscInt      *root, *root1, *num = NULL, *a1 = NULL, und;
  const PetscInt ng = h ? h->nghost : 0, n = m + ng, *gid = h ? h->gid : NULL;

  PetscFunctionBegin;
  PetscCheck(dist == 1 || dist == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Aggregates at distance 1 or 2, not %" PetscInt_FMT, dist);
  *nagg = 0;
  if (!m && !h) PetscFunctionReturn(0);
  PetscCall(PetscMalloc4(n, &sa, n, &ta, m, &root, n, &root1));
  if (dist == 2) PetscCall(PetscMalloc2(n, &k0, n, &m1));
  if (h) {
    PetscCall(PetscMalloc2(n, &num, n, &a1));
    PetscCall(PetscMalloc1(h->nsend * (PetscInt)sizeof(uint64_t), &buf));
  }
  s = sa;
  t = ta;
  for (PetscInt v = 0; v < m; v++) s[v] = GKHostAggLinked(ai, aj, v) ? GK_AGG_UNDECIDED : GK_AGG_OUT;
  GKCounts.launches += 1;
  PetscCall(GKHostAggExchange(h, m, 1, s, buf));
  do { /* a round decides at least the undecided vertex of the largest key (of every process's) */
    char *w = s;

    if (dist == 1) und = GKHostAggRound1(m, ai, aj, gid, s, t);
    else PetscCall(GKHostAggRound2(m, ai, aj, h, buf, s, t, k0, m1, &und));
    GKCounts.launches += dist == 1 ? 2 : 4; /* the count zeroed, the round's kernels */
    GKCounts.syncs += 1;                    /* the count read */
    PetscCall(GKHostAggExchange(h, m, 1, t, buf));
    if (h) PetscCall(h->sum(h->ctx, &und));
    s = t;
    t = w;
  } while (und);
  GKHostAggJoinRoot(m, ai, aj, gid, s, root1);
  if (h) {
    PetscCall(GKHostAggNumberHalo(m, ai, aj, dist, h, buf, s, root1, num, a1, agg, roots, nagg));
    GKCounts.launches += 1; /* the join */
  } else {
    PetscInt c = 0;

    if (dist == 2) GKHostAggJoinNeighbour(m, ai, aj, NULL, root1, root);
    else PetscCall(PetscArraycpy(root, root1, m));
    for (PetscInt v = 0; v < m; v++) /* the roots numbered in their order */
      if (s[v] == GK_AGG_IN) {
        roots[c] = v;
        root1[v] = c++;
      }
    for (PetscInt v = 0; v < m; v++) agg[v] = root[v] >= 0 ? root1[root[v]] : -1;
    GKCounts.launches += dist == 1 ? 3 : 4; /* the joins, the roots' numbers, the aggregates */
    GKCounts.syncs += 1;                    /* their count read */
    *nagg = c;
  }
  PetscCall(PetscFree4(sa, ta, root, root1));
  PetscCall(PetscFree2(k0, m1));
  PetscCall(PetscFree2(num, a1));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* The tentative prolongator (device.h, tentative): each aggregate's first row and the sum of
   the squares of the others' entries of b, in ascending row order, then r and p */
PetscErrorCode GKHostTentative(PetscInt m, const PetscInt *agg, PetscInt nagg, const PetscReal *b, PetscScalar *p, PetscReal *r)
{
  PetscInt  *first;
  PetscReal *rho2;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2(nagg, &first, nagg, &rho2));
  for (PetscInt a = 0; a < nagg; a++) {
    first[a] = -1;
    rho2[a]  = 0.0;
  }
  for (PetscInt v = 0; v < m; v++) {
    const PetscInt a = agg[v];

    if (a < 0) continue;
    if (first[a] < 0) first[a] = v;
    else rho2[a] += b[v] * b[v];
  }
  for (PetscInt a = 0; a < nagg; a++) {
    const PetscReal b1 = b[first[a]];

    r[a] = rho2[a] == 0.0 ? b1 : (b1 >= 0 ? -1.0 : 1.0) * PetscSqrtReal(b1 * b1 + rho2[a]);
  }
  for (PetscInt v = 0; v < m; v++) {
    const PetscInt a = agg[v];

    p[v] = a < 0 ? 0.0 : rho2[a] == 0.0 ? (v == first[a] ? 1.0 : 0.0) : b[v] / r[a];
  }
  GKCounts.launches += 5; /* P's values zeroed, the rows listed by aggregate, sorted, each list's start, each aggregate's values */
  PetscCall(PetscFree2(first, rho2));
  PetscFunctionReturn(0);
}

/* the aggregate of row j of A: its node's (bs rows a node) */
static inline PetscInt GKHostRowAgg(const PetscInt *agg, PetscInt bs, PetscInt j)
{
  return agg[j / bs];
}

/* whether row i's column k (at position k of A->j) is the first of its aggregate in the row */
static inline PetscBool GKHostSmoothFirst(const GKCsr *A, PetscInt bs, const PetscInt *agg, PetscInt i, PetscInt k)
{
  const PetscInt c = GKHostRowAgg(agg, bs, A->j[k]);

  if (c < 0) return PETSC_FALSE;
  for (PetscInt l = A->i[i]; l < k; l++)
    if (GKHostRowAgg(agg, bs, A->j[l]) == c) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* row i's aggregates: those of its columns, each once, and its own if none of them is it */
static inline PetscInt GKHostSmoothCount(const GKCsr *A, PetscInt bs, const PetscInt *agg, PetscInt i)
{
  const PetscInt own = GKHostRowAgg(agg, bs, i);
  PetscInt       n   = 0;
  PetscBool      has = own < 0 ? PETSC_TRUE : PETSC_FALSE;

  for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++)
    if (GKHostSmoothFirst(A, bs, agg, i, k)) {
      n++;
      has = (PetscBool)(has || GKHostRowAgg(agg, bs, A->j[k]) == own);
    }
  return n + !has;
}

/* The smoothed prolongator (device.h, smooth and smoothblock): each row's columns counted, the
   counts summed into the starts, then each row's aggregates in the order they first occur (its
   own last where none of its columns is in it), nv sums each, and the row sorted */
PetscErrorCode GKHostSmoothBlock(const GKCsr *A, PetscInt bs, PetscInt nv, const PetscInt *agg, const PetscScalar *p0, PetscInt nagg, PetscReal alpha,
                                 GKCsr *P)
{
  const PetscInt m = A->m;

  PetscFunctionBegin;
  P->m = m;
  P->n = nagg * nv;
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)(m + 1), (void **)&P->i));
  P->i[0] = 0;
  for (PetscInt i = 0; i < m; i++) P->i[i + 1] = nv * GKHostSmoothCount(A, bs, agg, i);
  for (PetscInt i = 0; i < m; i++) P->i[i + 1] += P->i[i];
  GKCounts.launches += 2; /* counted, summed */
  GKCounts.syncs += 1;    /* the total read */
  P->nnz = P->i[m];
  PetscCall(GKBackendHost.malloc(sizeof(PetscInt) * (size_t)P->nnz, (void **)&P->j));
  PetscCall(GKBackendHost.malloc(sizeof(PetscScalar) * (size_t)P->nnz, (void **)&P->a));
  for (PetscInt i = 0; i < m; i++) {
    const PetscInt own = GKHostRowAgg(agg, bs, i);
    PetscInt       q = P->i[i], d = -1;
    PetscScalar    dinv;

    for (PetscInt k = A->i[i]; k < A->i[i + 1]; k++)
      if (A->j[k] == i) d = k;
    dinv = d >= 0 && A->a[d] != 0.0 ? 1.0 / A->a[d] : 0.0;
    for (PetscInt k = A->i[i]; k <= A->i[i + 1]; k++) {
      const PetscBool last = (PetscBool)(k == A->i[i + 1]);
      const PetscInt  c    = last ? own : GKHostRowAgg(agg, bs, A->j[k]);

      if (last ? q == P->i[i + 1] : !GKHostSmoothFirst(A, bs, agg, i, k)) continue;
      for (PetscInt v = 0; v < nv; v++) {
        PetscScalar sum = 0.0;

        for (PetscInt l = A->i[i]; l < A->i[i + 1]; l++)
          if (GKHostRowAgg(agg, bs, A->j[l]) == c) sum += A->a[l] * p0[A->j[l] * nv + v];
        P->j[q]   = c * nv + v;
        P->a[q++] = alpha * (sum * dinv) + (c == own ? p0[i * nv + v] : 0.0);
      }
    }
    for (PetscInt a = P->i[i] + 1; a < P->i[i + 1]; a++) /* insertion sort by column */
      for (PetscInt b = a; b > P->i[i] && P->j[b - 1] > P->j[b]; b--) {
        const PetscInt    tj = P->j[b];
        const PetscScalar ta = P->a[b];

        P->j[b]     = P->j[b - 1];
        P->a[b]     = P->a[b - 1];
        P->j[b - 1] = tj;
        P->a[b - 1] = ta;
      }
  }
  GKCounts.launches += 1; /* written */
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostSmooth(const GKCsr *A, const PetscInt *agg, const PetscScalar *p0, PetscInt nagg, PetscReal alpha, GKCsr *P)
{
  PetscFunctionBegin;
  PetscCall(GKHostSmoothBlock(A, 1, 1, agg, p0, nagg, alpha, P));
  PetscFunctionReturn(0);
}

/* The tentative prolongator of nv vectors (device.h, tentativeblock): each aggregate's rows
   gathered (its nodes ascending), Householder's steps (LAPACK's dlarfg: beta = -sign(alpha)
   |(alpha, x)|, tau = (beta - alpha) / beta, v = x / (alpha - beta)) applied to the columns on
   the right, R read off, then Q = H_0 ... H_(nv-1) applied to the first nv columns of I */
PetscErrorCode GKHostTentativeBlock(PetscInt nn, PetscInt bs, PetscInt nv, const PetscInt *agg, PetscInt nagg, const PetscReal *b, PetscScalar *p,
                                    PetscReal *r)
{
  const PetscInt m = nn * bs, ldr = nagg * nv;
  PetscInt      *start, *node, *fill, most = 0;
  PetscReal     *qa, *qm, *tau;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < m * nv; i++) p[i] = 0.0;
  for (PetscInt i = 0; i < ldr * nv; i++) r[i] = 0.0;
  if (!nagg) PetscFunctionReturn(0);
  PetscCall(PetscCalloc3(nagg + 1, &start, PetscMax(nn, 1), &node, nagg, &fill));
  for (PetscInt v = 0; v < nn; v++)
    if (agg[v] >= 0) start[agg[v] + 1]++;
  for (PetscInt a = 0; a < nagg; a++) {
    most = PetscMax(most, start[a + 1]);
    start[a + 1] += start[a];
  }
  for (PetscInt v = 0; v < nn; v++)
    if (agg[v] >= 0) node[start[agg[v]] + fill[agg[v]]++] = v;
  most = PetscMax(most * bs, nv);
  PetscCall(PetscMalloc3(most * nv, &qa, most * nv, &qm, nv, &tau));
  for (PetscInt a = 0; a < nagg; a++) {
    const PetscInt M = (start[a + 1] - start[a]) * bs, Md = PetscMax(M, nv);

    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i < Md; i++) qa[i + k * Md] = i < M ? b[node[start[a] + i / bs] * bs + i % bs + k * m] : 0.0;
    for (PetscInt j = 0; j < nv; j++) { /* the step of column j */
      PetscReal *x = qa + j * Md, alpha = x[j], xnorm2 = 0.0, beta, scale;

      for (PetscInt i = j + 1; i < Md; i++) xnorm2 += x[i] * x[i];
      if (xnorm2 == 0.0) {
        tau[j] = 0.0;
        continue;
      }
      beta   = -PetscSqrtReal(alpha * alpha + xnorm2);
      beta   = alpha >= 0 ? beta : -beta;
      tau[j] = (beta - alpha) / beta;
      scale  = 1.0 / (alpha - beta);
      for (PetscInt i = j + 1; i < Md; i++) x[i] *= scale;
      x[j] = beta;
      for (PetscInt c = j + 1; c < nv; c++) {
        PetscReal *y = qa + c * Md, w = y[j];

        for (PetscInt i = j + 1; i < Md; i++) w += x[i] * y[i];
        w *= tau[j];
        y[j] -= w;
        for (PetscInt i = j + 1; i < Md; i++) y[i] -= w * x[i];
      }
    }
    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i <= k; i++) r[a * nv + i + k * ldr] = qa[i + k * Md];
    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i < Md; i++) qm[i + k * Md] = i == k ? 1.0 : 0.0;
    for (PetscInt j = nv - 1; j >= 0; j--) {
      const PetscReal *x = qa + j * Md;

      if (tau[j] == 0.0) continue;
      for (PetscInt c = 0; c < nv; c++) {
        PetscReal *y = qm + c * Md, w = y[j];

        for (PetscInt i = j + 1; i < Md; i++) w += x[i] * y[i];
        w *= tau[j];
        y[j] -= w;
        for (PetscInt i = j + 1; i < Md; i++) y[i] -= w * x[i];
      }
    }
    for (PetscInt i = 0; i < M; i++) {
      const PetscInt row = node[start[a] + i / bs] * bs + i % bs;

      for (PetscInt k = 0; k < nv; k++) p[row * nv + k] = qm[i + k * Md];
    }
  }
  GKCounts.launches += 4; /* the nodes listed by aggregate (the rows in none zeroed), sorted, each list's start, the factors */
  PetscCall(PetscFree3(qa, qm, tau));
  PetscCall(PetscFree3(start, node, fill));
  PetscFunctionReturn(0);
}

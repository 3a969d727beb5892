static char help[] = "PCGAMG's aggregation on the backend (strength, aggregate, tentative) against PETSc and the rules.\n\
  -problem <lap2d,lap3d,aniso,random,nonsym,chain,one> : the matrix\n\
  -n <n>          : the problem's size parameter\n\
  -threshold <t>  : the graph's filter (negative: none)\n\
  -symmetrize <b> : the graph made symmetric (default true)\n\
  -dist <d>       : the maximal independent set's distance, 1 or 2\n\n";

/*
   The strength graph is held to PETSc's MatCreateGraph() with the same filter (the off-diagonal
   pattern exactly); the aggregates to the rules of smoothed aggregation's coarsening (every
   vertex with an edge in one aggregate, a vertex with none in none; the roots no two within
   dist edges; each vertex within dist edges of its root, at distance 2 through a vertex of the
   same aggregate); the tentative prolongator to its QR (P r = b on every row, each column of
   norm 1). What the test prints is the same on both backends (the cases with
   -gpukit_backend {host cuda} share one output file): the counts of aggregates and the
   backend's launches and waits.
*/
#include <petscgpukit.h>
#include "include/gpukitimpl.h"

typedef enum {
  LAP2D,
  LAP3D,
  ANISO,
  RANDOM,
  NONSYM,
  CHAIN,
  ONE
} Problem;
static const char *const Problems[] = {"lap2d", "lap3d", "aniso", "random", "nonsym", "chain", "one", "Problem", "", NULL};

static PetscErrorCode Set(Mat A, PetscInt i, PetscInt j, PetscScalar v)
{
  PetscFunctionBegin;
  PetscCall(MatSetValue(A, i, j, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* The problem's matrix (SEQAIJ). lap2d and lap3d: the Laplacian on the grid's interior points,
   the boundary points' rows the identity and decoupled (no edge: in no aggregate); aniso: 2D,
   the y couplings 1e-3 of the x ones; random: a symmetric pattern, values that are not;
   nonsym: lap2d with one entry whose mirror is missing; chain: the 1D Laplacian */
static PetscErrorCode MakeProblem(Problem p, PetscInt n, Mat *A)
{
  PetscInt m = p == LAP3D ? n * n * n : p == ONE ? 1 : p == CHAIN || p == RANDOM ? n : n * n;

  PetscFunctionBegin;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, m, 8, NULL, A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  if (p == LAP2D || p == ANISO || p == NONSYM) {
    const PetscScalar cy = p == ANISO ? 1e-3 : 1.0;

    for (PetscInt y = 0; y < n; y++)
      for (PetscInt x = 0; x < n; x++) {
        const PetscInt r = y * n + x;

        if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
          PetscCall(Set(*A, r, r, 1.0));
          continue;
        }
        PetscCall(Set(*A, r, r, 2.0 + 2.0 * cy));
        if (x > 1) PetscCall(Set(*A, r, r - 1, -1.0));
        if (x < n - 2) PetscCall(Set(*A, r, r + 1, -1.0));
        if (y > 1) PetscCall(Set(*A, r, r - n, -cy));
        if (y < n - 2) PetscCall(Set(*A, r, r + n, -cy));
      }
    if (p == NONSYM) PetscCall(Set(*A, n + 1, 2 * n + 3, -0.5));
  } else if (p == LAP3D) {
    for (PetscInt z = 0; z < n; z++)
      for (PetscInt y = 0; y < n; y++)
        for (PetscInt x = 0; x < n; x++) {
          const PetscInt r = (z * n + y) * n + x;

          if (x == 0 || y == 0 || z == 0 || x == n - 1 || y == n - 1 || z == n - 1) {
            PetscCall(Set(*A, r, r, 1.0));
            continue;
          }
          PetscCall(Set(*A, r, r, 6.0));
          if (x > 1) PetscCall(Set(*A, r, r - 1, -1.0));
          if (x < n - 2) PetscCall(Set(*A, r, r + 1, -1.0));
          if (y > 1) PetscCall(Set(*A, r, r - n, -1.0));
          if (y < n - 2) PetscCall(Set(*A, r, r + n, -1.0));
          if (z > 1) PetscCall(Set(*A, r, r - n * n, -1.0));
          if (z < n - 2) PetscCall(Set(*A, r, r + n * n, -1.0));
        }
  } else if (p == RANDOM) {
    PetscRandom rnd;

    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, 0.0, 1.0));
    for (PetscInt r = 0; r < m; r++) PetscCall(Set(*A, r, r, 4.0));
    for (PetscInt r = 0; r < m; r++)
      for (PetscInt e = 0; e < 3; e++) {
        PetscReal u, w;
        PetscInt  c;

        PetscCall(PetscRandomGetValueReal(rnd, &u));
        PetscCall(PetscRandomGetValueReal(rnd, &w));
        c = (PetscInt)(u * m) % m;
        if (c == r) continue;
        PetscCall(Set(*A, r, c, -w));
        PetscCall(Set(*A, c, r, -0.5 * w));
      }
    PetscCall(PetscRandomDestroy(&rnd));
  } else {
    for (PetscInt r = 0; r < m; r++) {
      PetscCall(Set(*A, r, r, 2.0));
      if (r > 0) PetscCall(Set(*A, r, r - 1, -1.0));
      if (r < m - 1) PetscCall(Set(*A, r, r + 1, -1.0));
    }
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* PETSc's strength graph of A (scaled, filtered) */
static PetscErrorCode PETScGraph(Mat A, PetscBool sym, PetscReal thr, Mat *G)
{
  PetscFunctionBegin;
#if PETSC_VERSION_LT(3, 21, 0)
  PetscCall(MatCreateGraph(A, sym, PETSC_TRUE, thr, G));
#else
  PetscCall(MatCreateGraph(A, sym, PETSC_TRUE, thr, 0, NULL, G));
#endif
  PetscFunctionReturn(0);
}

/* The graph gi, gj (m vertices) against PETSc's graph of A: the same off-diagonal entries in
   each row, in order; *ndiag its diagonal entries */
static PetscErrorCode SameGraph(Mat A, PetscBool sym, PetscReal thr, PetscInt m, const PetscInt *gi, const PetscInt *gj, PetscInt *ndiag)
{
  Mat             PG;
  PetscInt        pm;
  const PetscInt *pi, *pj;
  PetscBool       done, same = PETSC_TRUE;

  PetscFunctionBegin;
  *ndiag = 0;
  PetscCall(PETScGraph(A, sym, thr, &PG));
  PetscCall(MatGetRowIJ(PG, 0, PETSC_FALSE, PETSC_FALSE, &pm, &pi, &pj, &done));
  PetscCheck(pm == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PETSc's graph has %" PetscInt_FMT " rows", pm);
  for (PetscInt v = 0; v < m && same; v++) { /* the off-diagonal entries, in order */
    PetscInt k = gi[v], l = pi[v];

    while (same) {
      while (k < gi[v + 1] && gj[k] == v) k++;
      while (l < pi[v + 1] && pj[l] == v) l++;
      if (k == gi[v + 1] || l == pi[v + 1]) {
        same = (PetscBool)(k == gi[v + 1] && l == pi[v + 1]);
        break;
      }
      same = (PetscBool)(gj[k++] == pj[l++]);
    }
    for (k = gi[v]; k < gi[v + 1]; k++) *ndiag += gj[k] == v;
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of the graph is not PETSc's", v);
  }
  PetscCall(MatRestoreRowIJ(PG, 0, PETSC_FALSE, PETSC_FALSE, &pm, &pi, &pj, &done));
  PetscCall(MatDestroy(&PG));
  PetscFunctionReturn(0);
}

/* whether u and v are within one edge of each other (v == u included) */
static PetscBool Near(const PetscInt *gi, const PetscInt *gj, PetscInt u, PetscInt v)
{
  if (u == v) return PETSC_TRUE;
  for (PetscInt k = gi[u]; k < gi[u + 1]; k++)
    if (gj[k] == v) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* the rules of the aggregates (the file's head) */
static PetscErrorCode CheckAggregates(PetscInt m, const PetscInt *gi, const PetscInt *gj, PetscInt dist, const PetscInt *agg, const PetscInt *roots,
                                      PetscInt nagg)
{
  PetscInt *size;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nagg + 1, &size));
  for (PetscInt a = 0; a < nagg; a++) {
    PetscCheck(roots[a] >= 0 && roots[a] < m && agg[roots[a]] == a, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Root %" PetscInt_FMT " of aggregate %" PetscInt_FMT " is not in it", roots[a], a);
    PetscCheck(!a || roots[a] > roots[a - 1], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The aggregates are not numbered in their roots' order");
  }
  for (PetscInt v = 0; v < m; v++) {
    PetscBool linked = PETSC_FALSE;

    for (PetscInt k = gi[v]; k < gi[v + 1]; k++) linked = (PetscBool)(linked || gj[k] != v);
    PetscCheck(agg[v] >= -1 && agg[v] < nagg, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Vertex %" PetscInt_FMT " in aggregate %" PetscInt_FMT " of %" PetscInt_FMT, v, agg[v], nagg);
    PetscCheck((agg[v] >= 0) == linked, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vertex %" PetscInt_FMT " %s an edge but %s aggregated", v,
               linked ? "has" : "has no", agg[v] >= 0 ? "is" : "is not");
    if (agg[v] < 0) continue;
    size[agg[v]]++;
    if (dist == 1)
      PetscCheck(Near(gi, gj, v, roots[agg[v]]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "Vertex %" PetscInt_FMT " is not next to its root %" PetscInt_FMT,
                 v, roots[agg[v]]);
    else {
      PetscBool through = Near(gi, gj, v, roots[agg[v]]);

      for (PetscInt k = gi[v]; k < gi[v + 1] && !through; k++) through = (PetscBool)(agg[gj[k]] == agg[v] && Near(gi, gj, gj[k], roots[agg[v]]));
      PetscCheck(through, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "Vertex %" PetscInt_FMT " is not within two edges of its root %" PetscInt_FMT " through its aggregate", v, roots[agg[v]]);
    }
  }
  for (PetscInt a = 0; a < nagg; a++) /* independence: no root within dist edges of another */
    for (PetscInt k = gi[roots[a]]; k < gi[roots[a] + 1]; k++) {
      const PetscInt u = gj[k];

      PetscCheck(u == roots[a] || agg[u] < 0 || roots[agg[u]] != u, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "Roots %" PetscInt_FMT " and %" PetscInt_FMT " are adjacent", roots[a], u);
      if (dist == 2)
        for (PetscInt l = gi[u]; l < gi[u + 1]; l++) {
          const PetscInt w = gj[l];

          PetscCheck(w == roots[a] || agg[w] < 0 || roots[agg[w]] != w, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "Roots %" PetscInt_FMT " and %" PetscInt_FMT " are within two edges", roots[a], w);
        }
    }
  if (nagg) {
    PetscInt lo = m, hi = 0;

    for (PetscInt a = 0; a < nagg; a++) {
      lo = PetscMin(lo, size[a]);
      hi = PetscMax(hi, size[a]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "aggregates: %" PetscInt_FMT " of %" PetscInt_FMT " vertices (MIS%s), %" PetscInt_FMT " to %" PetscInt_FMT
                          " vertices each\n",
                          nagg, m, dist == 2 ? "-2" : "", lo, hi));
  } else PetscCall(PetscPrintf(PETSC_COMM_SELF, "aggregates: none of %" PetscInt_FMT " vertices\n", m));
  PetscCall(PetscFree(size));
  PetscFunctionReturn(0);
}

/* A's CSR copied to the device (m rows and columns) */
static PetscErrorCode CsrToDevice(Mat A, GKCsr *d)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  d->m = d->n = m;
  d->nnz      = ai[m];
  PetscCall(GKMallocH2D(m + 1, ai, &d->i));
  PetscCall(GKMallocH2D(d->nnz, aj, &d->j));
  PetscCall(GKMallocH2D(d->nnz, aa, &d->a));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscFunctionReturn(0);
}

/* PETSc's smoothing step on AIJ: T = P0 + alpha D^-1 (A P0) */
static PetscErrorCode PETScSmoothed(Mat A, Mat P0, PetscReal alpha, Mat *T)
{
  Vec dinv;

  PetscFunctionBegin;
  PetscCall(MatAssemblyBegin(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(A, P0, MAT_INITIAL_MATRIX, PETSC_DEFAULT, T));
  PetscCall(MatCreateVecs(A, &dinv, NULL));
  PetscCall(MatGetDiagonal(A, dinv));
  PetscCall(VecReciprocal(dinv));
  PetscCall(MatDiagonalScale(*T, dinv, NULL));
  PetscCall(MatAYPX(*T, alpha, P0, SUBSET_NONZERO_PATTERN));
  PetscCall(VecDestroy(&dinv));
  PetscFunctionReturn(0);
}

/* The smoothed prolongator dP (device) against PETSc's T on AIJ: the same rows, columns in order,
   and values to tol relative to the larger of PETSc's and floor */
static PetscErrorCode SameProlongator(Mat T, const GKCsr *dP, PetscReal tol, PetscReal floor)
{
  PetscInt        m, pm, *si, *sj;
  const PetscInt *ti, *tj;
  PetscScalar    *sa, *ta;
  PetscReal       err = 0;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatGetSize(T, &m, NULL));
  PetscCall(PetscMalloc3(m + 1, &si, dP->nnz, &sj, dP->nnz, &sa));
  PetscCall(GKMemcpyD2H(si, dP->i, sizeof(PetscInt) * (size_t)(m + 1)));
  PetscCall(GKMemcpyD2H(sj, dP->j, sizeof(PetscInt) * (size_t)dP->nnz));
  PetscCall(GKMemcpyD2H(sa, dP->a, sizeof(PetscScalar) * (size_t)dP->nnz));
  PetscCall(MatGetRowIJ(T, 0, PETSC_FALSE, PETSC_FALSE, &pm, &ti, &tj, &done));
  PetscCall(MatSeqAIJGetArray(T, &ta));
  PetscCheck(dP->m == m && dP->n == T->cmap->n && dP->nnz == ti[m], PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "The smoothed prolongator has %" PetscInt_FMT " entries, PETSc's %" PetscInt_FMT, dP->nnz, ti[m]);
  for (PetscInt v = 0; v < m; v++) {
    PetscCheck(si[v] == ti[v], PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "Row %" PetscInt_FMT " of the smoothed prolongator starts at %" PetscInt_FMT ", PETSc's at %" PetscInt_FMT, v, si[v], ti[v]);
    for (PetscInt k = si[v]; k < si[v + 1]; k++) {
      PetscCheck(sj[k] == tj[k], PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "Row %" PetscInt_FMT " of the smoothed prolongator has column %" PetscInt_FMT " where PETSc's has %" PetscInt_FMT, v, sj[k], tj[k]);
      err = PetscMax(err, PetscAbsScalar(sa[k] - ta[k]) / PetscMax(PetscAbsScalar(ta[k]), floor));
    }
  }
  PetscCheck(err <= tol, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The smoothed prolongator's values differ from PETSc's by %g (relative)", (double)err);
  PetscCall(MatSeqAIJRestoreArray(T, &ta));
  PetscCall(MatRestoreRowIJ(T, 0, PETSC_FALSE, PETSC_FALSE, &pm, &ti, &tj, &done));
  PetscCall(PetscFree3(si, sj, sa));
  PetscFunctionReturn(0);
}

/* Block size bs and nv near-null-space vectors (the backend's collapse, tentativeblock and
   smoothblock): A made A (x) K, K bs x bs and dense, so that PETSc's graph of it is a graph of its
   blocks; the graph held to PETSc's, the aggregates to the rules, Q R to the nv vectors (each
   aggregate's R upper triangular, Q's columns orthonormal where the aggregate has nv rows or
   more), the smoothing step to PETSc's P0 + alpha D^-1 A P0 on AIJ */
static PetscErrorCode BlockChecks(Mat A1, PetscInt bs, PetscInt nv, PetscBool sym, PetscReal thr, PetscInt dist)
{
  Mat                     A, P0, T;
  PetscInt                n1, m, nn, nagg, *dagg, *agg, *roots, *gi, *gj, ndiag, pm;
  GKCsr                   dA = {0, 0, 0, NULL, NULL, NULL}, dC = dA, dG = dA, dP = dA;
  const PetscInt         *ai, *aj;
  const PetscScalar      *aa;
  PetscScalar            *pv, *dp;
  PetscReal              *b, *r, *db, *dr, alpha = -0.7;
  PetscBool               done, mirrored;
  PetscGPUKitDeviceCounts c0, c1;

  PetscFunctionBegin;
  PetscCheck(GKDev->collapse && GKDev->tentativeblock && GKDev->smoothblock, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "The %s backend has no aggregation of block size above 1", GKDev->name);
  PetscCall(MatGetSize(A1, &n1, NULL));
  nn = n1;
  m  = n1 * bs;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, m, 0, NULL, &A));
  PetscCall(MatSetBlockSize(A, bs));
  PetscCall(MatGetRowIJ(A1, 0, PETSC_FALSE, PETSC_FALSE, &pm, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A1, &aa));
  {
    PetscInt *len;

    PetscCall(PetscMalloc1(m, &len));
    for (PetscInt i = 0; i < m; i++) len[i] = (ai[i / bs + 1] - ai[i / bs]) * bs;
    PetscCall(MatSeqAIJSetPreallocation(A, 0, len));
    PetscCall(PetscFree(len));
  }
  for (PetscInt u = 0; u < nn; u++)
    for (PetscInt k = ai[u]; k < ai[u + 1]; k++)
      for (PetscInt x = 0; x < bs; x++)
        for (PetscInt y = 0; y < bs; y++) PetscCall(MatSetValue(A, u * bs + x, aj[k] * bs + y, aa[k] * (x == y ? bs + 1.0 : 1.0), INSERT_VALUES));
  PetscCall(MatSeqAIJRestoreArrayRead(A1, &aa));
  PetscCall(MatRestoreRowIJ(A1, 0, PETSC_FALSE, PETSC_FALSE, &pm, &ai, &aj, &done));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  /* the graph of the blocks, against PETSc's */
  PetscCall(CsrToDevice(A, &dA));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->collapse(&dA, bs, &dC));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "collapse: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  PetscCall(GKDev->strength(&dC, NULL, sym, thr, &dG, &mirrored));
  PetscCheck(mirrored && dG.m == nn, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The graph of the blocks was not made");
  PetscCall(PetscMalloc2(nn + 1, &gi, dG.nnz, &gj));
  PetscCall(GKMemcpyD2H(gi, dG.i, sizeof(PetscInt) * (size_t)(nn + 1)));
  PetscCall(GKMemcpyD2H(gj, dG.j, sizeof(PetscInt) * (size_t)dG.nnz));
  PetscCall(SameGraph(A, sym, thr, nn, gi, gj, &ndiag));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "graph of %" PetscInt_FMT " x %" PetscInt_FMT " blocks: %" PetscInt_FMT " off-diagonal entries, as PETSc's\n", bs, bs,
                        dG.nnz - ndiag));

  /* the aggregates of the nodes */
  PetscCall(GKMalloc(2 * nn, &dagg));
  PetscCall(GKDev->aggregate(nn, dG.i, dG.j, dist, NULL, dagg, dagg + nn, &nagg));
  PetscCall(PetscMalloc2(nn, &agg, nn, &roots));
  PetscCall(GKMemcpyD2H(agg, dagg, sizeof(PetscInt) * (size_t)nn));
  PetscCall(GKMemcpyD2H(roots, dagg + nn, sizeof(PetscInt) * (size_t)nagg));
  PetscCall(CheckAggregates(nn, gi, gj, dist, agg, roots, nagg));

  /* Q R of nv vectors, with zeros */
  PetscCall(PetscMalloc3(m * nv, &b, m * nv, &pv, nagg * nv * nv, &r));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = 0; k < nv; k++)
      b[i + k * m] = (i + 2 * k) % 5 == 3 ? 0.0 : PetscSinReal(0.7 * i + 1.3 * k * k + 0.2) + (k == i % bs ? 1.5 : 0.0);
  PetscCall(GKMallocH2D(m * nv, b, &db));
  PetscCall(GKMalloc(m * nv, &dp));
  PetscCall(GKMalloc(nagg * nv * nv, &dr));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->tentativeblock(nn, bs, nv, dagg, nagg, db, dp, dr));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tentativeblock: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  PetscCall(GKMemcpyD2H(pv, dp, sizeof(PetscScalar) * (size_t)(m * nv)));
  PetscCall(GKMemcpyD2H(r, dr, sizeof(PetscReal) * (size_t)(nagg * nv * nv)));
  {
    const PetscInt ldr = nagg * nv;
    PetscInt      *rows;
    PetscReal      worst = 0, scale = 0;

    PetscCall(PetscCalloc1(nagg, &rows));
    for (PetscInt i = 0; i < m * nv; i++) scale = PetscMax(scale, PetscAbsReal(b[i]));
    for (PetscInt a = 0; a < nagg; a++)
      for (PetscInt k = 0; k < nv; k++)
        for (PetscInt i = k + 1; i < nv; i++)
          PetscCheck(r[a * nv + i + k * ldr] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "R of aggregate %" PetscInt_FMT " is not upper triangular", a);
    for (PetscInt i = 0; i < m; i++) {
      const PetscInt a = agg[i / bs];

      if (a < 0) {
        for (PetscInt k = 0; k < nv; k++)
          PetscCheck(pv[i * nv + k] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " in no aggregate has values", i);
        continue;
      }
      rows[a]++;
      for (PetscInt j = 0; j < nv; j++) { /* (Q R)_ij = b_ij */
        PetscReal qr = 0;

        for (PetscInt k = 0; k <= j; k++) qr += PetscRealPart(pv[i * nv + k]) * r[a * nv + k + j * ldr];
        worst = PetscMax(worst, PetscAbsReal(qr - b[i + j * m]));
      }
    }
    PetscCheck(worst <= 1e-13 * scale, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Q R differs from the vectors by %g", (double)worst);
    for (PetscInt a = 0; a < nagg; a++) { /* Q^T Q = I where the aggregate has nv rows or more */
      if (rows[a] < nv) continue;
      for (PetscInt k = 0; k < nv; k++)
        for (PetscInt l = 0; l < nv; l++) {
          PetscReal dot = 0;

          for (PetscInt i = 0; i < m; i++)
            if (agg[i / bs] == a) dot += PetscRealPart(pv[i * nv + k] * pv[i * nv + l]);
          PetscCheck(PetscAbsReal(dot - (k == l)) <= 1e-13, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                     "Columns %" PetscInt_FMT ", %" PetscInt_FMT " of aggregate %" PetscInt_FMT "'s Q: %g", k, l, a, (double)dot);
        }
    }
    PetscCall(PetscFree(rows));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "tentativeblock: Q R = the vectors, R upper triangular, Q's columns orthonormal\n"));
  }

  /* the smoothing step, against PETSc's on AIJ */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, nagg * nv, nv, NULL, &P0));
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt k = 0; k < nv && agg[i / bs] >= 0; k++) PetscCall(MatSetValue(P0, i, agg[i / bs] * nv + k, pv[i * nv + k], INSERT_VALUES));
  PetscCall(PETScSmoothed(A, P0, alpha, &T));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->smoothblock(&dA, bs, nv, dagg, dp, nagg, alpha, &dP));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "smoothblock: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  PetscCall(SameProlongator(T, &dP, 1e-12, 1e-12));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "smoothblock: %" PetscInt_FMT " entries, PETSc's pattern and values\n", dP.nnz));

  PetscCall(PetscFree3(b, pv, r));
  PetscCall(PetscFree2(agg, roots));
  PetscCall(PetscFree2(gi, gj));
  PetscCall(GKFree(db));
  PetscCall(GKFree(dp));
  PetscCall(GKFree(dr));
  PetscCall(GKFree(dagg));
  for (GKCsr *c = &dA; c; c = c == &dA ? &dC : c == &dC ? &dG : c == &dG ? &dP : NULL) {
    PetscCall(GKFree(c->i));
    PetscCall(GKFree(c->j));
    PetscCall(GKFree(c->a));
  }
  PetscCall(MatDestroy(&T));
  PetscCall(MatDestroy(&P0));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Problem                 p = LAP2D;
  PetscInt                n = 10, dist = 1, m, nagg, *agg, *roots, *dagg, *gi, *gj, ndiag = 0;
  PetscReal               thr = -1, *b, *r, *db, *dr;
  PetscInt                bs = 1, nv = 1;
  PetscBool               sym = PETSC_TRUE, mirrored;
  Mat                     A;
  GKCsr                   dA = {0, 0, 0, NULL, NULL, NULL}, dG = dA;
  PetscScalar            *pv, *dp;
  PetscGPUKitBackendType  backend;
  PetscGPUKitDeviceCounts c0, c1;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-problem", Problems, (PetscEnum *)&p, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dist", &dist, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-threshold", &thr, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-symmetrize", &sym, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-bs", &bs, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nv", &nv, NULL));
  PetscCall(PetscGPUKitGetBackend(&backend));
  PetscCall(MakeProblem(p, n, &A));
  if (bs > 1 || nv > 1) {
    PetscCall(BlockChecks(A, bs, nv, sym, thr, dist));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCall(MatGetSize(A, &m, NULL));

  /* the graph, against PETSc's */
  PetscCall(CsrToDevice(A, &dA));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->strength(&dA, NULL, sym, thr, &dG, &mirrored));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "strength: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  if (!mirrored) {
    PetscCheck(sym, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Without symmetrizing, the graph needs no mirrors");
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "graph: the pattern is not symmetric: not made\n"));
    PetscCall(GKFree(dA.i));
    PetscCall(GKFree(dA.j));
    PetscCall(GKFree(dA.a));
    PetscCall(MatDestroy(&A));
    PetscCall(PetscFinalize());
    return 0;
  }
  PetscCheck(dG.m == m && !dG.a, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The graph has %" PetscInt_FMT " rows", dG.m);
  PetscCall(PetscMalloc2(m + 1, &gi, dG.nnz, &gj));
  PetscCall(GKMemcpyD2H(gi, dG.i, sizeof(PetscInt) * (size_t)(m + 1)));
  PetscCall(GKMemcpyD2H(gj, dG.j, sizeof(PetscInt) * (size_t)dG.nnz));
  PetscCall(SameGraph(A, sym, thr, m, gi, gj, &ndiag));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "graph: %" PetscInt_FMT " off-diagonal entries of %" PetscInt_FMT ", as PETSc's; %" PetscInt_FMT " diagonal\n",
                        dG.nnz - ndiag, dA.nnz, ndiag));

  /* the aggregates */
  PetscCall(GKMalloc(2 * m, &dagg));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->aggregate(m, dG.i, dG.j, dist, NULL, dagg, dagg + m, &nagg));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "aggregate: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  PetscCall(PetscMalloc2(m, &agg, m, &roots));
  PetscCall(GKMemcpyD2H(agg, dagg, sizeof(PetscInt) * (size_t)m));
  PetscCall(GKMemcpyD2H(roots, dagg + m, sizeof(PetscInt) * (size_t)nagg));
  PetscCall(CheckAggregates(m, gi, gj, dist, agg, roots, nagg));

  /* the tentative prolongator of a vector that is not constant, with zeros */
  PetscCall(PetscMalloc3(m, &b, m, &pv, nagg, &r));
  for (PetscInt v = 0; v < m; v++) b[v] = v % 5 == 3 ? 0.0 : (v % 2 ? -1.0 : 1.0) * (1.0 + (v % 7) / 4.0);
  PetscCall(GKMallocH2D(m, b, &db));
  PetscCall(GKMalloc(m, &dp));
  PetscCall(GKMalloc(nagg, &dr));
  PetscCall(PetscGPUKitGetDeviceCounts(&c0));
  PetscCall(GKDev->tentative(m, dagg, nagg, db, dp, dr));
  PetscCall(PetscGPUKitGetDeviceCounts(&c1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "tentative: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
  PetscCall(GKMemcpyD2H(pv, dp, sizeof(PetscScalar) * (size_t)m));
  PetscCall(GKMemcpyD2H(r, dr, sizeof(PetscReal) * (size_t)nagg));
  {
    PetscReal *norm2;

    PetscCall(PetscCalloc1(nagg, &norm2));
    for (PetscInt v = 0; v < m; v++) {
      if (agg[v] < 0) {
        PetscCheck(pv[v] == 0.0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " in no aggregate has P's value %g", v,
                   (double)PetscRealPart(pv[v]));
        continue;
      }
      PetscCheck(PetscAbsReal(PetscRealPart(pv[v]) * r[agg[v]] - b[v]) <= 1e-14 * 3.0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "Row %" PetscInt_FMT ": P r = %g, b = %g", v, (double)(PetscRealPart(pv[v]) * r[agg[v]]), (double)b[v]);
      norm2[agg[v]] += PetscRealPart(pv[v] * pv[v]);
    }
    for (PetscInt a = 0; a < nagg; a++)
      PetscCheck(PetscAbsReal(norm2[a] - 1.0) <= 1e-14, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Column %" PetscInt_FMT " of P has norm^2 %g", a,
                 (double)norm2[a]);
    PetscCall(PetscFree(norm2));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "tentative: P r = b, P's columns orthonormal\n"));
  }

  /* the smoothing step, against PETSc's on AIJ: P0 + alpha D^-1 (A P0) */
  if (nagg) {
    Mat       P0, T;
    GKCsr     dP    = dA;
    PetscReal alpha = -0.7;

    PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, nagg, 1, NULL, &P0));
    for (PetscInt v = 0; v < m; v++)
      if (agg[v] >= 0) PetscCall(MatSetValue(P0, v, agg[v], pv[v], INSERT_VALUES));
    PetscCall(PETScSmoothed(A, P0, alpha, &T));
    PetscCall(PetscGPUKitGetDeviceCounts(&c0));
    PetscCall(GKDev->smooth(&dA, dagg, dp, nagg, alpha, &dP));
    PetscCall(PetscGPUKitGetDeviceCounts(&c1));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "smooth: %g launches, %g waits\n", c1.launches - c0.launches, c1.syncs - c0.syncs));
    PetscCall(SameProlongator(T, &dP, 1e-13, 1e-300));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "smooth: %" PetscInt_FMT " entries, PETSc's pattern and values\n", dP.nnz));
    PetscCall(GKFree(dP.i));
    PetscCall(GKFree(dP.j));
    PetscCall(GKFree(dP.a));
    PetscCall(MatDestroy(&T));
    PetscCall(MatDestroy(&P0));
  }

  PetscCall(PetscFree3(b, pv, r));
  PetscCall(GKFree(db));
  PetscCall(GKFree(dp));
  PetscCall(GKFree(dr));
  PetscCall(GKFree(dagg));
  PetscCall(PetscFree2(agg, roots));
  PetscCall(PetscFree2(gi, gj));
  PetscCall(GKFree(dG.i));
  PetscCall(GKFree(dG.j));
  PetscCall(GKFree(dA.i));
  PetscCall(GKFree(dA.j));
  PetscCall(GKFree(dA.a));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # each case's output is the same on both backends: the twin's aggregates are the kernels'
  testset:
    args: -gpukit_backend {{host cuda}shared output}
    test:
      suffix: lap2d
      args: -problem lap2d -n 40 -dist {{1 2}separate output}
    test:
      suffix: lap3d
      args: -problem lap3d -n 14 -dist {{1 2}separate output}
    test:
      suffix: aniso
      args: -problem aniso -n 30 -threshold 0.1
    test:
      suffix: random
      args: -problem random -n 600 -threshold {{-1 0.05}separate output} -dist {{1 2}separate output}
    test:
      suffix: nonsym
      args: -problem nonsym -n 8 -symmetrize {{0 1}separate output}
    test:
      suffix: chain
      args: -problem chain -n 1000 -dist {{1 2}separate output}
    test:
      suffix: one
      args: -problem one

  # block size 3 (as elasticity's) and nv near-null-space vectors: 6 (the rigid-body modes: the
  # lone nodes' aggregates fewer rows than vectors), or 2
  testset:
    args: -gpukit_backend {{host cuda}shared output} -bs 3
    test:
      suffix: block_lap2d
      args: -problem lap2d -n 12 -nv {{6 2}separate output} -dist {{1 2}separate output}
    test:
      suffix: block_lap3d
      args: -problem lap3d -n 6 -nv 6
    test:
      suffix: block_aniso
      args: -problem aniso -n 10 -threshold 0.1 -nv 6
    test:
      suffix: block_chain
      args: -problem chain -n 50 -nv {{1 6}separate output}

TEST*/

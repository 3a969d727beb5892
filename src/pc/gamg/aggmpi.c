/*
   PCGAMG's aggregation on several processes (agggpu.c's levels whose matrix is split between
   processes): each process makes its rows of the strength graph and coarsens them on its
   device, the rounds of the maximal independent set exchanging the boundary's states with the
   processes next to it, and makes its rows of the tentative prolongator.

   The graph is made on the devices where the level's matrix has block size 1 and its weights are
   symmetric (symmetrized, or the matrix known symmetric): the backend's strength takes the
   diagonal block's device CSR and the off-diagonal block's weights, whose mirrors (a_Ji of an
   entry a_iJ) come from the columns' owners (gkgraph.c, one PetscSF gather of the halo's size),
   and each ghost's scale comes from its owner (the halo's exchange); the rows kept are PETSc's
   (MatCreateGraph() and its filter), entry for entry. Elsewhere the graph is PETSc's MPIAIJ one
   (which the device matrices give without PETSc's transpose where their pattern is symmetric),
   made local here. Either way the backend's aggregate takes this process's rows with local
   columns (the diagonal block's, then the ghosts' after them) and a halo (device.h, GKAggHalo):
   the ghosts' global numbers for their keys, the local vertices other processes hold as ghosts,
   and the exchange between the processes (a PetscSF from the send list to the ghosts). The keys
   hash global numbers and every round reads the last round's states on both sides of the
   boundary, so the roots and the aggregates are those of one process holding the whole graph,
   however the rows are split.

   An aggregate may hold rows of several processes (a vertex joins the root next to it wherever
   that root is). Its nodes' rows of the near null space are gathered at the aggregate's owner (a
   PetscSF from each node to its aggregate), put in ascending order, and the owner's aggregates
   made a problem of their own for the backend's tentative or tentativeblock (device.h: the QR
   one process makes, in the same order, so the same values); each node's rows of Q go back where
   the node is. The prolongator's smoothing step, P = P0 + alpha D^-1 A P0, is one process's
   (the backend's smoothblock) on this process's rows [Ad Ao] of A: the ghosts' aggregates and
   values of P0 come from their owners through a PetscSF of A's ghost columns, and the smoothed
   rows, whose columns are the aggregates' global numbers, are written into the blocks of a
   matrix of the level's type whole, in place of PETSc's step (MatMatMult(), MatDiagonalScale(),
   then MatAYPX(), which MPIAIJ makes a row at a time on the host).
*/
#include "include/gpukitimpl.h"
#include "mat/impls/gk/gkmat.h"
#include "aggmpi.h"
#include <petscsf.h>
#include <petsc/private/matimpl.h>

static PetscErrorCode GKAggMPIExchange(void *ctx, size_t unit, const void *send, void *recv)
{
  GKAggMPIExch *x = (GKAggMPIExch *)ctx;
  MPI_Datatype  t = unit == 1 ? MPI_SIGNED_CHAR : unit == sizeof(PetscInt) ? MPIU_INT : MPIU_INT64;

  PetscFunctionBegin;
  PetscCheck(unit == 1 || unit == sizeof(PetscInt) || unit == sizeof(PetscInt64), PETSC_COMM_SELF, PETSC_ERR_PLIB, "No exchange of %zu-byte units",
             unit);
  PetscCall(PetscSFBcastBegin(x->sf, t, send, recv, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(x->sf, t, send, recv, MPI_REPLACE));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKAggMPISum(void *ctx, PetscInt *n)
{
  GKAggMPIExch *x = (GKAggMPIExch *)ctx;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, n, 1, MPIU_INT, MPI_SUM, x->comm));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKAggMPIOffset(void *ctx, PetscInt n, PetscInt *start)
{
  GKAggMPIExch *x = (GKAggMPIExch *)ctx;
  PetscMPIInt   rank;

  PetscFunctionBegin;
  *start = 0;
  PetscCallMPI(MPI_Exscan(&n, start, 1, MPIU_INT, MPI_SUM, x->comm));
  PetscCallMPI(MPI_Comm_rank(x->comm, &rank));
  if (!rank) *start = 0; /* MPI_Exscan leaves the first process's undefined */
  PetscFunctionReturn(0);
}

/* The send list of a halo of ng ghosts (global numbers garray, rows of the layout map): the rows
   of this process some process holds as a ghost, numbered in their order, and the PetscSF from
   that list (roots) to the ghosts (leaves) */
static PetscErrorCode GKAggMPISendList(PetscLayout map, PetscInt ng, const PetscInt *garray, PetscInt **send, PetscInt *nsend, PetscSF *sf2)
{
  const PetscInt    *degree;
  PetscInt           m = map->n, ns = 0, *cidx, *lidx, nroots, nleaves;
  PetscSF            sf;
  const PetscSFNode *iremote;
  PetscSFNode       *iremote2;

  PetscFunctionBegin;
  PetscCall(PetscSFCreate(map->comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, map, ng, NULL, PETSC_COPY_VALUES, garray));
  PetscCall(PetscSFComputeDegreeBegin(sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(sf, &degree));
  PetscCall(PetscMalloc2(m, &cidx, ng, &lidx));
  for (PetscInt v = 0; v < m; v++) cidx[v] = degree[v] ? ns++ : -1;
  PetscCall(PetscMalloc1(ns, send));
  for (PetscInt v = 0; v < m; v++)
    if (cidx[v] >= 0) (*send)[cidx[v]] = v;
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, cidx, lidx, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, cidx, lidx, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(sf, &nroots, &nleaves, NULL, &iremote));
  PetscCall(PetscMalloc1(ng, &iremote2));
  for (PetscInt g = 0; g < ng; g++) {
    iremote2[g].rank  = iremote[g].rank;
    iremote2[g].index = lidx[g];
  }
  PetscCall(PetscSFCreate(map->comm, sf2));
  PetscCall(PetscSFSetGraph(*sf2, ns, ng, NULL, PETSC_COPY_VALUES, iremote2, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf2));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree2(cidx, lidx));
  *nsend = ns;
  PetscFunctionReturn(0);
}

/* A graph's halo in device memory (GKAggMPIGraph's): the vertices' global numbers (this
   process's rows from rstart, then the ghosts', garray), the send list and the exchange */
static PetscErrorCode GKAggMPIGraphHalo(PetscLayout map, PetscInt ng, const PetscInt *garray, GKAggMPIGraph *c)
{
  PetscInt *hgid, *hsend, ns = 0;

  PetscFunctionBegin;
  PetscCall(GKAggMPISendList(map, ng, garray, &hsend, &ns, &c->x.sf));
  c->x.comm = map->comm;
  PetscCall(PetscMalloc1(map->n + ng, &hgid));
  for (PetscInt v = 0; v < map->n; v++) hgid[v] = map->rstart + v;
  for (PetscInt g = 0; g < ng; g++) hgid[map->n + g] = garray[g];
  PetscCall(GKMallocH2D(map->n + ng, hgid, &c->gid));
  PetscCall(GKMallocH2D(ns, hsend, &c->send));
  PetscCall(PetscFree(hgid));
  PetscCall(PetscFree(hsend));
  c->h.nghost   = ng;
  c->h.nsend    = ns;
  c->h.gid      = c->gid;
  c->h.send     = c->send;
  c->h.ctx      = &c->x;
  c->h.exchange = GKAggMPIExchange;
  c->h.sum      = GKAggMPISum;
  c->h.offset   = GKAggMPIOffset;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKAggMPIGraphFree(GKAggMPIGraph *c)
{
  PetscFunctionBegin;
  PetscCall(GKFree(c->g.i));
  PetscCall(GKFree(c->g.j));
  PetscCall(GKFree(c->gid));
  PetscCall(GKFree(c->send));
  PetscCall(PetscSFDestroy(&c->x.sf));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKAggMPIGraphShellDestroy(void *arg)
{
  GKAggMPIGraph *c = (GKAggMPIGraph *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GKAggMPIGraphFree(c));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(0);
}

/* The graph G (MPIAIJ, square) as the halo takes it: its rows' columns made local (the diagonal
   block's, then m + the ghosts' after them), copied to the device, with its halo */
static PetscErrorCode GKAggMPIGraphFromMPIAIJ(Mat G, GKAggMPIGraph *c)
{
  Mat             Gd, Go;
  const PetscInt *garray, *di, *dj, *oi, *oj;
  PetscInt        m, ng, nd, no, *hi, *hj;
  PetscBool       done;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(G, &Gd, &Go, &garray));
  PetscCall(MatGetLocalSize(G, &m, NULL));
  PetscCall(MatGetSize(Go, NULL, &ng));
  PetscCall(MatGetRowIJ(Gd, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCheck(done && nd == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the graph's diagonal block");
  PetscCall(MatGetRowIJ(Go, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  PetscCheck(done && no == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the graph's off-diagonal block");
  PetscCall(PetscMalloc2(m + 1, &hi, di[m] + oi[m], &hj));
  hi[0] = 0;
  for (PetscInt v = 0; v < m; v++) {
    PetscInt k = hi[v];

    for (PetscInt e = di[v]; e < di[v + 1]; e++) hj[k++] = dj[e];
    for (PetscInt e = oi[v]; e < oi[v + 1]; e++) hj[k++] = m + oj[e];
    hi[v + 1] = k;
  }
  PetscCall(MatRestoreRowIJ(Gd, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCall(MatRestoreRowIJ(Go, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  c->g.m   = m;
  c->g.n   = m + ng;
  c->g.nnz = hi[m];
  PetscCall(GKMallocH2D(m + 1, hi, &c->g.i));
  PetscCall(GKMallocH2D(hi[m], hj, &c->g.j));
  PetscCall(PetscFree2(hi, hj));
  PetscCall(GKAggMPIGraphHalo(G->rmap, ng, garray, c));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUGraphMPI_Private(Mat A, PetscBool sym, PetscReal thr, Mat *G)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  Mat             Ad, Ao;
  const PetscInt *garray;
  PetscInt        bs, m = A->rmap->n, ng, *oi, *oj, *doi, *doj;
  PetscReal      *ow, *dow;
  PetscBool       ok, mirrored;
  PetscMPIInt     mine;
  GKCsr           dA = {0, 0, 0, NULL, NULL, NULL};
  GKStrengthHalo  sh;
  GKAggMPIGraph  *c;

  PetscFunctionBegin;
  *G = NULL;
  PetscCall(MatGetBlockSize(A, &bs));
  mine = bs == 1 && A->rmap->rstart == A->cmap->rstart && m == A->cmap->n;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MIN, comm));
  if (!mine) PetscFunctionReturn(0);
  PetscCall(MatGKGraphOffDiagonal_Private(A, sym, &oi, &oj, &ow, &ok));
  if (!ok) PetscFunctionReturn(0);
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, &garray));
  PetscCall(MatGetSize(Ao, NULL, &ng));
  PetscCall(PetscNew(&c));
  PetscCall(GKAggMPIGraphHalo(A->rmap, ng, garray, c));
  PetscCall(GKMallocH2D(m + 1, oi, &doi));
  PetscCall(GKMallocH2D(oi[m], oj, &doj));
  PetscCall(GKMallocH2D(oi[m], ow, &dow));
  PetscCall(PetscFree3(oi, oj, ow));
  sh.halo = &c->h;
  sh.oi   = doi;
  sh.oj   = doj;
  sh.ow   = dow;
  PetscCall(MatSeqGKCsrToDevice_Private(Ad, &dA));
  PetscCall(GKDev->strength(&dA, &sh, sym, thr, &c->g, &mirrored));
  PetscCall(MatSeqGKReleaseCsr_Private(Ad, &dA));
  PetscCall(GKFree(doi));
  PetscCall(GKFree(doj));
  PetscCall(GKFree(dow));
  mine = mirrored;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MIN, comm));
  if (!mine) {
    PetscCall(GKAggMPIGraphFree(c));
    PetscCall(PetscFree(c));
    PetscFunctionReturn(0);
  }
  PetscCall(MatCreateShell(comm, m, m, A->rmap->N, A->rmap->N, c, G));
  PetscCall(MatShellSetContextDestroy(*G, GKAggMPIGraphShellDestroy));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUAggregateMPI_Private(Mat G, PetscInt dist, PetscInt **dagg, PetscInt *nagg)
{
  GKAggMPIGraph *c, own;
  PetscBool      shell;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)G, MATSHELL, &shell));
  if (shell) PetscCall(MatShellGetContext(G, &c));
  else {
    PetscCall(PetscMemzero(&own, sizeof(own)));
    PetscCall(GKAggMPIGraphFromMPIAIJ(G, &own));
    c = &own;
  }
  PetscCall(GKMalloc(2 * c->g.m, dagg));
  PetscCall(GKDev->aggregate(c->g.m, c->g.i, c->g.j, dist, &c->h, *dagg, *dagg + c->g.m, nagg));
  if (!shell) PetscCall(GKAggMPIGraphFree(&own));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUTentativeMPI_Private(Mat A, PetscInt bs, PetscInt nv, const PetscInt *dagg, PetscInt nagg, const PetscReal *b,
                                                GKAggMPITentative *t, PetscReal **r)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt  m = A->rmap->n, nn = m / bs, nstart = A->rmap->rstart / bs, w = bs * nv;
  PetscInt        nl = 0, nin = 0, astart, *agg, *ilocal, *remote, *gnode, *inode, *perm, *cagg, *dcagg, mc;
  const PetscInt *degree;
  PetscReal      *leaf, *in, *cb, *dcb, *dr;
  PetscScalar    *pl, *pm, *pc, *dp;
  PetscLayout     alay;
  PetscSF         sf;
  MPI_Datatype    unit;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nn, &agg));
  PetscCall(GKMemcpyD2H(agg, dagg, sizeof(PetscInt) * (size_t)nn));
  PetscCall(PetscLayoutCreate(comm, &alay));
  PetscCall(PetscLayoutSetLocalSize(alay, nagg));
  PetscCall(PetscLayoutSetUp(alay));
  PetscCall(PetscLayoutGetRange(alay, &astart, NULL));
  for (PetscInt v = 0; v < nn; v++) nl += agg[v] >= 0;
  PetscCall(PetscMalloc4(nl, &ilocal, nl, &remote, nn, &gnode, nn * w, &leaf));
  PetscCall(PetscCalloc1(nn * w, &pl)); /* zero in the rows of no aggregate */
  nl = 0;
  for (PetscInt v = 0; v < nn; v++) { /* a node's bs rows of the nv vectors, by row */
    gnode[v] = nstart + v;
    for (PetscInt i = 0; i < bs; i++)
      for (PetscInt k = 0; k < nv; k++) leaf[v * w + i * nv + k] = b[v * bs + i + k * m];
    if (agg[v] < 0) continue;
    ilocal[nl]   = v;
    remote[nl++] = agg[v];
  }
  /* each node (a leaf) on its aggregate (a root at the aggregate's owner); its rows gathered there */
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, alay, nl, ilocal, PETSC_COPY_VALUES, remote));
  PetscCall(PetscSFComputeDegreeBegin(sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(sf, &degree));
  for (PetscInt a = 0; a < nagg; a++) nin += degree[a];
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)w, MPIU_REAL, &unit));
  PetscCallMPI(MPI_Type_commit(&unit));
  mc = nin * bs;
  PetscCall(PetscMalloc6(nin, &inode, nin * w, &in, nin, &perm, nin, &cagg, mc * nv, &cb, nin * w, &pm));
  PetscCall(PetscSFGatherBegin(sf, MPIU_INT, gnode, inode));
  PetscCall(PetscSFGatherEnd(sf, MPIU_INT, gnode, inode));
  PetscCall(PetscSFGatherBegin(sf, unit, leaf, in));
  PetscCall(PetscSFGatherEnd(sf, unit, leaf, in));

  /* this process's aggregates as a problem of their own: their nodes in ascending order within
     each (the one-process QR's order), made by the backend's tentative or tentativeblock */
  for (PetscInt a = 0, off = 0; a < nagg; off += degree[a], a++) {
    PetscCheck(degree[a] > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Aggregate %" PetscInt_FMT " has no rows", astart + a);
    for (PetscInt k = 0; k < degree[a]; k++) perm[off + k] = k;
    PetscCall(PetscSortIntWithPermutation(degree[a], inode + off, perm + off));
    for (PetscInt k = 0; k < degree[a]; k++) { /* compact node off + k: the gathered one off + perm */
      const PetscInt c = off + k, src = off + perm[off + k];

      cagg[c] = a;
      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt j = 0; j < nv; j++) cb[c * bs + i + j * mc] = in[src * w + i * nv + j];
    }
  }
  PetscCall(PetscMalloc1(nagg * nv * nv, r));
  PetscCall(PetscMalloc1(mc * nv, &pc));
  PetscCall(GKMallocH2D(nin, cagg, &dcagg));
  PetscCall(GKMallocH2D(mc * nv, cb, &dcb));
  PetscCall(GKMalloc(mc * nv, &dp));
  PetscCall(GKMalloc(nagg * nv * nv, &dr));
  if (bs == 1 && nv == 1) PetscCall(GKDev->tentative(nin, dcagg, nagg, dcb, dp, dr));
  else if (nin) PetscCall(GKDev->tentativeblock(nin, bs, nv, dcagg, nagg, dcb, dp, dr));
  PetscCall(GKMemcpyD2H(pc, dp, sizeof(PetscScalar) * (size_t)(mc * nv)));
  PetscCall(GKMemcpyD2H(*r, dr, sizeof(PetscReal) * (size_t)(nagg * nv * nv)));
  PetscCall(GKFree(dcagg));
  PetscCall(GKFree(dcb));
  PetscCall(GKFree(dp));
  PetscCall(GKFree(dr));

  /* each node's values sent back where it is */
  for (PetscInt a = 0, off = 0; a < nagg; off += degree[a], a++)
    for (PetscInt k = 0; k < degree[a]; k++) {
      const PetscInt c = off + k, src = off + perm[off + k];

      for (PetscInt i = 0; i < bs; i++)
        for (PetscInt j = 0; j < nv; j++) pm[src * w + i * nv + j] = pc[(c * bs + i) * nv + j];
    }
  PetscCallMPI(MPI_Type_free(&unit));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)w, MPIU_SCALAR, &unit));
  PetscCallMPI(MPI_Type_commit(&unit));
  PetscCall(PetscSFScatterBegin(sf, unit, pm, pl));
  PetscCall(PetscSFScatterEnd(sf, unit, pm, pl));
  PetscCallMPI(MPI_Type_free(&unit));

  t->bs   = bs;
  t->nv   = nv;
  t->nagg = nagg;
  t->agg  = agg; /* a node's bs rows of values are its rows', nv each: pl is each row's, by rows */
  t->p    = pl;
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscLayoutDestroy(&alay));
  PetscCall(PetscFree(pc));
  PetscCall(PetscFree6(inode, in, perm, cagg, cb, pm));
  PetscCall(PetscFree4(ilocal, remote, gnode, leaf));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUTentativeMPIFree_Private(GKAggMPITentative *t)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(t->agg));
  PetscCall(PetscFree(t->p));
  PetscFunctionReturn(0);
}

/* a matrix of A's type of m rows and this process's nagg nv columns, block sizes bs x nv, made
   from its local rows (global columns, ascending in each row), written into its blocks whole */
static PetscErrorCode GKAggMPIMatFromRows(Mat A, const GKAggMPITentative *t, const PetscInt *ii, const PetscInt *jj, const PetscScalar *vv, Mat *P)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), P));
  PetscCall(MatSetSizes(*P, A->rmap->n, t->nagg * t->nv, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, t->bs, t->nv));
  PetscCall(MatSetType(*P, ((PetscObject)A)->type_name));
  PetscCall(MatMPIGKSetRows_Private(*P, PETSC_TRUE, ii, jj, vv));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUTentativeMatMPI_Private(Mat A, const GKAggMPITentative *t, Mat *P)
{
  const PetscInt m = A->rmap->n, bs = t->bs, nv = t->nv;
  PetscInt      *ii, *jj;
  PetscScalar   *vv;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m + 1, &ii, m * nv, &jj, m * nv, &vv));
  ii[0] = 0;
  for (PetscInt row = 0; row < m; row++) {
    const PetscInt a = t->agg[row / bs], len = a < 0 ? 0 : nv;

    ii[row + 1] = ii[row] + len;
    for (PetscInt j = 0; j < len; j++) {
      jj[ii[row] + j] = a * nv + j;
      vv[ii[row] + j] = t->p[row * nv + j];
    }
  }
  PetscCall(GKAggMPIMatFromRows(A, t, ii, jj, vv, P));
  PetscCall(PetscFree3(ii, jj, vv));
  PetscFunctionReturn(0);
}

/* whether the local rows of the MPI matrix P have the pattern ii, jj (global columns, ascending
   in each row) on every process (collective) */
static PetscErrorCode GKAggMPISamePattern(Mat P, const PetscInt *ii, const PetscInt *jj, PetscBool *same)
{
  const PetscInt m = P->rmap->n;
  PetscInt      *pi, *pj;
  PetscScalar   *pa;

  PetscFunctionBegin;
  PetscCall(MatMPIGKLocalRows_Private(P, &pi, &pj, &pa));
  PetscCall(PetscArraycmp(pi, ii, m + 1, same));
  if (*same) PetscCall(PetscArraycmp(pj, jj, ii[m], same));
  PetscCall(PetscFree3(pi, pj, pa));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, same, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)P)));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUSmoothMPI_Private(Mat A, const GKAggMPITentative *t, PetscReal alpha, Mat *P)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt  m = A->rmap->n, bs = t->bs, nv = t->nv;
  Mat             Ad, Ao;
  const PetscInt *garray;
  PetscInt        ng, ncoarse, *ragg, *dragg, *ii, *jj;
  PetscScalar    *rp, *drp, *vv;
  PetscSF         sf;
  MPI_Datatype    unit;
  GKCsr           dA = {0, 0, 0, NULL, NULL, NULL}, dP = dA;

  PetscFunctionBegin;
  PetscCheck(A->rmap->rstart == A->cmap->rstart && m == A->cmap->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "The smoothing on the devices needs the matrix's rows and columns laid out alike (rows %" PetscInt_FMT " of %" PetscInt_FMT
             " from %" PetscInt_FMT ", columns %" PetscInt_FMT " from %" PetscInt_FMT ")",
             m, A->rmap->N, A->rmap->rstart, A->cmap->n, A->cmap->rstart);
  PetscCall(MPIU_Allreduce(&t->nagg, &ncoarse, 1, MPIU_INT, MPI_SUM, comm));
  /* each row's aggregate and nv values, this process's rows then the ghosts' from their owners */
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, &garray));
  ng = Ao->cmap->n;
  PetscCall(PetscMalloc2(m + ng, &ragg, (m + ng) * nv, &rp));
  for (PetscInt row = 0; row < m; row++) ragg[row] = t->agg[row / bs];
  PetscCall(PetscArraycpy(rp, t->p, m * nv));
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, A->cmap, ng, NULL, PETSC_COPY_VALUES, garray));
  PetscCallMPI(MPI_Type_contiguous((PetscMPIInt)nv, MPIU_SCALAR, &unit));
  PetscCallMPI(MPI_Type_commit(&unit));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, ragg, ragg + m, MPI_REPLACE));
  PetscCall(PetscSFBcastBegin(sf, unit, rp, rp + m * nv, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, ragg, ragg + m, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, unit, rp, rp + m * nv, MPI_REPLACE));
  PetscCallMPI(MPI_Type_free(&unit));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(GKMallocH2D(m + ng, ragg, &dragg));
  PetscCall(GKMallocH2D((m + ng) * nv, rp, &drp));
  PetscCall(PetscFree2(ragg, rp));
  /* this process's rows [Ad Ao], whose column i < m is row i's diagonal, smoothed as one
     process's rows are (a row a node: each row's aggregate given), their columns global */
  PetscCall(MatGKHostSyncIf_Private(A));
  PetscCall(MatMPIGKStackedRowsToDevice_Private(A, &dA));
  PetscCall(GKDev->smoothblock(&dA, 1, nv, dragg, drp, ncoarse, alpha, &dP));
  PetscCall(GKCsrFree_Private(&dA));
  PetscCall(GKFree(dragg));
  PetscCall(GKFree(drp));
  PetscCall(PetscMalloc3(m + 1, &ii, dP.nnz, &jj, dP.nnz, &vv));
  PetscCall(GKMemcpyD2H(ii, dP.i, sizeof(PetscInt) * (size_t)(m + 1)));
  PetscCall(GKMemcpyD2H(jj, dP.j, sizeof(PetscInt) * (size_t)dP.nnz));
  PetscCall(GKMemcpyD2H(vv, dP.a, sizeof(PetscScalar) * (size_t)dP.nnz));
  PetscCall(GKCsrFree_Private(&dP));
  if (*P) { /* the values into the same pattern */
    PetscBool same;

    PetscCall(GKAggMPISamePattern(*P, ii, jj, &same));
    PetscCheck(same, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_INCOMP,
               "The prolongator to give new values has another pattern than the smoothing makes: make it again");
    PetscCall(MatMPIGKSetRows_Private(*P, PETSC_FALSE, ii, jj, vv));
  } else PetscCall(GKAggMPIMatFromRows(A, t, ii, jj, vv, P));
  PetscCall(PetscFree3(ii, jj, vv));
  PetscFunctionReturn(0);
}

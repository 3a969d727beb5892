/*
   PCGAMG's aggregation on several processes (agggpu.c's levels whose matrix is split between
   processes): each process coarsens its rows of PETSc's strength graph on its device, the rounds
   of the maximal independent set exchanging the boundary's states with the processes next to
   it, and makes its rows of the tentative prolongator.

   The graph is PETSc's MPIAIJ graph (MatCreateGraph(), which the device matrices give without
   PETSc's transpose where their pattern is symmetric: gkgraph.c); its two blocks are this
   process's rows with local columns (the diagonal block's, then the ghosts' after them), which
   the backend's aggregate takes with a halo (device.h, GKAggHalo): the ghosts' global numbers for
   their keys, the local vertices other processes hold as ghosts, and the exchange between the
   processes (a PetscSF from the send list to the ghosts). The keys hash global numbers and every
   round reads the last round's states on both sides of the boundary, so the roots and the
   aggregates are those of one process holding the whole graph, however the rows are split.

   An aggregate may hold rows of several processes (a vertex joins the root next to it wherever
   that root is). Its nodes' rows of the near null space are gathered at the aggregate's owner (a
   PetscSF from each node to its aggregate), put in ascending order, and the owner's aggregates
   made a problem of their own for the backend's tentative or tentativeblock (device.h: the QR
   one process makes, in the same order, so the same values); each node's rows of Q go back where
   the node is, and the prolongator (a node's rows in its aggregate's columns) is a matrix of the
   level's type, assembled on the host, which PETSc's AGG then smooths (A P0 on the device).
*/
#include "include/gpukitimpl.h"
#include "aggmpi.h"
#include <petscsf.h>
#include <petsc/private/matimpl.h>

/* the exchange's context: the PetscSF from the send list (roots) to the ghosts (leaves) */
typedef struct {
  PetscSF  sf;
  MPI_Comm comm;
} GKAggMPIExch;

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

/* The halo of the graph G (MPIAIJ, square): its rows' columns made local (the ghosts after the
   local vertices), the ghosts' and the local vertices' global numbers, the send list and the
   PetscSF from it to the ghosts; hi, hj, gid and send in host memory */
static PetscErrorCode GKAggMPIHalo(Mat G, PetscInt **hi, PetscInt **hj, PetscInt **gid, PetscInt *nghost, PetscInt **send, PetscInt *nsend,
                                   PetscSF *sf2)
{
  Mat                Gd, Go;
  const PetscInt    *garray, *di, *dj, *oi, *oj, *degree;
  PetscInt           m, ng, rstart, nd, no, *cidx, *lidx, ns = 0, nroots, nleaves;
  PetscBool          done;
  PetscSF            sf;
  const PetscSFNode *iremote;
  PetscSFNode       *iremote2;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(G, &Gd, &Go, &garray));
  PetscCall(MatGetOwnershipRange(G, &rstart, NULL));
  PetscCall(MatGetLocalSize(G, &m, NULL));
  PetscCall(MatGetSize(Go, NULL, &ng));
  PetscCall(MatGetRowIJ(Gd, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCheck(done && nd == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the graph's diagonal block");
  PetscCall(MatGetRowIJ(Go, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));
  PetscCheck(done && no == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the graph's off-diagonal block");
  PetscCall(PetscMalloc3(m + 1, hi, di[m] + oi[m], hj, m + ng, gid));
  (*hi)[0] = 0;
  for (PetscInt v = 0; v < m; v++) {
    PetscInt k = (*hi)[v];

    for (PetscInt e = di[v]; e < di[v + 1]; e++) (*hj)[k++] = dj[e];
    for (PetscInt e = oi[v]; e < oi[v + 1]; e++) (*hj)[k++] = m + oj[e];
    (*hi)[v + 1] = k;
    (*gid)[v]    = rstart + v;
  }
  for (PetscInt g = 0; g < ng; g++) (*gid)[m + g] = garray[g];
  PetscCall(MatRestoreRowIJ(Gd, 0, PETSC_FALSE, PETSC_FALSE, &nd, &di, &dj, &done));
  PetscCall(MatRestoreRowIJ(Go, 0, PETSC_FALSE, PETSC_FALSE, &no, &oi, &oj, &done));

  /* the ghosts (leaves) on their owners' rows (roots); the rows some process holds as a ghost,
     numbered in their order, are the send list, and the leaves are pointed at those numbers */
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)G), &sf));
  PetscCall(PetscSFSetGraphLayout(sf, G->rmap, ng, NULL, PETSC_COPY_VALUES, garray));
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
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)G), sf2));
  PetscCall(PetscSFSetGraph(*sf2, ns, ng, NULL, PETSC_COPY_VALUES, iremote2, PETSC_OWN_POINTER));
  PetscCall(PetscSFSetUp(*sf2));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree2(cidx, lidx));
  *nghost = ng;
  *nsend  = ns;
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUAggregateMPI_Private(Mat G, PetscInt dist, PetscInt **dagg, PetscInt *nagg)
{
  PetscInt    *hi, *hj, *hgid, *hsend, m, ng = 0, ns = 0, *di, *dj, *dgid, *dsend;
  GKAggMPIExch x;
  GKAggHalo    h;

  PetscFunctionBegin;
  PetscCall(MatGetLocalSize(G, &m, NULL));
  PetscCall(GKAggMPIHalo(G, &hi, &hj, &hgid, &ng, &hsend, &ns, &x.sf));
  x.comm = PetscObjectComm((PetscObject)G);
  PetscCall(GKMallocH2D(m + 1, hi, &di));
  PetscCall(GKMallocH2D(hi[m], hj, &dj));
  PetscCall(GKMallocH2D(m + ng, hgid, &dgid));
  PetscCall(GKMallocH2D(ns, hsend, &dsend));
  h.nghost   = ng;
  h.nsend    = ns;
  h.gid      = dgid;
  h.send     = dsend;
  h.ctx      = &x;
  h.exchange = GKAggMPIExchange;
  h.sum      = GKAggMPISum;
  h.offset   = GKAggMPIOffset;
  PetscCall(GKMalloc(2 * m, dagg));
  PetscCall(GKDev->aggregate(m, di, dj, dist, &h, *dagg, *dagg + m, nagg));
  PetscCall(GKFree(di));
  PetscCall(GKFree(dj));
  PetscCall(GKFree(dgid));
  PetscCall(GKFree(dsend));
  PetscCall(PetscSFDestroy(&x.sf));
  PetscCall(PetscFree3(hi, hj, hgid));
  PetscCall(PetscFree(hsend));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUTentativeMPI_Private(Mat A, PetscInt bs, PetscInt nv, const PetscInt *dagg, PetscInt nagg, const PetscReal *b, Mat *P,
                                                PetscReal **r)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)A);
  const PetscInt  m = A->rmap->n, nn = m / bs, nstart = A->rmap->rstart / bs, w = bs * nv;
  PetscInt        nl = 0, nin = 0, astart, *cols, *agg, *ilocal, *remote, *gnode, *inode, *perm, *cagg, *dcagg, mc;
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
  PetscCall(PetscMalloc5(nl, &ilocal, nl, &remote, nn, &gnode, nn * w, &leaf, nn * w, &pl));
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

  /* P0: a node's rows in its aggregate's nv columns */
  PetscCall(MatCreate(comm, P));
  PetscCall(MatSetSizes(*P, m, nagg * nv, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(*P, bs, nv));
  PetscCall(MatSetType(*P, ((PetscObject)A)->type_name));
  PetscCall(MatSeqAIJSetPreallocation(*P, nv, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*P, nv, NULL, nv, NULL));
  PetscCall(PetscMalloc1(nv, &cols));
  for (PetscInt v = 0; v < nn; v++) {
    if (agg[v] < 0) continue;
    for (PetscInt j = 0; j < nv; j++) cols[j] = agg[v] * nv + j;
    for (PetscInt i = 0; i < bs; i++) { /* a row's nv values at once */
      const PetscInt row = (nstart + v) * bs + i;

      PetscCall(MatSetValues(*P, 1, &row, nv, cols, pl + v * w + i * nv, INSERT_VALUES));
    }
  }
  PetscCall(PetscFree(cols));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscLayoutDestroy(&alay));
  PetscCall(PetscFree(pc));
  PetscCall(PetscFree6(inode, in, perm, cagg, cb, pm));
  PetscCall(PetscFree5(ilocal, remote, gnode, leaf, pl));
  PetscCall(PetscFree(agg));
  PetscFunctionReturn(0);
}

/*
   MatMatMult() and MatPtAP() of two MPI device matrices on the device, each process's share
   (gkspgemm.c has the sequential products and what both share).
*/
#include "gkmat.h"
#include <petscsf.h>

/*
   Two MPI device matrices, on each process (n local rows of A, the same of P for PtAP):
     - P's local rows as one CSR in global columns (each row's columns ascending: the diagonal
       block's shifted by the first owned column, merged with the off-diagonal block's ghosts);
     - the rows of P that A's ghost columns name, gathered from their owners through a PetscSF
       over their entries (the rows' lengths and starts broadcast first), as MPIAIJ's products
       gather them (MatGetBrowsOfAoCols);
     - Q = [P's local rows; the gathered rows] and A's local rows [Ad Ao] as CSR arrays, Q's
       columns renumbered to those that occur (ascending, so each row stays sorted), Ao's to
       Q's gathered rows;
     - on the device, AP = [Ad Ao] Q, and for PtAP P_loc^T AP, with P_loc Q's first n rows:
       this process's share of C, whose rows are its own (AB) or P's columns it touches (PtAP,
       some owned elsewhere);
     - the share down to the host: for AB, C's local rows; for PtAP, the rows other processes
       own sent to them and summed into theirs (GKShareToRows_Private);
     - C made from its local rows (each block's column array written whole), whose device copy
       is built from them at its first use, like any other matrix's.
   The symbolic step does all of it and keeps C's pattern; a numeric step does it again, checks
   the pattern and sets the values.
*/
typedef struct {
  PetscInt  m;
  PetscInt *i, *j; /* C's pattern as the symbolic step made it (local rows, global columns) */
} GKMPIProduct;

#define GK_MPI_PRODUCT "GKMPIProduct"

static PetscErrorCode GKMPIProductDestroy_Private(void *arg)
{
  GKMPIProduct *pr = (GKMPIProduct *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(PetscFree2(pr->i, pr->j));
  PetscCall(PetscFree(pr));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMPIGKLocalRows_Private(Mat M, PetscInt **mi, PetscInt **mj, PetscScalar **ma)
{
  Mat                Md, Mo;
  const PetscInt    *garray, *di, *dj, *oi, *oj, cstart = M->cmap->rstart;
  const PetscScalar *da, *oa;
  PetscInt           m, mo, k = 0;
  PetscBool          done, donto;

  PetscFunctionBegin;
  PetscCall(MatMPIGKGetBlocks_Private(M, &Md, &Mo, &garray));
  PetscCall(MatGetRowIJ(Md, 0, PETSC_FALSE, PETSC_FALSE, &m, &di, &dj, &done));
  PetscCall(MatGetRowIJ(Mo, 0, PETSC_FALSE, PETSC_FALSE, &mo, &oi, &oj, &donto));
  PetscCheck(done && donto && m == mo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of an MPI device matrix's blocks");
  PetscCall(MatSeqAIJGetArrayRead(Md, &da));
  PetscCall(MatSeqAIJGetArrayRead(Mo, &oa));
  PetscCall(PetscMalloc3(m + 1, mi, di[m] + oi[m], mj, di[m] + oi[m], ma));
  (*mi)[0] = 0;
  for (PetscInt r = 0; r < m; r++) {
    PetscInt p = di[r], q = oi[r];

    while (p < di[r + 1] || q < oi[r + 1]) {
      if (q == oi[r + 1] || (p < di[r + 1] && dj[p] + cstart < garray[oj[q]])) {
        (*mj)[k]   = dj[p] + cstart;
        (*ma)[k++] = da[p++];
      } else {
        (*mj)[k]   = garray[oj[q]];
        (*ma)[k++] = oa[q++];
      }
    }
    (*mi)[r + 1] = k;
  }
  PetscCall(MatSeqAIJRestoreArrayRead(Md, &da));
  PetscCall(MatSeqAIJRestoreArrayRead(Mo, &oa));
  PetscCall(MatRestoreRowIJ(Md, 0, PETSC_FALSE, PETSC_FALSE, &m, &di, &dj, &done));
  PetscCall(MatRestoreRowIJ(Mo, 0, PETSC_FALSE, PETSC_FALSE, &mo, &oi, &oj, &donto));
  PetscFunctionReturn(0);
}

PetscErrorCode MatMPIGKStackedRowsToDevice_Private(Mat A, GKCsr *d)
{
  Mat                Ad, Ao;
  const PetscInt    *di, *dj, *oi, *oj, nc = A->cmap->n;
  const PetscScalar *da, *oa;
  PetscInt          *ai, *aj, m, mo, nnz;
  PetscScalar       *aa;
  PetscBool          done, donto;

  PetscFunctionBegin;
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &di, &dj, &done));
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mo, &oi, &oj, &donto));
  PetscCheck(done && donto && m == mo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of an MPI device matrix's blocks");
  PetscCall(MatSeqAIJGetArrayRead(Ad, &da));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &oa));
  nnz = di[m] + oi[m];
  PetscCall(PetscMalloc3(m + 1, &ai, nnz, &aj, nnz, &aa));
  ai[0] = 0;
  for (PetscInt r = 0, k = 0; r < m; r++) {
    for (PetscInt p = di[r]; p < di[r + 1]; p++, k++) {
      aj[k] = dj[p];
      aa[k] = da[p];
    }
    for (PetscInt q = oi[r]; q < oi[r + 1]; q++, k++) {
      aj[k] = nc + oj[q];
      aa[k] = oa[q];
    }
    ai[r + 1] = k;
  }
  PetscCall(GKCsrToDevice_Private(m, nc + Ao->cmap->n, ai, aj, aa, d));
  PetscCall(PetscFree3(ai, aj, aa));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &da));
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &oa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &di, &dj, &done));
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mo, &oi, &oj, &donto));
  PetscFunctionReturn(0);
}

/* Q = [P's local rows; the rows of P that A's ghosts name] on the device, its columns renumbered
   (*cols, ascending, PetscMalloc1; *ncols of them: P's own and the others that occur) */
static PetscErrorCode MatMPIGKGatheredRowsToDevice_Private(Mat A, Mat P, GKCsr *d, PetscInt *ncols, PetscInt **cols)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)A);
  Mat                Ad, Ao;
  const PetscInt    *garray;
  const PetscSFNode *remote;
  PetscInt          *pi, *pj, *len, *start, *glen, *gstart, *gj, *qi, *qj, n = P->rmap->n, ng, ngot = 0, nall;
  PetscScalar       *pa, *ga, *qa;
  PetscSFNode       *eremote;
  PetscSF            sf, esf;

  PetscFunctionBegin;
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, &garray));
  ng = Ao->cmap->n;
  PetscCall(MatMPIGKLocalRows_Private(P, &pi, &pj, &pa));
  /* the ghost rows' lengths and starts, from their owners */
  PetscCall(PetscMalloc4(n, &len, n, &start, ng, &glen, ng, &gstart));
  for (PetscInt r = 0; r < n; r++) {
    len[r]   = pi[r + 1] - pi[r];
    start[r] = pi[r];
  }
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, P->rmap, ng, NULL, PETSC_OWN_POINTER, garray));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, len, glen, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, len, glen, MPI_REPLACE));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, start, gstart, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, start, gstart, MPI_REPLACE));
  PetscCall(PetscSFGetGraph(sf, NULL, NULL, NULL, &remote));
  /* their entries: a leaf each, on the owner's local rows' entries */
  for (PetscInt g = 0; g < ng; g++) ngot += glen[g];
  PetscCall(PetscMalloc1(ngot, &eremote));
  for (PetscInt g = 0, k = 0; g < ng; g++)
    for (PetscInt q = 0; q < glen[g]; q++, k++) {
      eremote[k].rank  = remote[g].rank;
      eremote[k].index = gstart[g] + q;
    }
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscSFCreate(comm, &esf));
  PetscCall(PetscSFSetGraph(esf, pi[n], ngot, NULL, PETSC_OWN_POINTER, eremote, PETSC_OWN_POINTER));
  PetscCall(PetscMalloc2(ngot, &gj, ngot, &ga));
  PetscCall(PetscSFBcastBegin(esf, MPIU_INT, pj, gj, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(esf, MPIU_INT, pj, gj, MPI_REPLACE));
  PetscCall(PetscSFBcastBegin(esf, MPIU_SCALAR, pa, ga, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(esf, MPIU_SCALAR, pa, ga, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&esf));
  /* Q's columns: P's own (all of them) and the others that occur (P's ghosts and the gathered
     rows' columns owned elsewhere), ascending */
  nall = pi[n] + ngot;
  {
    const PetscInt *pgarray, cstart = P->cmap->rstart, nown = P->cmap->n;
    Mat             Pd, Po;
    PetscInt       *other, nother = 0, nlow = 0;

    PetscCall(MatMPIGKGetBlocks_Private(P, &Pd, &Po, &pgarray));
    PetscCall(PetscMalloc1(Po->cmap->n + ngot, &other));
    PetscCall(PetscArraycpy(other, pgarray, Po->cmap->n));
    nother = Po->cmap->n;
    for (PetscInt k = 0; k < ngot; k++)
      if (gj[k] < cstart || gj[k] >= cstart + nown) other[nother++] = gj[k];
    PetscCall(PetscSortRemoveDupsInt(&nother, other));
    while (nlow < nother && other[nlow] < cstart) nlow++;
    *ncols = nother + nown;
    PetscCall(PetscMalloc1(*ncols, cols));
    for (PetscInt k = 0; k < nlow; k++) (*cols)[k] = other[k];
    for (PetscInt k = 0; k < nown; k++) (*cols)[nlow + k] = cstart + k;
    for (PetscInt k = nlow; k < nother; k++) (*cols)[nown + k] = other[k];
    PetscCall(PetscMalloc3(n + ng + 1, &qi, nall, &qj, nall, &qa));
    for (PetscInt r = 0; r <= n; r++) qi[r] = pi[r];
    for (PetscInt g = 0; g < ng; g++) qi[n + g + 1] = qi[n + g] + glen[g];
    for (PetscInt k = 0; k < nall; k++) {
      const PetscInt c = k < pi[n] ? pj[k] : gj[k - pi[n]];

      if (c >= cstart && c < cstart + nown) qj[k] = nlow + c - cstart;
      else {
        PetscInt loc;

        PetscCall(PetscFindInt(c, nother, other, &loc));
        qj[k] = loc < nlow ? loc : loc + nown;
      }
      qa[k] = k < pi[n] ? pa[k] : ga[k - pi[n]];
    }
    PetscCall(PetscFree(other));
  }
  PetscCall(GKCsrToDevice_Private(n + ng, *ncols, qi, qj, qa, d));
  PetscCall(PetscFree3(qi, qj, qa));
  PetscCall(PetscFree2(gj, ga));
  PetscCall(PetscFree4(len, start, glen, gstart));
  PetscCall(PetscFree3(pi, pj, pa));
  PetscFunctionReturn(0);
}

/* PtAP: this process's share (rows cols[r], ascending, of P's column layout; CSR ci, cj in the
   same compacted columns, values ca) summed into the local rows of the product: the rows other
   processes own sent to them (a PetscSF of the rows: their lengths gathered by the owners, which
   answer where each row goes in what they receive; then one of the entries). The result: each
   local row's global columns ascending, duplicates summed (ii, jj, vv of PetscMalloc3). */
static PetscErrorCode GKShareToRows_Private(PetscLayout rmap, PetscInt ncols, const PetscInt *cols, const PetscInt *ci, const PetscInt *cj,
                                            const PetscScalar *ca, PetscInt **ii, PetscInt **jj, PetscScalar **vv)
{
  const PetscInt     rstart = rmap->rstart, rend = rmap->rend, m = rend - rstart;
  const PetscInt    *degree;
  const PetscSFNode *remote;
  PetscInt           lo = 0, hi, nrem, nin = 0, nine = 0, nre = 0, *rg, *rlen, *roff, *inlen, *inoff, *ownr, *sj, *rj, *tj, tmax = 0, k;
  PetscScalar       *sv, *rv, *tv;
  PetscSFNode       *eremote;
  PetscSF            sf, esf;

  PetscFunctionBegin;
  while (lo < ncols && cols[lo] < rstart) lo++;
  for (hi = lo; hi < ncols && cols[hi] < rend;) hi++;
  nrem = lo + ncols - hi;
  PetscCall(PetscMalloc3(nrem, &rg, nrem, &rlen, nrem, &roff));
  k = 0;
  for (PetscInt r = 0; r < ncols; r++) {
    if (r == lo) r = hi;
    if (r == ncols) break;
    rg[k]   = cols[r];
    rlen[k] = ci[r + 1] - ci[r];
    nre += rlen[k++];
  }
  PetscCall(PetscSFCreate(rmap->comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, rmap, nrem, NULL, PETSC_OWN_POINTER, rg));
  PetscCall(PetscSFComputeDegreeBegin(sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(sf, &degree));
  for (PetscInt i = 0; i < m; i++) nin += degree[i];
  PetscCall(PetscMalloc2(nin, &inlen, nin, &inoff));
  PetscCall(PetscSFGatherBegin(sf, MPIU_INT, rlen, inlen));
  PetscCall(PetscSFGatherEnd(sf, MPIU_INT, rlen, inlen));
  for (PetscInt q = 0; q < nin; q++) { /* the rows received come by root, each root's in a row */
    inoff[q] = nine;
    nine += inlen[q];
  }
  PetscCall(PetscSFScatterBegin(sf, MPIU_INT, inoff, roff));
  PetscCall(PetscSFScatterEnd(sf, MPIU_INT, inoff, roff));
  PetscCall(PetscSFGetGraph(sf, NULL, NULL, NULL, &remote));
  PetscCall(PetscMalloc1(nre, &eremote));
  PetscCall(PetscMalloc4(nre, &sj, nre, &sv, nine, &rj, nine, &rv));
  k = 0;
  for (PetscInt r = 0, g = 0; r < ncols; r++) {
    if (r == lo) r = hi;
    if (r == ncols) break;
    for (PetscInt q = ci[r]; q < ci[r + 1]; q++, k++) {
      eremote[k].rank  = remote[g].rank;
      eremote[k].index = roff[g] + q - ci[r];
      sj[k]            = cols[cj[q]];
      sv[k]            = ca[q];
    }
    g++;
  }
  PetscCall(PetscSFCreate(rmap->comm, &esf));
  PetscCall(PetscSFSetGraph(esf, nine, nre, NULL, PETSC_OWN_POINTER, eremote, PETSC_OWN_POINTER));
  PetscCall(PetscSFReduceBegin(esf, MPIU_INT, sj, rj, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(esf, MPIU_INT, sj, rj, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(esf, MPIU_SCALAR, sv, rv, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(esf, MPIU_SCALAR, sv, rv, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&esf));
  /* each local row: its own share's row and the rows received, sorted and summed */
  PetscCall(PetscMalloc1(m, &ownr));
  for (PetscInt i = 0; i < m; i++) ownr[i] = -1;
  for (PetscInt r = lo; r < hi; r++) ownr[cols[r] - rstart] = r;
  for (PetscInt i = 0, q = 0; i < m; i++) {
    PetscInt len = ownr[i] >= 0 ? ci[ownr[i] + 1] - ci[ownr[i]] : 0;

    for (PetscInt d = 0; d < degree[i]; d++, q++) len += inlen[q];
    tmax = PetscMax(tmax, len);
  }
  PetscCall(PetscMalloc3(m + 1, ii, ci[hi] - ci[lo] + nine, jj, ci[hi] - ci[lo] + nine, vv)); /* the own rows' entries and those received */
  PetscCall(PetscMalloc2(tmax, &tj, tmax, &tv));
  (*ii)[0] = 0;
  for (PetscInt i = 0, q = 0, o = 0; i < m; i++) {
    PetscInt n = 0;

    if (ownr[i] >= 0)
      for (PetscInt e = ci[ownr[i]]; e < ci[ownr[i] + 1]; e++, n++) {
        tj[n] = cols[cj[e]];
        tv[n] = ca[e];
      }
    for (PetscInt d = 0; d < degree[i]; d++, q++)
      for (PetscInt e = inoff[q]; e < inoff[q] + inlen[q]; e++, n++) {
        tj[n] = rj[e];
        tv[n] = rv[e];
      }
    if (degree[i]) PetscCall(PetscSortIntWithScalarArray(n, tj, tv));
    for (PetscInt e = 0; e < n; e++) {
      if (e && tj[e] == (*jj)[o - 1]) (*vv)[o - 1] += tv[e];
      else {
        (*jj)[o]   = tj[e];
        (*vv)[o++] = tv[e];
      }
    }
    (*ii)[i + 1] = o;
  }
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree2(tj, tv));
  PetscCall(PetscFree(ownr));
  PetscCall(PetscFree4(sj, sv, rj, rv));
  PetscCall(PetscFree2(inlen, inoff));
  PetscCall(PetscFree3(rg, rlen, roff));
  PetscFunctionReturn(0);
}

/* C's local rows (global columns, ascending in each row) written into its blocks: with
   pattern, C preallocated with them, each block's column array written whole
   (MatSeqAIJSetColumnIndices(): the off-diagonal block's columns global until the assembly
   compacts them) and C assembled; else only the values, into the pattern they made (the
   off-diagonal block's compacted columns ascend as the global ones do) */
PetscErrorCode MatMPIGKSetRows_Private(Mat C, PetscBool pattern, const PetscInt *ii, const PetscInt *jj, const PetscScalar *vv)
{
  PetscInt     m, cstart, cend, at[2] = {0, 0}, *nnz[2];
  Mat          blk[2];
  PetscScalar *v[2];

  PetscFunctionBegin;
  PetscCall(PetscLayoutSetUp(C->rmap));
  PetscCall(PetscLayoutSetUp(C->cmap));
  m      = C->rmap->n;
  cstart = C->cmap->rstart;
  cend   = C->cmap->rend;
  if (pattern) {
    PetscCall(PetscMalloc2(m, &nnz[0], m, &nnz[1]));
    for (PetscInt r = 0; r < m; r++) {
      nnz[0][r] = 0;
      for (PetscInt k = ii[r]; k < ii[r + 1]; k++) nnz[0][r] += (jj[k] >= cstart && jj[k] < cend);
      nnz[1][r] = ii[r + 1] - ii[r] - nnz[0][r];
    }
    PetscCall(MatMPIAIJSetPreallocation(C, 0, nnz[0], 0, nnz[1]));
    PetscCall(PetscFree2(nnz[0], nnz[1]));
  }
  PetscCall(MatMPIGKGetBlocks_Private(C, &blk[0], &blk[1], NULL));
  if (pattern) {
    const PetscInt *ia[2], *ja[2];
    PetscInt        n, k[2] = {0, 0};
    PetscBool       got[2];

    for (PetscInt b = 0; b < 2; b++) {
      PetscCall(MatGetRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[b], &ja[b], &got[b]));
      PetscCheck(got[b], PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of a product's block");
    }
    for (PetscInt e = 0; e < ii[m]; e++) { /* into the arrays MatGetRowIJ() gave, the blocks' own */
      const PetscInt b = (jj[e] >= cstart && jj[e] < cend) ? 0 : 1;

      ((PetscInt *)ja[b])[k[b]++] = b ? jj[e] : jj[e] - cstart;
    }
    for (PetscInt b = 0; b < 2; b++) {
      PetscCall(MatSeqAIJSetColumnIndices(blk[b], (PetscInt *)ja[b]));
      PetscCall(MatRestoreRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[b], &ja[b], &got[b]));
    }
  }
  for (PetscInt b = 0; b < 2; b++) PetscCall(MatSeqAIJGetArrayWrite(blk[b], &v[b]));
  for (PetscInt e = 0; e < ii[m]; e++) {
    const PetscInt b = (jj[e] >= cstart && jj[e] < cend) ? 0 : 1;

    v[b][at[b]++] = vv[e];
  }
  for (PetscInt b = 0; b < 2; b++) PetscCall(MatSeqAIJRestoreArrayWrite(blk[b], &v[b]));
  if (pattern) {
    PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  } else PetscCall(PetscObjectStateIncrease((PetscObject)C));
  PetscFunctionReturn(0);
}

PetscErrorCode MatProductGKDeviceMPI_Private(Mat C, PetscBool symbolic, PetscBool *done)
{
  Mat_Product  *p = C->product;
  Mat           A = p->A, P = p->B;
  MPI_Comm      comm = PetscObjectComm((PetscObject)C);
  PetscBool     ptap = (PetscBool)(p->type == MATPRODUCT_PtAP), all;
  GKCsr         dA = {0, 0, 0, NULL, NULL, NULL}, dQ = dA, dR = dA, dC = dA;
  PetscInt     *cols, ncols, *ci, *cj, *ii, *jj, m;
  PetscScalar  *ca, *vv;
  PetscLayout   rmap     = ptap ? P->cmap : A->rmap;
  char          why[256] = "";
  GKMPIProduct *pr       = NULL;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(MatGKHostSyncIf_Private(A));
  PetscCall(MatGKHostSyncIf_Private(P));
  PetscCall(MatMPIGKStackedRowsToDevice_Private(A, &dA));
  PetscCall(MatMPIGKGatheredRowsToDevice_Private(A, P, &dQ, &ncols, &cols));
  dR   = dQ; /* P's local rows: Q's first ones */
  dR.m = P->rmap->n;
  PetscCall(GKMemcpyD2H(&dR.nnz, dQ.i + dR.m, sizeof(PetscInt)));
  /* no share of C here where a factor has no entries */
  if (dA.nnz && dQ.nnz && (!ptap || dR.nnz)) PetscCall(GKSpGEMM_Private(C, &dA, &dQ, ptap ? &dR : NULL, &dC, done, why, sizeof(why)));
  else {
    *done = PETSC_TRUE;
    dC.m  = ptap ? ncols : A->rmap->n;
  }
  PetscCall(GKCsrFree_Private(&dA));
  PetscCall(GKCsrFree_Private(&dQ));
  PetscCall(MPIU_Allreduce(done, &all, 1, GK_MPI_BOOL, MPI_LAND, comm));
  if (!all) {
    PetscCall(PetscInfo(C, "%s of %s matrices by PETSc's host code%s%s\n", ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name,
                        why[0] ? ": " : " (a process could not)", why));
    PetscCall(GKCsrFree_Private(&dC));
    PetscCall(PetscFree(cols));
    *done = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  /* this process's share down; C's local rows in global columns (ascending in each row) */
  PetscCall(PetscMalloc3(dC.m + 1, &ci, dC.nnz, &cj, dC.nnz, &ca));
  ci[0] = 0;
  if (dC.nnz) {
    PetscCall(GKMemcpyD2H(ci, dC.i, sizeof(PetscInt) * (size_t)(dC.m + 1)));
    PetscCall(GKMemcpyD2H(cj, dC.j, sizeof(PetscInt) * (size_t)dC.nnz));
    PetscCall(GKMemcpyD2H(ca, dC.a, sizeof(PetscScalar) * (size_t)dC.nnz));
  } else
    for (PetscInt r = 0; r < dC.m; r++) ci[r + 1] = 0;
  PetscCall(GKCsrFree_Private(&dC));
  for (PetscInt r = 0; r < dC.m; r++) /* cuSPARSE's rows come sorted; the host's too */
    for (PetscInt k = ci[r] + 1; k < ci[r + 1]; k++)
      if (cj[k - 1] > cj[k]) {
        PetscCall(PetscSortIntWithScalarArray(ci[r + 1] - ci[r], cj + ci[r], ca + ci[r]));
        break;
      }
  m = rmap->n;
  if (ptap) PetscCall(GKShareToRows_Private(rmap, ncols, cols, ci, cj, ca, &ii, &jj, &vv));
  else {
    PetscCall(PetscMalloc3(m + 1, &ii, ci[m], &jj, ci[m], &vv));
    for (PetscInt r = 0; r <= m; r++) ii[r] = ci[r];
    for (PetscInt k = 0; k < ci[m]; k++) {
      jj[k] = cols[cj[k]];
      vv[k] = ca[k];
    }
  }
  PetscCall(PetscFree3(ci, cj, ca));
  PetscCall(PetscFree(cols));
  if (symbolic) {
    PetscContainer c;

    PetscCall(PetscInfo(C, "%s of %s matrices on the device: %" PetscInt_FMT " local rows, %" PetscInt_FMT " nonzeros\n",
                        ptap ? "MatPtAP" : "MatMatMult", ((PetscObject)A)->type_name, m, ii[m]));
    if (ptap) PetscCall(MatSetSizes(C, P->cmap->n, P->cmap->n, P->cmap->N, P->cmap->N));
    else PetscCall(MatSetSizes(C, A->rmap->n, P->cmap->n, A->rmap->N, P->cmap->N));
    if (ptap) PetscCall(MatSetBlockSizes(C, PetscAbs(P->cmap->bs), PetscAbs(P->cmap->bs)));
    else PetscCall(MatSetBlockSizesFromMats(C, A, P));
    PetscCall(MatSetType(C, GKFormatDefault->mpitype)); /* as PETSc's product made a device matrix */
    PetscCall(MatMPIGKSetRows_Private(C, PETSC_TRUE, ii, jj, vv));
    PetscCall(PetscNew(&pr));
    pr->m = m;
    PetscCall(PetscMalloc2(m + 1, &pr->i, ii[m], &pr->j));
    PetscCall(PetscArraycpy(pr->i, ii, m + 1));
    PetscCall(PetscArraycpy(pr->j, jj, ii[m]));
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, pr));
    PetscCall(GKContainerSetDestroy(c, GKMPIProductDestroy_Private));
    PetscCall(PetscObjectCompose((PetscObject)C, GK_MPI_PRODUCT, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  } else {
    PetscContainer c;
    PetscBool      same;

    PetscCall(PetscObjectQuery((PetscObject)C, GK_MPI_PRODUCT, (PetscObject *)&c));
    PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "An MPI product made on the device without its pattern");
    PetscCall(PetscContainerGetPointer(c, (void **)&pr));
    same = (PetscBool)(pr->m == m && pr->i[m] == ii[m]);
    if (same) PetscCall(PetscArraycmp(pr->i, ii, m + 1, &same));
    if (same) PetscCall(PetscArraycmp(pr->j, jj, ii[m], &same));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &same, 1, GK_MPI_BOOL, MPI_LAND, comm));
    if (same) PetscCall(MatMPIGKSetRows_Private(C, PETSC_FALSE, ii, jj, vv));
    PetscCall(PetscFree3(ii, jj, vv));
    PetscCheck(same, comm, PETSC_ERR_ARG_INCOMP,
               "The operands' nonzero patterns changed since the product was made: make it again with MAT_INITIAL_MATRIX");
    PetscFunctionReturn(0);
  }
  PetscCall(PetscFree3(ii, jj, vv));
  PetscFunctionReturn(0);
}

/*
   COO assembly of the MPI device matrices (MatSetPreallocationCOO(), MatSetValuesCOO()): each
   block's lists for the process's own rows on the device, and the entries of other processes'
   rows sent through a host MPIAIJ of them alone (PETSc's COO exchange), their sums added in on
   the device.
*/
#include "mpigk.h"

PetscErrorCode MatMPIGKCOOReset_Private(Mat_MPIGK *mg)
{
  PetscFunctionBegin;
  PetscCall(GKFree(mg->dremote));
  PetscCall(GKFree(mg->diota));
  PetscCall(GKFree(mg->dsend));
  PetscCall(GKFree(mg->drecv));
  PetscCall(GKFree(mg->dv));
  PetscCall(PetscFree2(mg->hsend, mg->hrecv));
  PetscCall(MatDestroy(&mg->cooremote));
  mg->coodevice = mg->cooany = PETSC_FALSE;
  mg->coonr = mg->coonrecv = mg->coonrd = 0;
  PetscFunctionReturn(0);
}

/* COO assembly: indices checked, MPIAIJ's preallocation (the pattern, its blocks), then the
   lists on the device: each block's for this process's entries of its own rows (block rows and
   columns: the off-diagonal block's columns are the ghosts' positions), and, where any process
   has entries of another's rows, a host MPIAIJ of those entries alone, whose COO assembly sends
   their values to the owners, and each block's list for the sums it receives. MPIAIJ's may
   reorder i and j: the lists take a copy. */
PetscErrorCode MatSetPreallocationCOO_MPIGK(Mat A, PetscCount n, PetscInt i[], PetscInt j[])
{
  Mat_MPIGK       *mg = (Mat_MPIGK *)A->spptr;
  const GKCOOBase *base;
  const PetscInt   rstart = A->rmap->rstart, rend = A->rmap->rend, cstart = A->cmap->rstart, cend = A->cmap->rend;
  const PetscInt  *garray, *rgarray;
  PetscInt        *ci, *cj, *di, *dj, *oi, *oj, *ri, *rj, nghost;
  PetscCount       nr = 0, *remote, nrecv = 0, nrd = 0;
  Mat              Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatGKCOOCheck_Private(A, n, i, j));
  PetscCall(MatGKCOOBase_Private(PETSC_TRUE, &base));
  PetscCall(MatMPIGKCOOReset_Private(mg));
  PetscCall(PetscMalloc2(n, &ci, n, &cj));
  PetscCall(PetscArraycpy(ci, i, n));
  PetscCall(PetscArraycpy(cj, j, n));
  PetscCall((*base->prealloc)(A, n, i, j));
  mg->coon = n;
  PetscCall(MatMPIGKConvertBlocks_Private(A)); /* MPIAIJ's made them anew, as SEQAIJ */
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, &garray));
  nghost = Ao->cmap->n;
  /* this process's entries, by block; the others' rows' */
  PetscCall(PetscMalloc4(n, &di, n, &dj, n, &oi, n, &oj));
  PetscCall(PetscMalloc3(n, &remote, n, &ri, n, &rj));
  for (PetscCount k = 0; k < n; k++) {
    di[k] = dj[k] = oi[k] = oj[k] = -1;
    if (ci[k] < 0 || cj[k] < 0) continue;
    if (ci[k] < rstart || ci[k] >= rend) {
      remote[nr] = k;
      ri[nr]     = ci[k];
      rj[nr++]   = cj[k];
    } else if (cj[k] >= cstart && cj[k] < cend) {
      di[k] = ci[k] - rstart;
      dj[k] = cj[k] - cstart;
    } else {
      PetscInt loc;

      PetscCall(PetscFindInt(cj[k], nghost, garray, &loc));
      PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                 "COO entry %" PetscCount_FMT " (%" PetscInt_FMT ", %" PetscInt_FMT
                 ") is not among the ghost columns MPIAIJ's MatSetPreallocationCOO() made",
                 k, ci[k], cj[k]);
      oi[k] = ci[k] - rstart;
      oj[k] = loc;
    }
  }
  mg->cooany = nr ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &mg->cooany, 1, GK_MPI_BOOL, MPI_LOR, PetscObjectComm((PetscObject)A)));
  if (mg->cooany) { /* the entries of other processes' rows through a host MPIAIJ of them */
    Mat             Rd, Ro;
    const PetscInt *rdi, *rdj, *roi, *roj;
    PetscInt       *qdi, *qdj, *qoi, *qoj, m = A->rmap->n, nro;
    PetscScalar    *ra;
    PetscMemType    mtype;
    PetscCount     *iota;

    PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &mg->cooremote));
    PetscCall(MatSetSizes(mg->cooremote, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
    PetscCall(MatSetType(mg->cooremote, MATMPIAIJ));
    PetscCall(MatSetPreallocationCOO(mg->cooremote, nr, ri, rj)); /* ri, rj may be reordered: not read after */
    PetscCall(MatMPIAIJGetSeqAIJ(mg->cooremote, &Rd, &Ro, &rgarray));
    PetscCall(MatSeqAIJGetCSRAndMemType(Rd, &rdi, &rdj, &ra, &mtype));
    PetscCall(MatSeqAIJGetCSRAndMemType(Ro, &roi, &roj, &ra, &mtype));
    nrd   = rdi[m];
    nro   = roi[m];
    nrecv = nrd + nro;
    /* the sums received, Rd's nonzeros then Ro's, as entries of A's blocks */
    PetscCall(PetscMalloc4(nrecv, &qdi, nrecv, &qdj, nrecv, &qoi, nrecv, &qoj));
    for (PetscInt r = 0; r < m; r++) {
      for (PetscInt q = rdi[r]; q < rdi[r + 1]; q++) {
        qdi[q] = r;
        qdj[q] = rdj[q];
        qoi[q] = qoj[q] = -1;
      }
      for (PetscInt q = roi[r]; q < roi[r + 1]; q++) {
        PetscInt loc;

        PetscCall(PetscFindInt(rgarray[roj[q]], nghost, garray, &loc));
        PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB,
                   "A sum received for (%" PetscInt_FMT ", %" PetscInt_FMT ") is not among the ghost columns", r + rstart, rgarray[roj[q]]);
        qdi[nrd + q] = qdj[nrd + q] = -1;
        qoi[nrd + q]                = r;
        qoj[nrd + q]                = loc;
      }
    }
    PetscCall(MatSeqGKCOOSetLists_Private(Ad, n, di, dj, nrecv, qdi, qdj));
    PetscCall(MatSeqGKCOOSetLists_Private(Ao, n, oi, oj, nrecv, qoi, qoj));
    PetscCall(PetscFree4(qdi, qdj, qoi, qoj));
    PetscCall(PetscMalloc1(nr + 1, &iota));
    for (PetscCount k = 0; k <= nr; k++) iota[k] = k;
    PetscCall(GKMallocH2D(nr + 1, iota, &mg->diota));
    PetscCall(PetscFree(iota));
    PetscCall(GKMallocH2D(nr, remote, &mg->dremote));
    PetscCall(GKMalloc(nr, &mg->dsend));
    PetscCall(GKMalloc(nrecv, &mg->drecv));
    PetscCall(PetscMalloc2(nr, &mg->hsend, nrecv, &mg->hrecv));
  } else {
    PetscCall(MatSeqGKCOOSetLists_Private(Ad, n, di, dj, 0, NULL, NULL));
    PetscCall(MatSeqGKCOOSetLists_Private(Ao, n, oi, oj, 0, NULL, NULL));
  }
  mg->coonr     = nr;
  mg->coonrecv  = nrecv;
  mg->coonrd    = nrd;
  mg->coodevice = PETSC_TRUE;
  PetscCall(PetscFree4(di, dj, oi, oj));
  PetscCall(PetscFree3(remote, ri, rj));
  PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

/* The values (from device memory where v is there, else after one copy up) summed into the
   blocks' device copies: this process's entries of its own rows on the device; its entries of
   other processes' rows gathered on the device, copied down and sent through the host MPIAIJ's
   COO assembly, whose sums here go up and are added in. So only the entries crossing between
   processes pass through the host. Values from device memory leave the blocks' host values
   behind, and the matrix's operations wrapped (MPIAIJ's read the blocks' arrays); host values
   give the blocks' host copies the sums by one copy down. */
PetscErrorCode MatSetValuesCOO_MPIGK(Mat A, const PetscScalar v[], InsertMode imode)
{
  Mat_MPIGK         *mg = (Mat_MPIGK *)A->spptr;
  const PetscScalar *dv, *drecv = NULL;
  Mat                Ad, Ao;
  PetscBool          dev;

  PetscFunctionBegin;
  if (!mg->coodevice) {
    PetscCall(MatGKCOOBaseValues_Private(A, PETSC_TRUE, mg->fmt->mpitype, v, imode));
    PetscFunctionReturn(0);
  }
  PetscCall(MatGKCOOStage_Private(mg->coon, v, &mg->dv, &dv, &dev));
  if (mg->cooany) {
    Mat                Rd, Ro;
    const PetscScalar *ra;

    PetscCall(GKDev->cooscatter((PetscInt)mg->coonr, mg->diota, mg->dremote, dv, PETSC_FALSE, mg->dsend));
    GK_COUNT_BYTES((double)(2 * mg->coonr + 1) * sizeof(PetscCount) + 2.0 * mg->coonr * sizeof(PetscScalar));
    PetscCall(GKMemcpyD2H(mg->hsend, mg->dsend, (size_t)mg->coonr * sizeof(PetscScalar)));
    PetscCall(MatSetValuesCOO(mg->cooremote, mg->hsend, INSERT_VALUES));
    PetscCall(MatMPIAIJGetSeqAIJ(mg->cooremote, &Rd, &Ro, NULL));
    PetscCall(MatSeqAIJGetArrayRead(Rd, &ra));
    PetscCall(PetscArraycpy(mg->hrecv, ra, mg->coonrd));
    PetscCall(MatSeqAIJRestoreArrayRead(Rd, &ra));
    PetscCall(MatSeqAIJGetArrayRead(Ro, &ra));
    PetscCall(PetscArraycpy(mg->hrecv + mg->coonrd, ra, mg->coonrecv - mg->coonrd));
    PetscCall(MatSeqAIJRestoreArrayRead(Ro, &ra));
    PetscCall(GKMemcpyH2D(mg->drecv, mg->hrecv, (size_t)mg->coonrecv * sizeof(PetscScalar)));
    drecv = mg->drecv;
  }
  PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqGKCOOSetValues_Private(Ad, dv, drecv, imode, dev));
  PetscCall(MatSeqGKCOOSetValues_Private(Ao, dv, drecv, imode, dev));
  if (!dev) PetscCall(MatMPIGKHostSync_Private(A, PETSC_FALSE)); /* the blocks are current */
  else if (!mg->behind) {
    PetscCall(MatGKHostWrap_Private(A, &mg->own, PETSC_TRUE));
    mg->behind = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/*
   PETSc's MPIAIJ products (MatPtAP, MatMatMult, MatTransposeMatMult...: PCGAMG's and PCMG's
   coarse operators and smoothed interpolations) and graph take only matrices whose type names
   begin with "mpiaij" (MatMPIAIJGetLocalMat() checks), and make their intermediates of their
   operands' blocks' types with MatSetType(), which would empty an assembled SEQAIJ given ours. So
   each call into that code sees the device operands under MPIAIJ's names: the matrix "mpiaij",
   its blocks "seqaij", and its productsetfromoptions MPIAIJ's (so PETSc's dispatch matches
   operations as for MPIAIJ). The arrays underneath are MPIAIJ's, which that code reads. A
   sequential device matrix keeps its name (SEQAIJ's code takes it) and is given SEQAIJ's
   productsetfromoptions. Either is first brought up to date where its host values are behind.
*/

/*
   PCGAMG's strength graph of a device matrix without PETSc's transpose and sum.

   MatCreateGraph() with symmetrize on a matrix of block size 1 not known to be symmetric makes
   G = |A| + |A|^T (A + A^T where it takes no absolute values): MatTranspose(), then MatAXPY()
   over both patterns, which assembles the sum again on the host, row by row. That is most of
   the graph's time (PCGAMGCreateG in -log_view), and on a process sharing its core with the
   CUDA start-up it is GAMG's setup's largest part after the coarsening. Where A's pattern is
   symmetric, entry (i,j) of the sum is g_ij + g_ji, both already in A: written into a copy of A
   marked symmetric, PETSc's own MatCreateGraph() of the copy skips the transpose and does the
   rest (absolute values, scaling, filter) on the very values it would have summed itself. The
   graph is PETSc's, bit for bit (the sum of two doubles is the same in either order, and
   |g_ij + g_ji| = g_ij + g_ji for the absolute values it takes before the sum). Any other
   pattern keeps PETSc's path.

   On several processes an entry of the off-diagonal block, (i, J), has its mirror (J, i) on J's
   owner: every process sends its off-diagonal entries to their columns' owners (a PetscSF
   gather, the halo's size), which compare them with their own rows and take the sums.
*/
#include "mpigk.h"
#include <petscsf.h>

/* The value PETSc's graph sums: |a| where it takes absolute values first, else a */
static inline PetscScalar GraphValue(PetscScalar a, PetscBool absval)
{
  return absval ? (PetscScalar)PetscAbsScalar(a) : a;
}

/* w = g + g^T over the square block D (n rows, columns local), where D's pattern is symmetric;
   *ok false (w unset) where an entry has no mirror; w NULL: the pattern checked alone. Each
   entry's mirror from one pass over the rows (GKGraphSymmetric_Private()); each sum is the same
   at both places (the sum of two doubles is the same in either order). */
static PetscErrorCode GraphSumDiagonal(Mat D, PetscBool absval, PetscScalar **w, PetscBool *ok)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *a;
  PetscInt           n, *mirror;
  PetscBool          done;

  PetscFunctionBegin;
  if (w) *w = NULL;
  *ok = PETSC_FALSE;
  PetscCall(MatGetRowIJ(D, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (!done) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(w ? ia[n] : 0, &mirror));
  PetscCall(GKGraphSymmetric_Private(n, ia, ja, w ? mirror : NULL, ok));
  if (*ok && w) {
    PetscCall(MatSeqAIJGetArrayRead(D, &a));
    PetscCall(PetscMalloc1(ia[n], w));
    for (PetscInt k = 0; k < ia[n]; k++) (*w)[k] = GraphValue(a[k], absval) + GraphValue(a[mirror[k]], absval);
    PetscCall(MatSeqAIJRestoreArrayRead(D, &a));
  }
  PetscCall(PetscFree(mirror));
  PetscCall(MatRestoreRowIJ(D, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscFunctionReturn(0);
}

/* w = g + g^T over the off-diagonal block O of the MPIAIJ A (global columns garray): each entry
   (i, J) is sent to J's owner as (rstart + i, g); every process's rows must receive exactly
   their own off-diagonal columns. Collective; *ok is this process's answer. w NULL: the pattern
   checked alone (no values sent). */
static PetscErrorCode GraphSumOffDiagonal(Mat A, Mat O, const PetscInt garray[], PetscBool absval, PetscScalar **w, PetscBool *ok)
{
  const PetscInt    *ia, *ja, *degree;
  const PetscScalar *a;
  PetscInt           n, nin = 0, rstart, *gcol, *grow, *inrow;
  PetscScalar       *g, *inval;
  PetscSF            sf;
  PetscBool          done;

  PetscFunctionBegin;
  if (w) *w = NULL;
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetRowIJ(O, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the off-diagonal block");
  PetscCall(MatSeqAIJGetArrayRead(O, &a));
  PetscCall(PetscMalloc3(ia[n], &gcol, ia[n], &grow, w ? ia[n] : 0, &g));
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt k = ia[i]; k < ia[i + 1]; k++) {
      gcol[k] = garray[ja[k]];
      grow[k] = rstart + i;
      if (w) g[k] = GraphValue(a[k], absval);
    }
  }
  PetscCall(PetscSFCreate(PetscObjectComm((PetscObject)A), &sf));
  PetscCall(PetscSFSetGraphLayout(sf, A->rmap, ia[n], NULL, PETSC_OWN_POINTER, gcol));
  PetscCall(PetscSFComputeDegreeBegin(sf, &degree));
  PetscCall(PetscSFComputeDegreeEnd(sf, &degree));
  for (PetscInt r = 0; r < n; r++) nin += degree[r];
  PetscCall(PetscMalloc2(nin, &inrow, w ? nin : 0, &inval));
  PetscCall(PetscSFGatherBegin(sf, MPIU_INT, grow, inrow));
  PetscCall(PetscSFGatherEnd(sf, MPIU_INT, grow, inrow));
  if (w) PetscCall(PetscSFGatherBegin(sf, MPIU_SCALAR, g, inval));
  if (w) PetscCall(PetscSFGatherEnd(sf, MPIU_SCALAR, g, inval));
  /* the gathered entries come by row (each row's degree in a row), in no given order */
  *ok = (PetscBool)(nin == ia[n]);
  if (*ok && w) PetscCall(PetscMalloc1(ia[n], w));
  for (PetscInt r = 0, off = 0; r < n && *ok; off += degree[r], r++) {
    const PetscInt len = ia[r + 1] - ia[r];

    if (degree[r] != len) {
      *ok = PETSC_FALSE;
      break;
    }
    if (w) PetscCall(PetscSortIntWithScalarArray(len, inrow + off, inval + off));
    else PetscCall(PetscSortInt(len, inrow + off));
    for (PetscInt k = 0; k < len; k++) {
      /* row r's global columns ascend with garray (MPIAIJ's assembly sorts both) */
      if (gcol[ia[r] + k] != inrow[off + k]) {
        *ok = PETSC_FALSE;
        break;
      }
      if (w) (*w)[ia[r] + k] = g[ia[r] + k] + inval[off + k];
    }
  }
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscFree2(inrow, inval));
  PetscCall(PetscFree3(gcol, grow, g));
  PetscCall(MatSeqAIJRestoreArrayRead(O, &a));
  PetscCall(MatRestoreRowIJ(O, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  if (!*ok && w) PetscCall(PetscFree(*w));
  PetscFunctionReturn(0);
}

/* Whether the sum applies (*ok, the same on every process), and its values: A (block size 1, a
   plain SEQAIJ or an MPIAIJ, or a device matrix under MPIAIJ's names) must be square on every
   process and not known to be symmetric (PETSc sums nothing then). Collective. *wd and *wo (the
   diagonal and off-diagonal blocks' values) are freed by MatGKGraphSymmetrize_Private(). wd and
   wo NULL: whether the pattern is symmetric alone (known so, or every entry's mirror found), no
   values summed or sent. */
PetscErrorCode MatGKGraphSum_Private(Mat A, PetscBool absval, PetscBool *ok, PetscScalar **wd, PetscScalar **wo)
{
  PetscBool       mpi, isset, issym;
  PetscInt        bs;
  Mat             D = A, O = NULL;
  const PetscInt *garray = NULL;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (wd) *wd = *wo = NULL;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatIsSymmetricKnown(A, &isset, &issym));
  if (!wd && isset && issym) *ok = PETSC_TRUE;             /* the pattern asked alone: symmetric */
  if (bs != 1 || (isset && issym)) PetscFunctionReturn(0); /* the same on every process */
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &D, &O, &garray));
  *ok = (PetscBool)(A->rmap->rstart == A->cmap->rstart && A->rmap->n == A->cmap->n);
  if (*ok) PetscCall(GraphSumDiagonal(D, absval, wd, ok));
  if (mpi) {
    PetscBool   oko = PETSC_FALSE;
    PetscMPIInt mine, all;

    PetscCall(GraphSumOffDiagonal(A, O, garray, absval, wo, &oko));
    mine = (*ok && oko) ? 1 : 0;
    PetscCall(MPIU_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)A)));
    *ok = (PetscBool)(all == 1);
  }
  if (!*ok && wd) {
    PetscCall(PetscFree(*wd));
    PetscCall(PetscFree(*wo));
  }
  PetscFunctionReturn(0);
}

/* T (a plain SEQAIJ or MPIAIJ copy of the matrix the sums were taken of) given the sums as its
   values and marked symmetric; the sums freed */
PetscErrorCode MatGKGraphSymmetrize_Private(Mat T, PetscScalar **wd, PetscScalar **wo)
{
  Mat             D = T, O = NULL;
  const PetscInt *garray;
  PetscBool       mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)T, MATMPIAIJ, &mpi));
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(T, &D, &O, &garray));
  for (PetscInt b = 0; b < (mpi ? 2 : 1); b++) {
    Mat          M = b ? O : D;
    PetscScalar *a, *w = b ? *wo : *wd;
    MatInfo      info;

    PetscCall(MatGetInfo(M, MAT_LOCAL, &info));
    PetscCall(MatSeqAIJGetArray(M, &a));
    PetscCall(PetscArraycpy(a, w, (PetscInt)info.nz_used));
    PetscCall(MatSeqAIJRestoreArray(M, &a));
  }
  PetscCall(PetscObjectStateIncrease((PetscObject)T));
  PetscCall(MatSetOption(T, MAT_SYMMETRIC, PETSC_TRUE));
  PetscCall(PetscFree(*wd));
  PetscCall(PetscFree(*wo));
  PetscFunctionReturn(0);
}

/* The off-diagonal block O of the MPI device matrix A (names MPIAIJ's, host values current):
   its pattern copied, its weights (PetscReal, the block's order) */
static PetscErrorCode GraphOffDiagonalWeights(Mat A, PetscBool sym, PetscInt **oi, PetscInt **oj, PetscReal **w, PetscBool *ok)
{
  Mat                O;
  const PetscInt    *ia, *ja, *garray;
  const PetscScalar *a;
  PetscScalar       *ws = NULL;
  PetscInt           n;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, &O, &garray));
  *ok = PETSC_TRUE;
  if (sym) PetscCall(GraphSumOffDiagonal(A, O, garray, PETSC_TRUE, &ws, ok));
  PetscCall(MatGetRowIJ(O, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No row arrays of the off-diagonal block");
  PetscCall(PetscMalloc3(n + 1, oi, ia[n], oj, ia[n], w));
  PetscCall(PetscArraycpy(*oi, ia, n + 1));
  PetscCall(PetscArraycpy(*oj, ja, ia[n]));
  PetscCall(MatSeqAIJGetArrayRead(O, &a));
  for (PetscInt k = 0; k < ia[n] && *ok; k++) (*w)[k] = sym ? PetscRealPart(ws[k]) : PetscAbsScalar(a[k]);
  PetscCall(MatSeqAIJRestoreArrayRead(O, &a));
  PetscCall(MatRestoreRowIJ(O, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(PetscFree(ws));
  PetscFunctionReturn(0);
}

/* PCGAMG's strength graph of the MPI device matrix A (block size 1) made on the devices
   (aggmpi.c, the backend's strength with a halo): A's off-diagonal block's pattern (oi, oj: the
   ghosts' local numbers) and weights w, w_iJ = |a_iJ| + |a_Ji| where symmetrized (the mirror's
   value from J's owner, as the sum above takes it) or |a_iJ|, in host memory, freed with
   PetscFree3(*oi, *oj, *w). *ok (the same on every process) false where some entry has no
   mirror (nothing is made then). Collective. */
PetscErrorCode MatGKGraphOffDiagonal_Private(Mat A, PetscBool sym, PetscInt **oi, PetscInt **oj, PetscReal **w, PetscBool *ok)
{
  GKAsMPIAIJ     s;
  PetscErrorCode ierr;
  PetscMPIInt    mine, all;

  PetscFunctionBegin;
  *oi = *oj = NULL;
  *w        = NULL;
  PetscCall(MatMPIGKAsMPIAIJ_Private(A, PETSC_TRUE, &s));
  ierr = GraphOffDiagonalWeights(A, sym, oi, oj, w, ok);
  PetscCall(MatMPIGKAsOwn_Private(&s));
  PetscCall(ierr);
  mine = *ok ? 1 : 0;
  PetscCall(MPIU_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, PetscObjectComm((PetscObject)A)));
  *ok = (PetscBool)(all == 1);
  if (!*ok) PetscCall(PetscFree3(*oi, *oj, *w));
  PetscFunctionReturn(0);
}

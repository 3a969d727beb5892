/*
   MATSEQELLRCUDA: the ELLPACK-R format of Michels, "Sparse-Matrix-CG-Solver in CUDA", 5.3.1,
   built from the SEQAIJ master copy (the layout on the host, the entries on the device from its
   CSR arrays) and kept on the device. Transposed products
   use an explicit transposed copy, built on first use (as De Donno et al. precompute A^H).
*/
#include "mat/impls/gk/mpigk.h"
#include "ellr.h"

/* The ELLPACK-R layout settings (MatELLRCUDASetSliceHeight, ...SortWindow, ...ShortColumns) */
typedef enum {
  GK_ELLR_SLICE_HEIGHT,
  GK_ELLR_SORT_WINDOW,
  GK_ELLR_SHORT_COLUMNS,
  GK_ELLR_LAYOUTS
} GKEllrLayout;
/* MatELLRCUDASetSliceHeight() and its kin find the matrix type's own setter under this name,
   PetscErrorCode (Mat, GKEllrLayout which, PetscInt value, const char *must): the value, at least
   0, else an error that says what it must be */
#define GK_ELLR_SETLAYOUT_C "MatELLRCUDASetLayout_C"

/* why a layout was chosen automatically: the paper's single slice would exceed the fill limit,
   would hold rows of GK_ELLR_WIDE or more entries (a warp each, device.h), alike (one row a
   slice) or not (sliced and sorted), or rows of uneven lengths (sliced and sorted); or sorted
   slices would exceed the fill limit too (one row a slice, no padding) */
typedef enum {
  GK_ELLR_AUTO_NONE,
  GK_ELLR_AUTO_FILL,
  GK_ELLR_AUTO_NOPAD,
  GK_ELLR_AUTO_LONG,
  GK_ELLR_AUTO_ROWS,
  GK_ELLR_AUTO_UNEVEN
} GKEllrAuto;

typedef struct {
  PetscInt   sliceheight;       /* -mat_ellrcuda_slice_height: 0 for the paper's single slice */
  PetscInt   sortwindow;        /* -mat_ellrcuda_sort_window: rows sorted by length within windows of so many (0, 1: not) */
  PetscInt   shortcols;         /* -mat_ellrcuda_short_columns: 16-bit column offsets where they fit (1, the default) or 32-bit indices (0) */
  PetscBool  chosen;            /* the slice height or sort window was set (option or setter): the layout is never chosen automatically */
  GKEllr     A;                 /* the matrix */
  GKEllr     At;                /* its transpose, when hasAt */
  PetscInt   layA[2], layAt[2]; /* the slice height and sort window each copy was built with */
  GKEllrAuto autoA, autoAt;     /* whether, and why, that layout was chosen automatically */
  PetscBool  hasAt;
  PetscBool  norows; /* a fused solver's kernels (a thread a row) use the matrix: never one row a slice */
  size_t     bytesA, bytesAt;
  PetscInt   storedA; /* entries stored, padding included */
} Mat_SeqELLR;

/* the layout taken where the paper's would exceed the fill limit and none was chosen: slices of
   32 rows (a warp) sorted within windows of 1024 (a block of the product owns whole windows) */
#define GK_ELLR_AUTO_H     32
#define GK_ELLR_AUTO_SIGMA 1024

/* Builds one copy (the matrix or its transpose) in the layout set. Where none was set and the
   paper's single slice would hold rows of GK_ELLR_WIDE or more entries:
   - one row a slice (a group of lanes a row, device.h) where the rows are alike (the longest at
     most GK_ELLR_ROWS_ALIKE times the average) and no fused solver uses the matrix (norows);
   - else, with GK_ELLR_MANY_ROWS rows or more, sliced and sorted (a warp a row, where sorted
     slices give rows under GK_ELLR_WIDE_SORTED a thread each).
   Shorter rows of uneven lengths (the longest at least twice an average of GK_ELLR_UNEVEN or
   more), sliced and sorted: a thread a row of the paper's layout would keep its warp waiting
   for its longest row. GAMG's coarse operators have both kinds. Where
   the layout would exceed the fill limit, sliced and sorted. lay, automatic say which and why.
   A values-only build keeps the layout of the last full one. */
#define GK_ELLR_ROWS_ALIKE 4
#define GK_ELLR_UNEVEN     8
static PetscErrorCode MatSeqELLRBuildCopy_Private(Mat A, const char *what, PetscInt m, PetscInt n, const PetscInt *ai, const PetscInt *aj,
                                                  const PetscScalar *aa, const GKCsr *d, PetscBool valuesonly, GKEllr *E, size_t *bytes,
                                                  PetscInt *stored, PetscInt lay[2], GKEllrAuto *automatic)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;
  char         msg[768];
  PetscBool    fits;

  PetscFunctionBegin;
  if (!valuesonly) {
    PetscInt longest = 0;

    lay[0]     = e->sliceheight;
    lay[1]     = e->sortwindow;
    *automatic = GK_ELLR_AUTO_NONE;
    if (!e->chosen && m > 0) {
      PetscCall(GKEllrLongestRow_Private(ai, m, &longest));
      if (longest >= GK_ELLR_WIDE && !e->norows && (PetscInt64)longest * m <= (PetscInt64)GK_ELLR_ROWS_ALIKE * ai[m]) {
        PetscCall(PetscInfo(A, "%s: rows of up to %" PetscInt_FMT " entries, %.1f on average; one row a slice\n", what, longest, (double)ai[m] / m));
        lay[0]     = 1;
        lay[1]     = 0;
        *automatic = GK_ELLR_AUTO_ROWS;
      } else if ((longest >= GK_ELLR_WIDE && m >= GK_ELLR_MANY_ROWS) ||
                 (longest < GK_ELLR_WIDE && (PetscInt64)longest * m >= 2 * (PetscInt64)ai[m] && ai[m] >= (PetscInt64)GK_ELLR_UNEVEN * m)) {
        PetscCall(PetscInfo(A, "%s: rows of up to %" PetscInt_FMT " entries, %.1f on average; slices of %d rows sorted within windows of %d\n", what,
                            longest, (double)ai[m] / m, GK_ELLR_AUTO_H, GK_ELLR_AUTO_SIGMA));
        lay[0]     = GK_ELLR_AUTO_H;
        lay[1]     = GK_ELLR_AUTO_SIGMA;
        *automatic = longest >= GK_ELLR_WIDE ? GK_ELLR_AUTO_LONG : GK_ELLR_AUTO_UNEVEN;
      }
    }
  }
  PetscCall(GKEllrBuild_Private(A, what, m, n, lay[0], lay[1], (PetscBool)e->shortcols, ai, aj, aa, d, valuesonly, E, bytes, stored, &fits, msg,
                                sizeof(msg)));
  if (!fits && !valuesonly && !e->chosen && *automatic == GK_ELLR_AUTO_NONE) {
    PetscCall(PetscInfo(A, "%s: the paper's single slice exceeds the fill limit; slices of %d rows sorted within windows of %d instead\n", what,
                        GK_ELLR_AUTO_H, GK_ELLR_AUTO_SIGMA));
    lay[0]     = GK_ELLR_AUTO_H;
    lay[1]     = GK_ELLR_AUTO_SIGMA;
    *automatic = GK_ELLR_AUTO_FILL;
    PetscCall(GKEllrBuild_Private(A, what, m, n, lay[0], lay[1], (PetscBool)e->shortcols, ai, aj, aa, d, valuesonly, E, bytes, stored, &fits, msg,
                                  sizeof(msg)));
  }
  /* the fill limit holds what a user laid out; a layout chosen here always fits: one row a slice
     stores no padding (a small matrix, a transposed copy, a product with a few long rows, whose
     sorted slices of 32 rows still pad too much) */
  if (!fits && !valuesonly && !e->chosen) {
    PetscCall(PetscInfo(A, "%s: sorted slices still exceed the fill limit; one row a slice, no padding\n", what));
    lay[0]     = 1;
    lay[1]     = 0;
    *automatic = GK_ELLR_AUTO_NOPAD;
    PetscCall(GKEllrBuild_Private(A, what, m, n, lay[0], lay[1], (PetscBool)e->shortcols, ai, aj, aa, d, valuesonly, E, bytes, stored, &fits, msg,
                                  sizeof(msg)));
  }
  PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s", msg);
  PetscFunctionReturn(0);
}

/* What a product reads of E at the least: the nonzeros' values and columns (16-bit offsets or
   32-bit indices), the row lengths */
static double GKEllrLeastBytes_Private(const GKEllr *E, PetscInt nnz)
{
  return (double)nnz * ((E->sval ? GK_SINGLE_SIZE : sizeof(PetscScalar)) + (E->dcol ? sizeof(short) : sizeof(PetscInt))) +
         (double)E->m * sizeof(PetscInt);
}

/* The transposed copy dropped, after a change of values: rebuilt at its next use */
static PetscErrorCode MatSeqELLRDropTranspose_Private(Mat A)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;

  PetscFunctionBegin;
  PetscCall(GKEllrFree_Private(&e->At));
  e->hasAt   = PETSC_FALSE;
  e->bytesAt = 0;
  gk->bytes  = e->bytesA;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRBuild_Private(Mat A, PetscBool valuesonly)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR    *e  = (Mat_SeqELLR *)gk->data;
  const PetscInt  m = A->rmap->n, n = A->cmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa;
  PetscMemType    mtype;
  const GKCsr    *d;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  PetscCall(MatSeqGKKeptCsr_Private(A, &d));
  if (gk->rowstarts) ai = gk->rowstarts; /* no host pattern yet: the layout from the kept CSR's rows, the entries from d */
  PetscCall(MatSeqELLRBuildCopy_Private(A, "ELLPACK-R", m, n, ai, aj, aa, d, valuesonly, &e->A, &e->bytesA, &e->storedA, e->layA, &e->autoA));
  PetscCall(MatSeqELLRDropTranspose_Private(A));
  gk->nnz       = ai[m];
  gk->mbytes[0] = GKEllrLeastBytes_Private(&e->A, gk->nnz);
  PetscFunctionReturn(0);
}

/* New values from CSR values on the device, the pattern unchanged (COO assembly) */
static PetscErrorCode MatSeqELLRSetValues_Private(Mat A, const PetscInt *ai, const PetscInt *aj, const PetscScalar *val)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  (void)aj;
  PetscCall(GKDev->ellrfill(&e->A, ai, NULL, val, PETSC_TRUE));
  PetscCall(MatSeqGKStorageValues_Private(A, (size_t)e->A.nval, e->A.val, &e->A.sval));
  PetscCall(MatSeqELLRDropTranspose_Private(A));
  PetscFunctionReturn(0);
}

#define GK_ELLR_AT "ELLPACK-R (the transposed copy, for transposed products; its rows are A's columns)"

/* A^T's copy from the host CSR of A (its values first brought up to date where they are behind
   the device copy's), transposed on the host */
static PetscErrorCode MatSeqELLRTransposeFromHost_Private(Mat A, PetscInt *stored)
{
  Mat_SeqGK      *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR    *e  = (Mat_SeqELLR *)gk->data;
  const PetscInt  m = A->rmap->n, n = A->cmap->n;
  const PetscInt *ai, *aj;
  PetscScalar    *aa, *ata;
  PetscMemType    mtype;
  PetscInt       *ati, *atj;

  PetscFunctionBegin;
  PetscCall(MatSeqGKHostSync_Private(A, PETSC_TRUE));
  PetscCall(MatSeqAIJGetCSRAndMemType(A, &ai, &aj, &aa, &mtype));
  /* CSR of A^T: count the entries of each column, then place them row by row of A */
  PetscCall(PetscCalloc1(n + 1, &ati));
  PetscCall(PetscMalloc2(ai[m], &atj, ai[m], &ata));
  for (PetscInt k = 0; k < ai[m]; k++) ati[aj[k] + 1]++;
  for (PetscInt j = 0; j < n; j++) ati[j + 1] += ati[j];
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscInt p = ati[aj[k]]++;

      atj[p] = i;
      ata[p] = aa[k];
    }
  }
  for (PetscInt j = n; j > 0; j--) ati[j] = ati[j - 1];
  ati[0] = 0;
  PetscCall(MatSeqELLRBuildCopy_Private(A, GK_ELLR_AT, n, m, ati, atj, ata, NULL, PETSC_FALSE, &e->At, &e->bytesAt, stored, e->layAt, &e->autoAt));
  PetscCall(PetscFree(ati));
  PetscCall(PetscFree2(atj, ata));
  PetscFunctionReturn(0);
}

/* The explicit transpose A^T (n rows) in (sliced) ELLPACK-R, transposed on the device where the
   backend can (only its row starts come down, for the layout): from the device CSR A keeps, or
   its host CSR copied up (its values first brought up to date where they are behind the device
   copy's); else transposed on the host */
static PetscErrorCode MatSeqELLRBuildTranspose_Private(Mat A)
{
  Mat_SeqGK     *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR   *e  = (Mat_SeqELLR *)gk->data;
  const PetscInt m = A->rmap->n, n = A->cmap->n;
  PetscInt      *ati, stored;
  const GKCsr   *d;
  GKCsr          dt = {0, 0, 0, NULL, NULL, NULL}, up = dt;
  PetscBool      done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(MatSeqGKKeptCsr_Private(A, &d));
  if (!d) {
    PetscCall(MatSeqGKCsrToDevice_Private(A, &up));
    d = &up;
  }
  if (d->nnz) PetscCall(GKDev->transpose(d, &dt, &done));
  PetscCall(MatSeqGKReleaseCsr_Private(A, &up));
  if (done) {
    PetscCall(PetscMalloc1(n + 1, &ati));
    PetscCall(GKMemcpyD2H(ati, dt.i, sizeof(PetscInt) * (size_t)(n + 1)));
    PetscCall(
      MatSeqELLRBuildCopy_Private(A, GK_ELLR_AT, n, m, ati, NULL, NULL, &dt, PETSC_FALSE, &e->At, &e->bytesAt, &stored, e->layAt, &e->autoAt));
    PetscCall(PetscFree(ati));
    PetscCall(GKCsrFree_Private(&dt));
    PetscCall(PetscInfo(A, "%s: transposed on the %s backend\n", GK_ELLR_AT, GKDev->name));
  } else PetscCall(MatSeqELLRTransposeFromHost_Private(A, &stored));
  e->hasAt      = PETSC_TRUE;
  gk->bytes     = e->bytesA + e->bytesAt;
  gk->mbytes[1] = GKEllrLeastBytes_Private(&e->At, gk->nnz);
  PetscFunctionReturn(0);
}

/* the transposed copy, built at its first use (or ahead of it: preparetranspose) */
static PetscErrorCode MatSeqELLRPrepareTranspose_Private(Mat A)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  if (!e->hasAt) PetscCall(MatSeqELLRBuildTranspose_Private(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRReset_Private(Mat A)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;

  PetscFunctionBegin;
  PetscCall(GKEllrFree_Private(&e->A));
  PetscCall(GKEllrFree_Private(&e->At));
  e->hasAt = PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRMult_Private(Mat A, GKMatOp op, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  Mat_SeqGK   *gk = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e  = (Mat_SeqELLR *)gk->data;

  PetscFunctionBegin;
  if (op == GK_OP_N) {
    PetscCall(GKDev->ellrmult(&e->A, PETSC_FALSE, x, w, neg, y));
  } else {
    PetscCall(MatSeqELLRPrepareTranspose_Private(A));
    PetscCall(GKDev->ellrmult(&e->At, op == GK_OP_H ? PETSC_TRUE : PETSC_FALSE, x, w, neg, y));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRGetDiagonal_Private(Mat A, PetscScalar *d)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  PetscCall(GKDev->ellrgetdiagonal(&e->A, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRView_Private(Mat A, PetscViewer viewer)
{
  Mat_SeqGK   *gk     = (Mat_SeqGK *)A->spptr;
  Mat_SeqELLR *e      = (Mat_SeqELLR *)gk->data;
  const double stored = (double)e->storedA;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "ELLPACK-R (Michels 5.3.1): %" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros, Nz = %" PetscInt_FMT
                                   ", stored %.0f, fill %.3f (limit %.2f, %s)\n",
                                   e->A.m, gk->nnz, e->A.nz, stored, gk->nnz ? stored / (double)gk->nnz : 1.0, (double)gk->maxfill,
                                   gk->fmt->fillopt));
  if (e->autoA == GK_ELLR_AUTO_ROWS)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "sliced automatically: rows of up to %" PetscInt_FMT
                                     " entries (%d or more), %.1f on average (at most %dx it), so one row a slice, a group of %" PetscInt_FMT
                                     " lanes a row (set -mat_ellrcuda_slice_height or -mat_ellrcuda_sort_window to choose)\n",
                                     e->A.nz, GK_ELLR_WIDE, e->A.m ? (double)gk->nnz / e->A.m : 0.0, GK_ELLR_ROWS_ALIKE, e->A.lanes));
  else if (e->autoA == GK_ELLR_AUTO_UNEVEN)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "sliced automatically: rows of up to %" PetscInt_FMT
                                     " entries, %.1f on average (uneven: the longest at least twice the average), so slices of %" PetscInt_FMT
                                     " rows sorted within windows of %" PetscInt_FMT
                                     " (set -mat_ellrcuda_slice_height or -mat_ellrcuda_sort_window to choose)\n",
                                     e->A.nz, e->A.m ? (double)gk->nnz / e->A.m : 0.0, e->A.h, e->layA[1]));
  else if (e->autoA == GK_ELLR_AUTO_NOPAD)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "sliced automatically: the paper's single slice and sorted slices of %d rows would exceed the fill limit, so "
                                     "one row a slice, no padding (set -mat_ellrcuda_slice_height or -mat_ellrcuda_sort_window to choose)\n",
                                     GK_ELLR_AUTO_H));
  else if (e->autoA)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "sliced automatically: the paper's single slice would %s, so slices of %" PetscInt_FMT
                                     " rows sorted within windows of %" PetscInt_FMT
                                     " (set -mat_ellrcuda_slice_height or -mat_ellrcuda_sort_window to choose)\n",
                                     e->autoA == GK_ELLR_AUTO_FILL
                                       ? "exceed the fill limit"
                                       : "hold rows of " PetscStringize(GK_ELLR_WIDE) " or more entries, a warp each", e->A.h, e->layA[1]));
  else {
    if (e->layA[0])
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "sliced: slices of %" PetscInt_FMT " rows, each padded to its own longest row (-mat_ellrcuda_slice_height)\n",
                                       e->A.h));
    if (e->layA[1] > 1)
      PetscCall(PetscViewerASCIIPrintf(viewer, "sorted: rows ordered longest first within windows of %" PetscInt_FMT " (-mat_ellrcuda_sort_window)\n",
                                       e->layA[1]));
  }
  if (e->A.lanes && e->autoA != GK_ELLR_AUTO_ROWS)
    PetscCall(PetscViewerASCIIPrintf(viewer, "one row a slice: a group of %" PetscInt_FMT " lanes a row\n", e->A.lanes));
  if (e->A.nwide && e->A.h < e->A.m && !e->A.lanes) {
    const char *how = "stored one row after another without padding, a warp a row";

    if (GKEllrThreadRows(e->A.m, gk->nnz, e->A.perm ? PETSC_TRUE : PETSC_FALSE))
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "wide slices: %" PetscInt_FMT
                                       " rows in slices %d or more entries wide, or %d or more and less than half full, %s\n",
                                       e->A.nwide, GK_ELLR_WIDE_SORTED, GK_ELLR_WIDE, how));
    else
      PetscCall(
        PetscViewerASCIIPrintf(viewer, "wide slices: %" PetscInt_FMT " rows in slices %d or more entries wide, %s\n", e->A.nwide, GK_ELLR_WIDE, how));
  } else if (e->A.nwide && !e->A.lanes)
    PetscCall(
      PetscViewerASCIIPrintf(viewer, "wide: Nz is %d or more, so the rows are stored row by row, each padded to Nz, a warp a row\n", GK_ELLR_WIDE));
  if (e->A.dcol) PetscCall(PetscViewerASCIIPrintf(viewer, "columns: 16-bit offsets from each row (-mat_ellrcuda_short_columns)\n"));
  else if (e->shortcols)
    PetscCall(PetscViewerASCIIPrintf(viewer, "columns: 32-bit indices (some entry's column is more than 32768 before or 32767 after its row)\n"));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "columns: 32-bit indices (-mat_ellrcuda_short_columns false)\n"));
  if (e->hasAt) {
    char lay[128] = "";

    if (e->autoAt == GK_ELLR_AUTO_ROWS)
      PetscCall(PetscSNPrintf(lay, sizeof(lay), ", sliced automatically: one row a slice, a group of %" PetscInt_FMT " lanes a row", e->At.lanes));
    else if (e->autoAt == GK_ELLR_AUTO_NOPAD)
      PetscCall(PetscSNPrintf(lay, sizeof(lay), ", sliced automatically: one row a slice, no padding (sorted slices would exceed the fill limit)"));
    else if (e->autoAt)
      PetscCall(PetscSNPrintf(lay, sizeof(lay), ", sliced automatically: slices of %" PetscInt_FMT " rows sorted within windows of %" PetscInt_FMT,
                              e->At.h, e->layAt[1]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "transposed copy: %" PetscInt_FMT " rows, Nz = %" PetscInt_FMT ", %s columns%s\n", e->At.m, e->At.nz,
                                     e->At.dcol ? "16-bit offset" : "32-bit", lay));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRGetOperator_Private(Mat A, PetscBool transpose, GKOperator *op)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;

  PetscFunctionBegin;
  if (e->autoA == GK_ELLR_AUTO_ROWS || (transpose && e->hasAt && e->autoAt == GK_ELLR_AUTO_ROWS)) {
    /* the fused kernels take a row a thread, which one row a slice would make read across
       rows: the layout the products would have had before (sliced and sorted, or the paper's) */
    PetscCall(PetscInfo(A, "A fused solver uses the matrix: its layout chosen again without one row a slice\n"));
    e->norows = PETSC_TRUE;
    PetscCall(MatSeqGKHostSync_Private(A, PETSC_TRUE));
    if (e->autoA == GK_ELLR_AUTO_ROWS) PetscCall(MatSeqELLRBuild_Private(A, PETSC_FALSE)); /* drops the transposed copy too */
    else PetscCall(MatSeqELLRDropTranspose_Private(A));
  }
  if (transpose) PetscCall(MatSeqELLRPrepareTranspose_Private(A));
  op->ellr  = &e->A;
  op->ellrt = transpose ? &e->At : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRSettings_Private(Mat B, Mat A)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)B->spptr)->data;

  PetscFunctionBegin;
  if (A) {
    e->sliceheight = ((Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data)->sliceheight;
    e->sortwindow  = ((Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data)->sortwindow;
    e->shortcols   = ((Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data)->shortcols;
    e->chosen      = ((Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data)->chosen;
  } else {
    PetscBool flg = PETSC_TRUE, seth, sets; /* 16-bit offsets where they fit, the default */

    PetscCall(PetscOptionsGetBool(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_ellrcuda_short_columns", &flg, NULL));
    e->shortcols = flg;
    PetscCall(PetscOptionsGetInt(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_ellrcuda_slice_height", &e->sliceheight, &seth));
    PetscCall(PetscOptionsGetInt(((PetscObject)B)->options, ((PetscObject)B)->prefix, "-mat_ellrcuda_sort_window", &e->sortwindow, &sets));
    e->chosen = (PetscBool)(seth || sets);
  }
  PetscCheck(e->sliceheight >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-mat_ellrcuda_slice_height must be 0 (one slice) or more, not %" PetscInt_FMT, e->sliceheight);
  PetscCheck(e->sortwindow >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "-mat_ellrcuda_sort_window must be 0 (no sorting) or more, not %" PetscInt_FMT, e->sortwindow);
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRSetFromOptions_Private(Mat A, GKOptionItems PetscOptionsObject)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;
  PetscInt     h = e->sliceheight, sigma = e->sortwindow;
  PetscBool    set, sc                   = (PetscBool)e->shortcols;

  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_ellrcuda_slice_height",
                            "Rows of a slice, each slice padded to its own longest row (0: one slice, the paper's layout)",
                            "MatELLRCUDASetSliceHeight", h, &h, &set));
  if (set) PetscCall(MatELLRCUDASetSliceHeight(A, h));
  PetscCall(PetscOptionsInt("-mat_ellrcuda_sort_window",
                            "Rows ordered longest first within windows of so many before slicing (SELL-C-sigma; 0: not sorted)",
                            "MatELLRCUDASetSortWindow", sigma, &sigma, &set));
  if (set) PetscCall(MatELLRCUDASetSortWindow(A, sigma));
  PetscCall(PetscOptionsBool("-mat_ellrcuda_short_columns",
                             "Store the columns as 16-bit offsets from each row where all of them fit (banded matrices, stencils): 10 bytes an entry "
                             "instead of 12 (false: always 32-bit indices)",
                             "MatELLRCUDASetShortColumns", sc, &sc, &set));
  if (set) PetscCall(MatELLRCUDASetShortColumns(A, sc));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatConvert_SeqAIJ_SeqELLRCUDA(Mat, MatType, MatReuse, Mat *);
static PetscErrorCode MatSeqELLRCompose_Private(Mat, PetscBool);

static PetscErrorCode MatCreate_SeqELLRCUDA(Mat);
static PetscErrorCode MatCreate_MPIELLRCUDA(Mat);
static PetscErrorCode MatCreate_ELLRCUDA(Mat);
static PetscErrorCode MatMPIELLRCompose_Private(Mat, PetscBool);
static PetscErrorCode MatMPIELLRBlocks_Private(Mat, Mat, Mat);
static PetscErrorCode MatSeqELLROffDiag_Private(Mat);

PETSC_INTERN const GKMatFormat GKFormatELLR; /* added to the registry by src/gpukitreg.c */
const GKMatFormat              GKFormatELLR = {
  .type             = MATSEQELLRCUDA,
  .mpitype          = MATMPIELLRCUDA,
  .roottype         = MATELLRCUDA,
  .name             = "ELLPACK-R",
  .createseq        = MatCreate_SeqELLRCUDA,
  .creatempi        = MatCreate_MPIELLRCUDA,
  .createroot       = MatCreate_ELLRCUDA,
  .fillopt          = "-mat_ellrcuda_max_fill",
  .fillsetter       = "MatELLRCUDASetMaxFill",
  .defaultfill      = 4.0,
  .datasize         = sizeof(Mat_SeqELLR),
  .build            = MatSeqELLRBuild_Private,
  .setvalues        = MatSeqELLRSetValues_Private,
  .reset            = MatSeqELLRReset_Private,
  .mult             = MatSeqELLRMult_Private,
  .getdiagonal      = MatSeqELLRGetDiagonal_Private,
  .view             = MatSeqELLRView_Private,
  .settings         = MatSeqELLRSettings_Private,
  .setfromoptions   = MatSeqELLRSetFromOptions_Private,
  .getoperator      = MatSeqELLRGetOperator_Private,
  .preparetranspose = MatSeqELLRPrepareTranspose_Private,
  .convertfrom      = MatConvert_SeqAIJ_SeqELLRCUDA,
  .compose          = MatSeqELLRCompose_Private,
  .mpicompose       = MatMPIELLRCompose_Private,
  .mpiblocks        = MatMPIELLRBlocks_Private,
  .offdiag          = MatSeqELLROffDiag_Private,
  .devicecsr        = PETSC_TRUE,
};
static PetscErrorCode MatConvert_SeqAIJ_SeqELLRCUDA(Mat A, MatType type, MatReuse reuse, Mat *newmat)
{
  PetscFunctionBegin;
  PetscCall(MatConvert_SeqAIJ_SeqGK_Private(A, &GKFormatELLR, reuse, newmat));
  PetscFunctionReturn(0);
}

/*MC
   MATSEQELLRCUDA - "seqellrcuda" - a sequential matrix in ELLPACK-R storage on the GPU

   ELLPACK-R (Michels, 5.3.1) stores Nz = the longest row's length, the rows' values and columns
   as n x Nz column-major arrays padded with zeros, and each row's length, so that the product
   runs one thread per row and each thread stops at its own row's end. The matrix is a `MATSEQAIJ`
   underneath: assembly, `MatSetValues()`, `MatLoad()`, `MatConvert()` and the rest are AIJ's,
   and the device copy is rebuilt at the next product after any change (the values alone when
   the nonzero pattern is unchanged).

   Where no slice height or sort window is set, the layout follows the rows' lengths
   (`-mat_view ::ascii_info` says which, and why): rows of 32 entries or more, all within 4x their
   average (GAMG's coarse operators), one row a slice, each row's product by a group of 4 to 32
   lanes reading it contiguously (the fused solvers `KSPCGGPU` and `KSPBICGGPU`, which take a
   row a thread, store the matrix again as below at their first use); rows of 32 or more that
   vary more, on 65536 rows or more, or shorter rows of uneven lengths (the longest at least
   twice an average of 8 or more), slices of 32 rows sorted within windows of 1024; the paper's
   single slice otherwise, or where it would exceed the fill limit, those sorted slices.

   On the device: `MatMult()`, `MatMultAdd()`, `MatMultTranspose()`, `MatMultTransposeAdd()`,
   the Hermitian transposes, `MatGetDiagonal()`. Transposed products use an explicit transposed
   copy built at their first use.

   Options Database Keys:
+  -mat_type ellrcuda - selects this type with `MatSetFromOptions()` (also -dm_mat_type)
.  -mat_ellrcuda_max_fill <4> - the largest fill (stored entries / nonzeros) accepted; more is an error
.  -mat_ellrcuda_slice_height <0> - slices of h rows, each padded to its own longest row (0: one slice)
.  -mat_ellrcuda_sort_window <0> - rows ordered longest first within windows of so many rows before slicing (0: not sorted)
.  -mat_ellrcuda_short_columns <true> - the columns as 16-bit offsets from each row where every entry's offset fits,
   else 32-bit indices (false: always 32-bit)
.  -gpukit_backend <auto,cuda,host> - where the kernels run
-  -gpukit_device <n> - the CUDA device of this process

   Level: beginner

.seealso: `MATELLRCUDA`, `MATSEQDIACUDA`, `MatCreateSeqELLRCUDA()`, `MatELLRCUDASetMaxFill()`
M*/
static PetscErrorCode MatCreate_SeqELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_SeqGK_Private(B, &GKFormatELLR));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_MPIELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_MPIGK_Private(B, &GKFormatELLR));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatCreate_ELLRCUDA(Mat B)
{
  PetscFunctionBegin;
  PetscCall(MatCreate_GK_Private(B, &GKFormatELLR));
  PetscFunctionReturn(0);
}

/*@C
   MatCreateSeqELLRCUDA - Creates a sequential ELLPACK-R matrix on the GPU, preallocated as
   `MatCreateSeqAIJ()` does

   Collective

   Input Parameters:
+  comm - a communicator of one process
.  m, n - rows and columns
.  nz - nonzeros per row (the same for all rows), or
-  nnz - nonzeros in each row (or NULL)

   Output Parameter:
.  A - the matrix

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatCreateSeqAIJ()`
@*/
PetscErrorCode MatCreateSeqELLRCUDA(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt nz, const PetscInt nnz[], Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateSeqGK_Private(comm, MATSEQELLRCUDA, m, n, nz, nnz, A));
  PetscFunctionReturn(0);
}

/* Sets a layout setting of a MATSEQELLRCUDA matrix to a value of at least 0, else the error says
   what must be; the device copy is rebuilt at its next use, not when the value is unchanged.
   Composed on the matrix as GK_ELLR_SETLAYOUT_C (a MATMPIELLRCUDA matrix composes its own,
   below, which keeps the setting for its blocks). */
static PetscErrorCode MatSeqELLRSetLayout_Private(Mat A, GKEllrLayout which, PetscInt value, const char *must)
{
  Mat_SeqELLR *e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;
  PetscInt    *setting;

  PetscFunctionBegin;
  PetscCheck(value >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s, not %" PetscInt_FMT, must, value);
  setting = which == GK_ELLR_SLICE_HEIGHT ? &e->sliceheight : which == GK_ELLR_SORT_WINDOW ? &e->sortwindow : &e->shortcols;
  if (which != GK_ELLR_SHORT_COLUMNS && !e->chosen) { /* the layout set, kept even where it exceeds the fill limit */
    e->chosen = PETSC_TRUE;
    PetscCall(MatSeqGKInvalidate_Private(A));
  }
  if (*setting == value) PetscFunctionReturn(0); /* the device copy stays valid */
  *setting = value;
  PetscCall(MatSeqGKInvalidate_Private(A));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqELLRCompose_Private(Mat A, PetscBool on)
{
  PetscFunctionBegin;
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GK_ELLR_SETLAYOUT_C, on ? MatSeqELLRSetLayout_Private : NULL));
  PetscFunctionReturn(0);
}

/* the slices of an MPI matrix's off-diagonal block: its rows hold the few ghost columns of each
   row, and slices of so many bound their padding */
#define GK_OFFDIAG_SLICE 32

static PetscErrorCode MatSeqELLROffDiag_Private(Mat Ao)
{
  PetscFunctionBegin;
  PetscCall(MatELLRCUDASetSliceHeight(Ao, GK_OFFDIAG_SLICE));
  PetscCall(MatELLRCUDASetMaxFill(Ao, GK_OFFDIAG_SLICE)); /* slices bound the padding */
  PetscFunctionReturn(0);
}

/* The layout settings made on a MATMPIELLRCUDA matrix (its Mat_MPIGK's fmtdata) */
typedef struct {
  PetscInt  value[GK_ELLR_LAYOUTS];
  PetscBool set[GK_ELLR_LAYOUTS];
} GKEllrMPILayout;

/* The settings made on the MPI matrix A, given to those of its blocks that are ELLPACK-R
   matrices: all of them to the diagonal block; the sort window and the short columns to the
   off-diagonal one, whose slices stay GK_OFFDIAG_SLICE high */
static PetscErrorCode MatMPIELLRBlocks_Private(Mat A, Mat Ad, Mat Ao)
{
  GKEllrMPILayout *l    = (GKEllrMPILayout *)((Mat_MPIGK *)A->spptr)->fmtdata;
  Mat              B[2] = {Ad, Ao};

  PetscFunctionBegin;
  for (int k = 0; k < 2 && l; k++) {
    PetscBool isellr;

    if (!B[k]) continue;
    PetscCall(PetscObjectTypeCompare((PetscObject)B[k], MATSEQELLRCUDA, &isellr));
    if (!isellr) continue;
    if (!k && l->set[GK_ELLR_SLICE_HEIGHT]) PetscCall(MatELLRCUDASetSliceHeight(B[k], l->value[GK_ELLR_SLICE_HEIGHT]));
    if (l->set[GK_ELLR_SORT_WINDOW]) PetscCall(MatELLRCUDASetSortWindow(B[k], l->value[GK_ELLR_SORT_WINDOW]));
    if (l->set[GK_ELLR_SHORT_COLUMNS]) PetscCall(MatELLRCUDASetShortColumns(B[k], l->value[GK_ELLR_SHORT_COLUMNS] ? PETSC_TRUE : PETSC_FALSE));
  }
  PetscFunctionReturn(0);
}

/* A layout setting made on a MATMPIELLRCUDA matrix (composed as GK_ELLR_SETLAYOUT_C): kept, and
   given to its blocks now and whenever they are made anew */
static PetscErrorCode MatMPIELLRSetLayout_Private(Mat A, GKEllrLayout which, PetscInt value, const char *must)
{
  GKEllrMPILayout *l = (GKEllrMPILayout *)((Mat_MPIGK *)A->spptr)->fmtdata;

  PetscFunctionBegin;
  PetscCheck(value >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s, not %" PetscInt_FMT, must, value);
  l->value[which] = value;
  l->set[which]   = PETSC_TRUE;
  if (A->preallocated) {
    Mat Ad, Ao;

    PetscCall(MatMPIGKGetBlocks_Private(A, &Ad, &Ao, NULL));
    PetscCall(MatMPIELLRBlocks_Private(A, Ad, Ao));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMPIELLRCompose_Private(Mat A, PetscBool on)
{
  Mat_MPIGK *mg = (Mat_MPIGK *)A->spptr;

  PetscFunctionBegin;
  if (on && !mg->fmtdata) {
    GKEllrMPILayout *l;

    PetscCall(PetscNew(&l));
    mg->fmtdata = l;
  }
  if (!on) PetscCall(PetscFree(mg->fmtdata));
  PetscCall(PetscObjectComposeFunction((PetscObject)A, GK_ELLR_SETLAYOUT_C, on ? MatMPIELLRSetLayout_Private : NULL));
  PetscFunctionReturn(0);
}

/* The setters' common part: the matrix type's own setter, where it has one (other types are
   left alone, as PETSc's type-specific setters do) */
static PetscErrorCode MatELLRCUDASetLayout_Private(Mat A, GKEllrLayout which, PetscInt value, const char *must)
{
  PetscFunctionBegin;
  PetscTryMethod(A, GK_ELLR_SETLAYOUT_C, (Mat, GKEllrLayout, PetscInt, const char *), (A, which, value, must));
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDASetSliceHeight - Stores the rows in slices of h, each padded to its own longest row
   only, so that a few long rows no longer pad every row (h = 0: one slice, the paper's layout;
   h = 1 and no sort window: one row a slice, its product a group of lanes a row)

   Logically Collective

   Input Parameters:
+  A - the matrix
-  h - rows of a slice, or 0

   Options Database Key:
.  -mat_ellrcuda_slice_height <h> - the same

   Note:
   On a `MATMPIELLRCUDA` matrix it sets the diagonal block's slices (the off-diagonal block keeps
   its own), now and whenever new nonzeros make the blocks anew.

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatELLRCUDASetMaxFill()`
@*/
PetscErrorCode MatELLRCUDASetSliceHeight(Mat A, PetscInt h)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, h, 2);
  PetscCall(MatELLRCUDASetLayout_Private(A, GK_ELLR_SLICE_HEIGHT, h, "The slice height must be 0 (one slice) or more"));
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDASetSortWindow - Orders the rows longest first within each window of sigma rows
   before they are cut into slices (SELL-C-sigma, Kreutzer et al. 2014), so that rows of like
   length share a slice and slices pad little even where row lengths vary wildly (power-law
   matrices). Products still take and give vectors in the matrix's own order.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  sigma - rows of a window (a multiple of the slice height is best), or 0 (or 1) for no sorting

   Options Database Key:
.  -mat_ellrcuda_sort_window <sigma> - the same

   Notes:
   On a `MATMPIELLRCUDA` matrix it applies to both blocks, now and whenever new nonzeros make
   them anew.

   A window that divides 1024 lets each block of the product on the GPU own whole windows: it
   writes its rows' results in row order and reads x's entries at those rows' own columns once,
   instead of one scattered access a row for each.

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatELLRCUDASetSliceHeight()`
@*/
PetscErrorCode MatELLRCUDASetSortWindow(Mat A, PetscInt sigma)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveInt(A, sigma, 2);
  PetscCall(MatELLRCUDASetLayout_Private(A, GK_ELLR_SORT_WINDOW, sigma, "The sort window must be 0 (no sorting) or more"));
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDASetShortColumns - Stores each entry's column as a 16-bit offset from its row
   instead of a 32-bit index wherever every entry of the matrix lies between 32768 columns before
   and 32767 after its row, as in banded matrices and stencils on structured grids: the matrix then takes 10 bytes an
   entry instead of 12 (real scalars), 18 instead of 20 (complex). Where some entry does not fit,
   the columns stay 32-bit. On by default.

   Logically Collective

   Input Parameters:
+  A - the matrix
-  flg - `PETSC_TRUE` (the default) to use offsets where they fit, `PETSC_FALSE` for 32-bit indices always

   Options Database Key:
.  -mat_ellrcuda_short_columns <true> - the same

   Level: intermediate

   Notes:
   `-mat_view ::ascii_info` says which of the two the device copy uses; so does `MatELLRCUDAGetShortColumns()`.
   On a `MATMPIELLRCUDA` matrix it applies to both blocks, now and whenever new nonzeros make
   them anew.

   The offsets are the default because an entry then takes fewer bytes, and the products and
   `KSPCGGPU` iterations of banded matrices run faster with them.

.seealso: `MATSEQELLRCUDA`, `MatELLRCUDAGetShortColumns()`, `MatELLRCUDASetSliceHeight()`
@*/
PetscErrorCode MatELLRCUDASetShortColumns(Mat A, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscValidLogicalCollectiveBool(A, flg, 2);
  PetscCall(MatELLRCUDASetLayout_Private(A, GK_ELLR_SHORT_COLUMNS, flg ? 1 : 0, "Short columns are on (1) or off (0)"));
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDAGetShortColumns - Tells whether the device copy of a sequential ELLPACK-R matrix
   stores its columns as 16-bit offsets from each row (`MatELLRCUDASetShortColumns()`)

   Not Collective

   Input Parameter:
.  A - the matrix, `MATSEQELLRCUDA`

   Output Parameter:
.  flg - `PETSC_TRUE` if the columns are 16-bit offsets, `PETSC_FALSE` if they are 32-bit indices

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatELLRCUDASetShortColumns()`
@*/
PetscErrorCode MatELLRCUDAGetShortColumns(Mat A, PetscBool *flg)
{
  const GKEllr *E;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  PetscCall(MatSeqELLRCUDAGetDeviceFormat(A, &E, NULL));
  *flg = E->dcol ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
   MatELLRCUDASetMaxFill - Sets the largest fill (stored entries n Nz over nonzeros) the
   ELLPACK-R format may reach before it refuses the matrix

   Logically Collective

   Input Parameters:
+  A - the matrix
-  fill - at least 1 (default 4)

   Options Database Key:
.  -mat_ellrcuda_max_fill <fill> - the same

   Level: intermediate

.seealso: `MATSEQELLRCUDA`, `MatDIACUDASetMaxFill()`
@*/
PetscErrorCode MatELLRCUDASetMaxFill(Mat A, PetscReal fill)
{
  PetscFunctionBegin;
  PetscCall(MatSeqGKSetMaxFill_Private(A, MATSEQELLRCUDA, fill));
  PetscFunctionReturn(0);
}

/* The device arrays, brought up to date: the matrix's and, once a transposed product has been
   made, its transpose's (else NULL) */
PetscErrorCode MatSeqELLRCUDAGetDeviceFormat(Mat A, const GKEllr **E, const GKEllr **Et)
{
  Mat_SeqELLR *e;
  PetscBool    match;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQELLRCUDA, &match));
  PetscCheck(match, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a %s matrix", MATSEQELLRCUDA);
  PetscCall(MatSeqGKSyncDevice_Private(A));
  e = (Mat_SeqELLR *)((Mat_SeqGK *)A->spptr)->data;
  if (E) *E = &e->A;
  if (Et) *Et = e->hasAt ? &e->At : NULL;
  PetscFunctionReturn(0);
}

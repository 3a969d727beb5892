/*
   ELLPACK-R's layout (Michels, "Sparse-Matrix-CG-Solver in CUDA", 5.3.1, with slices and sorted
   windows): the slices, their rows' order and widths found on the host from the CSR rows'
   lengths, the entries placed on the device from the CSR arrays
*/
#include "ellr.h"
#include <limits.h>

PetscErrorCode GKEllrFree_Private(GKEllr *E)
{
  PetscFunctionBegin;
  PetscCall(GKFree(E->sliceptr));
  PetscCall(GKFree(E->rl));
  PetscCall(GKFree(E->col));
  PetscCall(GKFree(E->dcol));
  PetscCall(GKFree(E->val));
  PetscCall(GKFree(E->sval));
  PetscCall(GKFree(E->perm));
  PetscCall(GKFree(E->wide));
  PetscCall(GKFree(E->wptr));
  PetscCall(GKFree(E->wfirst));
  E->perm  = NULL;
  E->wide  = NULL;
  E->nwide = 0;
  PetscFunctionReturn(0);
}

/* The longest row, a range of rows a thread: a pass over every row of a matrix of millions (a
   DMDA's, GAMG's finest prolongator) on one core is worth the threads */
#define GK_ELLR_GRAIN 65536

typedef struct {
  const PetscInt *ai;
  PetscInt       *w; /* a part */
} GKEllrLongestCtx;

static void GKEllrLongestPart(void *arg, PetscInt part, PetscInt lo, PetscInt hi)
{
  const GKEllrLongestCtx *x = (const GKEllrLongestCtx *)arg;
  PetscInt                w = 0;

  for (PetscInt r = lo; r < hi; r++) w = PetscMax(w, x->ai[r + 1] - x->ai[r]);
  x->w[part] = w;
}

PetscErrorCode GKEllrLongestRow_Private(const PetscInt *ai, PetscInt m, PetscInt *w)
{
  GKEllrLongestCtx x = {ai, NULL};
  PetscInt         nt;

  PetscFunctionBegin;
  PetscCall(GKHostThreads_Private(m, GK_ELLR_GRAIN, &nt));
  PetscCall(PetscMalloc1(nt, &x.w));
  PetscCall(GKParallelFor_Private(m, nt, GKEllrLongestPart, &x));
  *w = 0;
  for (PetscInt p = 0; p < nt; p++) *w = PetscMax(*w, x.w[p]);
  PetscCall(PetscFree(x.w));
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt len, row;
} GKRowLen;

/* longest first, then by row: a deterministic order that keeps like rows in their order */
static int GKRowLenCompare(const void *a, const void *b)
{
  const GKRowLen *x = (const GKRowLen *)a, *y = (const GKRowLen *)b;

  if (x->len != y->len) return x->len > y->len ? -1 : 1;
  return x->row < y->row ? -1 : (x->row > y->row);
}

/* The longest row a window's counting sort takes; a window with longer rows is sorted by qsort() */
#define GK_ELLR_COUNT_MAX 1024

/* perm: each window of sigma rows ordered longest first, rows of one length in their order: a
   counting sort by length where the window's rows are short (linear, where qsort() with its
   comparison function was most of a prolongator's layout), qsort() where they are not */
static PetscErrorCode GKEllrSortWindows_Private(const PetscInt *ai, PetscInt m, PetscInt sigma, PetscInt *perm)
{
  PetscInt *cnt;
  GKRowLen *rows = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(GK_ELLR_COUNT_MAX + 2, &cnt));
  for (PetscInt w = 0; w < m; w += sigma) {
    const PetscInt e  = PetscMin(m, w + sigma);
    PetscInt       mx = 0;

    for (PetscInt i = w; i < e; i++) mx = PetscMax(mx, ai[i + 1] - ai[i]);
    if (mx <= GK_ELLR_COUNT_MAX) { /* cnt[k]: the window's rows of key mx - length below k, the slots before key k's */
      PetscCall(PetscArrayzero(cnt, mx + 2));
      for (PetscInt i = w; i < e; i++) cnt[mx - (ai[i + 1] - ai[i]) + 1]++;
      for (PetscInt k = 1; k <= mx + 1; k++) cnt[k] += cnt[k - 1];
      for (PetscInt i = w; i < e; i++) perm[w + cnt[mx - (ai[i + 1] - ai[i])]++] = i;
    } else {
      if (!rows) PetscCall(PetscMalloc1(sigma, &rows));
      for (PetscInt i = w; i < e; i++) {
        rows[i - w].len = ai[i + 1] - ai[i];
        rows[i - w].row = i;
      }
      qsort(rows, (size_t)(e - w), sizeof(GKRowLen), GKRowLenCompare);
      for (PetscInt i = w; i < e; i++) perm[i] = rows[i - w].row;
    }
  }
  PetscCall(PetscFree(rows));
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

/* The (sliced, sorted) ELLPACK-R arrays of an m x n CSR matrix (ai, aj, aa) in E on the device.
   The layout comes from the row lengths on the host: with sort window sigma > 1 the rows of
   each window of sigma ordered longest first into slots (perm), else slot i is row i; slices of
   h0 slots (0: one slice of all m), each an h x (its longest row) column-major block, entry k of
   slot s at sliceptr[s / h] + k*h + s % h, padding value 0 and column 0, or in slices at least
   GK_ELLR_WIDE wide row by row from wptr (device.h): one row after the other where sliced, the
   slice rounded up to a multiple of h entries, each row padded to Nz in the one slice of the
   paper's layout; with shortcols the columns as 16-bit offsets from the slot where all of them
   fit (device.h), padding offset 0. The entries are placed on the device, from the CSR arrays
   copied there once (ellrshortfits, ellrfill), or from d, the same CSR already in device memory
   (a device CSR the matrix keeps: PCGAMG's levels), where given. With valuesonly E keeps its
   structure and receives the values. When the padding exceeds the fill limit nothing is built and fits is
   false, msg says why. */
PetscErrorCode GKEllrBuild_Private(Mat A, const char *what, PetscInt m, PetscInt n, PetscInt h0, PetscInt sigma, PetscBool shortcols,
                                   const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, const GKCsr *d, PetscBool valuesonly, GKEllr *E,
                                   size_t *bytes, PetscInt *stored, PetscBool *fits, char *msg, size_t len)
{
  const PetscInt h  = h0 > 0 ? PetscMin(h0, PetscMax(m, 1)) : PetscMax(m, 1);
  const PetscInt ns = (m + h - 1) / h;
  PetscInt      *sp, *perm = NULL, *wide, *wptr, *wfirst, nz = 0, total, nwide = 0, *dai = NULL, *daj = NULL, longest = 0;
  PetscInt64     start;
  PetscScalar   *daa    = NULL;
  PetscBool      fits16 = PETSC_FALSE;
  char           why[320];

  PetscFunctionBegin;
  if (valuesonly) { /* the same pattern: E keeps its layout, and only the row starts and values go to the device */
    PetscCheck(E->m == m && (E->val || !ai[m]), PETSC_COMM_SELF, PETSC_ERR_PLIB, "A values-only build of %s needs the layout of a full one", what);
    if (d) PetscCall(GKDev->ellrfill(E, d->i, NULL, d->a, PETSC_TRUE));
    else {
      PetscCall(GKMallocH2D(m + 1, ai, &dai));
      PetscCall(GKMallocH2D(ai[m], aa, &daa));
      PetscCall(GKDev->ellrfill(E, dai, NULL, daa, PETSC_TRUE));
      PetscCall(GKFree(dai));
      PetscCall(GKFree(daa));
    }
    PetscCall(MatSeqGKStorageValues_Private(A, (size_t)E->nval, E->val, &E->sval));
    *fits = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (sigma > 1 && m > 1) { /* SELL-C-sigma: the slots' rows */
    PetscCall(PetscMalloc1(m, &perm));
    PetscCall(GKEllrSortWindows_Private(ai, m, sigma, perm));
  }
  const PetscBool threadrows = GKEllrThreadRows(m, ai[m], perm ? PETSC_TRUE : PETSC_FALSE);
#define GK_ROW(s)   (perm ? perm[s] : (s))
#define GK_LEN(s)   (ai[GK_ROW(s) + 1] - ai[GK_ROW(s)])
#define GK_UP(e, a) (((e) + (a) - 1) / (a) * (a))
  PetscCall(PetscMalloc4(ns + 1, &sp, ns, &wfirst, m, &wide, m, &wptr)); /* wide, wptr: at most m slots */
  /* the starts counted in 64 bits: padding can need more entries than PetscInt counts (one dense
     row among 65536), which the fill limit or the check below refuses before anything is stored */
  start = 0;
  sp[0] = 0;
  if (ns == 1) PetscCall(GKEllrLongestRow_Private(ai, m, &longest)); /* the one slice holds every row, in any order */
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt   w   = ns == 1 ? longest : 0;
    PetscInt64 sum = ns == 1 ? ai[m] : 0, next;

    for (PetscInt t = s * h; ns > 1 && t < PetscMin(m, (s + 1) * h); t++) {
      w = PetscMax(w, GK_LEN(t));
      sum += GK_LEN(t);
    }
    nz        = PetscMax(nz, w);
    next      = start + (PetscInt64)h * w;
    wfirst[s] = -1;
    /* wide from GK_ELLR_WIDE entries; with threadrows, a slice under GK_ELLR_WIDE_SORTED only
       where its rows fill less than half of it (unlike rows: a thread a row would pad and wait) */
    if (w >= GK_ELLR_WIDE && (!threadrows || w >= GK_ELLR_WIDE_SORTED ||
                              (PetscInt64)(PetscMin(m, (s + 1) * h) - s * h) * w >
                                2 * sum)) { /* row by row: one after another where sliced, each padded to Nz (w) in the one slice */
      PetscInt64 e = start;

      wfirst[s] = nwide;
      for (PetscInt t = s * h; t < PetscMin(m, (s + 1) * h); t++, nwide++) {
        wide[nwide] = t;
        wptr[nwide] = (PetscInt)PetscMin(e, PETSC_MAX_INT);
        e += h < m ? GK_LEN(t) : w;
      }
      if (h < m) next = start + GK_UP(e - start, h); /* every slice starts at a multiple of h */
    }
    start     = next;
    sp[s + 1] = (PetscInt)PetscMin(start, PETSC_MAX_INT);
  }
#undef GK_UP
#undef GK_LEN
#undef GK_ROW
  PetscCall(
    PetscSNPrintf(why, sizeof(why), "Its longest row has %" PetscInt_FMT " entries, its rows %.1f on average%s", nz, m ? (double)ai[m] / m : 0.0,
                  h == PetscMax(m, 1) && m > 32
                    ? "; slices of rows, each padded to its own longest row only, may pad far less (-mat_ellrcuda_slice_height 32 "
                      "-mat_ellrcuda_sort_window 1024)."
                    : (sigma <= 1 ? "; rows sorted by length within windows share slices with rows like them (-mat_ellrcuda_sort_window 1024)."
                                  : ".")));
  PetscCall(MatSeqGKCheckFill_Private(A, what, (double)start, ai[m], why, fits, msg, len));
  if (*fits && start > PETSC_MAX_INT) {
    *fits = PETSC_FALSE;
    PetscCall(PetscSNPrintf(msg, len,
                            "%s would store %.0f entries for %" PetscInt_FMT
                            " nonzeros, more than this PETSc's %d-bit PetscInt indexes. %s Use a format without padding (-mat_type aij), or a PETSc "
                            "configured --with-64-bit-indices",
                            what, (double)start, ai[m], (int)(8 * sizeof(PetscInt)), why));
  }
  if (!*fits) {
    PetscCall(PetscFree4(sp, wfirst, wide, wptr));
    PetscCall(PetscFree(perm));
    PetscFunctionReturn(0);
  }
  total = (PetscInt)start;
  /* the CSR arrays go to the device once (unless they are there) and the format is filled there
     (ellrfill) */
  if (d) {
    dai = d->i;
    daj = d->j;
    daa = d->a;
  } else {
    PetscCall(GKMallocH2D(m + 1, ai, &dai));
    PetscCall(GKMallocH2D(ai[m], aa, &daa));
    PetscCall(GKMallocH2D(ai[m], aj, &daj));
  }
  { /* the columns inside the copy, before anything reads x by them */
    PetscBool ok;

    PetscCall(GKDev->checkcols(ai[m], n, daj, &ok));
    if (!ok) {
      if (!d) {
        PetscCall(GKFree(dai));
        PetscCall(GKFree(daj));
        PetscCall(GKFree(daa));
      }
      PetscCall(PetscFree(perm));
      PetscCall(PetscFree4(sp, wfirst, wide, wptr));
      PetscCall(MatSeqGKColumnsError_Private(A));
    }
  }
  PetscCall(GKEllrFree_Private(E));
  E->m  = m;
  E->n  = n;
  E->nz = nz;
  E->h  = h;
  PetscCall(GKMallocH2D(ns + 1, sp, &E->sliceptr));
  PetscCall(GKMallocH2D(ns, wfirst, &E->wfirst));
  PetscCall(GKMalloc(m, &E->rl));
  PetscCall(GKMalloc(total, &E->val));
  E->nval = total;
  if (perm) PetscCall(GKMallocH2D(m, perm, &E->perm));
  E->sigma = perm ? sigma : 0;
  E->lanes = 0;
  if (h == 1 && m > 1 && !perm) { /* one row a slice: a group of lanes a row, a lane for about 4 entries */
    const double avg = (double)ai[m] / m;

    for (E->lanes = 4; E->lanes < 32 && 8 * E->lanes <= avg;) E->lanes *= 2;
  }
  E->nwide = nwide;
  if (nwide) {
    PetscCall(GKMallocH2D(nwide, wide, &E->wide));
    PetscCall(GKMallocH2D(nwide, wptr, &E->wptr));
  }
  if (shortcols) PetscCall(GKDev->ellrshortfits(E, dai, daj, &fits16)); /* 16-bit offsets where every one fits */
  if (fits16) PetscCall(GKMalloc(total, &E->dcol));
  else PetscCall(GKMalloc(total, &E->col));
  /* padding: value 0, column 0 (offset 0) */
  PetscCall(GKDev->memzero(E->val, (size_t)total * sizeof(PetscScalar)));
  if (E->dcol) PetscCall(GKDev->memzero(E->dcol, (size_t)total * sizeof(short)));
  else PetscCall(GKDev->memzero(E->col, (size_t)total * sizeof(PetscInt)));
  PetscCall(GKDev->ellrfill(E, dai, daj, daa, PETSC_FALSE));
  if (!d) {
    PetscCall(GKFree(dai));
    PetscCall(GKFree(daj));
    PetscCall(GKFree(daa));
  }
  *bytes  = (size_t)(2 * ns + 1 + m + (E->dcol ? 0 : total) + (perm ? m : 0) + 2 * E->nwide) * sizeof(PetscInt) +
            (size_t)total * (sizeof(PetscScalar) + (E->dcol ? sizeof(short) : 0));
  *stored = total;
  PetscCall(PetscFree(perm));
  PetscCall(PetscFree4(sp, wfirst, wide, wptr));
  PetscCall(MatSeqGKStorageValues_Private(A, (size_t)E->nval, E->val, &E->sval)); /* last: it may refuse (values beyond single range) */
  if (E->sval) *bytes += (size_t)total * GK_SINGLE_SIZE;
  PetscFunctionReturn(0);
}

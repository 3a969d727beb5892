/*
   MatSOR of the sequential device matrices (and so of the MPI ones' diagonal blocks, which
   MPIAIJ's MatSOR sweeps): PETSc's relaxation, flag for flag as MatSOR_SeqAIJ, on the device and
   on the format's own arrays (no second copy of the matrix). A sweep is a list of row lists,
   each list rows that do not couple, so that a launch relaxes a list's rows at once, each
   against all its entries (GKDev->ellrsor, diasor):
   - multicolor (the default): the rows coloured greedily (the symmetrised pattern), the lists
     the colours, forward in increasing colour order and backward in decreasing: exactly SOR of
     the matrix permuted colour by colour (red-black Gauss-Seidel on a 5- or 7-point grid), a
     launch per colour;
   - natural: the matrix's own order, MatSOR_SeqAIJ's sweeps to rounding, each direction's
     lists the levels of its triangular solve on the pattern made symmetric (a launch per
     level: thousands on a large grid).
   From a zero guess x starts at zero, so that the rows not yet relaxed add nothing: the
   triangular solves of SEQAIJ's zero-guess sweeps. PCEisenstat's operations (SOR_EISENSTAT,
   SOR_APPLY_UPPER) split the matrix in the same order as the sweeps, as Eisenstat's trick needs
   (any order does, if every operation takes the same). The order is made on the host from the
   CSR pattern at the first MatSOR after each change of the device copy's structure, the
   diagonal after each change of the values. A zero diagonal entry and anything else
   (SOR_APPLY_LOWER) are left to SEQAIJ's MatSOR on the host, which gives PETSc's own errors.
*/
#include "gkmat.h"
#include "vec/impls/cuda/gkvec.h"

typedef enum {
  GK_SOR_MULTICOLOR,
  GK_SOR_NATURAL
} GKSorOrdering;

static const char *const GKSorOrderings[] = {"multicolor", "natural", "GKSorOrdering", "GK_SOR_", NULL};

typedef struct {
  PetscBool        set;      /* ordering chosen by MatSetFromOptions (else read at the setup) */
  GKSorOrdering    ordering; /* of the lists below */
  PetscBool        haslists; /* the lists (and key) are those of the device copy's structure */
  PetscObjectState state;    /* the matrix's object state d and diag were made from; -1: none */
  PetscReal        shift;    /* in d */
  PetscInt         badrow;   /* the first row whose diagonal plus shift is 0 (SEQAIJ's MatSOR then), or -1 */
  PetscInt         ncolors;  /* multicolor's colours */
  PetscInt         nnz;      /* the matrix's entries, for the flop counts */
  PetscScalar     *d;        /* device: the diagonal plus the shift */
  PetscScalar     *diag;     /* device: the diagonal itself (Eisenstat's middle term) */
  PetscInt        *key;      /* device: each row's colour (multicolor; natural: NULL, the row itself) */
  PetscInt         nlev[2];  /* lists of the forward and the backward sweep */
  PetscInt        *lev[2];   /* host: the lists' starts in rows[] */
  PetscInt        *rows[2];  /* device: the lists' ELLPACK-R slots (DIA: rows), list by list */
  PetscScalar     *work;     /* device, 2 m: Eisenstat's t and y, made at its first use */
} GKSor;

static PetscErrorCode GKSorFreeArrays_Private(GKSor *so)
{
  PetscFunctionBegin;
  PetscCall(GKFree(so->d));
  PetscCall(GKFree(so->diag));
  PetscCall(GKFree(so->key));
  PetscCall(GKFree(so->work));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscFree(so->lev[k]));
    PetscCall(GKFree(so->rows[k]));
    so->nlev[k] = 0;
  }
  so->haslists = PETSC_FALSE;
  so->state    = -1;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSeqGKSORGet_Private(Mat A, GKSor **so)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (!gk->sor) {
    GKSor *s;

    PetscCall(PetscNew(&s));
    s->state  = -1;
    s->badrow = -1;
    gk->sor   = s;
  }
  *so = (GKSor *)gk->sor;
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKSORReset_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (!gk->sor) PetscFunctionReturn(0);
  PetscCall(GKSorFreeArrays_Private((GKSor *)gk->sor));
  PetscCall(PetscFree(gk->sor));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKSORInvalidate_Private(Mat A)
{
  Mat_SeqGK *gk = (Mat_SeqGK *)A->spptr;

  PetscFunctionBegin;
  if (gk->sor) PetscCall(GKSorFreeArrays_Private((GKSor *)gk->sor));
  PetscFunctionReturn(0);
}

PetscErrorCode MatSeqGKSORSetFromOptions_Private(Mat A, GKOptionItems PetscOptionsObject)
{
  GKSor    *so;
  PetscEnum o;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSORGet_Private(A, &so));
  o = (PetscEnum)so->ordering;
  PetscCall(PetscOptionsEnum("-mat_sor_ordering",
                             "MatSOR on the device (PCSOR, PCMG's smoother): multicolor (a launch per colour; the colour-permuted matrix's SOR) or "
                             "natural (AIJ's order exactly, a launch per level)",
                             "MatSOR", GKSorOrderings, o, &o, &set));
  if (set && (so->ordering != (GKSorOrdering)o || !so->set)) {
    PetscCall(GKSorFreeArrays_Private(so));
    so->ordering = (GKSorOrdering)o;
    so->set      = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* The colours and their lists made by the backend (greedycolor, grouprows) from the pattern
   copied to the device, with no host array of the size of the matrix: the same colours and lists
   as the host's below (*done), where the pattern is symmetric and the lists are of rows (DIA, and
   ELLPACK-R unsorted) */
static PetscErrorCode MatSeqGKSORColorsOnDevice_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, const GKOperator *op, GKSor *so,
                                                        PetscBool *done)
{
  PetscInt *dai = NULL, *daj = NULL;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (so->ordering != GK_SOR_MULTICOLOR || (op->ellr && op->ellr->perm)) PetscFunctionReturn(0);
  PetscCall(GKMallocH2D(m + 1, ia, &dai));
  PetscCall(GKMallocH2D(ia[m], ja, &daj));
  PetscCall(GKMalloc(m, &so->key));
  PetscCall(GKDev->greedycolor(m, dai, daj, so->key, &so->ncolors, done));
  PetscCall(GKFree(dai));
  PetscCall(GKFree(daj));
  if (!*done) {
    PetscCall(GKFree(so->key));
    PetscFunctionReturn(0);
  }
  for (int k = 0; k < 2; k++) { /* forward the colours in increasing order, backward in decreasing */
    PetscCall(PetscMalloc1(so->ncolors + 1, &so->lev[k]));
    PetscCall(GKMalloc(m, &so->rows[k]));
    PetscCall(GKDev->grouprows(m, so->key, so->ncolors, (PetscBool)k, so->lev[k], so->rows[k]));
    so->nlev[k] = so->ncolors;
  }
  PetscFunctionReturn(0);
}

/* The lists made on the host: the order (colours, or the levels of the symmetrised pattern, so
   that a row relaxed against all its entries reads the rows after it, before it backward, before
   they move, even where they do not read it), its rows grouped list by list, as ELLPACK-R's slots
   where its rows are sorted into other slots */
static PetscErrorCode MatSeqGKSORListsOnHost_Private(PetscInt m, const PetscInt *ia, const PetscInt *ja, const GKOperator *op, GKSor *so)
{
  PetscInt *key, *hrows, *sptr = NULL, *scol = NULL, *slot = NULL;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(m, &key, m, &hrows));
  if (so->ordering == GK_SOR_MULTICOLOR) {
    PetscCall(GKGraphColor_Private(m, ia, ja, key, &so->ncolors));
    PetscCall(GKMallocH2D(m, key, &so->key));
  } else {
    PetscInt *tptr, *tcol;

    PetscCall(GKGraphTranspose_Private(m, ia, ja, &tptr, &tcol));
    PetscCall(PetscMalloc2(m + 1, &sptr, ia[m] + tptr[m], &scol));
    sptr[0] = 0;
    for (PetscInt i = 0; i < m; i++) {
      PetscCall(PetscArraycpy(scol + sptr[i], ja + ia[i], ia[i + 1] - ia[i]));
      PetscCall(PetscArraycpy(scol + sptr[i] + ia[i + 1] - ia[i], tcol + tptr[i], tptr[i + 1] - tptr[i]));
      sptr[i + 1] = sptr[i] + ia[i + 1] - ia[i] + tptr[i + 1] - tptr[i];
    }
    PetscCall(PetscFree(tptr));
    PetscCall(PetscFree(tcol));
  }
  if (op->ellr && op->ellr->perm) { /* each row's slot: the inverse of the layout's rows */
    PetscInt *perm;

    PetscCall(PetscMalloc1(m, &perm));
    PetscCall(PetscMalloc1(m, &slot));
    PetscCall(GKMemcpyD2H(perm, op->ellr->perm, (size_t)m * sizeof(PetscInt)));
    for (PetscInt t = 0; t < m; t++) slot[perm[t]] = t;
    PetscCall(PetscFree(perm));
  }
  for (int k = 0; k < 2; k++) {
    PetscInt nkeys = so->ncolors;

    if (so->ordering == GK_SOR_NATURAL) PetscCall(GKGraphLevels_Private(m, sptr, scol, (PetscBool)k, key, &nkeys));
    PetscCall(GKGroupRows_Private(m, key, nkeys, (PetscBool)(k && so->ordering == GK_SOR_MULTICOLOR), &so->lev[k], hrows));
    so->nlev[k] = nkeys;
    if (slot)
      for (PetscInt q = 0; q < m; q++) hrows[q] = slot[hrows[q]];
    PetscCall(GKMallocH2D(m, hrows, &so->rows[k]));
  }
  PetscCall(PetscFree2(sptr, scol));
  PetscCall(PetscFree(slot));
  PetscCall(PetscFree2(key, hrows));
  PetscFunctionReturn(0);
}

/* The lists, for the device copy's structure: made by the backend where it can, else on the host */
static PetscErrorCode MatSeqGKSORLists_Private(Mat A, const GKOperator *op, GKSor *so)
{
  const PetscInt *ia, *ja;
  PetscInt        m;
  PetscBool       done, ondevice;

  PetscFunctionBegin;
  if (!so->set) {
    PetscEnum o = (PetscEnum)GK_SOR_MULTICOLOR;

    PetscCall(PetscOptionsGetEnum(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_sor_ordering", GKSorOrderings, &o, NULL));
    so->ordering = (GKSorOrdering)o;
  }
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSOR of the %s matrix could not read its rows", ((PetscObject)A)->type_name);
  PetscCall(MatSeqGKSORColorsOnDevice_Private(m, ia, ja, op, so, &ondevice));
  if (!ondevice) PetscCall(MatSeqGKSORListsOnHost_Private(m, ia, ja, op, so));
  so->nnz = ia[m];
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ia, &ja, &done));
  PetscCall(PetscInfo(A,
                      "MatSOR on the %s backend: %s order, %" PetscInt_FMT " rows in %" PetscInt_FMT " lists forward and %" PetscInt_FMT
                      " backward, made %s\n",
                      GKDev->name, GKSorOrderings[so->ordering], m, so->nlev[0], so->nlev[1], ondevice ? "by the backend" : "on the host"));
  so->haslists = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The device arrays for the matrix as it is now and this shift: the lists (after a change of
   structure), the diagonal (the format's own, on the device) and it plus the shift, checked for
   a zero on the device (after a change of values) */
static PetscErrorCode MatSeqGKSORSetUp_Private(Mat A, PetscReal shift, GKSor *so, GKOperator *op)
{
  Mat_SeqGK       *gk = (Mat_SeqGK *)A->spptr;
  const PetscInt   m  = A->rmap->n;
  PetscObjectState state;

  PetscFunctionBegin;
  PetscCall(MatSeqGKGetOperator(A, PETSC_FALSE, op)); /* the device copy up to date (a new structure drops the lists) */
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (so->haslists && so->state == state && so->shift == shift) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(GK_MatToDevice, A, 0, 0, 0));
  if (!so->haslists) PetscCall(MatSeqGKSORLists_Private(A, op, so));
  if (!so->diag) PetscCall(GKMalloc(m, &so->diag));
  if (!so->d) PetscCall(GKMalloc(m, &so->d));
  PetscCall(gk->fmt->getdiagonal(A, so->diag));
  PetscCall(GKDev->axpbypczd(m, 1.0, so->diag, 0.0, NULL, 0.0, shift, so->d));
  PetscCall(GKDev->firstzero(m, so->d, &so->badrow));
  PetscCall(PetscLogEventEnd(GK_MatToDevice, A, 0, 0, 0));
  so->state = state;
  so->shift = shift;
  PetscFunctionReturn(0);
}

/* One sweep: the lists of direction k (0 forward, 1 backward) in order, each a launch */
static PetscErrorCode GKSorSweep_Private(GKSor *so, const GKOperator *op, int k, PetscReal omega, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < so->nlev[k]; l++) {
    const PetscInt n = so->lev[k][l + 1] - so->lev[k][l], *rows = so->rows[k] + so->lev[k][l];

    if (op->ellr) PetscCall(GKDev->ellrsor(op->ellr, n, rows, NULL, PETSC_FALSE, so->d, omega, b, x, x));
    else PetscCall(GKDev->diasor(op->dia, n, rows, NULL, PETSC_FALSE, so->d, omega, b, x, x));
  }
  PetscFunctionReturn(0);
}

/* MatSOR_SeqAIJ's cases: from a zero guess x starts at zero (the forward sweep then solves with
   D/omega + L, a backward sweep alone with D/omega + U); every other sweep relaxes each row
   against all its entries, which in either order equals SEQAIJ's saved lower part. its x lits
   sweeps. */
PetscErrorCode MatSOR_SeqGK_Private(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_SeqGK         *gk     = (Mat_SeqGK *)A->spptr;
  const MatSORType   sweeps = (MatSORType)(SOR_FORWARD_SWEEP | SOR_BACKWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP |
                                           SOR_ZERO_INITIAL_GUESS);
  const PetscBool    fwd    = (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) ? PETSC_TRUE : PETSC_FALSE,
                     bwd    = (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool    zero   = (flag & SOR_ZERO_INITIAL_GUESS) ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool    eis    = (flag & SOR_EISENSTAT) ? PETSC_TRUE : PETSC_FALSE; /* as MatSOR_SeqAIJ tests it: the other bits ignored */
  const PetscInt     m      = A->rmap->n;
  GKSor             *so;
  const PetscScalar *b;
  PetscScalar       *x;
  PetscInt           n = its * lits, nsweeps = 0;
  GKOperator         op;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSORGet_Private(A, &so));
  if (((flag & ~sweeps) && flag != SOR_APPLY_UPPER && !eis) ||
      A->rmap->n != A->cmap->n) { /* SOR_APPLY_LOWER and the like; a rectangular block: SEQAIJ's */
    PetscCall(gk->base.sor(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(MatSeqGKSORSetUp_Private(A, fshift, so, &op));
  if (so->badrow >= 0) { /* SEQAIJ's error, or its zero-pivot flag with a shift */
    PetscCall(gk->base.sor(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqGKVecIn_Private(A, bb, m, &b));
  PetscCall(MatSeqGKVecOut_Private(A, xx, zero || flag == SOR_APPLY_UPPER || eis ? NULL : xx, m, &x));
  PetscCall(PetscLogEventBegin(GK_SSOR, A, bb, xx, 0));
  if (flag == SOR_APPLY_UPPER) { /* x = (U + D/omega) b */
    if (op.ellr) PetscCall(GKDev->ellrsor(op.ellr, 0, NULL, so->key, PETSC_TRUE, so->d, omega, NULL, b, x));
    else PetscCall(GKDev->diasor(op.dia, 0, NULL, so->key, PETSC_TRUE, so->d, omega, NULL, b, x));
    nsweeps = 1;
    n       = 0;
  } else if (eis) { /* x = (E + U)^-1 b, t = b - (2 E - D) x, y = (E + L)^-1 t, x += y; E = D/omega */
    PetscScalar *t, *y;

    if (!so->work) PetscCall(GKMalloc(2 * m, &so->work));
    t = so->work;
    y = so->work + m;
    PetscCall(GKDev->memzero(x, (size_t)m * sizeof(PetscScalar)));
    PetscCall(GKSorSweep_Private(so, &op, 1, omega, b, x));
    PetscCall(GKDev->pointwise(m, GK_POINTWISE_MULT, t, so->diag, x));
    PetscCall(GKDev->axpbypczd(m, 1.0, b, 0.0, NULL, -(2.0 / omega - 1.0), 0.0, t));
    PetscCall(GKDev->memzero(y, (size_t)m * sizeof(PetscScalar)));
    PetscCall(GKSorSweep_Private(so, &op, 0, omega, t, y));
    PetscCall(GKDev->axpbypczd(m, 1.0, y, 0.0, NULL, 1.0, 0.0, x));
    nsweeps = 2;
    n       = 0;
  } else if (zero && n > 0) PetscCall(GKDev->memzero(x, (size_t)m * sizeof(PetscScalar)));
  for (; n > 0; n--) {
    if (fwd) PetscCall(GKSorSweep_Private(so, &op, 0, omega, b, x));
    if (bwd) PetscCall(GKSorSweep_Private(so, &op, 1, omega, b, x));
    nsweeps += fwd + bwd;
  }
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogFlops((PetscLogDouble)nsweeps * (so->nnz + m)));
  PetscCall(PetscLogEventEnd(GK_SSOR, A, bb, xx, 0));
  PetscCall(MatSeqGKVecOutEnd_Private(A, xx, m, &x));
  PetscCall(MatSeqGKVecInEnd_Private(bb, &b));
  PetscFunctionReturn(0);
}

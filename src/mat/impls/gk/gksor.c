/*
   MatSOR of the sequential device matrices (and so of the MPI ones' diagonal blocks, which
   MPIAIJ's MatSOR sweeps): PETSc's relaxation, flag for flag as MatSOR_SeqAIJ, with the sweeps
   on the device. A sweep is a list of row lists, each list rows that do not couple, so that a
   launch relaxes a list's rows at once (GKDev->ssorrows, step GK_SSOR_SOR):
   - multicolor (the default): the rows coloured greedily (the symmetrised pattern), the lists
     the colours, forward in increasing colour order and backward in decreasing: exactly SOR of
     the matrix permuted colour by colour (red-black Gauss-Seidel on a 5- or 7-point grid), a
     launch per colour;
   - natural: the matrix's own order, MatSOR_SeqAIJ's sweeps to rounding, each direction's
     lists the levels of its triangular solve on the pattern made symmetric (a launch per
     level: thousands on a large grid).
   The arrays (L and U in that order, the diagonal plus the shift) are made on the host at the
   first MatSOR after each change of the matrix. PCEisenstat's operations (SOR_EISENSTAT,
   SOR_APPLY_UPPER) split the matrix in the same order as the sweeps, as Eisenstat's trick needs
   (any order does, if every operation takes the same). A zero diagonal entry and anything else
   (SOR_APPLY_LOWER) are left to SEQAIJ's MatSOR on the host, which gives PETSc's own errors.
*/
#include "gkmat.h"
#include "../../../vec/impls/cuda/gkvec.h"

typedef enum {
  GK_SOR_MULTICOLOR,
  GK_SOR_NATURAL
} GKSorOrdering;

static const char *const GKSorOrderings[] = {"multicolor", "natural", "GKSorOrdering", "GK_SOR_", NULL};

typedef struct {
  PetscBool        set;      /* ordering chosen by MatSetFromOptions (else read at the setup) */
  GKSorOrdering    ordering; /* of the arrays below */
  PetscObjectState state;    /* the matrix's object state they were made from; -1: none */
  PetscReal        shift;    /* in S.d */
  PetscInt         badrow;   /* the first row whose diagonal plus shift is 0 (SEQAIJ's MatSOR then), or -1 */
  PetscInt         ncolors;  /* multicolor's colours */
  PetscInt         nnz;      /* entries off the diagonal */
  GKSsor           S;        /* device: L, U, d + shift (device.h) */
  PetscScalar     *diag;     /* device: the diagonal itself (Eisenstat's middle term) */
  PetscScalar     *work;     /* device, m: Eisenstat's t, made at its first use */
  PetscInt         nlev[2];  /* lists of the forward and the backward sweep */
  PetscInt        *lev[2];   /* host: the lists' starts in rows[] */
  PetscInt        *rows[2];  /* device: the rows list by list */
} GKSor;

static PetscErrorCode GKSorFreeArrays_Private(GKSor *so)
{
  PetscFunctionBegin;
  PetscCall(GKFree(so->S.lptr));
  PetscCall(GKFree(so->S.lcol));
  PetscCall(GKFree(so->S.lval));
  PetscCall(GKFree(so->S.uptr));
  PetscCall(GKFree(so->S.ucol));
  PetscCall(GKFree(so->S.uval));
  PetscCall(GKFree(so->S.d));
  PetscCall(GKFree(so->diag));
  PetscCall(GKFree(so->work));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscFree(so->lev[k]));
    PetscCall(GKFree(so->rows[k]));
    so->nlev[k] = 0;
  }
  so->state = -1;
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

PetscErrorCode MatSeqGKSORSetFromOptions_Private(Mat A, GKOptionItems PetscOptionsObject)
{
  GKSor    *so;
  PetscEnum o;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSORGet_Private(A, &so));
  o = (PetscEnum)so->ordering;
  PetscCall(PetscOptionsEnum("-mat_sor_ordering", "MatSOR on the device (PCSOR, PCMG's smoother): multicolor (a launch per colour; the colour-permuted matrix's SOR) or natural (AIJ's order exactly, a launch per level)", "MatSOR", GKSorOrderings, o, &o, &set));
  if (set && (so->ordering != (GKSorOrdering)o || !so->set)) {
    PetscCall(GKSorFreeArrays_Private(so));
    so->ordering = (GKSorOrdering)o;
    so->set      = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* The arrays for the matrix as it is now and this shift: the order, L and U in it, the lists */
static PetscErrorCode MatSeqGKSORSetUp_Private(Mat A, PetscReal shift, GKSor *so)
{
  PetscObjectState   state;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscInt           m, nl = 0, nu = 0, *color = NULL, *key, *hrows, *lptr, *uptr, *lcol, *ucol, *sptr = NULL, *scol = NULL;
  PetscScalar       *lval, *uval, *d;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (so->state == state && so->shift == shift) PetscFunctionReturn(0);
  PetscCall(GKSorFreeArrays_Private(so));
  if (!so->set) {
    PetscEnum o = (PetscEnum)GK_SOR_MULTICOLOR;

    PetscCall(PetscOptionsGetEnum(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_sor_ordering", GKSorOrderings, &o, NULL));
    so->ordering = (GKSorOrdering)o;
  }
  PetscCall(PetscLogEventBegin(GK_MatToDevice, A, 0, 0, 0));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSOR of the %s matrix could not read its rows", ((PetscObject)A)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(PetscMalloc5(m, &key, m, &hrows, m + 1, &lptr, m + 1, &uptr, m, &d));
  if (so->ordering == GK_SOR_MULTICOLOR) {
    PetscCall(PetscMalloc1(m, &color));
    PetscCall(GKGraphColor_Private(m, ia, ja, color, &so->ncolors));
  }
  /* L: the entries of rows before the row's own in the order, U: after it */
  so->badrow = -1;
  lptr[0] = uptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    d[i] = shift;
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
      const PetscInt j = ja[e];

      if (j == i) d[i] += aa[e];
      else if (color ? color[j] < color[i] : j < i) nl++;
      else nu++;
    }
    lptr[i + 1] = nl;
    uptr[i + 1] = nu;
    if (so->badrow < 0 && d[i] == (PetscScalar)0.0) so->badrow = i;
  }
  PetscCall(PetscMalloc4(nl, &lcol, nl, &lval, nu, &ucol, nu, &uval));
  nl = nu = 0;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
      const PetscInt j = ja[e];

      if (j == i) continue;
      if (color ? color[j] < color[i] : j < i) {
        lcol[nl]   = j;
        lval[nl++] = aa[e];
      } else {
        ucol[nu]   = j;
        uval[nu++] = aa[e];
      }
    }
  /* the lists: the colours (forward increasing, backward decreasing), or the levels of the
     pattern made symmetric, so that a row relaxed against all its entries reads the rows after
     it (before it, backward) before they move, even where they do not read it */
  if (!color) {
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
  for (int k = 0; k < 2; k++) {
    PetscInt nkeys = so->ncolors;

    if (color) PetscCall(PetscArraycpy(key, color, m));
    else PetscCall(GKGraphLevels_Private(m, sptr, scol, (PetscBool)k, key, &nkeys));
    PetscCall(GKGroupRows_Private(m, key, nkeys, (PetscBool)(k && color), &so->lev[k], hrows));
    so->nlev[k] = nkeys;
    PetscCall(GKMallocH2D(m, hrows, &so->rows[k]));
  }
  if (!color) PetscCall(PetscFree2(sptr, scol));
  so->nnz = nl + nu;
  so->S.m = m;
  PetscCall(GKMallocH2D(m + 1, lptr, (PetscInt **)&so->S.lptr));
  PetscCall(GKMallocH2D(nl, lcol, (PetscInt **)&so->S.lcol));
  PetscCall(GKMallocH2D(nl, lval, (PetscScalar **)&so->S.lval));
  PetscCall(GKMallocH2D(m + 1, uptr, (PetscInt **)&so->S.uptr));
  PetscCall(GKMallocH2D(nu, ucol, (PetscInt **)&so->S.ucol));
  PetscCall(GKMallocH2D(nu, uval, (PetscScalar **)&so->S.uval));
  PetscCall(GKMallocH2D(m, d, (PetscScalar **)&so->S.d));
  for (PetscInt i = 0; i < m; i++) d[i] -= shift;
  PetscCall(GKMallocH2D(m, d, &so->diag));
  PetscCall(PetscFree4(lcol, lval, ucol, uval));
  PetscCall(PetscFree5(key, hrows, lptr, uptr, d));
  PetscCall(PetscFree(color));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ia, &ja, &done));
  PetscCall(PetscLogEventEnd(GK_MatToDevice, A, 0, 0, 0));
  PetscCall(PetscInfo(A, "MatSOR on the %s backend: %s order, %" PetscInt_FMT " rows in %" PetscInt_FMT " lists forward and %" PetscInt_FMT " backward\n", GKDev->name, GKSorOrderings[so->ordering], m, so->nlev[0], so->nlev[1]));
  so->state = state;
  so->shift = shift;
  PetscFunctionReturn(0);
}

/* One sweep: the lists of direction k (0 forward, 1 backward) in order, each a launch */
static PetscErrorCode GKSorSweep_Private(GKSor *so, int k, GKSsorStep step, PetscReal omega, const PetscScalar *b, PetscScalar *x)
{
  PetscFunctionBegin;
  for (PetscInt l = 0; l < so->nlev[k]; l++) PetscCall(GKDev->ssorrows(&so->S, step, so->lev[k][l + 1] - so->lev[k][l], so->rows[k] + so->lev[k][l], omega, b, x, x));
  PetscFunctionReturn(0);
}

/* MatSOR_SeqAIJ's cases: from a zero guess the forward sweep reads only L (the rows after are
   zero), a backward sweep alone only U; every other sweep relaxes each row against all its
   entries, which in either order equals SEQAIJ's saved lower part. its x lits sweeps. */
PetscErrorCode MatSOR_SeqGK_Private(Mat A, Vec bb, PetscReal omega, MatSORType flag, PetscReal fshift, PetscInt its, PetscInt lits, Vec xx)
{
  Mat_SeqGK         *gk     = (Mat_SeqGK *)A->spptr;
  const MatSORType   sweeps = (MatSORType)(SOR_FORWARD_SWEEP | SOR_BACKWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP | SOR_ZERO_INITIAL_GUESS);
  const PetscBool    fwd = (flag & (SOR_FORWARD_SWEEP | SOR_LOCAL_FORWARD_SWEEP)) ? PETSC_TRUE : PETSC_FALSE, bwd = (flag & (SOR_BACKWARD_SWEEP | SOR_LOCAL_BACKWARD_SWEEP)) ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool    zero = (flag & SOR_ZERO_INITIAL_GUESS) ? PETSC_TRUE : PETSC_FALSE;
  const PetscBool    eis  = (flag & SOR_EISENSTAT) ? PETSC_TRUE : PETSC_FALSE; /* as MatSOR_SeqAIJ tests it: the other bits ignored */
  const PetscInt     m    = A->rmap->n;
  GKSor             *so;
  const PetscScalar *b;
  PetscScalar       *x;
  PetscInt           n = its * lits, nsweeps = 0;

  PetscFunctionBegin;
  PetscCall(MatSeqGKSORGet_Private(A, &so));
  if (((flag & ~sweeps) && flag != SOR_APPLY_UPPER && !eis) || A->rmap->n != A->cmap->n) { /* SOR_APPLY_LOWER and the like; a rectangular block: SEQAIJ's */
    PetscCall(gk->base.sor(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(MatSeqGKSORSetUp_Private(A, fshift, so));
  if (so->badrow >= 0) { /* SEQAIJ's error, or its zero-pivot flag with a shift */
    PetscCall(gk->base.sor(A, bb, omega, flag, fshift, its, lits, xx));
    PetscFunctionReturn(0);
  }
  PetscCall(MatSeqGKVecIn_Private(A, bb, m, &b));
  PetscCall(MatSeqGKVecOut_Private(A, xx, zero || flag == SOR_APPLY_UPPER || eis ? NULL : xx, m, &x));
  PetscCall(PetscLogEventBegin(GK_SSOR, A, bb, xx, 0));
  if (flag == SOR_APPLY_UPPER) { /* x = (U + D/omega) b */
    PetscCall(GKDev->ssorrows(&so->S, GK_SSOR_UPPER_MULT, 0, NULL, omega, b, b, x));
    nsweeps = 1;
    n       = 0;
  } else if (eis) { /* x = (E + U)^-1 b, t = (E + L)^-1 (b - (2 E - D) x), x += t; E = D/omega */
    if (!so->work) PetscCall(GKMalloc(m, &so->work));
    PetscCall(GKSorSweep_Private(so, 1, GK_SSOR_UPPER, omega, b, x));
    PetscCall(GKDev->pointwise(m, GK_POINTWISE_MULT, so->work, so->diag, x));
    PetscCall(GKDev->axpbypczd(m, 1.0, b, 0.0, NULL, -(2.0 / omega - 1.0), 0.0, so->work));
    PetscCall(GKSorSweep_Private(so, 0, GK_SSOR_LOWER, omega, so->work, so->work));
    PetscCall(GKDev->axpbypczd(m, 1.0, so->work, 0.0, NULL, 1.0, 0.0, x));
    nsweeps = 2;
    n       = 0;
  }
  if (zero && n > 0) {
    if (fwd) PetscCall(GKSorSweep_Private(so, 0, GK_SSOR_LOWER, omega, b, x));
    if (bwd) PetscCall(GKSorSweep_Private(so, 1, fwd ? GK_SSOR_SOR : GK_SSOR_UPPER, omega, b, x));
    nsweeps += fwd + bwd;
    n--;
  }
  for (; n > 0; n--) {
    if (fwd) PetscCall(GKSorSweep_Private(so, 0, GK_SSOR_SOR, omega, b, x));
    if (bwd) PetscCall(GKSorSweep_Private(so, 1, GK_SSOR_SOR, omega, b, x));
    nsweeps += fwd + bwd;
  }
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogFlops((PetscLogDouble)nsweeps * (so->nnz + m)));
  PetscCall(PetscLogEventEnd(GK_SSOR, A, bb, xx, 0));
  PetscCall(MatSeqGKVecOutEnd_Private(A, xx, m, &x));
  PetscCall(MatSeqGKVecInEnd_Private(bb, &b));
  PetscFunctionReturn(0);
}

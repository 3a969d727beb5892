/*
   PCSSORGPU: SSOR (one symmetric sweep from a zero guess, as PCSOR with -pc_sor_symmetric) on
   the GPU, in three variants (device.h gives the one step all of them are made of):
   - natural:    exact SSOR in the matrix's own order; each triangular solve by level scheduling,
                 one launch per level of its dependency graph (the oracle: PCSOR's operator);
   - multicolor: a colouring made on the host at setup (greedy, the symmetrised pattern), the
                 sweeps colour by colour: exact SSOR of the matrix permuted colour by colour;
                 by default of blocks of rows (block SSOR, coloured as blocks) where they fit;
   - neumann:    each triangular solve replaced by k + 1 terms of its Neumann series, every
                 term a parallel step over all rows (Ament et al. 2010, whom Michels 8.1 cites).
   Michels (8.1) found SSOR cut CG's iterations sharply but could run it only sequentially. On
   several processes each applies SSOR to its diagonal block, as PETSc's MatSOR does for MPIAIJ
   with a local symmetric sweep.
*/
#include "include/gpukitimpl.h"
#include "mat/impls/gk/gkmat.h"
#include "vec/impls/cuda/gkvec.h"
#include <petsc/private/pcimpl.h>
#include <petscmat.h>

#include "ssorgpu.h"

const char *const PCSSORGPUTypes[] = {"natural", "multicolor", "neumann", "PCSSORGPUType", "PC_SSORGPU_", NULL};

static PetscErrorCode PCSSORGPUReset_Private(PC_SSORGPU *s)
{
  PetscFunctionBegin;
  PetscCall(GKFree(s->Sa.slval));
  PetscCall(GKFree(s->Sa.suval));
  for (int k = 0; k < 2; k++) PetscCall(GKFree(s->Sa.spval[k]));
  PetscCall(PetscMemzero(&s->Sa, sizeof(s->Sa)));
  PetscCall(GKFree(s->S.lptr));
  PetscCall(GKFree(s->S.lcol));
  PetscCall(GKFree(s->S.lval));
  PetscCall(GKFree(s->S.uptr));
  PetscCall(GKFree(s->S.ucol));
  PetscCall(GKFree(s->S.uval));
  PetscCall(GKFree(s->S.d));
  for (int k = 0; k < 2; k++) {
    PetscCall(GKFree(s->S.pcol[k]));
    PetscCall(GKFree(s->S.pdel[k]));
    PetscCall(GKFree(s->S.pval[k]));
  }
  PetscCall(GKFree(s->S.pd));
  PetscCall(GKFree(s->S.bcolors));
  PetscCall(GKFree(s->S.fac));
  PetscCall(PetscFree(s->blk));
  s->nblk = s->S.nblk = 0;
  PetscCall(GKFree(s->iperm));
  PetscCall(PetscFree(s->pcolors));
  for (int k = 0; k < 2; k++) {
    PetscCall(PetscFree(s->lev[k]));
    PetscCall(GKFree(s->rows[k]));
    s->nlev[k] = 0;
  }
  for (int k = 0; k < 4; k++) PetscCall(VecDestroy(&s->w[k]));
  PetscCall(GKFree(s->scale));
  PetscCall(PetscFree(s->color));
  s->ncolors = 0;
  s->badrow  = -1;
  PetscFunctionReturn(0);
}

/* What the PC's application reads (s->Sa): S, and where the matrix stores its values in single
   precision (-mat_gpukit_storage single) L's and U's values rounded so, which its sweeps then
   read (nl, nu: L's and U's entries; with blocks the permuted copy's); a preconditioner that
   rounds its data is still one fixed operator, symmetric where the matrix is, so the Krylov
   method on the double operator reaches its answer as before. */
static PetscErrorCode PCSSORGPUSingle_Private(PC pc, PC_SSORGPU *s, PetscInt nl, PetscInt nu)
{
  PetscGPUKitStorage st;

  PetscFunctionBegin;
  s->Sa = s->S;
  PetscCall(MatGPUKitGetStorage(pc->pmat, &st));
  if (st != PETSCGPUKIT_STORAGE_SINGLE) PetscFunctionReturn(0);
  if (s->blk) {
    for (int t = 0; t < 2; t++)
      if (s->npval[t]) PetscCall(GKDemoteValues_Private("PC ssorgpu's", (size_t)s->npval[t], s->S.pval[t], (void **)&s->Sa.spval[t]));
  } else {
    if (nl) PetscCall(GKDemoteValues_Private("PC ssorgpu's", (size_t)nl, s->S.lval, (void **)&s->Sa.slval));
    if (nu) PetscCall(GKDemoteValues_Private("PC ssorgpu's", (size_t)nu, s->S.uval, (void **)&s->Sa.suval));
  }
  PetscFunctionReturn(0);
}

/* The setup with blocks of bsz rows (1: points); *fallback set where the automatic block size
   cannot take blocks (blocks neither symmetric nor Hermitian, or a pivot SSOR cannot divide by) */
static PetscErrorCode PCSSORGPUSetUpWith_Private(PC pc, PetscBool *fallback)
{
  PC_SSORGPU        *s = (PC_SSORGPU *)pc->data;
  Mat                P = pc->pmat, B, Bc = NULL;
  PetscBool          isaij, hasrow, done;
  const PetscInt    *ia, *ja;
  const PetscScalar *aa;
  PetscInt           m, *key, *hrows, *lptr, *uptr, *lcol, *ucol, nl = 0, nu = 0;
  PetscScalar       *lval, *uval, *d;
  PetscMPIInt        size;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(PCSSORGPUReset_Private(s));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(MatHasOperation(P, MATOP_GET_ROW, &hasrow));
  PetscCheck(hasrow, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PC %s sweeps over the matrix's entries, and a %s matrix has none: assemble a sparse matrix (aij, ellrcuda, diacuda)", PCSSORGPU,
             ((PetscObject)P)->type_name);
  PetscCall(MatGetDiagonalBlock(P, &B)); /* the matrix itself on one process */
  PetscCall(GKMatIsDevice_Private(B, &isaij, NULL));
  if (!isaij) PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJ, &isaij));
  if (!isaij) { /* BAIJ, SBAIJ... */
    PetscCall(MatConvert(B, MATSEQAIJ, MAT_INITIAL_MATRIX, &Bc));
    B = Bc;
  }
  PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "PC %s could not read the rows of the %s block", PCSSORGPU, ((PetscObject)B)->type_name);
  PetscCall(MatSeqAIJGetArrayRead(B, &aa));
  s->m = m;
  /* the order: natural, or colour by colour; key[i] sorts row i into it */
  PetscCall(PetscMalloc4(m, &key, m, &hrows, m + 1, &lptr, m + 1, &uptr));
  PetscCall(PetscMalloc1(m, &d));
  *fallback = PETSC_FALSE;
  if (s->bsz > 1) PetscCall(PCSSORGPUBlocks_Private(s, m, ia, ja)); /* the blocks and their colours */
  else if (s->type == PC_SSORGPU_MULTICOLOR) {
    PetscCall(PetscMalloc1(m, &s->color));
    PetscCall(GKGraphColor_Private(m, ia, ja, s->color, &s->ncolors));
  }
  /* L and U: the entries before and after each row's own in the order, and the diagonal */
  lptr[0] = uptr[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    d[i] = 0.0;
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
      const PetscInt j      = ja[e];
      const PetscInt before = s->color ? s->color[j] < s->color[i] : j < i, after = s->color ? s->color[j] > s->color[i] : j > i;

      if (j == i) d[i] += aa[e];
      else if (before) nl++;
      else if (after) nu++;
      else if (s->blk && s->blk[j] == s->blk[i]) continue; /* D_B's */
      else
        SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "Rows %" PetscInt_FMT " and %" PetscInt_FMT " couple but share colour %" PetscInt_FMT, i, j,
                s->color[i]);
    }
    lptr[i + 1] = nl;
    uptr[i + 1] = nu;
    if (!s->blk && s->badrow < 0 && d[i] == (PetscScalar)0.0) { /* SSOR divides by d: it needs it nonzero, not positive (PCSOR) */
      s->badrow  = i;
      s->baddiag = d[i];
    }
  }
  PetscCall(PetscMalloc4(nl, &lcol, nl, &lval, nu, &ucol, nu, &uval));
  nl = nu = 0;
  for (PetscInt i = 0; i < m; i++)
    for (PetscInt e = ia[i]; e < ia[i + 1]; e++) {
      const PetscInt j = ja[e];

      if (j == i || (s->blk && s->blk[j] == s->blk[i])) continue;
      if (s->color ? s->color[j] < s->color[i] : j < i) {
        lcol[nl]   = j;
        lval[nl++] = aa[e];
      } else {
        ucol[nu]   = j;
        uval[nu++] = aa[e];
      }
    }
  /* the sweeps' lists: levels of L's and U's dependency graphs (natural), or the colours; blocks:
     the permuted copy, where all their sweeps run */
  if (s->blk) {
    const PetscInt    *ptr[2] = {lptr, uptr}, *col[2] = {lcol, ucol};
    const PetscScalar *val[2] = {lval, uval};

    PetscBool ok = PETSC_FALSE;

    PetscCall(PCSSORGPUPermuteBlocks_Private(pc, s, ptr, col, val, ia, ja, aa, &ok));
    *fallback = (PetscBool)(!ok || (!s->bs && s->badrow >= 0));
  } else if (s->type != PC_SSORGPU_NEUMANN) {
    for (int k = 0; k < 2; k++) {
      PetscInt nkeys = 0;

      if (s->color) {
        PetscCall(PetscArraycpy(key, s->color, m));
        nkeys = s->ncolors;
      } else
        PetscCall(GKGraphLevels_Private(m, k ? uptr : lptr, k ? ucol : lcol, (PetscBool)k, key,
                                        &nkeys)); /* forward after every row of L_i, backward of U_i */
      PetscCall(GKGroupRows_Private(m, key, nkeys, (PetscBool)(k && s->color), &s->lev[k], hrows));
      s->nlev[k] = nkeys;
      PetscCall(GKMallocH2D(m, hrows, &s->rows[k]));
      if (s->color && !k && size == 1) { /* the forward order, colour by colour: the permuted copy's (cggpu's Eisenstat iterations, one process) */
        const PetscInt    *ptr[2] = {lptr, uptr}, *col[2] = {lcol, ucol};
        const PetscScalar *val[2] = {lval, uval};

        PetscCall(PCSSORGPUPermuteRows_Private(s, hrows, ptr, col, val, d));
      }
    }
  }
  s->S.m = m;
  if (!s->blk) { /* the matrix's own order's arrays (blocks use only the copy's) */
    PetscCall(GKMallocH2D(m + 1, lptr, (PetscInt **)&s->S.lptr));
    PetscCall(GKMallocH2D(nl, lcol, (PetscInt **)&s->S.lcol));
    PetscCall(GKMallocH2D(nl, lval, (PetscScalar **)&s->S.lval));
    PetscCall(GKMallocH2D(m + 1, uptr, (PetscInt **)&s->S.uptr));
    PetscCall(GKMallocH2D(nu, ucol, (PetscInt **)&s->S.ucol));
    PetscCall(GKMallocH2D(nu, uval, (PetscScalar **)&s->S.uval));
    PetscCall(GKMallocH2D(m, d, (PetscScalar **)&s->S.d));
  }
  PetscCall(PetscFree4(lcol, lval, ucol, uval));
  PetscCall(PetscFree4(key, hrows, lptr, uptr));
  PetscCall(PetscFree(d));
  PetscCall(MatSeqAIJRestoreArrayRead(B, &aa));
  PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ia, &ja, &done));
  PetscCall(MatDestroy(&Bc));
  for (int k = 0; k < 4; k++) {
    PetscCall(VecCreate(PETSC_COMM_SELF, &s->w[k]));
    PetscCall(VecSetSizes(s->w[k], m, m));
    PetscCall(VecSetType(s->w[k], VECSEQGKCUDA));
  }
  PetscCall(PCSSORGPUSingle_Private(pc, s, nl, nu));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_SSORGPU(PC pc)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;
  PetscBool   fallback;

  PetscFunctionBegin;
  PetscCheck(s->bs <= 1 || s->type == PC_SSORGPU_MULTICOLOR, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
             "-pc_ssorgpu_block_size applies to -pc_ssorgpu_type multicolor, not %s: use multicolor or block size 1", PCSSORGPUTypes[s->type]);
  s->bsz = s->bs ? s->bs : s->type == PC_SSORGPU_MULTICOLOR ? GK_SSOR_AUTO_BS : 1;
  PetscCall(PCSSORGPUSetUpWith_Private(pc, &fallback));
  if (fallback) { /* the automatic block size: points */
    PetscCall(PetscInfo(pc, "SSOR blocks of %" PetscInt_FMT " rows %s: points instead\n", s->bsz,
                        s->badrow >= 0 ? "meet a zero pivot" : "are neither symmetric nor Hermitian"));
    s->bsz = 1;
    PetscCall(PCSSORGPUSetUpWith_Private(pc, &fallback));
  }
  PetscCall(PetscInfo(pc, "SSOR (%s, omega %g): %" PetscInt_FMT " rows, %" PetscInt_FMT " %s\n", PCSSORGPUTypes[s->type], (double)s->omega, s->m,
                      s->color ? s->ncolors : s->nlev[0],
                      s->color ? "colours" : (s->type == PC_SSORGPU_NEUMANN ? "levels (not used)" : "levels forward")));
  if (s->blk)
    PetscCall(PetscInfo(pc, "SSOR blocks: %" PetscInt_FMT " of at most %" PetscInt_FMT " rows, factored as F Delta F^%s\n", s->nblk, s->bsz,
                        s->S.herm ? "H" : "T"));
  if (s->badrow >= 0) { /* the PETSc way: the KSP ends KSP_DIVERGED_PC_FAILED, or errors when asked to */
    char msg[256];

    PetscCall(PCSSORGPUFailure_Private(pc, msg, sizeof(msg)));
    PetscCheck(!pc->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s", msg);
    PetscCall(PetscInfo(pc, "%s: the PC fails\n", msg));
    PetscCall(PCSetFailedReason(pc, PC_FACTOR_NUMERIC_ZEROPIVOT));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode PCSSORGPUFailure_Private(PC pc, char *msg, size_t len)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;
  PetscInt    rstart;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(pc->pmat, &rstart, NULL));
  PetscCall(PetscSNPrintf(msg, len, "PC %s: the %s of row %" PetscInt_FMT " is %g%s: SSOR divides by it and needs it nonzero", PCSSORGPU,
                          s->blk ? "pivot of its diagonal block's factorisation" : "diagonal entry", s->badrow + rstart,
                          (double)PetscRealPart(s->baddiag), PetscImaginaryPart(s->baddiag) != 0.0 ? " (complex)" : ""));
  PetscFunctionReturn(0);
}

/* Neumann: each triangular solve as its series' first terms + 1 terms, each term one step of
   all rows out of place (term 0, from a zero xin, is w D^-1 b for L and (2 - w) b for U): the
   lower series of b into one of t[], then the upper series of that into y */
PetscErrorCode PCSSORGPUSweep_Private(PC_SSORGPU *s, const GKSsor *S, GKSsorStep step, const PetscScalar *b, PetscScalar *x)
{
  const int k = step == GK_SSOR_LOWER ? 0 : 1;

  PetscFunctionBegin;
  for (PetscInt l = 0; l < s->nlev[k]; l++)
    PetscCall(GKDev->ssorrows(S, step, s->lev[k][l + 1] - s->lev[k][l], s->rows[k] + s->lev[k][l], s->omega, b ? b : x, x, x));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSSORGPUBlockSweep_Private(PC_SSORGPU *s, const GKSsor *S, GKSsorStep step, const PetscScalar *b, const PetscScalar *xin,
                                           PetscScalar *xout)
{
  const PetscBool backward = step == GK_SSOR_UPPER || step == GK_SSOR_UPPER_SSOR ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < s->ncolors; k++)
    PetscCall(GKDev->ssorblocks(S, step, &s->pcolors[backward ? s->ncolors - 1 - k : k], s->omega, b, xin, xout));
  PetscFunctionReturn(0);
}

/* One series of rhs into *cur, the terms alternating between *cur and *other (both swapped to
   where the result and the free buffer end up) */
static PetscErrorCode PCSSORGPUSeries_Private(PC_SSORGPU *s, GKSsorStep step, const PetscScalar *rhs, PetscScalar **cur, PetscScalar **other)
{
  PetscFunctionBegin;
  PetscCall(GKDev->memzero(*other, (size_t)s->m * sizeof(PetscScalar)));
  PetscCall(GKDev->ssorrows(&s->Sa, step, 0, NULL, s->omega, rhs, *other, *cur));
  for (PetscInt k = 0; k < s->terms; k++) {
    PetscScalar *tmp = *cur;

    PetscCall(GKDev->ssorrows(&s->Sa, step, 0, NULL, s->omega, rhs, *cur, *other));
    *cur   = *other;
    *other = tmp;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUNeumann_Private(PC_SSORGPU *s, const PetscScalar *b, PetscScalar *t[2], PetscScalar *y)
{
  PetscScalar *cur = t[0], *other = t[1], *x1;

  PetscFunctionBegin;
  PetscCall(PCSSORGPUSeries_Private(s, GK_SSOR_LOWER, b, &cur, &other));
  x1  = cur;
  cur = y; /* other: the free buffer */
  PetscCall(PCSSORGPUSeries_Private(s, GK_SSOR_UPPER_SSOR, x1, &cur, &other));
  if (cur != y) PetscCall(GKMemcpyD2D(y, cur, (size_t)s->m * sizeof(PetscScalar)));
  PetscFunctionReturn(0);
}

/* y = M^-1 x on this process's rows; host vectors are staged through w[0] (x) and w[3] (y) */
static PetscErrorCode PCApply_SSORGPU(PC pc, Vec x, Vec y)
{
  PC_SSORGPU        *s  = (PC_SSORGPU *)pc->data;
  const PetscBool    dx = VecIsGK(x), dy = VecIsGK(y);
  const size_t       bytes = (size_t)s->m * sizeof(PetscScalar);
  const PetscScalar *b, *xa;
  PetscScalar       *yd, *ya, *t[2], *w0;
  Vec                X = dx ? x : s->w[0], Y = dy ? y : s->w[3];

  PetscFunctionBegin;
  if (s->badrow >= 0) { /* failed at setup: Inf, which the KSP's norm turns into KSP_DIVERGED_PC_FAILED */
    PetscCall(VecFlag(y, 1));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(GK_SSOR, pc, x, y, 0));
  if (!dx) {
    PetscCall(VecGetArrayRead(x, &xa));
    PetscCall(VecGPUKitGetDeviceArrayWrite(X, &w0));
    PetscCall(GKMemcpyH2D(w0, xa, bytes));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(X, &w0));
    PetscCall(VecRestoreArrayRead(x, &xa));
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(X, &b));
  PetscCall(VecGPUKitGetDeviceArrayWrite(Y, &yd));
  if (s->blk) { /* in the permuted copy, block by block: b there (w[1]), the sweeps in place (w[2]), y back */
    PetscScalar *bp, *yp;

    PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[1], &bp));
    PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[2], &yp));
    PetscCall(GKDev->gather(s->m, s->rows[0], b, bp));
    PetscCall(PCSSORGPUBlockSweep_Private(s, &s->Sa, GK_SSOR_LOWER, bp, yp, yp));
    PetscCall(PCSSORGPUBlockSweep_Private(s, &s->Sa, GK_SSOR_UPPER_SSOR, yp, yp, yp));
    PetscCall(GKDev->gather(s->m, s->iperm, yp, yd));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[1], &bp));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[2], &yp));
  } else if (s->type != PC_SSORGPU_NEUMANN) { /* in place, level by level (or colour by colour): the sweeps */
    PetscCall(PCSSORGPUSweep_Private(s, &s->Sa, GK_SSOR_LOWER, b, yd));
    PetscCall(PCSSORGPUSweep_Private(s, &s->Sa, GK_SSOR_UPPER_SSOR, NULL, yd));
  } else {
    PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[1], &t[0]));
    PetscCall(VecGPUKitGetDeviceArrayWrite(s->w[2], &t[1]));
    PetscCall(PCSSORGPUNeumann_Private(s, b, t, yd));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[1], &t[0]));
    PetscCall(VecGPUKitRestoreDeviceArrayWrite(s->w[2], &t[1]));
  }
  PetscCall(VecGPUKitRestoreDeviceArrayRead(X, &b));
  if (!dy) {
    PetscCall(VecGetArrayWrite(y, &ya));
    PetscCall(GKMemcpyD2H(ya, yd, bytes));
    PetscCall(VecRestoreArrayWrite(y, &ya));
  }
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(Y, &yd));
  PetscCall(PetscGPUKitLogSync_Private());
  PetscCall(PetscLogEventEnd(GK_SSOR, pc, x, y, 0));
  PetscFunctionReturn(0);
}

/* SSOR's sweeps are one symmetric operator (D/w + U)^-1 ((2 - w)/w) D (D/w + L)^-1 where the
   matrix is symmetric, and so are its multicolour, block and Neumann forms: the transpose is the
   application itself. As PCSOR, only where the matrix is known symmetric (MatSetOption
   MAT_SYMMETRIC): BiCG and KSPSolveTranspose need it. */
static PetscErrorCode PCApplyTranspose_SSORGPU(PC pc, Vec x, Vec y)
{
  PetscBool set, sym;

  PetscFunctionBegin;
  PetscCall(MatIsSymmetricKnown(pc->pmat, &set, &sym));
  PetscCheck(set && sym, PetscObjectComm((PetscObject)pc), PETSC_ERR_SUP,
             "PC %s applies its transpose only where the matrix is known symmetric (then SSOR is a symmetric operator): MatSetOption(A, "
             "MAT_SYMMETRIC, PETSC_TRUE), or a KSP that needs no transpose",
             PCSSORGPU);
  PetscCall(PCApply_SSORGPU(pc, x, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetFromOptions_SSORGPU(PC pc, GKOptionItems PetscOptionsObject)
{
  PC_SSORGPU   *s     = (PC_SSORGPU *)pc->data;
  PCSSORGPUType type  = s->type;
  PetscReal     omega = s->omega;
  PetscInt      terms = s->terms, bs = s->bs;
  PetscBool     set;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "SSOR on the GPU (ssorgpu) options");
  PetscCall(PetscOptionsEnum("-pc_ssorgpu_type",
                             "natural (exact, level scheduled), multicolor (exact for the colour-permuted matrix) or neumann (truncated series)",
                             "PCSSORGPUSetType", PCSSORGPUTypes, (PetscEnum)type, (PetscEnum *)&type, &set));
  if (set) PetscCall(PCSSORGPUSetType(pc, type));
  PetscCall(PetscOptionsReal("-pc_ssorgpu_omega", "The relaxation factor, 0 < omega < 2", "PCSSORGPUSetOmega", omega, &omega, &set));
  if (set) PetscCall(PCSSORGPUSetOmega(pc, omega));
  PetscCall(PetscOptionsInt("-pc_ssorgpu_neumann_terms", "neumann: terms of each triangular solve's series after the first (0: Jacobi scaling)",
                            "PCSSORGPUSetNeumannTerms", terms, &terms, &set));
  if (set) PetscCall(PCSSORGPUSetNeumannTerms(pc, terms));
  PetscCall(PetscOptionsInt("-pc_ssorgpu_block_size",
                            "multicolor: block SSOR of blocks of at most so many rows grown from the matrix's graph (1: points; 0: 4 where the "
                            "blocks are symmetric or Hermitian and factor, else points)",
                            "PCSSORGPUSetBlockSize", bs, &bs, &set));
  if (set) PetscCall(PCSSORGPUSetBlockSize(pc, bs));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_SSORGPU(PC pc, PetscViewer viewer)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;
  PetscBool   iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "  SSOR on the GPU, %s, omega = %g%s\n", PCSSORGPUTypes[s->type], (double)s->omega,
                                   s->type == PC_SSORGPU_NEUMANN ? "" : ", one symmetric sweep from a zero guess"));
  if (s->type == PC_SSORGPU_NEUMANN)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  each triangular solve as %" PetscInt_FMT " term%s of its Neumann series\n", s->terms + 1,
                                     s->terms ? "s" : ""));
  else if (s->type == PC_SSORGPU_MULTICOLOR) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " colours (first process)\n", s->ncolors));
    if (s->blk)
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "  block SSOR: %" PetscInt_FMT " blocks of at most %" PetscInt_FMT
                                       " rows grown from the matrix's graph, coloured as blocks (first process)%s\n",
                                       s->nblk, s->bsz, s->bs ? "" : "; the automatic block size"));
    else if (!s->bs && s->bsz == 1 && s->pcolors)
      PetscCall(
        PetscViewerASCIIPrintf(viewer,
                               "  points: the automatic block size found the matrix's diagonal blocks unfit for block SSOR (first process)\n"));
    if (s->pcolors)
      PetscCall(PetscViewerASCIIPrintf(viewer, "  cggpu iterates in a colour-permuted copy, columns of L in %d bits and of U in %d\n",
                                       s->S.pdel[0] ? 16 : 32, s->S.pdel[1] ? 16 : 32));
  } else
    PetscCall(PetscViewerASCIIPrintf(viewer, "  level scheduled: %" PetscInt_FMT " levels forward, %" PetscInt_FMT " backward (first process)\n",
                                     s->nlev[0], s->nlev[1]));
  if (s->Sa.slval || s->Sa.suval || s->Sa.spval[0] || s->Sa.spval[1])
    PetscCall(PetscViewerASCIIPrintf(viewer, "  L's and U's values in single precision storage, as the matrix's (the diagonal%s in double)\n",
                                     s->blk ? " blocks' factors" : ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCReset_SSORGPU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCSSORGPUReset_Private((PC_SSORGPU *)pc->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_SSORGPU(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_SSORGPU(pc));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUGetColors_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUGetBlocks_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetBlockSize_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetType_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetOmega_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetNeumannTerms_C", NULL));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, GK_EISENSTAT_C, NULL));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUGetBlocks_SSORGPU(PC pc, PetscInt *nblocks, const PetscInt *blocks[])
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  *nblocks = s->nblk;
  *blocks  = s->blk;
  PetscFunctionReturn(0);
}

/*@C
   PCSSORGPUGetBlocks - The blocks of a set-up `PCSSORGPU` of type multicolor with a block size
   above 1: their number on this process and each of its rows' block (0 and NULL otherwise)

   Not Collective

   Level: advanced

.seealso: `PCSSORGPU`, `PCSSORGPUSetBlockSize()`, `PCSSORGPUGetColors()`
@*/
PetscErrorCode PCSSORGPUGetBlocks(PC pc, PetscInt *nblocks, const PetscInt *blocks[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  *nblocks = 0;
  *blocks  = NULL;
  PetscTryMethod(pc, "PCSSORGPUGetBlocks_C", (PC, PetscInt *, const PetscInt *[]), (pc, nblocks, blocks));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUSetType_SSORGPU(PC pc, PCSSORGPUType type)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(type >= PC_SSORGPU_NATURAL && type <= PC_SSORGPU_NEUMANN, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "Unknown PCSSORGPUType %d: natural, multicolor or neumann", (int)type);
  if (type != s->type) pc->setupcalled = 0; /* set up anew */
  s->type = type;
  PetscFunctionReturn(0);
}

/*@
   PCSSORGPUSetType - The variant of `PCSSORGPU`: natural (exact SSOR in the matrix's order, level
   scheduled), multicolor (exact SSOR of the matrix permuted colour by colour; the default) or
   neumann (each triangular solve a truncated Neumann series)

   Logically Collective

   Options Database Key:
.  -pc_ssorgpu_type <natural,multicolor,neumann> - the variant

   Level: intermediate

.seealso: `PCSSORGPU`, `PCSSORGPUSetOmega()`, `PCSSORGPUSetNeumannTerms()`, `PCSSORGPUSetBlockSize()`
@*/
PetscErrorCode PCSSORGPUSetType(PC pc, PCSSORGPUType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveEnum(pc, type, 2);
  PetscTryMethod(pc, "PCSSORGPUSetType_C", (PC, PCSSORGPUType), (pc, type));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUSetOmega_SSORGPU(PC pc, PetscReal omega)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(omega > 0.0 && omega < 2.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_ssorgpu_omega must lie strictly between 0 and 2 (SSOR diverges otherwise), not %g", (double)omega);
  s->omega = omega; /* the arrays do not depend on it */
  PetscFunctionReturn(0);
}

/*@
   PCSSORGPUSetOmega - The relaxation factor of `PCSSORGPU`, 0 < omega < 2 (default 1)

   Logically Collective

   Options Database Key:
.  -pc_ssorgpu_omega <omega> - the factor

   Level: intermediate

.seealso: `PCSSORGPU`, `PCSSORGPUSetType()`
@*/
PetscErrorCode PCSSORGPUSetOmega(PC pc, PetscReal omega)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveReal(pc, omega, 2);
  PetscTryMethod(pc, "PCSSORGPUSetOmega_C", (PC, PetscReal), (pc, omega));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUSetNeumannTerms_SSORGPU(PC pc, PetscInt terms)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(terms >= 0, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_ssorgpu_neumann_terms must be at least 0, not %" PetscInt_FMT, terms);
  s->terms = terms;
  PetscFunctionReturn(0);
}

/*@
   PCSSORGPUSetNeumannTerms - The terms of `PCSSORGPU`'s neumann variant: each triangular solve
   replaced by 1 + terms terms of its Neumann series (0: Jacobi scaling; default 2)

   Logically Collective

   Options Database Key:
.  -pc_ssorgpu_neumann_terms <terms> - the terms after the first

   Level: intermediate

.seealso: `PCSSORGPU`, `PCSSORGPUSetType()`
@*/
PetscErrorCode PCSSORGPUSetNeumannTerms(PC pc, PetscInt terms)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, terms, 2);
  PetscTryMethod(pc, "PCSSORGPUSetNeumannTerms_C", (PC, PetscInt), (pc, terms));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUSetBlockSize_SSORGPU(PC pc, PetscInt bs)
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  PetscCheck(bs >= 0 && bs <= GK_SSOR_MAX_BS, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE,
             "-pc_ssorgpu_block_size must be between 1 and %d, or 0 (automatic), not %" PetscInt_FMT, GK_SSOR_MAX_BS, bs);
  if (bs != s->bs) pc->setupcalled = 0; /* set up anew */
  s->bs = bs;
  PetscFunctionReturn(0);
}

/*@
   PCSSORGPUSetBlockSize - Block SSOR for `PCSSORGPU`'s multicolor variant: the rows grouped in
   blocks of at most bs rows grown from the matrix's graph, the blocks coloured, and each block's
   rows solved together with its symmetric (or Hermitian) diagonal block (bs = 1: point SSOR;
   bs = 0, the default: 4 where every block is symmetric or Hermitian and factors, else points)

   Logically Collective

   Options Database Key:
.  -pc_ssorgpu_block_size <bs> - 0 to 8

   Level: intermediate

.seealso: `PCSSORGPU`, `PCSSORGPUGetBlocks()`
@*/
PetscErrorCode PCSSORGPUSetBlockSize(PC pc, PetscInt bs)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscValidLogicalCollectiveInt(pc, bs, 2);
  PetscTryMethod(pc, "PCSSORGPUSetBlockSize_C", (PC, PetscInt), (pc, bs));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSSORGPUGetColors_SSORGPU(PC pc, PetscInt *ncolors, const PetscInt *colors[])
{
  PC_SSORGPU *s = (PC_SSORGPU *)pc->data;

  PetscFunctionBegin;
  *ncolors = s->ncolors;
  *colors  = s->color;
  PetscFunctionReturn(0);
}

/*@C
   PCSSORGPUGetColors - The colouring of a set-up `PCSSORGPU` of type multicolor: the number of
   colours and each of this process's rows' colour (NULL for the other types)

   Not Collective

   Level: advanced

.seealso: `PCSSORGPU`
@*/
PetscErrorCode PCSSORGPUGetColors(PC pc, PetscInt *ncolors, const PetscInt *colors[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  *ncolors = 0;
  *colors  = NULL;
  PetscTryMethod(pc, "PCSSORGPUGetColors_C", (PC, PetscInt *, const PetscInt *[]), (pc, ncolors, colors));
  PetscFunctionReturn(0);
}

PetscErrorCode PCCreate_SSORGPU(PC pc)
{
  PC_SSORGPU *s;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  PetscCall(PetscNew(&s));
  s->type                 = PC_SSORGPU_MULTICOLOR;
  s->omega                = 1.0;
  s->terms                = 2;
  s->bs                   = 0; /* automatic */
  s->badrow               = -1;
  pc->data                = s;
  pc->ops->setup          = PCSetUp_SSORGPU;
  pc->ops->apply          = PCApply_SSORGPU;
  pc->ops->applytranspose = PCApplyTranspose_SSORGPU;
  pc->ops->setfromoptions = PCSetFromOptions_SSORGPU;
  pc->ops->view           = PCView_SSORGPU;
  pc->ops->reset          = PCReset_SSORGPU;
  pc->ops->destroy        = PCDestroy_SSORGPU;
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUGetColors_C", PCSSORGPUGetColors_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUGetBlocks_C", PCSSORGPUGetBlocks_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetBlockSize_C", PCSSORGPUSetBlockSize_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetType_C", PCSSORGPUSetType_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetOmega_C", PCSSORGPUSetOmega_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, "PCSSORGPUSetNeumannTerms_C", PCSSORGPUSetNeumannTerms_SSORGPU));
  PetscCall(PetscObjectComposeFunction((PetscObject)pc, GK_EISENSTAT_C, PCGKGetEisenstat_SSORGPU));
  PetscFunctionReturn(0);
}

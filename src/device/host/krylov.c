/*
   The host twins of the fused Krylov kernels (device.h): the same two steps an iteration, the
   same state and the same breakdown rules, as plain loops. A step's sums are kept whole here
   where the CUDA kernels keep one partial sum per block.
*/
#include "hostimpl.h"

struct _n_GKKrylov {
  PetscInt       n;
  GKKrylovMethod method;
  GKKrylovNorm   norm;
  PetscBool      nullconst;               /* the update removes the constants from z */
  PetscScalar    rho[2];                  /* rho_i by the parity of i */
  PetscReal      dpi[2];                  /* CG: the real part of dpi_i by the parity of i */
  PetscScalar    rholast;                 /* the last rho the step finished */
  PetscScalar    a;                       /* the last update's a: the next step moves x by a p */
  PetscReal      norm2;                   /* the norm of the last update, squared */
  PetscScalar    sumdpi, sumnorm, sumrho; /* the sums a step leaves to the next */
  PetscScalar    sumoff;                  /* dpi of the off-diagonal block (several processes) */
  PetscScalar    b;                       /* Eisenstat: the step's b, for its later lists */
  PetscBool      stop;                    /* Eisenstat: the step stopped at its first list */
  PetscBool      global;                  /* the sums below replace the ones above */
  PetscScalar    glob[3];                 /* dpi, norm, rho over all processes */
  GKKrylovFlag   flag;
  PetscInt       flagit;
};

PetscErrorCode GKHostKrylovCreate(PetscInt n, GKKrylovMethod method, GKKrylovNorm norm, PetscBool nullconst, GKKrylov *K)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(K));
  (*K)->n         = n;
  (*K)->method    = method;
  (*K)->norm      = norm;
  (*K)->nullconst = nullconst;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovDestroy(GKKrylov *K)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(*K));
  PetscFunctionReturn(0);
}

static void GKHostKrylovFlag(GKKrylov K, GKKrylovFlag flag, PetscInt i)
{
  K->flag   = flag;
  K->flagit = i;
}

/* A step's start: at i = 0 rho_0 is given; after, the last update's sums finished (the norm,
   rho_i, the breakdown tests) into *b = rho_i/rho_i-1, or *stop */
static void GKHostKrylovFinish(GKKrylov K, PetscInt i, PetscScalar rho0, PetscScalar *b, PetscBool *stop)
{
  *b    = 0.0;
  *stop = PETSC_FALSE;
  if (i == 0) {
    K->rho[0] = K->rholast = rho0;
    return;
  }
  {
    const PetscScalar rho = K->global ? K->glob[2] : K->sumrho;

    K->norm2   = PetscRealPart(K->global ? K->glob[1] : K->sumnorm);
    K->rholast = rho;
    if (rho == (PetscScalar)0.0) {
      GKHostKrylovFlag(K, GK_KRYLOV_BREAKDOWN, i);
      *stop = PETSC_TRUE;
    } else if (!PetscDefined(USE_COMPLEX) && K->method == GK_KRYLOV_CG &&
               PetscRealPart(rho) * PetscRealPart(K->rho[(i - 1) % 2]) < 0.0) { /* KSPCG's test, with real scalars only */
      GKHostKrylovFlag(K, GK_KRYLOV_INDEFINITE_PC, i);
      *stop = PETSC_TRUE;
    } else {
      *b            = rho / K->rho[(i - 1) % 2];
      K->rho[i % 2] = rho;
    }
  }
}

/* Step i: finishes the last update's sums (norm, rho_i), moves x by the last update's a p_i-1,
   then, unless last, p_i = z + (rho_i/rho_i-1) p_i-1 (BiCG: p~_i = z~ + conj(rho_i/rho_i-1) p~_i-1),
   w = A p_i (w~ = A^H p~_i), and dpi: sum p_j conj(w_j) (CG), p_j w_j (COCG), w_j conj(p~_j) (BiCG).
   At i = 0, p = z, rho_0 is given, and p_i-1 is not read. */
PetscErrorCode GKHostKrylovStep(GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *A, const GKKrylovVecs *v)
{
  const PetscScalar *z = v->z, *pold = i ? v->p[(i + 1) % 2] : NULL, *zt = v->zt, *ptold = i ? v->pt[(i + 1) % 2] : NULL;
  PetscScalar       *p = v->p[i % 2], *w = v->w, *x = v->x, *pt = v->pt[i % 2], *wt = v->wt;
  PetscScalar        b, s = 0.0;
  PetscBool          stop;
  /* the values in single precision as the CUDA step reads them (cuda/cg.cu, bicg.cu) */
  const PetscBool single = GKOperatorSingle(A, K->method == GK_KRYLOV_BICG ? PETSC_TRUE : PETSC_FALSE);

  PetscFunctionBegin;
  GKCounts.launches += 1;
  if (K->flag) PetscFunctionReturn(0);
  GKHostKrylovFinish(K, i, rho0, &b, &stop);
  if (i)
    for (PetscInt j = 0; j < K->n; j++) x[j] += K->a * pold[j];
  if (stop || last) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < K->n; j++) p[j] = i ? z[j] + b * pold[j] : z[j];
  if (pt)
    for (PetscInt j = 0; j < K->n; j++) pt[j] = i ? zt[j] + PetscConj(b) * ptold[j] : zt[j];
  if (A->ellr) PetscCall(GKHostEllrLoop(A->ellr, PETSC_FALSE, single, p, NULL, PETSC_FALSE, w));
  else PetscCall(GKHostDiaLoop(A->dia, single, p, NULL, PETSC_FALSE, w));
  if (K->method == GK_KRYLOV_BICG) {
    if (A->ellr) PetscCall(GKHostEllrLoop(A->ellrt, PETSC_TRUE, single, pt, NULL, PETSC_FALSE, wt));
    else PetscCall(GKHostDiaTLoop(A->dia, PETSC_TRUE, single, pt, NULL, PETSC_FALSE, wt));
  }
  for (PetscInt j = 0; j < K->n; j++) {
    if (K->method == GK_KRYLOV_CG) s += p[j] * PetscConj(w[j]);
    else if (K->method == GK_KRYLOV_COCG) s += p[j] * w[j];
    else s += w[j] * PetscConj(pt[j]);
  }
  K->sumdpi = s;
  PetscFunctionReturn(0);
}

/* The update's a = rho_i/dpi, kept for the next step; false when the update does nothing:
   stopped, or dpi flagged */
static PetscBool GKHostKrylovUpdateBegin(GKKrylov K, PetscInt i, PetscScalar *a)
{
  const PetscScalar dpi = K->global ? K->glob[0] : K->sumdpi;

  if (K->flag) return PETSC_FALSE;
  /* CG as KSPCG: dpi = 0, or a change of sign (a negative definite A is fine) */
  if (dpi == (PetscScalar)0.0 || (K->method == GK_KRYLOV_CG && i > 0 && PetscSign(PetscRealPart(dpi)) * PetscSign(K->dpi[(i - 1) % 2]) < 0.0)) {
    GKHostKrylovFlag(K, K->method == GK_KRYLOV_CG ? GK_KRYLOV_INDEFINITE_MAT : GK_KRYLOV_ZERO_DPI, i);
    return PETSC_FALSE;
  }
  K->dpi[i % 2] = PetscRealPart(dpi);
  *a = K->a = K->rho[i % 2] / dpi;
  return PETSC_TRUE;
}

/* With nullconst, the second pass of the update: z -= mean(z), then the sums of the norm and of
   rho_i+1 (CG and COCG) */
static void GKHostKrylovNullConst(GKKrylov K, const PetscScalar *r, PetscScalar *z)
{
  PetscScalar sz = 0.0, sn = 0.0, sr = 0.0, mean;

  GKCounts.launches += 1;
  for (PetscInt j = 0; j < K->n; j++) sz += z[j];
  mean = sz / (PetscReal)K->n;
  for (PetscInt j = 0; j < K->n; j++) {
    const PetscScalar zj = z[j] - mean;

    z[j] = zj;
    if (K->norm == GK_KRYLOV_NORM_Z) sn += zj * PetscConj(zj);
    else if (K->norm == GK_KRYLOV_NORM_R) sn += r[j] * PetscConj(r[j]);
    sr += K->method == GK_KRYLOV_CG ? zj * PetscConj(r[j]) : zj * r[j];
  }
  K->sumnorm = sn;
  K->sumrho  = sr;
}

/* Update i: a = rho_i/dpi (kept for the next step); r -= a w; z = diag .* r (z is r without
   diag, unless nullconst; diag read in single precision from sd where set); for BiCG also
   r~ -= conj(a) w~, z~ = conj(diag) .* r~; the sums of the norm and of rho_i+1; with nullconst,
   after z -= mean(z) */
PetscErrorCode GKHostKrylovUpdate(GKKrylov K, PetscInt i, const GKKrylovVecs *v)
{
  const PetscScalar *diag = v->d, *w = v->w, *wt = v->wt;
  PetscScalar       *r = v->r, *z = v->z, *rt = v->rt, *zt = v->zt;
  PetscScalar        a, sn = 0.0, sr = 0.0;
  const PetscBool    single = v->sd ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  GKCounts.launches += 1;
  if (!GKHostKrylovUpdateBegin(K, i, &a)) PetscFunctionReturn(0);
  if (K->nullconst) {
    for (PetscInt j = 0; j < K->n; j++) {
      r[j] -= a * w[j];
      z[j] = diag ? GKHostValue(diag, v->sd, single, (size_t)j) * r[j] : r[j];
    }
    GKHostKrylovNullConst(K, r, z);
    PetscFunctionReturn(0);
  }
  for (PetscInt j = 0; j < K->n; j++) {
    const PetscScalar dj = diag ? GKHostValue(diag, v->sd, single, (size_t)j) : 1.0, rj = r[j] - a * w[j], zj = diag ? dj * rj : rj;

    r[j] = rj;
    if (diag && z) z[j] = zj;
    if (K->norm == GK_KRYLOV_NORM_Z) sn += zj * PetscConj(zj);
    else if (K->norm == GK_KRYLOV_NORM_R) sn += rj * PetscConj(rj);
    if (K->method == GK_KRYLOV_BICG) {
      const PetscScalar rtj = rt[j] - PetscConj(a) * wt[j], ztj = diag ? PetscConj(dj) * rtj : rtj;

      rt[j] = rtj;
      if (diag) zt[j] = ztj;
      sr += zj * PetscConj(rtj);
    } else sr += K->method == GK_KRYLOV_CG ? zj * PetscConj(rj) : zj * rj;
  }
  K->sumnorm = sn;
  K->sumrho  = sr;
  PetscFunctionReturn(0);
}

/* GKHostKrylovUpdate with z = ((2 - w)/w) D r, D the blocks of S (not stored) */
PetscErrorCode GKHostKrylovUpdateBlocks(GKKrylov K, PetscInt i, const GKSsor *S, PetscReal omega, const PetscScalar *w, PetscScalar *r)
{
  PetscScalar a, sn = 0.0, sr = 0.0;

  PetscFunctionBegin;
  GKCounts.launches += 1;
  if (!GKHostKrylovUpdateBegin(K, i, &a)) PetscFunctionReturn(0);
  for (PetscInt c = 0; c < S->ncolors; c++)
    for (PetscInt j = 0; j < S->bcolors[c].nb; j++) {
      PetscInt       rw[GK_SSOR_MAX_BS];
      const PetscInt n = GKHostSsorBlockRows(&S->bcolors[c], j, rw);
      PetscScalar    v[GK_SSOR_MAX_BS];

      for (PetscInt l = 0; l < n; l++) v[l] = r[rw[l]] -= a * w[rw[l]];
      GKHostSsorBlock(S, S->bcolors[c].b0 + j, n, PETSC_FALSE, v);
      for (PetscInt l = 0; l < n; l++) {
        const PetscScalar rj = r[rw[l]], zj = (2.0 - omega) / omega * v[l];

        if (K->norm == GK_KRYLOV_NORM_Z) sn += zj * PetscConj(zj);
        else if (K->norm == GK_KRYLOV_NORM_R) sn += rj * PetscConj(rj);
        sr += K->method == GK_KRYLOV_CG ? zj * PetscConj(rj) : zj * rj;
      }
    }
  K->sumnorm = sn;
  K->sumrho  = sr;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovStateBegin(GKKrylov K)
{
  PetscFunctionBegin;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovStateEnd(GKKrylov K, GKKrylovState *S)
{
  PetscFunctionBegin;
  GKCounts.syncs += 1;
  S->norm2  = K->norm2;
  S->rho[0] = PetscRealPart(K->rholast);
  S->rho[1] = PetscImaginaryPart(K->rholast);
  S->flag   = K->flag;
  S->flagit = K->flagit;
  PetscFunctionReturn(0);
}

/* The direction entries at idx as step i computes them: z + (rho_i/rho_i-1) p_i-1 (z at i = 0) */
PetscErrorCode GKHostKrylovGather(GKKrylov K, PetscInt i, PetscInt n, const PetscInt *idx, const PetscScalar *z, const PetscScalar *pold,
                                  PetscScalar *buf)
{
  PetscScalar b = 0.0;

  PetscFunctionBegin;
  PetscCheck(buf || !n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No buffer given: the host backend sends nothing GPU to GPU");
  GKCounts.launches += 1;
  if (i) b = (K->global ? K->glob[2] : K->sumrho) / K->rho[(i - 1) % 2];
  for (PetscInt k = 0; k < n; k++) buf[k] = i ? z[idx[k]] + b * pold[idx[k]] : z[idx[k]];
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovGatherWait(GKKrylov K)
{
  PetscFunctionBegin;
  GKCounts.syncs += 1;
  PetscFunctionReturn(0);
}

/* w += Ao g on the listed slots, and that part of dpi, as the step sums dpi; the single values
   where sval is set, as the CUDA kernel reads them */
PetscErrorCode GKHostKrylovOffDiag(GKKrylov K, const GKEllr *Ao, PetscInt ns, const PetscInt *slots, const PetscScalar *g, const PetscScalar *p,
                                   PetscScalar *w, const PetscScalar *pt)
{
  PetscScalar s = 0.0;

  PetscFunctionBegin;
  PetscCheck(g || !ns, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No ghosts given: the host backend sends none GPU to GPU");
  GKCounts.launches += 1;
  if (K->flag) PetscFunctionReturn(0);
  for (PetscInt k = 0; k < ns; k++) {
    const PetscInt    t = slots[k], r = Ao->perm ? Ao->perm[t] : t;
    const PetscScalar v = GKHostEllrRow(Ao, t, PETSC_FALSE, Ao->sval ? PETSC_TRUE : PETSC_FALSE, g);

    w[r] += v;
    if (K->method == GK_KRYLOV_CG) s += p[r] * PetscConj(v);
    else if (K->method == GK_KRYLOV_COCG) s += p[r] * v;
    else s += v * PetscConj(pt[r]);
  }
  K->sumoff = s;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovGetSums(GKKrylov K, PetscScalar *s)
{
  PetscFunctionBegin;
  GKCounts.syncs += 1;
  s[0] = K->sumdpi;
  s[1] = K->sumnorm;
  s[2] = K->sumrho;
  s[3] = K->sumoff;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovSetSums(GKKrylov K, const PetscScalar *s)
{
  PetscFunctionBegin;
  K->global = PETSC_TRUE;
  for (int k = 0; k < 3; k++) K->glob[k] = s[k];
  PetscFunctionReturn(0);
}

/* column of entry e of L (t = 0) or U (t = 1) in row r of the permuted copy (device.h) */
static inline PetscInt GKHostSsorCol(const GKSsor *S, const GKSsorColor *c, int t, PetscInt r, PetscInt e)
{
  return S->pdel[t] ? r + c->shift[t] + S->pdel[t][e] : S->pcol[t][e];
}

/* Eisenstat's step on colour c's blocks (GKHostKrylovSsor past its first list's sums): the
   point step's rows with D_B^-1 for 1/d, a block's rows together */
static void GKHostKrylovSsorBlocks(GKKrylov K, PetscInt i, const GKSsor *S, PetscBool upper, const GKSsorColor *c, PetscInt flags, PetscReal omega,
                                   const PetscScalar *z, const PetscScalar *pold, PetscScalar *p, PetscScalar *t, PetscScalar *w, PetscScalar *x)
{
  PetscScalar sum = 0.0;

  for (PetscInt j = 0; j < c->nb; j++) {
    PetscInt       rw[GK_SSOR_MAX_BS];
    const PetscInt J = c->b0 + j, n = GKHostSsorBlockRows(c, j, rw);
    PetscScalar    v[GK_SSOR_MAX_BS];

    if (upper) {
      for (PetscInt l = 0; l < n; l++) v[l] = z[rw[l]];
      if (flags & GK_SSOR_ZR) GKHostSsorBlock(S, J, n, PETSC_FALSE, v); /* z = ((2 - w)/w) D r */
      for (PetscInt l = 0; l < n; l++) {
        const PetscInt    r  = rw[l];
        const PetscScalar zr = flags & GK_SSOR_ZR ? (2.0 - omega) / omega * v[l] : v[l];

        if (i) x[r] += K->a * pold[r];
        p[r] = i ? zr + K->b * pold[r] : zr;
      }
      for (PetscInt l = 0; l < n; l++) v[l] = p[rw[l]] - GKHostSsorBlockRow(S, c, 1, j, l, t);
      GKHostSsorBlock(S, J, n, PETSC_TRUE, v);
      for (PetscInt l = 0; l < n; l++) t[rw[l]] = omega * v[l];
      if (!(flags & GK_SSOR_FUSE)) continue;
      for (PetscInt l = 0; l < n; l++) v[l] = p[rw[l]]; /* colour 0's lower rows: no L */
    } else                                              /* t holds w - t at the earlier colours' rows (GK_SSOR_KEEP) */
      for (PetscInt l = 0; l < n; l++) v[l] = p[rw[l]] - GKHostSsorBlockRow(S, c, 0, j, l, t);
    GKHostSsorBlock(S, J, n, PETSC_TRUE, v);
    for (PetscInt l = 0; l < n; l++) {
      const PetscInt r = rw[l];

      w[r] = (omega - 1.0) * t[r] + omega * v[l];
      if (flags & GK_SSOR_KEEP) t[r] = w[r] - t[r];
      sum += K->method == GK_KRYLOV_CG ? p[r] * PetscConj(w[r]) : p[r] * w[r];
    }
  }
  if (!upper || (flags & GK_SSOR_FUSE)) K->sumdpi = (flags & GK_SSOR_DPI_ADD ? K->sumdpi : 0.0) + sum;
}

/* Eisenstat's step, one list of rows (device.h); the sums finished at the first list as the
   step finishes them */

PetscErrorCode GKHostKrylovSsor(GKKrylov K, PetscInt i, PetscScalar rho0, const GKSsorSweep *sw, const GKKrylovVecs *v)
{
  const GKSsor      *S     = sw->S;
  const GKSsorColor *c     = sw->color;
  const PetscBool    upper = sw->upper;
  const PetscInt    *rows = sw->rows, flags = sw->flags;
  const PetscInt     n     = c ? c->n : rows ? sw->nrows : S->m;
  const PetscReal    omega = sw->omega;
  const PetscScalar *d = c ? S->pd : S->d, *z = flags & GK_SSOR_ZR ? v->r : v->z, *pold = i ? v->p[(i + 1) % 2] : NULL;
  PetscScalar       *p = v->p[i % 2], *t = v->t, *w = v->w, *x = v->x;
  PetscScalar        sum = 0.0;

  PetscFunctionBegin;
  GKCounts.launches += 1;
  if (K->flag && K->flagit < i) PetscFunctionReturn(0);
  if (upper && sw->first) {
    GKHostKrylovFinish(K, i, rho0, &K->b, &K->stop);
    if (i && (K->stop || sw->last)) { /* x_i = x_i-1 + a p_i-1 on every row, and nothing more */
      for (PetscInt j = 0; j < S->m; j++) x[j] += K->a * pold[j];
      K->stop = PETSC_TRUE;
      PetscFunctionReturn(0);
    }
  }
  if (K->stop) PetscFunctionReturn(0);
  if (c && S->bs > 1) {
    GKHostKrylovSsorBlocks(K, i, S, upper, c, flags, omega, z, pold, p, t, w, x);
    PetscFunctionReturn(0);
  }
  for (PetscInt k = 0; k < n; k++) {
    const PetscInt r = c ? c->r0 + k : rows ? rows[k] : k;
    PetscScalar    s = 0.0;

    if (upper) {
      const PetscScalar zr = flags & GK_SSOR_ZR ? ((2.0 - omega) / omega * d[r]) * z[r] : z[r];

      if (i) x[r] += K->a * pold[r];
      p[r] = i ? zr + K->b * pold[r] : zr;
      if (c)
        for (PetscInt e = c->off[1] + k; e < c->off[1] + c->w[1] * c->n; e += c->n) s += S->pval[1][e] * t[GKHostSsorCol(S, c, 1, r, e)];
      else
        for (PetscInt e = S->uptr[r]; e < S->uptr[r + 1]; e++) s += S->uval[e] * t[S->ucol[e]];
      t[r] = omega * (p[r] - s) / d[r];
      if (!(flags & GK_SSOR_FUSE)) continue;
      s = 0.0;    /* colour 0's lower row: no L */
    } else if (c) /* t holds w - t at the earlier colours' rows (GK_SSOR_KEEP) */
      for (PetscInt e = c->off[0] + k; e < c->off[0] + c->w[0] * c->n; e += c->n) s += S->pval[0][e] * t[GKHostSsorCol(S, c, 0, r, e)];
    else
      for (PetscInt e = S->lptr[r]; e < S->lptr[r + 1]; e++) s += S->lval[e] * (w[S->lcol[e]] - t[S->lcol[e]]);
    w[r] = (omega - 1.0) * t[r] + omega * (p[r] - s) / d[r];
    if (flags & GK_SSOR_KEEP) t[r] = w[r] - t[r];
    if (c) sum += K->method == GK_KRYLOV_CG ? p[r] * PetscConj(w[r]) : p[r] * w[r];
  }
  if (c && (!upper || (flags & GK_SSOR_FUSE))) K->sumdpi = (flags & GK_SSOR_DPI_ADD ? K->sumdpi : 0.0) + sum;
  PetscFunctionReturn(0);
}

PetscErrorCode GKHostKrylovDpi(GKKrylov K, const PetscScalar *p, const PetscScalar *w)
{
  PetscScalar s = 0.0;

  PetscFunctionBegin;
  GKCounts.launches += 1;
  if (K->flag) PetscFunctionReturn(0);
  for (PetscInt j = 0; j < K->n; j++) s += K->method == GK_KRYLOV_CG ? p[j] * PetscConj(w[j]) : p[j] * w[j];
  K->sumdpi = s;
  PetscFunctionReturn(0);
}

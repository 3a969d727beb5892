/*
   Eisenstat's form of SSOR-preconditioned CG (device.h, krylovssor and krylovupdateblocks;
   Eisenstat 1981): the step's sweeps over levels or colours, with points or multicolor's blocks,
   and the update with blocks. The PC ssorgpu drives them (src/pc/ssor_gpu/eisenstat.c).
*/
#include "gridsum.cuh"

/* the blocks' kernels' blocks a multiprocessor at least: at most 64 registers a thread for
   blocks of up to 4 rows, 128 for longer ones */
#define GK_SSOR_BLOCK_MINB(BS) ((BS) <= 4 ? 4 : 2)

/* CG's update with multicolor's blocks (device.h): a thread per block, z = ((2 - w)/w) D_B r_B
   entering the sums, the blocks from the last to the first as the update walks its rows */
template <int BS>
__global__ void __launch_bounds__(GK_BLOCK, GK_SSOR_BLOCK_MINB(BS))
  GKKrylovUpdateBlocksKernel(PetscInt i, GKKrylovNorm norm, GKSsor S, double omega, GKSums g, double *partial, GKKrylovDevState *st,
                             GKKrylovDevState *pub, const GKScalar *__restrict__ w, GKScalar *__restrict__ r)
{
  GKScalar acc[2] = {0.0, 0.0};
  GKScalar a;

  GKOverlapBegin();
  if (!GKKrylovUpdateBegin<GK_KRYLOV_CG>(i, g, st, &a)) return;
  for (PetscInt ci = S.ncolors - 1; ci >= 0; ci--) {
    const GKSsorColor c = S.bcolors[ci];

    for (PetscInt j0 = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j0 < c.nb; j0 += (PetscInt)gridDim.x * blockDim.x) {
      const PetscInt     j = c.nb - 1 - j0;
      PetscInt           rw[BS];
      GKSsorBlockFac<BS> F;
      const int          n = F.block(S, c, j, rw);
      GKScalar           v[BS], ro[BS];

#pragma unroll
      for (int l = 0; l < BS; l++) {
        ro[l] = l < n ? r[rw[l]] - a * w[rw[l]] : GKScalar(0.0);
        v[l]  = ro[l];
      }
      F.mult(v);
#pragma unroll
      for (int l = 0; l < BS; l++) {
        const GKScalar zo = GKScalar((2.0 - omega) / omega) * v[l];

        if (l >= n) break;
        r[rw[l]] = ro[l];
        if (norm == GK_KRYLOV_NORM_Z) acc[0] += GKRe(zo) * GKRe(zo) + GKIm(zo) * GKIm(zo);
        else if (norm == GK_KRYLOV_NORM_R) acc[0] += GKRe(ro[l]) * GKRe(ro[l]) + GKIm(ro[l]) * GKIm(ro[l]);
        acc[1] += zo * GKConj(ro[l]);
      }
    }
  }
  GKGridSum<2>(acc, partial, 1, st, pub); /* the norm and rho */
}

template <int BS>
static PetscErrorCode GKKrylovUpdateBlocksLaunch(GKKrylovCUDA *k, PetscInt i, const GKSsor *S, PetscReal omega, const PetscScalar *w, PetscScalar *r)
{
  PetscFunctionBegin;
  GKCallCUDA(GKLaunchOverlapped(GKKrylovUpdateBlocksKernel<BS>, GKWaveBlocks((const void *)GKKrylovUpdateBlocksKernel<BS>, S->nblk), i, k->norm, *S,
                                (double)omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)w, (GKScalar *)r));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovUpdateBlocks(GKKrylov K, PetscInt i, const GKSsor *S, PetscReal omega, const PetscScalar *w, PetscScalar *r)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  PetscCheck(k->method == GK_KRYLOV_CG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SSOR blocks in CG only");
  GKSsorBlockDispatch(S->bs, GKKrylovUpdateBlocksLaunch, k, i, S, omega, w, r);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* column of entry e of L (t = 0) or U (t = 1) in row r of the permuted copy (device.h) */
static __device__ __forceinline__ PetscInt GKSsorCol(const GKSsor &S, const GKSsorColor &c, int t, PetscInt r, PetscInt e)
{
  return S.pdel[t] ? r + c.shift[t] + S.pdel[t][e] : S.pcol[t][e];
}

/* Eisenstat's step, one list of rows (device.h): the first upper list finishes the last update's
   sums as the step does (every later list computes the same b, stop and a from the same state);
   a stopped or last step moves x on every row in its first list and nothing more. Flags this
   step sets (flagit = i) do not stop its own later upper lists, which stop by themselves; the
   lower lists stop at any flag. COLOR: the list is colour c of the permuted copy (contiguous rows,
   couplings in ELLPACK order: every access coalesced), with flags (device.h, GK_SSOR_*); a colour
   computing w sums its part of dpi into the block partials of slot 0, the last colour finishing
   the sum (the grid is the same for every colour, so block b adds up the same rows' terms in
   every run). */
template <GKKrylovMethod METHOD, bool COLOR, bool UPPER>
__global__ void __launch_bounds__(GK_BLOCK, 5)
  GKKrylovSsorKernel(PetscInt m, PetscInt i, GKScalar rho0, bool last, bool first, GKSsor S, PetscInt n, const PetscInt *__restrict__ rows,
                     GKSsorColor c, int flags, double omega, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub,
                     const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold, GKScalar *p, GKScalar *t, GKScalar *w, GKScalar *x)
{
  GKScalar        b = 0.0, a = 0.0, acc[1] = {0.0};
  const GKScalar *d = (const GKScalar *)(COLOR ? S.pd : S.d);

  GKOverlapBegin();
  if (GKStopped(st, UPPER ? i : PETSC_MAX_INT)) {
    if (first && UPPER) GKPublish(st, pub);
    return;
  }
  if (UPPER) { /* the first upper list records the sums; later ones compute the same b and stop */
    const bool stop = GKKrylovFinish<METHOD>(i, GKKrylovFinishLoad(i, rho0, g, st), first, st, pub, &b);

    if (i) a = GKMake(st->a[0], st->a[1]);
    if (first && i && (stop || last)) {
      for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < m; j += (PetscInt)gridDim.x * blockDim.x) x[j] += a * pold[j];
      return;
    }
    if (stop) return;
  }
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt r = COLOR ? c.r0 + k : rows ? rows[k] : k;
    GKScalar       s = 0.0, pr, tr, wr;

    if (UPPER) {
      const GKScalar zr = COLOR && (flags & GK_SSOR_ZR) ? (GKScalar((2.0 - omega) / omega) * d[r]) * z[r] : z[r];

      pr = i ? GKDir(zr, b, pold[r]) : zr;
      if (i) x[r] += a * pold[r];
      p[r] = pr;
      if (COLOR)
#pragma unroll 4 /* the entries' loads in flight together */
        for (PetscInt e = c.off[1] + k, k1 = 0; k1 < c.w[1]; k1++, e += n) s += ((const GKScalar *)S.pval[1])[e] * t[GKSsorCol(S, c, 1, r, e)];
      else
        for (PetscInt e = S.uptr[r]; e < S.uptr[r + 1]; e++) s += ((const GKScalar *)S.uval)[e] * t[S.ucol[e]];
      tr = omega * (pr - s) / d[r];
      if (!COLOR || !(flags & GK_SSOR_FUSE)) {
        t[r] = tr;
        continue;
      }
      s = 0.0; /* colour 0's lower row: no L */
    } else {
      pr = p[r];
      /* a colour without U (the last one): t = omega p/d as its upper row computed it, bit for
         bit, not read back */
      tr = COLOR && !c.w[1] ? omega * (pr - GKScalar(0.0)) / d[r] : t[r];
      if (COLOR) /* t holds w - t at the earlier colours' rows (GK_SSOR_KEEP) */
#pragma unroll 4
        for (PetscInt e = c.off[0] + k, k1 = 0; k1 < c.w[0]; k1++, e += n) s += ((const GKScalar *)S.pval[0])[e] * t[GKSsorCol(S, c, 0, r, e)];
      else
        for (PetscInt e = S.lptr[r]; e < S.lptr[r + 1]; e++) {
          const PetscInt j = S.lcol[e];

          s += ((const GKScalar *)S.lval)[e] * (w[j] - t[j]);
        }
    }
    wr   = (omega - 1.0) * tr + omega * (pr - s) / d[r];
    w[r] = wr;
    if (COLOR) {
      if (flags & GK_SSOR_KEEP) t[r] = wr - tr;
      else if (UPPER) t[r] = tr;
      acc[0] += METHOD == GK_KRYLOV_CG ? pr * GKConj(wr) : pr * wr;
    }
  }
  if (!COLOR || (UPPER && !(flags & GK_SSOR_FUSE))) return;
  if ((flags & GK_SSOR_DPI_ADD) && !threadIdx.x) acc[0] += GKMake(partial[2 * blockIdx.x], partial[2 * blockIdx.x + 1]); /* the earlier colours' */
  if (flags & GK_SSOR_DPI_FINISH) GKGridSum<1>(acc, partial, 0, st, pub);
  else GKBlockSumStore<1>(acc, partial, GK_RED_BLOCKS);
}

/* GKKrylovSsorKernel's colour step (CG) with multicolor's blocks (device.h): a thread per block,
   D_B^-1 for the division by d; the last step (x alone) is the point kernel's */
template <int BS, bool UPPER>
__global__ void __launch_bounds__(GK_BLOCK, GK_SSOR_BLOCK_MINB(BS))
  GKKrylovSsorBlockKernel(PetscInt i, GKScalar rho0, bool first, GKSsor S, GKSsorColor c, int flags, double omega, GKSums g, double *partial,
                          GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold,
                          GKScalar *__restrict__ p, GKScalar *__restrict__ t, GKScalar *__restrict__ w, GKScalar *__restrict__ x)
{
  GKScalar b = 0.0, a = 0.0, acc[1] = {0.0};

  GKOverlapBegin();
  if (GKStopped(st, UPPER ? i : PETSC_MAX_INT)) {
    if (first && UPPER) GKPublish(st, pub);
    return;
  }
  if (UPPER) {
    const bool stop = GKKrylovFinish<GK_KRYLOV_CG>(i, GKKrylovFinishLoad(i, rho0, g, st), first, st, pub, &b);

    if (i) a = GKMake(st->a[0], st->a[1]);
    if (first && i && stop) {
      for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < S.m; j += (PetscInt)gridDim.x * blockDim.x) x[j] += a * pold[j];
      return;
    }
    if (stop) return;
  }
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < c.nb; j += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt           rw[BS];
    GKSsorBlockFac<BS> F;
    const int          n = F.block(S, c, j, rw);
    GKScalar           pr[BS], tr[BS], v[BS], cs[BS];

    /* the couplings first: their loads need nothing this thread computes (U's or L's columns are
       of other colours), so they are in flight with the block's own loads */
#pragma unroll
    for (int l = 0; l < BS; l++) cs[l] = l < n ? GKSsorBlockRow<BS>(S, c, UPPER ? 1 : 0, j, l, t) : GKScalar(0.0);
    if (UPPER) {
#pragma unroll
      for (int l = 0; l < BS; l++) v[l] = l < n ? z[rw[l]] : GKScalar(0.0);
      if (flags & GK_SSOR_ZR) { /* z = ((2 - w)/w) D r */
        F.mult(v);
#pragma unroll
        for (int l = 0; l < BS; l++) v[l] *= GKScalar((2.0 - omega) / omega);
      }
#pragma unroll
      for (int l = 0; l < BS; l++) {
        pr[l] = 0.0;
        if (l < n) {
          pr[l] = i ? GKDir(v[l], b, pold[rw[l]]) : v[l];
          if (i) x[rw[l]] += a * pold[rw[l]];
          p[rw[l]] = pr[l];
        }
      }
#pragma unroll
      for (int l = 0; l < BS; l++) v[l] = pr[l] - cs[l];
      F.solve(v);
#pragma unroll
      for (int l = 0; l < BS; l++) tr[l] = omega * v[l];
      if (!(flags & GK_SSOR_FUSE)) {
#pragma unroll
        for (int l = 0; l < BS; l++)
          if (l < n) t[rw[l]] = tr[l];
        continue;
      }
#pragma unroll
      for (int l = 0; l < BS; l++) v[l] = pr[l]; /* colour 0's lower rows: no L */
    } else {
#pragma unroll
      for (int l = 0; l < BS; l++) pr[l] = l < n ? p[rw[l]] : GKScalar(0.0);
      if (!c.w[1]) { /* a colour without U (the last one): t = omega D_B^-1 p as its upper rows computed it */
#pragma unroll
        for (int l = 0; l < BS; l++) v[l] = pr[l] - GKScalar(0.0);
        F.solve(v);
#pragma unroll
        for (int l = 0; l < BS; l++) tr[l] = omega * v[l];
      } else
#pragma unroll
        for (int l = 0; l < BS; l++) tr[l] = l < n ? t[rw[l]] : GKScalar(0.0);
#pragma unroll /* t holds w - t at the earlier colours' rows (GK_SSOR_KEEP) */
      for (int l = 0; l < BS; l++) v[l] = pr[l] - cs[l];
    }
    F.solve(v);
#pragma unroll
    for (int l = 0; l < BS; l++) {
      const GKScalar wr = (omega - 1.0) * tr[l] + omega * v[l];

      if (l >= n) break;
      w[rw[l]] = wr;
      if (flags & GK_SSOR_KEEP) t[rw[l]] = wr - tr[l];
      else if (UPPER) t[rw[l]] = tr[l];
      acc[0] += pr[l] * GKConj(wr);
    }
  }
  if (UPPER && !(flags & GK_SSOR_FUSE)) return;
  if ((flags & GK_SSOR_DPI_ADD) && !threadIdx.x) acc[0] += GKMake(partial[2 * blockIdx.x], partial[2 * blockIdx.x + 1]); /* the earlier colours' */
  if (flags & GK_SSOR_DPI_FINISH) GKGridSum<1>(acc, partial, 0, st, pub);
  else GKBlockSumStore<1>(acc, partial, GK_RED_BLOCKS);
}

/* the colour launches' one grid (their dpi partials add up block by block), found once */
template <int BS>
static PetscErrorCode GKKrylovSsorBlockLaunch(GKKrylovCUDA *k, PetscInt i, PetscScalar rho0, PetscBool first, const GKSsor *S, PetscBool upper,
                                              const GKSsorColor *c, PetscInt flags, PetscReal omega, const PetscScalar *z, const PetscScalar *pold,
                                              PetscScalar *p, PetscScalar *t, PetscScalar *w, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!k->ssornb || k->ssorm != S->m || k->ssorbs != BS) {
    k->ssornb = PetscMin(GKWaveBlocks((const void *)GKKrylovSsorBlockKernel<BS, true>, S->nblk),
                         GKWaveBlocks((const void *)GKKrylovSsorBlockKernel<BS, false>, S->nblk));
    k->ssorm  = S->m;
    k->ssorbs = BS;
  }
  GKCallCUDA(GKLaunchOverlapped(upper ? GKKrylovSsorBlockKernel<BS, true> : GKKrylovSsorBlockKernel<BS, false>, k->ssornb, i, GKToDevice(rho0),
                                first ? true : false, *S, *c, (int)flags, (double)omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)z,
                                (const GKScalar *)pold, (GKScalar *)p, (GKScalar *)t, (GKScalar *)w, (GKScalar *)x));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSsor(GKKrylov K, PetscInt i, PetscScalar rho0, const GKSsorSweep *sw, const GKKrylovVecs *v)
{
  GKKrylovCUDA      *k     = (GKKrylovCUDA *)K;
  const GKSsor      *S     = sw->S;
  const GKSsorColor *c     = sw->color;
  const PetscBool    upper = sw->upper, first = sw->first, last = sw->last;
  const PetscInt    *rows = sw->rows, flags = sw->flags;
  const PetscReal    omega = sw->omega;
  const PetscScalar *z = flags & GK_SSOR_ZR ? v->r : v->z, *pold = i ? v->p[(i + 1) % 2] : NULL;
  PetscScalar       *p = v->p[i % 2], *t = v->t, *w = v->w, *x = v->x;
  const PetscInt     n  = c ? c->n : rows ? sw->nrows : S->m;
  const GKSsorColor  c0 = {
    0, 0, {0, 0},
      {0, 0},
      {0, 0}
  };
  void (*kern)(PetscInt, PetscInt, GKScalar, bool, bool, GKSsor, PetscInt, const PetscInt *, GKSsorColor, int, double, GKSums, double *,
               GKKrylovDevState *, GKKrylovDevState *, const GKScalar *, const GKScalar *, GKScalar *, GKScalar *, GKScalar *, GKScalar *);
  unsigned nb;

  PetscFunctionBegin;
  if (c && S->bs > 1) {
    PetscCheck(k->method == GK_KRYLOV_CG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SSOR blocks in CG only");
    GKSsorBlockDispatch(S->bs, GKKrylovSsorBlockLaunch, k, i, rho0, first, S, upper, c, flags, omega, z, pold, p, t, w, x);
    GKCheckLaunch();
    PetscFunctionReturn(0);
  }
#define GK_SSOR_KERNEL(M) \
  (c ? (upper ? GKKrylovSsorKernel<M, true, true> : GKKrylovSsorKernel<M, true, false>) \
     : (upper ? GKKrylovSsorKernel<M, false, true> : GKKrylovSsorKernel<M, false, false>))
  kern = k->method == GK_KRYLOV_CG ? GK_SSOR_KERNEL(GK_KRYLOV_CG) : GK_SSOR_KERNEL(GK_KRYLOV_COCG);
#undef GK_SSOR_KERNEL
  if (c) { /* colours: one grid for all of them, upper and lower (their dpi partials add up block
              by block), which the GPU runs at once whichever of the two it is; found once */
    if (!k->ssornb || k->ssorm != S->m || k->ssorbs != 1) {
      const bool cg = k->method == GK_KRYLOV_CG;

      k->ssornb = PetscMin(GKWaveBlocks(cg ? (const void *)GKKrylovSsorKernel<GK_KRYLOV_CG, true, true>
                                           : (const void *)GKKrylovSsorKernel<GK_KRYLOV_COCG, true, true>,
                                        S->m),
                           GKWaveBlocks(cg ? (const void *)GKKrylovSsorKernel<GK_KRYLOV_CG, true, false>
                                           : (const void *)GKKrylovSsorKernel<GK_KRYLOV_COCG, true, false>,
                                        S->m));
      k->ssorm  = S->m;
      k->ssorbs = 1;
    }
    nb = k->ssornb;
  } else nb = (unsigned)PetscMax(1, GKBlocks(n));
  GKCallCUDA(GKLaunchOverlapped(kern, nb, S->m, i, GKToDevice(rho0), last ? true : false, first ? true : false, *S, n, rows, c ? *c : c0, (int)flags,
                                omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)p, (GKScalar *)t,
                                (GKScalar *)w, (GKScalar *)x));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

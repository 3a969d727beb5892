/*
   The fused step and update kernels of CG, COCG and BiCG (device.h: two kernels an iteration) as
   templates of the method, instantiated by cg.cu (CG and COCG) and bicg.cu (BiCG). CG follows
   Michels, Algorithm 5 (PCG), BiCG Jost et al., 3.1, with A^H for complex scalars as De Donno et
   al. do; each kernel computes what its twin in host/krylov.c computes.
*/
#pragma once

#include "gridsum.cuh"
#include <type_traits>

/* What the step kernel knows of the operator when it is compiled: its format (ELLPACK-R, else
   DIA), and N: for DIA the number of diagonals (0: any), for ELLPACK-R in the paper's layout the
   longest row's length, where the rows are loaded with every load first (0: the general loop);
   for ELLPACK-R also whether it is in the paper's layout (PLAIN: no slices, permutation or wide
   rows) and whether its columns are 16-bit offsets (SHORT, device.h); and whether the product
   reads the values in single precision (SINGLE: the format's sval, GKOperator) */
template <bool ELLR_, int N_, bool PLAIN_ = false, bool SHORT_ = false, bool SINGLE_ = false>
struct GKStepLayout {
  static constexpr bool                                                ELLR   = ELLR_;
  static constexpr int                                                 N      = N_;
  static constexpr bool                                                PLAIN  = PLAIN_;
  static constexpr bool                                                SHORT  = SHORT_;
  static constexpr bool                                                SINGLE = SINGLE_;
  typedef typename std::conditional<SINGLE_, GKSingle, GKScalar>::type Value;
};

/* DIA's row i of the step, ND diagonals known, the offsets in registers: every load of the row
   issued before its first product (with GKDiaRow the compiler issued the loads a diagonal at a
   time, each waiting for its offset's load). The same
   sums in the same order: out of range adds 0 * 0. */
template <int ND, class IN, class V>
static __device__ __forceinline__ GKScalar GKDiaRowLoadsFirst(PetscInt i, PetscInt n, const PetscInt *off, const V *__restrict__ val, const IN &x)
{
  GKScalar a[ND], v[ND], s = 0.0;

#pragma unroll
  for (int d = 0; d < ND; d++) {
    const PetscInt j  = i + off[d];
    const bool     ok = j >= 0 && j < n;

    a[d] = ok ? GKLdg(val + (size_t)d * n + i) : GKScalar(0.0);
    v[d] = ok ? x(j) : GKScalar(0.0);
  }
#pragma unroll
  for (int d = 0; d < ND; d++) s += a[d] * v[d];
  return s;
}

/* (A p_i)_t, slot t's row of the step, for the layout L: ELLPACK-R with every load first or its
   general loop; DIA with L::N diagonals known, the offsets off in registers, or any number */
template <class L>
static __device__ __forceinline__ GKScalar GKStepRow(PetscInt t, PetscInt n, const GKEllr &E, const GKDia &D, const PetscInt *off, const GKDirIn &in)
{
  /* ELLPACK-R's rows with every load first, the length not read (cudaimpl.h): a padded entry
     adds 0 * a finite direction, +-0, which leaves the sum as GKEllrRow's; a direction that is
     not finite has already made p.w, and so the solve, fail */
  typedef typename L::Value V;
  const V                  *ev = (const V *)(L::SINGLE ? E.sval : (void *)E.val), *dv = (const V *)(L::SINGLE ? D.sval : (void *)D.val);

  if constexpr (L::ELLR && L::N) return GKEllrRowLoadsFirst<false, L::N, L::SHORT ? 1 : 0, false>(t, E.h, E.rl, E.col, E.dcol, ev, in);
  else if constexpr (L::ELLR)
    return GKEllrRow<false, GKDirIn, L::PLAIN, 2, L::SHORT ? 1 : 0>(t, E.h, E.sliceptr, E.wfirst, E.wptr, E.rl, E.col, E.dcol, ev, in);
  else if constexpr (L::N) return GKDiaRowLoadsFirst<L::N>(t, n, off, dv, in);
  else return GKDiaRow<0>(t, n, n, D.ndiag, D.off, dv, in);
}

/* Step i. Finishes the last update's sums: the norm, rho_i, b = rho_i/rho_i-1 (the breakdown
   tests); moves x by the last update's a p_i-1; then, unless last, p_i = z + b p_i-1 (p~_i = z~ +
   conj(b) p~_i-1) written to the other buffer, w = A p_i (w~ = A^H p~_i, rows n..2n-1 of the
   launch) reading the neighbours' p_i computed on the fly, and the block sums of dpi; L: the
   operator's layout (GKStepLayout). PEERS: the sums may be kept on the GPUs (g.np). */
template <class L, GKKrylovMethod METHOD, bool PEERS>
static __device__ __forceinline__ void GKKrylovStepBody(PetscInt n, PetscInt i, GKScalar rho0, bool last, const GKSums &g, double *partial,
                                                        GKKrylovDevState *st, GKKrylovDevState *pub, const GKEllr &E, const GKEllr &Et,
                                                        const GKDia &D, const GKScalar *z, const GKScalar *pold, GKScalar *p, GKScalar *w,
                                                        GKScalar *x, const GKScalar *zt, const GKScalar *ptold, GKScalar *pt, GKScalar *wt)
{
  GKScalar       acc[1] = {0.0}, b, a = 0.0;
  const PetscInt rows = METHOD == GK_KRYLOV_BICG ? 2 * n : n;

  GKOverlapBegin();
  if (PEERS && g.np && i) a = GKMake(st->a[0], st->a[1]); /* in flight during the wait */
  /* the state's loads issued together with the stop test's, one latency for all; kept on the
     GPUs, the wait tests for a stop first (a stopped iteration waits for none: no process sends
     its sums) and says whether the sums came */
  const GKFinishIn fin = GKKrylovFinishLoad<PEERS>(i, rho0, g, st);

  if (PEERS && g.np && i) {
    if (!fin.go) {
      GKPublish(st, pub);
      return;
    }
  } else {
    if (i) a = GKMake(st->a[0], st->a[1]);
    if (GKStopped(st, i)) {
      GKPublish(st, pub);
      return;
    }
  }
  const bool stop = GKKrylovFinish<METHOD>(i, fin, true, st, pub, &b);
  if (stop || last) { /* only x_i = x_i-1 + a p_i-1, the last update's move */
    if (i)
      for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) x[j] += a * pold[j];
    return;
  }
  {
    const GKDirIn in   = {z, i ? pold : z, b};
    const GKDirIn int_ = {zt, i ? ptold : zt, GKConj(b)};
    constexpr int NOFF = !L::ELLR && L::N ? L::N : 1;
    PetscInt      off[NOFF]; /* DIA's offsets, loaded once */

    if (!L::ELLR && L::N)
#pragma unroll
      for (int d = 0; d < NOFF; d++) off[d] = D.off[d];
    for (PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; t < rows; t += (PetscInt)gridDim.x * blockDim.x) {
      if (t < n) { /* slot t of ELLPACK-R, row r */
        const PetscInt r  = L::ELLR && !L::PLAIN && E.perm ? E.perm[t] : t;
        const GKScalar pr = in(r);
        const GKScalar wr = GKStepRow<L>(t, n, E, D, off, in);

        if (i) x[r] += a * pold[r]; /* the last update's move, where p_i-1 is read anyway */
        p[r] = pr;
        w[r] = wr;
        if (METHOD == GK_KRYLOV_CG) acc[0] += pr * GKConj(wr);
        else if (METHOD == GK_KRYLOV_COCG) acc[0] += pr * wr;
        else acc[0] += wr * GKConj(int_(r));
      } else {
        typedef typename L::Value V;
        const PetscInt            s = t - n, j = L::ELLR && Et.perm ? Et.perm[s] : s;

        pt[j] = int_(j);
        wt[j] = L::ELLR ? GKEllrRow<true>(s, Et.h, Et.sliceptr, Et.wfirst, Et.wptr, Et.rl, Et.col, Et.dcol,
                                          (const V *)(L::SINGLE ? Et.sval : (void *)Et.val), int_)
                        : GKDiaTransposeRow<true>(j, n, D.ndiag, D.off, (const V *)(L::SINGLE ? D.sval : (void *)D.val), int_);
      }
    }
  }
  GKGridSum<1, PEERS ? 0 : -1>(acc, partial, 0, st, pub, &g, i);
}

#define GK_STEP_PARAMS \
  PetscInt n, PetscInt i, GKScalar rho0, bool last, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, GKEllr E, GKEllr Et, \
    GKDia D, const GKScalar *z, const GKScalar *pold, GKScalar *p, GKScalar *w, GKScalar *x, const GKScalar *zt, const GKScalar *ptold, \
    GKScalar *pt, GKScalar *wt
#define GK_STEP_ARGS n, i, rho0, last, g, partial, st, pub, E, Et, D, z, pold, p, w, x, zt, ptold, pt, wt
template <class L, GKKrylovMethod METHOD>
__global__ void GKKrylovStepKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<L, METHOD, false>(GK_STEP_ARGS);
}

/* The same, the compiler told that 4 blocks must fit a multiprocessor (at most 64 registers a
   thread): unbounded, it issued some of a row's loads only after products that wait for the
   first ones; bounded, it schedules the loop otherwise (cuobjdump) */
template <class L, GKKrylovMethod METHOD>
__global__ void __launch_bounds__(GK_BLOCK, 4) GKKrylovStepBoundKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<L, METHOD, false>(GK_STEP_ARGS);
}

/* The step that waits for the sums of the other processes and pushes its own; bound where its
   one-process twin is (a bound of the twins' own occupancy reordered DIA's product loop) */
template <class L, GKKrylovMethod METHOD>
__global__ void GKKrylovStepPeersKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<L, METHOD, true>(GK_STEP_ARGS);
}

template <class L, GKKrylovMethod METHOD>
__global__ void __launch_bounds__(GK_BLOCK, 4) GKKrylovStepPeersBoundKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<L, METHOD, true>(GK_STEP_ARGS);
}
#undef GK_STEP_PARAMS
#undef GK_STEP_ARGS

typedef void (*GKStepKernelPtr)(PetscInt, PetscInt, GKScalar, bool, GKSums, double *, GKKrylovDevState *, GKKrylovDevState *, GKEllr, GKEllr, GKDia,
                                const GKScalar *, const GKScalar *, GKScalar *, GKScalar *, GKScalar *, const GKScalar *, const GKScalar *,
                                GKScalar *, GKScalar *);

/* whether the step kernels of L and METHOD are bound to 4 blocks: CG and COCG on the stencils'
   rows of 5 or 7 entries or diagonals, where that was measured faster, with
   real scalars (complex ones take twice the registers, and bound they would spill) */
template <class L, GKKrylovMethod METHOD>
constexpr bool GKStepBound()
{
  return sizeof(GKScalar) == sizeof(double) && METHOD != GK_KRYLOV_BICG && (L::N == 5 || L::N == 7);
}

/* the step kernel of L and METHOD; PEERS: the one that waits for the other processes' sums */
template <class L, GKKrylovMethod METHOD, bool PEERS>
static GKStepKernelPtr GKStepKernel()
{
  if constexpr (PEERS && GKStepBound<L, METHOD>()) return GKKrylovStepPeersBoundKernel<L, METHOD>;
  else if constexpr (PEERS) return GKKrylovStepPeersKernel<L, METHOD>;
  else if constexpr (GKStepBound<L, METHOD>()) return GKKrylovStepBoundKernel<L, METHOD>;
  else return GKKrylovStepKernel<L, METHOD>;
}

/* Launches step i with the kernel kern on v's arrays */
static PetscErrorCode GKStepLaunch(GKKrylovCUDA *k, GKStepKernelPtr kern, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *A,
                                   const GKKrylovVecs *v)
{
  GKEllr   E = {0, 0, 0, 1, NULL, NULL, NULL, NULL, NULL}, Et = E;
  GKDia    D = {0, 0, 0, NULL, NULL};
  unsigned nb;

  PetscFunctionBegin;
  if (A->ellr) E = *A->ellr;
  if (A->ellrt) Et = *A->ellrt;
  if (A->dia) D = *A->dia;
  nb       = GKWaveBlocks((const void *)kern, k->method == GK_KRYLOV_BICG ? 2 * k->n : k->n);
  k->stepi = i;
  GKCallCUDA(GKLaunchOverlapped(kern, nb, k->n, i, GKToDevice(rho0), last ? true : false, k->g, k->partial, k->state, k->pub, E, Et, D,
                                (const GKScalar *)v->z, (const GKScalar *)(i ? v->p[(i + 1) % 2] : NULL), (GKScalar *)v->p[i % 2], (GKScalar *)v->w,
                                (GKScalar *)v->x, (const GKScalar *)v->zt, (const GKScalar *)(i ? v->pt[(i + 1) % 2] : NULL),
                                (GKScalar *)v->pt[i % 2], (GKScalar *)v->wt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* the update's Jacobi scaling: none, in double precision, or in single (GKKrylovVecs' sd) */
enum GKUpdateDiag {
  GK_DIAG_NONE,
  GK_DIAG_DOUBLE,
  GK_DIAG_SINGLE
};

/* a = rho_i/dpi (kept for the next step, which moves x); r -= a w; z = diag .* r; for BiCG
   r~ -= conj(a) w~, z~ = conj(diag) .* r~; the block sums of the norm and of rho_i+1. DK: how
   diag is stored (GKUpdateDiag). PEERS: the sums may be kept on the GPUs (g.np). NULLC (CG and
   COCG on one process): z stored (without diag too) and only its sum taken, into slot 4, for
   GKKrylovNullConstKernel after it. */
template <GKKrylovMethod METHOD, int DK, bool PEERS, bool NULLC = false>
__global__ void GKKrylovUpdateKernel(PetscInt n, PetscInt i, GKKrylovNorm norm, bool pairs, GKSums g, double *partial, GKKrylovDevState *st,
                                     GKKrylovDevState *pub, const void *dv, const GKScalar *w, GKScalar *r, GKScalar *z, const GKScalar *wt,
                                     GKScalar *rt, GKScalar *zt)
{
  static_assert(!NULLC || (!PEERS && METHOD != GK_KRYLOV_BICG), "the constants are removed for CG and COCG on one process");
  using DT              = typename std::conditional<DK == GK_DIAG_SINGLE, GKSingle, GKScalar>::type;
  constexpr bool DIAG   = DK != GK_DIAG_NONE;
  constexpr bool STOREZ = DIAG || NULLC;
  const DT      *diag   = (const DT *)dv;
  GKScalar       acc[2] = {0.0, 0.0};
  GKScalar       a;

  GKOverlapBegin();
  if (!GKKrylovUpdateBegin<METHOD, PEERS>(i, g, st, &a)) return;
  /* row j's update from r(j), w(j) and diag(j), and its terms of the sums */
  auto row = [&](GKScalar rj, GKScalar wj, GKScalar dj, GKScalar &ro, GKScalar &zo) {
    ro = rj - a * wj;
    zo = DIAG ? dj * ro : ro;
    if (NULLC) acc[0] += zo;
    else if (norm == GK_KRYLOV_NORM_Z) acc[0] += GKRe(zo) * GKRe(zo) + GKIm(zo) * GKIm(zo);
    else if (norm == GK_KRYLOV_NORM_R) acc[0] += GKRe(ro) * GKRe(ro) + GKIm(ro) * GKIm(ro);
    if (METHOD != GK_KRYLOV_BICG && !NULLC) acc[1] += METHOD == GK_KRYLOV_CG ? zo * GKConj(ro) : zo * ro;
  };
  /* the rows from the last to the first: the step before went from the first to the last, so
     the w and r it touched last are still in L2 when this kernel starts, and the r this kernel
     writes last are the first the next step reads */
  const PetscInt tid = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x, stride = (PetscInt)gridDim.x * blockDim.x;

#if !defined(PETSC_USE_COMPLEX)
  if (METHOD != GK_KRYLOV_BICG && pairs) { /* two rows a thread: 16-byte loads and stores, fewer instructions for the same bytes */
    for (PetscInt q0 = tid; q0 < n / 2; q0 += stride) {
      const PetscInt q  = n / 2 - 1 - q0;
      const double2  r2 = ((const double2 *)r)[q], w2 = ((const double2 *)w)[q];
      double2        d2 = make_double2(1.0, 1.0), ro, zo;

      if constexpr (DK == GK_DIAG_DOUBLE) d2 = ((const double2 *)diag)[q];
      else if constexpr (DK == GK_DIAG_SINGLE) {
        const float2 f = ((const float2 *)diag)[q];

        d2 = make_double2(f.x, f.y);
      }

      row(r2.x, w2.x, d2.x, ro.x, zo.x);
      row(r2.y, w2.y, d2.y, ro.y, zo.y);
      ((double2 *)r)[q] = ro;
      if (STOREZ && z) ((double2 *)z)[q] = zo;
    }
    if ((n & 1) && !tid) {
      GKScalar ro, zo;

      row(r[n - 1], w[n - 1], DIAG ? GKLd(diag + n - 1) : 1.0, ro, zo);
      r[n - 1] = ro;
      if (STOREZ && z) z[n - 1] = zo;
    }
  } else
#endif
#pragma unroll 4 /* several rows' loads in flight at once */
    for (PetscInt j0 = tid; j0 < n; j0 += stride) {
      const PetscInt j = n - 1 - j0;
      GKScalar       rj, zj;

      const GKScalar dj = DIAG ? GKLd(diag + j) : GKScalar(1.0);

      row(r[j], w[j], dj, rj, zj);
      r[j] = rj;
      if (STOREZ && z) z[j] = zj;
      if (METHOD == GK_KRYLOV_BICG) {
        const GKScalar rtj = rt[j] - GKConj(a) * wt[j], ztj = DIAG ? GKConj(dj) * rtj : rtj;

        rt[j] = rtj;
        if (DIAG) zt[j] = ztj;
        acc[1] += zj * GKConj(rtj);
      }
    }
  if constexpr (NULLC) GKGridSum<1>(acc, partial, 4, st, pub);        /* the sum of z */
  else GKGridSum<2, PEERS ? 1 : -1>(acc, partial, 1, st, pub, &g, i); /* the norm and rho */
}

/* After GKKrylovUpdateKernel<..., NULLC>: z -= mean(z), the constants removed as PETSc's KSPs
   remove the operator's null space from the preconditioned residual, and the block sums of the
   norm and of rho_i+1 that the update leaves to the step without NULLC (a stopped or flagged
   update took no sum, and this kernel does nothing either) */
template <GKKrylovMethod METHOD>
__global__ void GKKrylovNullConstKernel(PetscInt n, GKKrylovNorm norm, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub,
                                        const GKScalar *r, GKScalar *z)
{
  GKScalar acc[2] = {0.0, 0.0}, mean;

  GKOverlapBegin();
  mean = GKMake(st->sum[4][0], st->sum[4][1]) / (double)n;
  if (GKStopped(st)) return;
  const PetscInt tid = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x, stride = (PetscInt)gridDim.x * blockDim.x;

#pragma unroll 4
  for (PetscInt j = tid; j < n; j += stride) {
    const GKScalar rj = r[j], zj = z[j] - mean;

    z[j] = zj;
    if (norm == GK_KRYLOV_NORM_Z) acc[0] += GKRe(zj) * GKRe(zj) + GKIm(zj) * GKIm(zj);
    else if (norm == GK_KRYLOV_NORM_R) acc[0] += GKRe(rj) * GKRe(rj) + GKIm(rj) * GKIm(rj);
    acc[1] += METHOD == GK_KRYLOV_CG ? zj * GKConj(rj) : zj * rj;
  }
  GKGridSum<2>(acc, partial, 1, st, pub); /* the norm and rho */
}

typedef void (*GKUpdateKernelPtr)(PetscInt, PetscInt, GKKrylovNorm, bool, GKSums, double *, GKKrylovDevState *, GKKrylovDevState *, const void *,
                                  const GKScalar *, GKScalar *, GKScalar *, const GKScalar *, GKScalar *, GKScalar *);

/* the update kernel for v's Jacobi scaling: none, double, or single precision (sd) */
template <GKKrylovMethod METHOD, bool PEERS, bool NULLC = false>
static GKUpdateKernelPtr GKUpdateKernelFor(const GKKrylovVecs *v)
{
  if (v->d && v->sd) return GKKrylovUpdateKernel<METHOD, GK_DIAG_SINGLE, PEERS, NULLC>;
  if (v->d) return GKKrylovUpdateKernel<METHOD, GK_DIAG_DOUBLE, PEERS, NULLC>;
  return GKKrylovUpdateKernel<METHOD, GK_DIAG_NONE, PEERS, NULLC>;
}

/* Launches update i with the kernel kern on v's arrays */
static PetscErrorCode GKUpdateLaunch(GKKrylovCUDA *k, GKUpdateKernelPtr kern, PetscInt i, const GKKrylovVecs *v)
{
  const void *d = v->d && v->sd ? v->sd : (const void *)v->d;
  /* 16-byte accesses where every array allows them */
  const bool pairs = !(((uintptr_t)d | (uintptr_t)v->w | (uintptr_t)v->r | (uintptr_t)v->z) % 16);

  PetscFunctionBegin;
  GKCallCUDA(GKLaunchOverlapped(kern, GKWaveBlocks((const void *)kern, k->n), k->n, i, k->norm, pairs, k->g, k->partial, k->state, k->pub, d,
                                (const GKScalar *)v->w, (GKScalar *)v->r, (GKScalar *)v->z, (const GKScalar *)v->wt, (GKScalar *)v->rt,
                                (GKScalar *)v->zt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/*
   The device functions every fused Krylov kernel uses: the stop test, the sums of a kernel
   finished by its last block to end (the blocks count themselves out with an atomic counter, as
   in CUDA's threadFenceReduction sample: no extra launch, no host round trip), the state
   published to the host, and the last update's sums finished where the next step starts.
*/
#pragma once

#include "peerwait.cuh"

/* Whether an earlier kernel flagged a breakdown (before: one of an iteration before i; a step
   that flags must not stop its own blocks that start later, which test the same sums), read once
   for the whole block so that all its threads take the same way past the barriers */
static __device__ bool GKStopped(const GKKrylovDevState *st, PetscInt before = PETSC_MAX_INT)
{
  __shared__ int flag;

  if (!threadIdx.x) flag = *(volatile const int *)&st->flag && st->flagit < before;
  __syncthreads();
  return flag != 0;
}

/* The last block's thread 0: the warps' sums added up in warp order into r, i and st->sum, and
   the counter reset for the next kernel */
template <int K>
static __device__ __forceinline__ void GKGridSumWarps(const double (*sre)[GK_WARPS], const double (*sim)[GK_WARPS], int slot0, GKKrylovDevState *st,
                                                      double *r, double *i)
{
  for (int k = 0; k < K; k++) {
    r[k] = i[k] = 0.0;
    for (int w = 0; w < GK_WARPS; w++) {
      r[k] += sre[k][w];
      i[k] += sim[k][w];
    }
    st->sum[slot0 + k][0] = r[k];
    st->sum[slot0 + k][1] = i[k];
  }
  st->count = 0;
}

/* The K sums of slots slot0.. over the whole grid: each block stores its partial sums, and the
   last block to do so adds them all up, in block order, into st->sum (a deterministic result)
   and the mapped host copy pub->sum, and resets the counter for the next kernel. With g and the
   sums kept on the GPUs (g->np), push >= 0 sends them to every process's mailbox as that kind
   of iteration it: 0, dpi (slot 3, the off-diagonal block's, is added to the step's slot 0 as
   the host path adds them), where the step pushes only with g->stepdpi; 1, the norm and rho
   (slots 1 and 2). A template argument, so that the kernels of one process carry none of it. */
template <int K, int PUSH = -1>
static __device__ void GKGridSum(const GKScalar *acc, double *partial, int slot0, GKKrylovDevState *st, GKKrylovDevState *pub, const GKSums *g = NULL,
                                 PetscInt it = 0)
{
  __shared__ bool   last;
  __shared__ double sre[K][GK_WARPS], sim[K][GK_WARPS];
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  double            re[K], im[K];

  GKBlockSumStore<K>(acc, partial + 2 * slot0 * GK_RED_BLOCKS, GK_RED_BLOCKS); /* thread 0 writes */
  if (!threadIdx.x) {
    __threadfence(); /* the partial sums visible to every block before the count says so */
    last = atomicAdd(&st->count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  /* the K slots' loads in flight together: one round of latency, not K */
  for (int k = 0; k < K; k++) re[k] = im[k] = 0.0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
    for (int k = 0; k < K; k++) {
      const volatile double *q = partial + 2 * (slot0 + k) * GK_RED_BLOCKS;

      re[k] += q[2 * b];
      im[k] += q[2 * b + 1];
    }
  for (int k = 0; k < K; k++) {
    for (int o = 16; o > 0; o /= 2) {
      re[k] += __shfl_down_sync(0xffffffffu, re[k], o);
      im[k] += __shfl_down_sync(0xffffffffu, im[k], o);
    }
    if (!lane) {
      sre[k][warp] = re[k];
      sim[k][warp] = im[k];
    }
  }
  __syncthreads();
  if constexpr (PUSH < 0) {
    if (!threadIdx.x) {
      double r[K], i[K];

      GKGridSumWarps<K>(sre, sim, slot0, st, r, i);
      for (int k = 0; k < K; k++) {
        pub->sum[slot0 + k][0] = r[k];
        pub->sum[slot0 + k][1] = i[k];
      }
    }
  } else { /* warp 0: lane 0 adds up, the lanes push a word each */
    __shared__ double pv[3];
    __shared__ bool   push;
    double            r[K], i[K];
    int               me  = 0;
    GKMailbox        *dst = NULL;

    if (threadIdx.x >= 32) return;
    if (g->np) dst = GKPeerPushBegin(*g, &me); /* loaded while lane 0 adds up */
    if (!threadIdx.x) {
      GKGridSumWarps<K>(sre, sim, slot0, st, r, i);
      push  = g->np && (PUSH == 1 || slot0 == 3 || g->stepdpi);
      pv[0] = PUSH == 1 ? r[0] : slot0 == 3 ? st->sum[0][0] + r[0] : r[0];
      pv[1] = PUSH == 1 ? r[K - 1] : slot0 == 3 ? st->sum[0][1] + i[0] : i[0];
      pv[2] = PUSH == 1 ? i[K - 1] : 0.0;
    }
    __syncwarp();
    /* pushed before the mapped host copy is written; pushed, the host copy is not read */
    if (push) GKPeerPush(*g, PUSH, it, pv, dst, me);
    if (!threadIdx.x)
      for (int k = 0; k < K; k++) {
        pub->sum[slot0 + k][0] = r[k];
        pub->sum[slot0 + k][1] = i[k];
      }
  }
}

/* What the host's convergence test reads, written by block 0's thread 0 (which wrote it to st)
   to the mapped host copy: no copy to queue, only the wait for the kernel */
static __device__ void GKPublish(const GKKrylovDevState *st, GKKrylovDevState *pub)
{
  if (!blockIdx.x && !threadIdx.x) {
    pub->norm2      = st->norm2;
    pub->rholast[0] = st->rholast[0];
    pub->rholast[1] = st->rholast[1];
    pub->flag       = *(volatile const int *)&st->flag;
    pub->flagit     = st->flagit;
  }
}

static __device__ void GKFlag(GKKrylovDevState *st, int flag, PetscInt i)
{
  if (!blockIdx.x && !threadIdx.x) {
    st->flag   = flag;
    st->flagit = i;
  }
}

/* What finishing the last update's sums at step i reads: rho_i, the norm and rho_i-1 (at i = 0,
   rho_0 as given), loaded together, one latency for all; PEERS: kept on the GPUs (g.np), the
   sums over the processes waited for */
struct GKFinishIn {
  GKScalar rho, old;
  double   nrm2;
  bool     go; /* PEERS: the sums came (not stopped, no timeout) */
};

template <bool PEERS = false>
static __device__ __forceinline__ GKFinishIn GKKrylovFinishLoad(PetscInt i, GKScalar rho0, const GKSums &g, GKKrylovDevState *st)
{
  GKFinishIn s;

  if (PEERS && g.np && i) { /* kept on the GPUs: the last update's, summed over the processes */
    double v[3];

    s.old  = GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]); /* in flight during the wait */
    s.go   = GKPeerWait(g, 1, i - 1, st, v, i);
    s.rho  = GKMake(v[1], v[2]);
    s.nrm2 = v[0];
    return s;
  }
  s.rho  = !i ? rho0 : g.set ? GKMake(g.s[2][0], g.s[2][1]) : GKMake(st->sum[2][0], st->sum[2][1]);
  s.nrm2 = !i ? 0.0 : g.set ? g.s[1][0] : st->sum[1][0];
  s.old  = !i ? rho0 : GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);
  return s;
}

/* The last update's sums finished at step i, the device twin of the host's GKHostKrylovFinish:
   b = rho_i/rho_i-1 and the breakdown tests; with record (one kernel of the step does it), block
   0 keeps rho_i, the norm and any flag in st and publishes the state. Returns whether the
   iteration stops here. */
template <GKKrylovMethod METHOD>
static __device__ __forceinline__ bool GKKrylovFinish(PetscInt i, const GKFinishIn &s, bool record, GKKrylovDevState *st, GKKrylovDevState *pub,
                                                      GKScalar *b)
{
  const bool lead = !blockIdx.x && !threadIdx.x;
  bool       stop = false;

  *b = 0.0;
  if (!i) {
    if (record && lead) {
      st->rho[0][0] = st->rholast[0] = GKRe(s.rho);
      st->rho[0][1] = st->rholast[1] = GKIm(s.rho);
    }
    return false;
  }
  if (s.rho == GKScalar(0.0)) stop = true;
#if !defined(PETSC_USE_COMPLEX) /* KSPCG tests rho's sign with real scalars only */
  else if (METHOD == GK_KRYLOV_CG && GKRe(s.rho) * GKRe(s.old) < 0.0) stop = true;
#endif
  else *b = s.rho / s.old;
  if (record) {
    if (lead) {
      st->norm2      = s.nrm2;
      st->rholast[0] = GKRe(s.rho);
      st->rholast[1] = GKIm(s.rho);
      if (!stop) {
        st->rho[i % 2][0] = GKRe(s.rho);
        st->rho[i % 2][1] = GKIm(s.rho);
      }
    }
    if (stop) GKFlag(st, s.rho == GKScalar(0.0) ? GK_KRYLOV_BREAKDOWN : GK_KRYLOV_INDEFINITE_PC, i);
    GKPublish(st, pub);
  }
  return stop;
}

/* z + b p, with explicit fused multiply-adds, so that a row computing its own direction entry
   and a row reading it as a neighbour's (GKDirIn) get the same bits */
static __device__ __forceinline__ GKScalar GKDir(GKScalar z, GKScalar b, GKScalar p)
{
#if defined(PETSC_USE_COMPLEX)
  return GKMake(fma(GKRe(b), GKRe(p), fma(-GKIm(b), GKIm(p), GKRe(z))), fma(GKRe(b), GKIm(p), fma(GKIm(b), GKRe(p), GKIm(z))));
#else
  return fma(b, p, z);
#endif
}

/* The direction as a product's x: p_i(j) = z(j) + b p_i-1(j). The first step passes p_i-1 = z
   and b = 0, so that it never reads the old direction: a NaN an earlier solve left there must
   not survive 0 * p. */
struct GKDirIn {
  const GKScalar *__restrict__ z;
  const GKScalar *__restrict__ p;
  GKScalar                            b;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const { return GKDir(GKLdg(z + j), b, GKLdg(p + j)); }
};

/* The update's a = rho_i/dpi, kept for the next step (which moves x); false when the update
   does nothing: stopped, or dpi flagged */
template <GKKrylovMethod METHOD, bool PEERS = false>
static __device__ __forceinline__ bool GKKrylovUpdateBegin(PetscInt i, const GKSums &g, GKKrylovDevState *st, GKScalar *a)
{
  GKScalar dpi;
  double   prev = 0.0; /* CG: dpi_i-1, loaded with rho_i (after the stop test's barrier it would
                          be one more wait for memory in the iteration's critical path) */

  if (PEERS && g.np) { /* kept on the GPUs: a stopped iteration waits for none (no process sends it) */
    double v[3];

    *a = GKMake(st->rho[i % 2][0], st->rho[i % 2][1]); /* in flight during the wait */
    if (METHOD == GK_KRYLOV_CG) prev = st->dpi[(i + 1) % 2];
    if (!GKPeerWait(g, 0, i, st, v)) return false;
    dpi = GKMake(v[0], v[1]);
  } else {
    dpi = g.set ? GKMake(g.s[0][0], g.s[0][1]) : GKMake(st->sum[0][0], st->sum[0][1]);
    *a  = GKMake(st->rho[i % 2][0], st->rho[i % 2][1]); /* rho_i, loaded with the stop test's flag */
    if (METHOD == GK_KRYLOV_CG) prev = st->dpi[(i + 1) % 2];
    if (GKStopped(st)) return false;
  }
  /* CG as KSPCG: dpi = 0, or a change of sign (a negative definite A is fine); a NaN is the
     norm test's */
  if (dpi == GKScalar(0.0) || (METHOD == GK_KRYLOV_CG && i > 0 && ((GKRe(dpi) > 0.0 && prev < 0.0) || (GKRe(dpi) < 0.0 && prev > 0.0)))) {
    GKFlag(st, METHOD == GK_KRYLOV_CG ? GK_KRYLOV_INDEFINITE_MAT : GK_KRYLOV_ZERO_DPI, i);
    return false;
  }
  *a = *a / dpi;
  if (!blockIdx.x && !threadIdx.x) {
    st->a[0]       = GKRe(*a);
    st->a[1]       = GKIm(*a);
    st->dpi[i % 2] = GKRe(dpi);
  }
  return true;
}

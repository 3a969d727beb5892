/*
   The device side of the sums kept on the GPUs (device.h, GKPeers; the mailboxes' layout in
   krylov.cuh): the kernels push their part of a sum into every process's mailbox and wait in
   their own for every process's part. The host side, which makes and maps the mailboxes, is
   peers.cu.
*/
#pragma once

#include "krylov.cuh"

/* nanoseconds on the GPU's global timer */
static __device__ __forceinline__ unsigned long long GKGlobalTimer()
{
  unsigned long long t;

  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define GK_PEER_TIMEOUT_NS 60000000000ull /* a minute: every process is in the same solve */

/* The 32-bit tag of the sum of kind of iteration i in this solve: the solve's low 16 bits, then
   1 + (2 i + 1 + kind) mod 65535, never 0 (what a mailbox starts with). What a word held before
   differs: within a solve it is of iteration i - 2; the words of parity 0 of kinds 0 and 2 are
   written at every solve's step 0, so from an earlier solve they hold the last one's tag; the
   others, which no process can write in a solve before this process's first kernels have run,
   are cleared at each solve's start (krylovsetpeers). */
static __device__ __forceinline__ unsigned GKPeerTag(const GKSums &g, int kind, PetscInt i)
{
  return ((unsigned)(g.base >> 32) << 16) | (unsigned)((2ull * (unsigned long long)i + 1ull + (unsigned long long)kind) % 65535ull + 1ull);
}

static __device__ __forceinline__ unsigned long long GKPeerLoad(const unsigned long long *w)
{
  return *(volatile const unsigned long long *)w;
}

/* This process's tag of kind 2 for step i (its ghosts are in the others' buffers), into every
   process's mailbox, by one thread after a system-wide fence */
static __device__ void GKPeerPushTags(const GKSums &g, int kind, PetscInt i)
{
  const unsigned long long tag = (unsigned long long)GKPeerTag(g, kind, i) << 32;
  const int                par = (int)(i & 1), me = g.pt->me;

  for (int q = 0; q < g.np; q++) *(volatile unsigned long long *)&g.pt->mb[q]->w[kind][par][me][0] = tag;
}

/* The sum of kind (0 dpi, 1 the norm and rho) of iteration i, this process's part v, written
   into row me of every process's mailbox by the lanes of one warp, a word each (dst and me
   loaded beforehand by GKPeerPushBegin, dst for the lane's first word) */
static __device__ void GKPeerPush(const GKSums &g, int kind, PetscInt i, const double *v, GKMailbox *dst, int me)
{
  const unsigned long long tag = (unsigned long long)GKPeerTag(g, kind, i) << 32;
  const int                par = (int)(i & 1);

  for (int t = threadIdx.x % 32; t < GK_PEER_WORDS * g.np; t += 32) {
    GKMailbox     *m = t < 32 ? dst : g.pt->mb[t / GK_PEER_WORDS];
    const int      k = t % GK_PEER_WORDS;
    const unsigned h = (unsigned)(k & 1 ? __double2hiint(v[k / 2]) : __double2loint(v[k / 2]));

    *(volatile unsigned long long *)&m->w[kind][par][me][k] = tag | h;
  }
}

static __device__ __forceinline__ GKMailbox *GKPeerPushBegin(const GKSums &g, int *me)
{
  const int t = threadIdx.x % 32;

  *me = g.pt->me;
  return t < GK_PEER_WORDS * g.np ? g.pt->mb[t / GK_PEER_WORDS] : NULL;
}

/* Warp 0 of a block: whether st holds a flag of an iteration before `before` (a stopped
   iteration: no process sends its sums), read with the first look at the words; if not, waits
   until each of words 0 .. nw - 1 (word t at w[STRIDE t]; a lane's are t = lane, lane + 32,
   ...: at most 3 a lane) holds tag. A word without it after GK_PEER_TIMEOUT_NS flags st
   (GK_KRYLOV_PEER_TIMEOUT, with process -1 - flagit the one whose row it is, rows of rowlen
   words: every later kernel stops, and the host raises an error instead of hanging). Returns
   (to every lane) whether the words came, the low halves of the lane's in lo. */
template <int STRIDE>
static __device__ bool GKPeerPoll(const unsigned long long *w, int nw, int rowlen, unsigned tag, GKKrylovDevState *st, PetscInt before,
                                  unsigned lo[3])
{
  const int          lane = threadIdx.x % 32;
  unsigned long long x[3];
  int                stop = 0;
  bool               good = true;

  if (!lane) stop = *(volatile const int *)&st->flag && st->flagit < before;
  for (int r = 0; r < 3; r++) x[r] = lane + 32 * r < nw ? GKPeerLoad(w + STRIDE * (lane + 32 * r)) : 0;
  stop = __shfl_sync(0xffffffffu, stop, 0);
  if (stop) return false;
  for (int r = 0; r < 3; r++) {
    const int t = lane + 32 * r;

    if (t >= nw) break;
    if ((unsigned)(x[r] >> 32) != tag) {
      const unsigned long long t0 = GKGlobalTimer();

      while ((unsigned)((x[r] = GKPeerLoad(w + STRIDE * t)) >> 32) != tag)
        if (GKGlobalTimer() - t0 > GK_PEER_TIMEOUT_NS) {
          st->flagit = -1 - t / rowlen;
          __threadfence();
          *(volatile int *)&st->flag = GK_KRYLOV_PEER_TIMEOUT;
          good                       = false;
          break;
        }
    }
  }
  for (int r = 0; r < 3; r++) lo[r] = (unsigned)x[r];
  return __all_sync(0xffffffffu, good);
}

/* The sum of kind of iteration i over all processes, from this process's mailbox: warp 0 of the
   block waits for every process's row (GKPeerPoll, a lane a word: one latency when they are
   there), lane 0 adds the rows up in rank order (the same bits on every process), and all the
   block's threads get it. False when stopped (a flag before `before`) or timed out. */
static __device__ bool GKPeerWait(const GKSums &g, int kind, PetscInt i, GKKrylovDevState *st, double v[3], PetscInt before = PETSC_MAX_INT)
{
  __shared__ double s[3];
  __shared__ bool   ok;

  if (threadIdx.x < 32) {
    unsigned   lo[3];
    double     a[3] = {0.0, 0.0, 0.0};
    const bool good = GKPeerPoll<1>(&g.mine->w[kind][i & 1][0][0], GK_PEER_WORDS * g.np, GK_PEER_WORDS, GKPeerTag(g, kind, i), st, before, lo);

    /* word t from lane t % 32, in rank order (every lane takes part in the shuffles) */
    for (int q = 0; good && q < g.np; q++)
      for (int k = 0; k < 3; k++) {
        const int      t0 = GK_PEER_WORDS * q + 2 * k, t1 = t0 + 1;
        const unsigned l0 = __shfl_sync(0xffffffffu, t0 < 32 ? lo[0] : t0 < 64 ? lo[1] : lo[2], t0 % 32);
        const unsigned l1 = __shfl_sync(0xffffffffu, t1 < 32 ? lo[0] : t1 < 64 ? lo[1] : lo[2], t1 % 32);

        a[k] += __hiloint2double((int)l1, (int)l0);
      }
    if (!threadIdx.x) {
      s[0] = a[0];
      s[1] = a[1];
      s[2] = a[2];
      ok   = good;
    }
  }
  __syncthreads();
  v[0] = s[0];
  v[1] = s[1];
  v[2] = s[2];
  return ok;
}

/* Every process's tag of kind 2 for step i (its ghosts are in this process's buffer), waited for
   by warp 0 of the block, then an acquire fence for the ghosts; false when stopped or timed out */
static __device__ bool GKPeerArrived(const GKSums &g, int kind, PetscInt i, GKKrylovDevState *st)
{
  __shared__ bool ok;

  if (threadIdx.x < 32) {
    unsigned   lo[3];
    const bool good = GKPeerPoll<GK_PEER_WORDS>(&g.mine->w[kind][i & 1][0][0], g.np, 1, GKPeerTag(g, kind, i), st, PETSC_MAX_INT,
                                                lo); /* row q's word 0 */

    __threadfence(); /* the ghosts read after the tags */
    if (!threadIdx.x) ok = good;
  }
  __syncthreads();
  return ok;
}

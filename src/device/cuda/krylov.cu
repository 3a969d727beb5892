/*
   The fused Krylov kernels of device.h: two an iteration, the scalars of the method kept on
   the device. Each kernel's sums are finished by its last block to end (the blocks count
   themselves out with an atomic counter, as in CUDA's threadFenceReduction sample), which
   leaves them in the state for the next kernel: no extra launch, no host round trip, and no
   block of the next kernel waits on more than one load. CG follows Michels, Algorithm 5
   (PCG), BiCG Jost et al., 3.1, with A^H for complex scalars as De Donno et al. do; each
   kernel computes what its twin in host/krylov.c computes.
*/
#include "cudaimpl.h"

/* partial sums, per block: [0] dpi, [1] the norm, [2] rho, [3] the off-diagonal block's dpi
   (several processes); slot k at 2 k GK_RED_BLOCKS */
#define GK_SLOTS 4

typedef struct {
  double   sum[GK_SLOTS][2]; /* the finished sums, (re, im) */
  unsigned count;            /* blocks of the running kernel done with their partial sums */
  double   rho[2][2];        /* rho_i by the parity of i, (re, im) */
  double   rholast[2];       /* the last rho the step finished */
  double   a[2];             /* a_i of the last update, (re, im): the step after it moves x */
  double   dpi[2];           /* CG: the real part of dpi_i by the parity of i */
  double   norm2;
  int      flag;
  PetscInt flagit;
  unsigned hcount; /* blocks of the running gather done sending their ghosts GPU to GPU */
} GKKrylovDevState;

/* A process's mailbox of the sums kept on the GPUs (device.h, GKPeers), in its device memory,
   written by every process's kernels: kind 0 holds dpi of step i (re, im), kind 1 the norm and
   rho of update i (norm, re rho, im rho), by the parity of i, a row per process. Each value
   travels as two 8-byte words, each with 32 of its bits below and the sum's 32-bit tag
   (GKPeerTag) above: a word is written and read whole, so a reader that finds the tag in every
   word of a row has the row, and neither side fences (the idea of NCCL's LL protocol). Kind 2
   holds a tag alone (word 0): the ghosts of step i's direction, which that process wrote into
   the others' ghost buffers before a system-wide fence (GKKrylovGatherKernel), are there. */
#define GK_PEER_HALO  2
#define GK_PEER_WORDS 6
typedef struct {
  unsigned long long w[3][2][GK_PEERS_MAX][GK_PEER_WORDS];
} GKMailbox;

/* which mailbox is whose, in device memory (the kernels' parameters stay as small as they were
   without: the compiler chose other registers for the one-process kernels with the table in
   them) */
typedef struct {
  int        me;
  GKMailbox *mb[GK_PEERS_MAX]; /* every process's, mapped here (mb[me] is this process's own) */
  /* the direction's ghosts sent GPU to GPU (peershalo): the gather's entry k of step i written
     to hdst[(i % 2) n + k] in another process's ghost buffer, n entries */
  int              hon;
  GKScalar *const *hdst;
} GKPeerTable;

struct GKPeersCUDA {
  int          np, me, dev;
  GKMailbox   *mine;             /* this process's mailbox */
  GKMailbox   *mb[GK_PEERS_MAX]; /* every process's, mapped here (mb[me] = mine) */
  GKPeerTable *table;            /* device: me and mb */
  GKPeerTable  host;             /* its host copy */
  /* the ghosts of the direction, received GPU to GPU: this process's buffer (2 nghost, by the
     parity of the step), and the others' it writes into, mapped here */
  GKScalar  *ghost;
  PetscInt   nghost;
  GKScalar  *gmap[GK_PEERS_MAX];
  GKScalar **hdst;
};

/* the sums over all processes (krylovsetsums), passed to the kernels by value: set, they
   replace the sums of this process's rows in slots 0 to 2; np > 0: the sums kept on the GPUs
   instead (krylovsetpeers), through the mailboxes mb */
typedef struct {
  int                set;
  double             s[3][2];
  GKMailbox         *mine;        /* np > 0: this process's mailbox, which the waits read */
  int                np, stepdpi; /* stepdpi: the step pushes dpi (no off-diagonal kernel follows) */
  unsigned long long base;        /* the solve's tags: solve << 32 */
  const GKPeerTable *pt;          /* device */
} GKSums;

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
static __device__ bool GKPeerPoll(const unsigned long long *w, int nw, int rowlen, unsigned tag, GKKrylovDevState *st, PetscInt before, unsigned lo[3])
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
          good = false;
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
    const bool good = GKPeerPoll<GK_PEER_WORDS>(&g.mine->w[kind][i & 1][0][0], g.np, 1, GKPeerTag(g, kind, i), st, PETSC_MAX_INT, lo); /* row q's word 0 */

    __threadfence(); /* the ghosts read after the tags */
    if (!threadIdx.x) ok = good;
  }
  __syncthreads();
  return ok;
}

struct GKKrylovCUDA {
  PetscInt          n;
  GKKrylovMethod    method;
  GKKrylovNorm      norm;
  double           *partial; /* device: GK_SLOTS x GK_RED_BLOCKS x (re, im) */
  GKKrylovDevState *state;   /* device */
  GKKrylovDevState *hstate;  /* mapped pinned host memory the step kernels publish the state to */
  GKKrylovDevState *pub;     /* its device address */
  cudaEvent_t       copied;  /* recorded after the step the host waits for */
  cudaEvent_t       gathered; /* after the direction entries for other processes */
  GKSums            g;
  GKScalar         *ghost; /* with the sums kept on the GPUs and the ghosts sent GPU to GPU: this process's ghost buffer (2 nghost) */
  PetscInt          nghost;
  PetscInt          stepi;  /* the last step's i, for the off-diagonal kernel after it */
  unsigned          ssornb; /* the Eisenstat colour kernels' one grid, for ssorm rows in blocks of ssorbs (0: not yet found) */
  PetscInt          ssorm, ssorbs;
};

PetscErrorCode GKCUDAKrylovCreate(PetscInt n, GKKrylovMethod method, GKKrylovNorm norm, GKKrylov *K)
{
  GKKrylovCUDA *k;

  PetscFunctionBegin;
  PetscCall(PetscNew(&k));
  k->n      = n;
  k->method = method;
  k->norm   = norm;
  GKCallCUDA(cudaMalloc((void **)&k->partial, sizeof(double) * 2 * GK_SLOTS * GK_RED_BLOCKS));
  GKCallCUDA(cudaMalloc((void **)&k->state, sizeof(GKKrylovDevState)));
  GKCallCUDA(cudaMemset(k->state, 0, sizeof(GKKrylovDevState)));
  GKCallCUDA(cudaHostAlloc((void **)&k->hstate, sizeof(GKKrylovDevState), cudaHostAllocMapped));
  GKCallCUDA(cudaHostGetDevicePointer((void **)&k->pub, k->hstate, 0));
  memset(k->hstate, 0, sizeof(GKKrylovDevState));
  GKCallCUDA(cudaEventCreateWithFlags(&k->copied, cudaEventDisableTiming));
  GKCallCUDA(cudaEventCreateWithFlags(&k->gathered, cudaEventDisableTiming));
  *K = (GKKrylov)k;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovDestroy(GKKrylov *K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)*K;

  PetscFunctionBegin;
  if (!k) PetscFunctionReturn(0);
  GKCallCUDA(cudaFree(k->partial));
  GKCallCUDA(cudaFree(k->state));
  GKCallCUDA(cudaFreeHost(k->hstate));
  GKCallCUDA(cudaEventDestroy(k->copied));
  GKCallCUDA(cudaEventDestroy(k->gathered));
  PetscCall(PetscFree(k));
  *K = NULL;
  PetscFunctionReturn(0);
}

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

/* Blocks for one of these grid-stride kernels: as many as the GPU runs at once and no more (a
   second, partial wave would leave most of the GPU idle while it runs), at most GK_RED_BLOCKS */
static unsigned GKWaveBlocks(const void *kernel, PetscInt rows)
{
  static struct {
    const void *f;
    int         per;
  } cache[64];
  static int ncache, sms;
  int        per = 0;

  for (int c = 0; c < ncache; c++)
    if (cache[c].f == kernel) per = cache[c].per;
  if (!per) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, GK_BLOCK, 0) != cudaSuccess || per < 1) {
      (void)cudaGetLastError();
      per = 1;
    }
    if (ncache < 64) {
      cache[ncache].f     = kernel;
      cache[ncache++].per = per;
    }
  }
  if (!sms) {
    int dev = 0;

    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      sms = 1;
    }
  }
  return (unsigned)PetscMax(1, PetscMin((PetscInt)GKBlocks(rows), (PetscInt)PetscMin(per * sms, GK_RED_BLOCKS)));
}

/* The last block's thread 0: the warps' sums added up in warp order into r, i and st->sum, and
   the counter reset for the next kernel */
template <int K>
static __device__ __forceinline__ void GKGridSumWarps(const double (*sre)[GK_WARPS], const double (*sim)[GK_WARPS], int slot0, GKKrylovDevState *st, double *r, double *i)
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
static __device__ void GKGridSum(const GKScalar *acc, double *partial, int slot0, GKKrylovDevState *st, GKKrylovDevState *pub, const GKSums *g = NULL, PetscInt it = 0)
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
      push = g->np && (PUSH == 1 || slot0 == 3 || g->stepdpi);
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
static __device__ __forceinline__ bool GKKrylovFinish(PetscInt i, const GKFinishIn &s, bool record, GKKrylovDevState *st, GKKrylovDevState *pub, GKScalar *b)
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
  else if (METHOD == GK_KRYLOV_CG && GKRe(s.rho) * GKRe(s.old) < 0.0) stop = true;
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
  GKScalar b;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const { return GKDir(GKLdg(z + j), b, GKLdg(p + j)); }
};

/* DIA's row i of the step, ND diagonals known, the offsets in registers: every load of the row
   issued before its first product. With GKDiaRow the compiler kept the step at 32 registers and
   issued the loads a diagonal at a time (three in flight, each waiting for its offset's load);
   this way it takes 54 registers (4 blocks a multiprocessor, not 8) and cggpu on diacuda ran
   131.3 -> 126.8 us an iteration at 2048^2, 495 -> 473 us at 4096^2 (one H200, bench/ANALYSIS.md).
   The same sums in the same order: out of range adds 0 * 0. */
template <int ND, class IN>
static __device__ __forceinline__ GKScalar GKDiaRowLoadsFirst(PetscInt i, PetscInt n, const PetscInt *off, const GKScalar *__restrict__ val, const IN &x)
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

/* (A p_i)_t, slot t's row of the step: ELLPACK-R with every load first (ND >> 2, the paper's
   layout) or its general loop (ND's bits 1 and 2); DIA with ND diagonals known, the offsets off
   in registers, or any number */
template <bool ELLR, int ND>
static __device__ __forceinline__ GKScalar GKStepRow(PetscInt t, PetscInt n, const GKEllr &E, const GKDia &D, const PetscInt *off, const GKDirIn &in)
{
  /* ELLPACK-R's rows with every load first, the length not read (cudaimpl.h): a padded entry
     adds 0 * a finite direction, +-0, which leaves the sum as GKEllrRow's; a direction that is
     not finite has already made p.w, and so the solve, fail. Loading the rows this way took
     cggpu on ellrcuda at 2048^2 (one H200) from 158 to 147 us an iteration, 4096^2 610 -> 547
     us, at the same 40 registers (bench/ANALYSIS.md). Not reading the length: 146.1 -> 143.1 us
     at 2048^2 and 139.4 -> 134.8 us with 16-bit columns, but 544 -> 552 us at 4096^2 (518 ->
     515 us with 16-bit columns). */
  if constexpr (ELLR && (ND >> 2)) return GKEllrRowLoadsFirst<false, (ND >> 2), (ND >> 1) & 1, false>(t, E.h, E.rl, E.col, E.dcol, (const GKScalar *)E.val, in);
  else if constexpr (ELLR) return GKEllrRow<false, GKDirIn, (ND & 1) != 0, 2, (ND >> 1) & 1>(t, E.h, E.sliceptr, E.wfirst, E.wptr, E.rl, E.col, E.dcol, (const GKScalar *)E.val, in);
  else if constexpr (ND) return GKDiaRowLoadsFirst<ND>(t, n, off, (const GKScalar *)D.val, in);
  else return GKDiaRow<0>(t, n, n, D.ndiag, D.off, (const GKScalar *)D.val, in);
}

/* Step i. Finishes the last update's sums: the norm, rho_i, b = rho_i/rho_i-1 (the breakdown
   tests); moves x by the last update's a p_i-1; then, unless last, p_i = z + b p_i-1 (p~_i = z~ +
   conj(b) p~_i-1) written to the other buffer, w = A p_i (w~ = A^H p~_i, rows n..2n-1 of the
   launch) reading the neighbours' p_i computed on the fly, and the block sums of dpi. ND: DIA's
   diagonals when known at compile time (GKDiaRow); for ELLPACK-R, ND's bit 1 marks the paper's
   layout, bit 2 the 16-bit columns (device.h), and ND >> 2, where not 0, the longest row's
   length in the paper's layout (GKEllrRowLoadsFirst). PEERS: the sums may be kept on the GPUs
   (g.np). */
template <bool ELLR, int ND, GKKrylovMethod METHOD, bool PEERS>
static __device__ __forceinline__ void GKKrylovStepBody(PetscInt n, PetscInt i, GKScalar rho0, bool last, const GKSums &g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKEllr &E, const GKEllr &Et, const GKDia &D, const GKScalar *z, const GKScalar *pold, GKScalar *p, GKScalar *w, GKScalar *x, const GKScalar *zt, const GKScalar *ptold, GKScalar *pt, GKScalar *wt)
{
  GKScalar       acc[1] = {0.0}, b, a = 0.0;
  const PetscInt rows   = METHOD == GK_KRYLOV_BICG ? 2 * n : n;

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
    PetscInt      off[!ELLR && ND ? ND : 1]; /* DIA's offsets, loaded once */

    if (!ELLR && ND)
#pragma unroll
      for (int d = 0; d < (!ELLR && ND ? ND : 1); d++) off[d] = D.off[d];
    for (PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; t < rows; t += (PetscInt)gridDim.x * blockDim.x) {
      if (t < n) { /* slot t of ELLPACK-R, row r */
        const PetscInt r  = ELLR && !(ND & 1) && E.perm ? E.perm[t] : t;
        const GKScalar pr = in(r);
        const GKScalar wr = GKStepRow<ELLR, ND>(t, n, E, D, off, in);

        if (i) x[r] += a * pold[r]; /* the last update's move, where p_i-1 is read anyway */
        p[r] = pr;
        w[r] = wr;
        if (METHOD == GK_KRYLOV_CG) acc[0] += pr * GKConj(wr);
        else if (METHOD == GK_KRYLOV_COCG) acc[0] += pr * wr;
        else acc[0] += wr * GKConj(int_(r));
      } else {
        const PetscInt s = t - n, j = ELLR && Et.perm ? Et.perm[s] : s;

        pt[j] = int_(j);
        wt[j] = ELLR ? GKEllrRow<true>(s, Et.h, Et.sliceptr, Et.wfirst, Et.wptr, Et.rl, Et.col, Et.dcol, (const GKScalar *)Et.val, int_) : GKDiaTransposeRow<true>(j, n, D.ndiag, D.off, (const GKScalar *)D.val, int_);
      }
    }
  }
  GKGridSum<1, PEERS ? 0 : -1>(acc, partial, 0, st, pub, &g, i);
}

#define GK_STEP_PARAMS PetscInt n, PetscInt i, GKScalar rho0, bool last, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, GKEllr E, GKEllr Et, GKDia D, const GKScalar *z, const GKScalar *pold, GKScalar *p, GKScalar *w, GKScalar *x, const GKScalar *zt, const GKScalar *ptold, GKScalar *pt, GKScalar *wt
#define GK_STEP_ARGS   n, i, rho0, last, g, partial, st, pub, E, Et, D, z, pold, p, w, x, zt, ptold, pt, wt
template <bool ELLR, int ND, GKKrylovMethod METHOD>
__global__ void GKKrylovStepKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<ELLR, ND, METHOD, false>(GK_STEP_ARGS);
}

/* The same, the compiler told that 4 blocks must fit a multiprocessor (at most 64 registers a
   thread). Unbounded it gave DIA's rows of 5 diagonals 54 registers and issued 9 of a row's 19
   loads after 6 products that wait for the first 10; told 4, it takes 62 and schedules the loop
   otherwise (cuobjdump; bench/ANALYSIS.md). One H200, cggpu an iteration, the bound on every
   step kernel of one process against none, in one call, two runs each: diacuda 2048^2 127.2,
   127.3 -> 123.6, 122.3 us, 4096^2 473.8, 475.6 -> 454.0, 455.9 us; ellrcuda 2048^2 148.1, 147.6
   -> 146.3, 146.5 us, 4096^2 552 -> 543.5 us; one run each: ellrcuda 128^3 99.6 -> 92.4 us,
   diacuda 78.0 -> 77.2 us. Used where measured: CG and
   COCG on DIA of 5 or 7 diagonals, and on ELLPACK-R rows of 5 or 7 entries with every load
   first (GKStepKernel). */
template <bool ELLR, int ND, GKKrylovMethod METHOD>
__global__ void __launch_bounds__(GK_BLOCK, 4) GKKrylovStepBoundKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<ELLR, ND, METHOD, false>(GK_STEP_ARGS);
}

/* No register bound by default: unbounded, the compiler gives these 32 to 54 registers a thread,
   like their one-process twins (a bound of their twins' 8 or 6 blocks reordered DIA's product
   loop; at 4096^2 on one H200 it cost ELLPACK-R 14 us of 624 an iteration, see
   bench/ANALYSIS.md). Where the one-process kernel is bound to 4 blocks, so is its twin
   (GKStepPeersKernel): one process with the MPI type, one H200, two runs each against
   unbounded, ellrcuda 2048^2 149.6, 150.5 -> 148.1, 148.3 us, 4096^2 553.4, 554.1 -> 545.3,
   545.3 us; diacuda 2048^2 124.9, 125.1 -> 124.2, 123.9 us. */
template <bool ELLR, int ND, GKKrylovMethod METHOD>
__global__ void GKKrylovStepPeersKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<ELLR, ND, METHOD, true>(GK_STEP_ARGS);
}

template <bool ELLR, int ND, GKKrylovMethod METHOD>
__global__ void __launch_bounds__(GK_BLOCK, 4) GKKrylovStepPeersBoundKernel(GK_STEP_PARAMS)
{
  GKKrylovStepBody<ELLR, ND, METHOD, true>(GK_STEP_ARGS);
}
#undef GK_STEP_PARAMS
#undef GK_STEP_ARGS

typedef void (*GKStepKernelPtr)(PetscInt, PetscInt, GKScalar, bool, GKSums, double *, GKKrylovDevState *, GKKrylovDevState *, GKEllr, GKEllr, GKDia, const GKScalar *, const GKScalar *, GKScalar *, GKScalar *, GKScalar *, const GKScalar *, const GKScalar *, GKScalar *, GKScalar *);

/* whether the step kernels of ELLR, ND and METHOD are bound to 4 blocks: where that was measured
   faster, with real scalars (complex ones take twice the registers: 88 to 128 unbounded, and
   at 64 they would spill 72 to 248 bytes a thread) */
template <bool ELLR, int ND, GKKrylovMethod METHOD>
constexpr bool GKStepBound()
{
  return sizeof(GKScalar) == sizeof(double) && METHOD != GK_KRYLOV_BICG && (ELLR ? (ND >> 2) == 5 || (ND >> 2) == 7 : ND == 5 || ND == 7);
}

/* the one-process step kernel of ELLR, ND and METHOD */
template <bool ELLR, int ND, GKKrylovMethod METHOD>
static GKStepKernelPtr GKStepKernel()
{
  if constexpr (GKStepBound<ELLR, ND, METHOD>()) return GKKrylovStepBoundKernel<ELLR, ND, METHOD>;
  else return GKKrylovStepKernel<ELLR, ND, METHOD>;
}

/* the step kernel that waits for peers, the same way */
template <bool ELLR, int ND, GKKrylovMethod METHOD>
static GKStepKernelPtr GKStepPeersKernel()
{
  if constexpr (GKStepBound<ELLR, ND, METHOD>()) return GKKrylovStepPeersBoundKernel<ELLR, ND, METHOD>;
  else return GKKrylovStepPeersKernel<ELLR, ND, METHOD>;
}

PetscErrorCode GKCUDAKrylovStep(GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, const GKOperator *A, const PetscScalar *z, const PetscScalar *pold, PetscScalar *p, PetscScalar *w, PetscScalar *x, const PetscScalar *zt, const PetscScalar *ptold, PetscScalar *pt, PetscScalar *wt)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  GKEllr        E = {0, 0, 0, 1, NULL, NULL, NULL, NULL, NULL}, Et = E;
  GKDia         D = {0, 0, 0, NULL, NULL};

  PetscFunctionBegin;
  if (A->ellr) E = *A->ellr;
  if (A->ellrt) Et = *A->ellrt;
  if (A->dia) D = *A->dia;
  /* ELLPACK-R in the paper's layout (no slices, permutation or wide rows): ND's bit 1 marks it,
     bit 2 the 16-bit columns; and where its longest row has 5, 7 or 9 entries (the 2D and 3D
     stencils), ND >> 2 says so, for the step's rows with every load first */
  const PetscBool plain = A->ellr && E.h == E.m && !E.perm && !E.nwide ? PETSC_TRUE : PETSC_FALSE;
  const int       nd    = (plain ? 1 : 0) | (E.dcol ? 2 : 0) | (plain && (E.nz == 5 || E.nz == 7 || E.nz == 9) ? (int)E.nz << 2 : 0);
  const bool      peers = k->g.np > 0; /* the sums kept on the GPUs: the kernels that wait and push */
  GKStepKernelPtr kern  = NULL;
  unsigned nb;

#define GK_DIA_CG(ND)   kern = peers ? GKStepPeersKernel<false, ND, GK_KRYLOV_CG>() : GKStepKernel<false, ND, GK_KRYLOV_CG>()
#define GK_DIA_COCG(ND) kern = peers ? GKStepPeersKernel<false, ND, GK_KRYLOV_COCG>() : GKStepKernel<false, ND, GK_KRYLOV_COCG>()
#define GK_DIA_BICG(ND) kern = GKKrylovStepKernel<false, ND, GK_KRYLOV_BICG>
#define GK_ELLR_CASE(K, M, ND) \
  case ND: \
    kern = K<true, ND, M>(); \
    break
#define GK_ELLR_STEP1(M, K) \
  do { \
    switch (nd) { \
    GK_ELLR_CASE(K, M, 1); \
    GK_ELLR_CASE(K, M, 2); \
    GK_ELLR_CASE(K, M, 3); \
    GK_ELLR_CASE(K, M, 5 << 2 | 1); \
    GK_ELLR_CASE(K, M, 5 << 2 | 3); \
    GK_ELLR_CASE(K, M, 7 << 2 | 1); \
    GK_ELLR_CASE(K, M, 7 << 2 | 3); \
    GK_ELLR_CASE(K, M, 9 << 2 | 1); \
    GK_ELLR_CASE(K, M, 9 << 2 | 3); \
    default: \
      kern = K<true, 0, M>(); \
    } \
  } while (0)
#define GK_ELLR_STEP(M) \
  do { \
    if (peers) GK_ELLR_STEP1(M, GKStepPeersKernel); \
    else GK_ELLR_STEP1(M, GKStepKernel); \
  } while (0)
  if (k->method == GK_KRYLOV_CG) {
    if (A->ellr) GK_ELLR_STEP(GK_KRYLOV_CG);
    else GKDiaDispatch(D.ndiag, GK_DIA_CG);
  } else if (k->method == GK_KRYLOV_COCG) {
    if (A->ellr) GK_ELLR_STEP(GK_KRYLOV_COCG);
    else GKDiaDispatch(D.ndiag, GK_DIA_COCG);
  } else { /* BiCG: the general layout's kernel, as for the paper's */
    if (A->ellr) kern = E.dcol ? GKKrylovStepKernel<true, 2, GK_KRYLOV_BICG> : GKKrylovStepKernel<true, 0, GK_KRYLOV_BICG>;
    else GKDiaDispatch(D.ndiag, GK_DIA_BICG);
  }
#undef GK_ELLR_STEP
#undef GK_ELLR_STEP1
#undef GK_ELLR_CASE
#undef GK_DIA_CG
#undef GK_DIA_COCG
#undef GK_DIA_BICG
  nb = GKWaveBlocks((const void *)kern, k->method == GK_KRYLOV_BICG ? 2 * k->n : k->n);
  k->stepi = i;
  GKCallCUDA(GKLaunchOverlapped(kern, nb, k->n, i, GKToDevice(rho0), last ? true : false, k->g, k->partial, k->state, k->pub, E, Et, D, (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)p, (GKScalar *)w, (GKScalar *)x, (const GKScalar *)zt, (const GKScalar *)ptold, (GKScalar *)pt, (GKScalar *)wt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

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

/* a = rho_i/dpi (kept for the next step, which moves x); r -= a w; z = diag .* r; for BiCG
   r~ -= conj(a) w~, z~ = conj(diag) .* r~; the block sums of the norm and of rho_i+1. PEERS: the
   sums may be kept on the GPUs (g.np). */
template <GKKrylovMethod METHOD, bool DIAG, bool PEERS>
__global__ void GKKrylovUpdateKernel(PetscInt n, PetscInt i, GKKrylovNorm norm, bool pairs, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *diag, const GKScalar *w, GKScalar *r, GKScalar *z, const GKScalar *wt, GKScalar *rt, GKScalar *zt)
{
  GKScalar acc[2] = {0.0, 0.0};
  GKScalar a;

  GKOverlapBegin();
  if (!GKKrylovUpdateBegin<METHOD, PEERS>(i, g, st, &a)) return;
  /* row j's update from r(j), w(j) and diag(j), and its terms of the sums */
  auto row = [&](GKScalar rj, GKScalar wj, GKScalar dj, GKScalar &ro, GKScalar &zo) {
    ro = rj - a * wj;
    zo = DIAG ? dj * ro : ro;
    if (norm == GK_KRYLOV_NORM_Z) acc[0] += GKRe(zo) * GKRe(zo) + GKIm(zo) * GKIm(zo);
    else if (norm == GK_KRYLOV_NORM_R) acc[0] += GKRe(ro) * GKRe(ro) + GKIm(ro) * GKIm(ro);
    if (METHOD != GK_KRYLOV_BICG) acc[1] += METHOD == GK_KRYLOV_CG ? zo * GKConj(ro) : zo * ro;
  };
  /* the rows from the last to the first: the step before went from the first to the last, so
     the w and r it touched last are still in L2 when this kernel starts, and the r this kernel
     writes last are the first the next step reads (1 to 2 us an iteration at 2048^2 on an H200,
     bench/ANALYSIS.md) */
  const PetscInt tid = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x, stride = (PetscInt)gridDim.x * blockDim.x;

#if !defined(PETSC_USE_COMPLEX)
  if (METHOD != GK_KRYLOV_BICG && pairs) { /* two rows a thread: 16-byte loads and stores, fewer instructions for the same bytes */
    for (PetscInt q0 = tid; q0 < n / 2; q0 += stride) {
      const PetscInt q = n / 2 - 1 - q0;
      const double2 r2 = ((const double2 *)r)[q], w2 = ((const double2 *)w)[q], d2 = DIAG ? ((const double2 *)diag)[q] : make_double2(1.0, 1.0);
      double2       ro, zo;

      row(r2.x, w2.x, d2.x, ro.x, zo.x);
      row(r2.y, w2.y, d2.y, ro.y, zo.y);
      ((double2 *)r)[q] = ro;
      if (DIAG && z) ((double2 *)z)[q] = zo;
    }
    if ((n & 1) && !tid) {
      GKScalar ro, zo;

      row(r[n - 1], w[n - 1], DIAG ? diag[n - 1] : 1.0, ro, zo);
      r[n - 1] = ro;
      if (DIAG && z) z[n - 1] = zo;
    }
  } else
#endif
#pragma unroll 4 /* several rows' loads in flight at once */
    for (PetscInt j0 = tid; j0 < n; j0 += stride) {
      const PetscInt j = n - 1 - j0;
      GKScalar rj, zj;

      row(r[j], w[j], DIAG ? diag[j] : GKScalar(1.0), rj, zj);
      r[j] = rj;
      if (DIAG && z) z[j] = zj;
      if (METHOD == GK_KRYLOV_BICG) {
        const GKScalar rtj = rt[j] - GKConj(a) * wt[j], ztj = DIAG ? GKConj(diag[j]) * rtj : rtj;

        rt[j] = rtj;
        if (DIAG) zt[j] = ztj;
        acc[1] += zj * GKConj(rtj);
      }
    }
  GKGridSum<2, PEERS ? 1 : -1>(acc, partial, 1, st, pub, &g, i); /* the norm and rho */
}

PetscErrorCode GKCUDAKrylovUpdate(GKKrylov K, PetscInt i, const PetscScalar *diag, const PetscScalar *w, PetscScalar *r, PetscScalar *z, const PetscScalar *wt, PetscScalar *rt, PetscScalar *zt)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  void (*kern)(PetscInt, PetscInt, GKKrylovNorm, bool, GKSums, double *, GKKrylovDevState *, GKKrylovDevState *, const GKScalar *, const GKScalar *, GKScalar *, GKScalar *, const GKScalar *, GKScalar *, GKScalar *);
  unsigned nb;
  /* 16-byte accesses where every array allows them */
  const bool pairs = !(((uintptr_t)diag | (uintptr_t)w | (uintptr_t)r | (uintptr_t)z) % 16);

  /* the sums kept on the GPUs (CG and COCG only): the kernels that wait and push */
#define GK_UPDATE(M, DIAG) (k->g.np ? GKKrylovUpdateKernel<M, DIAG, true> : GKKrylovUpdateKernel<M, DIAG, false>)
  if (k->method == GK_KRYLOV_CG) kern = diag ? GK_UPDATE(GK_KRYLOV_CG, true) : GK_UPDATE(GK_KRYLOV_CG, false);
  else if (k->method == GK_KRYLOV_COCG) kern = diag ? GK_UPDATE(GK_KRYLOV_COCG, true) : GK_UPDATE(GK_KRYLOV_COCG, false);
  else kern = diag ? GKKrylovUpdateKernel<GK_KRYLOV_BICG, true, false> : GKKrylovUpdateKernel<GK_KRYLOV_BICG, false, false>;
#undef GK_UPDATE
  nb = GKWaveBlocks((const void *)kern, k->n);
  GKCallCUDA(GKLaunchOverlapped(kern, nb, k->n, i, k->norm, pairs, k->g, k->partial, k->state, k->pub, (const GKScalar *)diag, (const GKScalar *)w, (GKScalar *)r, (GKScalar *)z, (const GKScalar *)wt, (GKScalar *)rt, (GKScalar *)zt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* the blocks' kernels' blocks a multiprocessor at least: at most 64 registers a thread for
   blocks of up to 4 rows, 128 for longer ones */
#define GK_SSOR_BLOCK_MINB(BS) ((BS) <= 4 ? 4 : 2)

/* CG's update with multicolor's blocks (device.h): a thread per block, z = ((2 - w)/w) D_B r_B
   entering the sums, the blocks from the last to the first as the update walks its rows */
template <int BS>
__global__ void __launch_bounds__(GK_BLOCK, GK_SSOR_BLOCK_MINB(BS)) GKKrylovUpdateBlocksKernel(PetscInt i, GKKrylovNorm norm, GKSsor S, double omega, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ w, GKScalar *__restrict__ r)
{
  GKScalar acc[2] = {0.0, 0.0};
  GKScalar a;

  GKOverlapBegin();
  if (!GKKrylovUpdateBegin<GK_KRYLOV_CG>(i, g, st, &a)) return;
  for (PetscInt ci = S.ncolors - 1; ci >= 0; ci--) {
    const GKSsorColor c = S.bcolors[ci];

    for (PetscInt j0 = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j0 < c.nb; j0 += (PetscInt)gridDim.x * blockDim.x) {
      const PetscInt    j = c.nb - 1 - j0;
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
  GKCallCUDA(GKLaunchOverlapped(GKKrylovUpdateBlocksKernel<BS>, GKWaveBlocks((const void *)GKKrylovUpdateBlocksKernel<BS>, S->nblk), i, k->norm, *S, (double)omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)w, (GKScalar *)r));
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

/* the last step has published the state to mapped host memory: an event marks its end */
PetscErrorCode GKCUDAKrylovStateBegin(GKKrylov K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  GKCallCUDA(cudaEventRecord(k->copied, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovStateEnd(GKKrylov K, GKKrylovState *S)
{
  GKKrylovCUDA                    *k = (GKKrylovCUDA *)K;
  volatile const GKKrylovDevState *h = k->hstate;

  PetscFunctionBegin;
  GKWaitCUDA(cudaEventSynchronize(k->copied));
  S->norm2  = h->norm2;
  S->rho[0] = h->rholast[0];
  S->rho[1] = h->rholast[1];
  S->flag   = (GKKrylovFlag)h->flag;
  S->flagit = h->flagit;
  PetscFunctionReturn(0);
}

/* The entries idx of the direction step i computes, b computed as the step computes it (the
   same bits): what other processes read as ghosts, into buf; or, with buf NULL, sent GPU to GPU
   (peershalo, device.h): written straight into the receivers' ghost buffers, into the half of
   the parity of i (entry k to hdst[(i % 2) cnt + k]), each block fencing its writes system-wide,
   and the last block to finish tagging step i in every process's mailbox (also with no entries:
   one block), which the receivers' off-diagonal kernels wait for. A half is written again two
   steps later, after every process has summed the update between, which followed its reads.
   Its own kernel, not the step's: in the step, the sending took its blocks' product loop
   (scheduled otherwise by the compiler) 2 to 4% slower. */
__global__ void GKKrylovGatherKernel(PetscInt cnt, PetscInt i, GKSums g, GKKrylovDevState *st, const PetscInt *__restrict__ idx, const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold, GKScalar *buf)
{
  __shared__ bool last;
  const PetscInt  k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;
  GKScalar        b = 0.0;

  GKOverlapBegin();

  if (g.np && i) { /* kept on the GPUs: nothing to wait for once stopped */
    double v[3];

    if (!GKPeerWait(g, 1, i - 1, st, v)) return; /* stopped, or timed out */
    b = GKMake(v[1], v[2]) / GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);
  } else if (i) b = (g.set ? GKMake(g.s[2][0], g.s[2][1]) : GKMake(st->sum[2][0], st->sum[2][1])) / GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);
  if (buf) {
    if (k < cnt) buf[k] = GKDir(z[idx[k]], b, (i ? pold : z)[idx[k]]);
    return;
  }
  if (k < cnt) *g.pt->hdst[(i & 1) * cnt + k] = GKDir(z[idx[k]], b, (i ? pold : z)[idx[k]]);
  __threadfence_system();
  __syncthreads();
  if (!threadIdx.x) last = atomicAdd(&st->hcount, 1u) == gridDim.x - 1;
  __syncthreads();
  if (last && !threadIdx.x) {
    st->hcount = 0;
    __threadfence_system();
    GKPeerPushTags(g, GK_PEER_HALO, i);
  }
}

PetscErrorCode GKCUDAKrylovGather(GKKrylov K, PetscInt i, PetscInt cnt, const PetscInt *idx, const PetscScalar *z, const PetscScalar *pold, PetscScalar *buf)
{
  GKKrylovCUDA *k    = (GKKrylovCUDA *)K;
  const bool    halo = !buf && k->g.np && k->ghost; /* sent GPU to GPU (a process sending nothing has no buf either) */

  PetscFunctionBegin;
  PetscCheck(buf || halo || !cnt, PETSC_COMM_SELF, PETSC_ERR_PLIB, "No buffer given and no ghosts sent GPU to GPU");
  if (cnt || halo) {
    GKCallCUDA(GKLaunchOverlapped(GKKrylovGatherKernel, halo ? PetscMax(1u, GKBlocks(cnt)) : GKBlocks(cnt), cnt, i, k->g, k->state, idx, (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)buf));
    GKCheckLaunch();
  }
  if (!halo) GKCallCUDA(cudaEventRecord(k->gathered, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovGatherWait(GKKrylov K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  GKWaitCUDA(cudaEventSynchronize(k->gathered));
  PetscFunctionReturn(0);
}

/* w += Ao g, a thread per listed slot of the off-diagonal block (those holding entries: the rows
   with ghosts, few), and the block sums of that part of dpi; g may be staging memory, read with
   plain loads */
struct GKPlainIn {
  const GKScalar *x;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const { return x[j]; }
};

template <GKKrylovMethod METHOD>
__global__ void GKKrylovOffDiagKernel(PetscInt i, GKSums gs, bool halo, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, GKEllr E, PetscInt ns, const PetscInt *__restrict__ slots, const GKScalar *g, const GKScalar *__restrict__ p, GKScalar *__restrict__ w, const GKScalar *__restrict__ pt)
{
  GKScalar        acc[1] = {0.0};
  const GKPlainIn in     = {g};

  GKOverlapBegin();
  if (halo) { /* g is this process's ghost buffer, which the others' steps write into: their tags first */
    if (!GKPeerArrived(gs, GK_PEER_HALO, i, st)) return;
  } else if (GKStopped(st)) return;
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < ns; k += (PetscInt)gridDim.x * blockDim.x) {
    const PetscInt t = slots[k], r = E.perm ? E.perm[t] : t;
    const GKScalar v = GKEllrRow<false>(t, E.h, E.sliceptr, E.wfirst, E.wptr, E.rl, E.col, E.dcol, (const GKScalar *)E.val, in);

    w[r] += v;
    if (METHOD == GK_KRYLOV_CG) acc[0] += p[r] * GKConj(v);
    else if (METHOD == GK_KRYLOV_COCG) acc[0] += p[r] * v;
    else acc[0] += v * GKConj(pt[r]);
  }
  GKGridSum<1, 0>(acc, partial, 3, st, pub, &gs, i); /* kept on the GPUs: dpi pushed from here */
}

PetscErrorCode GKCUDAKrylovOffDiag(GKKrylov K, const GKEllr *Ao, PetscInt ns, const PetscInt *slots, const PetscScalar *g, const PetscScalar *p, PetscScalar *w, const PetscScalar *pt)
{
  GKKrylovCUDA *k    = (GKKrylovCUDA *)K;
  const bool    halo = !g; /* the ghosts sent GPU to GPU, into this process's ghost buffer */
  void (*kern)(PetscInt, GKSums, bool, double *, GKKrylovDevState *, GKKrylovDevState *, GKEllr, PetscInt, const PetscInt *, const GKScalar *, const GKScalar *, GKScalar *, const GKScalar *);

  PetscFunctionBegin;
  PetscCheck(g || (k->g.np && k->ghost), PETSC_COMM_SELF, PETSC_ERR_PLIB, "No ghosts given and none sent GPU to GPU");
  if (halo) g = (const PetscScalar *)(k->ghost + (k->stepi % 2) * k->nghost);
  kern = k->method == GK_KRYLOV_CG ? GKKrylovOffDiagKernel<GK_KRYLOV_CG> : k->method == GK_KRYLOV_COCG ? GKKrylovOffDiagKernel<GK_KRYLOV_COCG> : GKKrylovOffDiagKernel<GK_KRYLOV_BICG>;
  GKCallCUDA(GKLaunchOverlapped(kern, GKWaveBlocks((const void *)kern, ns), k->stepi, k->g, halo, k->partial, k->state, k->pub, *Ao, ns, slots, (const GKScalar *)g, (const GKScalar *)p, (GKScalar *)w, (const GKScalar *)pt));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* the last kernel's sums, published to mapped host memory by its last block */
PetscErrorCode GKCUDAKrylovGetSums(GKKrylov K, PetscScalar *s)
{
  GKKrylovCUDA                    *k = (GKKrylovCUDA *)K;
  volatile const GKKrylovDevState *h = k->hstate;

  PetscFunctionBegin;
  GKCallCUDA(cudaEventRecord(k->copied, 0));
  GKWaitCUDA(cudaEventSynchronize(k->copied));
  for (int j = 0; j < GK_SLOTS; j++) {
#if defined(PETSC_USE_COMPLEX)
    s[j] = PetscCMPLX(h->sum[j][0], h->sum[j][1]);
#else
    s[j] = h->sum[j][0];
#endif
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSetSums(GKKrylov K, const PetscScalar *s)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  k->g.set = 1;
  for (int j = 0; j < 3; j++) {
    k->g.s[j][0] = PetscRealPart(s[j]);
    k->g.s[j][1] = PetscImaginaryPart(s[j]);
  }
  PetscFunctionReturn(0);
}

/* This process's mailbox, and its id: the CUDA IPC handle (64 bytes), then the PCI bus id of
   the GPU it lives on; an IPC handle that cannot be had leaves the id's first byte of the bus
   id 0, which peersopen reports */
PetscErrorCode GKCUDAPeersCreate(GKPeers *P, char *id)
{
  GKPeersCUDA *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  GKCallCUDA(cudaGetDevice(&p->dev));
  GKCallCUDA(cudaMalloc((void **)&p->mine, sizeof(GKMailbox)));
  GKCallCUDA(cudaMemset(p->mine, 0, sizeof(GKMailbox)));
  PetscCall(PetscMemzero(id, GK_PEER_ID));
  static_assert(sizeof(cudaIpcMemHandle_t) <= 64, "the IPC handle fits the id");
  if (cudaIpcGetMemHandle((cudaIpcMemHandle_t *)id, p->mine) != cudaSuccess) (void)cudaGetLastError();
  else GKCallCUDA(cudaDeviceGetPCIBusId(id + 64, GK_PEER_ID - 64 - 1, p->dev));
  *P = (GKPeers)p;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAPeersOpen(GKPeers P, int np, int me, const char *ids, PetscBool *ok, char *why, size_t len)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;
  int          dev[GK_PEERS_MAX];

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (np > GK_PEERS_MAX) {
    PetscCall(PetscSNPrintf(why, len, "%d processes, more than the %d the mailboxes hold", np, GK_PEERS_MAX));
    PetscFunctionReturn(0);
  }
  for (int q = 0; q < np; q++) {
    const char *bus = ids + (size_t)q * GK_PEER_ID + 64;

    if (!bus[0]) {
      PetscCall(PetscSNPrintf(why, len, "process %d has no CUDA IPC handle for its memory", q));
      PetscFunctionReturn(0);
    }
    for (int o = 0; o < q; o++)
      if (!strcmp(bus, ids + (size_t)o * GK_PEER_ID + 64)) {
        PetscCall(PetscSNPrintf(why, len, "processes %d and %d share the GPU %s (a process waiting on the GPU would hold it from the other)", o, q, bus));
        PetscFunctionReturn(0);
      }
    if (cudaDeviceGetByPCIBusId(&dev[q], bus) != cudaSuccess) {
      (void)cudaGetLastError();
      PetscCall(PetscSNPrintf(why, len, "the GPU %s of process %d is not visible to process %d", bus, q, me));
      PetscFunctionReturn(0);
    }
    if (q != me) {
      int can = 0;

      GKCallCUDA(cudaDeviceCanAccessPeer(&can, p->dev, dev[q]));
      if (!can) {
        PetscCall(PetscSNPrintf(why, len, "GPU %d cannot access GPU %d (of process %d) as a peer", p->dev, dev[q], q));
        PetscFunctionReturn(0);
      }
    }
  }
  for (int q = 0; q < np; q++) {
    if (q == me) continue;
    if (cudaIpcOpenMemHandle((void **)&p->mb[q], *(const cudaIpcMemHandle_t *)(ids + (size_t)q * GK_PEER_ID), cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
      (void)cudaGetLastError();
      p->mb[q] = NULL;
      PetscCall(PetscSNPrintf(why, len, "process %d cannot map the mailbox of process %d (cudaIpcOpenMemHandle)", me, q));
      PetscFunctionReturn(0);
    }
  }
  p->mb[me] = p->mine;
  p->np     = np;
  p->me     = me;
  PetscCall(PetscMemzero(&p->host, sizeof(p->host)));
  p->host.me = me;
  for (int q = 0; q < np; q++) p->host.mb[q] = p->mb[q];
  GKCallCUDA(cudaMalloc((void **)&p->table, sizeof(p->host)));
  GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The direction's ghosts no longer sent GPU to GPU: the others' ghost buffers unmapped */
static PetscErrorCode GKCUDAPeersHaloOff(GKPeersCUDA *p)
{
  PetscFunctionBegin;
  if (p->host.hon) {
    GKCallCUDA(cudaDeviceSynchronize()); /* no kernel of this process writes into them */
    p->host.hon  = 0;
    p->host.hdst = NULL;
    GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  }
  for (int q = 0; q < GK_PEERS_MAX; q++)
    if (p->gmap[q]) {
      GKCallCUDA(cudaIpcCloseMemHandle(p->gmap[q]));
      p->gmap[q] = NULL;
    }
  GKCallCUDA(cudaFree(p->hdst));
  p->hdst = NULL;
  PetscFunctionReturn(0);
}

/* This process's ghost buffer for nghost ghosts (2 nghost scalars, one at least), made anew,
   and its id: the IPC handle, then nghost; no process may write into the old one any more */
PetscErrorCode GKCUDAPeersGhosts(GKPeers P, PetscInt nghost, char *id)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;

  PetscFunctionBegin;
  PetscCall(GKCUDAPeersHaloOff(p));
  GKCallCUDA(cudaFree(p->ghost));
  p->ghost  = NULL;
  p->nghost = nghost;
  GKCallCUDA(cudaMalloc((void **)&p->ghost, sizeof(GKScalar) * (size_t)PetscMax(1, 2 * nghost)));
  PetscCall(PetscMemzero(id, GK_PEER_ID));
  if (cudaIpcGetMemHandle((cudaIpcMemHandle_t *)id, p->ghost) != cudaSuccess) (void)cudaGetLastError();
  else {
    PetscCall(PetscMemcpy(id + 64, &nghost, sizeof(nghost)));
    id[64 + sizeof(nghost)] = 1;
  }
  PetscFunctionReturn(0);
}

/* The direction's ghosts sent GPU to GPU (ids: every process's from peersghosts, in rank order),
   or no longer (ids NULL): this process's send lists, nsr processes sranks, the gather's
   entries soff[r] .. soff[r + 1] - 1 to sranks[r], each going to pos[] in its receiver's ghost
   order */
PetscErrorCode GKCUDAPeersHalo(GKPeers P, const char *ids, PetscInt nsr, const PetscMPIInt *sranks, const PetscInt *soff, const PetscInt *pos, PetscBool *ok, char *why, size_t len)
{
  GKPeersCUDA *p = (GKPeersCUDA *)P;
  GKScalar   **dst;
  PetscInt     n;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(GKCUDAPeersHaloOff(p));
  if (!ids) PetscFunctionReturn(0);
  n = soff[nsr];
  for (PetscInt r = 0; r < nsr; r++) {
    const int   q  = sranks[r];
    const char *id = ids + (size_t)q * GK_PEER_ID;

    if (q < 0 || q >= p->np || !id[64 + sizeof(PetscInt)]) {
      PetscCall(PetscSNPrintf(why, len, "process %d has no CUDA IPC handle for its ghost buffer", q));
      PetscFunctionReturn(0);
    }
    if (q == p->me || p->gmap[q]) continue;
    if (cudaIpcOpenMemHandle((void **)&p->gmap[q], *(const cudaIpcMemHandle_t *)id, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
      (void)cudaGetLastError();
      p->gmap[q] = NULL;
      PetscCall(PetscSNPrintf(why, len, "process %d cannot map the ghost buffer of process %d (cudaIpcOpenMemHandle)", p->me, q));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscMalloc1(2 * n, &dst));
  for (PetscInt r = 0; r < nsr; r++) {
    const int q = sranks[r];
    PetscInt  ng;
    GKScalar *base = q == p->me ? p->ghost : p->gmap[q];

    PetscCall(PetscMemcpy(&ng, ids + (size_t)q * GK_PEER_ID + 64, sizeof(ng)));
    for (PetscInt k = soff[r]; k < soff[r + 1]; k++) {
      PetscCheck(pos[k] >= 0 && pos[k] < ng, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ghost position %" PetscInt_FMT " outside the %" PetscInt_FMT " of process %d", pos[k], ng, q);
      dst[k]     = base + pos[k];
      dst[n + k] = base + ng + pos[k];
    }
  }
  if (n) {
    GKCallCUDA(cudaMalloc((void **)&p->hdst, sizeof(GKScalar *) * 2 * n));
    GKCallCUDA(cudaMemcpy(p->hdst, dst, sizeof(GKScalar *) * 2 * n, cudaMemcpyHostToDevice));
  }
  PetscCall(PetscFree(dst));
  p->host.hon  = 1;
  p->host.hdst = p->hdst;
  GKCallCUDA(cudaMemcpy(p->table, &p->host, sizeof(p->host), cudaMemcpyHostToDevice));
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAPeersDestroy(GKPeers *P)
{
  GKPeersCUDA *p = (GKPeersCUDA *)*P;

  PetscFunctionBegin;
  if (!p) PetscFunctionReturn(0);
  GKCallCUDA(cudaDeviceSynchronize());
  if (p->table) PetscCall(GKCUDAPeersHaloOff(p));
  GKCallCUDA(cudaFree(p->ghost));
  for (int q = 0; q < GK_PEERS_MAX; q++)
    if (p->mb[q] && p->mb[q] != p->mine) GKCallCUDA(cudaIpcCloseMemHandle(p->mb[q]));
  GKCallCUDA(cudaFree(p->mine));
  GKCallCUDA(cudaFree(p->table));
  PetscCall(PetscFree(p));
  *P = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSetPeers(GKKrylov K, GKPeers P, PetscInt solve, PetscBool stepdpi)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  GKPeersCUDA  *p = (GKPeersCUDA *)P;

  PetscFunctionBegin;
  k->g.np   = 0;
  k->ghost  = NULL;
  k->nghost = 0;
  if (!p) PetscFunctionReturn(0);
  if (p->host.hon) {
    k->ghost  = p->ghost;
    k->nghost = p->nghost;
  }
  k->g.np      = p->np;
  k->g.mine    = p->mine;
  k->g.stepdpi = stepdpi ? 1 : 0;
  /* the words no process can write in this solve before this process's first kernels: cleared
     (GKPeerTag), queued before them */
  GKCallCUDA(cudaMemsetAsync(&p->mine->w[0][1][0][0], 0, (size_t)((char *)&p->mine->w[2][0][0][0] - (char *)&p->mine->w[0][1][0][0]), 0));
  GKCallCUDA(cudaMemsetAsync(&p->mine->w[2][1][0][0], 0, sizeof(p->mine->w[2][1]), 0));
  k->g.base    = (unsigned long long)solve << 32;
  k->g.pt      = p->table;
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
__global__ void __launch_bounds__(GK_BLOCK, 5) GKKrylovSsorKernel(PetscInt m, PetscInt i, GKScalar rho0, bool last, bool first, GKSsor S, PetscInt n, const PetscInt *__restrict__ rows, GKSsorColor c, int flags, double omega, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold, GKScalar *p, GKScalar *t, GKScalar *w, GKScalar *x)
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
__global__ void __launch_bounds__(GK_BLOCK, GK_SSOR_BLOCK_MINB(BS)) GKKrylovSsorBlockKernel(PetscInt i, GKScalar rho0, bool first, GKSsor S, GKSsorColor c, int flags, double omega, GKSums g, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ z, const GKScalar *__restrict__ pold, GKScalar *__restrict__ p, GKScalar *__restrict__ t, GKScalar *__restrict__ w, GKScalar *__restrict__ x)
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
static PetscErrorCode GKKrylovSsorBlockLaunch(GKKrylovCUDA *k, PetscInt i, PetscScalar rho0, PetscBool first, const GKSsor *S, PetscBool upper, const GKSsorColor *c, PetscInt flags, PetscReal omega, const PetscScalar *z, const PetscScalar *pold, PetscScalar *p, PetscScalar *t, PetscScalar *w, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!k->ssornb || k->ssorm != S->m || k->ssorbs != BS) {
    k->ssornb = PetscMin(GKWaveBlocks((const void *)GKKrylovSsorBlockKernel<BS, true>, S->nblk), GKWaveBlocks((const void *)GKKrylovSsorBlockKernel<BS, false>, S->nblk));
    k->ssorm  = S->m;
    k->ssorbs = BS;
  }
  GKCallCUDA(GKLaunchOverlapped(upper ? GKKrylovSsorBlockKernel<BS, true> : GKKrylovSsorBlockKernel<BS, false>, k->ssornb, i, GKToDevice(rho0), first ? true : false, *S, *c, (int)flags, (double)omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)p, (GKScalar *)t, (GKScalar *)w, (GKScalar *)x));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSsor(GKKrylov K, PetscInt i, PetscScalar rho0, PetscBool last, PetscBool first, const GKSsor *S, PetscBool upper, PetscInt nrows, const PetscInt *rows, const GKSsorColor *c, PetscInt flags, PetscReal omega, const PetscScalar *z, const PetscScalar *pold, PetscScalar *p, PetscScalar *t, PetscScalar *w, PetscScalar *x)
{
  GKKrylovCUDA     *k  = (GKKrylovCUDA *)K;
  const PetscInt    n  = c ? c->n : rows ? nrows : S->m;
  const GKSsorColor c0 = {0, 0, {0, 0}, {0, 0}, {0, 0}};
  void (*kern)(PetscInt, PetscInt, GKScalar, bool, bool, GKSsor, PetscInt, const PetscInt *, GKSsorColor, int, double, GKSums, double *, GKKrylovDevState *, GKKrylovDevState *, const GKScalar *, const GKScalar *, GKScalar *, GKScalar *, GKScalar *, GKScalar *);
  unsigned nb;

  PetscFunctionBegin;
  if (c && S->bs > 1) {
    PetscCheck(k->method == GK_KRYLOV_CG, PETSC_COMM_SELF, PETSC_ERR_PLIB, "SSOR blocks in CG only");
    GKSsorBlockDispatch(S->bs, GKKrylovSsorBlockLaunch, k, i, rho0, first, S, upper, c, flags, omega, z, pold, p, t, w, x);
    GKCheckLaunch();
    PetscFunctionReturn(0);
  }
#define GK_SSOR_KERNEL(M) \
  (c ? (upper ? GKKrylovSsorKernel<M, true, true> : GKKrylovSsorKernel<M, true, false>) : (upper ? GKKrylovSsorKernel<M, false, true> : GKKrylovSsorKernel<M, false, false>))
  kern = k->method == GK_KRYLOV_CG ? GK_SSOR_KERNEL(GK_KRYLOV_CG) : GK_SSOR_KERNEL(GK_KRYLOV_COCG);
#undef GK_SSOR_KERNEL
  if (c) { /* colours: one grid for all of them, upper and lower (their dpi partials add up block
              by block), which the GPU runs at once whichever of the two it is; found once */
    if (!k->ssornb || k->ssorm != S->m || k->ssorbs != 1) {
      const bool cg = k->method == GK_KRYLOV_CG;

      k->ssornb = PetscMin(GKWaveBlocks(cg ? (const void *)GKKrylovSsorKernel<GK_KRYLOV_CG, true, true> : (const void *)GKKrylovSsorKernel<GK_KRYLOV_COCG, true, true>, S->m), GKWaveBlocks(cg ? (const void *)GKKrylovSsorKernel<GK_KRYLOV_CG, true, false> : (const void *)GKKrylovSsorKernel<GK_KRYLOV_COCG, true, false>, S->m));
      k->ssorm  = S->m;
      k->ssorbs = 1;
    }
    nb = k->ssornb;
  } else nb = (unsigned)PetscMax(1, GKBlocks(n));
  GKCallCUDA(GKLaunchOverlapped(kern, nb, S->m, i, GKToDevice(rho0), last ? true : false, first ? true : false, *S, n, rows, c ? *c : c0, (int)flags, omega, k->g, k->partial, k->state, k->pub, (const GKScalar *)z, (const GKScalar *)pold, (GKScalar *)p, (GKScalar *)t, (GKScalar *)w, (GKScalar *)x));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* dpi = p^H w (COCG: p^T w), summed as the step sums it */
template <GKKrylovMethod METHOD>
__global__ void GKKrylovDpiKernel(PetscInt n, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ p, const GKScalar *__restrict__ w)
{
  GKScalar acc[1] = {0.0};

  GKOverlapBegin();
  if (GKStopped(st)) return;
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) acc[0] += METHOD == GK_KRYLOV_CG ? p[j] * GKConj(w[j]) : p[j] * w[j];
  GKGridSum<1>(acc, partial, 0, st, pub);
}

PetscErrorCode GKCUDAKrylovDpi(GKKrylov K, const PetscScalar *p, const PetscScalar *w)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  void (*kern)(PetscInt, double *, GKKrylovDevState *, GKKrylovDevState *, const GKScalar *, const GKScalar *);

  PetscFunctionBegin;
  kern = k->method == GK_KRYLOV_CG ? GKKrylovDpiKernel<GK_KRYLOV_CG> : GKKrylovDpiKernel<GK_KRYLOV_COCG>;
  GKCallCUDA(GKLaunchOverlapped(kern, GKWaveBlocks((const void *)kern, k->n), k->n, k->partial, k->state, k->pub, (const GKScalar *)p, (const GKScalar *)w));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

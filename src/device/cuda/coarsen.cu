/*
   Smoothed aggregation's coarsening on the device (device.h, aggregate and tentative; host twin:
   host/coarsen.c, whose rounds these kernels follow step for step). A round reads the states the
   round before left and writes the next ones elsewhere, so the order threads run in changes
   nothing: the roots and aggregates are the twin's.

   The maximal independent set: Luby's rounds with the vertices' keys (GKAggKey) for priorities;
   at distance 2, Bell, Dalton and Olson's ("Exposing fine-grained parallelism in algebraic
   multigrid methods", SIAM J. Sci. Comput. 34, 2012): the largest key within one edge, then
   within two, an undecided vertex whose own key that is joining the set. Then the joins, the
   roots numbered in index order by a scan (CUB's), and each vertex's aggregate.

   The tentative prolongator: the rows listed by aggregate (a stable radix sort, so each list is
   ascending), each list's start, then a thread an aggregate: its norm in the twin's order, with
   no fused multiply-add, and its rows' values.
*/
#include "cudaimpl.h"
#include <cub/cub.cuh>

static __device__ PetscInt gk_undecided;

/* a kernel over n threads, none launched where n is 0 (a process with no rows on several), the
   launch counted either way */
#define GKAggLaunch(kernel, n, ...) \
  do { \
    if (n) { \
      kernel<<<GKBlocks(n), GK_BLOCK, 0, GKCUDAStream>>>(__VA_ARGS__); \
      GKCheckLaunch(); \
    } else GKCounts.launches += 1; \
  } while (0)

/* vertex v's global number: v where the graph is all of it */
static __device__ __forceinline__ PetscInt GKAggGid(const PetscInt *__restrict__ gid, PetscInt v)
{
  return gid ? gid[v] : v;
}

__global__ void GKAggInitKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, char *__restrict__ s)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    bool linked = false;

    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) linked = linked || aj[k] != v;
    s[v] = linked ? GK_AGG_UNDECIDED : GK_AGG_OUT;
  }
}

/* a round at distance 1 (the twin's GKHostAggRound1) */
__global__ void GKAggRound1Kernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const PetscInt *__restrict__ gid,
                                  const char *__restrict__ s, char *__restrict__ t)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    bool           out = false, top = true;
    const uint64_t kv = GKAggKey(GK_AGG_UNDECIDED, GKAggGid(gid, v));

    t[v] = s[v];
    if (s[v] != GK_AGG_UNDECIDED) return;
    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
      const PetscInt u = aj[k];

      if (u == v) continue;
      if (s[u] == GK_AGG_IN) out = true;
      else if (s[u] == GK_AGG_UNDECIDED && GKAggKey(GK_AGG_UNDECIDED, GKAggGid(gid, u)) > kv) top = false;
    }
    t[v] = out ? GK_AGG_OUT : top ? GK_AGG_IN : GK_AGG_UNDECIDED;
    if (t[v] == GK_AGG_UNDECIDED) atomicAdd(&gk_undecided, (PetscInt)1);
  }
}

__global__ void GKAggKeysKernel(PetscInt n, const PetscInt *__restrict__ gid, const char *__restrict__ s, uint64_t *__restrict__ k0)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < n) k0[v] = GKAggKey(s[v], GKAggGid(gid, v));
}

/* the largest key over v and its neighbours */
__global__ void GKAggNeighbourMaxKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj,
                                        const uint64_t *__restrict__ key, uint64_t *__restrict__ mx)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    uint64_t x = key[v];

    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) x = key[aj[k]] > x ? key[aj[k]] : x;
    mx[v] = x;
  }
}

/* a round at distance 2, its last step (the twin's GKHostAggRound2) */
__global__ void GKAggRound2Kernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const char *__restrict__ s,
                                  const uint64_t *__restrict__ k0, const uint64_t *__restrict__ m1, char *__restrict__ t)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    uint64_t m2 = m1[v];

    t[v] = s[v];
    if (s[v] != GK_AGG_UNDECIDED) return;
    for (PetscInt k = ai[v]; k < ai[v + 1]; k++) m2 = m1[aj[k]] > m2 ? m1[aj[k]] : m2;
    if (m2 == k0[v]) t[v] = GK_AGG_IN;
    else if (GKAggKeyState(m2) == GK_AGG_IN) t[v] = GK_AGG_OUT;
    if (t[v] == GK_AGG_UNDECIDED) atomicAdd(&gk_undecided, (PetscInt)1);
  }
}

/* root[v]: v in the set, else its neighbour in the set of the largest key, else -1; isroot[v]:
   whether v is in the set (the roots' numbers, once summed) */
__global__ void GKAggJoinRootKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const PetscInt *__restrict__ gid,
                                    const char *__restrict__ s, PetscInt *__restrict__ root, PetscInt *__restrict__ isroot)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    uint64_t best = 0;
    PetscInt r    = s[v] == GK_AGG_IN ? v : -1;

    if (r < 0)
      for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
        const PetscInt u = aj[k];

        if (u != v && s[u] == GK_AGG_IN && GKAggKey(GK_AGG_IN, GKAggGid(gid, u)) > best) {
          best = GKAggKey(GK_AGG_IN, GKAggGid(gid, u));
          r    = u;
        }
      }
    root[v]   = r;
    isroot[v] = s[v] == GK_AGG_IN;
  }
}

/* at distance 2, a vertex no root is next to: its neighbour's root (one process) or aggregate (a
   halo), of the largest key */
__global__ void GKAggJoinNeighbourKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj,
                                         const PetscInt *__restrict__ gid, const PetscInt *__restrict__ root1, PetscInt *__restrict__ root)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    uint64_t best = 0;
    PetscInt r    = root1[v];

    if (r < 0)
      for (PetscInt k = ai[v]; k < ai[v + 1]; k++) {
        const PetscInt u = aj[k];

        if (u != v && root1[u] >= 0 && GKAggKey(GK_AGG_UNDECIDED, GKAggGid(gid, u)) > best) {
          best = GKAggKey(GK_AGG_UNDECIDED, GKAggGid(gid, u));
          r    = root1[u];
        }
      }
    root[v] = r;
  }
}

/* agg[v] = the number of v's root, roots[] the roots by number; the count of roots into *nagg
   (num: the roots' exclusive scan) */
__global__ void GKAggNumberKernel(PetscInt m, const char *__restrict__ s, const PetscInt *__restrict__ root, const PetscInt *__restrict__ num,
                                  PetscInt *__restrict__ agg, PetscInt *__restrict__ roots, PetscInt *__restrict__ nagg)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    agg[v] = root[v] >= 0 ? num[root[v]] : -1;
    if (s[v] == GK_AGG_IN) roots[num[v]] = v;
    if (v == m - 1) *nagg = num[v] + (s[v] == GK_AGG_IN);
  }
}

/* with a halo: gnum[v] the global number of root v (start + its place among the local roots, -1
   for no root), roots[] the local roots */
__global__ void GKAggNumberHaloKernel(PetscInt m, const char *__restrict__ s, const PetscInt *__restrict__ num, PetscInt start,
                                      PetscInt *__restrict__ gnum, PetscInt *__restrict__ roots)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    gnum[v] = s[v] == GK_AGG_IN ? start + num[v] : -1;
    if (s[v] == GK_AGG_IN) roots[num[v]] = v;
  }
}

/* a1[v]: the global number of v's root (a local vertex or a ghost) */
__global__ void GKAggRootNumberKernel(PetscInt m, const PetscInt *__restrict__ root1, const PetscInt *__restrict__ gnum, PetscInt *__restrict__ a1)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) a1[v] = root1[v] >= 0 ? gnum[root1[v]] : -1;
}

template <typename T>
__global__ void GKAggGatherKernel(PetscInt n, const PetscInt *__restrict__ idx, const T *__restrict__ x, T *__restrict__ buf)
{
  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) buf[k] = x[idx[k]];
}

/* the halo's buffers (cudaimpl.h): the gathered units on the device, and the host's to send and
   receive; none without a halo */
PetscErrorCode GKCUDAAggExchangeCreate(const GKAggHalo *h, GKAggExch *x)
{
  PetscFunctionBegin;
  x->h    = h;
  x->dbuf = x->hsend = x->hrecv = NULL;
  if (!h) PetscFunctionReturn(0);
  PetscCall(GKBackendCUDA.malloc(sizeof(uint64_t) * (size_t)h->nsend, &x->dbuf));
  PetscCall(GKBackendCUDA.hostmalloc(sizeof(uint64_t) * (size_t)h->nsend, &x->hsend));
  PetscCall(GKBackendCUDA.hostmalloc(sizeof(uint64_t) * (size_t)h->nghost, &x->hrecv));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAAggExchangeDestroy(GKAggExch *x)
{
  PetscFunctionBegin;
  PetscCall(GKBackendCUDA.free(x->dbuf));
  PetscCall(GKBackendCUDA.hostfree(x->hsend));
  PetscCall(GKBackendCUDA.hostfree(x->hrecv));
  x->dbuf = x->hsend = x->hrecv = NULL;
  PetscFunctionReturn(0);
}

/* The ghosts' entries of the device array a (m local entries, then the ghosts') from their
   owners (the twin's GKHostAggExchange): the entries other processes read gathered and copied
   down, exchanged, the ghosts' copied up behind the local ones */
PetscErrorCode GKCUDAAggExchange(const GKAggExch *x, PetscInt m, size_t unit, void *a)
{
  const GKAggHalo *h = x->h;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(0);
  if (unit == 1) GKAggLaunch(GKAggGatherKernel<char>, h->nsend, h->nsend, h->send, (const char *)a, (char *)x->dbuf);
  else if (unit == sizeof(PetscInt)) GKAggLaunch(GKAggGatherKernel<PetscInt>, h->nsend, h->nsend, h->send, (const PetscInt *)a, (PetscInt *)x->dbuf);
  else GKAggLaunch(GKAggGatherKernel<uint64_t>, h->nsend, h->nsend, h->send, (const uint64_t *)a, (uint64_t *)x->dbuf);
  if (h->nsend) GKCallCUDA(cudaMemcpyAsync(x->hsend, x->dbuf, unit * (size_t)h->nsend, cudaMemcpyDeviceToHost, GKCUDAStream));
  GKWaitCUDA(cudaStreamSynchronize(GKCUDAStream));
  PetscCall(h->exchange(h->ctx, unit, x->hsend, x->hrecv));
  if (h->nghost) GKCallCUDA(cudaMemcpyAsync((char *)a + unit * (size_t)m, x->hrecv, unit * (size_t)h->nghost, cudaMemcpyHostToDevice, GKCUDAStream));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAAggregate(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscInt dist, const GKAggHalo *h, PetscInt *agg, PetscInt *roots,
                               PetscInt *nagg)
{
  char          *s, *t;
  uint64_t      *k0 = NULL, *m1 = NULL;
  PetscInt      *root, *root1, *num, *gnum = NULL, und = 0, zero = 0;
  void          *tmp = NULL;
  size_t         bytes;
  const PetscInt ng = h ? h->nghost : 0, n = m + ng, *gid = h ? h->gid : NULL;
  GKAggExch      x;

  PetscFunctionBegin;
  PetscCheck(dist == 1 || dist == 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Aggregates at distance 1 or 2, not %" PetscInt_FMT, dist);
  *nagg = 0;
  if (!m && !h) PetscFunctionReturn(0);
  GKCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, bytes, (PetscInt *)NULL, (PetscInt *)NULL, m, GKCUDAStream));
  PetscCall(GKBackendCUDA.malloc(2 * (size_t)n, (void **)&s));
  PetscCall(
    GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(m + 2 * n + 1), (void **)&root)); /* root, root1, num (each vertex's aggregate, with a halo) */
  PetscCall(GKBackendCUDA.malloc(bytes, &tmp));
  t     = s + n;
  root1 = root + m;
  num   = root1 + n;
  if (dist == 2) {
    PetscCall(GKBackendCUDA.malloc(sizeof(uint64_t) * (size_t)n, (void **)&k0));
    PetscCall(GKBackendCUDA.malloc(sizeof(uint64_t) * (size_t)n, (void **)&m1));
  }
  if (h) PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)n, (void **)&gnum));
  PetscCall(GKCUDAAggExchangeCreate(h, &x));
  GKAggLaunch(GKAggInitKernel, m, m, ai, aj, s);
  PetscCall(GKCUDAAggExchange(&x, m, 1, s));
  do {
    char *w = s;

    GKCallCUDA(cudaMemcpyToSymbolAsync(gk_undecided, &zero, sizeof(PetscInt), 0, cudaMemcpyHostToDevice, GKCUDAStream));
    GKCounts.launches += 1;
    if (dist == 1) GKAggLaunch(GKAggRound1Kernel, m, m, ai, aj, gid, s, t);
    else {
      GKAggLaunch(GKAggKeysKernel, n, n, gid, s, k0);
      GKAggLaunch(GKAggNeighbourMaxKernel, m, m, ai, aj, k0, m1);
      PetscCall(GKCUDAAggExchange(&x, m, sizeof(uint64_t), m1));
      GKAggLaunch(GKAggRound2Kernel, m, m, ai, aj, s, k0, m1, t);
    }
    GKWaitCUDA(cudaMemcpyFromSymbol(&und, gk_undecided, sizeof(PetscInt)));
    PetscCall(GKCUDAAggExchange(&x, m, 1, t));
    if (h) PetscCall(h->sum(h->ctx, &und));
    s = t;
    t = w;
  } while (und);
  GKAggLaunch(GKAggJoinRootKernel, m, m, ai, aj, gid, s, root1, num);
  if (h) { /* the local roots numbered after the other processes', each vertex given its root's number */
    PetscInt start, last[2] = {0, 0};

    if (m) GKCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, num, num, m, GKCUDAStream));
    GKCounts.launches += 1;
    if (m) GKCallCUDA(cudaMemcpyAsync(last, num + m - 1, sizeof(PetscInt), cudaMemcpyDeviceToHost, GKCUDAStream));
    if (m) GKCallCUDA(cudaMemcpyAsync(last + 1, root1 + m - 1, sizeof(PetscInt), cudaMemcpyDeviceToHost, GKCUDAStream));
    GKWaitCUDA(cudaStreamSynchronize(GKCUDAStream));
    *nagg = m ? last[0] + (last[1] == m - 1) : 0; /* the last vertex a root: its own root */
    PetscCall(h->offset(h->ctx, *nagg, &start));
    GKAggLaunch(GKAggNumberHaloKernel, m, m, s, num, start, gnum, roots);
    PetscCall(GKCUDAAggExchange(&x, m, sizeof(PetscInt), gnum));
    GKAggLaunch(GKAggRootNumberKernel, m, m, root1, gnum, dist == 2 ? num : agg);
    if (dist == 2) { /* num (m + nghost entries) holds each vertex's aggregate, the ghosts' exchanged */
      PetscCall(GKCUDAAggExchange(&x, m, sizeof(PetscInt), num));
      GKAggLaunch(GKAggJoinNeighbourKernel, m, m, ai, aj, gid, num, agg);
    }
    GKCounts.launches += 1; /* the join (the twin's count) */
  } else {
    if (dist == 2) GKAggLaunch(GKAggJoinNeighbourKernel, m, m, ai, aj, NULL, root1, root);
    GKCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, bytes, num, num, m, GKCUDAStream));
    GKCounts.launches += 1;
    GKAggLaunch(GKAggNumberKernel, m, m, s, dist == 2 ? root : root1, num, agg, roots, num + m);
    GKWaitCUDA(cudaMemcpy(nagg, num + m, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  }
  PetscCall(GKBackendCUDA.free(tmp));
  PetscCall(GKBackendCUDA.free(k0));
  PetscCall(GKBackendCUDA.free(m1));
  PetscCall(GKBackendCUDA.free(gnum));
  PetscCall(GKCUDAAggExchangeDestroy(&x));
  PetscCall(GKBackendCUDA.free(root));
  PetscCall(GKBackendCUDA.free(s < t ? s : t));
  PetscFunctionReturn(0);
}

/* the keys of the rows' sort: the aggregate, nagg for a row in none; the rows themselves */
__global__ void GKTentativeListKernel(PetscInt m, const PetscInt *__restrict__ agg, PetscInt nagg, PetscInt *__restrict__ key,
                                      PetscInt *__restrict__ row)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < m) {
    key[v] = agg[v] < 0 ? nagg : agg[v];
    row[v] = v;
  }
}

/* start[a]: where aggregate a's rows begin in the sorted list (start[nagg]: the rows in none) */
__global__ void GKTentativeStartKernel(PetscInt m, const PetscInt *__restrict__ key, PetscInt nagg, PetscInt *__restrict__ start)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (t < m) {
    const PetscInt lo = t ? key[t - 1] + 1 : 0;

    for (PetscInt a = lo; a <= key[t]; a++) start[a] = t;
    if (t == m - 1)
      for (PetscInt a = key[t] + 1; a <= nagg; a++) start[a] = m;
  }
}

__global__ void GKTentativeKernel(PetscInt nagg, const PetscInt *__restrict__ start, const PetscInt *__restrict__ row,
                                  const PetscReal *__restrict__ b, GKScalar *__restrict__ p, PetscReal *__restrict__ r)
{
  const PetscInt a = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (a < nagg) {
    const PetscInt k0 = start[a], k1 = start[a + 1];
    const double   b1   = b[row[k0]];
    double         rho2 = 0.0, ra;

    for (PetscInt k = k0 + 1; k < k1; k++) rho2 = __dadd_rn(rho2, __dmul_rn(b[row[k]], b[row[k]]));
    ra   = rho2 == 0.0 ? b1 : (b1 >= 0 ? -1.0 : 1.0) * sqrt(__dadd_rn(__dmul_rn(b1, b1), rho2));
    r[a] = ra;
    for (PetscInt k = k0; k < k1; k++) p[row[k]] = rho2 == 0.0 ? (k == k0 ? 1.0 : 0.0) : __ddiv_rn(b[row[k]], ra);
  }
}

/* The rows (or nodes) listed by aggregate: key and row, the first n entries of lists (4 n + nagg
   + 1), as a list kernel wrote them, sorted by key into key + n and row + n (a stable radix sort:
   each aggregate's rows ascending), and each list's start at lists + 4 n */
static PetscErrorCode GKTentativeSort(PetscInt n, PetscInt nagg, PetscInt *lists)
{
  PetscInt *key = lists, *row = lists + 2 * n;
  void     *tmp = NULL;
  size_t    bytes;
  int       bits = 1;

  PetscFunctionBegin;
  while (bits < 31 && ((PetscInt)1 << bits) <= nagg) bits++; /* the keys' significant bits: 0 to nagg */
  GKCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, bytes, key, key + n, row, row + n, n, 0, bits, GKCUDAStream));
  PetscCall(GKBackendCUDA.malloc(bytes, &tmp));
  GKCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, bytes, key, key + n, row, row + n, n, 0, bits, GKCUDAStream));
  GKCounts.launches += 1;
  PetscCall(GKBackendCUDA.free(tmp));
  GKTentativeStartKernel<<<GKBlocks(n), GK_BLOCK, 0, GKCUDAStream>>>(n, key + n, nagg, lists + 4 * n);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDATentative(PetscInt m, const PetscInt *agg, PetscInt nagg, const PetscReal *b, PetscScalar *p, PetscReal *r)
{
  PetscInt *lists;

  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(0);
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(4 * m + nagg + 1), (void **)&lists));
  GKCallCUDA(cudaMemsetAsync(p, 0, sizeof(PetscScalar) * (size_t)m, GKCUDAStream));
  GKCounts.launches += 1;
  GKTentativeListKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, agg, nagg, lists, lists + 2 * m);
  GKCheckLaunch();
  PetscCall(GKTentativeSort(m, nagg, lists));
  if (nagg) GKTentativeKernel<<<GKBlocks(nagg), GK_BLOCK, 0, GKCUDAStream>>>(nagg, lists + 4 * m, lists + 3 * m, b, (GKScalar *)p, r);
  GKCheckLaunch();
  PetscCall(GKBackendCUDA.free(lists));
  PetscFunctionReturn(0);
}

/* The tentative prolongator of nv vectors on nodes of bs rows (device.h, tentativeblock; the
   twin's GKHostTentativeBlock step for step): the nodes listed by aggregate as for one vector
   (the rows of nodes in none zeroed on the way), then a thread an aggregate gathers its rows into
   its part of a work array, makes LAPACK's Householder steps (geqr2's dlarfg and dlarf, with no
   fused multiply-add, in the twin's order), writes R, forms Q (org2r) and writes its rows. */
__global__ void GKTentativeBlockListKernel(PetscInt nn, PetscInt bs, PetscInt nv, const PetscInt *__restrict__ agg, PetscInt nagg,
                                           PetscInt *__restrict__ key, PetscInt *__restrict__ node, GKScalar *__restrict__ p)
{
  const PetscInt v = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (v < nn) {
    key[v]  = agg[v] < 0 ? nagg : agg[v];
    node[v] = v;
    if (agg[v] < 0)
      for (PetscInt i = v * bs * nv; i < (v + 1) * bs * nv; i++) p[i] = 0.0;
  }
}

/* one Householder reflector (v below row j of column x, x[j] the 1) applied from the left to
   column y of Md rows */
static __device__ __forceinline__ void GKHouseApply(const double *__restrict__ x, double tau, PetscInt j, PetscInt Md, double *__restrict__ y)
{
  double w = y[j];

  for (PetscInt i = j + 1; i < Md; i++) w = __dadd_rn(w, __dmul_rn(x[i], y[i]));
  w    = __dmul_rn(w, tau);
  y[j] = __dsub_rn(y[j], w);
  for (PetscInt i = j + 1; i < Md; i++) y[i] = __dsub_rn(y[i], __dmul_rn(w, x[i]));
}

__global__ void GKTentativeBlockKernel(PetscInt nn, PetscInt bs, PetscInt nv, PetscInt nagg, const PetscInt *__restrict__ start,
                                       const PetscInt *__restrict__ node, const PetscReal *__restrict__ b, GKScalar *__restrict__ p,
                                       PetscReal *__restrict__ r, double *__restrict__ work)
{
  const PetscInt a = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (a < nagg) {
    const PetscInt m = nn * bs, ldr = nagg * nv, M = (start[a + 1] - start[a]) * bs, Md = M > nv ? M : nv;
    const PetscInt total = nv * (m + nagg * nv);
    double        *qa = work + nv * (start[a] * bs + a * nv), *qm = qa + total, *tau = work + 2 * total + a * nv;

    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i < Md; i++) qa[i + k * Md] = i < M ? b[node[start[a] + i / bs] * bs + i % bs + k * m] : 0.0;
    for (PetscInt j = 0; j < nv; j++) { /* the step of column j */
      double *x = qa + j * Md, alpha = x[j], xnorm2 = 0.0, beta, scale;

      for (PetscInt i = j + 1; i < Md; i++) xnorm2 = __dadd_rn(xnorm2, __dmul_rn(x[i], x[i]));
      if (xnorm2 == 0.0) {
        tau[j] = 0.0;
        continue;
      }
      beta   = -sqrt(__dadd_rn(__dmul_rn(alpha, alpha), xnorm2));
      beta   = alpha >= 0 ? beta : -beta;
      tau[j] = __ddiv_rn(__dsub_rn(beta, alpha), beta);
      scale  = __ddiv_rn(1.0, __dsub_rn(alpha, beta));
      for (PetscInt i = j + 1; i < Md; i++) x[i] = __dmul_rn(x[i], scale);
      x[j] = beta;
      for (PetscInt c = j + 1; c < nv; c++) GKHouseApply(x, tau[j], j, Md, qa + c * Md);
    }
    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i < nv; i++) r[a * nv + i + k * ldr] = i <= k ? qa[i + k * Md] : 0.0;
    for (PetscInt k = 0; k < nv; k++)
      for (PetscInt i = 0; i < Md; i++) qm[i + k * Md] = i == k ? 1.0 : 0.0;
    for (PetscInt j = nv - 1; j >= 0; j--)
      if (tau[j] != 0.0)
        for (PetscInt c = 0; c < nv; c++) GKHouseApply(qa + j * Md, tau[j], j, Md, qm + c * Md);
    for (PetscInt i = 0; i < M; i++) {
      const PetscInt row = node[start[a] + i / bs] * bs + i % bs;

      for (PetscInt k = 0; k < nv; k++) p[row * nv + k] = qm[i + k * Md];
    }
  }
}

PetscErrorCode GKCUDATentativeBlock(PetscInt nn, PetscInt bs, PetscInt nv, const PetscInt *agg, PetscInt nagg, const PetscReal *b, PetscScalar *p,
                                    PetscReal *r)
{
  const PetscInt total = nv * (nn * bs + nagg * nv);
  PetscInt      *lists;
  double        *work;

  PetscFunctionBegin;
  if (!nn) PetscFunctionReturn(0);
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(4 * nn + nagg + 1), (void **)&lists));
  PetscCall(GKBackendCUDA.malloc(sizeof(double) * (size_t)(2 * total + nagg * nv), (void **)&work));
  GKTentativeBlockListKernel<<<GKBlocks(nn), GK_BLOCK, 0, GKCUDAStream>>>(nn, bs, nv, agg, nagg, lists, lists + 2 * nn, (GKScalar *)p);
  GKCheckLaunch();
  PetscCall(GKTentativeSort(nn, nagg, lists));
  if (nagg)
    GKTentativeBlockKernel<<<GKBlocks(nagg), GK_BLOCK, 0, GKCUDAStream>>>(nn, bs, nv, nagg, lists + 4 * nn, lists + 3 * nn, b, (GKScalar *)p, r,
                                                                          work);
  GKCheckLaunch();
  PetscCall(GKBackendCUDA.free(work));
  PetscCall(GKBackendCUDA.free(lists));
  PetscFunctionReturn(0);
}

/* The smoothed prolongator (device.h, smooth and smoothblock; the twin's GKHostSmoothBlock step
   for step): a thread a row counts its columns, CUB's scan sums the counts into the starts, and a
   thread a row writes its columns and their sums, then sorts them. Row i is in node i / bs's
   aggregate, and each aggregate has nv columns. Whether an entry is the first of its aggregate
   in the row is found among the aggregates seen before it (a few, where a 3D level's rows hold
   hundreds of entries), kept in the thread's own list while they fit in it, else by the row's
   entries before it. */
#define GK_SMOOTH_SEEN 32

typedef struct {
  PetscInt c[GK_SMOOTH_SEEN]; /* the aggregates seen, each once, while n <= GK_SMOOTH_SEEN */
  int      n;                 /* how many: past GK_SMOOTH_SEEN, c no longer holds them all */
} GKSmoothSeen;

/* whether entry k (of aggregate c) is its aggregate's first in row i, noted in s */
static __device__ __forceinline__ bool GKSmoothFirst(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, PetscInt bs,
                                                     const PetscInt *__restrict__ agg, PetscInt i, PetscInt k, PetscInt c, GKSmoothSeen *s)
{
  if (c < 0) return false;
  if (s->n <= GK_SMOOTH_SEEN) {
    for (int t = 0; t < s->n; t++)
      if (s->c[t] == c) return false;
    if (s->n < GK_SMOOTH_SEEN) s->c[s->n] = c;
    s->n++;
    return true;
  }
  for (PetscInt l = ai[i]; l < k; l++)
    if (agg[aj[l] / bs] == c) return false;
  return true;
}

__global__ void GKSmoothCountKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, PetscInt bs, PetscInt nv,
                                    const PetscInt *__restrict__ agg, PetscInt *__restrict__ len)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    const PetscInt mine = agg[i / bs];
    PetscInt       n    = 0;
    bool           own  = mine < 0;
    GKSmoothSeen   seen;

    seen.n = 0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const PetscInt c = agg[aj[k] / bs];

      if (GKSmoothFirst(ai, aj, bs, agg, i, k, c, &seen)) {
        n++;
        own = own || c == mine;
      }
    }
    len[i] = nv * (n + !own);
  }
}

static __device__ __forceinline__ GKScalar GKMulRn(GKScalar a, GKScalar b)
{
#if defined(PETSC_USE_COMPLEX)
  return a * b;
#else
  return __dmul_rn(a, b);
#endif
}

static __device__ __forceinline__ GKScalar GKAddRn(GKScalar a, GKScalar b)
{
#if defined(PETSC_USE_COMPLEX)
  return a + b;
#else
  return __dadd_rn(a, b);
#endif
}

__global__ void GKSmoothFillKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                   PetscInt bs, PetscInt nv, const PetscInt *__restrict__ agg, const GKScalar *__restrict__ p0, PetscReal alpha,
                                   const PetscInt *__restrict__ pi, PetscInt *__restrict__ pj, GKScalar *__restrict__ pa)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    const PetscInt mine = agg[i / bs];
    PetscInt       q = pi[i], d = -1;
    GKScalar       dinv;
    GKSmoothSeen   seen;

    seen.n = 0;
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] == i) d = k;
    dinv = d >= 0 && aa[d] != GKScalar(0.0) ? GKScalar(1.0) / aa[d] : GKScalar(0.0);
    for (PetscInt k = ai[i]; k <= ai[i + 1]; k++) {
      const bool     last = k == ai[i + 1];
      const PetscInt c    = last ? mine : agg[aj[k] / bs];

      if (last ? q == pi[i + 1] : !GKSmoothFirst(ai, aj, bs, agg, i, k, c, &seen)) continue;
      for (PetscInt v = 0; v < nv; v++) {
        GKScalar sum = 0.0;

        for (PetscInt l = ai[i]; l < ai[i + 1]; l++)
          if (agg[aj[l] / bs] == c) sum = GKAddRn(sum, GKMulRn(aa[l], p0[aj[l] * nv + v]));
        pj[q]   = c * nv + v;
        pa[q++] = GKAddRn(GKMulRn(GKScalar(alpha), GKMulRn(sum, dinv)), c == mine ? p0[i * nv + v] : GKScalar(0.0));
      }
    }
    for (PetscInt a = pi[i] + 1; a < pi[i + 1]; a++)
      for (PetscInt b = a; b > pi[i] && pj[b - 1] > pj[b]; b--) {
        const PetscInt tj = pj[b];
        const GKScalar ta = pa[b];

        pj[b]     = pj[b - 1];
        pa[b]     = pa[b - 1];
        pj[b - 1] = tj;
        pa[b - 1] = ta;
      }
  }
}

PetscErrorCode GKCUDASmoothBlock(const GKCsr *A, PetscInt bs, PetscInt nv, const PetscInt *agg, const PetscScalar *p0, PetscInt nagg, PetscReal alpha,
                                 GKCsr *P)
{
  const PetscInt m   = A->m;
  PetscInt       nnz = 0;

  PetscFunctionBegin;
  P->m = m;
  P->n = nagg * nv;
  P->j = NULL;
  P->a = NULL;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(m + 1), (void **)&P->i));
  if (m) GKSmoothCountKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, bs, nv, agg, P->i + 1);
  GKCheckLaunch();
  PetscCall(GKCUDARowStarts(m, P->i, &nnz));
  P->nnz = nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&P->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)nnz, (void **)&P->a));
  if (m)
    GKSmoothFillKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, (const GKScalar *)A->a, bs, nv, agg, (const GKScalar *)p0, alpha,
                                                                   P->i, P->j, (GKScalar *)P->a);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDASmooth(const GKCsr *A, const PetscInt *agg, const PetscScalar *p0, PetscInt nagg, PetscReal alpha, GKCsr *P)
{
  PetscFunctionBegin;
  PetscCall(GKCUDASmoothBlock(A, 1, 1, agg, p0, nagg, alpha, P));
  PetscFunctionReturn(0);
}

/*
   The strength graph of smoothed aggregation on the device (device.h, strength; host twin:
   host/graph.c): a thread a row finds its scale (its diagonal by binary search in the rows,
   whose columns ascend), then a thread a row counts the row's kept entries (each weight's mirror
   found by binary search), marking each, a scan turns the counts into the row starts, and the
   rows' marked columns are written in order (on several processes each row's kept ghosts after
   them, the ghosts' scales exchanged first). The weights are PETSc's,
   operation for operation, without fused multiply-adds, so that the same entries pass the
   threshold as in PETSc's graph and in the twin.
*/
#include "cudaimpl.h"
#include <cub/cub.cuh>

static __device__ int gk_unmirrored;

static __device__ __forceinline__ double GKAbs(GKScalar a)
{
#if defined(PETSC_USE_COMPLEX)
  return cuda::std::abs(a);
#else
  return fabs(a);
#endif
}

/* w_ij of the entry at k of row i (device.h); *mirrored false where (j,i) is missing */
static __device__ __forceinline__ double GKWeight(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                                  PetscBool sym, PetscInt i, PetscInt k, bool *mirrored)
{
  double w = GKAbs(aa[k]);

  if (sym) {
    const PetscInt t = GKFind(ai, aj, aj[k], i);

    if (t < 0) *mirrored = false;
    else w = __dadd_rn(w, GKAbs(aa[t]));
  }
  return w;
}

static __device__ __forceinline__ double GKScale(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                                 PetscBool sym, PetscInt i)
{
  const PetscInt k = GKFind(ai, aj, i, i);
  bool           mirrored;
  double         w;

  if (k < 0) return 0.0;
  w = GKWeight(ai, aj, aa, sym, i, k, &mirrored);
  return w != 0.0 ? sqrt(fabs(1.0 / w)) : 0.0;
}

/* entry k's weight w (in row i, column j) kept where (w s_i) s_j passes; the scales at sc */
static __device__ __forceinline__ bool GKKeep(double w, double thr, const PetscReal *__restrict__ sc, PetscInt i, PetscInt j)
{
  return thr < 0 || __dmul_rn(__dmul_rn(w, sc[i]), sc[j]) > thr;
}

/* the halo's entries (device.h, GKStrengthHalo): entry k in ghost column m + oj[k] */
struct GKStrengthGhosts {
  const PetscInt *__restrict__ oi, *__restrict__ oj;
  const PetscReal *__restrict__ ow;
};

__global__ void GKStrengthScaleKernel(PetscInt  m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                      PetscBool sym, PetscReal *__restrict__ sc)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) sc[i] = GKScale(ai, aj, aa, sym, i);
}

/* each entry's weight and its mirror's found once: whether it is kept, in keep[] for the fill */
__global__ void GKStrengthCountKernel(PetscInt  m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                      PetscBool sym, double thr, const PetscReal *__restrict__ sc, GKStrengthGhosts o, char *__restrict__ keep,
                                      PetscInt *__restrict__ len)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    bool     mirrored = true;
    PetscInt n        = 0;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      const bool kp = GKKeep(GKWeight(ai, aj, aa, sym, i, k, &mirrored), thr, sc, i, aj[k]);

      keep[k] = kp;
      n += kp;
    }
    if (o.oi)
      for (PetscInt k = o.oi[i]; k < o.oi[i + 1]; k++) n += GKKeep(o.ow[k], thr, sc, i, m + o.oj[k]);
    len[i] = n;
    if (!mirrored) gk_unmirrored = 1;
  }
}

__global__ void GKStrengthFillKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, double thr,
                                     const PetscReal *__restrict__ sc, GKStrengthGhosts o, const char *__restrict__ keep,
                                     const PetscInt *__restrict__ gi, PetscInt *__restrict__ gj)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    PetscInt q = gi[i];

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (keep[k]) gj[q++] = aj[k];
    if (o.oi)
      for (PetscInt k = o.oi[i]; k < o.oi[i + 1]; k++)
        if (GKKeep(o.ow[k], thr, sc, i, m + o.oj[k])) gj[q++] = m + o.oj[k];
  }
}

/* CSR row starts from row counts: the counts a kernel wrote at i[1] ... i[n] summed in place by
   CUB's scan, i[0] = 0; with total, i[n] read back (one wait) */
PetscErrorCode GKCUDARowStarts(PetscInt n, PetscInt *i, PetscInt *total)
{
  size_t bytes;
  void  *tmp = NULL;

  PetscFunctionBegin;
  GKCallCUDA(cudaMemsetAsync(i, 0, sizeof(PetscInt), GKCUDAStream));
  GKCallCUDA(cub::DeviceScan::InclusiveSum(NULL, bytes, i + 1, i + 1, n, GKCUDAStream));
  PetscCall(GKBackendCUDA.malloc(bytes, &tmp));
  GKCallCUDA(cub::DeviceScan::InclusiveSum(tmp, bytes, i + 1, i + 1, n, GKCUDAStream));
  GKCounts.launches += 1;
  PetscCall(GKBackendCUDA.free(tmp));
  if (total) GKWaitCUDA(cudaMemcpy(total, i + n, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAStrength(const GKCsr *A, const GKStrengthHalo *h, PetscBool sym, PetscReal thr, GKCsr *G, PetscBool *mirrored)
{
  const PetscInt   m    = A->m;
  int              flag = 0;
  PetscInt         nnz  = 0;
  GKStrengthGhosts o    = {NULL, NULL, NULL};
  PetscReal       *sc   = NULL;
  char            *keep = NULL;

  PetscFunctionBegin;
  *mirrored = PETSC_TRUE;
  G->m      = A->m;
  G->n      = A->n + (h ? h->halo->nghost : 0);
  G->a      = NULL;
  G->j      = NULL;
  /* the rows' scales (with a halo, the ghosts' from their owners after them) */
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscReal) * (size_t)(m + (h ? h->halo->nghost : 0)), (void **)&sc));
  PetscCall(GKBackendCUDA.malloc((size_t)A->nnz, (void **)&keep));
  if (m) GKStrengthScaleKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, (const GKScalar *)A->a, sym, sc);
  GKCheckLaunch();
  if (h) {
    GKAggExch x;

    PetscCall(GKCUDAAggExchangeCreate(h->halo, &x));
    PetscCall(GKCUDAAggExchange(&x, m, sizeof(PetscReal), sc));
    PetscCall(GKCUDAAggExchangeDestroy(&x));
    o.oi = h->oi;
    o.oj = h->oj;
    o.ow = h->ow;
  }
  /* G->i: the counts at i + 1, then their scan in place (G->i[0] = 0) */
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(m + 1), (void **)&G->i));
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_unmirrored, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  if (m) GKStrengthCountKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, (const GKScalar *)A->a, sym, thr, sc, o, keep, G->i + 1);
  GKCheckLaunch();
  PetscCall(GKCUDARowStarts(m, G->i, NULL)); /* the flag and the total read together below */
  GKCallCUDA(cudaMemcpyFromSymbolAsync(&flag, gk_unmirrored, sizeof(int), 0, cudaMemcpyDeviceToHost, GKCUDAStream));
  GKWaitCUDA(cudaMemcpyAsync(&nnz, G->i + m, sizeof(PetscInt), cudaMemcpyDeviceToHost, GKCUDAStream));
  GKCallCUDA(cudaStreamSynchronize(GKCUDAStream));
  if (flag) {
    *mirrored = PETSC_FALSE;
    PetscCall(GKBackendCUDA.free(G->i));
    G->i = NULL;
  } else {
    G->nnz = nnz;
    PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&G->j));
    if (m) GKStrengthFillKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, thr, sc, o, keep, G->i, G->j);
    GKCheckLaunch();
  }
  PetscCall(GKBackendCUDA.free(sc));
  PetscCall(GKBackendCUDA.free(keep));
  PetscFunctionReturn(0);
}

/* The graph of A's blocks (device.h, collapse; host twin: host/graph.c): a thread a node row
   merges its bs rows' columns, each row's next block column found by binary search (the columns
   ascend), so the block columns come out ascending and each block's |Re a| are summed in the
   twin's order (row by row, each row's columns in order). Counted, scanned into the starts,
   then written. GKCollapseNext: the first block column above cur among node row u's rows (-1:
   none). */
static __device__ __forceinline__ PetscInt GKCollapseNext(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, PetscInt bs, PetscInt u,
                                                          PetscInt cur)
{
  PetscInt next = -1;

  for (PetscInt r = u * bs; r < u * bs + bs; r++) {
    const PetscInt k = GKLowerBound(aj, ai[r], ai[r + 1], (cur + 1) * bs);

    if (k < ai[r + 1] && (next < 0 || aj[k] / bs < next)) next = aj[k] / bs;
  }
  return next;
}

__global__ void GKCollapseCountKernel(PetscInt nn, PetscInt bs, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj,
                                      PetscInt *__restrict__ len)
{
  const PetscInt u = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (u < nn) {
    PetscInt n = 0;

    for (PetscInt c = GKCollapseNext(ai, aj, bs, u, -1); c >= 0; c = GKCollapseNext(ai, aj, bs, u, c)) n++;
    len[u] = n;
  }
}

__global__ void GKCollapseFillKernel(PetscInt nn, PetscInt bs, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj,
                                     const GKScalar *__restrict__ aa, const PetscInt *__restrict__ gi, PetscInt *__restrict__ gj,
                                     GKScalar *__restrict__ ga)
{
  const PetscInt u = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (u < nn) {
    PetscInt q = gi[u];

    for (PetscInt c = GKCollapseNext(ai, aj, bs, u, -1); c >= 0; c = GKCollapseNext(ai, aj, bs, u, c)) {
      double w = 0.0;

      for (PetscInt r = u * bs; r < u * bs + bs; r++)
        for (PetscInt k = GKLowerBound(aj, ai[r], ai[r + 1], c * bs); k < ai[r + 1] && aj[k] / bs == c; k++) w = __dadd_rn(w, fabs(GKRe(aa[k])));
      gj[q]   = c;
      ga[q++] = w;
    }
  }
}

PetscErrorCode GKCUDACollapse(const GKCsr *A, PetscInt bs, GKCsr *G)
{
  const PetscInt nn  = A->m / bs;
  PetscInt       nnz = 0;

  PetscFunctionBegin;
  G->m = nn;
  G->n = A->n / bs;
  G->j = NULL;
  G->a = NULL;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(nn + 1), (void **)&G->i));
  if (nn) GKCollapseCountKernel<<<GKBlocks(nn), GK_BLOCK, 0, GKCUDAStream>>>(nn, bs, A->i, A->j, G->i + 1);
  GKCheckLaunch();
  PetscCall(GKCUDARowStarts(nn, G->i, &nnz));
  G->nnz = nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&G->j));
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscScalar) * (size_t)nnz, (void **)&G->a));
  if (nn) GKCollapseFillKernel<<<GKBlocks(nn), GK_BLOCK, 0, GKCUDAStream>>>(nn, bs, A->i, A->j, (const GKScalar *)A->a, G->i, G->j, (GKScalar *)G->a);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

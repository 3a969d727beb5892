/*
   The strength graph of smoothed aggregation on the device (device.h, strength; host twin:
   host/graph.c): a thread a row counts the row's kept entries (each weight's mirror and the two
   diagonals found by binary search in the rows, whose columns ascend), a scan turns the counts
   into the row starts, and the rows' kept columns are written in order. The weights are PETSc's,
   operation for operation, without fused multiply-adds, so that the same entries pass the
   threshold as in PETSc's graph and in the twin.
*/
#include "cudaimpl.h"
#include <cub/cub.cuh>

static __device__ int gk_unmirrored;

static __device__ __forceinline__ PetscInt GKFind(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, PetscInt r, PetscInt c)
{
  PetscInt lo = ai[r], hi = ai[r + 1];

  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;

    if (aj[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < ai[r + 1] && aj[lo] == c ? lo : -1;
}

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

static __device__ __forceinline__ bool GKKeep(const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                              PetscBool sym, double thr, PetscInt i, PetscInt k, bool *mirrored)
{
  const double w = GKWeight(ai, aj, aa, sym, i, k, mirrored);

  return thr < 0 || __dmul_rn(__dmul_rn(w, GKScale(ai, aj, aa, sym, i)), GKScale(ai, aj, aa, sym, aj[k])) > thr;
}

__global__ void GKStrengthCountKernel(PetscInt  m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                      PetscBool sym, double thr, PetscInt *__restrict__ len)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    bool     mirrored = true;
    PetscInt n        = 0;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) n += GKKeep(ai, aj, aa, sym, thr, i, k, &mirrored);
    len[i] = n;
    if (!mirrored) gk_unmirrored = 1;
  }
}

__global__ void GKStrengthFillKernel(PetscInt  m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                     PetscBool sym, double thr, const PetscInt *__restrict__ gi, PetscInt *__restrict__ gj)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    bool     mirrored = true;
    PetscInt q        = gi[i];

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (GKKeep(ai, aj, aa, sym, thr, i, k, &mirrored)) gj[q++] = aj[k];
  }
}

PetscErrorCode GKCUDAStrength(const GKCsr *A, PetscBool sym, PetscReal thr, GKCsr *G, PetscBool *mirrored)
{
  const PetscInt m    = A->m;
  int            flag = 0;
  size_t         bytes;
  void          *tmp = NULL;
  PetscInt       nnz = 0;

  PetscFunctionBegin;
  *mirrored = PETSC_TRUE;
  G->m      = A->m;
  G->n      = A->n;
  G->a      = NULL;
  G->j      = NULL;
  /* G->i: the counts at i + 1, then their scan in place (G->i[0] = 0) */
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)(m + 1), (void **)&G->i));
  GKCallCUDA(cub::DeviceScan::InclusiveSum(NULL, bytes, G->i + 1, G->i + 1, m, GKCUDAStream));
  PetscCall(GKBackendCUDA.malloc(bytes, &tmp));
  GKCallCUDA(cudaMemsetAsync(G->i, 0, sizeof(PetscInt), GKCUDAStream));
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_unmirrored, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  if (m) GKStrengthCountKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, (const GKScalar *)A->a, sym, thr, G->i + 1);
  GKCheckLaunch();
  GKCallCUDA(cub::DeviceScan::InclusiveSum(tmp, bytes, G->i + 1, G->i + 1, m, GKCUDAStream));
  GKCounts.launches += 1;
  PetscCall(GKBackendCUDA.free(tmp));
  GKCallCUDA(cudaMemcpyFromSymbolAsync(&flag, gk_unmirrored, sizeof(int), 0, cudaMemcpyDeviceToHost, GKCUDAStream));
  GKWaitCUDA(cudaMemcpyAsync(&nnz, G->i + m, sizeof(PetscInt), cudaMemcpyDeviceToHost, GKCUDAStream));
  GKCallCUDA(cudaStreamSynchronize(GKCUDAStream));
  if (flag) {
    *mirrored = PETSC_FALSE;
    PetscCall(GKBackendCUDA.free(G->i));
    G->i = NULL;
    PetscFunctionReturn(0);
  }
  G->nnz = nnz;
  PetscCall(GKBackendCUDA.malloc(sizeof(PetscInt) * (size_t)nnz, (void **)&G->j));
  if (m) GKStrengthFillKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, A->i, A->j, (const GKScalar *)A->a, sym, thr, G->i, G->j);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

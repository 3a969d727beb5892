/*
   The formats filled on the device from CSR arrays (device.h: ellrshortfits, checkcols, csrsorted, ellrfill,
   diaoffsets, diafill) and COO assembly's sums (cooscatter). Their twins are in host/fill.c.
*/
#include <limits.h>
#include "cudaimpl.h"

/* the formats filled from CSR arrays on the device (device.h, ellrfill, diafill): a thread a slot
   (ELLPACK-R: consecutive slots write consecutive entries of a slice) or a row (DIA) */
static __device__ int gk_flag; /* ellrshortfits: set where some column does not fit */

__global__ void GKEllrShortFitsKernel(PetscInt m, const PetscInt *__restrict__ perm, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (t < m) {
    const PetscInt i = perm ? perm[t] : t;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] - t < SHRT_MIN || aj[k] - t > SHRT_MAX) gk_flag = 1;
  }
}

PetscErrorCode GKCUDAEllrShortFits(const GKEllr *E, const PetscInt *ai, const PetscInt *aj, PetscBool *fits)
{
  int flag = 0;

  PetscFunctionBegin;
  *fits = PETSC_TRUE;
  if (!E->m) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_flag, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKEllrShortFitsKernel<<<GKBlocks(E->m), GK_BLOCK, 0, GKCUDAStream>>>(E->m, E->perm, ai, aj);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpyFromSymbol(&flag, gk_flag, sizeof(int)));
  *fits = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

__global__ void GKCheckColsKernel(PetscInt nnz, PetscInt n, const PetscInt *__restrict__ aj)
{
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscInt)gridDim.x * blockDim.x)
    if (aj[k] < 0 || aj[k] >= n) gk_flag = 1;
}

PetscErrorCode GKCUDACheckCols(PetscInt nnz, PetscInt n, const PetscInt *aj, PetscBool *ok)
{
  int flag = 0;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (!nnz) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_flag, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKCheckColsKernel<<<GKBlocks(nnz), GK_BLOCK, 0, GKCUDAStream>>>(nnz, n, aj);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpyFromSymbol(&flag, gk_flag, sizeof(int)));
  *ok = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

__global__ void GKCsrSortedKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m)
    for (PetscInt k = ai[i] + 1; k < ai[i + 1]; k++)
      if (aj[k - 1] > aj[k]) {
        gk_flag = 1;
        break;
      }
}

PetscErrorCode GKCUDACsrSorted(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscBool *sorted)
{
  int flag = 0;

  PetscFunctionBegin;
  *sorted = PETSC_TRUE;
  if (!m) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_flag, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKCsrSortedKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, ai, aj);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpyFromSymbol(&flag, gk_flag, sizeof(int)));
  *sorted = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

__global__ void GKEllrFillKernel(PetscInt m, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                 const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ perm, const PetscInt *__restrict__ ai,
                                 const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa, PetscInt *__restrict__ rl,
                                 PetscInt *__restrict__ col, short *__restrict__ dcol, GKScalar *__restrict__ val)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; /* the slot */

  if (t < m) {
    const PetscInt i = perm ? perm[t] : t, a0 = ai[i], len = ai[i + 1] - a0;
    PetscInt       base, st;

    GKEllrSlot(t, h, sliceptr, wfirst, wptr, &base, &st);
    if (rl) rl[t] = len;
    for (PetscInt k = 0; k < len; k++) {
      val[base + k * st] = aa[a0 + k];
      if (dcol) dcol[base + k * st] = (short)(aj[a0 + k] - t);
      else if (col) col[base + k * st] = aj[a0 + k];
    }
  }
}

PetscErrorCode GKCUDAEllrFill(GKEllr *E, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool valuesonly)
{
  PetscFunctionBegin;
  if (!E->m) PetscFunctionReturn(0);
  GKEllrFillKernel<<<GKBlocks(E->m), GK_BLOCK, 0, GKCUDAStream>>>(E->m, E->h, E->sliceptr, E->wfirst, E->wptr, E->perm, ai, aj, (const GKScalar *)aa,
                                                                  valuesonly ? NULL : E->rl, valuesonly ? NULL : E->col, valuesonly ? NULL : E->dcol,
                                                                  (GKScalar *)E->val);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKDiaOffsetsKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, char *__restrict__ flag)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) flag[aj[k] - i + m - 1] = 1; /* every writer writes 1 */
}

PetscErrorCode GKCUDADiaOffsets(PetscInt m, const PetscInt *ai, const PetscInt *aj, char *flag)
{
  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(0);
  GKDiaOffsetsKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, ai, aj, flag);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKDiaFillKernel(PetscInt m, PetscInt ndiag, const PetscInt *__restrict__ off, const PetscInt *__restrict__ ai,
                                const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa, GKScalar *__restrict__ val)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt lo = 0, hi = ndiag - 1; /* the diagonal of offset aj[k] - i, by bisection */

      while (lo < hi) {
        const PetscInt mid = (lo + hi) / 2;

        if (off[mid] < aj[k] - i) lo = mid + 1;
        else hi = mid;
      }
      val[(size_t)lo * m + i] = aa[k];
    }
  }
}

PetscErrorCode GKCUDADiaFill(GKDia *D, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  PetscFunctionBegin;
  if (!D->m) PetscFunctionReturn(0);
  GKDiaFillKernel<<<GKBlocks(D->m), GK_BLOCK, 0, GKCUDAStream>>>(D->m, D->ndiag, D->off, ai, aj, (const GKScalar *)aa, (GKScalar *)D->val);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* COO assembly (device.h): a thread a nonzero, summing its entries in PETSc's order */
__global__ void GKCooScatterKernel(PetscInt nnz, const PetscCount *__restrict__ jmap, const PetscCount *__restrict__ perm,
                                   const GKScalar *__restrict__ v, int add, GKScalar *__restrict__ a)
{
  GKOverlapBegin();

  const PetscInt p = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (p < nnz) {
    GKScalar sum = 0.0;

    for (PetscCount q = jmap[p]; q < jmap[p + 1]; q++) sum += v[perm[q]];
    a[p] = (add ? a[p] : GKScalar(0.0)) + sum;
  }
}

PetscErrorCode GKCUDACooScatter(PetscInt nnz, const PetscCount *jmap, const PetscCount *perm, const PetscScalar *v, PetscBool add, PetscScalar *a)
{
  PetscFunctionBegin;
  if (!nnz) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKCooScatterKernel, GKBlocks(nnz), nnz, jmap, perm, (const GKScalar *)v, add ? 1 : 0, (GKScalar *)a));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

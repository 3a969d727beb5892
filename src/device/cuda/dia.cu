/*
   DIA's products on the device (device.h: diamult, diamulttranspose, diagetdiagonal), a thread a
   row (a column for the transpose). Their twins are in host/dia.c.
*/
#include "cudaimpl.h"

/* y = A x (or w +- A x), one thread per row: each diagonal's values are read contiguously across the
   warp, and so is x, shifted by the offset (Jost et al., 3.3, update_q) */
template <int ND, class V>
__global__ void GKDiaMultKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const V *__restrict__ val,
                                const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (i < m) {
    const GKScalar wi = GKOutLoad(w, i);
    const GKScalar s  = GKDiaRow<ND>(i, m, n, ndiag, off, val, GKVecIn{x});

    y[i] = GKOut(w, neg, wi, s);
  }
}

/* on values of type V (the scalar type, or GKSingle: device.h, GKStorage) */
template <class V>
static PetscErrorCode GKCUDADiaMultValues(const GKDia *A, const V *val, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
#define GK_LAUNCH(ND) \
  GKCallCUDA(GKLaunchOverlapped(GKDiaMultKernel<ND, V>, GKBlocks(A->m), A->m, A->n, A->ndiag, A->off, val, (const GKScalar *)x, (const GKScalar *)w, \
                                (bool)neg, (GKScalar *)y))
  GKDiaDispatch(A->ndiag, GK_LAUNCH);
#undef GK_LAUNCH
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDADiaMult(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  if (A->sval) PetscCall(GKCUDADiaMultValues(A, (const GKSingle *)A->sval, x, w, neg, y));
  else PetscCall(GKCUDADiaMultValues(A, (const GKScalar *)A->val, x, w, neg, y));
  PetscFunctionReturn(0);
}

/* y = A^T x (or w +- A^T x), one thread per column j of A: entry (j - off[d], j) of diagonal d, so the
   same arrays serve, still read contiguously across the warp */
template <bool CONJ, class V>
__global__ void GKDiaMultTransposeKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const V *__restrict__ val,
                                         const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (j < n) {
    const GKScalar wj = GKOutLoad(w, j);
    const GKScalar s  = GKDiaTransposeRow<CONJ>(j, m, ndiag, off, val, GKVecIn{x});

    y[j] = GKOut(w, neg, wj, s);
  }
}

PetscErrorCode GKCUDADiaMultTranspose(const GKDia *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!A->n) PetscFunctionReturn(0);
  if (A->sval)
    GKCallCUDA(GKLaunchOverlapped(conj ? GKDiaMultTransposeKernel<true, GKSingle> : GKDiaMultTransposeKernel<false, GKSingle>, GKBlocks(A->n), A->m,
                                  A->n, A->ndiag, A->off, (const GKSingle *)A->sval, (const GKScalar *)x, (const GKScalar *)w, (bool)neg,
                                  (GKScalar *)y));
  else
    GKCallCUDA(GKLaunchOverlapped(conj ? GKDiaMultTransposeKernel<true, GKScalar> : GKDiaMultTransposeKernel<false, GKScalar>, GKBlocks(A->n), A->m,
                                  A->n, A->ndiag, A->off, (const GKScalar *)A->val, (const GKScalar *)x, (const GKScalar *)w, (bool)neg,
                                  (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): row i of the offset-0 diagonal */
__global__ void GKDiaGetDiagonalKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const GKScalar *__restrict__ val,
                                       GKScalar *__restrict__ diag)
{
  GKOverlapBegin();

  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    GKScalar s = 0.0;

    for (PetscInt d = 0; d < ndiag; d++)
      if (off[d] == 0 && i < n) s = val[(size_t)d * m + i];
    diag[i] = s;
  }
}

PetscErrorCode GKCUDADiaGetDiagonal(const GKDia *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKDiaGetDiagonalKernel, GKBlocks(A->m), A->m, A->n, A->ndiag, A->off, (const GKScalar *)A->val, (GKScalar *)diag));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

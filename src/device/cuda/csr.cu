/*
   CSR's products on the device (device.h: csrmult, csrgetdiagonal), a thread a row. Their twins
   are in host/csr.c.
*/
#include "cudaimpl.h"

__global__ void GKCsrMultKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (i < m) {
    const GKScalar wi = GKOutLoad(w, i);
    GKScalar       s  = 0;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) s += aa[k] * x[aj[k]];
    y[i] = GKOut(w, neg, wi, s);
  }
}

PetscErrorCode GKCUDACsrMult(const GKCsr *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKCsrMultKernel, GKBlocks(A->m), A->m, (const PetscInt *)A->i, (const PetscInt *)A->j, (const GKScalar *)A->a,
                                (const GKScalar *)x, (const GKScalar *)w, (bool)neg, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKCsrGetDiagonalKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa,
                                       GKScalar *__restrict__ d)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (i < m) {
    GKScalar s = 0;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] == i) s = aa[k];
    d[i] = s;
  }
}

PetscErrorCode GKCUDACsrGetDiagonal(const GKCsr *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKCsrGetDiagonalKernel, GKBlocks(A->m), A->m, (const PetscInt *)A->i, (const PetscInt *)A->j, (const GKScalar *)A->a,
                                (GKScalar *)diag));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

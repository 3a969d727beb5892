/*
   SSOR's and MatSOR's steps on the device (device.h: ssorrows, ssorblocks, ellrsor, diasor), a
   thread a listed row or block. Their twins are in host/sor.c.
*/
#include "cudaimpl.h"

/* SSOR's step (device.h): a thread per listed row. In place the rows of one list (a level, a
   colour) never read each other's entries, so the order within a launch does not matter. V: the
   values' type (GKSingle where S keeps them in single precision). */
template <class V>
__global__ void GKSsorRowsKernel(PetscInt n, const PetscInt *__restrict__ rows, const PetscInt *__restrict__ ptr, const PetscInt *__restrict__ col,
                                 const V *__restrict__ val, const GKScalar *__restrict__ d, GKSsorStep step, double omega, const GKScalar *b,
                                 const GKScalar *xin, GKScalar *xout)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt i = rows ? rows[k] : k;
    GKScalar       s = 0.0;

    for (PetscInt e = ptr[i]; e < ptr[i + 1]; e++) s += GKLd(val + e) * xin[col[e]];
    if (step == GK_SSOR_UPPER_SSOR) xout[i] = (2.0 - omega) * b[i] - omega * s / d[i];
    else if (step == GK_SSOR_UPPER_MULT) xout[i] = d[i] / omega * xin[i] + s;
    else xout[i] = omega * (b[i] - s) / d[i];
  }
}

PetscErrorCode GKCUDASsorRows(const GKSsor *S, GKSsorStep step, PetscInt nrows, const PetscInt *rows, PetscReal omega, const PetscScalar *b,
                              const PetscScalar *xin, PetscScalar *xout)
{
  const PetscInt  n     = rows ? nrows : S->m;
  const PetscBool upper = step != GK_SSOR_LOWER ? PETSC_TRUE : PETSC_FALSE;
  const void     *sval  = upper ? S->suval : S->slval;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  if (sval)
    GKCallCUDA(GKLaunchOverlapped(GKSsorRowsKernel<GKSingle>, GKBlocks(n), n, rows, upper ? S->uptr : S->lptr, upper ? S->ucol : S->lcol,
                                  (const GKSingle *)sval, (const GKScalar *)S->d, step, omega, (const GKScalar *)b, (const GKScalar *)xin,
                                  (GKScalar *)xout));
  else
    GKCallCUDA(GKLaunchOverlapped(GKSsorRowsKernel<GKScalar>, GKBlocks(n), n, rows, upper ? S->uptr : S->lptr, upper ? S->ucol : S->lcol,
                                  (const GKScalar *)(upper ? S->uval : S->lval), (const GKScalar *)S->d, step, omega, (const GKScalar *)b,
                                  (const GKScalar *)xin, (GKScalar *)xout));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* MatSOR's step, or SOR_APPLY_UPPER's product (UPPER), on ELLPACK-R and DIA (device.h): a thread
   per listed row; which entries a row sums */
template <bool UPPER>
static __device__ __forceinline__ bool GKSorTakes(PetscInt i, PetscInt j, const PetscInt *__restrict__ key)
{
  if constexpr (UPPER) return key ? key[j] > key[i] : j > i;
  else return j != i;
}

template <bool UPPER>
static __device__ __forceinline__ void GKSorStore(PetscInt i, GKScalar s, const GKScalar *__restrict__ d, double omega, const GKScalar *b,
                                                  const GKScalar *x, GKScalar *y)
{
  if constexpr (UPPER) y[i] = d[i] / omega * x[i] + s;
  else y[i] = (1.0 - omega) * x[i] + omega * (b[i] - s) / d[i];
}

template <bool UPPER>
__global__ void GKEllrSorKernel(PetscInt n, const PetscInt *__restrict__ slots, GKEllr A, const PetscInt *__restrict__ key,
                                const GKScalar *__restrict__ d, double omega, const GKScalar *b, const GKScalar *x, GKScalar *y)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt  t = slots ? slots[k] : k, i = A.perm ? A.perm[t] : t;
    const GKScalar *val = (const GKScalar *)A.val;
    GKScalar        s   = 0.0;
    PetscInt        base, st;

    GKEllrSlot(t, A.h, A.sliceptr, A.wfirst, A.wptr, &base, &st);
    for (PetscInt e = 0; e < A.rl[t]; e++) {
      const PetscInt j = GKEllrCol<-1>(t, A.col, A.dcol, base + e * st);

      if (GKSorTakes<UPPER>(i, j, key)) s += val[base + e * st] * x[j];
    }
    GKSorStore<UPPER>(i, s, d, omega, b, x, y);
  }
}

template <bool UPPER>
__global__ void GKDiaSorKernel(PetscInt n, const PetscInt *__restrict__ rows, GKDia A, const PetscInt *__restrict__ key,
                               const GKScalar *__restrict__ d, double omega, const GKScalar *b, const GKScalar *x, GKScalar *y)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt  i   = rows ? rows[k] : k;
    const GKScalar *val = (const GKScalar *)A.val;
    GKScalar        s   = 0.0;

    for (PetscInt q = 0; q < A.ndiag; q++) {
      const PetscInt j = i + A.off[q];

      if (j >= 0 && j < A.n && GKSorTakes<UPPER>(i, j, key)) s += val[q * A.m + i] * x[j];
    }
    GKSorStore<UPPER>(i, s, d, omega, b, x, y);
  }
}

PetscErrorCode GKCUDAEllrSor(const GKEllr *A, PetscInt nrows, const PetscInt *slots, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                             PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = slots ? nrows : A->m;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped((upper ? GKEllrSorKernel<true> : GKEllrSorKernel<false>), GKBlocks(n), n, slots, *A, key, (const GKScalar *)d, omega,
                                (const GKScalar *)b, (const GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDADiaSor(const GKDia *A, PetscInt nrows, const PetscInt *rows, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                            PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = rows ? nrows : A->m;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped((upper ? GKDiaSorKernel<true> : GKDiaSorKernel<false>), GKBlocks(n), n, rows, *A, key, (const GKScalar *)d, omega,
                                (const GKScalar *)b, (const GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* SSOR's step with blocks (device.h): a thread per block of the colour */
template <int BS>
__global__ void GKSsorBlocksKernel(GKSsor S, GKSsorColor c, GKSsorStep step, double omega, const GKScalar *b, const GKScalar *xin, GKScalar *xout)
{
  GKOverlapBegin();

  const bool mult = step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z;

  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < c.nb; j += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt           rw[BS];
    GKSsorBlockFac<BS> F;
    const int          n = F.block(S, c, j, rw);
    GKScalar           s[BS], v[BS];

#pragma unroll
    for (int l = 0; l < BS; l++) {
      s[l] = l < n && step != GK_SSOR_BLOCK_Z ? GKSsorBlockRow<BS>(S, c, step == GK_SSOR_LOWER ? 0 : 1, j, l, xin) : GKScalar(0.0);
      v[l] = l >= n ? GKScalar(0.0) : step == GK_SSOR_UPPER_SSOR ? s[l] : mult ? xin[rw[l]] : b[rw[l]] - s[l];
    }
    if (mult) F.mult(v);
    else F.solve(v);
#pragma unroll
    for (int l = 0; l < BS; l++) {
      if (l >= n) break;
      if (step == GK_SSOR_UPPER_SSOR) xout[rw[l]] = (2.0 - omega) * b[rw[l]] - omega * v[l];
      else if (step == GK_SSOR_UPPER_MULT) xout[rw[l]] = v[l] / omega + s[l];
      else if (step == GK_SSOR_BLOCK_Z) xout[rw[l]] = ((2.0 - omega) / omega) * v[l];
      else xout[rw[l]] = omega * v[l];
    }
  }
}

template <int BS>
static PetscErrorCode GKSsorBlocksLaunch(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b,
                                         const PetscScalar *xin, PetscScalar *xout)
{
  PetscFunctionBegin;
  GKCallCUDA(
    GKLaunchOverlapped(GKSsorBlocksKernel<BS>, GKBlocks(c->nb), *S, *c, step, omega, (const GKScalar *)b, (const GKScalar *)xin, (GKScalar *)xout));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDASsorBlocks(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b, const PetscScalar *xin,
                                PetscScalar *xout)
{
  PetscFunctionBegin;
  if (!c->nb) PetscFunctionReturn(0);
  GKSsorBlockDispatch(S->bs, GKSsorBlocksLaunch, S, step, c, omega, b, xin, xout);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/*
   The fused Krylov kernels of device.h: three an iteration, the scalars of the method kept on
   the device. Each block of a kernel that needs the previous kernel's sums adds up all the
   blocks' partial sums itself, in the same order, so every block computes the same scalar and
   no extra launch or host round trip is needed. CG follows Michels, Algorithm 5 (PCG), BiCG
   Jost et al., 3.1, with A^H for complex scalars as De Donno et al. do; each kernel computes
   what its twin in host/krylov.c computes.
*/
#include "cudaimpl.h"

/* partial sums, per block: [0] dpi, [1] the norm, [2] rho */
#define GK_SLOTS 3

typedef struct {
  double   rho[2][2];  /* rho_i by the parity of i, (re, im) */
  double   rholast[2]; /* the last rho the direction step finished */
  double   norm2;
  int      flag;
  PetscInt flagit;
} GKKrylovDevState;

struct GKKrylovCUDA {
  PetscInt          n;
  GKKrylovMethod    method;
  GKKrylovNorm      norm;
  unsigned          nb;      /* blocks of every kernel, so of every partial sum */
  double           *partial; /* device: GK_SLOTS x nb x (re, im) */
  GKKrylovDevState *state;   /* device */
};

PetscErrorCode GKCUDAKrylovCreate(PetscInt n, GKKrylovMethod method, GKKrylovNorm norm, GKKrylov *K)
{
  GKKrylovCUDA *k;

  PetscFunctionBegin;
  PetscCall(PetscNew(&k));
  k->n      = n;
  k->method = method;
  k->norm   = norm;
  k->nb     = n ? GKRedBlocks(method == GK_KRYLOV_BICG ? 2 * n : n) : 1;
  GKCallCUDA(cudaMalloc((void **)&k->partial, sizeof(double) * 2 * GK_SLOTS * k->nb));
  GKCallCUDA(cudaMalloc((void **)&k->state, sizeof(GKKrylovDevState)));
  GKCallCUDA(cudaMemset(k->state, 0, sizeof(GKKrylovDevState)));
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
  PetscCall(PetscFree(k));
  *K = NULL;
  PetscFunctionReturn(0);
}

/* Whether an earlier kernel flagged a breakdown, read once for the whole block so that all its
   threads take the same way past the barriers */
static __device__ bool GKStopped(const GKKrylovDevState *st)
{
  __shared__ int flag;

  if (!threadIdx.x) flag = *(volatile const int *)&st->flag;
  __syncthreads();
  return flag != 0;
}

/* The sum over the nb blocks' partial sums of a slot, the same in every block and thread */
static __device__ GKScalar GKBlockAllSum(const double *partial, unsigned nb, int slot)
{
  __shared__ double sre[GK_WARPS], sim[GK_WARPS], tot[2];
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  double            re = 0.0, im = 0.0;

  for (unsigned b = threadIdx.x; b < nb; b += blockDim.x) {
    re += partial[2 * (slot * nb + b)];
    im += partial[2 * (slot * nb + b) + 1];
  }
  for (int o = 16; o > 0; o /= 2) {
    re += __shfl_down_sync(0xffffffffu, re, o);
    im += __shfl_down_sync(0xffffffffu, im, o);
  }
  if (!lane) {
    sre[warp] = re;
    sim[warp] = im;
  }
  __syncthreads();
  if (!warp) {
    re = lane < GK_WARPS ? sre[lane] : 0.0;
    im = lane < GK_WARPS ? sim[lane] : 0.0;
    for (int o = 16; o > 0; o /= 2) {
      re += __shfl_down_sync(0xffffffffu, re, o);
      im += __shfl_down_sync(0xffffffffu, im, o);
    }
    if (!lane) {
      tot[0] = re;
      tot[1] = im;
    }
  }
  __syncthreads();
  return GKMake(tot[0], tot[1]);
}

static __device__ void GKFlag(GKKrylovDevState *st, int flag, PetscInt i)
{
  if (!blockIdx.x && !threadIdx.x) {
    st->flag   = flag;
    st->flagit = i;
  }
}

/* rho_i and the norm from the last update's sums; p = z + b p, p~ = z~ + conj(b) p~ */
template <bool BICG>
__global__ void GKKrylovDirectionKernel(PetscInt n, PetscInt i, GKScalar rho0, GKKrylovMethod method, unsigned nb, const double *partial, GKKrylovDevState *st, const GKScalar *z, GKScalar *p, const GKScalar *zt, GKScalar *pt)
{
  GKScalar b = 0.0;

  if (GKStopped(st)) return;
  if (i == 0) {
    if (!blockIdx.x && !threadIdx.x) {
      st->rho[0][0] = st->rholast[0] = GKRe(rho0);
      st->rho[0][1] = st->rholast[1] = GKIm(rho0);
    }
  } else {
    const GKScalar rho  = GKBlockAllSum(partial, nb, 2);
    const double   nrm2 = GKRe(GKBlockAllSum(partial, nb, 1));
    const GKScalar old  = GKMake(st->rho[(i - 1) % 2][0], st->rho[(i - 1) % 2][1]);

    if (!blockIdx.x && !threadIdx.x) {
      st->norm2      = nrm2;
      st->rholast[0] = GKRe(rho);
      st->rholast[1] = GKIm(rho);
    }
    if (rho == GKScalar(0.0)) {
      GKFlag(st, GK_KRYLOV_BREAKDOWN, i);
      return;
    }
    if (method == GK_KRYLOV_CG && GKRe(rho) * GKRe(old) < 0.0) {
      GKFlag(st, GK_KRYLOV_INDEFINITE_PC, i);
      return;
    }
    b = rho / old;
    if (!blockIdx.x && !threadIdx.x) {
      st->rho[i % 2][0] = GKRe(rho);
      st->rho[i % 2][1] = GKIm(rho);
    }
  }
  /* at i = 0 p's old values are not read: a NaN left by an earlier solve must not survive 0 * p */
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) {
    p[j] = i ? z[j] + b * p[j] : z[j];
    if (BICG) pt[j] = i ? zt[j] + GKConj(b) * pt[j] : zt[j];
  }
}

PetscErrorCode GKCUDAKrylovDirection(GKKrylov K, PetscInt i, PetscScalar rho0, const PetscScalar *z, PetscScalar *p, const PetscScalar *zt, PetscScalar *pt)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  if (k->method == GK_KRYLOV_BICG) GKKrylovDirectionKernel<true><<<k->nb, GK_BLOCK>>>(k->n, i, GKToDevice(rho0), k->method, k->nb, k->partial, k->state, (const GKScalar *)z, (GKScalar *)p, (const GKScalar *)zt, (GKScalar *)pt);
  else GKKrylovDirectionKernel<false><<<k->nb, GK_BLOCK>>>(k->n, i, GKToDevice(rho0), k->method, k->nb, k->partial, k->state, (const GKScalar *)z, (GKScalar *)p, NULL, NULL);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* w = A p, for BiCG also w~ = A^H p~ (rows n..2n-1 of the launch), and the block sums of dpi */
template <bool ELLR, GKKrylovMethod METHOD>
__global__ void GKKrylovProductKernel(PetscInt n, GKEllr E, GKEllr Et, GKDia D, const GKScalar *p, GKScalar *w, const GKScalar *pt, GKScalar *wt, const GKKrylovDevState *st, double *partial)
{
  GKScalar       acc[1] = {0.0};
  const PetscInt rows   = METHOD == GK_KRYLOV_BICG ? 2 * n : n;

  if (GKStopped(st)) return;
  for (PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; t < rows; t += (PetscInt)gridDim.x * blockDim.x) {
    if (t < n) {
      const GKScalar wi = ELLR ? GKEllrRow<false>(t, E.h, E.sliceptr, E.rl, E.col, (const GKScalar *)E.val, p) : GKDiaRow(t, n, n, D.ndiag, D.off, (const GKScalar *)D.val, p);

      w[t] = wi;
      if (METHOD == GK_KRYLOV_CG) acc[0] += p[t] * GKConj(wi);
      else if (METHOD == GK_KRYLOV_COCG) acc[0] += p[t] * wi;
      else acc[0] += wi * GKConj(pt[t]);
    } else {
      const PetscInt j = t - n;

      wt[j] = ELLR ? GKEllrRow<true>(j, Et.h, Et.sliceptr, Et.rl, Et.col, (const GKScalar *)Et.val, pt) : GKDiaTransposeRow<true>(j, n, D.ndiag, D.off, (const GKScalar *)D.val, pt);
    }
  }
  GKBlockSumStore<1>(acc, partial);
}

PetscErrorCode GKCUDAKrylovProduct(GKKrylov K, const GKOperator *A, const PetscScalar *p, PetscScalar *w, const PetscScalar *pt, PetscScalar *wt)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  GKEllr        E = {0, 0, 0, 1, NULL, NULL, NULL, NULL}, Et = E;
  GKDia         D = {0, 0, 0, NULL, NULL};

  PetscFunctionBegin;
  if (A->ellr) E = *A->ellr;
  if (A->ellrt) Et = *A->ellrt;
  if (A->dia) D = *A->dia;
#define GK_LAUNCH(ELLR, METHOD) GKKrylovProductKernel<ELLR, METHOD><<<k->nb, GK_BLOCK>>>(k->n, E, Et, D, (const GKScalar *)p, (GKScalar *)w, (const GKScalar *)pt, (GKScalar *)wt, k->state, k->partial)
  if (k->method == GK_KRYLOV_CG) {
    if (A->ellr) GK_LAUNCH(true, GK_KRYLOV_CG);
    else GK_LAUNCH(false, GK_KRYLOV_CG);
  } else if (k->method == GK_KRYLOV_COCG) {
    if (A->ellr) GK_LAUNCH(true, GK_KRYLOV_COCG);
    else GK_LAUNCH(false, GK_KRYLOV_COCG);
  } else {
    if (A->ellr) GK_LAUNCH(true, GK_KRYLOV_BICG);
    else GK_LAUNCH(false, GK_KRYLOV_BICG);
  }
#undef GK_LAUNCH
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* a = rho_i/dpi; x += a p; r -= a w; z = diag .* r; for BiCG r~ -= conj(a) w~, z~ = conj(diag) .* r~;
   the block sums of the norm and of rho_i+1 */
template <GKKrylovMethod METHOD, bool DIAG>
__global__ void GKKrylovUpdateKernel(PetscInt n, PetscInt i, GKKrylovNorm norm, unsigned nb, double *partial, GKKrylovDevState *st, const GKScalar *diag, const GKScalar *p, const GKScalar *w, GKScalar *x, GKScalar *r, GKScalar *z, const GKScalar *wt, GKScalar *rt, GKScalar *zt)
{
  GKScalar acc[2] = {0.0, 0.0};
  GKScalar dpi, a;

  if (GKStopped(st)) return;
  dpi = GKBlockAllSum(partial, nb, 0);
  if (METHOD == GK_KRYLOV_CG ? !(GKRe(dpi) > 0.0) && GKRe(dpi) == GKRe(dpi) : dpi == GKScalar(0.0)) {
    GKFlag(st, METHOD == GK_KRYLOV_CG ? GK_KRYLOV_INDEFINITE_MAT : GK_KRYLOV_ZERO_DPI, i);
    return;
  }
  a = GKMake(st->rho[i % 2][0], st->rho[i % 2][1]) / dpi;
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x) {
    const GKScalar rj = r[j] - a * w[j], zj = DIAG ? diag[j] * rj : rj;

    x[j] += a * p[j];
    r[j] = rj;
    if (DIAG) z[j] = zj;
    if (norm == GK_KRYLOV_NORM_Z) acc[0] += GKRe(zj) * GKRe(zj) + GKIm(zj) * GKIm(zj);
    else if (norm == GK_KRYLOV_NORM_R) acc[0] += GKRe(rj) * GKRe(rj) + GKIm(rj) * GKIm(rj);
    if (METHOD == GK_KRYLOV_BICG) {
      const GKScalar rtj = rt[j] - GKConj(a) * wt[j], ztj = DIAG ? GKConj(diag[j]) * rtj : rtj;

      rt[j] = rtj;
      if (DIAG) zt[j] = ztj;
      acc[1] += zj * GKConj(rtj);
    } else acc[1] += METHOD == GK_KRYLOV_CG ? zj * GKConj(rj) : zj * rj;
  }
  GKBlockSumStore<2>(acc, partial + 2 * nb); /* slots 1 and 2 */
}

PetscErrorCode GKCUDAKrylovUpdate(GKKrylov K, PetscInt i, const PetscScalar *diag, const PetscScalar *p, const PetscScalar *w, PetscScalar *x, PetscScalar *r, PetscScalar *z, const PetscScalar *wt, PetscScalar *rt, PetscScalar *zt)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
#define GK_LAUNCH(METHOD, DIAG) GKKrylovUpdateKernel<METHOD, DIAG><<<k->nb, GK_BLOCK>>>(k->n, i, k->norm, k->nb, k->partial, k->state, (const GKScalar *)diag, (const GKScalar *)p, (const GKScalar *)w, (GKScalar *)x, (GKScalar *)r, (GKScalar *)z, (const GKScalar *)wt, (GKScalar *)rt, (GKScalar *)zt)
  if (k->method == GK_KRYLOV_CG) {
    if (diag) GK_LAUNCH(GK_KRYLOV_CG, true);
    else GK_LAUNCH(GK_KRYLOV_CG, false);
  } else if (k->method == GK_KRYLOV_COCG) {
    if (diag) GK_LAUNCH(GK_KRYLOV_COCG, true);
    else GK_LAUNCH(GK_KRYLOV_COCG, false);
  } else {
    if (diag) GK_LAUNCH(GK_KRYLOV_BICG, true);
    else GK_LAUNCH(GK_KRYLOV_BICG, false);
  }
#undef GK_LAUNCH
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovState(GKKrylov K, GKKrylovState *S)
{
  GKKrylovCUDA    *k = (GKKrylovCUDA *)K;
  GKKrylovDevState st;

  PetscFunctionBegin;
  GKWaitCUDA(cudaMemcpy(&st, k->state, sizeof(st), cudaMemcpyDeviceToHost));
  S->norm2 = st.norm2;
  S->rho[0] = st.rholast[0];
  S->rho[1] = st.rholast[1];
  S->flag   = (GKKrylovFlag)st.flag;
  S->flagit = st.flagit;
  PetscFunctionReturn(0);
}

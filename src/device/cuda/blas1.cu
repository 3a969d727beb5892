/*
   The CUDA backend's vector kernels: one fused update for the BLAS-1 family, the multi-vector
   update, pointwise operations, and the reductions (two passes: per-block partial results, then
   one block over them; the host waits only for the final few values). Each computes what its
   twin in host/blas1.c computes.
*/
#include "cudaimpl.h"

static double   *gk_partial = NULL; /* device: GK_RED_BLOCKS x GK_MULTI scalars, as (re, im) pairs */
static double   *gk_result  = NULL; /* device: GK_MULTI scalars, as (re, im) pairs */
static PetscInt *gk_index   = NULL; /* device: GK_RED_BLOCKS + 1 indices for extremes */

static PetscErrorCode GKReduceSpace_Private(void)
{
  PetscFunctionBegin;
  if (!gk_partial) {
    GKCallCUDA(cudaMalloc((void **)&gk_partial, sizeof(double) * 2 * GK_RED_BLOCKS * GK_MULTI));
    GKCallCUDA(cudaMalloc((void **)&gk_result, sizeof(double) * 2 * GK_MULTI));
    GKCallCUDA(cudaMalloc((void **)&gk_index, sizeof(PetscInt) * (GK_RED_BLOCKS + 1)));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAFinalize(void)
{
  PetscFunctionBegin;
  if (gk_partial) {
    GKCallCUDA(cudaFree(gk_partial));
    GKCallCUDA(cudaFree(gk_result));
    GKCallCUDA(cudaFree(gk_index));
  }
  gk_partial = gk_result = NULL;
  gk_index               = NULL;
  PetscFunctionReturn(0);
}

/* z = a x + b y + c z + d; z is not read when c is 0 */
__global__ void GKAxpbypczdKernel(PetscInt n, GKScalar a, const GKScalar *__restrict__ x, GKScalar b, const GKScalar *__restrict__ y, GKScalar c,
                                  GKScalar d, GKScalar *__restrict__ z)
{
  GKOverlapBegin();

  const bool readz = c != GKScalar(0.0);

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    GKScalar s = d;

    if (x) s += a * x[i];
    if (y) s += b * y[i];
    if (readz) s += c * z[i];
    z[i] = s;
  }
}

PetscErrorCode GKCUDAAxpbypczd(PetscInt n, PetscScalar a, const PetscScalar *x, PetscScalar b, const PetscScalar *y, PetscScalar c, PetscScalar d,
                               PetscScalar *z)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKAxpbypczdKernel, GKBlocks(n), n, GKToDevice(a), (const GKScalar *)x, GKToDevice(b), (const GKScalar *)y,
                                GKToDevice(c), GKToDevice(d), (GKScalar *)z));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* the vectors of a multi-vector call, passed by value */
struct GKMultiArgs {
  GKScalar        alpha[GK_MULTI];
  const GKScalar *v[GK_MULTI];
};

/* y = y + sum_k alpha[k] x[k] */
template <int NV>
__global__ void GKMaxpyKernel(PetscInt n, GKMultiArgs args, GKScalar *__restrict__ y)
{
  GKOverlapBegin();

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    GKScalar s = y[i];

#pragma unroll
    for (int k = 0; k < NV; k++) s += args.alpha[k] * args.v[k][i];
    y[i] = s;
  }
}

PetscErrorCode GKCUDAMaxpy(PetscInt n, PetscInt nv, const PetscScalar *alpha, const PetscScalar *const *x, PetscScalar *y)
{
  GKMultiArgs args;

  PetscFunctionBegin;
  if (!n || !nv) PetscFunctionReturn(0);
  PetscCheck(nv <= GK_MULTI, PETSC_COMM_SELF, PETSC_ERR_PLIB, "At most %d vectors a call, not %" PetscInt_FMT, GK_MULTI, nv);
  for (PetscInt k = 0; k < nv; k++) {
    args.alpha[k] = GKToDevice(alpha[k]);
    args.v[k]     = (const GKScalar *)x[k];
  }
  switch (nv) {
#define GK_CASE(K) \
  case K: \
    GKCallCUDA(GKLaunchOverlapped(GKMaxpyKernel<K>, GKBlocks(n), n, args, (GKScalar *)y)); \
    break;
    GK_CASE(1) GK_CASE(2) GK_CASE(3) GK_CASE(4) GK_CASE(5) GK_CASE(6) GK_CASE(7) GK_CASE(8)
#undef GK_CASE
  }
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKSwapKernel(PetscInt n, GKScalar *__restrict__ x, GKScalar *__restrict__ y)
{
  GKOverlapBegin();

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const GKScalar t = x[i];

    x[i] = y[i];
    y[i] = t;
  }
}

PetscErrorCode GKCUDASwap(PetscInt n, PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKSwapKernel, GKBlocks(n), n, (GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* w = x .* y, or x ./ y with 0 where y is 0 */
template <GKPointwiseOp OP>
__global__ void GKPointwiseKernel(PetscInt n, GKScalar *w, const GKScalar *x, const GKScalar *y)
{
  GKOverlapBegin();

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    if (OP == GK_POINTWISE_MULT) w[i] = x[i] * y[i];
    else w[i] = y[i] != GKScalar(0.0) ? x[i] / y[i] : GKScalar(0.0);
  }
}

PetscErrorCode GKCUDAPointwise(PetscInt n, GKPointwiseOp op, PetscScalar *w, const PetscScalar *x, const PetscScalar *y)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  if (op == GK_POINTWISE_MULT)
    GKCallCUDA(GKLaunchOverlapped(GKPointwiseKernel<GK_POINTWISE_MULT>, GKBlocks(n), n, (GKScalar *)w, (const GKScalar *)x, (const GKScalar *)y));
  else
    GKCallCUDA(GKLaunchOverlapped(GKPointwiseKernel<GK_POINTWISE_DIVIDE>, GKBlocks(n), n, (GKScalar *)w, (const GKScalar *)x, (const GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* x = 1/x where x is not 0, x = conj(x), or x = |x| */
enum GKUnaryOp {
  GK_UNARY_RECIPROCAL,
  GK_UNARY_CONJUGATE,
  GK_UNARY_ABS
};

template <GKUnaryOp OP>
__global__ void GKUnaryKernel(PetscInt n, GKScalar *x)
{
  GKOverlapBegin();

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    if (OP == GK_UNARY_RECIPROCAL) {
      if (x[i] != GKScalar(0.0)) x[i] = GKScalar(1.0) / x[i];
    } else if (OP == GK_UNARY_CONJUGATE) x[i] = GKConj(x[i]);
    else {
#if defined(PETSC_USE_COMPLEX)
      x[i] = GKScalar(cuda::std::abs(x[i]));
#else
      x[i] = fabs(x[i]);
#endif
    }
  }
}

template <GKUnaryOp OP>
static PetscErrorCode GKCUDAUnary(PetscInt n, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKUnaryKernel<OP>, GKBlocks(n), n, (GKScalar *)x));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAReciprocal(PetscInt n, PetscScalar *x)
{
  return GKCUDAUnary<GK_UNARY_RECIPROCAL>(n, x);
}

__global__ void GKNoisyKernel(PetscInt n, PetscInt start, GKScalar *x)
{
  GKOverlapBegin();

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x)
    x[i] = GKScalar(GKNoisyHash(start + i));
}

PetscErrorCode GKCUDANoisy(PetscInt n, PetscInt start, PetscScalar *x)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKNoisyKernel, GKBlocks(n), n, start, (GKScalar *)x));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAConjugate(PetscInt n, PetscScalar *x)
{
  return PetscDefined(USE_COMPLEX) ? GKCUDAUnary<GK_UNARY_CONJUGATE>(n, x) : 0;
}

PetscErrorCode GKCUDAAbs(PetscInt n, PetscScalar *x)
{
  return GKCUDAUnary<GK_UNARY_ABS>(n, x);
}

/* this thread's share of the sums over the nb partial sums of each of the K results */
template <int K>
static __device__ void GKSumPartialsShare(int nb, const double *__restrict__ partial, GKScalar *acc)
{
#pragma unroll
  for (int k = 0; k < K; k++) {
    acc[k] = 0.0;
    for (int b = threadIdx.x; b < nb; b += blockDim.x) {
#if defined(PETSC_USE_COMPLEX)
      acc[k] += GKScalar(partial[2 * (k * nb + b)], partial[2 * (k * nb + b) + 1]);
#else
      acc[k] += partial[2 * (k * nb + b)];
#endif
    }
  }
}

/* result[k] = sum over the nb partial sums of k, by one block */
template <int K>
__global__ void GKSumPartialsKernel(int nb, const double *__restrict__ partial, double *__restrict__ result)
{
  GKOverlapBegin();

  GKScalar acc[K];

  GKSumPartialsShare<K>(nb, partial, acc);
  GKBlockSumStore<K>(acc, result); /* one block: writes result[2k], result[2k+1] */
}

/* r[k] = y[k]^H x (CONJ) or y[k]^T x */
template <int NV, bool CONJ>
__global__ void GKDotsKernel(PetscInt n, const GKScalar *__restrict__ x, GKMultiArgs args, double *partial)
{
  GKOverlapBegin();

  GKScalar acc[NV];

#pragma unroll
  for (int k = 0; k < NV; k++) acc[k] = 0.0;
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const GKScalar xi = x[i];

#pragma unroll
    for (int k = 0; k < NV; k++) acc[k] += xi * (CONJ ? GKConj(args.v[k][i]) : args.v[k][i]);
  }
  GKBlockSumStore<NV>(acc, partial);
}

/* The second pass of a K-sum reduction whose first ran on nb blocks: the K results in gk_result
   (device memory), for a kernel to read or the host to copy */
template <int K>
static PetscErrorCode GKSumPartials_Private(unsigned nb)
{
  PetscFunctionBegin;
  GKCheckLaunch();
  GKCallCUDA(GKLaunchOverlapped(GKSumPartialsKernel<K>, 1, (int)nb, (const double *)gk_partial, gk_result));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* Finishes a K-sum reduction whose first pass ran on nb blocks: the K results to the host */
template <int K>
static PetscErrorCode GKFinishSum_Private(unsigned nb, PetscScalar *r)
{
  double res[2 * GK_MULTI];

  PetscFunctionBegin;
  PetscCall(GKSumPartials_Private<K>(nb));
  GKWaitCUDA(cudaMemcpy(res, gk_result, sizeof(double) * 2 * K, cudaMemcpyDeviceToHost));
  for (int k = 0; k < K; k++) {
#if defined(PETSC_USE_COMPLEX)
    r[k] = PetscCMPLX(res[2 * k], res[2 * k + 1]);
#else
    r[k] = res[2 * k];
#endif
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDADots(PetscInt n, const PetscScalar *x, PetscInt nv, const PetscScalar *const *y, PetscBool conjugate, PetscScalar *r)
{
  GKMultiArgs    args;
  const unsigned nb = GKRedBlocks(n);

  PetscFunctionBegin;
  PetscCheck(nv <= GK_MULTI, PETSC_COMM_SELF, PETSC_ERR_PLIB, "At most %d vectors a call, not %" PetscInt_FMT, GK_MULTI, nv);
  if (!n || !nv) {
    for (PetscInt k = 0; k < nv; k++) r[k] = 0.0;
    PetscFunctionReturn(0);
  }
  PetscCall(GKReduceSpace_Private());
  for (PetscInt k = 0; k < nv; k++) args.v[k] = (const GKScalar *)y[k];
  switch (nv) {
#define GK_CASE(K) \
  case K: \
    if (conjugate) GKCallCUDA(GKLaunchOverlapped(GKDotsKernel<K, true>, nb, n, (const GKScalar *)x, args, gk_partial)); \
    else GKCallCUDA(GKLaunchOverlapped(GKDotsKernel<K, false>, nb, n, (const GKScalar *)x, args, gk_partial)); \
    PetscCall(GKFinishSum_Private<K>(nb, r)); \
    break;
    GK_CASE(1) GK_CASE(2) GK_CASE(3) GK_CASE(4) GK_CASE(5) GK_CASE(6) GK_CASE(7) GK_CASE(8)
#undef GK_CASE
  }
  PetscFunctionReturn(0);
}

/* dp = t^H s, nm = t^H t, in one pass */
__global__ void GKDotNorm2Kernel(PetscInt n, const GKScalar *__restrict__ s, const GKScalar *__restrict__ t, double *partial)
{
  GKOverlapBegin();

  GKScalar acc[2] = {0.0, 0.0};

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const GKScalar ct = GKConj(t[i]);

    acc[0] += s[i] * ct;
    acc[1] += GKRe(t[i] * ct);
  }
  GKBlockSumStore<2>(acc, partial);
}

PetscErrorCode GKCUDADotNorm2(PetscInt n, const PetscScalar *s, const PetscScalar *t, PetscScalar *dp, PetscReal *nm)
{
  const unsigned nb = GKRedBlocks(n);
  PetscScalar    r[2];

  PetscFunctionBegin;
  *dp = 0.0;
  *nm = 0.0;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  GKCallCUDA(GKLaunchOverlapped(GKDotNorm2Kernel, nb, n, (const GKScalar *)s, (const GKScalar *)t, gk_partial));
  PetscCall(GKFinishSum_Private<2>(nb, r));
  *dp = r[0];
  *nm = PetscRealPart(r[1]);
  PetscFunctionReturn(0);
}

/* sum |x| and sum |x|^2, the ones asked for */
template <bool ONE, bool TWO>
__global__ void GKNormsKernel(PetscInt n, const GKScalar *__restrict__ x, double *partial)
{
  GKOverlapBegin();

  GKScalar acc[2] = {0.0, 0.0};

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    const GKScalar xi = x[i];

#if defined(PETSC_USE_COMPLEX)
    if (ONE) acc[0] += cuda::std::abs(xi);
#else
    if (ONE) acc[0] += fabs(xi);
#endif
    if (TWO) acc[1] += GKRe(xi) * GKRe(xi) + GKIm(xi) * GKIm(xi);
  }
  GKBlockSumStore<2>(acc, partial);
}

/* the larger of a and b, NaN if either is (fmax drops a NaN; PETSc's VecNorm returns it) */
static __device__ __forceinline__ double GKMaxNaN(double a, double b)
{
  return (b > a || isnan(b)) && !isnan(a) ? b : a;
}

/* max |x| per block, then over the blocks: no index, so a plain maximum (NaN if any entry is) */
__global__ void GKMaxAbsKernel(PetscInt n, const GKScalar *__restrict__ x, double *partial, bool final)
{
  GKOverlapBegin();

  __shared__ double s[GK_WARPS];
  double            m    = 0.0;
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
#if defined(PETSC_USE_COMPLEX)
    const double a = final ? partial[2 * i] : cuda::std::abs(x[i]);
#else
    const double a = final ? partial[2 * i] : fabs(x[i]);
#endif
    m = GKMaxNaN(m, a);
  }
  for (int o = 16; o > 0; o /= 2) m = GKMaxNaN(m, __shfl_down_sync(0xffffffffu, m, o));
  if (!lane) s[warp] = m;
  __syncthreads();
  if (!warp) {
    m = lane < GK_WARPS ? s[lane] : 0.0;
    for (int o = 16; o > 0; o /= 2) m = GKMaxNaN(m, __shfl_down_sync(0xffffffffu, m, o));
    if (!lane) partial[2 * blockIdx.x + (final ? 2 * GK_RED_BLOCKS * GK_MULTI - 2 : 0)] = m;
  }
}

PetscErrorCode GKCUDANorms(PetscInt n, const PetscScalar *x, int parts, PetscReal *r)
{
  const unsigned nb = GKRedBlocks(n);
  PetscScalar    s[2];

  PetscFunctionBegin;
  r[0] = r[1] = r[2] = 0.0;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  if (parts & GK_NORM_MAX) {
    double m;

    GKCallCUDA(GKLaunchOverlapped(GKMaxAbsKernel, nb, n, (const GKScalar *)x, gk_partial, false));
    GKCheckLaunch();
    /* the block maxima sit at partial[2b]; one block takes their maximum into the last slot */
    GKCallCUDA(GKLaunchOverlapped(GKMaxAbsKernel, 1, (PetscInt)nb, (const GKScalar *)NULL, gk_partial, true));
    GKCheckLaunch();
    GKWaitCUDA(cudaMemcpy(&m, gk_partial + 2 * GK_RED_BLOCKS * GK_MULTI - 2, sizeof(double), cudaMemcpyDeviceToHost));
    r[2] = m;
  }
  if (!(parts & (GK_NORM_ABS | GK_NORM_SQ))) PetscFunctionReturn(0);
  if ((parts & GK_NORM_ABS) && (parts & GK_NORM_SQ))
    GKCallCUDA(GKLaunchOverlapped(GKNormsKernel<true, true>, nb, n, (const GKScalar *)x, gk_partial));
  else if (parts & GK_NORM_ABS) GKCallCUDA(GKLaunchOverlapped(GKNormsKernel<true, false>, nb, n, (const GKScalar *)x, gk_partial));
  else GKCallCUDA(GKLaunchOverlapped(GKNormsKernel<false, true>, nb, n, (const GKScalar *)x, gk_partial));
  PetscCall(GKFinishSum_Private<2>(nb, s));
  r[0] = PetscRealPart(s[0]);
  r[1] = PetscRealPart(s[1]);
  PetscFunctionReturn(0);
}

/* Arnoldi's step (the device op's comment): the K sums of the first pass's partials into h[0..K-1],
   by one block (its thread 0 reads back what it stored) */
template <int K>
__global__ void GKArnoldiSumKernel(int nb, const double *__restrict__ partial, double *__restrict__ scratch, GKScalar *__restrict__ h)
{
  GKOverlapBegin();

  GKScalar acc[K];

  GKSumPartialsShare<K>(nb, partial, acc);
  GKBlockSumStore<K>(acc, scratch, 1);
  if (!threadIdx.x) {
#pragma unroll
    for (int k = 0; k < K; k++) {
#if defined(PETSC_USE_COMPLEX)
      h[k] = GKScalar(scratch[2 * k], scratch[2 * k + 1]);
#else
      h[k] = scratch[2 * k];
#endif
    }
  }
}

/* w -= sum_k h[k] v[k], the coefficients read from the device; LAST: the block's partial sum of
   |w_i|^2 of the new w as well */
template <int NV, bool LAST>
__global__ void GKArnoldiUpdateKernel(PetscInt n, GKMultiArgs args, const GKScalar *__restrict__ h, GKScalar *__restrict__ w, double *partial)
{
  GKOverlapBegin();

  GKScalar c[NV], acc[1] = {0.0};

#pragma unroll
  for (int k = 0; k < NV; k++) c[k] = h[k];
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    GKScalar s = w[i];

#pragma unroll
    for (int k = 0; k < NV; k++) s -= c[k] * args.v[k][i];
    w[i] = s;
    if (LAST) acc[0] += GKRe(s) * GKRe(s) + GKIm(s) * GKIm(s);
  }
  if (LAST) GKBlockSumStore<1>(acc, partial);
}

/* h = ||w|| from the partial sums of its squares (one block) */
__global__ void GKArnoldiNormSumKernel(int nb, const double *__restrict__ partial, double *__restrict__ scratch, GKScalar *__restrict__ h)
{
  GKOverlapBegin();

  GKScalar acc[1];

  GKSumPartialsShare<1>(nb, partial, acc);
  GKBlockSumStore<1>(acc, scratch, 1);
  if (!threadIdx.x) h[0] = sqrt(scratch[0]);
}

/* w /= h unless h is 0, as VecNormalize() */
__global__ void GKArnoldiScaleKernel(PetscInt n, const GKScalar *__restrict__ h, GKScalar *__restrict__ w)
{
  GKOverlapBegin();

  const double nrm = GKRe(h[0]);

  if (nrm == 0.0) return;
  const double s = 1.0 / nrm;
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) w[i] = w[i] * s;
}

PetscErrorCode GKCUDAArnoldi(PetscInt n, PetscInt m, const PetscScalar *const *v, PetscScalar *w, PetscScalar *h)
{
  const unsigned nb = GKRedBlocks(n);
  GKMultiArgs    args;

  PetscFunctionBegin;
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Arnoldi's step on an empty vector");
  PetscCall(GKReduceSpace_Private());
  /* the dots, all against w as it came (classical Gram-Schmidt) */
  for (PetscInt k0 = 0; k0 < m; k0 += GK_MULTI) {
    const int nv = (int)PetscMin((PetscInt)GK_MULTI, m - k0);

    for (int k = 0; k < nv; k++) args.v[k] = (const GKScalar *)v[k0 + k];
    switch (nv) {
#define GK_CASE(K) \
  case K: \
    GKCallCUDA(GKLaunchOverlapped(GKDotsKernel<K, true>, nb, n, (const GKScalar *)w, args, gk_partial)); \
    GKCheckLaunch(); \
    GKCallCUDA(GKLaunchOverlapped(GKArnoldiSumKernel<K>, 1, (int)nb, (const double *)gk_partial, gk_result, (GKScalar *)h + k0)); \
    GKCheckLaunch(); \
    break;
      GK_CASE(1) GK_CASE(2) GK_CASE(3) GK_CASE(4) GK_CASE(5) GK_CASE(6) GK_CASE(7) GK_CASE(8)
#undef GK_CASE
    }
  }
  /* the update, its last pass summing the new w's squares */
  for (PetscInt k0 = 0; k0 < m; k0 += GK_MULTI) {
    const int  nv   = (int)PetscMin((PetscInt)GK_MULTI, m - k0);
    const bool last = k0 + nv == m;

    for (int k = 0; k < nv; k++) args.v[k] = (const GKScalar *)v[k0 + k];
    switch (nv) {
#define GK_CASE(K) \
  case K: \
    if (last) GKCallCUDA(GKLaunchOverlapped(GKArnoldiUpdateKernel<K, true>, nb, n, args, (const GKScalar *)h + k0, (GKScalar *)w, gk_partial)); \
    else GKCallCUDA(GKLaunchOverlapped(GKArnoldiUpdateKernel<K, false>, GKBlocks(n), n, args, (const GKScalar *)h + k0, (GKScalar *)w, gk_partial)); \
    GKCheckLaunch(); \
    break;
      GK_CASE(1) GK_CASE(2) GK_CASE(3) GK_CASE(4) GK_CASE(5) GK_CASE(6) GK_CASE(7) GK_CASE(8)
#undef GK_CASE
    }
  }
  if (!m) { /* the first direction: its squares by VecNorm()'s kernel, whose second sum they are */
    GKCallCUDA(GKLaunchOverlapped(GKNormsKernel<false, true>, nb, n, (const GKScalar *)w, gk_partial));
    GKCheckLaunch();
  }
  GKCallCUDA(GKLaunchOverlapped(GKArnoldiNormSumKernel, 1, (int)nb, (const double *)gk_partial + (m ? 0 : 2 * nb), gk_result, (GKScalar *)h + m));
  GKCheckLaunch();
  GKCallCUDA(GKLaunchOverlapped(GKArnoldiScaleKernel, GKBlocks(n), n, (const GKScalar *)h + m, (GKScalar *)w));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKSumKernel(PetscInt n, const GKScalar *__restrict__ x, double *partial)
{
  GKOverlapBegin();

  GKScalar acc[1] = {0.0};

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) acc[0] += x[i];
  GKBlockSumStore<1>(acc, partial);
}

/* x_i += result / -N: the sum's shift, computed as the host computes it from the sum */
__global__ void GKShiftBySumKernel(PetscInt n, double negN, const double *__restrict__ result, GKScalar *__restrict__ x)
{
  GKOverlapBegin();

#if defined(PETSC_USE_COMPLEX)
  const GKScalar s = GKScalar(result[0] / negN, result[1] / negN); /* C's division by a real-valued complex: each part's */
#else
  const GKScalar s = result[0] / negN;
#endif
  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) x[i] = x[i] + s;
}

PetscErrorCode GKCUDARemoveConstant(PetscInt n, PetscInt N, PetscScalar *x)
{
  const unsigned nb = GKRedBlocks(n);

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  GKCallCUDA(GKLaunchOverlapped(GKSumKernel, nb, n, (const GKScalar *)x, gk_partial));
  PetscCall(GKSumPartials_Private<1>(nb));
  GKCallCUDA(GKLaunchOverlapped(GKShiftBySumKernel, GKBlocks(n), n, -1.0 * (double)N, (const double *)gk_result, (GKScalar *)x));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDASum(PetscInt n, const PetscScalar *x, PetscScalar *s)
{
  const unsigned nb = GKRedBlocks(n);

  PetscFunctionBegin;
  *s = 0.0;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  GKCallCUDA(GKLaunchOverlapped(GKSumKernel, nb, n, (const GKScalar *)x, gk_partial));
  PetscCall(GKFinishSum_Private<1>(nb, s));
  PetscFunctionReturn(0);
}

/* The largest key and its first index: per block, then over the blocks (pass 2 reads the block
   results, val[b] and idx[b], instead of x). The key: sign * Re(x), or (ZERO) 1 where x is 0 and
   0 elsewhere, whose largest at its first index is the first zero. */
static __device__ __forceinline__ void GKBetter(double &v, PetscInt &j, double v2, PetscInt j2)
{
  /* an empty slot (j < 0) loses; a larger value wins; equal values go to the smaller index */
  if (j2 >= 0 && (j < 0 || v2 > v || (v2 == v && j2 < j))) {
    v = v2;
    j = j2;
  }
}

template <bool ZERO>
__global__ void GKExtremeKernel(PetscInt n, const GKScalar *__restrict__ x, double sign, double *val, PetscInt *idx, bool final)
{
  GKOverlapBegin();

  __shared__ double   sv[GK_WARPS];
  __shared__ PetscInt sj[GK_WARPS];
  double              v    = 0.0;
  PetscInt            j    = -1;
  const int           lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (PetscInt)gridDim.x * blockDim.x) {
    if (final) GKBetter(v, j, val[i], idx[i]);
    else if (ZERO) GKBetter(v, j, x[i] == GKScalar(0.0) ? 1.0 : 0.0, i);
    else GKBetter(v, j, sign * GKRe(x[i]), i);
  }
  for (int o = 16; o > 0; o /= 2) GKBetter(v, j, __shfl_down_sync(0xffffffffu, v, o), __shfl_down_sync(0xffffffffu, j, o));
  if (!lane) {
    sv[warp] = v;
    sj[warp] = j;
  }
  __syncthreads();
  if (!warp) {
    v = lane < GK_WARPS ? sv[lane] : 0.0;
    j = lane < GK_WARPS ? sj[lane] : -1;
    for (int o = 16; o > 0; o /= 2) GKBetter(v, j, __shfl_down_sync(0xffffffffu, v, o), __shfl_down_sync(0xffffffffu, j, o));
    if (!lane) {
      val[final ? GK_RED_BLOCKS : blockIdx.x] = v;
      idx[final ? GK_RED_BLOCKS : blockIdx.x] = j;
    }
  }
}

PetscErrorCode GKCUDAExtreme(PetscInt n, const PetscScalar *x, GKExtremeOp op, PetscInt *idx, PetscReal *val)
{
  const unsigned nb   = GKRedBlocks(n);
  const double   sign = op == GK_EXTREME_MAX ? 1.0 : -1.0;
  double         v;

  PetscFunctionBegin;
  *idx = -1;
  *val = -sign * PETSC_MAX_REAL;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  GKCallCUDA(GKLaunchOverlapped(GKExtremeKernel<false>, nb, n, (const GKScalar *)x, sign, gk_partial, gk_index, false));
  GKCheckLaunch();
  GKCallCUDA(GKLaunchOverlapped(GKExtremeKernel<false>, 1, (PetscInt)nb, (const GKScalar *)NULL, sign, gk_partial, gk_index, true));
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpy(&v, gk_partial + GK_RED_BLOCKS, sizeof(double), cudaMemcpyDeviceToHost));
  GKWaitCUDA(cudaMemcpy(idx, gk_index + GK_RED_BLOCKS, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  *val = sign * v;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAFirstZero(PetscInt n, const PetscScalar *x, PetscInt *idx)
{
  const unsigned nb = GKRedBlocks(n);
  double         v;
  PetscInt       j;

  PetscFunctionBegin;
  *idx = -1;
  if (!n) PetscFunctionReturn(0);
  PetscCall(GKReduceSpace_Private());
  GKCallCUDA(GKLaunchOverlapped(GKExtremeKernel<true>, nb, n, (const GKScalar *)x, 1.0, gk_partial, gk_index, false));
  GKCheckLaunch();
  GKCallCUDA(GKLaunchOverlapped(GKExtremeKernel<true>, 1, (PetscInt)nb, (const GKScalar *)NULL, 1.0, gk_partial, gk_index, true));
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpy(&v, gk_partial + GK_RED_BLOCKS, sizeof(double), cudaMemcpyDeviceToHost));
  GKWaitCUDA(cudaMemcpy(&j, gk_index + GK_RED_BLOCKS, sizeof(PetscInt), cudaMemcpyDeviceToHost));
  *idx = v > 0.0 ? j : -1;
  PetscFunctionReturn(0);
}

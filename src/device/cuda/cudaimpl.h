/*
   What the CUDA backend's files share: the kernels' scalar type, the error checks, the launch
   shape, and the entry points each file defines for the backend's table.
*/
#pragma once

#include <cuda_runtime.h>
#include <cuda/std/complex>
#include <string.h>
#include "device/device.h"

#if defined(PETSC_USE_COMPLEX)
typedef cuda::std::complex<PetscReal>      GKScalar;
static __device__ __forceinline__ GKScalar GKConj(GKScalar a)
{
  return cuda::std::conj(a);
}
#else
typedef PetscReal                          GKScalar;
static __device__ __forceinline__ GKScalar GKConj(GKScalar a)
{
  return a;
}
#endif
static_assert(sizeof(GKScalar) == sizeof(PetscScalar), "the kernels' scalar must have PetscScalar's layout");

#define GK_BLOCK 256

/* Block J of multicolor's blocks (device.h, GKSsor) in registers: its factors D_B = F Delta F^*,
   and v = D_B^-1 v (solve) or D_B v (mult) on its BS rows; a short block's padding rows (F = 0,
   1/Delta = 1) leave zeros in v as zeros */
template <int BS>
struct GKSsorBlockFac {
  GKScalar f[BS * (BS + 1) / 2];
  bool     herm;

  __device__ __forceinline__ void load(const GKSsor &S, PetscInt J)
  {
#pragma unroll
    for (int q = 0; q < BS * (BS + 1) / 2; q++) f[q] = ((const GKScalar *)S.fac)[(size_t)q * S.nblk + J];
    herm = S.herm;
  }
  /* block j of colour c: its factors, its rows into rw[] (device.h, GKSsorColor); their number */
  __device__ __forceinline__ int block(const GKSsor &S, const GKSsorColor &c, PetscInt j, PetscInt *rw)
  {
    int n = 0;

    load(S, c.b0 + j);
#pragma unroll
    for (int l = 0; l < BS; l++) {
      rw[l] = c.r0 + c.lofs[l] + j;
      if (j < c.lofs[l + 1] - c.lofs[l]) n = l + 1;
    }
    return n;
  }
  __device__ __forceinline__ GKScalar F(int k, int l) const { return f[k * (k - 1) / 2 + l]; }
  __device__ __forceinline__ GKScalar Fs(int k, int l) const { return herm ? GKConj(F(k, l)) : F(k, l); }
  __device__ __forceinline__ GKScalar dinv(int k) const { return f[BS * (BS - 1) / 2 + k]; }
  __device__ __forceinline__ void     solve(GKScalar *v) const /* F^-* Delta^-1 F^-1 v */
  {
#pragma unroll
    for (int k = 0; k < BS; k++)
#pragma unroll
      for (int l = 0; l < k; l++) v[k] -= F(k, l) * v[l];
#pragma unroll
    for (int k = 0; k < BS; k++) v[k] *= dinv(k);
#pragma unroll
    for (int k = BS - 1; k >= 0; k--)
#pragma unroll
      for (int l = k + 1; l < BS; l++) v[k] -= Fs(l, k) * v[l];
  }
  __device__ __forceinline__ void mult(GKScalar *v) const /* F Delta F^* v */
  {
#pragma unroll
    for (int k = 0; k < BS; k++) {
#pragma unroll
      for (int l = k + 1; l < BS; l++) v[k] += Fs(l, k) * v[l];
      v[k] /= dinv(k);
    }
#pragma unroll
    for (int k = BS - 1; k >= 0; k--)
#pragma unroll
      for (int l = 0; l < k; l++) v[k] += F(k, l) * v[l];
  }
};

/* PetscCall(F<BS>(...)) for S's block size bs (2 to GK_SSOR_MAX_BS) */
#define GKSsorBlockDispatch(bs, F, ...) \
  do { \
    switch (bs) { \
    case 2: \
      PetscCall(F<2>(__VA_ARGS__)); \
      break; \
    case 3: \
      PetscCall(F<3>(__VA_ARGS__)); \
      break; \
    case 4: \
      PetscCall(F<4>(__VA_ARGS__)); \
      break; \
    case 5: \
      PetscCall(F<5>(__VA_ARGS__)); \
      break; \
    case 6: \
      PetscCall(F<6>(__VA_ARGS__)); \
      break; \
    case 7: \
      PetscCall(F<7>(__VA_ARGS__)); \
      break; \
    case 8: \
      PetscCall(F<8>(__VA_ARGS__)); \
      break; \
    default: \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "SSOR blocks of %d rows", (int)(bs)); \
    } \
  } while (0)

/* Every CUDA call and launch goes through this, which turns a failure into a PETSc error. */
#define GKCallCUDA(...) \
  do { \
    cudaError_t _gk_err = (__VA_ARGS__); \
    PetscCheck(_gk_err == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_GPU, "CUDA error %d (%s): %s", (int)_gk_err, cudaGetErrorName(_gk_err), \
               cudaGetErrorString(_gk_err)); \
  } while (0)
/* after every launch: counted, and checked */
#define GKCheckLaunch() \
  do { \
    GKCounts.launches += 1; \
    GKCallCUDA(cudaGetLastError()); \
  } while (0)
/* a call that makes the host wait for the device: counted */
#define GKWaitCUDA(...) \
  do { \
    GKCounts.syncs += 1; \
    GKCallCUDA(__VA_ARGS__); \
  } while (0)

static inline unsigned GKBlocks(PetscInt n)
{
  return (unsigned)((n + GK_BLOCK - 1) / GK_BLOCK);
}

/* Programmatic dependent launch (compute capability 9.0 and later): a kernel launched by
   GKLaunchOverlapped may be scheduled while the kernel before it in the stream still runs. It
   must call GKOverlapBegin() before touching memory: the wait returns when the kernel before has
   ended and its writes are visible; the trigger then lets the next such kernel be scheduled
   (it waits in turn). What is saved is the launch and the filling of the GPU between kernels. */
/* A product's result y_i from its own entry v (device.h's products): v, or wi + v, or wi - v
   with neg, where wi = w[i] (GKOutLoad). The kernels a thread a row read it before the row's
   own loads, so that its latency hides behind theirs; the kernel of a group of lanes a row after
   them (see there). w may be y: y_i is written after w_i is read, by the same thread */
static __device__ __forceinline__ GKScalar GKOutLoad(const GKScalar *w, PetscInt i)
{
  return w ? w[i] : GKScalar(0.0);
}

static __device__ __forceinline__ GKScalar GKOut(const GKScalar *w, bool neg, GKScalar wi, GKScalar v)
{
  return w ? (neg ? wi - v : wi + v) : v;
}

PETSC_INTERN PetscBool GKCUDAOverlap; /* -gpukit_overlap_kernels, on a device that has it */

/* The stream every kernel, device copy and zeroing of the library goes to: CUDA's legacy default
   stream (0), except while a graph is recorded (graphbegin), when it is the recording stream */
PETSC_INTERN cudaStream_t GKCUDAStream;

static __device__ __forceinline__ void GKOverlapBegin()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

template <typename... P, typename... A>
static inline cudaError_t GKLaunchOverlapped(void (*kern)(P...), unsigned nb, A... args)
{
  cudaLaunchConfig_t  cfg = {};
  cudaLaunchAttribute at[1];

  cfg.gridDim                                      = dim3(nb);
  cfg.blockDim                                     = dim3(GK_BLOCK);
  cfg.stream                                       = GKCUDAStream;
  at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs                                        = at;
  cfg.numAttrs                                     = GKCUDAOverlap ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kern, args...);
}

#define GK_RED_BLOCKS 1024 /* partial results of a reduction, at most */
#define GK_WARPS      (GK_BLOCK / 32)

static inline unsigned GKRedBlocks(PetscInt n)
{
  return (unsigned)PetscMin((PetscInt)GKBlocks(n), (PetscInt)GK_RED_BLOCKS);
}

static __device__ __forceinline__ double GKRe(GKScalar a)
{
#if defined(PETSC_USE_COMPLEX)
  return a.real();
#else
  return a;
#endif
}

static __device__ __forceinline__ double GKIm(GKScalar a)
{
#if defined(PETSC_USE_COMPLEX)
  return a.imag();
#else
  return 0.0;
#endif
}

static __device__ __forceinline__ GKScalar GKMake(double re, double im)
{
#if defined(PETSC_USE_COMPLEX)
  return GKScalar(re, im);
#else
  (void)im;
  return re;
#endif
}

/* a load through the read-only data cache, for arrays a kernel only reads */
static __device__ __forceinline__ GKScalar GKLdg(const GKScalar *p)
{
#if defined(PETSC_USE_COMPLEX)
  const double2 d = __ldg((const double2 *)p);

  return GKScalar(d.x, d.y);
#else
  return __ldg(p);
#endif
}

/* a format's values in single precision (device.h, GKStorage), loaded as the scalar type: GKLd,
   GKLdg and GKLdcs take either */
#if defined(PETSC_USE_COMPLEX)
typedef cuda::std::complex<float>          GKSingle;
static __device__ __forceinline__ GKScalar GKLdg(const GKSingle *p)
{
  const float2 d = __ldg((const float2 *)p);

  return GKScalar(d.x, d.y);
}
static __device__ __forceinline__ GKScalar GKLdcs(const GKSingle *p)
{
  const float2 d = __ldcs((const float2 *)p);

  return GKScalar(d.x, d.y);
}
static __device__ __forceinline__ GKScalar GKLd(const GKSingle *p)
{
  const float2 d = *(const float2 *)p;

  return GKScalar(d.x, d.y);
}
#else
typedef float                              GKSingle;
static __device__ __forceinline__ GKScalar GKLdg(const GKSingle *p)
{
  return (GKScalar)__ldg(p);
}
static __device__ __forceinline__ GKScalar GKLdcs(const GKSingle *p)
{
  return (GKScalar)__ldcs(p);
}
static __device__ __forceinline__ GKScalar GKLd(const GKSingle *p)
{
  return (GKScalar)*p;
}
#endif
static __device__ __forceinline__ GKScalar GKLd(const GKScalar *p)
{
  return *p;
}

/* a load of an array read once (a matrix's values and columns in a product), marked to be evicted
   first from the caches (ld.global.cs), so that the vector the product gathers from stays in L2 */
static __device__ __forceinline__ GKScalar GKLdcs(const GKScalar *p)
{
#if defined(PETSC_USE_COMPLEX)
  const double2 d = __ldcs((const double2 *)p);

  return GKScalar(d.x, d.y);
#else
  return __ldcs(p);
#endif
}

/* row l of block j of colour c (device.h, GKSsorColor): sum_e val_e x_col(e) over its L (t = 0)
   or U (t = 1); the single-precision values where S has them */
template <int BS, class V>
static __device__ __forceinline__ GKScalar GKSsorBlockRowOf(const GKSsor &S, const GKSsorColor &c, int t, PetscInt j, int l, const GKScalar *x,
                                                            const V *val)
{
  GKScalar s = 0.0;

#pragma unroll 4
  for (PetscInt k = 0, e = c.off[t] + (PetscInt)l * c.nb + j; k < c.w[t]; k++, e += (PetscInt)BS * c.nb) s += GKLd(val + e) * x[S.pcol[t][e]];
  return s;
}

template <int BS>
static __device__ __forceinline__ GKScalar GKSsorBlockRow(const GKSsor &S, const GKSsorColor &c, int t, PetscInt j, int l, const GKScalar *x)
{
  if (S.spval[t]) return GKSsorBlockRowOf<BS>(S, c, t, j, l, x, (const GKSingle *)S.spval[t]);
  return GKSsorBlockRowOf<BS>(S, c, t, j, l, x, (const GKScalar *)S.pval[t]);
}

/* What a product reads as x: the vector itself here; the fused Krylov step (krylov.cu) reads a
   direction computed on the fly instead */
struct GKVecIn {
  const GKScalar *__restrict__ x;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const { return GKLdg(x + j); }
};

/* where slot i's entries start and their stride: column-major slices, or row by row in wide
   ones (device.h); in PetscInt, as the slice starts are (32-bit offsets keep the product loops
   to 40 registers: below) */
static __device__ __forceinline__ void GKEllrSlot(PetscInt i, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                                  const PetscInt *__restrict__ wptr, PetscInt *base, PetscInt *stride)
{
  const PetscInt s = i / h, g = wfirst[s];

  if (g >= 0) {
    *base   = wptr[g + i % h];
    *stride = 1;
  } else {
    *base   = sliceptr[s] + i % h;
    *stride = h;
  }
}

/* the column of entry e, which belongs to slot i: a 32-bit index, or with SHORT an offset from i
   (device.h); SHORT < 0: whichever E has, chosen at run time; CS: loaded as read once (GKLdcs) */
template <int SHORT, bool CS = false, class E>
static __device__ __forceinline__ PetscInt GKEllrCol(PetscInt i, const PetscInt *__restrict__ col, const short *__restrict__ dcol, E e)
{
  if constexpr (SHORT > 0) return i + (CS ? __ldcs(dcol + e) : dcol[e]);
  else if constexpr (SHORT < 0) return dcol ? GKEllrCol<1, CS>(i, col, dcol, e) : GKEllrCol<0, CS>(i, col, dcol, e);
  else return CS ? __ldcs(col + e) : col[e];
}

/* (A x)_i, row i of ELLPACK-R (Michels, Algorithm 4), sliced or not, conj(A) with CONJ: a
   warp's loads of one k are contiguous within a slice; unrolled so that several entries' loads
   are in flight at once (UNROLL entries; fewer keep fewer registers live). PLAIN: the paper's
   layout (one column-major slice, h = m), known when compiling: no slice arithmetic. SHORT: the
   columns are 16-bit offsets (1), 32-bit indices (0), or either, seen at run time (-1: the loop
   compiled for both). CS: the values and columns loaded as read once (GKLdcs). The offsets are
   PetscInt (the arrays' lengths are), and cast to 32 bits in this loop: 64-bit offsets take more
   registers, so fewer blocks fit a multiprocessor. */
template <bool CONJ, class IN, bool PLAIN = false, int UNROLL = 4, int SHORT = -1, bool CS = false, class V = GKScalar>
static __device__ __forceinline__ GKScalar GKEllrRow(PetscInt i, PetscInt h, const PetscInt *__restrict__ sliceptr,
                                                     const PetscInt *__restrict__ wfirst, const PetscInt *__restrict__ wptr,
                                                     const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                                     const short *__restrict__ dcol, const V *__restrict__ val, const IN &x)
{
  if constexpr (SHORT < 0)
    return dcol ? GKEllrRow<CONJ, IN, PLAIN, UNROLL, 1, CS, V>(i, h, sliceptr, wfirst, wptr, rl, col, dcol, val, x)
                : GKEllrRow<CONJ, IN, PLAIN, UNROLL, 0, CS, V>(i, h, sliceptr, wfirst, wptr, rl, col, dcol, val, x);
  GKScalar       s   = 0.0;
  const PetscInt len = rl[i];
  PetscInt       base, st;

  if (PLAIN) {
    base = i;
    st   = h;
  } else GKEllrSlot(i, h, sliceptr, wfirst, wptr, &base, &st);
#pragma unroll UNROLL
  for (PetscInt k = 0; k < len; k++) {
    const PetscInt e = base + k * st;
    const GKScalar a = CS ? GKLdcs(val + e) : GKLd(val + e);

    s += (CONJ ? GKConj(a) : a) * x(GKEllrCol<SHORT, CS>(i, col, dcol, e));
  }
  return s;
}

/* ELLPACK-R's row i in the paper's layout (h = m) where the longest row has NZ entries, known
   when compiling: the row's NZ values and NZ columns loaded together (all are stored, whatever
   the row's length: the padding holds the value 0 and the column 0, or with 16-bit columns the
   offset 0, the row itself), then its gathers, then the products in GKEllrRow's order.
   GKEllrRow's loop waits for the length before its first load, and for each pair of columns
   before their gathers. LEN: the length is loaded with the rest and the gathers and products
   past it are skipped, exactly GKEllrRow's sums whatever x holds. Without it the length is not
   read and a padded entry gathers x at its padding column, a valid one only where the matrix is
   square, and adds 0 times it, +-0 where that is finite: cggpu's step, whose operator is square
   on every process (gkksp.c checks). */
template <bool CONJ, int NZ, int SHORT, bool LEN, class IN, class V = GKScalar>
static __device__ __forceinline__ GKScalar GKEllrRowLoadsFirst(PetscInt i, PetscInt h, const PetscInt *__restrict__ rl,
                                                               const PetscInt *__restrict__ col, const short *__restrict__ dcol,
                                                               const V *__restrict__ val, const IN &x)
{
  GKScalar       a[NZ], v[NZ], s = 0.0;
  PetscInt       c[NZ];
  const PetscInt len = LEN ? rl[i] : NZ;

#pragma unroll
  for (int k = 0; k < NZ; k++) {
    a[k] = GKLdg(val + (size_t)i + (size_t)k * h);
    c[k] = GKEllrCol<SHORT>(i, col, dcol, (size_t)i + (size_t)k * h);
  }
#pragma unroll
  for (int k = 0; k < NZ; k++) v[k] = k < len ? x(c[k]) : GKScalar(0.0);
#pragma unroll
  for (int k = 0; k < NZ; k++)
    if (k < len) s += (CONJ ? GKConj(a[k]) : a[k]) * v[k];
  return s;
}

/* the sum over each group of S consecutive lanes (S a power of 2, at most 32; 32: the warp's), in
   every lane of the group; every lane of the warp takes part */
template <int S>
static __device__ __forceinline__ GKScalar GKGroupSum(GKScalar v)
{
  double re = GKRe(v), im = GKIm(v);

#pragma unroll
  for (int o = S / 2; o > 0; o /= 2) {
    re += __shfl_xor_sync(0xffffffffu, re, o);
    im += __shfl_xor_sync(0xffffffffu, im, o);
  }
  return GKMake(re, im);
}

/* (A x)_i, row i of DIA; ND > 0 is the number of diagonals known when compiling (the loop
   unrolled: in the product's kernel, a row a thread, all loads go out at once; inside cggpu's
   step, a loop that also stores, they did not, hence GKDiaRowLoadsFirst there), ND = 0 any number */
template <int ND, class IN, class V = GKScalar>
static __device__ __forceinline__ GKScalar GKDiaRow(PetscInt i, PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off,
                                                    const V *__restrict__ val, const IN &x)
{
  GKScalar s = 0.0;

  if (ND) {
#pragma unroll
    for (int d = 0; d < (ND ? ND : 1); d++) {
      const PetscInt j = i + off[d];

      if (j >= 0 && j < n) s += GKLd(val + (size_t)d * m + i) * x(j);
    }
  } else {
#pragma unroll 4
    for (PetscInt d = 0; d < ndiag; d++) {
      const PetscInt j = i + off[d];

      if (j >= 0 && j < n) s += GKLd(val + (size_t)d * m + i) * x(j);
    }
  }
  return s;
}

/* calls LAUNCH(ND) with the ND of GKDiaRow for ndiag diagonals */
#define GKDiaDispatch(ndiag, LAUNCH) \
  do { \
    switch (ndiag) { \
    case 3: \
      LAUNCH(3); \
      break; \
    case 5: \
      LAUNCH(5); \
      break; \
    case 7: \
      LAUNCH(7); \
      break; \
    case 9: \
      LAUNCH(9); \
      break; \
    default: \
      LAUNCH(0); \
    } \
  } while (0)

/* (A^T x)_j, or (A^H x)_j with CONJ, from DIA's own arrays: entry (j - off[d], j) of diagonal d */
template <bool CONJ, class IN, class V = GKScalar>
static __device__ __forceinline__ GKScalar GKDiaTransposeRow(PetscInt j, PetscInt m, PetscInt ndiag, const PetscInt *__restrict__ off,
                                                             const V *__restrict__ val, const IN &x)
{
  GKScalar s = 0.0;

#pragma unroll 4
  for (PetscInt d = 0; d < ndiag; d++) {
    const PetscInt i = j - off[d];

    if (i >= 0 && i < m) {
      const GKScalar a = GKLd(val + (size_t)d * m + i);

      s += (CONJ ? GKConj(a) : a) * x(i);
    }
  }
  return s;
}

/* The block's sums of K scalars (one per thread) into partial[2 (k stride + block)] as (re, im),
   stride 0 meaning gridDim.x */
template <int K>
static __device__ void GKBlockSumStore(const GKScalar *acc, double *partial, unsigned stride = 0)
{
  __shared__ double sre[K][GK_WARPS], sim[K][GK_WARPS];
  const int         lane = threadIdx.x % 32, warp = threadIdx.x / 32;

#pragma unroll
  for (int k = 0; k < K; k++) {
    double re = GKRe(acc[k]), im = GKIm(acc[k]);

    for (int o = 16; o > 0; o /= 2) {
      re += __shfl_down_sync(0xffffffffu, re, o);
      im += __shfl_down_sync(0xffffffffu, im, o);
    }
    if (!lane) {
      sre[k][warp] = re;
      sim[k][warp] = im;
    }
  }
  __syncthreads();
  if (!warp) {
#pragma unroll
    for (int k = 0; k < K; k++) {
      double re = lane < GK_WARPS ? sre[k][lane] : 0.0, im = lane < GK_WARPS ? sim[k][lane] : 0.0;

      for (int o = 16; o > 0; o /= 2) {
        re += __shfl_down_sync(0xffffffffu, re, o);
        im += __shfl_down_sync(0xffffffffu, im, o);
      }
      if (!lane) {
        partial[2 * (k * (stride ? stride : gridDim.x) + blockIdx.x)]     = re;
        partial[2 * (k * (stride ? stride : gridDim.x) + blockIdx.x) + 1] = im;
      }
    }
  }
}

PETSC_INTERN PetscErrorCode GKCUDAEllrMult(const GKEllr *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                                           PetscScalar *y);
PETSC_INTERN PetscErrorCode GKCUDAEllrGetDiagonal(const GKEllr *A, PetscScalar *diag);
PETSC_INTERN PetscErrorCode GKCUDADiaMult(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y);
PETSC_INTERN PetscErrorCode GKCUDADiaMultTranspose(const GKDia *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                                                   PetscScalar *y);
PETSC_INTERN PetscErrorCode GKCUDADiaGetDiagonal(const GKDia *A, PetscScalar *diag);
PETSC_INTERN PetscErrorCode GKCUDAEllrShortFits(const GKEllr *E, const PetscInt *ai, const PetscInt *aj, PetscBool *fits);
PETSC_INTERN PetscErrorCode GKCUDACheckCols(PetscInt nnz, PetscInt n, const PetscInt *aj, PetscBool *ok);
PETSC_INTERN PetscErrorCode GKCUDACsrSorted(PetscInt m, const PetscInt *ai, const PetscInt *aj, PetscBool *sorted);
PETSC_INTERN PetscErrorCode GKCUDAEllrFill(GKEllr *E, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool valuesonly);
PETSC_INTERN PetscErrorCode GKCUDADiaOffsets(PetscInt m, const PetscInt *ai, const PetscInt *aj, char *flag);
PETSC_INTERN PetscErrorCode GKCUDADiaFill(GKDia *D, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa);
PETSC_INTERN PetscErrorCode GKCUDACooScatter(PetscInt nnz, const PetscCount *jmap, const PetscCount *perm, const PetscScalar *v, PetscBool add,
                                             PetscScalar *a);
PETSC_INTERN PetscErrorCode GKCUDASsorRows(const GKSsor *S, GKSsorStep step, PetscInt nrows, const PetscInt *rows, PetscReal omega,
                                           const PetscScalar *b, const PetscScalar *xin, PetscScalar *xout);
PETSC_INTERN PetscErrorCode GKCUDASsorBlocks(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b,
                                             const PetscScalar *xin, PetscScalar *xout);
PETSC_INTERN PetscErrorCode GKCUDAEllrSor(const GKEllr *A, PetscInt nrows, const PetscInt *slots, const PetscInt *key, PetscBool upper,
                                          const PetscScalar *d, PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y);
PETSC_INTERN PetscErrorCode GKCUDADiaSor(const GKDia *A, PetscInt nrows, const PetscInt *rows, const PetscInt *key, PetscBool upper,
                                         const PetscScalar *d, PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y);
PETSC_INTERN PetscErrorCode GKCUDAAxpbypczd(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar,
                                            PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAMaxpy(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *const *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDASwap(PetscInt, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAPointwise(PetscInt, GKPointwiseOp, PetscScalar *, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAReciprocal(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDANoisy(PetscInt, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAConjugate(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAAbs(PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAArnoldi(PetscInt, PetscInt, const PetscScalar *const *, PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDADots(PetscInt, const PetscScalar *, PetscInt, const PetscScalar *const *, PetscBool, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDADotNorm2(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDANorms(PetscInt, const PetscScalar *, int, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDASum(PetscInt, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDARemoveConstant(PetscInt, PetscInt, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAExtreme(PetscInt, const PetscScalar *, GKExtremeOp, PetscInt *, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDAFirstZero(PetscInt, const PetscScalar *, PetscInt *);
PETSC_INTERN PetscErrorCode GKCUDAFinalize(void);
PETSC_INTERN PetscErrorCode GKCUDASpGEMM(const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKCUDASpGEMMFinalize(void);
PETSC_INTERN void           GKCUDASpGEMMPreload(void);
PETSC_INTERN PetscErrorCode GKCUDASpGEMMSettle(void);
PETSC_INTERN PetscErrorCode GKCUDASpGEMMNumeric(void **, const GKCsr *, const GKCsr *, const GKCsr *, GKCsr *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKCUDASpGEMMPlanFree(void **);
PETSC_INTERN PetscErrorCode GKCUDACsrTranspose(const GKCsr *, GKCsr *, PetscBool *);
PETSC_INTERN PetscErrorCode GKCUDAGreedyColor(PetscInt, const PetscInt *, const PetscInt *, PetscInt *, PetscInt *, PetscBool *);
PETSC_INTERN PetscErrorCode GKCUDAGroupRows(PetscInt, const PetscInt *, PetscInt, PetscBool, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GKCUDARowStarts(PetscInt, PetscInt *, PetscInt *);
PETSC_INTERN PetscErrorCode GKCUDAStrength(const GKCsr *, const GKStrengthHalo *, PetscBool, PetscReal, GKCsr *, PetscBool *);
/* the halo's exchange of a device array's ghost entries (coarsen.cu), with its buffers for units
   of up to 8 bytes */
typedef struct {
  const GKAggHalo *h;
  void            *dbuf, *hsend, *hrecv;
} GKAggExch;
PETSC_INTERN PetscErrorCode GKCUDAAggExchangeCreate(const GKAggHalo *, GKAggExch *);
PETSC_INTERN PetscErrorCode GKCUDAAggExchange(const GKAggExch *, PetscInt, size_t, void *);
PETSC_INTERN PetscErrorCode GKCUDAAggExchangeDestroy(GKAggExch *);
PETSC_INTERN PetscErrorCode GKCUDAAggregate(PetscInt, const PetscInt *, const PetscInt *, PetscInt, const GKAggHalo *, PetscInt *, PetscInt *,
                                            PetscInt *);
PETSC_INTERN PetscErrorCode GKCUDATentative(PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *, PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDASmooth(const GKCsr *, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);
PETSC_INTERN PetscErrorCode GKCUDACollapse(const GKCsr *, PetscInt, GKCsr *);
PETSC_INTERN PetscErrorCode GKCUDATentativeBlock(PetscInt, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *, PetscScalar *,
                                                 PetscReal *);
PETSC_INTERN PetscErrorCode GKCUDASmoothBlock(const GKCsr *, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, PetscInt, PetscReal, GKCsr *);

/* DMDA's Q1 interpolation (interp.cu) */
PETSC_INTERN PetscErrorCode GKCUDAQ1Interp(const GKQ1Grid *, GKCsr *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovCreate(PetscInt, GKKrylovMethod, GKKrylovNorm, PetscBool, GKKrylov *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovDestroy(GKKrylov *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovStep(GKKrylov, PetscInt, PetscScalar, PetscBool, const GKOperator *, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovUpdate(GKKrylov, PetscInt, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovSsor(GKKrylov, PetscInt, PetscScalar, const GKSsorSweep *, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovUpdateBlocks(GKKrylov, PetscInt, const GKSsor *, PetscReal, const PetscScalar *, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovDpi(GKKrylov, const PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovStateBegin(GKKrylov);
PETSC_INTERN PetscErrorCode GKCUDAKrylovStateEnd(GKKrylov, GKKrylovState *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovGather(GKKrylov, PetscInt, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *,
                                               PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovGatherWait(GKKrylov);
PETSC_INTERN PetscErrorCode GKCUDAKrylovOffDiag(GKKrylov, const GKEllr *, PetscInt, const PetscInt *, const PetscScalar *, const PetscScalar *,
                                                PetscScalar *, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovGetSums(GKKrylov, PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovSetSums(GKKrylov, const PetscScalar *);
PETSC_INTERN PetscErrorCode GKCUDAPeersCreate(GKPeers *, char *);
PETSC_INTERN PetscErrorCode GKCUDAPeersOpen(GKPeers, int, int, const char *, PetscBool *, char *, size_t);
PETSC_INTERN PetscErrorCode GKCUDAPeersDestroy(GKPeers *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovSetPeers(GKKrylov, GKPeers, PetscInt, PetscBool);
PETSC_INTERN PetscErrorCode GKCUDAPeersGhosts(GKPeers, PetscInt, char *);
PETSC_INTERN PetscErrorCode GKCUDAPeersHalo(GKPeers, const char *, PetscInt, const PetscMPIInt *, const PetscInt *, const PetscInt *, PetscBool *,
                                            char *, size_t);

static inline GKScalar GKToDevice(PetscScalar a)
{
  GKScalar r;

  memcpy((void *)&r, (const void *)&a, sizeof(r));
  return r;
}

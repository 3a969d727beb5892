/*
   ELLPACK-R's products on the device (device.h: ellrmult, ellrgetdiagonal): a thread a row down the
   column-major slices, S lanes a row of a slice of one row, a warp a wide row, and the sorted
   layout's windowed product. Their twins are in host/ellr.c.
*/
#include "cudaimpl.h"

/* y_i = (A x)_i (or w_i +- it: GKOut) for the wide slot s = wide[g], i its row, by the 32 lanes of a warp,
   its entries contiguous from wptr[g]: four entries a lane at a time, their values and columns
   loaded before their gathers, then one at a time */
template <bool CONJ, bool SHORT, class V>
static __device__ __forceinline__ void GKEllrWideSlot(PetscInt g, int lane, const PetscInt *__restrict__ wide, const PetscInt *__restrict__ wptr,
                                                      const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                                      const short *__restrict__ dcol, const V *__restrict__ val, const PetscInt *__restrict__ perm,
                                                      const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt s = wide[g], i = perm ? perm[s] : s, len = rl[s];
  const PetscInt base = wptr[g];
  const GKScalar wi   = lane ? GKScalar(0.0) : GKOutLoad(w, i);
  PetscInt       k    = lane;
  GKScalar       v    = 0.0;

  for (; k + 96 < len; k += 128) {
    GKScalar a[4], xv[4];
    PetscInt c[4];

#pragma unroll
    for (int u = 0; u < 4; u++) {
      a[u] = GKLdcs(val + base + k + 32 * u);
      c[u] = GKEllrCol<SHORT, true>(s, col, dcol, base + k + 32 * u);
    }
#pragma unroll
    for (int u = 0; u < 4; u++) xv[u] = x[c[u]];
#pragma unroll
    for (int u = 0; u < 4; u++) v += (CONJ ? GKConj(a[u]) : a[u]) * xv[u];
  }
  for (; k < len; k += 32) {
    const GKScalar a = GKLdcs(val + base + k);

    v += (CONJ ? GKConj(a) : a) * x[GKEllrCol<SHORT, true>(s, col, dcol, base + k)];
  }
  v = GKGroupSum<32>(v);
  if (!lane) y[i] = GKOut(w, neg, wi, v);
}

/* y = A x (or w +- A x), one thread per row, reading its row down the columns of the column-major
   arrays, so that a warp's loads of one k are contiguous (Michels, Algorithm 4); the slots of
   wide slices a warp each, in the first nbwide blocks, so that the long rows start first. NZ > 0:
   the paper's layout with rows of at most NZ entries, every load of a row first
   (GKEllrRowLoadsFirst, the length among them). Not PLAIN, the values and columns are loaded as
   read once (GKLdcs), so that x stays in L2 while they stream through. Launched overlapped
   (GKLaunchOverlapped), as the DIA products and the Krylov methods' kernels are: in a run of
   products each is scheduled while the one before it ends, and waits on the GPU for it. */
template <bool CONJ, bool PLAIN, bool SHORT, int NZ, class V>
__global__ void GKEllrMultKernel(PetscInt m, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                 const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                 const short *__restrict__ dcol, const V *__restrict__ val, const PetscInt *__restrict__ perm, unsigned nbwide,
                                 PetscInt nwide, const PetscInt *__restrict__ wide, const GKScalar *__restrict__ x, const GKScalar *w, bool neg,
                                 GKScalar *__restrict__ y)
{
  GKOverlapBegin();
  if (PLAIN || blockIdx.x >= nbwide) { /* a thread per slot, the wide slices left to the warps */
    const PetscInt s = (PetscInt)(blockIdx.x - (PLAIN ? 0 : nbwide)) * blockDim.x + threadIdx.x;

    if (s < m && (PLAIN || wfirst[s / h] < 0)) {
      const PetscInt i  = !PLAIN && perm ? perm[s] : s;
      const GKScalar wi = GKOutLoad(w, i);
      GKScalar       v;

      if constexpr (PLAIN && NZ > 0) v = GKEllrRowLoadsFirst<CONJ, NZ, SHORT, true>(s, h, rl, col, dcol, val, GKVecIn{x});
      else v = GKEllrRow<CONJ, GKVecIn, PLAIN, 4, SHORT, !PLAIN>(s, h, sliceptr, wfirst, wptr, rl, col, dcol, val, GKVecIn{x});
      y[i] = GKOut(w, neg, wi, v);
    }
  } else { /* a warp per slot of a wide slice */
    const PetscInt g = ((PetscInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;

    if (g < nwide) GKEllrWideSlot<CONJ, SHORT, V>(g, threadIdx.x % 32, wide, wptr, rl, col, dcol, val, perm, x, w, neg, y);
  }
}

/* y = A x (or w +- A x) with one row a slice, not sorted (device.h): S lanes a row, which read its
   entries contiguously from sliceptr[i] and gather x at the row's consecutive columns together,
   in rounds of GK_ELLR_ROUND entries a lane: every value and column of a round loaded (those
   past the row's end skipped) before its gathers, so that a row of up to S * GK_ELLR_ROUND
   entries waits for memory twice, not once for every four entries and once for each one after;
   GKGroupSum adds the lanes' parts. Launched overlapped, as GKEllrMultKernel. */
#if defined(PETSC_USE_COMPLEX)
  #define GK_ELLR_ROUND 4
#else
  #define GK_ELLR_ROUND 8
#endif
template <bool CONJ, bool SHORT, int S, class V>
__global__ void GKEllrMultRowsKernel(PetscInt m, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ col,
                                     const short *__restrict__ dcol, const V *__restrict__ val, const GKScalar *__restrict__ x, const GKScalar *w,
                                     bool neg, GKScalar *__restrict__ y)
{
  const PetscInt i    = (PetscInt)(((PetscInt64)blockIdx.x * blockDim.x + threadIdx.x) / S);
  const int      lane = threadIdx.x % S;
  GKScalar       v    = 0.0;

  GKOverlapBegin();
  if (i < m) {
    const PetscInt e = sliceptr[i + 1];

    for (PetscInt k = sliceptr[i] + lane; k < e; k += S * GK_ELLR_ROUND) {
      GKScalar a[GK_ELLR_ROUND], xv[GK_ELLR_ROUND];
      PetscInt c[GK_ELLR_ROUND];

#pragma unroll
      for (int u = 0; u < GK_ELLR_ROUND; u++) {
        const PetscInt kk = k + S * u;

        a[u] = kk < e ? GKLdcs(val + kk) : GKScalar(0.0);
        c[u] = kk < e ? GKEllrCol<SHORT, true>(i, col, dcol, kk) : -1;
      }
#pragma unroll
      for (int u = 0; u < GK_ELLR_ROUND; u++) xv[u] = c[u] >= 0 ? GKLdg(x + c[u]) : GKScalar(0.0);
#pragma unroll
      for (int u = 0; u < GK_ELLR_ROUND; u++) v += (CONJ ? GKConj(a[u]) : a[u]) * xv[u];
    }
  }
  v = GKGroupSum<S>(v);
  /* w read here: read before the loads, it kept registers through them and slowed the plain
     products */
  if (i < m && !lane) y[i] = GKOut(w, neg, GKOutLoad(w, i), v);
}

/* x read through a window of it in shared memory: x[j] from xs for j in [j0, j0 + nx) */
struct GKWindowIn {
  const GKScalar *__restrict__ x;
  const GKScalar                     *xs;
  PetscInt                            j0;
  unsigned                            nx;
  __device__ __forceinline__ GKScalar operator()(PetscInt j) const
  {
    const unsigned d = (unsigned)(j - j0);

    return d < nx ? xs[d] : GKLdg(x + j);
  }
};

/* The sorted product (SELL-C-sigma) where the sort window divides GK_ELLR_WINDOW: each block of
   GK_BLOCK threads owns the GK_ELLR_WINDOW slots of a window of as many rows, and so all of
   their rows. It reads x's entries at those rows' own columns into shared memory, contiguously,
   where its rows' gathers at those columns (the diagonal, nearby columns) then find them; and it
   stages the rows' y there, to write them in row order instead of one scattered 8-byte store a
   row. The slots of wide slices are left to warps in the first nbwide blocks, as in
   GKEllrMultKernel. The block's warps take its slots 32 at a time from a counter in shared
   memory, longest first (the window's order), rather than every GK_BLOCK-th slot each: the warps
   then end together at the barrier before the write of y, where warps with the longest rows
   would keep the others waiting. */
#define GK_ELLR_WINDOW 1024
template <bool CONJ, bool SHORT, class V>
__global__ void __launch_bounds__(GK_BLOCK)
  GKEllrMultWindowKernel(PetscInt m, PetscInt n, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                         const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                         const short *__restrict__ dcol, const V *__restrict__ val, const PetscInt *__restrict__ perm, unsigned nbwide,
                         PetscInt nwide, const PetscInt *__restrict__ wide, const GKScalar *__restrict__ x, const GKScalar *w, bool neg,
                         GKScalar *__restrict__ y)
{
  __shared__ GKScalar      xs[GK_ELLR_WINDOW], ys[GK_ELLR_WINDOW];
  __shared__ unsigned char own[GK_ELLR_WINDOW]; /* whether this block computed row w0 + t */
  __shared__ int           next;                /* the next 32 slots a warp takes */

  GKOverlapBegin();

  if (blockIdx.x >= nbwide) {
    const PetscInt w0 = (PetscInt)(blockIdx.x - nbwide) * GK_ELLR_WINDOW;
    const unsigned nx = (unsigned)PetscMax((PetscInt)0, PetscMin((PetscInt)GK_ELLR_WINDOW, n - w0));

#pragma unroll
    for (int j = 0; j < GK_ELLR_WINDOW / GK_BLOCK; j++) {
      const unsigned t = threadIdx.x + GK_BLOCK * j;

      if (t < nx) xs[t] = GKLdg(x + w0 + t);
      own[t] = 0;
    }
    if (!threadIdx.x) next = 0;
    __syncthreads();
    for (;;) {
      int u = 0;

      if (threadIdx.x % 32 == 0) u = atomicAdd(&next, 1);
      u = __shfl_sync(0xffffffffu, u, 0);
      if (u >= GK_ELLR_WINDOW / 32) break;
      const PetscInt s = w0 + 32 * u + threadIdx.x % 32;

      if (s < m && wfirst[s / h] < 0) {
        const PetscInt i = perm[s] - w0;

        ys[i]  = GKEllrRow<CONJ, GKWindowIn, false, 4, SHORT, true>(s, h, sliceptr, wfirst, wptr, rl, col, dcol, val, GKWindowIn{x, xs, w0, nx});
        own[i] = 1;
      }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < GK_ELLR_WINDOW / GK_BLOCK; j++) {
      const unsigned t = threadIdx.x + GK_BLOCK * j;

      if (own[t]) y[w0 + t] = GKOut(w, neg, GKOutLoad(w, w0 + t), ys[t]); /* the block's loads of w together, once */
    }
  } else {
    const PetscInt g = ((PetscInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;

    if (g < nwide) GKEllrWideSlot<CONJ, SHORT, V>(g, threadIdx.x % 32, wide, wptr, rl, col, dcol, val, perm, x, w, neg, y);
  }
}

/* the products' launches, on values of type V (the scalar type, or GKSingle: device.h, GKStorage) */
template <class V>
static PetscErrorCode GKCUDAEllrMultValues(const GKEllr *A, const V *val, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                                           PetscScalar *y)
{
  const unsigned  nb = GKBlocks(A->m), nbw = GKBlocks(32 * A->nwide);
  const PetscBool plain = A->h == A->m && !A->perm && !A->nwide ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  if (A->lanes) { /* one row a slice: a group of lanes a row */
    const unsigned nbr = (unsigned)(((PetscInt64)A->m * A->lanes + GK_BLOCK - 1) / GK_BLOCK);

#define GK_ELLR_MULT_ROWS(CONJ, SHORT, S) \
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultRowsKernel<CONJ, SHORT, S, V>, nbr, A->m, A->sliceptr, A->col, A->dcol, val, (const GKScalar *)x, \
                                (const GKScalar *)w, (bool)neg, (GKScalar *)y))
#define GK_ELLR_MULT_LANES(CONJ, SHORT) \
  do { \
    switch (A->lanes) { \
    case 4: \
      GK_ELLR_MULT_ROWS(CONJ, SHORT, 4); \
      break; \
    case 8: \
      GK_ELLR_MULT_ROWS(CONJ, SHORT, 8); \
      break; \
    case 16: \
      GK_ELLR_MULT_ROWS(CONJ, SHORT, 16); \
      break; \
    default: \
      GK_ELLR_MULT_ROWS(CONJ, SHORT, 32); \
    } \
  } while (0)
    if (conj && A->dcol) GK_ELLR_MULT_LANES(true, true);
    else if (conj) GK_ELLR_MULT_LANES(true, false);
    else if (A->dcol) GK_ELLR_MULT_LANES(false, true);
    else GK_ELLR_MULT_LANES(false, false);
#undef GK_ELLR_MULT_LANES
#undef GK_ELLR_MULT_ROWS
    GKCheckLaunch();
    PetscFunctionReturn(0);
  }
  if (A->perm && A->sigma > 1 && GK_ELLR_WINDOW % A->sigma == 0) { /* sort windows within a block's window */
    const unsigned nbwin = (unsigned)((A->m + GK_ELLR_WINDOW - 1) / GK_ELLR_WINDOW);

#define GK_ELLR_MULT_WINDOW(CONJ, SHORT) \
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultWindowKernel<CONJ, SHORT, V>, nbwin + nbw, A->m, A->n, A->h, A->sliceptr, A->wfirst, A->wptr, A->rl, \
                                A->col, A->dcol, val, A->perm, nbw, A->nwide, A->wide, (const GKScalar *)x, (const GKScalar *)w, (bool)neg, \
                                (GKScalar *)y))
    if (conj && A->dcol) GK_ELLR_MULT_WINDOW(true, true);
    else if (conj) GK_ELLR_MULT_WINDOW(true, false);
    else if (A->dcol) GK_ELLR_MULT_WINDOW(false, true);
    else GK_ELLR_MULT_WINDOW(false, false);
#undef GK_ELLR_MULT_WINDOW
    GKCheckLaunch();
    PetscFunctionReturn(0);
  }
  /* the paper's layout (plain: no slices, permutation or wide rows) or not, conjugated or not,
     16-bit or 32-bit columns */
#define GK_ELLR_MULT(CONJ, PLAIN, SHORT, NZ) \
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultKernel<CONJ, PLAIN, SHORT, NZ, V>, PLAIN ? nb : nb + nbw, A->m, A->h, A->sliceptr, A->wfirst, A->wptr, \
                                A->rl, A->col, A->dcol, val, A->perm, nbw, A->nwide, A->wide, (const GKScalar *)x, (const GKScalar *)w, (bool)neg, \
                                (GKScalar *)y))
#define GK_ELLR_MULT_NZ(CONJ, SHORT) \
  do { \
    switch (A->nz) { \
    case 5: \
      GK_ELLR_MULT(CONJ, true, SHORT, 5); \
      break; \
    case 7: \
      GK_ELLR_MULT(CONJ, true, SHORT, 7); \
      break; \
    case 9: \
      GK_ELLR_MULT(CONJ, true, SHORT, 9); \
      break; \
    default: \
      GK_ELLR_MULT(CONJ, true, SHORT, 0); \
    } \
  } while (0)
#define GK_ELLR_MULT_SHORT(CONJ, PLAIN) \
  do { \
    if (PLAIN && A->dcol) GK_ELLR_MULT_NZ(CONJ, true); \
    else if (PLAIN) GK_ELLR_MULT_NZ(CONJ, false); \
    else if (A->dcol) GK_ELLR_MULT(CONJ, false, true, 0); \
    else GK_ELLR_MULT(CONJ, false, false, 0); \
  } while (0)
  if (plain) {
    if (conj) GK_ELLR_MULT_SHORT(true, true);
    else GK_ELLR_MULT_SHORT(false, true);
  } else {
    if (conj) GK_ELLR_MULT_SHORT(true, false);
    else GK_ELLR_MULT_SHORT(false, false);
  }
#undef GK_ELLR_MULT_SHORT
#undef GK_ELLR_MULT_NZ
#undef GK_ELLR_MULT
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAEllrMult(const GKEllr *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (A->sval) PetscCall(GKCUDAEllrMultValues(A, (const GKSingle *)A->sval, conj, x, w, neg, y));
  else PetscCall(GKCUDAEllrMultValues(A, (const GKScalar *)A->val, conj, x, w, neg, y));
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): thread i scans its own row for column i */
__global__ void GKEllrGetDiagonalKernel(PetscInt m, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                        const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                        const short *__restrict__ dcol, const GKScalar *__restrict__ val, const PetscInt *__restrict__ perm,
                                        GKScalar *__restrict__ diag)
{
  GKOverlapBegin();

  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; /* the slot */

  if (t < m) {
    const PetscInt i = perm ? perm[t] : t;
    GKScalar       s = 0.0;
    PetscInt       base, st;

    GKEllrSlot(t, h, sliceptr, wfirst, wptr, &base, &st);
    for (PetscInt k = 0; k < rl[t]; k++)
      if (GKEllrCol<-1>(t, col, dcol, base + k * st) == i) s += val[base + k * st];
    diag[i] = s;
  }
}

PetscErrorCode GKCUDAEllrGetDiagonal(const GKEllr *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKEllrGetDiagonalKernel, GKBlocks(A->m), A->m, A->h, A->sliceptr, A->wfirst, A->wptr, A->rl, A->col, A->dcol,
                                (const GKScalar *)A->val, A->perm, (GKScalar *)diag));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

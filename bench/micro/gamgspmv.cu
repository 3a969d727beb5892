/*
   Microbenchmark behind docs/performance.md (the V-cycle): the products of GAMG's coarse
   operators, which kept the GAMG V-cycles above 1.5x of their rooflines. PETSc (on the host,
   AIJ) sets up GAMG on the Poisson operators of `bench -mode vcycle` (2D 2049^2, 3D 129^3);
   each level's operator of 10000 rows or more is then multiplied on the GPU, y = A x, from
   CSR arrays, by
     vecS:     a group of S lanes a row (S = 4, 8, 16, 32), its entries read contiguously
     pSxU:     S lanes a row, U entries a lane a round, every load of a round before its
               gathers, 16-bit column offsets (the library's GKEllrMultRowsKernel)
     vSxU:     S lanes a row, two entries a load, U pairs a lane a round, the rows padded to
               even lengths; "chunk": a block a run of rows, the grid filling the GPU once; each
               row's end from its length (rl), from bit 0 of the next row's start (bit), or the
               padded end (padend: the padding multiplied too). Not in the library: its V-cycles
               are no faster
     stream:   rows in blocks of at most 2048 entries (a row longer than that alone in a
               block): the block's entries' products, read contiguously, into shared memory,
               then each row's sum by a group of lanes (Greathouse and Daga's CSR-stream)
     cusparse: cuSPARSE's CSR SpMV, its algorithms 1 and 2
     library:  the library's MatMult on the matrix converted to ellrcuda (its automatic layout:
               one row a slice, a group of lanes a row, since 2026-11-28: pSx8 with S from
               the average length)
     before:   the same with the automatic layout of the sessions before (slices of 32 rows
               sorted within windows of 1024 from 65536 rows on, else the paper's single slice)
   each the mean of 200 products (-reps) after one, against bytes / B (B: a device copy's bandwidth in
   the same run), and checked against cuSPARSE's y.
   Build here, run on the GPU machine with the packed PETSc runtime:
     nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -I$PETSC_DIR/include \
       $(mpicc --showme:compile) -Iinclude -o gamgspmv bench/micro/gamgspmv.cu \
       -L$PETSC_DIR/lib -lpetsc -Lbuild/3.18-real/lib -lpetscgpukit -lcusparse $(mpicc --showme:link)
     LD_LIBRARY_PATH=build/3.18-real/lib bash .gpu318/run ./gamgspmv [-dim_min 3]
*/
#include <petscksp.h>
#include <petscdmda.h>
#include <petscgpukit.h>
#include "../poisson.h"
#include <cuda_runtime.h>
#include <cusparse.h>

#define CK(c) \
  do { \
    cudaError_t e_ = (c); \
    if (e_ != cudaSuccess) { \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1); \
    } \
  } while (0)
#define CS(c) \
  do { \
    cusparseStatus_t s_ = (c); \
    if (s_ != CUSPARSE_STATUS_SUCCESS) { \
      fprintf(stderr, "%s:%d cusparse %d\n", __FILE__, __LINE__, (int)s_); \
      exit(1); \
    } \
  } while (0)

template <int S>
__global__ void VecS(int m, const int *__restrict__ rp, const int *__restrict__ ci, const double *__restrict__ v, const double *__restrict__ x,
                     double *__restrict__ y)
{
  const long t   = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const int  row = (int)(t / S), lane = (int)(t % S);
  double     s    = 0;
  const bool live = row < m;
  if (live) {
    const int b = rp[row], e = rp[row + 1];
    int       k = b + lane;
    for (; k + 3 * S < e; k += 4 * S) {
      int    c[4];
      double a[4];
#pragma unroll
      for (int u = 0; u < 4; u++) {
        c[u] = __ldcs(ci + k + u * S);
        a[u] = __ldcs(v + k + u * S);
      }
#pragma unroll
      for (int u = 0; u < 4; u++) s += a[u] * __ldg(x + c[u]);
    }
    for (; k < e; k += S) s += __ldcs(v + k) * __ldg(x + __ldcs(ci + k));
  }
#pragma unroll
  for (int o = S / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (live && !lane) y[row] = s;
}

/* S lanes a row, U entries a lane a round, every load of a round issued before its gathers
   (predicated on the row's end, no remainder loop); SHORT: 16-bit column offsets from the row */
template <int S, int U, bool SHORT>
__global__ void VecP(int m, const int *__restrict__ rp, const int *__restrict__ ci, const short *__restrict__ dc, const double *__restrict__ v,
                     const double *__restrict__ x, double *__restrict__ y)
{
  const long t   = (long)blockIdx.x * blockDim.x + threadIdx.x;
  const int  row = (int)(t / S), lane = (int)(t % S);
  double     s    = 0;
  const bool live = row < m;
  if (live) {
    const int b = rp[row], e = rp[row + 1];
    for (int k = b + lane; k < e; k += U * S) {
      double a[U], xv[U];
      int    c[U];
#pragma unroll
      for (int u = 0; u < U; u++) {
        const int kk = k + u * S;
        a[u]         = kk < e ? __ldcs(v + kk) : 0.0;
        c[u]         = kk < e ? (SHORT ? row + __ldcs(dc + kk) : __ldcs(ci + kk)) : -1;
      }
#pragma unroll
      for (int u = 0; u < U; u++) xv[u] = c[u] >= 0 ? __ldg(x + c[u]) : 0.0;
#pragma unroll
      for (int u = 0; u < U; u++) s += a[u] * xv[u];
    }
  }
#pragma unroll
  for (int o = S / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (live && !lane) y[row] = s;
}

/* paired loads: every row padded to an even length (value 0, offset 0; rp even, rl the rows' own
   lengths), S lanes a row, each taking two consecutive entries at a time (one 16-byte load of
   values, one 4-byte load of offsets), U such pairs a lane a round. CH: a block a contiguous
   chunk of rows, 256 / S at a time, the grid filling the GPU once. END: where a row ends (the
   header's rl, bit, padend) */
template <int S, int U, bool CH, int END>
__global__ void __launch_bounds__(256) VecV(int m, int chunk, const int *__restrict__ rp, const int *__restrict__ rl, const short *__restrict__ dc,
                                            const double *__restrict__ v, const double *__restrict__ x, double *__restrict__ y)
{
  const int lane = threadIdx.x % S;
  const int r0 = CH ? blockIdx.x * chunk : blockIdx.x * (256 / S), r1 = CH ? min(m, r0 + chunk) : min(m, r0 + 256 / S);
  for (int base = r0; base < r1; base += 256 / S) {
    const int  row  = base + threadIdx.x / S;
    const bool live = row < r1;
    double     s    = 0;
    if (live) {
      int b, e;
      if (END == 0) { /* the row's own length from rl */
        b = rp[row];
        e = b + rl[row];
      } else if (END == 1) { /* rp's bit 0: the row before padded */
        b = rp[row] & ~1;
        e = (rp[row + 1] & ~1) - (rp[row + 1] & 1);
      } else { /* the padded end: the padding (value 0, offset 0) multiplied too */
        b = rp[row];
        e = rp[row + 1];
      }
      for (int k = b + 2 * lane; k < e; k += 2 * U * S) {
        double2 a[U];
        int     d[U];
        double  x0[U], x1[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
          const int kk = k + 2 * u * S;
          a[u]         = kk < e ? __ldcs((const double2 *)(v + kk)) : make_double2(0.0, 0.0);
          d[u]         = kk < e ? __ldcs((const int *)(dc + kk)) : 0;
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          const int kk = k + 2 * u * S;
          x0[u]        = kk < e ? __ldg(x + row + (short)(d[u] & 0xffff)) : 0.0;
          x1[u]        = kk + 1 < e ? __ldg(x + row + (short)(d[u] >> 16)) : 0.0;
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          const int kk = k + 2 * u * S;
          if (kk < e) s += a[u].x * x0[u];
          if (kk + 1 < e) s += a[u].y * x1[u];
        }
      }
    }
#pragma unroll
    for (int o = S / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (live && !lane) y[row] = s;
  }
}

#define STREAM_NB  256
#define STREAM_CAP 2048
__global__ void __launch_bounds__(STREAM_NB) Stream(const int *__restrict__ blk, const int *__restrict__ rp, const int *__restrict__ ci,
                                                    const double *__restrict__ v, const double *__restrict__ x, double *__restrict__ y)
{
  __shared__ double p[STREAM_CAP];
  __shared__ double ws[STREAM_NB / 32];
  const int         r0 = blk[blockIdx.x], r1 = blk[blockIdx.x + 1];
  const int         k0 = rp[r0], k1 = rp[r1];

  if (r1 - r0 == 1 && k1 - k0 > STREAM_CAP) { /* one long row: the block's sum */
    double s = 0;
    for (int k = k0 + threadIdx.x; k < k1; k += STREAM_NB) s += __ldcs(v + k) * __ldg(x + __ldcs(ci + k));
    for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (threadIdx.x % 32 == 0) ws[threadIdx.x / 32] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
      double t = 0;
      for (int w = 0; w < STREAM_NB / 32; w++) t += ws[w];
      y[r0] = t;
    }
    return;
  }
  for (int k = k0 + threadIdx.x; k < k1; k += STREAM_NB) p[k - k0] = __ldcs(v + k) * __ldg(x + __ldcs(ci + k));
  __syncthreads();
  const int nr = r1 - r0;
  int       T  = 32; /* lanes a row: the most that give every row a group */
  while (T > 1 && nr * T > STREAM_NB) T /= 2;
  { /* a block holds at most STREAM_NB rows, so one pass gives each its group */
    const int r = threadIdx.x / T, lane = threadIdx.x % T;
    double    s = 0;
    if (r < nr) {
      const int b = rp[r0 + r] - k0, e = rp[r0 + r + 1] - k0;
      for (int k = b + lane; k < e; k += T) s += p[k];
    }
    for (int o = T / 2; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (r < nr && !lane) y[r0 + r] = s;
  }
}

static double Time(cudaEvent_t e0, cudaEvent_t e1, int reps)
{
  float ms;
  CK(cudaEventSynchronize(e1));
  CK(cudaEventElapsedTime(&ms, e0, e1));
  return 1e3 * ms / reps;
}

static double MaxDiff(int m, const double *dy, const double *ref)
{
  double *h = (double *)malloc(sizeof(double) * m), d = 0, n = 0;
  CK(cudaMemcpy(h, dy, sizeof(double) * m, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; i++) {
    d = fmax(d, fabs(h[i] - ref[i]));
    n = fmax(n, fabs(ref[i]));
  }
  free(h);
  return d / n;
}

static PetscInt g_reps = 200, g_dim0 = 2; /* -reps, -dim_min */

static PetscErrorCode RunLevel(const char *name, Mat A, double B)
{
  const PetscInt    *ai, *aj;
  const PetscScalar *aa;
  PetscInt           m, n;
  PetscBool          done;
  const PetscInt     reps = g_reps;
  cudaEvent_t        e0, e1;
  int               *drp, *dci, *dblk;
  double            *dv, *dx, *dy, *ref, *hx;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  const int nnz     = ai[m];
  int       longest = 0;
  for (int i = 0; i < m; i++) longest = PetscMax(longest, ai[i + 1] - ai[i]);
  const double bytes = 12.0 * nnz + 4.0 * (m + 1) + 16.0 * m;
  printf("%s: %d rows, %d entries (%.1f a row, longest %d), CSR roofline %.2f us\n", name, (int)m, nnz, (double)nnz / m, longest, bytes / B * 1e-3);
  CK(cudaMalloc(&drp, sizeof(int) * (m + 1)));
  CK(cudaMalloc(&dci, sizeof(int) * nnz));
  CK(cudaMalloc(&dv, sizeof(double) * nnz));
  CK(cudaMalloc(&dx, sizeof(double) * n));
  CK(cudaMalloc(&dy, sizeof(double) * m));
  CK(cudaMemcpy(drp, ai, sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, aj, sizeof(int) * nnz, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, aa, sizeof(double) * nnz, cudaMemcpyHostToDevice));
  hx = (double *)malloc(sizeof(double) * n);
  for (int j = 0; j < n; j++) hx[j] = 1.0 + 1e-3 * (j % 97);
  CK(cudaMemcpy(dx, hx, sizeof(double) * n, cudaMemcpyHostToDevice));
  ref = (double *)malloc(sizeof(double) * m);
  for (int i = 0; i < m; i++) {
    double s = 0;
    for (int k = ai[i]; k < ai[i + 1]; k++) s += aa[k] * hx[aj[k]];
    ref[i] = s;
  }
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

#define TIMEIT(label, launch) \
  do { \
    CK(cudaMemset(dy, 0, sizeof(double) * m)); \
    launch; \
    CK(cudaGetLastError()); \
    CK(cudaEventRecord(e0)); \
    for (int r = 0; r < reps; r++) launch; \
    CK(cudaEventRecord(e1)); \
    const double us = Time(e0, e1, reps); \
    printf("  %-16s %8.2f us  %.2fx roofline  diff %.1e\n", label, us, us / (bytes / B * 1e-3), MaxDiff(m, dy, ref)); \
  } while (0)

  { /* the predicated rounds, 16-bit columns where they fit (as the library's) */
    short *ddc = NULL, *hdc = (short *)malloc(sizeof(short) * nnz);
    bool   fits = true;
    for (int i = 0; i < m && fits; i++)
      for (int k = ai[i]; k < ai[i + 1]; k++) {
        const int d = aj[k] - i;
        if (d < -32768 || d > 32767) {
          fits = false;
          break;
        }
        hdc[k] = (short)d;
      }
    if (fits) {
      CK(cudaMalloc(&ddc, sizeof(short) * nnz));
      CK(cudaMemcpy(ddc, hdc, sizeof(short) * nnz, cudaMemcpyHostToDevice));
    }
    free(hdc);
    printf("  (16-bit columns %s)\n", fits ? "fit" : "do not fit: 32-bit");
#define VP(S, U) \
  do { \
    if (fits) TIMEIT("p" #S "x" #U "-short", (VecP<S, U, true><<<(unsigned)(((long)S * m + 255) / 256), 256>>>(m, drp, dci, ddc, dv, dx, dy))); \
    else TIMEIT("p" #S "x" #U, (VecP<S, U, false><<<(unsigned)(((long)S * m + 255) / 256), 256>>>(m, drp, dci, ddc, dv, dx, dy))); \
  } while (0)
    VP(4, 4);
    VP(4, 8);
    VP(8, 4);
    VP(8, 8);
    VP(16, 4);
    VP(16, 8);
    VP(32, 4);
    VP(32, 8);
#undef VP
    if (fits) { /* paired loads */
      int nsm, occ;
      CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
      const double avg     = (double)nnz / m;
      auto         chunkof = [&](const void *k, int S) {
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, 256, 0));
        const int nbc = nsm * occ, rpb = 256 / S;
        return (int)((((long)m + nbc - 1) / nbc + rpb - 1) / rpb * rpb);
      };
      { /* rows padded to even lengths */
        int    *hpp = (int *)malloc(sizeof(int) * (m + 1)), *hrl = (int *)malloc(sizeof(int) * m), *dpp, *drl, *dbp;
        short  *hpd, *dpd;
        double *hpv, *dpv;
        hpp[0] = 0;
        for (int i = 0; i < m; i++) {
          hrl[i]     = ai[i + 1] - ai[i];
          hpp[i + 1] = hpp[i] + ((hrl[i] + 1) & ~1);
        }
        const int np = hpp[m];
        hpv          = (double *)calloc(np, sizeof(double));
        hpd          = (short *)calloc(np, sizeof(short));
        for (int i = 0; i < m; i++)
          for (int k = ai[i]; k < ai[i + 1]; k++) {
            hpv[hpp[i] + k - ai[i]] = aa[k];
            hpd[hpp[i] + k - ai[i]] = (short)(aj[k] - i);
          }
        CK(cudaMalloc(&dpp, sizeof(int) * (m + 1)));
        CK(cudaMalloc(&drl, sizeof(int) * m));
        CK(cudaMalloc(&dpv, sizeof(double) * np));
        CK(cudaMalloc(&dpd, sizeof(short) * np));
        CK(cudaMemcpy(dpp, hpp, sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
        for (int i = 0; i < m; i++) hpp[i + 1] |= hrl[i] & 1;
        CK(cudaMalloc(&dbp, sizeof(int) * (m + 1)));
        CK(cudaMemcpy(dbp, hpp, sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(drl, hrl, sizeof(int) * m, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dpv, hpv, sizeof(double) * np, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dpd, hpd, sizeof(short) * np, cudaMemcpyHostToDevice));
        printf("  (padded to even lengths: %d entries stored, %.2f%% more)\n", np, 100.0 * (np - nnz) / nnz);
#define VV(S, U, CH, END) \
  do { \
    const int ch = CH ? chunkof((const void *)VecV<S, U, CH, END>, S) : 256 / S; \
    char      lab[64]; \
    snprintf(lab, sizeof(lab), "v%dx%d-%s-%s", S, U, CH ? "chunk" : "plain", END == 0 ? "rl" : (END == 1 ? "bit" : "padend")); \
    TIMEIT(lab, (VecV<S, U, CH, END><<<(unsigned)((m + ch - 1) / ch), 256>>>(m, ch, END == 1 ? dbp : dpp, drl, dpd, dpv, dx, dy))); \
  } while (0)
        if (avg < 64) {
          for (int rep = 0; rep < 2; rep++) {
            VV(8, 3, true, 2);
            VV(8, 3, true, 1);
            VV(8, 3, true, 0);
          }
          VV(8, 3, false, 1);
          VV(4, 3, true, 1);
        } else {
          VV(32, 4, false, 1);
          VV(16, 4, false, 1);
        }
#undef VV
        CK(cudaFree(dpp));
        CK(cudaFree(drl));
        CK(cudaFree(dbp));
        CK(cudaFree(dpv));
        CK(cudaFree(dpd));
        free(hpp);
        free(hrl);
        free(hpv);
        free(hpd);
      }
    }
    if (ddc) CK(cudaFree(ddc));
  }
  TIMEIT("vec4", (VecS<4><<<(unsigned)((4L * m + 255) / 256), 256>>>(m, drp, dci, dv, dx, dy)));
  TIMEIT("vec8", (VecS<8><<<(unsigned)((8L * m + 255) / 256), 256>>>(m, drp, dci, dv, dx, dy)));
  TIMEIT("vec16", (VecS<16><<<(unsigned)((16L * m + 255) / 256), 256>>>(m, drp, dci, dv, dx, dy)));
  TIMEIT("vec32", (VecS<32><<<(unsigned)((32L * m + 255) / 256), 256>>>(m, drp, dci, dv, dx, dy)));
  { /* the stream kernel's row blocks */
    int *blk = (int *)malloc(sizeof(int) * (m + 1)), nb = 0, r = 0;
    while (r < m) {
      const int r0 = r;
      blk[nb++]    = r0;
      if (ai[r + 1] - ai[r] > STREAM_CAP) r++;
      else
        while (r < m && ai[r + 1] - ai[r0] <= STREAM_CAP && r - r0 < STREAM_NB) r++;
    }
    blk[nb] = m;
    CK(cudaMalloc(&dblk, sizeof(int) * (nb + 1)));
    CK(cudaMemcpy(dblk, blk, sizeof(int) * (nb + 1), cudaMemcpyHostToDevice));
    free(blk);
    TIMEIT("stream", (Stream<<<nb, STREAM_NB>>>(dblk, drp, dci, dv, dx, dy)));
    CK(cudaFree(dblk));
  }
  { /* cuSPARSE */
    cusparseHandle_t     h;
    cusparseSpMatDescr_t A_;
    cusparseDnVecDescr_t X, Y;
    const double         one = 1, zero = 0;
    size_t               sz;
    void                *buf;
    CS(cusparseCreate(&h));
    CS(cusparseCreateCsr(&A_, m, n, nnz, drp, dci, dv, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CS(cusparseCreateDnVec(&X, n, dx, CUDA_R_64F));
    CS(cusparseCreateDnVec(&Y, m, dy, CUDA_R_64F));
    const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
    for (int a = 0; a < 2; a++) {
      CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A_, X, &zero, Y, CUDA_R_64F, algs[a], &sz));
      CK(cudaMalloc(&buf, sz + 1));
#if CUSPARSE_VERSION >= 12400
      CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A_, X, &zero, Y, CUDA_R_64F, algs[a], buf));
#endif
      TIMEIT(a ? "cusparse-alg2" : "cusparse-alg1",
             CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A_, X, &zero, Y, CUDA_R_64F, algs[a], buf)));
      CK(cudaFree(buf));
    }
    CS(cusparseDestroySpMat(A_));
    CS(cusparseDestroyDnVec(X));
    CS(cusparseDestroyDnVec(Y));
    CS(cusparseDestroy(h));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  {
    PetscInt mr;
    PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &mr, &ai, &aj, &done));
  }
  for (int before = 0; before < 2; before++) { /* the library's product */
    Mat                E;
    Vec                x, y;
    const PetscScalar *ya;
    PetscCall(MatConvert(A, MATSEQELLRCUDA, MAT_INITIAL_MATRIX, &E));
    if (before) {
      PetscCall(MatELLRCUDASetSliceHeight(E, m >= 65536 ? 32 : 0));
      PetscCall(MatELLRCUDASetSortWindow(E, m >= 65536 ? 1024 : 0));
    }
    PetscCall(MatCreateVecs(E, &x, &y));
    {
      PetscScalar *xa;
      PetscCall(VecGetArrayWrite(x, &xa));
      for (int j = 0; j < n; j++) xa[j] = hx[j];
      PetscCall(VecRestoreArrayWrite(x, &xa));
    }
    PetscCall(MatMult(E, x, y));
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    for (int r = 0; r < reps; r++) PetscCall(MatMult(E, x, y));
    CK(cudaEventRecord(e1));
    const double us = Time(e0, e1, reps);
    PetscCall(VecGetArrayRead(y, &ya));
    double d = 0, nr = 0;
    for (int i = 0; i < m; i++) {
      d  = fmax(d, fabs(ya[i] - ref[i]));
      nr = fmax(nr, fabs(ref[i]));
    }
    printf("  %-16s %8.2f us  %.2fx roofline  diff %.1e (y[0] %g, ref %g)\n", before ? "before" : "library", us, us / (bytes / B * 1e-3), d / nr,
           (double)ya[0], ref[0]);
    PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(MatViewFromOptions(E, NULL, "-lib_view"));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&E));
  }
  CK(cudaFree(drp));
  CK(cudaFree(dci));
  CK(cudaFree(dv));
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  free(hx);
  free(ref);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  double B;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &g_reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim_min", &g_dim0, NULL));
  { /* B: a device-to-device copy of 1 GiB */
    const size_t bytes = 1ul << 30;
    void        *a, *b;
    cudaEvent_t  e0, e1;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    for (int r = 0; r < 10; r++) CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaEventRecord(e1));
    B = 2.0 * bytes / (Time(e0, e1, 10) * 1e-6) * 1e-9; /* GB/s */
    printf("B = %.0f GB/s\n", B);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  for (int dim = (int)g_dim0; dim <= 3; dim++) {
    DM       da;
    KSP      ksp;
    PC       pc;
    PetscInt levels, n = dim == 2 ? 2049 : 129;
    Vec      xx, bb;

    if (dim == 2)
      PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL,
                             NULL, &da));
    else
      PetscCall(DMDACreate3d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, n, n, n, PETSC_DECIDE,
                             PETSC_DECIDE, PETSC_DECIDE, 1, 1, NULL, NULL, NULL, &da));
    PetscCall(DMSetUp(da));
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetDM(ksp, da));
    PetscCall(KSPSetComputeOperators(ksp, VCycleOperator, NULL));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(DMCreateGlobalVector(da, &xx));
    PetscCall(VecDuplicate(xx, &bb));
    PetscCall(VecSet(bb, 1.0));
    PetscCall(KSPSetUp(ksp));
    PetscCall(KSPSolve(ksp, bb, xx)); /* GAMG's levels exist after the first solve's set-up */
    PetscCall(PCMGGetLevels(pc, &levels));
    for (PetscInt l = levels - 2; l > 0; l--) {
      KSP      s;
      Mat      Al;
      char     name[64];
      PetscInt ml;
      PetscCall(PCMGGetSmoother(pc, l, &s));
      PetscCall(KSPGetOperators(s, &Al, NULL));
      PetscCall(MatGetSize(Al, &ml, NULL));
      if (ml < 10000) continue;
      PetscCall(PetscSNPrintf(name, sizeof(name), "%dd-%d gamg level %d", (int)dim, (int)n, (int)l));
      PetscCall(RunLevel(name, Al, B));
    }
    PetscCall(VecDestroy(&xx));
    PetscCall(VecDestroy(&bb));
    PetscCall(KSPDestroy(&ksp));
    PetscCall(DMDestroy(&da));
  }
  PetscCall(PetscFinalize());
  return 0;
}

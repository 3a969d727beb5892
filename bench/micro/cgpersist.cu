/*
   Microbenchmark behind docs/performance.md (the Krylov kernels): unpreconditioned CG on the 2D 5-point
   Laplacian stored as 5 diagonals (112 N bytes an iteration, as cggpu on diacuda), in the fused
   form of cggpu, two ways:
     launches:   two kernels an iteration, queued with programmatic dependent launch. The step
                 moves x by the last a p, forms p = r + b p (the neighbours' p on the fly),
                 w = A p and the block sums of p.w; the update r -= a w and the block sums of r.r.
                 The last block of each finishes the sum in block order; the next kernel reads it.
                 The step compiled for at most 6 blocks a multiprocessor (40 registers) and for 8
                 (32 registers), on several grids (the 32 registers' schedule
                 is what costs, not the blocks).
     persistent: one cooperative kernel for all the iterations, the same two phases, separated by
                 cooperative groups' grid barrier, after which every block adds up all the block
                 sums itself, in block order.
   On the same grid both give the same iterates to the last bit (the same sums in the same
   order); the program prints whether the last residual norms agree. Build and run on the GPU machine:
     nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o cgpersist bench/micro/cgpersist.cu && ./cgpersist [n]
*/
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define NB 256
struct St {
  double   rho, rhoold, dpi; /* rho_i, rho_i-1, p_i.w_i */
  unsigned count;
};
struct Prob {
  int           n, N; /* grid side, rows */
  const double *d;    /* 5 diagonals, N each: offsets -n, -1, 0, 1, n */
};
__device__ __forceinline__ void DepWait()
{
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void DepLaunch()
{
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ double BlockSum(double s, double *sh)
{
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(~0u, s, o);
  __syncthreads();
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
  __syncthreads();
  double t = 0;
  for (int k = 0; k < NB / 32; k++) t += sh[k];
  return t;
}
/* the sum of the grid's partials in block order, by the whole block */
__device__ __forceinline__ double PartialsSum(const double *part, double *sh)
{
  double q = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += NB) q += ((volatile const double *)part)[b];
  return BlockSum(q, sh);
}
/* step i's rows: x += a p_old, p = r + b p_old, w = A p, returns the thread's part of p.w */
__device__ __forceinline__ double StepRows(const Prob P, double a, double b, bool first, const double *__restrict__ r,
                                           const double *__restrict__ pold, double *__restrict__ p, double *__restrict__ w, double *__restrict__ x)
{
  const int n = P.n, N = P.N;
  double    s  = 0;
  auto      pj = [&](int j) { return first ? r[j] : r[j] + b * pold[j]; };
  for (int j = blockIdx.x * NB + threadIdx.x; j < N; j += gridDim.x * NB) {
    const double pc = pj(j);
    double       y  = P.d[2 * N + j] * pc;
    if (!first) x[j] += a * pold[j];
    if (j >= n) y += P.d[j] * pj(j - n);
    if (j % n) y += P.d[N + j] * pj(j - 1);
    if ((j + 1) % n) y += P.d[3 * N + j] * pj(j + 1);
    if (j + n < N) y += P.d[4 * N + j] * pj(j + n);
    p[j] = pc;
    w[j] = y;
    s += pc * y;
  }
  return s;
}
__device__ __forceinline__ double UpdateRows(int N, double a, const double *__restrict__ w, double *__restrict__ r)
{
  double s = 0;
  for (int j = blockIdx.x * NB + threadIdx.x; j < N; j += gridDim.x * NB) {
    const double v = r[j] - a * w[j];
    r[j]           = v;
    s += v * v;
  }
  return s;
}
/* the last block finishes the sum into *dst (and moves rho along when it is rho) */
__device__ void LastBlock(double s, double *part, St *st, int which)
{
  __shared__ double sh[NB / 32];
  __shared__ bool   last;
  const double      t = BlockSum(s, sh);
  if (!threadIdx.x) {
    part[blockIdx.x] = t;
    __threadfence();
    last = atomicAdd(&st->count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  const double q = PartialsSum(part, sh);
  if (!threadIdx.x) {
    if (which) {
      st->rhoold = st->rho;
      st->rho    = q;
    } else st->dpi = q;
    st->count = 0;
  }
}
__global__ void UpdateKernel(int N, double *part, St *st, const double *w, double *r);
__global__ void Rho0(int N, const double *r, double *part, St *st);
__global__ void Fill(Prob P, double *d, double *r);
template <int MINB>
__global__ void __launch_bounds__(NB, MINB)
  StepKernel(Prob P, int i, double *part, St *st, const double *r, const double *pold, double *p, double *w, double *x)
{
  DepWait();
  DepLaunch();
  const double a = i ? st->rhoold / st->dpi : 0, b = i ? st->rho / st->rhoold : 0; /* a of the update before */
  LastBlock(StepRows(P, a, b, !i, r, pold, p, w, x), part, st, 0);
}
/* the CG iterations with two launches each: the step of kern on sgrid blocks with smem bytes of
   dynamic shared memory (to cap the blocks a multiprocessor holds), the update on ugrid; returns
   ms and the last rho */
static float Launches(void (*kern)(Prob, int, double *, St *, const double *, const double *, double *, double *, double *), unsigned sgrid,
                      size_t smem, unsigned ugrid, Prob P, int its, double *d, double *r, double **p, double *w, double *x, double *part, St *st,
                      double *rho)
{
  cudaLaunchConfig_t  cfg = {}, ucfg;
  cudaLaunchAttribute at[1];
  cudaEvent_t         e0, e1;
  float               ms;
  St                  hs;

  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  if (smem) cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
  Fill<<<ugrid, NB>>>(P, d, r);
  cudaMemset(x, 0, 8.0 * P.N);
  cudaMemset(st, 0, sizeof(St));
  Rho0<<<ugrid, NB>>>(P.N, r, part, st);
  cudaDeviceSynchronize();
  at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.blockDim                                     = NB;
  cfg.attrs                                        = at;
  cfg.numAttrs                                     = 1;
  ucfg                                             = cfg;
  cfg.gridDim                                      = sgrid;
  cfg.dynamicSmemBytes                             = smem;
  ucfg.gridDim                                     = ugrid;
  cudaEventRecord(e0);
  for (int i = 0; i < its; i++) {
    cudaLaunchKernelEx(&cfg, kern, P, i, part, st, (const double *)r, (const double *)p[(i + 1) % 2], p[i % 2], w, x);
    cudaLaunchKernelEx(&ucfg, UpdateKernel, P.N, part, st, (const double *)w, r);
  }
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  cudaEventElapsedTime(&ms, e0, e1);
  cudaMemcpy(&hs, st, sizeof(St), cudaMemcpyDeviceToHost);
  *rho = hs.rho;
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms;
}
__global__ void UpdateKernel(int N, double *part, St *st, const double *w, double *r)
{
  DepWait();
  DepLaunch();
  const double a = st->rho / st->dpi;
  LastBlock(UpdateRows(N, a, w, r), part, st, 1);
}
__global__ void Persistent(Prob P, int its, double *part, double *r, double *p0, double *p1, double *w, double *x, double *hist)
{
  cg::grid_group    grid = cg::this_grid();
  __shared__ double sh[NB / 32];
  double            rho = 0, rhoold = 0, dpi = 0;
  { /* rho_0 */
    double s = 0;
    for (int j = blockIdx.x * NB + threadIdx.x; j < P.N; j += gridDim.x * NB) s += r[j] * r[j];
    s = BlockSum(s, sh);
    if (!threadIdx.x) part[blockIdx.x] = s;
    grid.sync();
    rho = PartialsSum(part, sh);
  }
  for (int i = 0; i < its; i++) {
    double      *pold = i % 2 ? p0 : p1, *p = i % 2 ? p1 : p0, *pp = part + ((2 * i + 1) % 2) * 8192;
    const double a = i ? rhoold / dpi : 0, b = i ? rho / rhoold : 0;
    double       s = BlockSum(StepRows(P, a, b, !i, r, pold, p, w, x), sh);
    if (!threadIdx.x) pp[blockIdx.x] = s;
    grid.sync();
    dpi = PartialsSum(pp, sh);
    pp  = part + ((2 * i + 2) % 2) * 8192;
    s   = BlockSum(UpdateRows(P.N, rho / dpi, w, r), sh);
    if (!threadIdx.x) pp[blockIdx.x] = s;
    grid.sync();
    rhoold = rho;
    rho    = PartialsSum(pp, sh);
    if (!blockIdx.x && !threadIdx.x) hist[i] = rho;
  }
}
__global__ void Rho0(int N, const double *r, double *part, St *st)
{
  double s = 0;
  for (int j = blockIdx.x * NB + threadIdx.x; j < N; j += gridDim.x * NB) s += r[j] * r[j];
  LastBlock(s, part, st, 1);
}
__global__ void Fill(Prob P, double *d, double *r)
{
  for (int j = blockIdx.x * NB + threadIdx.x; j < P.N; j += gridDim.x * NB) {
    d[j] = d[P.N + j] = d[3 * P.N + j] = d[4 * P.N + j] = -1.0;
    d[2 * P.N + j]                                      = 4.0;
    r[j]                                                = 1.0 + 0.5 * sin(0.001 * j);
  }
}
int main(int argc, char **argv)
{
  int sms, per;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, Persistent, NB, 0);
  const unsigned nb = per * sms;
  cudaEvent_t    e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  printf("%d SMs, %d blocks a multiprocessor for the persistent kernel: %u blocks\n", sms, per, nb);
  const int sizes[4] = {512, 1024, 2048, 4096}, only = argc > 1 ? atoi(argv[1]) : 0; /* ./cgpersist 2048: that size only */
  for (int n : sizes) {
    if (only && n != only) continue;
    const int its = n >= 2048 ? 200 : 1000;
    Prob      P;
    double   *d, *r, *p[2], *w, *x, *part, *hist, *h2;
    St       *st;
    P.n = n;
    P.N = n * n;
    cudaMalloc(&d, 40.0 * P.N);
    cudaMalloc(&r, 8.0 * P.N);
    cudaMalloc(&p[0], 8.0 * P.N);
    cudaMalloc(&p[1], 8.0 * P.N);
    cudaMalloc(&w, 8.0 * P.N);
    cudaMalloc(&x, 8.0 * P.N);
    cudaMalloc(&part, 8 * 16384);
    cudaMalloc(&hist, 8 * its);
    cudaMalloc(&st, sizeof(St));
    cudaMallocHost(&h2, 8 * its);
    P.d = d;
    for (int rep = 0; rep < 2; rep++) {
      float  mp;
      double rl = 0, rx, rp = 0;
      /* launches: the step bounded to 6 blocks a multiprocessor (40 registers) on the persistent
         kernel's grid (whose sums come out in the same order: rl) and on 6 blocks a multiprocessor; bounded to 8 blocks (32 registers) on 6 and 8 a multiprocessor, on
         1024 blocks (cggpu's grid), and on 6 a multiprocessor with shared memory that holds the
         multiprocessor to 6; the update on 6 a multiprocessor */
      int smemsm;
      cudaDeviceGetAttribute(&smemsm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0);
      const size_t cap6     = (size_t)smemsm / 7 + 1024; /* 7 blocks do not fit */
      const char  *names[6] = {"40 regs, persistent's", "40 regs, 6/SM",        "32 regs, grid 6/SM",
                               "32 regs, 8/SM",         "32 regs, 1024 blocks", "32 regs, 6/SM by smem"};
      float        ml[6];
      ml[0] = Launches(StepKernel<6>, nb, 0, 6u * sms, P, its, d, r, p, w, x, part, st, &rl);
      ml[1] = Launches(StepKernel<6>, 6u * sms, 0, 6u * sms, P, its, d, r, p, w, x, part, st, &rx);
      ml[2] = Launches(StepKernel<8>, 6u * sms, 0, 6u * sms, P, its, d, r, p, w, x, part, st, &rx);
      ml[3] = Launches(StepKernel<8>, 8u * sms, 0, 6u * sms, P, its, d, r, p, w, x, part, st, &rx);
      ml[4] = Launches(StepKernel<8>, 1024, 0, 6u * sms, P, its, d, r, p, w, x, part, st, &rx);
      ml[5] = Launches(StepKernel<8>, 6u * sms, cap6, 6u * sms, P, its, d, r, p, w, x, part, st, &rx);
      for (int k = 0; k < 6; k++) printf("%4d^2 launches, step %-22s: %.2f us an iteration\n", n, names[k], 1e3 * ml[k] / its);
      /* persistent */
      Fill<<<nb, NB>>>(P, d, r);
      cudaMemset(x, 0, 8.0 * P.N);
      cudaDeviceSynchronize();
      void *args[] = {&P, (void *)&its, &part, &r, &p[0], &p[1], &w, &x, &hist};
      cudaEventRecord(e0);
      cudaLaunchCooperativeKernel((void *)Persistent, nb, NB, args, 0, 0);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&mp, e0, e1);
      cudaMemcpy(h2, hist, 8 * its, cudaMemcpyDeviceToHost);
      rp = h2[its - 1];
      printf("%4d^2, %d iterations, us an iteration: persistent %.2f (%u blocks); roofline at 4.2 TB/s %.2f; final |r|^2 %.6e (launches on its grid) "
             "vs %.6e%s\n",
             n, its, 1e3 * mp / its, nb, 112.0 * P.N / 4.2e12 * 1e6, rl, rp, rl == rp ? " (same bits)" : "");
    }
    cudaFree(d);
    cudaFree(r);
    cudaFree(p[0]);
    cudaFree(p[1]);
    cudaFree(w);
    cudaFree(x);
    cudaFree(part);
    cudaFree(hist);
    cudaFree(st);
    cudaFreeHost(h2);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}

/*
   Microbenchmark behind docs/performance.md (the Krylov kernels): what a kernel boundary between two
   dependent passes costs against a grid-wide barrier inside one persistent kernel. The pass is
   cggpu's update (r -= a w and a sum, 24 bytes a row, 16-byte accesses) on n rows, one wave of
   blocks; each pass needs the sum the pass before finished (the fused kernels' dependency), and
   the last block to finish a pass adds up the block sums in block order (the same bits each run).
     launches: 1000 kernels, each a pass, queued with programmatic dependent launch (the next is
               scheduled while the one before ends and waits on the GPU for its results)
     barrier:  one kernel of 1000 passes; after its block sum each block counts in, the last one
               finishes the sum and bumps a generation, the others spin until it moves (with or
               without __nanosleep in the spin)
     grid.sync: one kernel of 1000 passes, cooperative groups' grid barrier after the block sums,
               then every block adds up all the block sums itself
   Build and run on the GPU machine:
     nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o persistent bench/micro/persistent.cu && ./persistent
*/
#include <cstdio>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct St {
  double            sum;
  unsigned          count;
  volatile unsigned gen;
};
__device__ __forceinline__ void DepWait()
{
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void DepLaunch()
{
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
/* one pass of the block's rows; returns (to thread 0) whether this block finished the sum */
__device__ bool Pass(int n, double a, const double *__restrict__ w, double *__restrict__ r, double *part, St *st)
{
  __shared__ double sh[8];
  __shared__ bool   last;
  const double2    *w2 = (const double2 *)w;
  double2          *r2 = (double2 *)r;
  double            s  = 0;

  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
    double2 x = r2[j], y = w2[j];
    x.x -= a * y.x;
    x.y -= a * y.y;
    r2[j] = x;
    s += x.x * x.x + x.y * x.y;
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(~0u, s, o);
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
  __syncthreads();
  if (!threadIdx.x) {
    double t = 0;
    for (int k = 0; k < 8; k++) t += sh[k];
    part[blockIdx.x] = t;
    __threadfence();
    last = atomicAdd(&st->count, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  double q = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) q += ((volatile double *)part)[b];
  for (int o = 16; o > 0; o /= 2) q += __shfl_down_sync(~0u, q, o);
  if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = q;
  __syncthreads();
  if (!threadIdx.x) {
    double t = 0;
    for (int k = 0; k < 8; k++) t += sh[k];
    st->sum   = t;
    st->count = 0;
  }
  return true;
}
__global__ void Launched(int n, const double *w, double *r, double *part, St *st)
{
  DepWait(); /* the pass before, its sum included, is complete and visible */
  DepLaunch();
  const double a = 1e-9 * (1.0 + 1e-300 * ((volatile St *)st)->sum);
  Pass(n, a, w, r, part, st);
}
template <int SLEEP>
__global__ void Persistent(int n, int passes, const double *w, double *r, double *part, St *st)
{
  unsigned gen = st->gen;
  for (int i = 0; i < passes; i++) {
    const double a = 1e-9 * (1.0 + 1e-300 * ((volatile St *)st)->sum);
    if (Pass(n, a, w, r, part, st)) {
      __syncthreads();
      if (!threadIdx.x) {
        __threadfence();
        st->gen = gen + 1;
      }
    } else if (!threadIdx.x)
      while (st->gen == gen)
        if (SLEEP) __nanosleep(SLEEP);
    gen++;
    __syncthreads();
    __threadfence();
  }
}
/* the same with cooperative groups' grid barrier: every block adds up all the block sums itself,
   in block order (partial arrays alternating between passes) */
__global__ void GridSync(int n, int passes, const double *__restrict__ w, double *__restrict__ r, double *part, St *st)
{
  cg::grid_group    grid = cg::this_grid();
  __shared__ double sh[8];
  const double2    *w2  = (const double2 *)w;
  double2          *r2  = (double2 *)r;
  double            sum = 0;

  for (int i = 0; i < passes; i++) {
    const double a  = 1e-9 * (1.0 + 1e-300 * sum);
    double      *pp = part + (i & 1) * 4096, s = 0;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
      double2 x = r2[j], y = w2[j];
      x.x -= a * y.x;
      x.y -= a * y.y;
      r2[j] = x;
      s += x.x * x.x + x.y * x.y;
    }
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(~0u, s, o);
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = s;
    __syncthreads();
    if (!threadIdx.x) {
      double t = 0;
      for (int k = 0; k < 8; k++) t += sh[k];
      pp[blockIdx.x] = t;
    }
    grid.sync();
    double q = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) q += pp[b];
    for (int o = 16; o > 0; o /= 2) q += __shfl_down_sync(~0u, q, o);
    __syncthreads();
    if (threadIdx.x % 32 == 0) sh[threadIdx.x / 32] = q;
    __syncthreads();
    sum = 0;
    for (int k = 0; k < 8; k++) sum += sh[k];
  }
}
int main()
{
  int sms, per;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, Persistent<0>, 256, 0);
  const unsigned nb = per * sms;
  double        *w, *r, *part;
  St            *st;
  cudaEvent_t    e0, e1;
  cudaMalloc(&part, 8 * 8192);
  cudaMalloc(&st, sizeof(St));
  cudaMemset(st, 0, sizeof(St));
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  for (int n : {262144, 1048576, 4194304}) {
    cudaMalloc(&w, 8 * (size_t)n);
    cudaMalloc(&r, 8 * (size_t)n);
    cudaMemset(w, 0, 8 * (size_t)n);
    cudaMemset(r, 0, 8 * (size_t)n);
    for (int rep = 0; rep < 3; rep++) {
      float               ms[2];
      cudaLaunchConfig_t  cfg = {};
      cudaLaunchAttribute at[1];
      at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
      at[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.gridDim                                      = nb;
      cfg.blockDim                                     = 256;
      cfg.attrs                                        = at;
      cfg.numAttrs                                     = 1;
      cudaEventRecord(e0);
      for (int i = 0; i < 1000; i++) cudaLaunchKernelEx(&cfg, Launched, n, (const double *)w, r, part, st);
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&ms[0], e0, e1);
      void *args[] = {&n, (void *)0, &w, &r, &part, &st};
      int   passes = 1000;
      args[1]      = &passes;
      float mb[3];
      void *kern[3] = {(void *)Persistent<0>, (void *)Persistent<100>, (void *)GridSync};
      for (int k = 0; k < 3; k++) {
        cudaEventRecord(e0);
        cudaLaunchCooperativeKernel(kern[k], nb, 256, args, 0, 0);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&mb[k], e0, e1);
      }
      ms[1] = mb[0];
      if (rep)
        printf("n %8d, %u blocks, us a pass: launches %.2f, barrier %.2f, barrier with nanosleep %.2f, grid.sync %.2f (roofline at 4 TB/s %.2f)\n", n,
               nb, ms[0], ms[1], mb[1], mb[2], 24.0 * n / 4e12 * 1e6);
    }
    cudaFree(w);
    cudaFree(r);
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}

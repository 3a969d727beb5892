/*
   Microbenchmark behind docs/performance.md (the Krylov kernels): cggpu's update pass (r -= a w and two sums,
   24 bytes a row) on 4M rows, one wave of blocks, 1000 launches back to back, in variants:
     0 plain loop, block partial sums only      1 the same, unrolled by 4
     2 two rows a thread (16-byte accesses)     3 = 0 + the last block finishing the grid sum
     4 = 2 + the last block's grid sum          5 = 0 + two-level counters (32 groups)
     6 = 2 + two-level counters                 7 = 0 + acq_rel atomic, warp 0 finishing
     8 = 4 + each launch first reads the sum the launch before finished (the dependency of the
         fused kernels: the next kernel needs the finished sum before it can compute)
     9 = 2 + each launch's blocks first add up all the block sums of the launch before
         themselves (no counter, no last block), partial arrays alternating between launches
   Build and run on the GPU machine:
     nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o gridsum bench/micro/gridsum.cu && ./gridsum
*/
#include <cstdio>
#include <cuda_runtime.h>
#include <cuda/atomic>
struct St {
  double   sum[4][2];
  unsigned count;
  unsigned sub[32 * 32];
};
template <int MODE>
__global__ void upd(int n, double a, const double *__restrict__ w, double *__restrict__ r, double *part, St *st, const double *prev = nullptr,
                    unsigned nprev = 0)
{
  double s0 = 0, s1 = 0;
  if (MODE == 8) a *= 1.0 + 1e-300 * ((volatile St *)st)->sum[1][0];
  if (MODE == 9) { /* every block sums the launch before's block sums, in block order */
    __shared__ double sp[8];
    double            q = 0;
    for (unsigned b = threadIdx.x; b < nprev; b += blockDim.x) q += prev[2 * b];
    for (int o = 16; o > 0; o /= 2) q += __shfl_down_sync(~0u, q, o);
    if (threadIdx.x % 32 == 0) sp[threadIdx.x / 32] = q;
    __syncthreads();
    q = 0;
    for (int k = 0; k < 8; k++) q += sp[k];
    a *= 1.0 + 1e-300 * q;
  }
  if (MODE == 1) {
#pragma unroll 4
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
      double v = r[j] - a * w[j];
      r[j]     = v;
      s0 += v * v;
      s1 += v * v;
    }
  } else if (MODE == 0 || MODE == 3 || MODE == 5 || MODE == 7) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
      double v = r[j] - a * w[j];
      r[j]     = v;
      s0 += v * v;
      s1 += v * v;
    }
  } else if (MODE == 2 || MODE == 4 || MODE == 6 || MODE == 8 || MODE == 9) { // double2
    const double2 *w2 = (const double2 *)w;
    double2       *r2 = (double2 *)r;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n / 2; j += gridDim.x * blockDim.x) {
      double2 x = r2[j], y = w2[j];
      x.x -= a * y.x;
      x.y -= a * y.y;
      r2[j] = x;
      s0 += x.x * x.x + x.y * x.y;
      s1 += x.x * x.x + x.y * x.y;
    }
  }
  // block sum
  __shared__ double sh[2][8];
  __shared__ bool   last;
  for (int o = 16; o > 0; o /= 2) {
    s0 += __shfl_down_sync(~0u, s0, o);
    s1 += __shfl_down_sync(~0u, s1, o);
  }
  if (threadIdx.x % 32 == 0) {
    sh[0][threadIdx.x / 32] = s0;
    sh[1][threadIdx.x / 32] = s1;
  }
  __syncthreads();
  if (!threadIdx.x) {
    double t0 = 0, t1 = 0;
    for (int k = 0; k < 8; k++) {
      t0 += sh[0][k];
      t1 += sh[1][k];
    }
    part[2 * blockIdx.x]     = t0;
    part[2 * blockIdx.x + 1] = t1;
  }
  if (MODE < 3 || MODE == 9) return;
  if (MODE == 7) {
    if (threadIdx.x >= 32) return;
    unsigned isl = 0;
    if (!threadIdx.x) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> c(st->count);
      isl = c.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    isl = __shfl_sync(~0u, isl, 0);
    if (!isl) return;
    __threadfence();
    double r0 = 0, r1 = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += 32) {
      r0 += ((volatile double *)part)[2 * b];
      r1 += ((volatile double *)part)[2 * b + 1];
    }
    for (int o = 16; o > 0; o /= 2) {
      r0 += __shfl_down_sync(~0u, r0, o);
      r1 += __shfl_down_sync(~0u, r1, o);
    }
    if (!threadIdx.x) {
      st->sum[1][0] = r0;
      st->sum[2][0] = r1;
      st->count     = 0;
    }
    return;
  }
  if (!threadIdx.x) {
    __threadfence();
    if (MODE < 5 || MODE == 8) last = atomicAdd(&st->count, 1u) == gridDim.x - 1;
    else {
      const unsigned G = 32, g = blockIdx.x % G, size = (gridDim.x - g + G - 1) / G, groups = gridDim.x < G ? gridDim.x : G;
      last = false;
      if (atomicAdd(&st->sub[32 * g], 1u) == size - 1) {
        st->sub[32 * g] = 0;
        __threadfence();
        last = atomicAdd(&st->count, 1u) == groups - 1;
      }
    }
  }
  __syncthreads();
  if (!last) return;
  double r0 = 0, r1 = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    r0 += ((volatile double *)part)[2 * b];
    r1 += ((volatile double *)part)[2 * b + 1];
  }
  for (int o = 16; o > 0; o /= 2) {
    r0 += __shfl_down_sync(~0u, r0, o);
    r1 += __shfl_down_sync(~0u, r1, o);
  }
  if (threadIdx.x % 32 == 0) {
    sh[0][threadIdx.x / 32] = r0;
    sh[1][threadIdx.x / 32] = r1;
  }
  __syncthreads();
  if (!threadIdx.x) {
    double t0 = 0, t1 = 0;
    for (int k = 0; k < 8; k++) {
      t0 += sh[0][k];
      t1 += sh[1][k];
    }
    st->sum[1][0] = t0;
    st->sum[2][0] = t1;
    st->count     = 0;
  }
}
template <int MODE>
void run(int n, double *w, double *r, double *part, St *st)
{
  int sms, per;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, upd<MODE>, 256, 0);
  for (int mult : {1, 2, 4}) {
    unsigned nb = per * sms * mult;
    if (nb > 4096) nb = 4096;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int rep = 0; rep < 2; rep++) {
      cudaEventRecord(e0);
      for (int i = 0; i < 1000; i++) {
        if (MODE == 9) upd<MODE><<<nb, 256>>>(n, 1e-9, w, r, part + (i % 2 ? 8192 : 0), st, part + (i % 2 ? 0 : 8192), nb);
        else upd<MODE><<<nb, 256>>>(n, 1e-9, w, r, part, st);
      }
      cudaEventRecord(e1);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      if (rep) printf("mode %d nb %u (per %d): %.2f us  %.0f GB/s\n", MODE, nb, per, ms, 24.0 * n / (ms * 1e-3 / 1000) / 1e9);
    }
  }
}
int main()
{
  int     n = 4194304;
  double *w, *r, *part;
  St     *st;
  cudaMalloc(&w, 8 * n);
  cudaMalloc(&r, 8 * n);
  cudaMalloc(&part, 8 * 16384);
  cudaMemset(part, 0, 8 * 16384);
  cudaMalloc(&st, sizeof(St));
  cudaMemset(w, 0, 8 * n);
  cudaMemset(r, 0, 8 * n);
  cudaMemset(st, 0, sizeof(St));
  run<0>(n, w, r, part, st);
  run<1>(n, w, r, part, st);
  run<2>(n, w, r, part, st);
  run<3>(n, w, r, part, st);
  run<4>(n, w, r, part, st);
  run<5>(n, w, r, part, st);
  run<6>(n, w, r, part, st);
  run<7>(n, w, r, part, st);
  run<8>(n, w, r, part, st);
  run<9>(n, w, r, part, st);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}

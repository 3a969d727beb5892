/*
   Microbenchmark behind docs/performance.md (the Krylov kernels): what programmatic dependent launch saves
   between two dependent kernels (a 24-byte-a-row pass, one wave of blocks), on the legacy default
   stream and on a non-blocking one, with and without an event recorded between the kernels.
   Build and run on the GPU machine:
     nvcc -O2 -gencode arch=compute_90,code=sm_90 -o overlap bench/micro/overlap.cu && ./overlap
*/
#include <cstdio>
#include <cuda_runtime.h>
__device__ __forceinline__ void dwait()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void dlaunch()
{
#if __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__global__ void kA(int n, const double *x, double *y, double *part, int pdl)
{
  if (pdl) {
    dwait();
    dlaunch();
  }
  double s = 0;
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n; j += gridDim.x * blockDim.x) {
    double v = y[j] + 0.5 * x[j];
    y[j]     = v;
    s += v * v;
  }
  if (!threadIdx.x) part[blockIdx.x] = s;
}
int main()
{
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int per;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kA, 256, 0);
  unsigned nb = per * sms;
  for (int n : {262144, 4194304}) {
    double *x, *y, *part;
    cudaMalloc(&x, 8 * n);
    cudaMalloc(&y, 8 * n);
    cudaMalloc(&part, 8 * 4096);
    cudaMemset(x, 0, 8 * n);
    cudaMemset(y, 0, 8 * n);
    cudaStream_t s1;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaEvent_t e0, e1, ev;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    for (int variant = 0; variant < 6; variant++) {
      cudaStream_t st  = variant >= 3 ? s1 : 0;
      int          pdl = variant % 3 != 0, evs = variant % 3 == 2;
      const int    its = 2000;
      for (int rep = 0; rep < 2; rep++) {
        cudaEventRecord(e0, st);
        for (int i = 0; i < its; i++) {
          cudaLaunchConfig_t  cfg = {};
          cudaLaunchAttribute at[1];
          cfg.gridDim                                      = nb;
          cfg.blockDim                                     = 256;
          cfg.stream                                       = st;
          at[0].id                                         = cudaLaunchAttributeProgrammaticStreamSerialization;
          at[0].val.programmaticStreamSerializationAllowed = 1;
          cfg.attrs                                        = at;
          cfg.numAttrs                                     = pdl ? 1 : 0;
          cudaLaunchKernelEx(&cfg, kA, n, (const double *)x, y, part, pdl);
          if (evs && i % 2 == 0) cudaEventRecord(ev, st);
        }
        cudaEventRecord(e1, st);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        if (rep)
          printf("n=%d nb=%u variant %d (%s stream, pdl %d, events %d): %.2f us per kernel\n", n, nb, variant,
                 variant >= 3 ? "nonblocking" : "legacy", pdl, evs, 1000.0 * ms / its);
      }
    }
    printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
    cudaFree(x);
    cudaFree(y);
    cudaFree(part);
  }
}

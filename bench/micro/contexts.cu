/*
   Microbenchmark behind bench/RESULTS.md, "CUDA contexts": what one process pays to
   start CUDA, when N processes start together on one GPU (under NVIDIA MPS or not), and how
   CUDA_DEVICE_MAX_CONNECTIONS changes it. Each process prints, in seconds from the common start
   given as its argument: when it began, then how long the device count (the driver's start), the
   context (cudaFree(0)), a first allocation and a first kernel took, and when it was done; the
   shell's wall time after all have exited adds their contexts' ends.
   Build and run on the GPU machine:
     nvcc -O2 -gencode arch=compute_90,code=sm_90 -o contexts bench/micro/contexts.cu
     s=$(date +%s.%N); for i in $(seq 8); do ./contexts $s & done; wait
     CUDA_DEVICE_MAX_CONNECTIONS=1 ...   # the same with one hardware work queue a context
     ... ./contexts $s reset ...          # how each process ends: exit (default), reset, quick
*/
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <ctime>
#include <cuda_runtime.h>
__global__ void touch(double *x)
{
  x[threadIdx.x] = 1;
}
static double now()
{
  timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
  double  t0 = argc > 1 ? atof(argv[1]) : now(), a = now(), b, c, d, e;
  int     n;
  double *x;

  cudaGetDeviceCount(&n);
  b = now();
  cudaSetDevice(0);
  cudaFree(0);
  c = now();
  cudaMalloc(&x, 1 << 20);
  d = now();
  touch<<<1, 32>>>(x);
  cudaDeviceSynchronize();
  e = now();
  printf("began %.3f count %.3f context %.3f malloc %.3f kernel %.3f done %.3f\n", a - t0, b - a, c - b, d - c, e - d, e - t0);
  fflush(stdout);
  /* how the process ends (third argument): "exit" returns from main, CUDA's own teardown at exit
     (the default); "reset" calls cudaDeviceReset() first; "quick" ends with _exit(), skipping the
     teardown (a floor for the measurement, not something a library may do) */
  const char *how = argc > 2 ? argv[2] : "exit";
  if (!strcmp(how, "reset")) cudaDeviceReset();
  if (!strcmp(how, "quick")) _exit(0);
  return 0;
}

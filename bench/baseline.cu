/*
   What the benchmark measures outside petsc-gpukit, in plain CUDA:
   - the device copy bandwidth B, the roofline every figure is a ratio to;
   - the baseline a user would otherwise write: CG as NVIDIA's conjugateGradient sample does it,
     cuSPARSE CSR SpMV plus cuBLAS dot, axpy and scal calls, the dots returned to the host;
   - cuSPARSE CSR SpMV alone, on the same matrices.
   Called from bench.c through the C functions at the end; every error is returned as a message.
*/
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cusparse.h>
#include <stdio.h>
#include <string.h>

static char bench_err[512];

#define CK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      snprintf(bench_err, sizeof(bench_err), "%s: %s (%s:%d)", #call, cudaGetErrorString(e_), __FILE__, __LINE__); \
      goto fail; \
    } \
  } while (0)
#define CKS(call) \
  do { \
    cusparseStatus_t e_ = (call); \
    if (e_ != CUSPARSE_STATUS_SUCCESS) { \
      snprintf(bench_err, sizeof(bench_err), "%s: %s (%s:%d)", #call, cusparseGetErrorString(e_), __FILE__, __LINE__); \
      goto fail; \
    } \
  } while (0)
#define CKB(call) \
  do { \
    cublasStatus_t e_ = (call); \
    if (e_ != CUBLAS_STATUS_SUCCESS) { \
      snprintf(bench_err, sizeof(bench_err), "%s: cuBLAS status %d (%s:%d)", #call, (int)e_, __FILE__, __LINE__); \
      goto fail; \
    } \
  } while (0)

/* a STREAM-like copy, 16 bytes a thread per step */
__global__ void BenchCopyKernel(size_t n2, const double2 *__restrict__ a, double2 *__restrict__ b)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

extern "C" {

const char *BenchError(void)
{
  return bench_err;
}

int BenchDeviceName(char *name, size_t len)
{
  cudaDeviceProp p;
  int            dev;

  CK(cudaGetDevice(&dev));
  CK(cudaGetDeviceProperties(&p, dev));
  snprintf(name, len, "%s", p.name);
  return 0;
fail:
  return 1;
}

/* this runtime's device: the one the library chose for the process */
int BenchSetDevice(int dev)
{
  CK(cudaSetDevice(dev));
  return 0;
fail:
  return 1;
}

int BenchSync(void)
{
  CK(cudaDeviceSynchronize());
  return 0;
fail:
  return 1;
}

/* B in GB/s (bytes read plus bytes written): the better of cudaMemcpy and a copy kernel, each the
   best of reps copies of a buffer far larger than the L2 cache */
int BenchCopyBandwidth(size_t bytes, int reps, double *gbs, double *gbs_memcpy, double *gbs_kernel)
{
  void       *a = NULL, *b = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  float       ms;
  double      best[2] = {0, 0};
  int         sms;

  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 1, bytes));
  CK(cudaMemset(b, 0, bytes));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int how = 0; how < 2; how++) {
    for (int r = 0; r <= reps; r++) { /* the first is a warm-up */
      CK(cudaEventRecord(e0));
      if (!how) CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
      else BenchCopyKernel<<<sms * 8, 512>>>(bytes / 16, (const double2 *)a, (double2 *)b);
      CK(cudaGetLastError());
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r && 2.0 * bytes / (ms * 1e6) > best[how]) best[how] = 2.0 * bytes / (ms * 1e6);
    }
  }
  *gbs_memcpy = best[0];
  *gbs_kernel = best[1];
  *gbs        = best[0] > best[1] ? best[0] : best[1];
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return 0;
fail:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(a);
  cudaFree(b);
  return 1;
}

/* cuSPARSE CSR SpMV time (us, the mean of reps after a warm-up) and, when cgits > 0, the baseline
   CG's time per iteration (us): the loop of NVIDIA's conjugateGradient sample with b = rhs, x = 0,
   run for cgits iterations without the tolerance test (each iteration still returns its two dots
   to the host, as the sample's does) */
int BenchCuSparse(int m, int nnz, const int *rowptr, const int *col, const double *val, const double *rhs, int reps, int cgits, double *spmv_us,
                  double *cg_us, double *cg_rnorm)
{
  int                 *drow = NULL, *dcol = NULL;
  double              *dval = NULL, *x = NULL, *r = NULL, *p = NULL, *Ax = NULL;
  void                *buf = NULL;
  size_t               bufsize;
  cusparseHandle_t     sp = NULL;
  cublasHandle_t       bl = NULL;
  cusparseSpMatDescr_t A  = NULL;
  cusparseDnVecDescr_t vp = NULL, vAx = NULL;
  cudaEvent_t          e0 = NULL, e1 = NULL;
  const double         one = 1.0, zero = 0.0;
  float                ms;
  int                  rc = 1;

  CK(cudaMalloc((void **)&drow, sizeof(int) * (m + 1)));
  CK(cudaMalloc((void **)&dcol, sizeof(int) * (size_t)nnz));
  CK(cudaMalloc((void **)&dval, sizeof(double) * (size_t)nnz));
  CK(cudaMalloc((void **)&x, sizeof(double) * m));
  CK(cudaMalloc((void **)&r, sizeof(double) * m));
  CK(cudaMalloc((void **)&p, sizeof(double) * m));
  CK(cudaMalloc((void **)&Ax, sizeof(double) * m));
  CK(cudaMemcpy(drow, rowptr, sizeof(int) * (m + 1), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dcol, col, sizeof(int) * (size_t)nnz, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dval, val, sizeof(double) * (size_t)nnz, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(p, rhs, sizeof(double) * m, cudaMemcpyHostToDevice));
  CKS(cusparseCreate(&sp));
  CKB(cublasCreate(&bl));
  CKS(cusparseCreateCsr(&A, m, m, nnz, drow, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vp, m, p, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&vAx, m, Ax, CUDA_R_64F));
  CKS(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAx, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bufsize));
  CK(cudaMalloc(&buf, bufsize ? bufsize : 1));
  CKS(cusparseSpMV_preprocess(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAx, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  /* SpMV alone */
  CKS(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAx, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  CK(cudaEventRecord(e0));
  for (int k = 0; k < reps; k++)
    CKS(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAx, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  CK(cudaEventElapsedTime(&ms, e0, e1));
  *spmv_us = 1e3 * ms / reps;

  /* the sample's CG, twice: a warm-up of a few iterations, then the timed run */
  *cg_us = 0.0;
  for (int pass = 0; cgits > 0 && pass < 2; pass++) {
    const int its = pass ? cgits : 3;
    double    r0  = 0.0, r1, a, na, b, dot;

    CK(cudaMemset(x, 0, sizeof(double) * m));
    CK(cudaMemcpy(r, rhs, sizeof(double) * m, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    CK(cudaEventRecord(e0));
    CKB(cublasDdot(bl, m, r, 1, r, 1, &r1));
    for (int k = 1; k <= its; k++) {
      if (k > 1) {
        b = r1 / r0;
        CKB(cublasDscal(bl, m, &b, p, 1));
        CKB(cublasDaxpy(bl, m, &one, r, 1, p, 1));
      } else CKB(cublasDcopy(bl, m, r, 1, p, 1));
      CKS(cusparseSpMV(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vp, &zero, vAx, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
      CKB(cublasDdot(bl, m, p, 1, Ax, 1, &dot));
      a = r1 / dot;
      CKB(cublasDaxpy(bl, m, &a, p, 1, x, 1));
      na = -a;
      CKB(cublasDaxpy(bl, m, &na, Ax, 1, r, 1));
      r0 = r1;
      CKB(cublasDdot(bl, m, r, 1, r, 1, &r1));
      CK(cudaDeviceSynchronize());
    }
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    *cg_us    = 1e3 * ms / its;
    *cg_rnorm = r1 > 0 ? __builtin_sqrt(r1) : 0.0;
  }
  rc = 0;
fail:
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (vp) cusparseDestroyDnVec(vp);
  if (vAx) cusparseDestroyDnVec(vAx);
  if (A) cusparseDestroySpMat(A);
  if (sp) cusparseDestroy(sp);
  if (bl) cublasDestroy(bl);
  cudaFree(buf);
  cudaFree(drow);
  cudaFree(dcol);
  cudaFree(dval);
  cudaFree(x);
  cudaFree(r);
  cudaFree(p);
  cudaFree(Ax);
  return rc;
}

} /* extern "C" */

/*
   The fused Krylov iterations' work space and state (device.h): made and freed, the state and the
   sums handed to the host, the grid size of their kernels, and the separate sum of dpi that
   Eisenstat's step on levels needs (krylovdpi). The kernels are in cg.cu, bicg.cu, halo.cu and
   eisenstat.cu, the sums kept on the GPUs in peers.cu.
*/
#include "gridsum.cuh"

static_assert(GK_SLOTS >= GK_KRYLOV_SUMS, "krylovgetsums gives the first GK_KRYLOV_SUMS of the state's sums");

PetscErrorCode GKCUDAKrylovCreate(PetscInt n, GKKrylovMethod method, GKKrylovNorm norm, PetscBool nullconst, GKKrylov *K)
{
  GKKrylovCUDA *k;

  PetscFunctionBegin;
  PetscCall(PetscNew(&k));
  k->n         = n;
  k->method    = method;
  k->norm      = norm;
  k->nullconst = nullconst ? true : false;
  GKCallCUDA(cudaMalloc((void **)&k->partial, sizeof(double) * 2 * GK_SLOTS * GK_RED_BLOCKS));
  GKCallCUDA(cudaMalloc((void **)&k->state, sizeof(GKKrylovDevState)));
  GKCallCUDA(cudaMemset(k->state, 0, sizeof(GKKrylovDevState)));
  GKCallCUDA(cudaHostAlloc((void **)&k->hstate, sizeof(GKKrylovDevState), cudaHostAllocMapped));
  GKCallCUDA(cudaHostGetDevicePointer((void **)&k->pub, k->hstate, 0));
  memset(k->hstate, 0, sizeof(GKKrylovDevState));
  GKCallCUDA(cudaEventCreateWithFlags(&k->copied, cudaEventDisableTiming));
  GKCallCUDA(cudaEventCreateWithFlags(&k->gathered, cudaEventDisableTiming));
  *K = (GKKrylov)k;
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovDestroy(GKKrylov *K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)*K;

  PetscFunctionBegin;
  if (!k) PetscFunctionReturn(0);
  GKCallCUDA(cudaFree(k->partial));
  GKCallCUDA(cudaFree(k->state));
  GKCallCUDA(cudaFreeHost(k->hstate));
  GKCallCUDA(cudaEventDestroy(k->copied));
  GKCallCUDA(cudaEventDestroy(k->gathered));
  PetscCall(PetscFree(k));
  *K = NULL;
  PetscFunctionReturn(0);
}

/* A second, partial wave of blocks would leave most of the GPU idle while it runs */
unsigned GKWaveBlocks(const void *kernel, PetscInt rows)
{
  static struct {
    const void *f;
    int         per;
  } cache[64];
  static int ncache, sms;
  int        per = 0;

  for (int c = 0; c < ncache; c++)
    if (cache[c].f == kernel) per = cache[c].per;
  if (!per) {
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, GK_BLOCK, 0) != cudaSuccess || per < 1) {
      (void)cudaGetLastError();
      per = 1;
    }
    if (ncache < 64) {
      cache[ncache].f     = kernel;
      cache[ncache++].per = per;
    }
  }
  if (!sms) {
    int dev = 0;

    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
      (void)cudaGetLastError();
      sms = 1;
    }
  }
  return (unsigned)PetscMax(1, PetscMin((PetscInt)GKBlocks(rows), (PetscInt)PetscMin(per * sms, GK_RED_BLOCKS)));
}

/* the last step has published the state to mapped host memory: an event marks its end */
PetscErrorCode GKCUDAKrylovStateBegin(GKKrylov K)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  GKCallCUDA(cudaEventRecord(k->copied, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovStateEnd(GKKrylov K, GKKrylovState *S)
{
  GKKrylovCUDA                    *k = (GKKrylovCUDA *)K;
  volatile const GKKrylovDevState *h = k->hstate;

  PetscFunctionBegin;
  GKWaitCUDA(cudaEventSynchronize(k->copied));
  S->norm2  = h->norm2;
  S->rho[0] = h->rholast[0];
  S->rho[1] = h->rholast[1];
  S->flag   = (GKKrylovFlag)h->flag;
  S->flagit = h->flagit;
  PetscFunctionReturn(0);
}

/* the last kernel's sums, published to mapped host memory by its last block */
PetscErrorCode GKCUDAKrylovGetSums(GKKrylov K, PetscScalar *s)
{
  GKKrylovCUDA                    *k = (GKKrylovCUDA *)K;
  volatile const GKKrylovDevState *h = k->hstate;

  PetscFunctionBegin;
  GKCallCUDA(cudaEventRecord(k->copied, 0));
  GKWaitCUDA(cudaEventSynchronize(k->copied));
  for (int j = 0; j < GK_KRYLOV_SUMS; j++) { /* device.h's; the last slot (the sum of z) is the kernels' own */
#if defined(PETSC_USE_COMPLEX)
    s[j] = PetscCMPLX(h->sum[j][0], h->sum[j][1]);
#else
    s[j] = h->sum[j][0];
#endif
  }
  PetscFunctionReturn(0);
}

PetscErrorCode GKCUDAKrylovSetSums(GKKrylov K, const PetscScalar *s)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;

  PetscFunctionBegin;
  k->g.set = 1;
  for (int j = 0; j < 3; j++) {
    k->g.s[j][0] = PetscRealPart(s[j]);
    k->g.s[j][1] = PetscImaginaryPart(s[j]);
  }
  PetscFunctionReturn(0);
}

/* dpi = p^H w (COCG: p^T w), summed as the step sums it */
template <GKKrylovMethod METHOD>
__global__ void GKKrylovDpiKernel(PetscInt n, double *partial, GKKrylovDevState *st, GKKrylovDevState *pub, const GKScalar *__restrict__ p,
                                  const GKScalar *__restrict__ w)
{
  GKScalar acc[1] = {0.0};

  GKOverlapBegin();
  if (GKStopped(st)) return;
  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (PetscInt)gridDim.x * blockDim.x)
    acc[0] += METHOD == GK_KRYLOV_CG ? p[j] * GKConj(w[j]) : p[j] * w[j];
  GKGridSum<1>(acc, partial, 0, st, pub);
}

PetscErrorCode GKCUDAKrylovDpi(GKKrylov K, const PetscScalar *p, const PetscScalar *w)
{
  GKKrylovCUDA *k = (GKKrylovCUDA *)K;
  void (*kern)(PetscInt, double *, GKKrylovDevState *, GKKrylovDevState *, const GKScalar *, const GKScalar *);

  PetscFunctionBegin;
  kern = k->method == GK_KRYLOV_CG ? GKKrylovDpiKernel<GK_KRYLOV_CG> : GKKrylovDpiKernel<GK_KRYLOV_COCG>;
  GKCallCUDA(
    GKLaunchOverlapped(kern, GKWaveBlocks((const void *)kern, k->n), k->n, k->partial, k->state, k->pub, (const GKScalar *)p, (const GKScalar *)w));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

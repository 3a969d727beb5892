/*
   The CUDA backend: the entry points of device.h as kernels and their launch wrappers. Each
   kernel computes exactly what its twin in host/ (the file of the same name) computes; the
   tests hold them to that.
*/
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include "cudaimpl.h"

/* The early start (device.h, earlystart): a thread of its own counts the devices, reads the
   chosen one's properties (then tells the waiting process), and creates its context. No PETSc
   call is made on it. The process's own thread keeps device 0 current unless it is told another:
   its first call that needs the context waits inside the runtime until the thread made it. */
static struct {
  pthread_t       thread;
  pthread_mutex_t lock;
  pthread_cond_t  found;
  int             started, counted, dev, localrank, count, major, preload; /* started: under way or ended, not yet joined */
  cudaError_t     err;                                                     /* of the count */
  cudaDeviceProp  prop;
} gk_early = {{}, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, -1, 0, 0, 0, 0, cudaSuccess, {}};

/* Once this process has a context, the library stays loaded (RTLD_NODELETE) until the process
   ends. Without a PETSc of CUDA's own the CUDA runtime is linked into the library, and
   PetscFinalize() unloads the libraries -dll_append loaded: the runtime's teardown, the context's
   end, ran there, before MPI_Finalize(), and under NVIDIA MPS the processes' contexts end one
   after another. Kept, the context
   ends with the process, as a program's own CUDA context does. Called where a context was made;
   no PETSc call (the early start's thread). */
static void GKCUDAStayLoaded(void)
{
  static int kept = 0;
  Dl_info    info;

  if (kept) return;
  kept = 1;
  if (dladdr((void *)GKCUDAStayLoaded, &info) && info.dli_fname) (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* The staging buffers of large copies (device.h, stagebuffer): page-locked host memory and an
   event a buffer. Made once: on the early start's thread where this process may run on more than
   one core (the threads that fill them need cores), else at the first staged copy; tried no more
   where CUDA refused them. No PETSc call (the early start's thread). */
static struct {
  void       *buf[GK_STAGE_PIECES];
  cudaEvent_t ev[GK_STAGE_PIECES];
  int         tried, made;
} gk_stage;

static void GKCUDAStageFree(void)
{
  for (int k = 0; k < GK_STAGE_PIECES; k++) {
    if (gk_stage.ev[k]) (void)cudaEventDestroy(gk_stage.ev[k]);
    if (gk_stage.buf[k]) (void)cudaFreeHost(gk_stage.buf[k]);
    gk_stage.ev[k]  = NULL;
    gk_stage.buf[k] = NULL;
  }
  gk_stage.made = 0;
}

static void GKCUDAStageMake(void)
{
  if (gk_stage.tried) return;
  gk_stage.tried = 1;
  for (int k = 0; k < GK_STAGE_PIECES; k++) {
    if (cudaHostAlloc(&gk_stage.buf[k], GK_STAGE_BYTES, cudaHostAllocPortable) != cudaSuccess ||
        cudaEventCreateWithFlags(&gk_stage.ev[k], cudaEventDisableTiming) != cudaSuccess) {
      (void)cudaGetLastError();
      GKCUDAStageFree();
      return;
    }
  }
  gk_stage.made = 1;
}

static void *GKCUDAEarlyStart_Thread(void *arg)
{
  int         n   = 0, dev;
  cudaError_t err = cudaGetDeviceCount(&n);

  (void)arg;
  if (err != cudaSuccess) n = 0;
  dev = gk_early.dev >= 0 ? gk_early.dev : (n > 0 ? gk_early.localrank % n : -1);
  if (n > 0 && dev < n) {
    if (cudaGetDeviceProperties(&gk_early.prop, dev) != cudaSuccess) dev = -1;
    else gk_early.major = gk_early.prop.major;
  }
  pthread_mutex_lock(&gk_early.lock);
  gk_early.err     = err;
  gk_early.count   = n;
  gk_early.dev     = dev;
  gk_early.counted = 1;
  pthread_cond_broadcast(&gk_early.found);
  pthread_mutex_unlock(&gk_early.lock);
  if (dev >= 0 && dev < n && cudaSetDevice(dev) == cudaSuccess && cudaFree(NULL) == cudaSuccess) {
    cpu_set_t set;

    GKCUDAStayLoaded();
    CPU_ZERO(&set);
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 1) {
      if (gk_early.preload) GKCUDASpGEMMPreload();
      GKCUDAStageMake();
    }
  }
  return NULL;
}

static PetscErrorCode GKCUDAEarlyStart(int dev, int localrank, PetscBool preload)
{
  PetscFunctionBegin;
  if (gk_early.started) PetscFunctionReturn(0);
  gk_early.dev       = dev;
  gk_early.localrank = localrank;
  gk_early.preload   = preload ? 1 : 0;
  gk_early.counted   = 0;
  PetscCheck(!pthread_create(&gk_early.thread, NULL, GKCUDAEarlyStart_Thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS,
             "Could not start the thread that starts the CUDA device");
  gk_early.started = 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAReady(void)
{
  PetscFunctionBegin;
  if (gk_early.started) {
    PetscCheck(!pthread_join(gk_early.thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Could not wait for the thread that starts the CUDA device");
    gk_early.started = 0;
  }
  PetscFunctionReturn(0);
}

/* whether the early start is under way or ended unjoined; then waits until it has counted */
static PetscBool GKCUDAEarlyCounted(void)
{
  if (!gk_early.started) return PETSC_FALSE;
  pthread_mutex_lock(&gk_early.lock);
  while (!gk_early.counted) pthread_cond_wait(&gk_early.found, &gk_early.lock);
  pthread_mutex_unlock(&gk_early.lock);
  return PETSC_TRUE;
}

static PetscErrorCode GKCUDAGetDeviceCount(int *count, char *why, size_t len)
{
  cudaError_t err;

  PetscFunctionBegin;
  *count = 0;
  if (GKCUDAEarlyCounted()) {
    err    = gk_early.err;
    *count = gk_early.count;
  } else err = cudaGetDeviceCount(count);
  if (err != cudaSuccess) {
    /* no driver, or no device: a finding for the caller to report, not an error here */
    *count = 0;
    if (len) PetscCall(PetscSNPrintf(why, len, "%s", cudaGetErrorString(err)));
    (void)cudaGetLastError();
  } else if (len) {
    why[0] = 0;
    if (!*count) PetscCall(PetscStrncpy(why, "no CUDA device is visible", len));
  }
  PetscFunctionReturn(0);
}

PetscBool GKCUDAOverlap = PETSC_FALSE;

static PetscErrorCode GKCUDASetDevice(int dev)
{
  int major = 0;

  PetscFunctionBegin;
  if (GKCUDAEarlyCounted() && dev == gk_early.dev) {
    /* the context is being made on the early start's thread; this thread's current device is
       0 until set, and setting another waits for the context */
    if (dev) GKCallCUDA(cudaSetDevice(dev));
    major = gk_early.major;
  } else {
    PetscCall(GKCUDAReady()); /* a device other than the one started */
    GKCallCUDA(cudaSetDevice(dev));
    GKCallCUDA(cudaFree(NULL)); /* create the context now, not inside the first timed operation */
    GKCUDAStayLoaded();
    GKCallCUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  }
  GKCUDAOverlap = GKOverlapKernels && major >= 9 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAGetDeviceName(int dev, char *name, size_t len)
{
  cudaDeviceProp prop;

  PetscFunctionBegin;
  if (GKCUDAEarlyCounted() && dev == gk_early.dev) prop = gk_early.prop;
  else GKCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCall(PetscSNPrintf(name, len, "%s (compute capability %d.%d, %.1f GiB)", prop.name, prop.major, prop.minor,
                          (double)prop.totalGlobalMem / 1073741824.0));
  PetscFunctionReturn(0);
}

/* Device memory from the device's default memory pool (-gpukit_device_pool, where the device has
   pools): cudaMallocAsync and cudaFreeAsync on the legacy default stream, which every kernel of
   the library runs on (GKCUDAStream, but while a graph is recorded, when nothing may allocate), so
   that a block is reused only after the work queued before its free.
   The pool keeps what is freed (release threshold: all of it) for the next allocation, where
   cudaFree waits for the device and cudaMalloc maps new memory: PETSc's set-ups make and destroy
   work vectors (a Chebyshev smoother's eigenvalue estimate, each level's), and a solver's first
   iteration allocates its work vectors' device arrays. Decided at the process's first allocation, which needs the context anyway (the early
   start's thread may still be making it before), and kept for the process's life, so that every
   free matches its allocation. gk_pool: -1 undecided, 0 cudaMalloc, 1 the pool */
static int           gk_pool = -1;
static cudaMemPool_t gk_mempool;

/* Whether the device has memory pools (*has) and, where it has, its default pool (*pool) set to
   keep all that is freed: CUDA's calls alone, which the reservation's thread makes too */
static cudaError_t GKCUDAPoolKeep(int dev, int *has, cudaMemPool_t *pool)
{
  uint64_t    keep = UINT64_MAX;
  cudaError_t err  = cudaDeviceGetAttribute(has, cudaDevAttrMemoryPoolsSupported, dev);

  if (err == cudaSuccess && *has) err = cudaDeviceGetDefaultMemPool(pool, dev);
  if (err == cudaSuccess && *has) err = cudaMemPoolSetAttribute(*pool, cudaMemPoolAttrReleaseThreshold, &keep);
  return err;
}

static PetscErrorCode GKCUDAPoolSetUp(void)
{
  int dev, has = 0;

  PetscFunctionBegin;
  gk_pool = 0;
  if (GKDevicePool) {
    GKCallCUDA(cudaGetDevice(&dev));
    GKCallCUDA(GKCUDAPoolKeep(dev, &has, &gk_mempool));
  }
  if (has) gk_pool = 1;
  PetscCall(PetscInfo(NULL, "Device memory from %s\n",
                      gk_pool ? "the device's memory pool (cudaMallocAsync)"
                              : (GKDevicePool ? "cudaMalloc (the device has no memory pools)" : "cudaMalloc (-gpukit_device_pool 0)")));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAMalloc(size_t bytes, void **p)
{
  cudaError_t err;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(0);
  if (gk_pool < 0) PetscCall(GKCUDAPoolSetUp());
  if (gk_pool) {
    err = cudaMallocAsync(p, bytes, 0);
    if (err == cudaErrorMemoryAllocation) { /* the pool's free blocks handed back to the device, then once more */
      (void)cudaGetLastError();
      GKCallCUDA(cudaDeviceSynchronize());
      GKCallCUDA(cudaMemPoolTrimTo(gk_mempool, 0));
      err = cudaMallocAsync(p, bytes, 0);
    }
  } else err = cudaMalloc(p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    size_t avail = 0, total = 0;

    (void)cudaGetLastError();
    (void)cudaMemGetInfo(&avail, &total);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "CUDA device out of memory: %zu bytes requested, %zu of %zu bytes free", bytes, avail, total);
  }
  GKCallCUDA(err);
  PetscFunctionReturn(0);
}

/* The pool's room made ahead (device.h, reserve): a thread of its own allocates that much from
   the device's pool and frees it, both on the library's stream, so that the pool maps the memory
   while the program's host work goes on; the library's next allocations on that stream take it
   from the pool. Mapping new memory is what a pool's allocation waits for, the first ones of a
   GAMG setup (the finest matrix's arrays) longest. At most a quarter of
   the memory the device has free; none where the pool is not the library's memory (the device
   has no pools, or -gpukit_device_pool 0). No PETSc call (its thread). */
static struct {
  pthread_t thread;
  int       started, dev; /* started: under way or ended, not yet joined */
  size_t    asked, made;  /* asked: the largest asked for so far; made: the thread's result */
  double    seconds;
} gk_reserve;

static void *GKCUDAReserve_Thread(void *arg)
{
  cudaMemPool_t   pool;
  size_t          avail = 0, total = 0, bytes = gk_reserve.asked;
  int             has = 0;
  void           *q   = NULL;
  struct timespec t0, t1;

  (void)arg;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (cudaSetDevice(gk_reserve.dev) == cudaSuccess && GKCUDAPoolKeep(gk_reserve.dev, &has, &pool) == cudaSuccess && has &&
      cudaMemGetInfo(&avail, &total) == cudaSuccess) {
    bytes = PetscMin(bytes, avail / 4);
    if (bytes && cudaMallocAsync(&q, bytes, 0) == cudaSuccess && cudaFreeAsync(q, 0) == cudaSuccess) gk_reserve.made = bytes;
  }
  (void)cudaGetLastError();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  gk_reserve.seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  return NULL;
}

/* Waits for the reservation under way, where one is */
static PetscErrorCode GKCUDAReserveJoin(void)
{
  PetscFunctionBegin;
  if (!gk_reserve.started) PetscFunctionReturn(0);
  gk_reserve.started = 0;
  PetscCheck(!pthread_join(gk_reserve.thread, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Could not wait for the thread that reserves device memory");
  PetscCall(PetscInfo(NULL, "Device memory: %zu bytes made ready in the pool ahead of use, on a thread of its own, in %g s\n", gk_reserve.made,
                      gk_reserve.seconds));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAReserve(size_t bytes)
{
  PetscFunctionBegin;
  if (!GKDevicePool || gk_pool == 0 || bytes <= gk_reserve.asked) PetscFunctionReturn(0);
  PetscCall(GKCUDAReserveJoin()); /* one at a time: the pool then holds what the last one made */
  GKCallCUDA(cudaGetDevice(&gk_reserve.dev));
  gk_reserve.asked = bytes;
  gk_reserve.made  = 0;
  if (!pthread_create(&gk_reserve.thread, NULL, GKCUDAReserve_Thread, NULL)) gk_reserve.started = 1;
  PetscFunctionReturn(0);
}

/* PetscFinalize(), whether or not the backend was used: what the early start began ended (the
   preload) or freed (the staging buffers, which it makes before any use), a reservation ended */
static PetscErrorCode GKCUDASettle(void)
{
  PetscFunctionBegin;
  PetscCall(GKCUDAReserveJoin());
  gk_reserve.asked = 0;
  PetscCall(GKCUDASpGEMMSettle());
  if (gk_stage.made) GKWaitCUDA(cudaStreamSynchronize(0));
  GKCUDAStageFree();
  gk_stage.tried = 0;
  PetscFunctionReturn(0);
}

/* PetscFinalize(): the library's buffers freed, and what the pool keeps handed back to the device
   (a program may go on after PetscFinalize(), or initialize PETSc again) */
static PetscErrorCode GKCUDAFinalizeAll(void)
{
  PetscFunctionBegin;
  PetscCall(GKCUDAFinalize());
  PetscCall(GKCUDASpGEMMFinalize());
  if (gk_stage.made) GKWaitCUDA(cudaStreamSynchronize(0));
  GKCUDAStageFree();
  gk_stage.tried = 0;
  if (gk_pool > 0) {
    GKCallCUDA(cudaStreamSynchronize(0));
    GKCallCUDA(cudaMemPoolTrimTo(gk_mempool, 0));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAFree(void *p)
{
  PetscFunctionBegin;
  if (p) GKCallCUDA(gk_pool > 0 ? cudaFreeAsync(p, 0) : cudaFree(p));
  PetscFunctionReturn(0);
}

/* pinned host memory, mapped: kernels read and write it in place (unified addressing) */
static PetscErrorCode GKCUDAHostMalloc(size_t bytes, void **p)
{
  cudaError_t err;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(0);
  err = cudaHostAlloc(p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of pinned host memory: %zu bytes requested", bytes);
  }
  GKCallCUDA(err);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAHostFree(void *p)
{
  PetscFunctionBegin;
  if (p) GKCallCUDA(cudaFreeHost(p));
  PetscFunctionReturn(0);
}

/* dst = src (or 0 where src is NULL), n 8-byte words: a device copy or zeroing as a kernel
   launched overlapped, so that in a run of small operations (a V-cycle's coarse levels, where
   PETSc's Chebyshev copies its right-hand side) the kernel after it is scheduled while it ends,
   as after any other of the library's kernels; cudaMemcpyAsync and cudaMemsetAsync would stand
   between the two. Where the arrays are not whole aligned words, those are called instead. */
__global__ void GKWordsKernel(size_t n, const unsigned long long *__restrict__ src, unsigned long long *__restrict__ dst)
{
  GKOverlapBegin();

  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) dst[i] = src ? src[i] : 0ull;
}

static inline bool GKWords(const void *dst, const void *src, size_t bytes)
{
  return (((uintptr_t)dst | (uintptr_t)src | (uintptr_t)bytes) % sizeof(unsigned long long)) == 0 &&
         bytes / sizeof(unsigned long long) <= (size_t)PETSC_MAX_INT;
}

static PetscErrorCode GKCUDAMemcpy(void *dst, const void *src, size_t bytes, GKMemcpyKind kind)
{
  const cudaMemcpyKind k = kind == GK_MEMCPY_H2D ? cudaMemcpyHostToDevice
                                                 : (kind == GK_MEMCPY_D2H ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  if (kind == GK_MEMCPY_D2D) { /* ordered on the device; the host does not wait */
    const size_t n = bytes / sizeof(unsigned long long);

    if (GKWords(dst, src, bytes))
      GKCallCUDA(GKLaunchOverlapped(GKWordsKernel, GKBlocks((PetscInt)n), n, (const unsigned long long *)src, (unsigned long long *)dst));
    else GKCallCUDA(cudaMemcpyAsync(dst, src, bytes, k, GKCUDAStream));
    GKCheckLaunch();
  } else GKWaitCUDA(cudaMemcpy(dst, src, bytes, k));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAMemzero(void *p, size_t bytes)
{
  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  if (GKWords(p, NULL, bytes))
    GKCallCUDA(GKLaunchOverlapped(GKWordsKernel, GKBlocks((PetscInt)(bytes / sizeof(unsigned long long))), bytes / sizeof(unsigned long long),
                                  (const unsigned long long *)NULL, (unsigned long long *)p));
  else GKCallCUDA(cudaMemsetAsync(p, 0, bytes, GKCUDAStream));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* y[k] = x[k] rounded to single precision, each real (and imaginary) part (device.h, GKStorage),
   and back into xr[k] where xr is given (it may be x): a thread a real */
static __device__ int gk_demote_overflow;

__global__ void GKDemoteKernel(size_t n, const double *x, float *__restrict__ y, double *xr)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const double v = x[k];
    const float  f = __double2float_rn(v);

    y[k] = f;
    if (isinf(f) && !isinf(v)) gk_demote_overflow = 1;
    else if (xr) xr[k] = (double)f;
  }
}

static PetscErrorCode GKCUDADemote(size_t n, const PetscScalar *x, void *y, PetscScalar *xr, PetscBool *ok)
{
  const size_t nr   = n * (GK_SINGLE_SIZE / sizeof(float));
  int          flag = 0;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_demote_overflow, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKDemoteKernel<<<(unsigned)((nr + GK_BLOCK - 1) / GK_BLOCK), GK_BLOCK, 0, GKCUDAStream>>>(nr, (const double *)x, (float *)y, (double *)xr);
  GKCheckLaunch();
  GKCallCUDA(cudaMemcpyFromSymbolAsync(&flag, gk_demote_overflow, sizeof(int), 0, cudaMemcpyDeviceToHost, GKCUDAStream));
  GKWaitCUDA(cudaStreamSynchronize(GKCUDAStream));
  *ok = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDASynchronize(void)
{
  PetscFunctionBegin;
  GKWaitCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(0);
}

/* CUDA graphs of the library's work (the graph entries of device.h). Recorded by stream capture
   on a stream of the library's own, made for the recording and blocking: while it records, work
   sent to the legacy default stream (a copy that waits, an allocation from the pool) is an error
   of CUDA's that ends the recording, rather than work run out of order. The graph runs on the
   legacy default stream, after the work before it and before the work after it, as the recorded
   work would have. */
cudaStream_t        GKCUDAStream = 0;
static cudaStream_t gk_record;

static PetscErrorCode GKCUDAGraphBegin(void)
{
  PetscFunctionBegin;
  PetscCheck(!GKCUDAStream, PETSC_COMM_SELF, PETSC_ERR_ORDER, "A graph is being recorded already");
  PetscCall(GKCUDAReserveJoin()); /* its allocation on the legacy stream would end the recording */
  GKCallCUDA(cudaStreamCreate(&gk_record));
  GKCallCUDA(cudaStreamBeginCapture(gk_record, cudaStreamCaptureModeThreadLocal));
  GKCUDAStream = gk_record;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAGraphEnd(void **exec)
{
  cudaGraph_t                   graph = NULL;
  cudaGraphExec_t               e     = (cudaGraphExec_t)*exec;
  cudaGraphExecUpdateResultInfo info;
  cudaError_t                   err;

  PetscFunctionBegin;
  *exec        = NULL;
  GKCUDAStream = 0;
  err          = cudaStreamEndCapture(gk_record, &graph);
  (void)cudaStreamDestroy(gk_record); /* no blocking stream beside the legacy one between recordings */
  gk_record = NULL;
  if (err == cudaSuccess && e && cudaGraphExecUpdate(e, graph, &info) != cudaSuccess) { /* the previous one cannot take it */
    (void)cudaGetLastError();
    (void)cudaGraphExecDestroy(e);
    e = NULL;
  }
  if (err == cudaSuccess && !e) err = cudaGraphInstantiate(&e, graph, 0);
  if (graph) (void)cudaGraphDestroy(graph);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (e) (void)cudaGraphExecDestroy(e);
    PetscCall(PetscInfo(NULL, "No graph: %s\n", cudaGetErrorString(err)));
    PetscFunctionReturn(0);
  }
  *exec = (void *)e;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAGraphLaunch(void *exec)
{
  PetscFunctionBegin;
  GKCallCUDA(cudaGraphLaunch((cudaGraphExec_t)exec, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAGraphDestroy(void *exec)
{
  PetscFunctionBegin;
  if (exec) GKCallCUDA(cudaGraphExecDestroy((cudaGraphExec_t)exec));
  PetscFunctionReturn(0);
}

/* y = T x, T a triangle of a dense matrix stored by rows (device.h): a warp a row, its lanes
   reading the row's consecutive entries */
template <bool UPPER>
__global__ void GKDenseTriMVKernel(PetscInt n, const GKScalar *__restrict__ a, const GKScalar *__restrict__ x, GKScalar *__restrict__ y)
{
  GKOverlapBegin();

  const PetscInt i    = ((PetscInt)blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int      lane = threadIdx.x % 32;
  GKScalar       s    = 0.0;

  if (i >= n) return; /* a whole warp leaves */
  for (PetscInt j = (UPPER ? i : 0) + lane; j < (UPPER ? n : i + 1); j += 32) s += a[i * n + j] * x[j];
  s = GKGroupSum<32>(s);
  if (!lane) y[i] = s;
}

static PetscErrorCode GKCUDADenseTriMV(PetscInt n, const PetscScalar *a, PetscBool upper, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  if (upper) GKCallCUDA(GKLaunchOverlapped(GKDenseTriMVKernel<true>, GKBlocks(32 * n), n, (const GKScalar *)a, (const GKScalar *)x, (GKScalar *)y));
  else GKCallCUDA(GKLaunchOverlapped(GKDenseTriMVKernel<false>, GKBlocks(32 * n), n, (const GKScalar *)a, (const GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* buf[k] = x[idx[k]]: the entries of x other processes need, packed */
__global__ void GKGatherKernel(PetscInt n, const PetscInt *__restrict__ idx, const GKScalar *__restrict__ x, GKScalar *__restrict__ buf)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) buf[k] = x[idx[k]];
}

static PetscErrorCode GKCUDAGather(PetscInt n, const PetscInt *idx, const PetscScalar *x, PetscScalar *buf)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKGatherKernel, GKBlocks(n), n, idx, (const GKScalar *)x, (GKScalar *)buf));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* CUDA's own answer: device or managed memory (pageable host memory is "unregistered", pinned
   host memory "host"); a pointer CUDA does not know is host memory */
static PetscErrorCode GKCUDAOnDevice(const void *p, PetscBool *dev)
{
  cudaPointerAttributes attr;

  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  if (!p) PetscFunctionReturn(0);
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    PetscFunctionReturn(0);
  }
  *dev = attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Page-locks host memory in place (a copy to or from it then runs at the bus's speed); where
   CUDA refuses (already registered, out of locked memory) the memory stays as it was */
static PetscErrorCode GKCUDAHostRegister(void *p, size_t bytes, PetscBool *ok)
{
  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  if (!p || !bytes) PetscFunctionReturn(0);
  if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) *ok = PETSC_TRUE;
  else (void)cudaGetLastError();
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAHostUnregister(void *p)
{
  PetscFunctionBegin;
  if (p && cudaHostUnregister(p) != cudaSuccess) (void)cudaGetLastError();
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAPageable(const void *p, PetscBool *flg)
{
  cudaPointerAttributes attr;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  if (!p) PetscFunctionReturn(0);
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) (void)cudaGetLastError();
  else *flg = attr.type == cudaMemoryTypeUnregistered ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAStageBuffer(int k, void **buf)
{
  PetscFunctionBegin;
  PetscCall(GKCUDAReady()); /* the early start's thread may be making them */
  GKCUDAStageMake();
  *buf = gk_stage.made && k >= 0 && k < GK_STAGE_PIECES ? gk_stage.buf[k] : NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAStageCopy(int k, void *dev, size_t bytes, GKMemcpyKind kind)
{
  PetscFunctionBegin;
  PetscCheck(gk_stage.made && k >= 0 && k < GK_STAGE_PIECES && bytes <= GK_STAGE_BYTES && kind != GK_MEMCPY_D2D, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "No staging buffer %d for %zu bytes", k, bytes);
  if (kind == GK_MEMCPY_H2D) GKCallCUDA(cudaMemcpyAsync(dev, gk_stage.buf[k], bytes, cudaMemcpyHostToDevice, GKCUDAStream));
  else GKCallCUDA(cudaMemcpyAsync(gk_stage.buf[k], dev, bytes, cudaMemcpyDeviceToHost, GKCUDAStream));
  GKCallCUDA(cudaEventRecord(gk_stage.ev[k], GKCUDAStream));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDAStageWait(int k)
{
  PetscFunctionBegin;
  if (gk_stage.made && k >= 0 && k < GK_STAGE_PIECES) GKWaitCUDA(cudaEventSynchronize(gk_stage.ev[k]));
  PetscFunctionReturn(0);
}

/* y[idx[k]] += buf[k], the indices distinct: what one other process sends back */
__global__ void GKScatterAddKernel(PetscInt n, const PetscInt *__restrict__ idx, const GKScalar *__restrict__ buf, GKScalar *__restrict__ y)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) y[idx[k]] += buf[k];
}

static PetscErrorCode GKCUDAScatterAdd(PetscInt n, const PetscInt *idx, const PetscScalar *buf, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKScatterAddKernel, GKBlocks(n), n, idx, (const GKScalar *)buf, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

const GKBackendOps GKBackendCUDA = {
  .name               = "cuda",
  .getdevicecount     = GKCUDAGetDeviceCount,
  .setdevice          = GKCUDASetDevice,
  .getdevicename      = GKCUDAGetDeviceName,
  .earlystart         = GKCUDAEarlyStart,
  .ready              = GKCUDAReady,
  .settle             = GKCUDASettle,
  .reserve            = GKCUDAReserve,
  .malloc             = GKCUDAMalloc,
  .free               = GKCUDAFree,
  .memcpy             = GKCUDAMemcpy,
  .memzero            = GKCUDAMemzero,
  .demote             = GKCUDADemote,
  .synchronize        = GKCUDASynchronize,
  .graphbegin         = GKCUDAGraphBegin,
  .graphend           = GKCUDAGraphEnd,
  .graphlaunch        = GKCUDAGraphLaunch,
  .graphdestroy       = GKCUDAGraphDestroy,
  .ellrmult           = GKCUDAEllrMult,
  .ellrgetdiagonal    = GKCUDAEllrGetDiagonal,
  .diamult            = GKCUDADiaMult,
  .diamulttranspose   = GKCUDADiaMultTranspose,
  .diagetdiagonal     = GKCUDADiaGetDiagonal,
  .ellrshortfits      = GKCUDAEllrShortFits,
  .checkcols          = GKCUDACheckCols,
  .csrsorted          = GKCUDACsrSorted,
  .ellrfill           = GKCUDAEllrFill,
  .diafill            = GKCUDADiaFill,
  .diaoffsets         = GKCUDADiaOffsets,
  .cooscatter         = GKCUDACooScatter,
  .axpbypczd          = GKCUDAAxpbypczd,
  .maxpy              = GKCUDAMaxpy,
  .swap               = GKCUDASwap,
  .pointwise          = GKCUDAPointwise,
  .reciprocal         = GKCUDAReciprocal,
  .conjugate          = GKCUDAConjugate,
  .abs                = GKCUDAAbs,
  .noisy              = GKCUDANoisy,
  .dots               = GKCUDADots,
  .dotnorm2           = GKCUDADotNorm2,
  .norms              = GKCUDANorms,
  .sum                = GKCUDASum,
  .arnoldi            = GKCUDAArnoldi,
  .removeconstant     = GKCUDARemoveConstant,
  .extreme            = GKCUDAExtreme,
  .firstzero          = GKCUDAFirstZero,
  .densetrimv         = GKCUDADenseTriMV,
  .gather             = GKCUDAGather,
  .scatteradd         = GKCUDAScatterAdd,
  .ondevice           = GKCUDAOnDevice,
  .hostregister       = GKCUDAHostRegister,
  .hostunregister     = GKCUDAHostUnregister,
  .hostmalloc         = GKCUDAHostMalloc,
  .hostfree           = GKCUDAHostFree,
  .pageable           = GKCUDAPageable,
  .stagebuffer        = GKCUDAStageBuffer,
  .stagecopy          = GKCUDAStageCopy,
  .stagewait          = GKCUDAStageWait,
  .ssorrows           = GKCUDASsorRows,
  .ssorblocks         = GKCUDASsorBlocks,
  .ellrsor            = GKCUDAEllrSor,
  .diasor             = GKCUDADiaSor,
  .greedycolor        = GKCUDAGreedyColor,
  .grouprows          = GKCUDAGroupRows,
  .krylovcreate       = GKCUDAKrylovCreate,
  .krylovdestroy      = GKCUDAKrylovDestroy,
  .krylovstep         = GKCUDAKrylovStep,
  .krylovupdate       = GKCUDAKrylovUpdate,
  .krylovssor         = GKCUDAKrylovSsor,
  .krylovupdateblocks = GKCUDAKrylovUpdateBlocks,
  .krylovdpi          = GKCUDAKrylovDpi,
  .krylovstatebegin   = GKCUDAKrylovStateBegin,
  .krylovstateend     = GKCUDAKrylovStateEnd,
  .krylovgather       = GKCUDAKrylovGather,
  .krylovgatherwait   = GKCUDAKrylovGatherWait,
  .krylovoffdiag      = GKCUDAKrylovOffDiag,
  .krylovgetsums      = GKCUDAKrylovGetSums,
  .krylovsetsums      = GKCUDAKrylovSetSums,
  .peerscreate        = GKCUDAPeersCreate,
  .peersopen          = GKCUDAPeersOpen,
  .peersdestroy       = GKCUDAPeersDestroy,
  .krylovsetpeers     = GKCUDAKrylovSetPeers,
  .peersghosts        = GKCUDAPeersGhosts,
  .peershalo          = GKCUDAPeersHalo,
  .spgemm             = GKCUDASpGEMM,
  .spgemmnumeric      = GKCUDASpGEMMNumeric,
  .spgemmplanfree     = GKCUDASpGEMMPlanFree,
  .transpose          = GKCUDACsrTranspose,
  .strength           = GKCUDAStrength,
  .aggregate          = GKCUDAAggregate,
  .tentative          = GKCUDATentative,
  .smooth             = GKCUDASmooth,
  .collapse           = GKCUDACollapse,
  .tentativeblock     = GKCUDATentativeBlock,
  .smoothblock        = GKCUDASmoothBlock,
  .q1interp           = GKCUDAQ1Interp,
  .finalize           = GKCUDAFinalizeAll,
};

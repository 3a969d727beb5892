/*
   The CUDA backend: the entry points of device.h as kernels and their launch wrappers. Each
   kernel computes exactly what its twin in host/host.c computes; the tests hold them to that.
*/
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include "cudaimpl.h"

/* The early start (device.h, earlystart): a thread of its own counts the devices, reads the
   chosen one's properties (then tells the waiting process), and creates its context. No PETSc
   call is made on it. The process's own thread keeps device 0 current unless it is told another:
   its first call that needs the context waits inside the runtime until the thread made it. */
static struct {
  pthread_t       thread;
  pthread_mutex_t lock;
  pthread_cond_t  found;
  int             started, counted, dev, localrank, count, major; /* started: under way or ended, not yet joined */
  cudaError_t     err;                                            /* of the count */
  cudaDeviceProp  prop;
} gk_early = {{}, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, -1, 0, 0, 0, cudaSuccess, {}};

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
  if (dev >= 0 && dev < n && cudaSetDevice(dev) == cudaSuccess && cudaFree(NULL) == cudaSuccess) GKCUDAStayLoaded();
  return NULL;
}

static PetscErrorCode GKCUDAEarlyStart(int dev, int localrank)
{
  PetscFunctionBegin;
  if (gk_early.started) PetscFunctionReturn(0);
  gk_early.dev       = dev;
  gk_early.localrank = localrank;
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

static PetscErrorCode GKCUDAPoolSetUp(void)
{
  int dev, has = 0;

  PetscFunctionBegin;
  gk_pool = 0;
  if (GKDevicePool) {
    GKCallCUDA(cudaGetDevice(&dev));
    GKCallCUDA(cudaDeviceGetAttribute(&has, cudaDevAttrMemoryPoolsSupported, dev));
  }
  if (has) {
    uint64_t keep = UINT64_MAX;

    GKCallCUDA(cudaDeviceGetDefaultMemPool(&gk_mempool, dev));
    GKCallCUDA(cudaMemPoolSetAttribute(gk_mempool, cudaMemPoolAttrReleaseThreshold, &keep));
    gk_pool = 1;
  }
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

/* PetscFinalize(): the library's buffers freed, and what the pool keeps handed back to the device
   (a program may go on after PetscFinalize(), or initialize PETSc again) */
static PetscErrorCode GKCUDAFinalizeAll(void)
{
  PetscFunctionBegin;
  PetscCall(GKCUDAFinalize());
  PetscCall(GKCUDASpGEMMFinalize());
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

/* A product's result y_i from its own entry v (device.h's products): v, or wi + v, or wi - v
   with neg, where wi = w[i] (GKOutLoad). The kernels a thread a row read it before the row's
   own loads, so that its latency hides behind theirs; the kernel of a group of lanes a row after
   them (see there). w may be y: y_i is written after w_i is read, by the same thread */
static __device__ __forceinline__ GKScalar GKOutLoad(const GKScalar *w, PetscInt i)
{
  return w ? w[i] : GKScalar(0.0);
}

static __device__ __forceinline__ GKScalar GKOut(const GKScalar *w, bool neg, GKScalar wi, GKScalar v)
{
  return w ? (neg ? wi - v : wi + v) : v;
}

/* y_i = (A x)_i (or w_i +- it: GKOut) for the wide slot s = wide[g], i its row, by the 32 lanes of a warp,
   its entries contiguous from wptr[g]: four entries a lane at a time, their values and columns
   loaded before their gathers, then one at a time */
template <bool CONJ, bool SHORT>
static __device__ __forceinline__ void GKEllrWideSlot(PetscInt g, int lane, const PetscInt *__restrict__ wide, const PetscInt *__restrict__ wptr,
                                                      const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                                      const short *__restrict__ dcol, const GKScalar *__restrict__ val,
                                                      const PetscInt *__restrict__ perm, const GKScalar *__restrict__ x, const GKScalar *w, bool neg,
                                                      GKScalar *__restrict__ y)
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
template <bool CONJ, bool PLAIN, bool SHORT, int NZ = 0>
__global__ void GKEllrMultKernel(PetscInt m, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                 const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                                 const short *__restrict__ dcol, const GKScalar *__restrict__ val, const PetscInt *__restrict__ perm, unsigned nbwide,
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

    if (g < nwide) GKEllrWideSlot<CONJ, SHORT>(g, threadIdx.x % 32, wide, wptr, rl, col, dcol, val, perm, x, w, neg, y);
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
template <bool CONJ, bool SHORT, int S>
__global__ void GKEllrMultRowsKernel(PetscInt m, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ col,
                                     const short *__restrict__ dcol, const GKScalar *__restrict__ val, const GKScalar *__restrict__ x,
                                     const GKScalar *w, bool neg, GKScalar *__restrict__ y)
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
template <bool CONJ, bool SHORT>
__global__ void __launch_bounds__(GK_BLOCK)
  GKEllrMultWindowKernel(PetscInt m, PetscInt n, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                         const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ rl, const PetscInt *__restrict__ col,
                         const short *__restrict__ dcol, const GKScalar *__restrict__ val, const PetscInt *__restrict__ perm, unsigned nbwide,
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

    if (g < nwide) GKEllrWideSlot<CONJ, SHORT>(g, threadIdx.x % 32, wide, wptr, rl, col, dcol, val, perm, x, w, neg, y);
  }
}

static PetscErrorCode GKCUDAEllrMult(const GKEllr *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  const unsigned  nb = GKBlocks(A->m), nbw = GKBlocks(32 * A->nwide);
  const PetscBool plain = A->h == A->m && !A->perm && !A->nwide ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  if (A->lanes) { /* one row a slice: a group of lanes a row */
    const unsigned nbr = (unsigned)(((PetscInt64)A->m * A->lanes + GK_BLOCK - 1) / GK_BLOCK);

#define GK_ELLR_MULT_ROWS(CONJ, SHORT, S) \
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultRowsKernel<CONJ, SHORT, S>, nbr, A->m, A->sliceptr, A->col, A->dcol, (const GKScalar *)A->val, \
                                (const GKScalar *)x, (const GKScalar *)w, (bool)neg, (GKScalar *)y))
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
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultWindowKernel<CONJ, SHORT>, nbwin + nbw, A->m, A->n, A->h, A->sliceptr, A->wfirst, A->wptr, A->rl, A->col, \
                                A->dcol, (const GKScalar *)A->val, A->perm, nbw, A->nwide, A->wide, (const GKScalar *)x, (const GKScalar *)w, \
                                (bool)neg, (GKScalar *)y))
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
  GKCallCUDA(GKLaunchOverlapped(GKEllrMultKernel<CONJ, PLAIN, SHORT, NZ>, PLAIN ? nb : nb + nbw, A->m, A->h, A->sliceptr, A->wfirst, A->wptr, A->rl, \
                                A->col, A->dcol, (const GKScalar *)A->val, A->perm, nbw, A->nwide, A->wide, (const GKScalar *)x, \
                                (const GKScalar *)w, (bool)neg, (GKScalar *)y))
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

/* y = A x (or w +- A x), one thread per row: each diagonal's values are read contiguously across the
   warp, and so is x, shifted by the offset (Jost et al., 3.3, update_q) */
template <int ND>
__global__ void GKDiaMultKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const GKScalar *__restrict__ val,
                                const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (i < m) {
    const GKScalar wi = GKOutLoad(w, i);
    const GKScalar s  = GKDiaRow<ND>(i, m, n, ndiag, off, val, GKVecIn{x});

    y[i] = GKOut(w, neg, wi, s);
  }
}

static PetscErrorCode GKCUDADiaMult(const GKDia *A, const PetscScalar *x, const PetscScalar *w, PetscBool neg, PetscScalar *y)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
#define GK_LAUNCH(ND) \
  GKCallCUDA(GKLaunchOverlapped(GKDiaMultKernel<ND>, GKBlocks(A->m), A->m, A->n, A->ndiag, A->off, (const GKScalar *)A->val, (const GKScalar *)x, \
                                (const GKScalar *)w, (bool)neg, (GKScalar *)y))
  GKDiaDispatch(A->ndiag, GK_LAUNCH);
#undef GK_LAUNCH
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* y = A^T x (or w +- A^T x), one thread per column j of A: entry (j - off[d], j) of diagonal d, so the
   same arrays serve, still read contiguously across the warp */
template <bool CONJ>
__global__ void GKDiaMultTransposeKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const GKScalar *__restrict__ val,
                                         const GKScalar *__restrict__ x, const GKScalar *w, bool neg, GKScalar *__restrict__ y)
{
  const PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  GKOverlapBegin();
  if (j < n) {
    const GKScalar wj = GKOutLoad(w, j);
    const GKScalar s  = GKDiaTransposeRow<CONJ>(j, m, ndiag, off, val, GKVecIn{x});

    y[j] = GKOut(w, neg, wj, s);
  }
}

static PetscErrorCode GKCUDADiaMultTranspose(const GKDia *A, PetscBool conj, const PetscScalar *x, const PetscScalar *w, PetscBool neg,
                                             PetscScalar *y)
{
  PetscFunctionBegin;
  if (!A->n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(conj ? GKDiaMultTransposeKernel<true> : GKDiaMultTransposeKernel<false>, GKBlocks(A->n), A->m, A->n, A->ndiag, A->off,
                                (const GKScalar *)A->val, (const GKScalar *)x, (const GKScalar *)w, (bool)neg, (GKScalar *)y));
  GKCheckLaunch();
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

static PetscErrorCode GKCUDAEllrGetDiagonal(const GKEllr *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKEllrGetDiagonalKernel, GKBlocks(A->m), A->m, A->h, A->sliceptr, A->wfirst, A->wptr, A->rl, A->col, A->dcol,
                                (const GKScalar *)A->val, A->perm, (GKScalar *)diag));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* the formats filled from CSR arrays on the device (device.h, ellrfill, diafill): a thread a slot
   (ELLPACK-R: consecutive slots write consecutive entries of a slice) or a row (DIA) */
static __device__ int gk_flag; /* ellrshortfits: set where some column does not fit */

__global__ void GKEllrShortFitsKernel(PetscInt m, const PetscInt *__restrict__ perm, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (t < m) {
    const PetscInt i = perm ? perm[t] : t;

    for (PetscInt k = ai[i]; k < ai[i + 1]; k++)
      if (aj[k] - t < SHRT_MIN || aj[k] - t > SHRT_MAX) gk_flag = 1;
  }
}

static PetscErrorCode GKCUDAEllrShortFits(const GKEllr *E, const PetscInt *ai, const PetscInt *aj, PetscBool *fits)
{
  int flag = 0;

  PetscFunctionBegin;
  *fits = PETSC_TRUE;
  if (!E->m) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_flag, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKEllrShortFitsKernel<<<GKBlocks(E->m), GK_BLOCK, 0, GKCUDAStream>>>(E->m, E->perm, ai, aj);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpyFromSymbol(&flag, gk_flag, sizeof(int)));
  *fits = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

__global__ void GKCheckColsKernel(PetscInt nnz, PetscInt n, const PetscInt *__restrict__ aj)
{
  for (PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; k < nnz; k += (PetscInt)gridDim.x * blockDim.x)
    if (aj[k] < 0 || aj[k] >= n) gk_flag = 1;
}

static PetscErrorCode GKCUDACheckCols(PetscInt nnz, PetscInt n, const PetscInt *aj, PetscBool *ok)
{
  int flag = 0;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (!nnz) PetscFunctionReturn(0);
  GKCallCUDA(cudaMemcpyToSymbolAsync(gk_flag, &flag, sizeof(int), 0, cudaMemcpyHostToDevice, GKCUDAStream));
  GKCounts.launches += 1;
  GKCheckColsKernel<<<GKBlocks(nnz), GK_BLOCK, 0, GKCUDAStream>>>(nnz, n, aj);
  GKCheckLaunch();
  GKWaitCUDA(cudaMemcpyFromSymbol(&flag, gk_flag, sizeof(int)));
  *ok = flag ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

__global__ void GKEllrFillKernel(PetscInt m, PetscInt h, const PetscInt *__restrict__ sliceptr, const PetscInt *__restrict__ wfirst,
                                 const PetscInt *__restrict__ wptr, const PetscInt *__restrict__ perm, const PetscInt *__restrict__ ai,
                                 const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa, PetscInt *__restrict__ rl,
                                 PetscInt *__restrict__ col, short *__restrict__ dcol, GKScalar *__restrict__ val)
{
  const PetscInt t = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; /* the slot */

  if (t < m) {
    const PetscInt i = perm ? perm[t] : t, a0 = ai[i], len = ai[i + 1] - a0;
    PetscInt       base, st;

    GKEllrSlot(t, h, sliceptr, wfirst, wptr, &base, &st);
    if (rl) rl[t] = len;
    for (PetscInt k = 0; k < len; k++) {
      val[base + k * st] = aa[a0 + k];
      if (dcol) dcol[base + k * st] = (short)(aj[a0 + k] - t);
      else if (col) col[base + k * st] = aj[a0 + k];
    }
  }
}

static PetscErrorCode GKCUDAEllrFill(GKEllr *E, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa, PetscBool valuesonly)
{
  PetscFunctionBegin;
  if (!E->m) PetscFunctionReturn(0);
  GKEllrFillKernel<<<GKBlocks(E->m), GK_BLOCK, 0, GKCUDAStream>>>(E->m, E->h, E->sliceptr, E->wfirst, E->wptr, E->perm, ai, aj, (const GKScalar *)aa,
                                                                  valuesonly ? NULL : E->rl, valuesonly ? NULL : E->col, valuesonly ? NULL : E->dcol,
                                                                  (GKScalar *)E->val);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKDiaOffsetsKernel(PetscInt m, const PetscInt *__restrict__ ai, const PetscInt *__restrict__ aj, char *__restrict__ flag)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) flag[aj[k] - i + m - 1] = 1; /* every writer writes 1 */
}

static PetscErrorCode GKCUDADiaOffsets(PetscInt m, const PetscInt *ai, const PetscInt *aj, char *flag)
{
  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(0);
  GKDiaOffsetsKernel<<<GKBlocks(m), GK_BLOCK, 0, GKCUDAStream>>>(m, ai, aj, flag);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

__global__ void GKDiaFillKernel(PetscInt m, PetscInt ndiag, const PetscInt *__restrict__ off, const PetscInt *__restrict__ ai,
                                const PetscInt *__restrict__ aj, const GKScalar *__restrict__ aa, GKScalar *__restrict__ val)
{
  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      PetscInt lo = 0, hi = ndiag - 1; /* the diagonal of offset aj[k] - i, by bisection */

      while (lo < hi) {
        const PetscInt mid = (lo + hi) / 2;

        if (off[mid] < aj[k] - i) lo = mid + 1;
        else hi = mid;
      }
      val[(size_t)lo * m + i] = aa[k];
    }
  }
}

static PetscErrorCode GKCUDADiaFill(GKDia *D, const PetscInt *ai, const PetscInt *aj, const PetscScalar *aa)
{
  PetscFunctionBegin;
  if (!D->m) PetscFunctionReturn(0);
  GKDiaFillKernel<<<GKBlocks(D->m), GK_BLOCK, 0, GKCUDAStream>>>(D->m, D->ndiag, D->off, ai, aj, (const GKScalar *)aa, (GKScalar *)D->val);
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* d[i] = A(i,i): row i of the offset-0 diagonal */
__global__ void GKDiaGetDiagonalKernel(PetscInt m, PetscInt n, PetscInt ndiag, const PetscInt *__restrict__ off, const GKScalar *__restrict__ val,
                                       GKScalar *__restrict__ diag)
{
  GKOverlapBegin();

  const PetscInt i = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (i < m) {
    GKScalar s = 0.0;

    for (PetscInt d = 0; d < ndiag; d++)
      if (off[d] == 0 && i < n) s = val[(size_t)d * m + i];
    diag[i] = s;
  }
}

static PetscErrorCode GKCUDADiaGetDiagonal(const GKDia *A, PetscScalar *diag)
{
  PetscFunctionBegin;
  if (!A->m) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKDiaGetDiagonalKernel, GKBlocks(A->m), A->m, A->n, A->ndiag, A->off, (const GKScalar *)A->val, (GKScalar *)diag));
  GKCheckLaunch();
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

/* COO assembly (device.h): a thread a nonzero, summing its entries in PETSc's order */
__global__ void GKCooScatterKernel(PetscInt nnz, const PetscCount *__restrict__ jmap, const PetscCount *__restrict__ perm,
                                   const GKScalar *__restrict__ v, int add, GKScalar *__restrict__ a)
{
  GKOverlapBegin();

  const PetscInt p = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (p < nnz) {
    GKScalar sum = 0.0;

    for (PetscCount q = jmap[p]; q < jmap[p + 1]; q++) sum += v[perm[q]];
    a[p] = (add ? a[p] : GKScalar(0.0)) + sum;
  }
}

static PetscErrorCode GKCUDACooScatter(PetscInt nnz, const PetscCount *jmap, const PetscCount *perm, const PetscScalar *v, PetscBool add,
                                       PetscScalar *a)
{
  PetscFunctionBegin;
  if (!nnz) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKCooScatterKernel, GKBlocks(nnz), nnz, jmap, perm, (const GKScalar *)v, add ? 1 : 0, (GKScalar *)a));
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

/* SSOR's step (device.h): a thread per listed row. In place the rows of one list (a level, a
   colour) never read each other's entries, so the order within a launch does not matter. */
__global__ void GKSsorRowsKernel(PetscInt n, const PetscInt *__restrict__ rows, const PetscInt *__restrict__ ptr, const PetscInt *__restrict__ col,
                                 const GKScalar *__restrict__ val, const GKScalar *__restrict__ d, GKSsorStep step, double omega, const GKScalar *b,
                                 const GKScalar *xin, GKScalar *xout)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt i = rows ? rows[k] : k;
    GKScalar       s = 0.0;

    for (PetscInt e = ptr[i]; e < ptr[i + 1]; e++) s += val[e] * xin[col[e]];
    if (step == GK_SSOR_UPPER_SSOR) xout[i] = (2.0 - omega) * b[i] - omega * s / d[i];
    else if (step == GK_SSOR_UPPER_MULT) xout[i] = d[i] / omega * xin[i] + s;
    else xout[i] = omega * (b[i] - s) / d[i];
  }
}

static PetscErrorCode GKCUDASsorRows(const GKSsor *S, GKSsorStep step, PetscInt nrows, const PetscInt *rows, PetscReal omega, const PetscScalar *b,
                                     const PetscScalar *xin, PetscScalar *xout)
{
  const PetscInt  n     = rows ? nrows : S->m;
  const PetscBool upper = step != GK_SSOR_LOWER ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped(GKSsorRowsKernel, GKBlocks(n), n, rows, upper ? S->uptr : S->lptr, upper ? S->ucol : S->lcol,
                                (const GKScalar *)(upper ? S->uval : S->lval), (const GKScalar *)S->d, step, omega, (const GKScalar *)b,
                                (const GKScalar *)xin, (GKScalar *)xout));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* MatSOR's step, or SOR_APPLY_UPPER's product (UPPER), on ELLPACK-R and DIA (device.h): a thread
   per listed row; which entries a row sums */
template <bool UPPER>
static __device__ __forceinline__ bool GKSorTakes(PetscInt i, PetscInt j, const PetscInt *__restrict__ key)
{
  if constexpr (UPPER) return key ? key[j] > key[i] : j > i;
  else return j != i;
}

template <bool UPPER>
static __device__ __forceinline__ void GKSorStore(PetscInt i, GKScalar s, const GKScalar *__restrict__ d, double omega, const GKScalar *b,
                                                  const GKScalar *x, GKScalar *y)
{
  if constexpr (UPPER) y[i] = d[i] / omega * x[i] + s;
  else y[i] = (1.0 - omega) * x[i] + omega * (b[i] - s) / d[i];
}

template <bool UPPER>
__global__ void GKEllrSorKernel(PetscInt n, const PetscInt *__restrict__ slots, GKEllr A, const PetscInt *__restrict__ key,
                                const GKScalar *__restrict__ d, double omega, const GKScalar *b, const GKScalar *x, GKScalar *y)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt  t = slots ? slots[k] : k, i = A.perm ? A.perm[t] : t;
    const GKScalar *val = (const GKScalar *)A.val;
    GKScalar        s   = 0.0;
    PetscInt        base, st;

    GKEllrSlot(t, A.h, A.sliceptr, A.wfirst, A.wptr, &base, &st);
    for (PetscInt e = 0; e < A.rl[t]; e++) {
      const PetscInt j = GKEllrCol<-1>(t, A.col, A.dcol, base + e * st);

      if (GKSorTakes<UPPER>(i, j, key)) s += val[base + e * st] * x[j];
    }
    GKSorStore<UPPER>(i, s, d, omega, b, x, y);
  }
}

template <bool UPPER>
__global__ void GKDiaSorKernel(PetscInt n, const PetscInt *__restrict__ rows, GKDia A, const PetscInt *__restrict__ key,
                               const GKScalar *__restrict__ d, double omega, const GKScalar *b, const GKScalar *x, GKScalar *y)
{
  GKOverlapBegin();

  const PetscInt k = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x;

  if (k < n) {
    const PetscInt  i   = rows ? rows[k] : k;
    const GKScalar *val = (const GKScalar *)A.val;
    GKScalar        s   = 0.0;

    for (PetscInt q = 0; q < A.ndiag; q++) {
      const PetscInt j = i + A.off[q];

      if (j >= 0 && j < A.n && GKSorTakes<UPPER>(i, j, key)) s += val[q * A.m + i] * x[j];
    }
    GKSorStore<UPPER>(i, s, d, omega, b, x, y);
  }
}

static PetscErrorCode GKCUDAEllrSor(const GKEllr *A, PetscInt nrows, const PetscInt *slots, const PetscInt *key, PetscBool upper,
                                    const PetscScalar *d, PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = slots ? nrows : A->m;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped((upper ? GKEllrSorKernel<true> : GKEllrSorKernel<false>), GKBlocks(n), n, slots, *A, key, (const GKScalar *)d, omega,
                                (const GKScalar *)b, (const GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDADiaSor(const GKDia *A, PetscInt nrows, const PetscInt *rows, const PetscInt *key, PetscBool upper, const PetscScalar *d,
                                   PetscReal omega, const PetscScalar *b, const PetscScalar *x, PetscScalar *y)
{
  const PetscInt n = rows ? nrows : A->m;

  PetscFunctionBegin;
  if (!n) PetscFunctionReturn(0);
  GKCallCUDA(GKLaunchOverlapped((upper ? GKDiaSorKernel<true> : GKDiaSorKernel<false>), GKBlocks(n), n, rows, *A, key, (const GKScalar *)d, omega,
                                (const GKScalar *)b, (const GKScalar *)x, (GKScalar *)y));
  GKCheckLaunch();
  PetscFunctionReturn(0);
}

/* SSOR's step with blocks (device.h): a thread per block of the colour */
template <int BS>
__global__ void GKSsorBlocksKernel(GKSsor S, GKSsorColor c, GKSsorStep step, double omega, const GKScalar *b, const GKScalar *xin, GKScalar *xout)
{
  GKOverlapBegin();

  const bool mult = step == GK_SSOR_UPPER_MULT || step == GK_SSOR_BLOCK_Z;

  for (PetscInt j = (PetscInt)blockIdx.x * blockDim.x + threadIdx.x; j < c.nb; j += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt           rw[BS];
    GKSsorBlockFac<BS> F;
    const int          n = F.block(S, c, j, rw);
    GKScalar           s[BS], v[BS];

#pragma unroll
    for (int l = 0; l < BS; l++) {
      s[l] = l < n && step != GK_SSOR_BLOCK_Z ? GKSsorBlockRow<BS>(S, c, step == GK_SSOR_LOWER ? 0 : 1, j, l, xin) : GKScalar(0.0);
      v[l] = l >= n ? GKScalar(0.0) : step == GK_SSOR_UPPER_SSOR ? s[l] : mult ? xin[rw[l]] : b[rw[l]] - s[l];
    }
    if (mult) F.mult(v);
    else F.solve(v);
#pragma unroll
    for (int l = 0; l < BS; l++) {
      if (l >= n) break;
      if (step == GK_SSOR_UPPER_SSOR) xout[rw[l]] = (2.0 - omega) * b[rw[l]] - omega * v[l];
      else if (step == GK_SSOR_UPPER_MULT) xout[rw[l]] = v[l] / omega + s[l];
      else if (step == GK_SSOR_BLOCK_Z) xout[rw[l]] = ((2.0 - omega) / omega) * v[l];
      else xout[rw[l]] = omega * v[l];
    }
  }
}

template <int BS>
static PetscErrorCode GKSsorBlocksLaunch(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b,
                                         const PetscScalar *xin, PetscScalar *xout)
{
  PetscFunctionBegin;
  GKCallCUDA(
    GKLaunchOverlapped(GKSsorBlocksKernel<BS>, GKBlocks(c->nb), *S, *c, step, omega, (const GKScalar *)b, (const GKScalar *)xin, (GKScalar *)xout));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKCUDASsorBlocks(const GKSsor *S, GKSsorStep step, const GKSsorColor *c, PetscReal omega, const PetscScalar *b,
                                       const PetscScalar *xin, PetscScalar *xout)
{
  PetscFunctionBegin;
  if (!c->nb) PetscFunctionReturn(0);
  GKSsorBlockDispatch(S->bs, GKSsorBlocksLaunch, S, step, c, omega, b, xin, xout);
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
  .malloc             = GKCUDAMalloc,
  .free               = GKCUDAFree,
  .memcpy             = GKCUDAMemcpy,
  .memzero            = GKCUDAMemzero,
  .synchronize        = GKCUDASynchronize,
  .graphbegin         = GKCUDAGraphBegin,
  .graphend           = GKCUDAGraphEnd,
  .graphlaunch        = GKCUDAGraphLaunch,
  .graphdestroy       = GKCUDAGraphDestroy,
  .ellrmult           = GKCUDAEllrMult,
  .diamult            = GKCUDADiaMult,
  .diamulttranspose   = GKCUDADiaMultTranspose,
  .ellrgetdiagonal    = GKCUDAEllrGetDiagonal,
  .ellrshortfits      = GKCUDAEllrShortFits,
  .checkcols          = GKCUDACheckCols,
  .ellrfill           = GKCUDAEllrFill,
  .diafill            = GKCUDADiaFill,
  .diaoffsets         = GKCUDADiaOffsets,
  .diagetdiagonal     = GKCUDADiaGetDiagonal,
  .axpbypczd          = GKCUDAAxpbypczd,
  .maxpy              = GKCUDAMaxpy,
  .swap               = GKCUDASwap,
  .pointwise          = GKCUDAPointwise,
  .reciprocal         = GKCUDAReciprocal,
  .conjugate          = GKCUDAConjugate,
  .noisy              = GKCUDANoisy,
  .dots               = GKCUDADots,
  .dotnorm2           = GKCUDADotNorm2,
  .norms              = GKCUDANorms,
  .sum                = GKCUDASum,
  .extreme            = GKCUDAExtreme,
  .densetrimv         = GKCUDADenseTriMV,
  .gather             = GKCUDAGather,
  .scatteradd         = GKCUDAScatterAdd,
  .cooscatter         = GKCUDACooScatter,
  .ondevice           = GKCUDAOnDevice,
  .hostregister       = GKCUDAHostRegister,
  .hostunregister     = GKCUDAHostUnregister,
  .ssorrows           = GKCUDASsorRows,
  .ssorblocks         = GKCUDASsorBlocks,
  .ellrsor            = GKCUDAEllrSor,
  .diasor             = GKCUDADiaSor,
  .hostmalloc         = GKCUDAHostMalloc,
  .hostfree           = GKCUDAHostFree,
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
  .finalize           = GKCUDAFinalizeAll,
};

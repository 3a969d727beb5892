/*
   The sys layer: the backend and device of this process, the log events, and the counted
   host/device copies every layer above the backend goes through. It knows no type of the
   layers above; src/gpukitreg.c registers those.
*/
#if !defined(_POSIX_C_SOURCE)
  #define _POSIX_C_SOURCE 200112L /* setenv under -std=c99 */
#endif
#include <stdlib.h>
#include <unistd.h> /* access: whether NVIDIA MPS runs */
#include "include/gpukitimpl.h"
#if defined(OPEN_MPI) && OPEN_MPI
  #include <mpi-ext.h> /* MPIX_Query_cuda_support() */
#endif

const char *const PetscGPUKitBackendTypes[] = {"auto", "cuda", "host", "PetscGPUKitBackendType", "PETSCGPUKIT_BACKEND_", NULL};
const char *const PetscGPUKitStorages[]     = {"double", "single", "PetscGPUKitStorage", "PETSCGPUKIT_STORAGE_", NULL};

PetscClassId  GK_CLASSID;
PetscLogEvent GK_MatMult, GK_MatMultT, GK_MatGetDiag, GK_MatToDevice, GK_MemcpyH2D, GK_MemcpyD2H, GK_VecOp, GK_VecReduce, GK_SSOR, GK_DeviceInit,
  GK_SpGEMM, GK_MatFromDevice;
const GKBackendOps *GKDev = NULL;

static PetscBool                 gk_initialized = PETSC_FALSE;
static PetscGPUKitBackendType    gk_backend     = PETSCGPUKIT_BACKEND_AUTO; /* resolved: cuda or host */
static int                       gk_device = -1, gk_localrank = 0, gk_localsize = 1;
static PetscBool                 gk_early         = PETSC_FALSE;            /* the CUDA backend's early start is under way */
static PetscBool                 gk_aware         = PETSC_FALSE;            /* MPI takes device memory */
static PetscBool                 gk_gpu_time      = PETSC_FALSE;            /* -log_view_gpu_time: the events wait for the device */
static PetscInt                  gk_staged_min    = (PetscInt)GK_STAGE_MIN; /* -gpukit_staged_copy_min: the smallest copy staged */
PetscBool                        GKOverlapKernels = PETSC_TRUE;
PetscBool                        GKDevicePool     = PETSC_TRUE;
PetscReal                        GKDeviceReserve  = 4.0;
PetscInt                         GKDenseSolveMax  = 1024;
static PetscGPUKitTransferCounts gk_counts;

/* Where -log_view's value ([type][:file][:format][:mode], PetscOptionsGetViewer()'s form) puts
   PETSc's text log: *text where the log is PETSc's table (an ASCII viewer with the default
   format, or ascii_info), the only one the transfer summary's line may follow; file, the file
   named, empty for standard output. The other formats are read by programs (ascii_xml,
   ascii_flamegraph, ascii_csv, ascii_info_detail's Python), which a line more would break */
static PetscErrorCode GKLogViewText_Private(const char value[], char file[], size_t len, PetscBool *text)
{
  char      buf[PETSC_MAX_PATH_LEN], *part[4] = {NULL, NULL, NULL, NULL}, *c;
  PetscInt  n = 0;
  PetscBool ascii, plain, info;

  PetscFunctionBegin;
  file[0] = 0;
  PetscCall(PetscStrncpy(buf, value, sizeof(buf)));
  part[n++] = buf;
  for (c = buf; *c && n < 4; c++)
    if (*c == ':') {
      *c        = 0;
      part[n++] = c + 1;
    }
  PetscCall(PetscStrcmp(part[0], "", &plain));
  PetscCall(PetscStrcmp(part[0], PETSCVIEWERASCII, &ascii));
  *text = (PetscBool)(plain || ascii);
  if (n > 2 && *text) {
    PetscCall(PetscStrcmp(part[2], "", &plain));
    PetscCall(PetscStrcasecmp(part[2], PetscViewerFormats[PETSC_VIEWER_DEFAULT], &ascii));
    PetscCall(PetscStrcasecmp(part[2], PetscViewerFormats[PETSC_VIEWER_ASCII_INFO], &info));
    *text = (PetscBool)(plain || ascii || info);
  }
  if (n > 1) PetscCall(PetscStrncpy(file, part[1], len));
  PetscFunctionReturn(0);
}

/*@C
   PetscGPUKitFinalizePackage - Prints the transfer summary under -log_view and forgets the
   backend; called from PetscFinalize().

   Level: developer

.seealso: `PetscGPUKitInitializePackage()`
@*/
PetscErrorCode PetscGPUKitFinalizePackage(void)
{
  PetscBool view = PETSC_FALSE, text = PETSC_FALSE;
  char      value[PETSC_MAX_PATH_LEN] = "", file[PETSC_MAX_PATH_LEN] = "";

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-log_view", value, sizeof(value), &view));
  if (view) PetscCall(GKLogViewText_Private(value, file, sizeof(file), &text));
  if (view && text) { /* every process takes part, whether it used the library or not */
    PetscLogDouble loc[5] = {gk_counts.h2d_count, gk_counts.h2d_bytes, gk_counts.d2h_count, gk_counts.d2h_bytes, GKDev ? 1.0 : 0.0}, tot[5];
    char           b1[32], b2[32];
    FILE          *fp = PETSC_STDOUT;

    PetscCall(MPIU_Allreduce(loc, tot, 5, MPIU_PETSCLOGDOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(GKFormatBytes_Private(tot[1], b1, sizeof(b1)));
    PetscCall(GKFormatBytes_Private(tot[3], b2, sizeof(b2)));
    if (file[0]) PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "a", &fp));
    if (tot[4] > 0)
      PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp,
                             "petsc-gpukit transfers (%.0f processes): host to device %.0f copies, %s; device to host %.0f copies, %s\n", tot[4],
                             tot[0], b1, tot[2], b2));
    if (file[0]) PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  }
  PetscCall(PetscGPUKitDeviceReady_Private());                 /* before the library can be unloaded */
  if (GKBackendCUDA.settle) PetscCall(GKBackendCUDA.settle()); /* and whatever else it began */
  if (GKDev) PetscCall(GKDev->finalize());
  GKDev            = NULL;
  gk_backend       = PETSCGPUKIT_BACKEND_AUTO;
  gk_device        = -1;
  gk_aware         = PETSC_FALSE;
  gk_gpu_time      = PETSC_FALSE;
  gk_staged_min    = (PetscInt)GK_STAGE_MIN;
  GKOverlapKernels = PETSC_TRUE;
  GKDevicePool     = PETSC_TRUE;
  GKDeviceReserve  = 4.0;
  GKDenseSolveMax  = 1024;
  gk_initialized   = PETSC_FALSE;
  PetscCall(PetscMemzero(&gk_counts, sizeof(gk_counts)));
  PetscFunctionReturn(0);
}

/* The sys layer's part of PetscGPUKitInitializePackage() (src/gpukitreg.c): the class and the
   log events, and this process's rank on its node. *first says whether this call did it, once
   per PetscInitialize() */
PetscErrorCode PetscGPUKitSysInitialize_Private(PetscBool *first)
{
  MPI_Comm node;

  PetscFunctionBegin;
  *first = gk_initialized ? PETSC_FALSE : PETSC_TRUE;
  if (gk_initialized) PetscFunctionReturn(0);
  gk_initialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("GPU kit", &GK_CLASSID));
  PetscCall(PetscLogEventRegister("GKDeviceInit", GK_CLASSID, &GK_DeviceInit));
  PetscCall(PetscLogEventRegister("GKMatMult", GK_CLASSID, &GK_MatMult));
  PetscCall(PetscLogEventRegister("GKMatMultTr", GK_CLASSID, &GK_MatMultT));
  PetscCall(PetscLogEventRegister("GKMatGetDiag", GK_CLASSID, &GK_MatGetDiag));
  PetscCall(PetscLogEventRegister("GKMatToDevice", GK_CLASSID, &GK_MatToDevice));
  PetscCall(PetscLogEventRegister("GKMemcpyH2D", GK_CLASSID, &GK_MemcpyH2D));
  PetscCall(PetscLogEventRegister("GKMemcpyD2H", GK_CLASSID, &GK_MemcpyD2H));
  PetscCall(PetscLogEventRegister("GKVecUpdate", GK_CLASSID, &GK_VecOp));
  PetscCall(PetscLogEventRegister("GKVecReduce", GK_CLASSID, &GK_VecReduce));
  PetscCall(PetscLogEventRegister("GKSSOR", GK_CLASSID, &GK_SSOR));
  PetscCall(PetscLogEventRegister("GKSpGEMM", GK_CLASSID, &GK_SpGEMM));
  PetscCall(PetscLogEventRegister("GKMatFromDevice", GK_CLASSID, &GK_MatFromDevice)); /* a host matrix's pattern from a device CSR */
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_rank(node, &gk_localrank));
  PetscCallMPI(MPI_Comm_size(node, &gk_localsize));
  PetscCallMPI(MPI_Comm_free(&node));
  PetscCall(PetscRegisterFinalize(PetscGPUKitFinalizePackage));
  /* the CUDA driver and context start now, beside the program's first host work (the CUDA
     backend's earlystart), unless the host backend is asked for; a PETSc with CUDA chooses the
     device itself, later */
#if !defined(PETSC_HAVE_CUDA)
  {
    char      bname[16] = "auto";
    PetscInt  dev = -1, conns = 1;
    PetscBool early = PETSC_TRUE, preload = PETSC_TRUE, ishost;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-gpukit_backend", bname, sizeof(bname), NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-gpukit_device", &dev, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpukit_start_early", &early, NULL));
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-gpukit_cusparse_preload", &preload, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-gpukit_device_connections", &conns, NULL));
    PetscCall(PetscStrcasecmp(bname, "host", &ishost));
    PetscCheck(conns >= 0 && conns <= 32, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "-gpukit_device_connections %" PetscInt_FMT
               ": give 1 to 32 (the CUDA context's hardware work queues), or 0 to leave CUDA's own default",
               conns);
    /* The library launches everything on one stream, so one hardware queue serves it; a context
       with fewer queues is made faster, and under NVIDIA MPS the processes' contexts are made one
       after another. Set before the first CUDA call, unless
       the environment already says */
    if (!ishost && conns > 0) {
      const char *env = getenv("CUDA_DEVICE_MAX_CONNECTIONS");

      if (!env) {
        char v[8];

        PetscCall(PetscSNPrintf(v, sizeof(v), "%d", (int)conns));
        PetscCheck(!setenv("CUDA_DEVICE_MAX_CONNECTIONS", v, 0), PETSC_COMM_SELF, PETSC_ERR_SYS,
                   "Could not set CUDA_DEVICE_MAX_CONNECTIONS in the environment");
        PetscCall(PetscInfo(NULL, "petsc-gpukit: CUDA_DEVICE_MAX_CONNECTIONS=%s, set by the library (-gpukit_device_connections)\n", v));
      } else PetscCall(PetscInfo(NULL, "petsc-gpukit: CUDA_DEVICE_MAX_CONNECTIONS=%s, from the environment\n", env));
    } else PetscCall(PetscInfo(NULL, "petsc-gpukit: CUDA_DEVICE_MAX_CONNECTIONS left to CUDA\n"));
    if (early && !ishost && GKBackendCUDA.earlystart) {
      PetscCall(GKBackendCUDA.earlystart(dev >= 0 ? (int)dev : -1, gk_localrank, preload));
      gk_early = PETSC_TRUE;
    }
  }
#endif
  PetscFunctionReturn(0);
}

/* Chooses this process's backend and device, once, when the first object needs them */
PetscErrorCode PetscGPUKitBackendSetUp_Private(void)
{
  char      bname[16] = "auto", why[256], devname[256];
  PetscInt  dev = -1, conns = 1, threads = 0; /* conns: shown under -help, acted on at PetscInitialize(); threads: read where used (gkthreads.c) */
  PetscBool devset             = PETSC_FALSE, found;
  PetscGPUKitBackendType req   = PETSCGPUKIT_BACKEND_AUTO;
  int                    count = 0;

  PetscFunctionBegin;
  if (GKDev) PetscFunctionReturn(0);
  PetscCheck(gk_initialized, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call PetscGPUKitInitializePackage() first (or load the library with -dll_append)");
  PetscOptionsBegin(PETSC_COMM_SELF, NULL, "petsc-gpukit options", "Sys");
  PetscCall(PetscOptionsString("-gpukit_backend", "Where the kernels run: auto (the GPU when one is visible), cuda or host", "PetscGPUKitGetBackend",
                               bname, bname, sizeof(bname), NULL));
  PetscCall(PetscOptionsInt("-gpukit_device", "The CUDA device of this process (default: its rank on the node modulo the device count)",
                            "PetscGPUKitGetDevice", dev, &dev, &devset));
  PetscCall(
    PetscOptionsBool("-gpukit_overlap_kernels",
                     "Let each kernel of the library (the fused kernels of cggpu and bicggpu, the products, the vector operations, device copies and "
                     "zeroings) start while the kernel before it ends (programmatic dependent launch, GPUs of compute capability 9.0 and later)",
                     NULL, GKOverlapKernels, &GKOverlapKernels, NULL));
  PetscCall(PetscOptionsBool("-gpukit_start_early",
                             "Start the CUDA driver and context when the library is loaded, on a thread of their own, so that they overlap the "
                             "program's first host work (read at PetscInitialize(); the wait shows as GKDeviceInit)",
                             NULL, PETSC_TRUE, NULL, NULL));
  PetscCall(PetscOptionsBool("-gpukit_cusparse_preload",
                             "With -gpukit_start_early and more than one core for this process: load cuSPARSE (the device's sparse products, "
                             "GAMG's and Galerkin coarse operators) on a thread of its own after the context, so that the first product does not "
                             "wait for it (read at PetscInitialize())",
                             NULL, PETSC_TRUE, NULL, NULL));
  PetscCall(PetscOptionsInt("-gpukit_device_connections",
                            "Hardware work queues of this process's CUDA context (CUDA_DEVICE_MAX_CONNECTIONS, set unless the environment does; 0: "
                            "CUDA's default, 8): one serves the library's single stream, and such a context is made twice as fast under NVIDIA MPS "
                            "(read at PetscInitialize())",
                            NULL, conns, &conns, NULL));
  PetscCall(PetscOptionsBool("-gpukit_device_pool",
                             "Take device memory from the device's memory pool, which keeps what is freed for the next allocation (cudaMallocAsync), "
                             "instead of cudaMalloc and cudaFree, which waits for the device",
                             NULL, GKDevicePool, &GKDevicePool, NULL));
  PetscCall(PetscOptionsReal("-gpukit_device_reserve",
                             "With -gpukit_device_pool: have the pool make room, on a thread of its own, for this many times the bytes of a matrix's "
                             "entries once it is assembled on the host and before its first copy to the device, where they are at least 16 MiB "
                             "(a GAMG setup's device memory; the first allocations of new memory otherwise wait for it to be mapped); at most a "
                             "quarter of the device's free memory; 0: none",
                             NULL, GKDeviceReserve, &GKDeviceReserve, NULL));
  PetscCall(PetscOptionsInt("-gpukit_dense_solve_max",
                            "PETSc's LU of a sequential device matrix of up to this many rows (multigrid's coarsest) also kept as its dense "
                            "triangles' inverses, so that its solves on device vectors run on the device (0: never)",
                            NULL, GKDenseSolveMax, &GKDenseSolveMax, NULL));
  PetscCall(PetscOptionsInt("-gpukit_host_threads",
                            "Threads of the library's host loops that first touch new memory (a DMDA matrix's pattern and zeroed values, a device "
                            "vector's new host array, the staged copies' pieces; default 0: "
                            "the cores this process may run on, one under mpiexec --bind-to core)",
                            NULL, threads, &threads, NULL));
  PetscCall(PetscOptionsInt("-gpukit_staged_copy_min",
                            "Copies between pageable host memory and the device of at least this many bytes go in pieces through page-locked "
                            "buffers that the host's threads (-gpukit_host_threads) fill or empty while the other pieces travel (0: none)",
                            NULL, gk_staged_min, &gk_staged_min, NULL));
  PetscCall(PetscOptionsBool("-gpukit_cuda_aware_mpi",
                             "Hand device buffers to MPI in the halo exchanges instead of staging them through pinned host memory (the MPI must be "
                             "CUDA-aware)",
                             NULL, gk_aware, &gk_aware, NULL));
  PetscOptionsEnd();
  /* PETSc's own option (PetscLogGpuTime()): without it, as PETSc's GPU types do, an event times
     the host's part of an operation and the device is waited for only where a result is needed */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-log_view_gpu_time", &gk_gpu_time));
  PetscCall(PetscEListFind(3, PetscGPUKitBackendTypes, bname, (PetscInt *)&req, &found));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown -gpukit_backend %s: use auto, cuda or host", bname);

  PetscCall(PetscLogEventBegin(GK_DeviceInit, 0, 0, 0, 0));
  if (req != PETSCGPUKIT_BACKEND_HOST) PetscCall(GKBackendCUDA.getdevicecount(&count, why, sizeof(why)));
  if (req == PETSCGPUKIT_BACKEND_CUDA)
    PetscCheck(count > 0, PETSC_COMM_SELF, PETSC_ERR_GPU,
               "-gpukit_backend cuda, but no CUDA device can be used: %s. Run where an NVIDIA GPU and its driver are visible, or use -gpukit_backend "
               "host",
               why);
  if (count > 0) {
    if (!devset) dev = gk_localrank % count;
#if defined(PETSC_HAVE_CUDA)
    { /* PETSc's own CUDA vectors live on the device PETSc chose: the kernels run there too */
      PetscDeviceContext dctx;
      PetscDevice        pdev;
      PetscDeviceType    ptype;
      PetscInt           pid;

      PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
      PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
      PetscCall(PetscDeviceContextGetDeviceType(dctx, &ptype));
      if (ptype == PETSC_DEVICE_CUDA) {
        PetscCall(PetscDeviceContextGetDevice(dctx, &pdev));
        PetscCall(PetscDeviceGetDeviceId(pdev, &pid));
        PetscCheck(!devset || dev == pid, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
                   "-gpukit_device %" PetscInt_FMT ", but this PETSc (built with CUDA) put its own device vectors on CUDA device %" PetscInt_FMT
                   ": choose the device with PETSc's -device_select %" PetscInt_FMT " instead",
                   dev, pid, dev);
        dev = pid;
      }
    }
#endif
    PetscCheck(dev >= 0 && dev < count, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "-gpukit_device %" PetscInt_FMT " is not a device of this process: it sees %d (0 to %d)", dev, count, count - 1);
    PetscCall(GKBackendCUDA.setdevice((int)dev));
    PetscCall(GKBackendCUDA.getdevicename((int)dev, devname, sizeof(devname)));
    PetscCall(PetscLogEventEnd(GK_DeviceInit, 0, 0, 0, 0));
    GKDev      = &GKBackendCUDA;
    gk_backend = PETSCGPUKIT_BACKEND_CUDA;
    gk_device  = (int)dev;
    PetscCall(PetscInfo(NULL, "petsc-gpukit: process %d of %d on its node uses CUDA device %d of %d: %s\n", gk_localrank, gk_localsize, gk_device,
                        count, devname));
    /* said once, by the node's first process */
    if (!devset && gk_localsize > count && !gk_localrank) {
      char        pipe[PETSC_MAX_PATH_LEN];
      const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");

      /* NVIDIA MPS runs their kernels side by side; without it they take turns */
      PetscCall(PetscSNPrintf(pipe, sizeof(pipe), "%s/control", dir && dir[0] ? dir : "/tmp/nvidia-mps"));
      if (access(pipe, F_OK))
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR,
                               "petsc-gpukit: %d processes on this node share its %d CUDA device%s (process k uses device k mod %d) without NVIDIA "
                               "MPS, so their kernels take turns: start MPS first (nvidia-cuda-mps-control -d), or run one process per device\n",
                               gk_localsize, count, count > 1 ? "s" : "", count));
    }
    if (gk_aware) {
      int         aware = 0;
      const char *how   = "it offers no MPIX_Query_cuda_support()";

#if defined(MPIX_CUDA_AWARE_SUPPORT)
      aware = MPIX_Query_cuda_support();
      how   = "MPIX_Query_cuda_support() returns 0";
#endif
      PetscCheck(aware, PETSC_COMM_SELF, PETSC_ERR_SUP_SYS,
                 "-gpukit_cuda_aware_mpi: this MPI cannot take device memory (%s); leave the option out, and the halo exchanges stage through pinned "
                 "host memory",
                 how);
    }
  } else {
    PetscMPIInt rank;

    if (gk_early) { /* the early start found no device: its thread has ended */
      gk_early = PETSC_FALSE;
      PetscCall(GKBackendCUDA.ready());
    }
    PetscCall(PetscLogEventEnd(GK_DeviceInit, 0, 0, 0, 0));

    if (req == PETSCGPUKIT_BACKEND_AUTO) {
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (!rank) PetscCall(PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "petsc-gpukit: no CUDA device (%s); running on the host backend\n", why));
    }
    GKDev      = &GKBackendHost;
    gk_backend = PETSCGPUKIT_BACKEND_HOST;
    gk_device  = 0;
    PetscCall(PetscInfo(NULL, "petsc-gpukit: host backend\n"));
  }
  PetscFunctionReturn(0);
}

/*@C
   PetscGPUKitGetBackend - Where this process's kernels run (cuda or host), choosing it first if
   no object has needed it yet

   Not Collective

   Output Parameter:
.  backend - `PETSCGPUKIT_BACKEND_CUDA` or `PETSCGPUKIT_BACKEND_HOST`

   Options Database Keys:
+  -gpukit_backend <auto,cuda,host> - where the kernels run
-  -gpukit_device <n> - which CUDA device this process uses

   Level: intermediate

.seealso: `PetscGPUKitGetDevice()`, `PetscGPUKitBackendType`
@*/
PetscErrorCode PetscGPUKitGetBackend(PetscGPUKitBackendType *backend)
{
  PetscFunctionBegin;
  PetscAssertPointer(backend, 1);
  PetscCall(PetscGPUKitBackendSetUp_Private());
  *backend = gk_backend;
  PetscFunctionReturn(0);
}

/*@C
   PetscGPUKitGetDevice - The CUDA device this process uses (0 on the host backend)

   Not Collective

   Level: intermediate

.seealso: `PetscGPUKitGetBackend()`
@*/
PetscErrorCode PetscGPUKitGetDevice(int *device)
{
  PetscFunctionBegin;
  PetscAssertPointer(device, 1);
  PetscCall(PetscGPUKitBackendSetUp_Private());
  *device = gk_device;
  PetscFunctionReturn(0);
}

/*@C
   PetscGPUKitGetTransferCounts - The host/device copies this process made through the library

   Not Collective

   Level: advanced

.seealso: `PetscGPUKitGetBackend()`
@*/
PetscErrorCode PetscGPUKitGetTransferCounts(PetscGPUKitTransferCounts *counts)
{
  PetscFunctionBegin;
  PetscAssertPointer(counts, 1);
  *counts = gk_counts;
  PetscFunctionReturn(0);
}

/*@C
   PetscGPUKitGetDeviceCounts - The kernel launches and host waits this process made through
   the library (the host backend counts what the CUDA backend would)

   Not Collective

   Level: advanced

.seealso: `PetscGPUKitGetTransferCounts()`
@*/
PetscErrorCode PetscGPUKitGetDeviceCounts(PetscGPUKitDeviceCounts *counts)
{
  PetscFunctionBegin;
  PetscAssertPointer(counts, 1);
  counts->launches = GKCounts.launches;
  counts->syncs    = GKCounts.syncs;
  counts->bytes    = GKCounts.bytes;
  PetscFunctionReturn(0);
}

/* Inside a logged event under -log_view_gpu_time, wait for the device so that the event's time
   is the kernel's */
PetscErrorCode PetscGPUKitLogSync_Private(void)
{
  PetscBool active;

  PetscFunctionBegin;
  if (!gk_gpu_time) PetscFunctionReturn(0);
  PetscCall(PetscLogIsActive(&active));
  if (active) PetscCall(GKDev->synchronize());
  PetscFunctionReturn(0);
}

/* Waits for the CUDA backend's early start to end (the first allocation does, so that the wait
   shows as its own event, not inside whatever made the first device array) */
PetscErrorCode PetscGPUKitDeviceReady_Private(void)
{
  PetscFunctionBegin;
  if (!gk_early) PetscFunctionReturn(0);
  gk_early = PETSC_FALSE;
  PetscCall(PetscLogEventBegin(GK_DeviceInit, 0, 0, 0, 0));
  PetscCall(GKBackendCUDA.ready());
  PetscCall(PetscLogEventEnd(GK_DeviceInit, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscLogDouble GKMemOps = 0;

PetscErrorCode GKMalloc_Private(size_t bytes, void **p)
{
  PetscFunctionBegin;
  if (PetscUnlikely(gk_early)) PetscCall(PetscGPUKitDeviceReady_Private());
  PetscCall(GKDev->malloc(bytes, p));
  if (bytes) GKMemOps += 1;
  PetscFunctionReturn(0);
}

PetscErrorCode GKMallocH2D_Private(size_t bytes, const void *h, void **p)
{
  PetscFunctionBegin;
  PetscCall(GKMalloc_Private(bytes, p));
  PetscCall(GKMemcpyH2D(*p, h, bytes));
  PetscFunctionReturn(0);
}

PetscErrorCode GKFree_Private(void *addr)
{
  void **p = (void **)addr;

  PetscFunctionBegin;
  if (*p) {
    PetscCall(GKDev->free(*p));
    GKMemOps += 1;
  }
  *p = NULL;
  PetscFunctionReturn(0);
}

typedef struct {
  char       *dst;
  const char *src;
} GKHostCopy;

static void GKHostCopyRange(void *ctx, PetscInt part, PetscInt lo, PetscInt hi)
{
  GKHostCopy *c = (GKHostCopy *)ctx;

  (void)part;
  memcpy(c->dst + lo, c->src + lo, (size_t)(hi - lo));
}

/* A copy between pageable host memory and the device in pieces through the backend's
   page-locked buffers (device.h, stagebuffer), the host's threads copying a piece into or out of
   one buffer while the other's transfer runs: the driver's own staging of pageable memory copies
   on one thread, at a fraction of the bus's speed, and a new host array's first touch is spread
   over the threads too. *done false where it does not apply: a small copy, page-locked host
   memory, one thread, no buffers */
static PetscErrorCode GKMemcpyStaged_Private(void *dst, const void *src, size_t bytes, GKMemcpyKind kind, PetscBool *done)
{
  const size_t piece = GK_STAGE_BYTES, npieces = (bytes + piece - 1) / piece;
  void        *buf[GK_STAGE_PIECES];
  PetscBool    pageable;
  PetscInt     nt;
  GKHostCopy   c;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (kind == GK_MEMCPY_D2D || gk_staged_min <= 0 || bytes < (size_t)gk_staged_min || !GKDev->stagebuffer) PetscFunctionReturn(0);
  PetscCall(GKDev->pageable(kind == GK_MEMCPY_H2D ? src : dst, &pageable));
  if (!pageable) PetscFunctionReturn(0);
  PetscCall(GKHostThreads_Private((PetscInt)piece, (PetscInt)(piece / 8), &nt));
  if (nt < 2) PetscFunctionReturn(0);
  for (int k = 0; k < GK_STAGE_PIECES; k++) {
    PetscCall(GKDev->stagebuffer(k, &buf[k]));
    if (!buf[k]) PetscFunctionReturn(0);
  }
  if (kind == GK_MEMCPY_H2D) {
    for (size_t p = 0; p < npieces; p++) { /* a buffer filled once its last transfer has ended */
      const int    k   = (int)(p % GK_STAGE_PIECES);
      const size_t off = p * piece, m = PetscMin(piece, bytes - off);

      PetscCall(GKDev->stagewait(k));
      c.dst = (char *)buf[k];
      c.src = (const char *)src + off;
      PetscCall(GKParallelFor_Private((PetscInt)m, nt, GKHostCopyRange, &c));
      PetscCall(GKDev->stagecopy(k, (char *)dst + off, m, kind));
    }
    for (int k = 0; k < GK_STAGE_PIECES; k++) PetscCall(GKDev->stagewait(k)); /* src may change once this returns */
  } else {
    for (size_t p = 0; p < PetscMin(npieces, (size_t)GK_STAGE_PIECES); p++)
      PetscCall(GKDev->stagecopy((int)p, (char *)src + p * piece, PetscMin(piece, bytes - p * piece), kind));
    for (size_t p = 0; p < npieces; p++) { /* a buffer emptied once its transfer has ended, then given the piece after next */
      const int    k   = (int)(p % GK_STAGE_PIECES);
      const size_t off = p * piece, next = off + GK_STAGE_PIECES * piece;

      PetscCall(GKDev->stagewait(k));
      c.dst = (char *)dst + off;
      c.src = (const char *)buf[k];
      PetscCall(GKParallelFor_Private((PetscInt)PetscMin(piece, bytes - off), nt, GKHostCopyRange, &c));
      if (next < bytes) PetscCall(GKDev->stagecopy(k, (char *)src + next, PetscMin(piece, bytes - next), kind));
    }
  }
  PetscCall(PetscInfo(NULL, "petsc-gpukit: %s copy of %zu bytes staged in %zu pieces by %" PetscInt_FMT " threads\n",
                      kind == GK_MEMCPY_H2D ? "host to device" : "device to host", bytes, npieces, nt));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* A copy across the host/device boundary: logged in its event, counted with its bytes */
static PetscErrorCode GKMemcpyCounted_Private(void *dst, const void *src, size_t bytes, GKMemcpyKind kind, PetscLogEvent event, PetscLogDouble *count,
                                              PetscLogDouble *total)
{
  PetscBool staged;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(event, 0, 0, 0, 0));
  PetscCall(GKMemcpyStaged_Private(dst, src, bytes, kind, &staged));
  if (!staged) PetscCall(GKDev->memcpy(dst, src, bytes, kind));
  PetscCall(PetscLogEventEnd(event, 0, 0, 0, 0));
  *count += 1;
  *total += (PetscLogDouble)bytes;
  PetscFunctionReturn(0);
}

PetscErrorCode GKMemcpyH2D(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(GKMemcpyCounted_Private(dst, src, bytes, GK_MEMCPY_H2D, GK_MemcpyH2D, &gk_counts.h2d_count, &gk_counts.h2d_bytes));
  PetscFunctionReturn(0);
}

PetscErrorCode GKMemcpyD2H(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(GKMemcpyCounted_Private(dst, src, bytes, GK_MEMCPY_D2H, GK_MemcpyD2H, &gk_counts.d2h_count, &gk_counts.d2h_bytes));
  PetscFunctionReturn(0);
}

PetscErrorCode GKMemcpyD2D(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(GKDev->memcpy(dst, src, bytes, GK_MEMCPY_D2D));
  GK_COUNT_BYTES(2 * bytes);
  PetscFunctionReturn(0);
}

PetscErrorCode GKFormatBytes_Private(PetscLogDouble bytes, char *str, size_t len)
{
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int         u      = 0;

  PetscFunctionBegin;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    u++;
  }
  PetscCall(PetscSNPrintf(str, len, u ? "%.1f %s" : "%.0f %s", (double)bytes, unit[u]));
  PetscFunctionReturn(0);
}

/* Whether the halo exchanges hand device memory to MPI: -gpukit_cuda_aware_mpi, checked
   against the MPI when the backend is CUDA; on the host backend device memory is host memory */
PetscErrorCode PetscGPUKitMPIDeviceMemory_Private(PetscBool *aware)
{
  PetscFunctionBegin;
  PetscCall(PetscGPUKitBackendSetUp_Private());
  *aware = gk_aware;
  PetscFunctionReturn(0);
}

static char help[] = "The backend's memory entry points: copies round-trip exactly and are counted to the byte,\n\
a zero-byte allocation is NULL, and an allocation the device cannot hold is PETSC_ERR_MEM naming\n\
the bytes requested.\n\n";

#include <petscgpukit.h>
#include "include/gpukitimpl.h"

int main(int argc, char **argv)
{
  const PetscInt            n = 1000;
  PetscScalar              *h, *back, *d1, *d2, *none;
  PetscGPUKitTransferCounts c0, c1;
  PetscGPUKitBackendType    backend;
  void                     *huge      = NULL;
  const size_t              hugebytes = (size_t)1 << 50; /* 1 PiB */
  PetscErrorCode            ierr;
  PetscBool                 abort = PETSC_FALSE, oom = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-oom_error", &abort, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-oom", &oom, NULL)); /* -oom 0 under compute-sanitizer, which reports the failed cudaMalloc */
  PetscCall(PetscGPUKitGetBackend(&backend));
  if (abort) PetscCall(GKMalloc_Private(hugebytes, &huge)); /* the error as a user sees it */
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "backend %s\n", PetscGPUKitBackendTypes[backend]));

  PetscCall(GKMalloc(0, &none));
  PetscCheck(!none, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A zero-byte allocation gave a pointer");
  PetscCall(PetscMalloc2(n, &h, n, &back));
  for (PetscInt i = 0; i < n; i++) h[i] = 1.0 / (i + 3.0);
  PetscCall(GKMalloc(n, &d1));
  PetscCall(GKMalloc(n, &d2));
  PetscCall(PetscGPUKitGetTransferCounts(&c0));
  PetscCall(GKMemcpyH2D(d1, h, n * sizeof(PetscScalar)));
  PetscCall(GKMemcpyD2D(d2, d1, n * sizeof(PetscScalar)));
  PetscCall(GKMemcpyD2H(back, d2, n * sizeof(PetscScalar)));
  PetscCall(GKMemcpyD2H(back, d2, 0));
  PetscCall(PetscGPUKitGetTransferCounts(&c1));
  for (PetscInt i = 0; i < n; i++) PetscCheck(back[i] == h[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Round trip changed entry %" PetscInt_FMT, i);
  PetscCheck(c1.h2d_count - c0.h2d_count == 1 && c1.h2d_bytes - c0.h2d_bytes == n * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "host to device: %g copies, %g bytes counted", c1.h2d_count - c0.h2d_count, c1.h2d_bytes - c0.h2d_bytes);
  PetscCheck(c1.d2h_count - c0.d2h_count == 1 && c1.d2h_bytes - c0.d2h_bytes == n * sizeof(PetscScalar), PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "device to host: %g copies, %g bytes counted", c1.d2h_count - c0.d2h_count, c1.d2h_bytes - c0.d2h_bytes);
  PetscCall(GKFree(d1));
  PetscCall(GKFree(d2));
  PetscCheck(!d1 && !d2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GKFree left a pointer");
  PetscCall(PetscFree2(h, back));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "copies round-trip and are counted exactly\n"));

  /* more than any device holds: a PETSc memory error, not a crash */
  if (oom) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = GKMalloc_Private(hugebytes, &huge);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(ierr == PETSC_ERR_MEM && !huge, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Allocating %zu bytes gave error %d, not PETSC_ERR_MEM", hugebytes,
               (int)ierr);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "an impossible allocation is PETSC_ERR_MEM\n"));
  }
  PetscCall(PetscFinalize());
  return 0;
}

/*TEST

  # the backend's memory entry points, on both backends (the first line names the backend)
  test:
    requires: !sanitizer
    args: -gpukit_backend {{host cuda}shared output}
    filter: grep -v "^backend "

  # under compute-sanitizer, which would report the deliberately failed allocation: without it
  test:
    suffix: sanitizer
    requires: sanitizer
    args: -oom 0
    filter: grep -v "^backend "

  # the device's memory pool (the default) or cudaMalloc: the same round trips, the same
  # PETSC_ERR_MEM (after the pool's free blocks were handed back), and -info names the allocator
  test:
    suffix: pool
    requires: gpu !sanitizer
    args: -gpukit_backend cuda -gpukit_device_pool {{0 1}separate output} -info
    filter: grep -E -o "^copies.*|^an impossible.*|Device memory from.*"

  # an allocation no device holds, as a user sees it: PETSC_ERR_MEM naming the bytes requested
  # (-malloc_dump 0: PETSc's handler of PETSC_ERR_MEM lists every allocation then, no leak)
  test:
    suffix: error_oom
    exit: nonzero
    args: -oom_error -malloc_dump 0 -gpukit_backend {{host cuda}shared output}
    filter: grep -o "out of memory: 1125899906842624 bytes requested"

TEST*/

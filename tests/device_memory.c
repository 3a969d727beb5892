static char help[] = "The backend's memory entry points: copies round-trip exactly and are counted to the byte,\n\
a zero-byte allocation is NULL, and an allocation the device cannot hold is PETSC_ERR_MEM naming\n\
the bytes requested. With -staged, a copy large enough to be staged in pieces (-staged_bytes, default\n\
three 16 MiB pieces and a short one): the same bytes each way, one copy counted.\n\n";

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
  PetscBool                 abort = PETSC_FALSE, oom = PETSC_TRUE, staged = PETSC_FALSE;
  PetscInt                  stagedbytes = 3 * (16 << 20) + 12345;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscGPUKitInitializePackage());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-oom_error", &abort, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-oom", &oom, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-staged", &staged, NULL)); /* -oom 0 under compute-sanitizer, which reports the failed cudaMalloc */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-staged_bytes", &stagedbytes, NULL));
  PetscCheck(stagedbytes >= 64, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-staged_bytes %" PetscInt_FMT ": at least 64", stagedbytes);
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

  /* a copy of more pieces than the staging has buffers, the last one short, an odd length (or of
     -staged_bytes): the device's bytes read back in small copies (never staged) at each piece's
     edges within it, then the whole staged back into a fresh array */
  if (staged) {
    const size_t piece = (size_t)16 << 20, bytes = (size_t)stagedbytes, at[] = {0, piece - 8, piece, 2 * piece + 3, 3 * piece, bytes / 2, bytes - 64};
    unsigned char *hb, *hback, *db, win[64];

    PetscCall(PetscMalloc1(bytes, &hb));
    PetscCall(PetscCalloc1(bytes, &hback));
    for (size_t i = 0; i < bytes; i++) hb[i] = (unsigned char)((i * 131 + i / 4093) & 255);
    PetscCall(GKMalloc_Private(bytes, (void **)&db));
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(GKMemcpyH2D(db, hb, bytes));
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    PetscCheck(c1.h2d_count - c0.h2d_count == 1 && c1.h2d_bytes - c0.h2d_bytes == bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "staged host to device: %g copies, %g bytes counted", c1.h2d_count - c0.h2d_count, c1.h2d_bytes - c0.h2d_bytes);
    for (size_t w = 0; w < sizeof(at) / sizeof(at[0]); w++) {
      if (at[w] + sizeof(win) > bytes) continue;
      PetscCall(GKMemcpyD2H(win, db + at[w], sizeof(win)));
      for (size_t i = 0; i < sizeof(win); i++)
        PetscCheck(win[i] == hb[at[w] + i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Staged copy to the device: byte %zu wrong", at[w] + i);
    }
    PetscCall(PetscGPUKitGetTransferCounts(&c0));
    PetscCall(GKMemcpyD2H(hback, db, bytes));
    PetscCall(PetscGPUKitGetTransferCounts(&c1));
    PetscCheck(c1.d2h_count - c0.d2h_count == 1 && c1.d2h_bytes - c0.d2h_bytes == bytes, PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "staged device to host: %g copies, %g bytes counted", c1.d2h_count - c0.d2h_count, c1.d2h_bytes - c0.d2h_bytes);
    for (size_t i = 0; i < bytes; i++) PetscCheck(hback[i] == hb[i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Staged copy to the host: byte %zu wrong", i);
    PetscCall(GKFree(db));
    PetscCall(PetscFree(hb));
    PetscCall(PetscFree(hback));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "staged copies of %zu bytes round-trip and are counted once\n", bytes));
  }

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

  # a large copy staged in pieces through page-locked buffers by the host's threads (-info says
  # so, each way), and the same copy not staged with -gpukit_staged_copy_min 0
  test:
    suffix: staged
    args: -staged -oom 0 -gpukit_host_threads 3 -gpukit_staged_copy_min {{0 16777216}separate output} -gpukit_backend {{host cuda}shared output} -info
    filter: grep -E -o "^staged.*|copy of [0-9]+ bytes staged in [0-9]+ pieces by [0-9]+ threads"

  # by default a copy of a few MiB is staged too, in one short piece
  test:
    suffix: staged_one_piece
    args: -staged -staged_bytes 5242883 -oom 0 -gpukit_host_threads 3 -gpukit_backend {{host cuda}shared output} -info
    filter: grep -E -o "^staged.*|copy of [0-9]+ bytes staged in [0-9]+ pieces by [0-9]+ threads"

  # an allocation no device holds, as a user sees it: PETSC_ERR_MEM naming the bytes requested
  # (-malloc_dump 0: PETSc's handler of PETSC_ERR_MEM lists every allocation then, no leak)
  test:
    suffix: error_oom
    exit: nonzero
    args: -oom_error -malloc_dump 0 -gpukit_backend {{host cuda}shared output}
    filter: grep -o "out of memory: 1125899906842624 bytes requested"

TEST*/

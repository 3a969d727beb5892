/*
   The host backend: every entry point of device.h as plain loops over ordinary memory. These
   are the reference the CUDA kernels are tested against, and the sequential CPU version.
*/
#include <limits.h>
#include <stdlib.h>
#include "hostimpl.h"

GKDeviceCounts GKCounts;

static PetscErrorCode GKHostGetDeviceCount(int *count, char *why, size_t len)
{
  PetscFunctionBegin;
  *count = 1;
  if (len) why[0] = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostSetDevice(int dev)
{
  PetscFunctionBegin;
  PetscCheck(dev == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The host backend has one device, 0, not %d", dev);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostGetDeviceName(int dev, char *name, size_t len)
{
  PetscFunctionBegin;
  (void)dev;
  PetscCall(PetscStrncpy(name, "host", len));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMalloc(size_t bytes, void **p)
{
  PetscErrorCode ierr;

  PetscFunctionBegin;
  *p = NULL;
  if (!bytes) PetscFunctionReturn(0);
  /* PETSc's allocator reports a failure with errno as the code: report it as the CUDA backend does */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = PetscMallocA(1, PETSC_FALSE, __LINE__, PETSC_FUNCTION_NAME, __FILE__, bytes, p);
  PetscCall(PetscPopErrorHandler());
  PetscCheck(!ierr && *p, PETSC_COMM_SELF, PETSC_ERR_MEM, "Host backend out of memory: %zu bytes requested", bytes);
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostFree(void *p)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(p));
  PetscFunctionReturn(0);
}

/* The backend's "device" allocations, kept so that ondevice tells them from other host memory
   as CUDA's pointer attributes do: the callers then take the same paths on both backends (the
   staging buffers of hostmalloc are not among them). Plain C memory: bookkeeping, not data. */
typedef struct {
  const char *p;
  size_t      n;
} GKHostBlock;

static GKHostBlock *gk_blocks;
static size_t       gk_nblocks, gk_maxblocks;

static PetscErrorCode GKHostDeviceMalloc(size_t bytes, void **p)
{
  PetscFunctionBegin;
  PetscCall(GKHostMalloc(bytes, p));
  if (!*p) PetscFunctionReturn(0);
  if (gk_nblocks == gk_maxblocks) {
    size_t       max = gk_maxblocks ? 2 * gk_maxblocks : 64;
    GKHostBlock *b   = (GKHostBlock *)realloc(gk_blocks, max * sizeof(GKHostBlock));

    if (!b) PetscCall(PetscFree(*p));
    PetscCheck(b, PETSC_COMM_SELF, PETSC_ERR_MEM, "Host backend out of memory: %zu bytes requested", bytes);
    gk_blocks    = b;
    gk_maxblocks = max;
  }
  gk_blocks[gk_nblocks].p = (const char *)*p;
  gk_blocks[gk_nblocks].n = bytes;
  gk_nblocks++;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDeviceFree(void *p)
{
  PetscFunctionBegin;
  for (size_t b = gk_nblocks; p && b-- > 0;) /* the latest first: frees mostly follow mallocs */
    if (gk_blocks[b].p == (const char *)p) {
      gk_blocks[b] = gk_blocks[--gk_nblocks];
      break;
    }
  PetscCall(GKHostFree(p));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostOnDevice(const void *p, PetscBool *dev)
{
  const char *c = (const char *)p;

  PetscFunctionBegin;
  *dev = PETSC_FALSE;
  for (size_t b = 0; c && b < gk_nblocks && !*dev; b++)
    if (c >= gk_blocks[b].p && c < gk_blocks[b].p + gk_blocks[b].n) *dev = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMemcpy(void *dst, const void *src, size_t bytes, GKMemcpyKind kind)
{
  PetscFunctionBegin;
  if (bytes) {
    if (kind == GK_MEMCPY_D2D) GKCounts.launches += 1;
    else GKCounts.syncs += 1;
  }
  if (bytes) PetscCall(PetscMemcpy(dst, src, bytes));
  PetscFunctionReturn(0);
}

/* y[k] = x[k] rounded to single precision, each real (and imaginary) part: device.h, GKStorage */
static PetscErrorCode GKHostDemote(size_t n, const PetscScalar *x, void *y, PetscScalar *xr, PetscBool *ok)
{
  const PetscReal *xs = (const PetscReal *)x;
  PetscReal       *xb = (PetscReal *)xr;
  float           *f  = (float *)y;

  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  if (n) GKCounts.launches += 2; /* the flag cleared, the values rounded */
  if (n) GKCounts.syncs += 1;    /* the flag read */
  for (size_t k = 0; k < n * (GK_SINGLE_SIZE / sizeof(float)); k++) {
    const PetscReal v = xs[k];

    f[k] = (float)v;
    if (PetscIsInfReal(f[k]) && !PetscIsInfReal(v)) *ok = PETSC_FALSE;
    else if (xb) xb[k] = (PetscReal)f[k];
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostMemzero(void *p, size_t bytes)
{
  PetscFunctionBegin;
  if (bytes) GKCounts.launches += 1;
  if (bytes) PetscCall(PetscMemzero(p, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostSynchronize(void)
{
  PetscFunctionBegin;
  GKCounts.syncs += 1;
  PetscFunctionReturn(0);
}

/* The staging of large copies, as the CUDA backend stages them (device.h, stagebuffer): the
   buffers ordinary memory, made at the first staged copy; each transfer a memcpy, done when
   queued */
static void *gk_stage[GK_STAGE_PIECES];

static PetscErrorCode GKHostPageable(const void *p, PetscBool *flg)
{
  PetscFunctionBegin;
  *flg = p ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostStageBuffer(int k, void **buf)
{
  PetscFunctionBegin;
  *buf = NULL;
  if (k < 0 || k >= GK_STAGE_PIECES) PetscFunctionReturn(0);
  if (!gk_stage[k]) gk_stage[k] = malloc(GK_STAGE_BYTES);
  *buf = gk_stage[k];
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostStageCopy(int k, void *dev, size_t bytes, GKMemcpyKind kind)
{
  PetscFunctionBegin;
  PetscCheck(k >= 0 && k < GK_STAGE_PIECES && gk_stage[k] && bytes <= GK_STAGE_BYTES && kind != GK_MEMCPY_D2D, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "No staging buffer %d for %zu bytes", k, bytes);
  if (bytes) GKCounts.launches += 1; /* queued, as CUDA's is */
  if (kind == GK_MEMCPY_H2D) PetscCall(PetscMemcpy(dev, gk_stage[k], bytes));
  else PetscCall(PetscMemcpy(gk_stage[k], dev, bytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostStageWait(int k)
{
  PetscFunctionBegin;
  if (k >= 0 && k < GK_STAGE_PIECES && gk_stage[k]) GKCounts.syncs += 1;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostFinalize(void)
{
  PetscFunctionBegin;
  for (int k = 0; k < GK_STAGE_PIECES; k++) {
    free(gk_stage[k]);
    gk_stage[k] = NULL;
  }
  free(gk_blocks);
  gk_blocks    = NULL;
  gk_nblocks   = 0;
  gk_maxblocks = 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostDenseTriMV(PetscInt n, const PetscScalar *a, PetscBool upper, const PetscScalar *x, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = 0.0;

    for (PetscInt j = upper ? i : 0; j < (upper ? n : i + 1); j++) s += a[i * n + j] * x[j];
    y[i] = s;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostGather(PetscInt n, const PetscInt *idx, const PetscScalar *x, PetscScalar *buf)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) buf[k] = x[idx[k]];
  PetscFunctionReturn(0);
}

static PetscErrorCode GKHostScatterAdd(PetscInt n, const PetscInt *idx, const PetscScalar *buf, PetscScalar *y)
{
  PetscFunctionBegin;
  if (n) GKCounts.launches += 1;
  for (PetscInt k = 0; k < n; k++) y[idx[k]] += buf[k];
  PetscFunctionReturn(0);
}

/* the sums kept on devices between processes (peers*, krylovsetpeers) are the CUDA backend's
   alone: left NULL here */
const GKBackendOps GKBackendHost = {
  .name               = "host",
  .getdevicecount     = GKHostGetDeviceCount,
  .setdevice          = GKHostSetDevice,
  .getdevicename      = GKHostGetDeviceName,
  .malloc             = GKHostDeviceMalloc,
  .free               = GKHostDeviceFree,
  .memcpy             = GKHostMemcpy,
  .memzero            = GKHostMemzero,
  .demote             = GKHostDemote,
  .synchronize        = GKHostSynchronize,
  .ellrmult           = GKHostEllrMult,
  .ellrgetdiagonal    = GKHostEllrGetDiagonal,
  .diamult            = GKHostDiaMult,
  .diamulttranspose   = GKHostDiaMultTranspose,
  .diagetdiagonal     = GKHostDiaGetDiagonal,
  .ellrshortfits      = GKHostEllrShortFits,
  .checkcols          = GKHostCheckCols,
  .csrsorted          = GKHostCsrSorted,
  .ellrfill           = GKHostEllrFill,
  .diafill            = GKHostDiaFill,
  .diaoffsets         = GKHostDiaOffsets,
  .cooscatter         = GKHostCooScatter,
  .axpbypczd          = GKHostAxpbypczd,
  .maxpy              = GKHostMaxpy,
  .swap               = GKHostSwap,
  .pointwise          = GKHostPointwise,
  .reciprocal         = GKHostReciprocal,
  .conjugate          = GKHostConjugate,
  .abs                = GKHostAbs,
  .noisy              = GKHostNoisy,
  .dots               = GKHostDots,
  .dotnorm2           = GKHostDotNorm2,
  .norms              = GKHostNorms,
  .sum                = GKHostSum,
  .arnoldi            = GKHostArnoldi,
  .removeconstant     = GKHostRemoveConstant,
  .extreme            = GKHostExtreme,
  .firstzero          = GKHostFirstZero,
  .densetrimv         = GKHostDenseTriMV,
  .gather             = GKHostGather,
  .scatteradd         = GKHostScatterAdd,
  .ondevice           = GKHostOnDevice,
  .hostmalloc         = GKHostMalloc,
  .hostfree           = GKHostFree,
  .pageable           = GKHostPageable,
  .stagebuffer        = GKHostStageBuffer,
  .stagecopy          = GKHostStageCopy,
  .stagewait          = GKHostStageWait,
  .ssorrows           = GKHostSsorRows,
  .ssorblocks         = GKHostSsorBlocks,
  .ellrsor            = GKHostEllrSor,
  .diasor             = GKHostDiaSor,
  .greedycolor        = GKHostGreedyColor,
  .grouprows          = GKHostGroupRows,
  .krylovcreate       = GKHostKrylovCreate,
  .krylovdestroy      = GKHostKrylovDestroy,
  .krylovstep         = GKHostKrylovStep,
  .krylovupdate       = GKHostKrylovUpdate,
  .krylovssor         = GKHostKrylovSsor,
  .krylovupdateblocks = GKHostKrylovUpdateBlocks,
  .krylovdpi          = GKHostKrylovDpi,
  .krylovstatebegin   = GKHostKrylovStateBegin,
  .krylovstateend     = GKHostKrylovStateEnd,
  .krylovgather       = GKHostKrylovGather,
  .krylovgatherwait   = GKHostKrylovGatherWait,
  .krylovoffdiag      = GKHostKrylovOffDiag,
  .krylovgetsums      = GKHostKrylovGetSums,
  .krylovsetsums      = GKHostKrylovSetSums,
  .spgemm             = GKHostSpGEMM,
  .spgemmnumeric      = GKHostSpGEMMNumeric,
  .spgemmplanfree     = GKHostSpGEMMPlanFree,
  .transpose          = GKHostCsrTranspose,
  .strength           = GKHostStrength,
  .aggregate          = GKHostAggregate,
  .tentative          = GKHostTentative,
  .smooth             = GKHostSmooth,
  .collapse           = GKHostCollapse,
  .tentativeblock     = GKHostTentativeBlock,
  .smoothblock        = GKHostSmoothBlock,
  .q1interp           = GKHostQ1Interp,
  .finalize           = GKHostFinalize,
};

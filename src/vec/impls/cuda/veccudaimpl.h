/* The device vectors' private header: their data (veccuda.c) and what their operations
   (veccudaops.c) read of it */
#pragma once
#include "gkvec.h"

typedef struct {
  PetscScalar     *d;       /* device array, local length (NULL when empty or not allocated) */
  PetscOffloadMask mask;    /* which array holds the values (the Vec's own offloadmask stays CPU: see VecConvert_GK_Private) */
  PetscBool        isconst; /* every entry of the device array is cval (VecSet, or cval set there), and nothing wrote it since */
  PetscScalar      cval;    /* UNALLOCATED: every entry's value */
  PetscBool        mpi;     /* the reductions add an MPIU_Allreduce */
  struct _VecOps   base;    /* VECSEQ's or VECMPI's operations, for the fallbacks */
  /* VecGetLocalVector(): lent, d is another vector's device array, and this vector's own device
     array and state are set aside here until it is given back */
  PetscBool        lent;
  PetscBool        placed; /* lent by VecGPUKitPlaceDeviceArray(): the caller's array */
  PetscScalar     *down;
  PetscOffloadMask maskown;
  PetscBool        isconstown;
  PetscScalar      cvalown;
  PetscScalar     *pinned; /* the host array, page-locked in place (VecGKPin_Private) */
  PetscInt         copies; /* copies between the host array and the device array so far */
} Vec_GK;

PETSC_INTERN PetscErrorCode VecGetArray_GK(Vec, PetscScalar **);

/* one of this library's vectors */
static inline PetscBool VecIsOwnGK(Vec v)
{
  return v->ops->getarray == VecGetArray_GK ? PETSC_TRUE : PETSC_FALSE;
}

/* PETSc's own VECSEQCUDA or VECMPICUDA (a PETSc built with CUDA) while the kernels run on the
   GPU: its device array, from PETSc's accessors, is the kernels' to read and write */
static inline PetscBool VecIsPETScCUDA(Vec v)
{
#if defined(PETSC_HAVE_CUDA)
  const char *t = ((PetscObject)v)->type_name;

  return GKDev == &GKBackendCUDA && t && (!strcmp(t, VECSEQCUDA) || !strcmp(t, VECMPICUDA)) ? PETSC_TRUE : PETSC_FALSE;
#else
  return PETSC_FALSE;
#endif
}

/* VECSEQ's and VECMPI's data both open with this header */
typedef struct {
  VECHEADER
} Vec_GKHost;

static inline PetscScalar *VecGKHostArray_Private(Vec v)
{
  return ((Vec_GKHost *)v->data)->array;
}

/* GK_COUNT_BYTES of an operation passing k times over n entries */
#define VecGKCountPasses(n, k) GK_COUNT_BYTES((double)sizeof(PetscScalar) * (n) * (k))

/* The device array for reading (read), writing every entry (write) or both */
typedef enum {
  GK_READ,
  GK_WRITE,
  GK_READWRITE
} GKAccess;

PETSC_INTERN PetscErrorCode VecGKGetData_Private(Vec, Vec_GK **);
PETSC_INTERN PetscErrorCode VecGKDevice_Private(Vec, GKAccess, PetscScalar **);
PETSC_INTERN PetscErrorCode VecGKCopyToHost_Private(Vec, Vec_GK *);
PETSC_INTERN PetscErrorCode VecGKCopyToDevice_Private(Vec, Vec_GK *);
PETSC_INTERN PetscErrorCode VecGKHostAlloc_Private(Vec, Vec_GK *);
PETSC_INTERN PetscErrorCode VecGKSetOperations_Private(Vec);

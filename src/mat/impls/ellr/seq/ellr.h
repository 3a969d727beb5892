/* ELLPACK-R's private header: the layout's construction (ellrlayout.c) for the format's file
   (ellrcuda.c) */
#pragma once
#include "mat/impls/gk/gkmat.h"

/* Whether sorted slices of GK_ELLR_WIDE to GK_ELLR_WIDE_SORTED entries go a thread a row
   (device.h): rows many, and long on average (at least GK_ELLR_WIDE / 2 entries), so that such
   slices are most of the product and fill the GPU (sorted slices of long rows that vary too much
   for one row a slice, or set); where few rows are long (power-law matrices) the warp a row
   serves them better */
static inline PetscBool GKEllrThreadRows(PetscInt m, PetscInt nnz, PetscBool sorted)
{
  return sorted && m >= GK_ELLR_MANY_ROWS && nnz >= (PetscInt64)(GK_ELLR_WIDE / 2) * m ? PETSC_TRUE : PETSC_FALSE;
}

/* the longest of m CSR rows, found by the host's threads (see ellrlayout.c) */
PETSC_INTERN PetscErrorCode GKEllrLongestRow_Private(const PetscInt *, PetscInt, PetscInt *);
/* a copy's device arrays freed */
PETSC_INTERN PetscErrorCode GKEllrFree_Private(GKEllr *);
/* the (sliced, sorted) arrays of an m x n CSR matrix on the device (see ellrlayout.c) */
PETSC_INTERN PetscErrorCode GKEllrBuild_Private(Mat, const char *, PetscInt, PetscInt, PetscInt, PetscInt, PetscBool, const PetscInt *,
                                                const PetscInt *, const PetscScalar *, const GKCsr *, PetscBool, GKEllr *, size_t *, PetscInt *,
                                                PetscBool *, char *, size_t);

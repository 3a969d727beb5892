/*
   The backend layer: the memory and kernel entry points every layer above calls, implemented
   twice with the same arguments and the same data layout, by plain C loops on the host
   (host/host.c, the reference) and by CUDA kernels (cuda/cuda.cu).

   Pointers marked "device" below point into memory obtained from the backend's malloc: device
   memory for cuda, ordinary memory for host. Nothing here knows about Mat, Vec or KSP.
*/
#pragma once

#include <petscsys.h>

/*
   ELLPACK-R (Michels, 5.3.1): an m x n matrix as Nz = the longest row, the values and column
   indices of the rows as m x Nz arrays in column-major order (entry k of row i at i + k*m,
   padding past a row's end holds value 0 and column 0), and rl[i] = the length of row i, so
   that a thread stops at the end of its own row.
*/
typedef struct {
  PetscInt     m, n; /* rows, columns */
  PetscInt     nz;   /* Nz */
  PetscInt    *rl;   /* device, m */
  PetscInt    *col;  /* device, m*nz */
  PetscScalar *val;  /* device, m*nz */
} GKEllr;

/*
   DIA (Jost, Contassot-Vivier, Vialle, 3.2): one row of val per diagonal holding a nonzero, in
   increasing offset order: val[d*m + i] = A(i, i + off[d]); places outside the matrix hold 0.
*/
typedef struct {
  PetscInt     m, n;  /* rows, columns */
  PetscInt     ndiag; /* stored diagonals */
  PetscInt    *off;   /* device, ndiag */
  PetscScalar *val;   /* device, ndiag*m */
} GKDia;

typedef enum {
  GK_MEMCPY_H2D,
  GK_MEMCPY_D2H,
  GK_MEMCPY_D2D
} GKMemcpyKind;

typedef struct {
  const char *name;
  /* devices this process sees (host: 1), and the one this process uses */
  PetscErrorCode (*getdevicecount)(int *, char *, size_t);
  PetscErrorCode (*setdevice)(int);
  PetscErrorCode (*getdevicename)(int, char *, size_t);
  /* memory; malloc of 0 bytes gives NULL */
  PetscErrorCode (*malloc)(size_t, void **);
  PetscErrorCode (*free)(void *);
  PetscErrorCode (*memcpy)(void *, const void *, size_t, GKMemcpyKind);
  PetscErrorCode (*memzero)(void *, size_t);
  PetscErrorCode (*synchronize)(void);
  /* y = A x, or y = A x + y when add; with conj, conj(A) x */
  PetscErrorCode (*ellrmult)(const GKEllr *, PetscBool, const PetscScalar *, PetscBool, PetscScalar *);
  /* y = A x or A x + y */
  PetscErrorCode (*diamult)(const GKDia *, const PetscScalar *, PetscBool, PetscScalar *);
  /* y = A^T x or A^T x + y from the same arrays; with conj, A^H */
  PetscErrorCode (*diamulttranspose)(const GKDia *, PetscBool, const PetscScalar *, PetscBool, PetscScalar *);
  /* d[i] = A(i,i), 0 where the diagonal entry is not stored, for i < m */
  PetscErrorCode (*ellrgetdiagonal)(const GKEllr *, PetscScalar *);
  PetscErrorCode (*diagetdiagonal)(const GKDia *, PetscScalar *);
} GKBackendOps;

PETSC_EXTERN const GKBackendOps GKBackendHost;
PETSC_EXTERN const GKBackendOps GKBackendCUDA;

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

/* w = x .* y, x ./ y (0 where y is 0) */
typedef enum {
  GK_POINTWISE_MULT,
  GK_POINTWISE_DIVIDE
} GKPointwiseOp;

/* which extreme gkextreme finds: the largest or smallest real part (first index on ties) */
typedef enum {
  GK_EXTREME_MAX,
  GK_EXTREME_MIN
} GKExtremeOp;

/* the sums a norms call computes: r[0] = sum |x_i|, r[1] = sum |x_i|^2, r[2] = max |x_i| */
typedef enum {
  GK_NORM_ABS = 1,
  GK_NORM_SQ  = 2,
  GK_NORM_MAX = 4
} GKNormParts;

/* The most vectors one multi-vector call (maxpy, dots) takes; callers loop over more */
#define GK_MULTI 8

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

  /* Vectors of length n. Every BLAS-1 update (VecAXPY, VecAYPX, VecAXPBY, VecAXPBYPCZ,
     VecWAXPY, VecScale, VecShift, VecSet) is one call of
       z = a x + b y + c z + d,
     where x or y may be NULL (its term left out) and z is not read when c is 0: PETSc's rule
     that a zero coefficient drops its vector, NaN and all. */
  PetscErrorCode (*axpbypczd)(PetscInt, PetscScalar, const PetscScalar *, PetscScalar, const PetscScalar *, PetscScalar, PetscScalar, PetscScalar *);
  /* y = y + sum_k alpha[k] x[k], k < nv <= GK_MULTI (alpha on the host, x the device arrays) */
  PetscErrorCode (*maxpy)(PetscInt, PetscInt, const PetscScalar *, const PetscScalar *const *, PetscScalar *);
  PetscErrorCode (*swap)(PetscInt, PetscScalar *, PetscScalar *);
  PetscErrorCode (*pointwise)(PetscInt, GKPointwiseOp, PetscScalar *, const PetscScalar *, const PetscScalar *);
  /* x = 1/x where x is not 0; x = conj(x) */
  PetscErrorCode (*reciprocal)(PetscInt, PetscScalar *);
  PetscErrorCode (*conjugate)(PetscInt, PetscScalar *);
  /* Reductions; the results land in host memory (the call waits for the device). */
  /* r[k] = y[k]^H x (or y[k]^T x without conj), k < nv <= GK_MULTI */
  PetscErrorCode (*dots)(PetscInt, const PetscScalar *, PetscInt, const PetscScalar *const *, PetscBool, PetscScalar *);
  /* dp = t^H s, nm = t^H t */
  PetscErrorCode (*dotnorm2)(PetscInt, const PetscScalar *, const PetscScalar *, PetscScalar *, PetscReal *);
  /* the GKNormParts asked for (a bitwise or) into r[0..2], the others 0 */
  PetscErrorCode (*norms)(PetscInt, const PetscScalar *, int, PetscReal *);
  PetscErrorCode (*sum)(PetscInt, const PetscScalar *, PetscScalar *);
  /* the extreme real part and its first index (-1 and -+PETSC_MAX_REAL when n is 0) */
  PetscErrorCode (*extreme)(PetscInt, const PetscScalar *, GKExtremeOp, PetscInt *, PetscReal *);
  /* frees what the backend keeps between calls (reduction work space) */
  PetscErrorCode (*finalize)(void);
} GKBackendOps;

PETSC_EXTERN const GKBackendOps GKBackendHost;
PETSC_EXTERN const GKBackendOps GKBackendCUDA;

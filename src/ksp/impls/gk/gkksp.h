/*
   What cggpu and bicggpu share: the device operator (the user's device matrix, or any other
   assembled matrix converted once), the Jacobi scaling on the device, the device copies of b
   and x when theirs are host vectors, and the fused iteration loop with PETSc's semantics.
*/
#pragma once

#include "mat/impls/gk/gkmat.h"
#include "pc/ssor_gpu/eisenstat.h"
#include "pc/graph/pcgraph.h"
#include <petsc/private/kspimpl.h>

/* What a cached object was made from: that object and its state then. Two different matrices
   can have the same state number, so both are compared. */
typedef struct {
  PetscObjectId    id;
  PetscObjectState state;
} KSPGKKey;

/* The solve's work vectors: the residual, the preconditioned residual, the direction's two
   buffers and w = A p; the shadow system's (BiCG); Eisenstat's t; BiCG's best iterate */
typedef struct {
  Vec r, z, p[2], w;
  Vec rt, zt, pt[2], wt;
  Vec t;
  Vec xbest; /* BiCG on single values: the iterate of the smallest true residual */
} KSPGKWork;

/* Why PETSc's method iterates (general.c) instead of the fused kernels (KSPGKChoosePath_Private) */
typedef enum {
  GK_GENERAL_NONE,     /* the fused kernels iterate */
  GK_GENERAL_PC,       /* a PC they do not apply */
  GK_GENERAL_OPERATOR, /* an operator whose entries they cannot read */
  GK_GENERAL_SINGULAR, /* extreme singular values asked for */
  GK_GENERAL_NULLSPACE /* a null space they do not remove */
} KSPGKGeneral;

typedef struct {
  GKKrylovMethod     method;     /* of the current solve */
  PetscInt           checkevery; /* test convergence every so many iterations */
  PetscBool          cocg;       /* bicggpu: COCG for complex symmetric matrices */
  Mat                Aconv;      /* the operator converted to ellrcuda, when it is no device matrix */
  KSPGKKey           Akey;       /* the operator it was converted from */
  Mat                Atrans;     /* KSPSolveTranspose: the transpose of the device operator */
  KSPGKKey           Atkey;      /* the device operator it was made from */
  Mat                Adev;       /* the device matrix the iterations use: the operator or Aconv */
  PetscBool          mpi;        /* Adev is an MPI device matrix */
  Vec                diag;       /* Jacobi: the PC's inverted diagonal on the device; NULL for PCNONE */
  Vec                ones;       /* Jacobi: a vector of ones, which the PC is applied to for diag */
  Vec                X, B;       /* device copies of x and b, made when theirs are host vectors */
  KSPGKWork          work;       /* r made at setup, the others at their first use */
  const GKEisenstat *eis;        /* the PC's Eisenstat operations when it is applied by Eisenstat's trick, else NULL */
  PetscBool          devsums;    /* several processes: keep the sums on their GPUs where they can (-ksp_cggpu_device_sums) */
  GKTransport        transport;  /* the sums and ghosts kept on the GPUs (mpigkpeers.c) */
  PetscBool          peersnow;   /* this solve keeps its sums on the GPUs (its mailboxes, CG or COCG, devsums) */
  PetscBool          devhalo;    /* with them, send the direction's ghosts GPU to GPU too (-ksp_cggpu_device_halo) */
  PetscBool          halonow;    /* this solve sends the ghosts GPU to GPU */
  KSPGKGeneral       general;    /* whether, and why, PETSc's method iterates (general.c) */
  PetscBool          nullcnst;   /* the fused kernels remove the constants from z (the operator's null space) */
  KSP                inner;      /* that method, made and set up in the KSP's setup */
  PetscBool          graph;      /* replay a multigrid PC's application as a CUDA graph (-ksp_cggpu_graph) */
  PetscBool          single;     /* the last solve's steps read the operator's single-precision values (gkksp.c, KSPGKReplace) */
  PetscInt           replaced;   /* and replaced the residual by b - A x in double so many times */
  PetscInt           restarts;   /* restarting CG from it so many of them (iterative refinement) */
  void              *sdiag;      /* diag in single precision (GK_SINGLE_SIZE each), for the updates of a solve on single values */
  PetscBool          sjacobi;    /* the last solve's updates read sdiag */
} KSP_GK;

PETSC_INTERN PetscErrorCode KSPCreate_GK_Private(KSP, const char *);
/* The general path: PETSc's KSPCG or KSPBICG with the outer KSP's settings, on device b and x */
PETSC_INTERN PetscErrorCode KSPGKSetUpGeneral_Private(KSP);
PETSC_INTERN PetscErrorCode KSPGKSolveGeneral_Private(KSP, Vec, Vec);
/* Records the norm of iteration its on the KSP as PETSc's methods do (history, monitors) and
   tests it (ksp->reason); false when it is Inf or NaN */
PETSC_INTERN PetscErrorCode KSPGKTest_Private(KSP, PetscInt, PetscReal, PetscBool *);
PETSC_INTERN PetscErrorCode KSPComputeExtremeSingularValues_GK(KSP, PetscReal *, PetscReal *);
PETSC_EXTERN PetscErrorCode KSPCreate_CGGPU(KSP);
PETSC_EXTERN PetscErrorCode KSPCreate_BiCGGPU(KSP);

/* The MPI device matrices' private header (mpigk.c; their COO assembly, mpigkcoo.c; the device
   types' products, gkproduct.c) */
#pragma once
#include "gkmat.h"

typedef struct {
  const GKMatFormat *fmt;     /* the diagonal block's (its mpitype is the matrix's type) */
  void              *fmtdata; /* the format's own, made and freed by its mpicompose() */
  struct _MatOps     base;    /* MPIAIJ's operations, called through */
  PetscObjectState   nzstate; /* the nonzero state the lists were made for; -1: none */
  const PetscInt    *garray;  /* the off-diagonal block's global columns they were made from */
  PetscInt           nghost;
  PetscMPIInt        tag;
  PetscSF            sf; /* of the ghost columns: the lists below are its own arrays */
  /* sends: my owned entries rank sranks[r] needs, sidx[soff[r]] ... sidx[soff[r+1]-1] */
  PetscInt           nsr;
  const PetscInt    *soff, *sidx;
  const PetscMPIInt *sranks;
  PetscInt          *dsidx; /* sidx on the device */
  /* receives: from rank rranks[r], the ghosts ridx[roff[r]] ... (positions in ghost order) */
  PetscInt           nrr;
  const PetscInt    *roff, *ridx;
  const PetscMPIInt *rranks;
  PetscInt          *dridx; /* ridx on the device, when the ghosts do not arrive in order */
  /* The buffers MPI reads and writes: staging memory (pinned, read and written by the kernels
     in place), or device memory where the MPI takes it (-gpukit_cuda_aware_mpi) */
  PetscBool    aware;
  PetscScalar *sendbuf;  /* packed as sent */
  PetscScalar *ghostbuf; /* the ghosts in ghost order */
  PetscScalar *recvbuf;  /* packed as received; NULL when that is ghost order (the usual case) */
  Vec          lvec;     /* the ghosts as a device vector, for the off-diagonal block's products */
  MPI_Request *reqs;
  /* the fused solvers: the off-diagonal block's slots that hold entries (device), made at their
     first use after the lists */
  PetscInt  nslots;
  PetscInt *dslots;
  PetscBool haveslots;
  /* COO assembly on the device (MatSetPreallocationCOO_MPIGK): the blocks keep the lists of
     this process's entries of its own rows; its entries of other processes' rows (coonr, at
     positions dremote of the values) are gathered on the device and sent through a host MPIAIJ
     of their pattern (cooremote, PETSc's own COO assembly), whose sums on this process's rows
     (coonrecv: its diagonal block's nonzeros, then its off-diagonal block's) the blocks add in */
  PetscCount         coon;                               /* the entries of the last MatSetPreallocationCOO() */
  PetscBool          coodevice;                          /* lists made (else MPIAIJ's own, on host values) */
  PetscBool          cooany;                             /* some process has entries of another's rows */
  PetscCount         coonr, coonrecv, coonrd;            /* coonrd: of the sums, those of cooremote's diagonal block */
  PetscCount        *dremote, *diota;                    /* device: the gather's positions and its jmap (0, 1, ..., coonr) */
  PetscScalar       *dsend, *hsend, *drecv, *hrecv, *dv; /* dv: host values staged on the device */
  Mat                cooremote;
  PetscBool          behind;     /* the blocks' host values are behind their device copies' (MatSetValuesCOO() from device memory) */
  PetscGPUKitStorage storage;    /* MatGPUKitSetStorage() on the matrix, given to its blocks */
  PetscBool          storageset; /* (else each block's own, from the options at its creation) */
  struct _MatOps     own;        /* while behind: the operations the wrappers give back (gkhost.c) */
} Mat_MPIGK;

PETSC_INTERN PetscErrorCode MatMPIGKConvertBlocks_Private(Mat);
PETSC_INTERN PetscErrorCode MatMPIGKRetype_Private(Mat, const GKMatFormat *);
PETSC_INTERN PetscErrorCode MatMPIGKCOOReset_Private(Mat_MPIGK *);
PETSC_INTERN PetscErrorCode MatSetPreallocationCOO_MPIGK(Mat, PetscCount, PetscInt[], PetscInt[]);
PETSC_INTERN PetscErrorCode MatSetValuesCOO_MPIGK(Mat, const PetscScalar[], InsertMode);

/* a device matrix (sequential, or MPI with its blocks) presented under its base type's names for
   PETSc's code (MatMPIGKAsMPIAIJ_Private), and given its own back (MatMPIGKAsOwn_Private) */
typedef struct {
  Mat   A, Ad, Ao;
  char *name, *dname, *oname;
  PetscErrorCode (*psfo[3])(Mat); /* A's and, of an MPI matrix, its blocks' */
} GKAsMPIAIJ;
PETSC_INTERN PetscErrorCode MatMPIGKAsMPIAIJ_Private(Mat, PetscBool, GKAsMPIAIJ *);
PETSC_INTERN PetscErrorCode MatMPIGKAsOwn_Private(GKAsMPIAIJ *);

/*
   What the CUDA files of the fused Krylov iterations (device.h) share: the state the kernels keep
   on the device, the mailboxes of the sums kept on the GPUs (peers.cu), and the backend's work
   space. The device functions they share are in gridsum.cuh and peerwait.cuh, the step and
   update kernels in fused.cuh.
*/
#pragma once

#include "cudaimpl.h"

/* partial sums, per block: [0] dpi, [1] the norm, [2] rho, [3] the off-diagonal block's dpi
   (several processes), [4] the sum of z (nullconst); slot k at 2 k GK_RED_BLOCKS */
#define GK_SLOTS 5

typedef struct {
  double   sum[GK_SLOTS][2]; /* the finished sums, (re, im) */
  unsigned count;            /* blocks of the running kernel done with their partial sums */
  double   rho[2][2];        /* rho_i by the parity of i, (re, im) */
  double   rholast[2];       /* the last rho the step finished */
  double   a[2];             /* a_i of the last update, (re, im): the step after it moves x */
  double   dpi[2];           /* CG: the real part of dpi_i by the parity of i */
  double   norm2;
  int      flag;
  PetscInt flagit;
  unsigned hcount; /* blocks of the running gather done sending their ghosts GPU to GPU */
} GKKrylovDevState;

/* A process's mailbox of the sums kept on the GPUs (device.h, GKPeers), in its device memory,
   written by every process's kernels: kind 0 holds dpi of step i (re, im), kind 1 the norm and
   rho of update i (norm, re rho, im rho), by the parity of i, a row per process. Each value
   travels as two 8-byte words, each with 32 of its bits below and the sum's 32-bit tag
   (GKPeerTag) above: a word is written and read whole, so a reader that finds the tag in every
   word of a row has the row, and neither side fences (the idea of NCCL's LL protocol). Kind 2
   holds a tag alone (word 0): the ghosts of step i's direction, which that process wrote into
   the others' ghost buffers before a system-wide fence (GKKrylovGatherKernel), are there. */
#define GK_PEER_HALO  2
#define GK_PEER_WORDS 6
typedef struct {
  unsigned long long w[3][2][GK_PEERS_MAX][GK_PEER_WORDS];
} GKMailbox;

/* which mailbox is whose, in device memory (the kernels' parameters stay as small as they were
   without: the compiler chose other registers for the one-process kernels with the table in
   them) */
typedef struct {
  int        me;
  GKMailbox *mb[GK_PEERS_MAX]; /* every process's, mapped here (mb[me] is this process's own) */
  /* the direction's ghosts sent GPU to GPU (peershalo): the gather's entry k of step i written
     to hdst[(i % 2) n + k] in another process's ghost buffer, n entries */
  int              hon;
  GKScalar *const *hdst;
} GKPeerTable;

struct GKPeersCUDA {
  int          np, me, dev;
  GKMailbox   *mine;             /* this process's mailbox */
  GKMailbox   *mb[GK_PEERS_MAX]; /* every process's, mapped here (mb[me] = mine) */
  GKPeerTable *table;            /* device: me and mb */
  GKPeerTable  host;             /* its host copy */
  /* the ghosts of the direction, received GPU to GPU: this process's buffer (2 nghost, by the
     parity of the step), and the others' it writes into, mapped here */
  GKScalar  *ghost;
  PetscInt   nghost;
  GKScalar  *gmap[GK_PEERS_MAX];
  GKScalar **hdst;
};

/* the sums over all processes (krylovsetsums), passed to the kernels by value: set, they
   replace the sums of this process's rows in slots 0 to 2; np > 0: the sums kept on the GPUs
   instead (krylovsetpeers), through the mailboxes mb */
typedef struct {
  int                set;
  double             s[3][2];
  GKMailbox         *mine;        /* np > 0: this process's mailbox, which the waits read */
  int                np, stepdpi; /* stepdpi: the step pushes dpi (no off-diagonal kernel follows) */
  unsigned long long base;        /* the solve's tags: solve << 32 */
  const GKPeerTable *pt;          /* device */
} GKSums;

struct GKKrylovCUDA {
  PetscInt          n;
  GKKrylovMethod    method;
  GKKrylovNorm      norm;
  bool              nullconst; /* the update removes the constants from z (a second kernel) */
  double           *partial;   /* device: GK_SLOTS x GK_RED_BLOCKS x (re, im) */
  GKKrylovDevState *state;     /* device */
  GKKrylovDevState *hstate;    /* mapped pinned host memory the step kernels publish the state to */
  GKKrylovDevState *pub;       /* its device address */
  cudaEvent_t       copied;    /* recorded after the step the host waits for */
  cudaEvent_t       gathered;  /* after the direction entries for other processes */
  GKSums            g;
  GKScalar         *ghost; /* with the sums kept on the GPUs and the ghosts sent GPU to GPU: this process's ghost buffer (2 nghost) */
  PetscInt          nghost;
  PetscInt          stepi;  /* the last step's i, for the off-diagonal kernel after it */
  unsigned          ssornb; /* the Eisenstat colour kernels' one grid, for ssorm rows in blocks of ssorbs (0: not yet found) */
  PetscInt          ssorm, ssorbs;
};

/* Blocks for one of the grid-stride Krylov kernels: as many as the GPU runs at once and no
   more, at most GK_RED_BLOCKS (krylov.cu) */
PETSC_INTERN unsigned GKWaveBlocks(const void *, PetscInt);
/* BiCG's step and update (bicg.cu), which krylovstep and krylovupdate (cg.cu) call */
PETSC_INTERN PetscErrorCode GKCUDAKrylovStepBiCG_Private(GKKrylovCUDA *, PetscInt, PetscScalar, PetscBool, const GKOperator *, const GKKrylovVecs *);
PETSC_INTERN PetscErrorCode GKCUDAKrylovUpdateBiCG_Private(GKKrylovCUDA *, PetscInt, const GKKrylovVecs *);

/*
   PCSSORGPU's data and the functions its files share (ssorgpu.c: setup, options, the PC's
   application; ssorperm.c: the setup's permuted copy; eisenstat.c: the Eisenstat operations it
   offers cggpu). Private to the PC: the KSP
   reaches it through eisenstat.h alone.
*/
#pragma once

#include "include/gpukitimpl.h"
#include <petsc/private/pcimpl.h>
#include "eisenstat.h"

/* the creator, which src/gpukitreg.c registers */
PETSC_EXTERN PetscErrorCode PCCreate_SSORGPU(PC);

/* the automatic block size: 2 x 2 squares of the 5-point grid, the fastest of the block sizes measured */
#define GK_SSOR_AUTO_BS 4

typedef struct {
  PCSSORGPUType type;
  PetscReal     omega;
  PetscInt      terms;    /* neumann: terms beyond the first of each series */
  PetscInt      m;        /* rows of the block */
  GKSsor        S;        /* its device arrays */
  GKSsor        Sa;       /* what the PC's application reads: S, with single-precision copies of L's and U's values (device.h) where the
                            matrix stores its values so; the Eisenstat step reads S */
  PetscInt      npval[2]; /* the entries of S.pval[0] and [1] */
  PetscInt      nlev[2];  /* levels (natural) or colours (multicolor) of the forward and backward sweeps */
  PetscInt     *lev[2];   /* host: the level starts into rows[] */
  PetscInt     *rows[2];  /* device: the rows level by level */
  PetscInt      ncolors;
  PetscInt     *color;   /* host: each row's colour (multicolor) */
  GKSsorColor  *pcolors; /* host: multicolor's colours in S's permuted copy (cggpu's Eisenstat step) */
  PetscInt     *iperm;   /* device: row i is the permuted copy's row iperm[i] (its row k is row rows[0][k]) */
  PetscInt bs; /* multicolor: at most so many rows a block (1: points; 0: automatic, GK_SSOR_AUTO_BS where the blocks can be factored, else points) */
  PetscInt bsz;        /* the block size of the setup */
  PetscInt nblk;       /* blocks (bs > 1) */
  PetscInt    *blk;    /* host: each row's block */
  PetscInt     badrow; /* the first row whose diagonal entry (block: pivot) SSOR cannot divide by, or -1 */
  PetscScalar  baddiag;
  Vec          w[4];  /* device work vectors of the block's size: x and y staged, neumann's two buffers (w[1] also Eisenstat's) */
  PetscScalar *scale; /* device: Eisenstat's ((2 - w)/w) D in the iterations' numbering (points), made when a KSP asks */
  GKEisenstat  eis;   /* the Eisenstat operations given to the KSP */
} PC_SSORGPU;

/* One SSOR step over all the lists of a solve (device.h) on the arrays S (s->S or s->Sa), in
   place: LOWER forward, UPPER and UPPER_SSOR backward; b the right side (NULL: x itself) */
PETSC_INTERN PetscErrorCode PCSSORGPUSweep_Private(PC_SSORGPU *, const GKSsor *, GKSsorStep, const PetscScalar *, PetscScalar *);
/* The same with blocks (bs > 1), on the permuted copy's numbering: every colour in the step's
   order (LOWER forward, UPPER and UPPER_SSOR backward, the products in any), b, xin, xout as
   ssorblocks (device.h) */
PETSC_INTERN PetscErrorCode PCSSORGPUBlockSweep_Private(PC_SSORGPU *, const GKSsor *, GKSsorStep, const PetscScalar *, const PetscScalar *,
                                                        PetscScalar *);
/* The setup's failure in words (which row, which entry, why), for the error of any KSP */
PETSC_INTERN PetscErrorCode PCSSORGPUFailure_Private(PC, char *, size_t);
/* The Eisenstat operations (eisenstat.h), composed as GK_EISENSTAT_C */
PETSC_INTERN PetscErrorCode PCGKGetEisenstat_SSORGPU(PC, const GKEisenstat **);
/* The permuted copy (ssorperm.c): blocks of at most bs rows grown and coloured (their lists in
   s); the triangles' rows in the order perm, points; the same with blocks, *ok false where a
   block's pivot SSOR cannot divide by, or blocks neither symmetric nor Hermitian */
PETSC_INTERN PetscErrorCode PCSSORGPUBlocks_Private(PC_SSORGPU *, PetscInt, const PetscInt *, const PetscInt *);
PETSC_INTERN PetscErrorCode PCSSORGPUPermuteRows_Private(PC_SSORGPU *, const PetscInt *, const PetscInt *[2], const PetscInt *[2],
                                                         const PetscScalar *[2], const PetscScalar *);
PETSC_INTERN PetscErrorCode PCSSORGPUPermuteBlocks_Private(PC, PC_SSORGPU *, const PetscInt *[2], const PetscInt *[2], const PetscScalar *[2],
                                                           const PetscInt *, const PetscInt *, const PetscScalar *, PetscBool *);

/*
   PCGAMG's aggregation on several processes (aggmpi.c), for agggpu.c and tests/aggmpi.c.
*/
#pragma once

#include "include/gpukitimpl.h"
#include <petscsf.h>

/* a graph split between processes, as the backend's aggregate takes it with a halo, in device
   memory: this process's rows (columns local, then m + the ghosts'), the vertices' global
   numbers and the send list; the exchange's context (the PetscSF from the send list, roots, to
   the ghosts, leaves). A MATSHELL's context where the graph was made on the devices. */
typedef struct {
  PetscSF  sf;
  MPI_Comm comm;
} GKAggMPIExch;

typedef struct {
  GKCsr        g;
  PetscInt    *gid, *send;
  GKAggMPIExch x;
  GKAggHalo    h;
} GKAggMPIGraph;

/* PCGAMG's strength graph of the MPI device matrix A (block size 1, square) made on the devices
   (the backend's strength with the ghosts' weights and scales: the graph PETSc's MatCreateGraph()
   and filter make, symmetrized where sym), a MATSHELL of GKAggMPIGraph; *G NULL (the same on
   every process) where A's pattern is not symmetric or its blocks are not square. Collective. */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUGraphMPI_Private(Mat, PetscBool, PetscReal, Mat *);

/* the aggregates of the graph G (that MATSHELL, or PETSc's MPIAIJ graph), coarsened on the device with the boundary's states
   exchanged (collective): *dagg (device, 2 m entries, freed by the caller) each local row's
   aggregate (global numbers, -1 for none), then this process's roots; *nagg their count */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUAggregateMPI_Private(Mat, PetscInt, PetscInt **, PetscInt *);
/* the tentative prolongator of the near null space's nv vectors b (host, A's local rows by
   columns, bs rows a node) on those aggregates of the nodes (dagg, device; nagg this process's):
   *t each local node's aggregate and each local row's nv values in its columns (the QR one
   process makes, in the same order, so the same values), and *r (host, nagg nv x nv, as the
   backend's tentativeblock gives it) the coarse level's vectors. Collective. */
typedef struct {
  PetscInt     bs, nv, nagg; /* nagg: this process's aggregates, nv columns each */
  PetscInt    *agg;          /* host: each local node's aggregate, global numbers (-1: none) */
  PetscScalar *p;            /* host: each local row's nv values, by rows */
} GKAggMPITentative;

PETSC_EXTERN PetscErrorCode PCGAMGAggGPUTentativeMPI_Private(Mat, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *,
                                                             GKAggMPITentative *, PetscReal **);
/* that prolongator P0 as a matrix of A's type: a node's rows in its aggregate's nv columns */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUTentativeMatMPI_Private(Mat, const GKAggMPITentative *, Mat *);
/* P0 smoothed once on the devices, P = P0 + alpha D^-1 A P0 (PETSc's AGG's step, the backend's
   smoothblock on this process's rows [Ad Ao] with the ghosts' aggregates and values from their
   owners), a matrix of A's type; A's rows and columns laid out alike. Where *P is given (a
   matrix this function made, of the same pattern), its values are replaced. Collective. */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUSmoothMPI_Private(Mat, const GKAggMPITentative *, PetscReal, Mat *);
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUTentativeMPIFree_Private(GKAggMPITentative *);

/*
   PCGAMG's aggregation on several processes (aggmpi.c), for agggpu.c and tests/aggmpi.c.
*/
#pragma once

#include <petscmat.h>

/* the aggregates of the MPIAIJ graph G, coarsened on the device with the boundary's states
   exchanged (collective): *dagg (device, 2 m entries, freed by the caller) each local row's
   aggregate (global numbers, -1 for none), then this process's roots; *nagg their count */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUAggregateMPI_Private(Mat, PetscInt, PetscInt **, PetscInt *);
/* the tentative prolongator of the near null space's nv vectors b (host, A's local rows by
   columns, bs rows a node) on those aggregates of the nodes (dagg, device; nagg this process's):
   a matrix of A's type, a node's rows in its aggregate's nv columns, and *r (host, nagg nv x nv,
   as the backend's tentativeblock gives it) the coarse level's vectors. Collective. */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUTentativeMPI_Private(Mat, PetscInt, PetscInt, const PetscInt *, PetscInt, const PetscReal *, Mat *,
                                                             PetscReal **);

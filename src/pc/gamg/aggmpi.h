/*
   PCGAMG's aggregation on several processes (aggmpi.c), for agggpu.c and tests/aggmpi.c.
*/
#pragma once

#include <petscmat.h>

/* the aggregates of the MPIAIJ graph G, coarsened on the device with the boundary's states
   exchanged (collective): *dagg (device, 2 m entries, freed by the caller) each local row's
   aggregate (global numbers, -1 for none), then this process's roots; *nagg their count */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUAggregateMPI_Private(Mat, PetscInt, PetscInt **, PetscInt *);
/* the tentative prolongator of the near null space's one vector b (host, A's local rows) on
   those aggregates (dagg, device; nagg this process's): a matrix of A's type, one entry a row,
   and *r (host, nagg entries) the coarse level's vector. Collective. */
PETSC_EXTERN PetscErrorCode PCGAMGAggGPUTentativeMPI_Private(Mat, const PetscInt *, PetscInt, const PetscReal *, Mat *, PetscReal **);

/* The benchmarks' Poisson operator on a DMDA, shared by bench.c and bench/micro/gamgspmv.cu */
#pragma once

#include <petscksp.h>
#include <petscdmda.h>

/* The Poisson operator of ex50 (2D: 4 and -1) and ex45 (3D: 6 and -1, times h), Dirichlet rows
   holding their diagonal alone, on any level of the DMDA hierarchy (KSPSetComputeOperators) */
static PetscErrorCode VCycleOperator(KSP ksp, Mat J, Mat A, void *ctx)
{
  DM            da;
  DMDALocalInfo info;
  MatStencil    row, col[7];
  PetscScalar   v[7];

  PetscFunctionBegin;
  PetscCall(KSPGetDM(ksp, &da));
  PetscCall(DMDAGetLocalInfo(da, &info));
  for (PetscInt k = info.zs; k < info.zs + info.zm; k++)
    for (PetscInt j = info.ys; j < info.ys + info.ym; j++)
      for (PetscInt i = info.xs; i < info.xs + info.xm; i++) {
        const PetscReal h = info.dim == 3 ? 1.0 / (info.mx - 1) : 1.0, d = 2.0 * info.dim * h;
        PetscBool       edge = (PetscBool)(i == 0 || j == 0 || i == info.mx - 1 || j == info.my - 1);
        PetscInt        nc   = 0;

        if (info.dim == 3) edge = (PetscBool)(edge || k == 0 || k == info.mz - 1);
        row.i   = i;
        row.j   = j;
        row.k   = k;
        col[nc] = row;
        v[nc++] = d;
        if (!edge) {
          const PetscInt di[6][3] = {
            {-1, 0,  0 },
            {1,  0,  0 },
            {0,  -1, 0 },
            {0,  1,  0 },
            {0,  0,  -1},
            {0,  0,  1 }
          };
          for (PetscInt q = 0; q < 2 * info.dim; q++) {
            col[nc]   = row;
            col[nc].i = i + di[q][0];
            col[nc].j = j + di[q][1];
            col[nc].k = k + di[q][2];
            v[nc++]   = -h;
          }
        }
        PetscCall(MatSetValuesStencil(A, 1, &row, nc, col, v, INSERT_VALUES));
      }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

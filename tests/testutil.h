/*
   What the linked test programs share.
*/
#pragma once

#include <petscmat.h>

/* nd = ||a - b|| and na = ||a|| in the norm t, for a test's own check */
static PetscErrorCode TestDiffNorms(Vec a, Vec b, NormType t, PetscReal *nd, PetscReal *na)
{
  Vec d;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, t, nd));
  PetscCall(VecNorm(a, t, na));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* ||b - A x|| / ||b|| */
static PetscErrorCode TestTrueResidual(Mat A, Vec x, Vec b, PetscReal *rel)
{
  Vec       r;
  PetscReal nr, nb;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  PetscCall(VecDestroy(&r));
  *rel = nr / nb;
  PetscFunctionReturn(0);
}

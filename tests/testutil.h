/*
   What the linked test programs share.
*/
#pragma once

#include <petscvec.h>

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

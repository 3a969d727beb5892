/*
   A DM's interpolations made device matrices, so that PCMG's transfers (MatRestrict(),
   MatInterpolate()) run on the device with the levels' operators.

   PETSc's DMDA makes its interpolation plain AIJ (MAIJ for several components) for any matrix
   type whose name does not begin with "aij", "seqaij" or "mpiaij" (dainterp.c, ConvertToAIJ():
   PETSc's own GPU types pass by their names), so with -dm_mat_type ellrcuda every restriction and
   prolongation would run on the host and copy the vectors there and back. A DM whose matrices are
   the library's gets, at its matrix's first assembly, a wrapper around its createinterpolation
   operation that converts the result to ELLPACK-R (DIA would not fit an interpolation's
   pattern), and coarsen and refine hooks that do the same for the DMs made from it (DMCoarsen()
   copies no operation but creatematrix). The DM's own operation is kept, composed on it.
*/
#include "gkmat.h"
#include <petsc/private/dmimpl.h>

#define GK_DM_INTERP_BASE_C "GKDMCreateInterpolation_Base_C"

typedef PetscErrorCode (*GKDMInterpFn)(DM, DM, Mat *, Vec *);

static PetscErrorCode GKDMAttach_Private(DM);

/* Whether a DM's matrix type is one of the library's */
static PetscErrorCode GKDMHasDeviceMatType_Private(DM dm, PetscBool *flg)
{
  MatType mtype;

  PetscFunctionBegin;
  PetscCall(DMGetMatType(dm, &mtype));
  PetscCall(PetscStrInList(mtype ? mtype : "", MATELLRCUDA " " MATSEQELLRCUDA " " MATMPIELLRCUDA " " MATDIACUDA " " MATSEQDIACUDA " " MATMPIDIACUDA, ' ', flg));
  PetscFunctionReturn(0);
}

/* The DM's own interpolation, then, while the fine DM's matrices are the library's, the result
   made ELLPACK-R, sequential or MPI (a MAIJ expanded to AIJ first) */
static PetscErrorCode GKDMCreateInterpolation_Private(DM dmc, DM dmf, Mat *P, Vec *scale)
{
  GKDMInterpFn base = NULL;
  PetscBool    ours, isseqaij, ismpiaij, ismaij;

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)dmc, GK_DM_INTERP_BASE_C, &base));
  PetscCheck(base, PetscObjectComm((PetscObject)dmc), PETSC_ERR_PLIB, "The DM's own createinterpolation was lost");
  PetscCall((*base)(dmc, dmf, P, scale));
  PetscCall(GKDMHasDeviceMatType_Private(dmf, &ours));
  if (!ours || !*P) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*P, &ismaij, MATSEQMAIJ, MATMPIMAIJ, ""));
  if (ismaij) PetscCall(MatConvert(*P, MATAIJ, MAT_INPLACE_MATRIX, P));
  PetscCall(PetscObjectTypeCompare((PetscObject)*P, MATSEQAIJ, &isseqaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)*P, MATMPIAIJ, &ismpiaij));
  if (isseqaij) PetscCall(MatConvert_SeqAIJ_SeqGK_Private(*P, &GKFormatELLR, MAT_INPLACE_MATRIX, P));
  else if (ismpiaij) PetscCall(MatConvert(*P, MATMPIELLRCUDA, MAT_INPLACE_MATRIX, P));
  /* both device copies now, in the PC's setup: PCMG interpolates with P and restricts with P^T
     from its first V-cycle on */
  PetscCall(MatGKPrepareInterpolation_Private(*P));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKDMCoarsenHook_Private(DM fine, DM coarse, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(GKDMAttach_Private(coarse));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKDMRefineHook_Private(DM coarse, DM fine, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(GKDMAttach_Private(fine));
  PetscFunctionReturn(0);
}

/* Wraps the DM's createinterpolation (once) and hooks the DMs coarsened or refined from it */
static PetscErrorCode GKDMAttach_Private(DM dm)
{
  GKDMInterpFn base = NULL;

  PetscFunctionBegin;
  if (!dm || !dm->ops->createinterpolation || dm->ops->createinterpolation == GKDMCreateInterpolation_Private) PetscFunctionReturn(0);
  PetscCall(PetscObjectQueryFunction((PetscObject)dm, GK_DM_INTERP_BASE_C, &base));
  PetscCheck(!base, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "The DM's createinterpolation was replaced after the library wrapped it");
  PetscCall(PetscObjectComposeFunction((PetscObject)dm, GK_DM_INTERP_BASE_C, dm->ops->createinterpolation));
  dm->ops->createinterpolation = GKDMCreateInterpolation_Private;
  PetscCall(DMCoarsenHookAdd(dm, GKDMCoarsenHook_Private, NULL, NULL));
  PetscCall(DMRefineHookAdd(dm, GKDMRefineHook_Private, NULL, NULL));
  PetscFunctionReturn(0);
}

/* Called at a device matrix's final assembly: its DM, if it has one, wrapped */
PetscErrorCode MatGKAttachDM_Private(Mat A)
{
  DM dm;

  PetscFunctionBegin;
  PetscCall(MatGetDM(A, &dm));
  if (dm) PetscCall(GKDMAttach_Private(dm));
  PetscFunctionReturn(0);
}

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
#include <petscdmda.h>

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

/* Whether DMDA's Q1 interpolation from dmc to dmf is one this file builds itself: one process,
   2D or 3D, one component, no periodic or ghosted boundary, the two DMDAs alike but for their
   sizes, each fine size (Mc - 1) r + 1 for an integer ratio r. Anything else goes to PETSc's
   own. */
static PetscErrorCode GKDMDAQ1Fits_Private(DM dmc, DM dmf, PetscInt *dim, PetscInt ratio[3], PetscBool *fits)
{
  PetscInt              dc, df, Mc[3], Mf[3], dofc, doff, sc, sf;
  DMBoundaryType        bc[3], bf[3];
  DMDAStencilType       stc, stf;
  DMDAInterpolationType it;
  PetscMPIInt           sizec, sizef;
  PetscBool             dac, daf;

  PetscFunctionBegin;
  *fits = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)dmc, DMDA, &dac));
  PetscCall(PetscObjectTypeCompare((PetscObject)dmf, DMDA, &daf));
  if (!dac || !daf) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dmc), &sizec));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dmf), &sizef));
  if (sizec != 1 || sizef != 1) PetscFunctionReturn(0);
  PetscCall(DMDAGetInterpolationType(dmc, &it));
  if (it != DMDA_Q1) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dmc, &dc, &Mc[0], &Mc[1], &Mc[2], NULL, NULL, NULL, &dofc, &sc, &bc[0], &bc[1], &bc[2], &stc));
  PetscCall(DMDAGetInfo(dmf, &df, &Mf[0], &Mf[1], &Mf[2], NULL, NULL, NULL, &doff, &sf, &bf[0], &bf[1], &bf[2], &stf));
  if (dc != df || (dc != 2 && dc != 3) || dofc != 1 || doff != 1 || sc != sf || stc != stf) PetscFunctionReturn(0);
  for (PetscInt d = 0; d < dc; d++) {
    if (bc[d] != DM_BOUNDARY_NONE || bf[d] != DM_BOUNDARY_NONE || Mc[d] < 2 || (Mf[d] - 1) % (Mc[d] - 1)) PetscFunctionReturn(0);
    ratio[d] = (Mf[d] - 1) / (Mc[d] - 1);
  }
  *dim  = dc;
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* DMDA's Q1 interpolation (PETSc's DMCreateInterpolation_DA_2D_Q1 and _3D_Q1, the same entries
   and values, expression for expression, in PETSc 3.18 to 3.26) written as CSR arrays directly,
   where PETSc sets each row with MatSetValues; a plain SEQAIJ, as PETSc's is for these types */
static PetscErrorCode GKDMDAInterpolationQ1_Private(DM dmc, DM dmf, PetscInt dim, const PetscInt ratio[3], Mat *P)
{
  ISLocalToGlobalMapping ltogf, ltogc;
  const PetscInt        *idxf, *idxc;
  /* a 2D grid as one plane of a 3D one */
  PetscInt       s[3] = {0, 0, 0}, m[3] = {1, 1, 1}, gs[3] = {0, 0, 0}, gm[3] = {1, 1, 1}, gsc[3] = {0, 0, 0}, gmc[3] = {1, 1, 1}, Mc[3] = {1, 1, 1}, nrows, *ai, *aj, nz = 0;
  PetscScalar   *aa;
  void          *arrays;
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(DMDAGetInfo(dmc, NULL, &Mc[0], &Mc[1], dim == 3 ? &Mc[2] : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(dmf, &s[0], &s[1], dim == 3 ? &s[2] : NULL, &m[0], &m[1], dim == 3 ? &m[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dmf, &gs[0], &gs[1], dim == 3 ? &gs[2] : NULL, &gm[0], &gm[1], dim == 3 ? &gm[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dmc, &gsc[0], &gsc[1], dim == 3 ? &gsc[2] : NULL, &gmc[0], &gmc[1], dim == 3 ? &gmc[2] : NULL));
  PetscCall(DMGetLocalToGlobalMapping(dmf, &ltogf));
  PetscCall(DMGetLocalToGlobalMapping(dmc, &ltogc));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltogf, &idxf));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltogc, &idxc));
  nrows = m[0] * m[1] * m[2];
  /* the arrays in one allocation, the values first (aligned), which the matrix keeps */
  {
    const size_t most = (size_t)nrows * (dim == 3 ? 8 : 4);

    PetscCall(PetscMalloc(most * (sizeof(PetscScalar) + sizeof(PetscInt)) + (size_t)(nrows + 1) * sizeof(PetscInt), &arrays));
    aa    = (PetscScalar *)arrays;
    aj    = (PetscInt *)(aa + most);
    ai    = aj + most;
    ai[0] = 0;
  }
  /* each fine point's entries, in PETSc's order, placed at its row (its global number) */
  for (PetscInt pass = 0; pass < 2; pass++) {
    if (pass == 1)
      for (PetscInt r = 0; r < nrows; r++) ai[r + 1] += ai[r];
    for (PetscInt l = s[2]; l < s[2] + m[2]; l++)
      for (PetscInt j = s[1]; j < s[1] + m[1]; j++)
        for (PetscInt i = s[0]; i < s[0] + m[0]; i++) {
          const PetscInt r  = idxf[gm[0] * gm[1] * (l - gs[2]) + gm[0] * (j - gs[1]) + (i - gs[0])];
          const PetscInt ic = i / ratio[0], jc = j / ratio[1], lc = dim == 3 ? l / ratio[2] : 0;
          const PetscInt col = gmc[0] * gmc[1] * (lc - gsc[2]) + gmc[0] * (jc - gsc[1]) + (ic - gsc[0]);
          PetscInt       cols[8], nc = 0;
          PetscScalar    v[8], x, y, z;

          PetscCheck(r >= 0 && r < nrows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Fine point (%" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT ") numbered %" PetscInt_FMT ", outside the %" PetscInt_FMT " rows", i, j, l, r, nrows);
          if (pass == 0) { /* the row's length: a coarse neighbour more in each direction the point lies between two */
            ai[r + 1] = (ic * ratio[0] != i ? 2 : 1) * (jc * ratio[1] != j ? 2 : 1) * (dim == 3 && lc * ratio[2] != l ? 2 : 1);
            continue;
          }
          x = ((PetscReal)(i - ic * ratio[0])) / ((PetscReal)ratio[0]);
          y = ((PetscReal)(j - jc * ratio[1])) / ((PetscReal)ratio[1]);
          if (dim == 2) { /* DMCreateInterpolation_DA_2D_Q1 */
            cols[nc] = idxc[col];
            v[nc++]  = x * y - x - y + 1.0;
            if (ic * ratio[0] != i) {
              cols[nc] = idxc[col + 1];
              v[nc++]  = -x * y + x;
            }
            if (jc * ratio[1] != j) {
              cols[nc] = idxc[col + gmc[0]];
              v[nc++]  = -x * y + y;
            }
            if (jc * ratio[1] != j && ic * ratio[0] != i) {
              cols[nc] = idxc[col + (gmc[0] + 1)];
              v[nc++]  = x * y;
            }
          } else { /* DMCreateInterpolation_DA_3D_Q1 */
            const PetscBool di = (PetscBool)(ic * ratio[0] != i), dj = (PetscBool)(jc * ratio[1] != j), dl = (PetscBool)(lc * ratio[2] != l);
            const PetscInt  mn = gmc[0] * gmc[1];

            z        = ((PetscReal)(l - lc * ratio[2])) / ((PetscReal)ratio[2]);
            cols[nc] = idxc[col];
            v[nc++]  = .125 * (1. - (2.0 * x - 1.)) * (1. - (2.0 * y - 1.)) * (1. - (2.0 * z - 1.));
            if (di) {
              cols[nc] = idxc[col + 1];
              v[nc++]  = .125 * (1. + (2.0 * x - 1.)) * (1. - (2.0 * y - 1.)) * (1. - (2.0 * z - 1.));
            }
            if (dj) {
              cols[nc] = idxc[col + gmc[0]];
              v[nc++]  = .125 * (1. - (2.0 * x - 1.)) * (1. + (2.0 * y - 1.)) * (1. - (2.0 * z - 1.));
            }
            if (dl) {
              cols[nc] = idxc[col + mn];
              v[nc++]  = .125 * (1. - (2.0 * x - 1.)) * (1. - (2.0 * y - 1.)) * (1. + (2.0 * z - 1.));
            }
            if (dj && di) {
              cols[nc] = idxc[col + (gmc[0] + 1)];
              v[nc++]  = .125 * (1. + (2.0 * x - 1.)) * (1. + (2.0 * y - 1.)) * (1. - (2.0 * z - 1.));
            }
            if (dj && dl) {
              cols[nc] = idxc[col + (mn + gmc[0])];
              v[nc++]  = .125 * (1. - (2.0 * x - 1.)) * (1. + (2.0 * y - 1.)) * (1. + (2.0 * z - 1.));
            }
            if (di && dl) {
              cols[nc] = idxc[col + (mn + 1)];
              v[nc++]  = .125 * (1. + (2.0 * x - 1.)) * (1. - (2.0 * y - 1.)) * (1. + (2.0 * z - 1.));
            }
            if (di && dl && dj) {
              cols[nc] = idxc[col + (mn + gmc[0] + 1)];
              v[nc++]  = .125 * (1. + (2.0 * x - 1.)) * (1. + (2.0 * y - 1.)) * (1. + (2.0 * z - 1.));
            }
          }
          PetscCheck(nc == ai[r + 1] - ai[r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " of the interpolation has %" PetscInt_FMT " entries, not %" PetscInt_FMT, r, nc, ai[r + 1] - ai[r]);
          /* the row's columns sorted, as MatSetValues() keeps them (at most 8: insertion) */
          for (PetscInt k = 0; k < nc; k++) {
            PetscInt q = ai[r] + k;

            for (; q > ai[r] && aj[q - 1] > cols[k]; q--) {
              aj[q] = aj[q - 1];
              aa[q] = aa[q - 1];
            }
            aj[q] = cols[k];
            aa[q] = v[k];
          }
          nz += nc;
        }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltogf, &idxf));
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltogc, &idxc));
  PetscCheck(nz == ai[nrows], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The interpolation's rows were not each set once");
  /* the matrix on the arrays, which a container composed on it frees with it */
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, nrows, Mc[0] * Mc[1] * Mc[2], ai, aj, aa, P));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, arrays));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)*P, "GKInterpolationArrays", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

/* The DM's own interpolation (DMDA's Q1 on one process built here instead, see above), then,
   while the fine DM's matrices are the library's, the result made ELLPACK-R, sequential or MPI
   (a MAIJ expanded to AIJ first) */
static PetscErrorCode GKDMCreateInterpolation_Private(DM dmc, DM dmf, Mat *P, Vec *scale)
{
  GKDMInterpFn base = NULL;
  PetscBool    ours, isseqaij, ismpiaij, ismaij, fits;
  PetscInt     dim, ratio[3] = {1, 1, 1};

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)dmc, GK_DM_INTERP_BASE_C, &base));
  PetscCheck(base, PetscObjectComm((PetscObject)dmc), PETSC_ERR_PLIB, "The DM's own createinterpolation was lost");
  PetscCall(GKDMHasDeviceMatType_Private(dmf, &ours));
  PetscCall(GKDMDAQ1Fits_Private(dmc, dmf, &dim, ratio, &fits));
  if (ours && fits) {
    PetscCall(GKDMDAInterpolationQ1_Private(dmc, dmf, dim, ratio, P));
    if (scale) PetscCall(DMCreateInterpolationScale(dmc, dmf, *P, scale));
  } else PetscCall((*base)(dmc, dmf, P, scale));
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

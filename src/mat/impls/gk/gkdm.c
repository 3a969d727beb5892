/*
   A DM's interpolations made device matrices, so that PCMG's transfers (MatRestrict(),
   MatInterpolate()) run on the device with the levels' operators, and a DMDA's matrices made
   with their stencil's pattern without PETSc's slowest step.

   PETSc's DMDA makes its interpolation plain AIJ (MAIJ for several components) for any matrix
   type whose name does not begin with "aij", "seqaij" or "mpiaij" (dainterp.c, ConvertToAIJ():
   PETSc's own GPU types pass by their names), so with -dm_mat_type ellrcuda every restriction and
   prolongation would run on the host and copy the vectors there and back. A DM whose matrices are
   the library's gets, at its matrix's first assembly, a wrapper around its createinterpolation
   operation that converts the result to ELLPACK-R (DIA would not fit an interpolation's
   pattern), and coarsen and refine hooks that do the same for the DMs made from it (DMCoarsen()
   copies no operation but creatematrix). The DM's own operation is kept, composed on it.

   DMDA's DMCreateMatrix() fills the new matrix's pattern with zeros one row at a time through
   MatSetValuesLocal() (fdda.c), which maps every row's columns through the local-to-global
   mapping again: most of its time. A DMDA (it gets its wrappers earlier, when a device vector
   is given its mapping: DMCreateGlobalVector()) whose matrices are the library's has that
   fill done here instead: PETSc's own creatematrix runs as under -dm_preallocate_only (the
   matrix made, preallocated, mapped and given its DM and viewers by PETSc), then each row's
   columns are taken straight from the mapping's array and written into the rows PETSc's
   preallocation made, as each block's whole column array (MatSeqAIJSetColumnIndices(); one
   MatSetValues() a point where the preallocation is not the stencil's, or with
   -gpukit_dm_fill_rows), and the rest is PETSc's (the assembly, the options it sets after).
   Only the plain case comes here: 2D or 3D, no boundary but DM_BOUNDARY_NONE, no
   DMDASetBlockFills(); anything else is PETSc's alone.

   -pc_mg_gpukit_storage single: PCMG's setup reaches the library only through the DM (it coarsens
   the DM, asks it for the interpolations, and its levels' KSPs ask their DMs for the matrices),
   so the DMs coarsened from one read the option, under the DM's options prefix, at their
   coarsening (a DM coarsened from such a one keeps it), and the matrices made for them,
   DMCreateMatrix()'s and the interpolations to the next finer DM, are given single-precision
   storage (MatGPUKitSetStorage()) before their device copies are made. The finest DM's matrix,
   the Krylov method's operator, keeps its own. A Galerkin product of an interpolation stored so
   is stored so too (gkproduct.c).
*/
#include "gkmat.h"
#include "vec/impls/cuda/gkvec.h"
#include <petsc/private/dmimpl.h>
#include <petsc/private/dmdaimpl.h>
#include <petscdmda.h>

/* the least points (rows, for the zeroing) a thread of the host loops here takes */
#define GK_DM_GRAIN 16384
/* PetscInts in 128 bytes: two cache lines, the pair the host's prefetcher fetches together */
#define GK_LINE_INTS ((PetscInt)(128 / sizeof(PetscInt)))

#define GK_DM_INTERP_BASE_C "GKDMCreateInterpolation_Base_C"
#define GK_DM_LEVEL_STORAGE "GKDMLevelStorage" /* composed on a coarsened DM whose matrices get single storage */

typedef PetscErrorCode (*GKDMInterpFn)(DM, DM, Mat *, Vec *);

static PetscErrorCode GKDMAttach_Private(DM);
static PetscErrorCode GKDMLevelStorage_Private(DM, Mat);

/* Whether a DM's matrix type is one of the library's */
static PetscErrorCode GKDMHasDeviceMatType_Private(DM dm, PetscBool *flg)
{
  MatType            mtype;
  const GKMatFormat *fmt;

  PetscFunctionBegin;
  PetscCall(DMGetMatType(dm, &mtype));
  PetscCall(MatGKFormatFind_Private(mtype, &fmt));
  *flg = fmt ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Whether DMDA's Q1 interpolation from dmc to dmf is one this file builds itself: 2D or 3D, one
   component, no periodic or ghosted boundary, the two DMDAs alike but for their sizes, each fine
   size (Mc - 1) r + 1 for an integer ratio r, and on every process the coarse points its fine
   points need inside its coarse ghosted patch (as DMCoarsen() and DMRefine() make them; PETSc's
   own stops with an error otherwise). Anything else goes to PETSc's own. Collective. */
static PetscErrorCode GKDMDAQ1Fits_Private(DM dmc, DM dmf, PetscInt *dim, PetscInt ratio[3], PetscBool *fits)
{
  PetscInt              dc, df, Mc[3], Mf[3], dofc, doff, sc, sf, s[3] = {0, 0, 0}, m[3] = {1, 1, 1}, gsc[3] = {0, 0, 0}, gmc[3] = {1, 1, 1};
  DMBoundaryType        bc[3], bf[3];
  DMDAStencilType       stc, stf;
  DMDAInterpolationType it;
  PetscMPIInt           sizec, sizef;
  PetscBool             dac, daf, covered = PETSC_TRUE;

  PetscFunctionBegin;
  *fits = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)dmc, DMDA, &dac));
  PetscCall(PetscObjectTypeCompare((PetscObject)dmf, DMDA, &daf));
  if (!dac || !daf) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dmc), &sizec));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dmf), &sizef));
  if (sizec != sizef) PetscFunctionReturn(0);
  PetscCall(DMDAGetInterpolationType(dmc, &it));
  if (it != DMDA_Q1) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dmc, &dc, &Mc[0], &Mc[1], &Mc[2], NULL, NULL, NULL, &dofc, &sc, &bc[0], &bc[1], &bc[2], &stc));
  PetscCall(DMDAGetInfo(dmf, &df, &Mf[0], &Mf[1], &Mf[2], NULL, NULL, NULL, &doff, &sf, &bf[0], &bf[1], &bf[2], &stf));
  if (dc != df || (dc != 2 && dc != 3) || dofc != 1 || doff != 1 || sc != sf || stc != stf) PetscFunctionReturn(0);
  for (PetscInt d = 0; d < dc; d++) {
    if (bc[d] != DM_BOUNDARY_NONE || bf[d] != DM_BOUNDARY_NONE || Mc[d] < 2 || (Mf[d] - 1) % (Mc[d] - 1)) PetscFunctionReturn(0);
    ratio[d] = (Mf[d] - 1) / (Mc[d] - 1);
  }
  PetscCall(DMDAGetCorners(dmf, &s[0], &s[1], dc == 3 ? &s[2] : NULL, &m[0], &m[1], dc == 3 ? &m[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dmc, &gsc[0], &gsc[1], dc == 3 ? &gsc[2] : NULL, &gmc[0], &gmc[1], dc == 3 ? &gmc[2] : NULL));
  if (m[0] * m[1] * m[2] > 0)
    for (PetscInt d = 0; d < dc; d++) {
      const PetscInt last = s[d] + m[d] - 1, lo = s[d] / ratio[d], hi = last / ratio[d] + (last % ratio[d] ? 1 : 0);

      if (lo < gsc[d] || hi >= gsc[d] + gmc[d]) covered = PETSC_FALSE;
    }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &covered, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)dmf)));
  if (!covered) PetscFunctionReturn(0);
  *dim  = dc;
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The Q1 entries of fine point (i, j, l) (device.h's GKQ1Corner(): PETSc's values, expression for
   expression): the columns as global numbers (idxc: the coarse ghosted patch's, gsc/gmc its
   corners and sizes), in the patch's order, the values only where v is given; returns how many */
static inline PetscInt GKDMDAQ1Row(PetscInt dim, PetscInt i, PetscInt j, PetscInt l, const PetscInt ratio[3], const PetscInt gsc[3],
                                   const PetscInt gmc[3], const PetscInt *idxc, PetscInt cols[8], PetscScalar *v)
{
  const PetscInt  ic = i / ratio[0], jc = j / ratio[1], lc = dim == 3 ? l / ratio[2] : 0;
  const PetscInt  col = gmc[0] * gmc[1] * (lc - gsc[2]) + gmc[0] * (jc - gsc[1]) + (ic - gsc[0]);
  const PetscReal x = ((PetscReal)(i - ic * ratio[0])) / ((PetscReal)ratio[0]), y = ((PetscReal)(j - jc * ratio[1])) / ((PetscReal)ratio[1]);
  const PetscReal z = dim == 3 ? ((PetscReal)(l - lc * ratio[2])) / ((PetscReal)ratio[2]) : 0;
  PetscInt        off[8], nc;
  PetscReal       w[8];

  nc = GKQ1Corner(dim, x, y, z, ic * ratio[0] != i, jc * ratio[1] != j, dim == 3 && lc * ratio[2] != l, gmc[0], gmc[0] * gmc[1], off, w);
  for (PetscInt k = 0; k < nc; k++) {
    cols[k] = idxc[col + off[k]];
    if (v) v[k] = w[k];
  }
  return nc;
}

/* The CSR arrays of one block of the interpolation: its values first (aligned), columns, row
   offsets, in one allocation that a container composed on P (name) frees with it */
typedef struct {
  void        *mem;
  PetscScalar *a;
  PetscInt    *j, *i;
} GKQ1Block;

static PetscErrorCode GKQ1BlockAlloc_Private(PetscInt nrows, PetscInt nz, GKQ1Block *b)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc((size_t)nz * (sizeof(PetscScalar) + sizeof(PetscInt)) + (size_t)(nrows + 1) * sizeof(PetscInt), &b->mem));
  b->a = (PetscScalar *)b->mem;
  b->j = (PetscInt *)(b->a + nz);
  b->i = b->j + nz;
  PetscFunctionReturn(0);
}

static PetscErrorCode GKQ1BlockCompose_Private(Mat P, const char *name, GKQ1Block *b)
{
  PetscContainer c;

  PetscFunctionBegin;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, b->mem));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)P, name, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

/* DMDA's Q1 interpolation (the same entries and values as PETSc's) written as CSR arrays
   directly, where PETSc sets each row with MatSetValues: the process's fine points' rows, split
   between the coarse columns it owns (local numbers) and the others (global numbers): on one
   process copied up and made the device matrix (its scale vector summed from them as PETSc's
   restriction sums it), on several wrapped by an MPIAIJ, as PETSc's is for this type. Each pass
   over the fine points (their rows' entries counted in each block, then written) is spread over
   the host's threads (gkthreads.c) by lines of points (a j and an l each): a row is one point's. */
typedef struct {
  PetscInt        dim, ratio[3], s[3], m[3], gs[3], gm[3], gsc[3], gmc[3], nrows, rstart, cstart, cend;
  const PetscInt *idxf, *idxc;
  PetscInt       *dcount, *ocount; /* pass 0: each row's entries, at r + 1 */
  GKQ1Block      *D, *O;           /* pass 1: the arrays, their row offsets made */
  PetscInt        pass;
  PetscInt *bad; /* a part: a fine point's row outside the process's (1), a column outside the coarse grid (2), a row not filled as counted (3) */
} GKQ1Ctx;

static void GKDMDAQ1Part(void *arg, PetscInt part, PetscInt lo, PetscInt hi)
{
  GKQ1Ctx *x = (GKQ1Ctx *)arg;

  x->bad[part] = 0;
  for (PetscInt line = lo; line < hi && !x->bad[part]; line++) {
    const PetscInt j = x->s[1] + line % x->m[1], l = x->s[2] + line / x->m[1];

    for (PetscInt i = x->s[0]; i < x->s[0] + x->m[0]; i++) {
      const PetscInt r = x->idxf[x->gm[0] * x->gm[1] * (l - x->gs[2]) + x->gm[0] * (j - x->gs[1]) + (i - x->gs[0])] - x->rstart;
      PetscInt       cols[8], nc, pd, po;
      PetscScalar    v[8];

      if (r < 0 || r >= x->nrows) {
        x->bad[part] = 1;
        break;
      }
      nc = GKDMDAQ1Row(x->dim, i, j, l, x->ratio, x->gsc, x->gmc, x->idxc, cols, x->pass ? v : NULL);
      if (x->pass == 0) {
        for (PetscInt k = 0; k < nc; k++) {
          if (cols[k] >= x->cstart && cols[k] < x->cend) x->dcount[r + 1]++;
          else x->ocount[r + 1]++;
        }
        continue;
      }
      for (PetscInt k = 1; k < nc; k++) /* insertion, at most 8 */
        for (PetscInt q = k; q > 0 && cols[q - 1] > cols[q]; q--) {
          const PetscInt    tc = cols[q];
          const PetscScalar tv = v[q];

          cols[q]     = cols[q - 1];
          v[q]        = v[q - 1];
          cols[q - 1] = tc;
          v[q - 1]    = tv;
        }
      pd = x->D->i[r];
      po = x->O->i ? x->O->i[r] : 0;
      for (PetscInt k = 0; k < nc; k++) {
        if (cols[k] >= x->cstart && cols[k] < x->cend) {
          x->D->j[pd]   = cols[k] - x->cstart;
          x->D->a[pd++] = v[k];
        } else if (!x->O->i) x->bad[part] = 2;
        else {
          x->O->j[po]   = cols[k];
          x->O->a[po++] = v[k];
        }
      }
      if (pd != x->D->i[r + 1] || (x->O->i && po != x->O->i[r + 1])) x->bad[part] = 3;
      if (x->bad[part]) break;
    }
  }
}

/* On one process the backend makes the interpolation from the two grids' sizes alone (device.h,
   q1interp): its rows in device memory with no host array (the host pattern made only where a
   host operation asks for it), and its scale vector written there too */
static PetscErrorCode GKDMDAInterpolationQ1Backend_Private(DM dmc, DM dmf, PetscInt dim, const PetscInt ratio[3], Mat *P, Vec *scale)
{
  GKQ1Grid     g;
  GKCsr        d;
  PetscInt64   nnz;
  PetscScalar *s        = NULL;
  PetscBool    ondevice = PETSC_FALSE, sorted, adopted;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.dim = dim;
  for (PetscInt k = 0; k < 3; k++) g.M[k] = g.Mc[k] = g.r[k] = 1;
  PetscCall(DMDAGetInfo(dmc, NULL, &g.Mc[0], &g.Mc[1], dim == 3 ? &g.Mc[2] : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetInfo(dmf, NULL, &g.M[0], &g.M[1], dim == 3 ? &g.M[2] : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  for (PetscInt k = 0; k < dim; k++) g.r[k] = ratio[k];
  GKQ1Size(&g, &d.m, &d.n, &nnz);
  PetscCheck(nnz <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "The interpolation's %" PetscInt64_FMT " entries need 64-bit indices", nnz);
  d.nnz = (PetscInt)nnz;
  PetscCall(GKDev->malloc(sizeof(PetscInt) * (size_t)(d.m + 1), (void **)&d.i));
  PetscCall(GKDev->malloc(sizeof(PetscInt) * (size_t)d.nnz, (void **)&d.j));
  PetscCall(GKDev->malloc(sizeof(PetscScalar) * (size_t)d.nnz, (void **)&d.a));
  if (scale) {
    PetscCall(DMCreateGlobalVector(dmc, scale));
    ondevice = VecIsGK(*scale);
    if (ondevice) PetscCall(VecGPUKitGetDeviceArrayWrite(*scale, &s));
    else PetscCall(GKDev->malloc(sizeof(PetscScalar) * (size_t)d.n, (void **)&s));
  }
  PetscCall(GKDev->q1interp(&g, &d, s));
  if (scale && ondevice) PetscCall(VecGPUKitRestoreDeviceArrayWrite(*scale, &s));
  else if (scale) {
    PetscScalar *h; /* a host vector: its values copied down */

    PetscCall(VecGetArrayWrite(*scale, &h));
    PetscCall(GKMemcpyD2H(h, s, sizeof(PetscScalar) * (size_t)d.n));
    PetscCall(VecRestoreArrayWrite(*scale, &h));
    PetscCall(GKDev->free(s));
  }
  PetscCall(MatCreate(PETSC_COMM_SELF, P));
  PetscCall(MatSetSizes(*P, d.m, d.n, d.m, d.n));
  PetscCall(MatSetType(*P, GKFormatDefault->type));
  PetscCall(MatSeqGKSetFromDeviceCsr_Private(*P, &d, PETSC_TRUE, &sorted, &adopted));
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  if (!adopted) PetscCall(GKCsrFree_Private(&d)); /* the host matrix has it all */
  PetscCall(PetscInfo(dmf, "DMDA's Q1 interpolation: %" PetscInt_FMT " rows made by the %s backend\n", d.m, GKDev->name));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKDMDAInterpolationQ1Host_Private(DM, DM, PetscInt, const PetscInt[3], PetscMPIInt, Mat *, Vec *);

static PetscErrorCode GKDMDAInterpolationQ1_Private(DM dmc, DM dmf, PetscInt dim, const PetscInt ratio[3], Mat *P, Vec *scale)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dmf), &size));
  if (size == 1) PetscCall(PetscGPUKitBackendSetUp_Private());
  if (size == 1 && GKDev->q1interp) PetscCall(GKDMDAInterpolationQ1Backend_Private(dmc, dmf, dim, ratio, P, scale));
  else PetscCall(GKDMDAInterpolationQ1Host_Private(dmc, dmf, dim, ratio, size, P, scale));
  { /* what says the library made it (tests/interp) */
    PetscContainer c;

    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscObjectCompose((PetscObject)*P, "GKInterpolationQ1", (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
  PetscFunctionReturn(0);
}

/* The host's threads write the rows (above); on several processes, and on one where the backend
   has no q1interp */
static PetscErrorCode GKDMDAInterpolationQ1Host_Private(DM dmc, DM dmf, PetscInt dim, const PetscInt ratio[3], PetscMPIInt size, Mat *P, Vec *scale)
{
  MPI_Comm               comm = PetscObjectComm((PetscObject)dmf);
  ISLocalToGlobalMapping ltogf, ltogc;
  /* a 2D grid as one plane of a 3D one */
  PetscInt  mc[3] = {1, 1, 1}, Mc[3] = {1, 1, 1}, Mf[3] = {1, 1, 1};
  PetscInt  ncols, nzd = 0, nzo = 0, nt, lines;
  GKQ1Block D, O = {NULL, NULL, NULL, NULL};
  GKQ1Ctx   x;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(&x, sizeof(x)));
  for (PetscInt d = 0; d < 3; d++) {
    x.ratio[d] = ratio[d];
    x.m[d] = x.gm[d] = x.gmc[d] = 1;
  }
  x.dim = dim;
  PetscCall(DMDAGetInfo(dmc, NULL, &Mc[0], &Mc[1], dim == 3 ? &Mc[2] : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetInfo(dmf, NULL, &Mf[0], &Mf[1], dim == 3 ? &Mf[2] : NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  PetscCall(DMDAGetCorners(dmf, &x.s[0], &x.s[1], dim == 3 ? &x.s[2] : NULL, &x.m[0], &x.m[1], dim == 3 ? &x.m[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dmf, &x.gs[0], &x.gs[1], dim == 3 ? &x.gs[2] : NULL, &x.gm[0], &x.gm[1], dim == 3 ? &x.gm[2] : NULL));
  PetscCall(DMDAGetCorners(dmc, NULL, NULL, NULL, &mc[0], &mc[1], dim == 3 ? &mc[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dmc, &x.gsc[0], &x.gsc[1], dim == 3 ? &x.gsc[2] : NULL, &x.gmc[0], &x.gmc[1], dim == 3 ? &x.gmc[2] : NULL));
  x.nrows = x.m[0] * x.m[1] * x.m[2];
  ncols   = mc[0] * mc[1] * mc[2];
  /* a DMDA numbers each process's points after the previous processes' */
  PetscCallMPI(MPI_Scan(&x.nrows, &x.rstart, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Scan(&ncols, &x.cend, 1, MPIU_INT, MPI_SUM, comm));
  x.rstart -= x.nrows;
  x.cstart = x.cend - ncols;
  PetscCall(DMGetLocalToGlobalMapping(dmf, &ltogf));
  PetscCall(DMGetLocalToGlobalMapping(dmc, &ltogc));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltogf, &x.idxf));
  PetscCall(ISLocalToGlobalMappingGetBlockIndices(ltogc, &x.idxc));
  lines = x.m[1] * x.m[2];
  PetscCall(GKHostThreads_Private(x.nrows, GK_DM_GRAIN, &nt));
  nt = PetscMin(nt, PetscMax(lines, 1));
  PetscCall(PetscCalloc3(x.nrows + 1, &x.dcount, x.nrows + 1, &x.ocount, nt, &x.bad));
  x.D = &D;
  x.O = &O;
  /* each row's entries in the coarse columns of this process and of the others (pass 0), then
     each fine point's entries sorted (as MatSetValues() keeps them) placed at its row (pass 1) */
  for (x.pass = 0; x.pass < 2; x.pass++) {
    if (x.pass == 1) { /* the arrays, their row offsets */
      for (PetscInt r = 0; r < x.nrows; r++) {
        nzd += x.dcount[r + 1];
        nzo += x.ocount[r + 1];
      }
      PetscCall(GKQ1BlockAlloc_Private(x.nrows, nzd, &D));
      if (size > 1) PetscCall(GKQ1BlockAlloc_Private(x.nrows, nzo, &O));
      D.i[0] = 0;
      for (PetscInt r = 0; r < x.nrows; r++) D.i[r + 1] = D.i[r] + x.dcount[r + 1];
      if (O.i) {
        O.i[0] = 0;
        for (PetscInt r = 0; r < x.nrows; r++) O.i[r + 1] = O.i[r] + x.ocount[r + 1];
      }
    }
    PetscCall(GKParallelFor_Private(lines, nt, GKDMDAQ1Part, &x));
    for (PetscInt t = 0; t < nt; t++) {
      PetscCheck(x.bad[t] != 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A fine point's row is outside this process's %" PetscInt_FMT " rows", x.nrows);
      PetscCheck(x.bad[t] != 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A column is outside the coarse grid's %" PetscInt_FMT " points", x.cend);
      PetscCheck(x.bad[t] != 3, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A row of the interpolation was set twice");
    }
  }
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltogf, &x.idxf));
  PetscCall(ISLocalToGlobalMappingRestoreBlockIndices(ltogc, &x.idxc));
  PetscCall(PetscFree3(x.dcount, x.ocount, x.bad));
  PetscCall(
    PetscInfo(dmf, "DMDA's Q1 interpolation: %" PetscInt_FMT " rows written by %" PetscInt_FMT " thread%s\n", x.nrows, nt, nt > 1 ? "s" : ""));
  if (size == 1) { /* the arrays copied up once, the device matrix made from them with no host
                      pattern (each row ascending), made from the device's only where a host
                      operation asks for it: no AIJ assembly of the finest level's rows */
    GKCsr     d;
    PetscBool sorted, adopted;

    if (scale) { /* DMCreateInterpolationScale()'s, 1 / (P^T 1), summed as SEQAIJ's MatMultTranspose() sums */
      PetscScalar *s;

      PetscCall(DMCreateGlobalVector(dmc, scale));
      PetscCall(VecGetArrayWrite(*scale, &s));
      PetscCall(PetscArrayzero(s, ncols));
      for (PetscInt r = 0; r < x.nrows; r++)
        for (PetscInt k = D.i[r]; k < D.i[r + 1]; k++) s[D.j[k]] += D.a[k];
      for (PetscInt c = 0; c < ncols; c++)
        if (s[c] != 0.0) s[c] = 1.0 / s[c];
      PetscCall(VecRestoreArrayWrite(*scale, &s));
    }
    PetscCall(PetscGPUKitBackendSetUp_Private());
    PetscCall(GKCsrToDevice_Private(x.nrows, ncols, D.i, D.j, D.a, &d));
    PetscCall(PetscFree(D.mem));
    PetscCall(MatCreate(PETSC_COMM_SELF, P));
    PetscCall(MatSetSizes(*P, x.nrows, ncols, x.nrows, ncols));
    PetscCall(MatSetType(*P, GKFormatDefault->type));
    PetscCall(MatSeqGKSetFromDeviceCsr_Private(*P, &d, PETSC_TRUE, &sorted, &adopted));
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
    if (!adopted) PetscCall(GKCsrFree_Private(&d)); /* the host matrix has it all */
  } else {
    /* the matrix on the arrays, which containers composed on it free with it */
    PetscCall(MatCreateMPIAIJWithSplitArrays(comm, x.nrows, ncols, Mf[0] * Mf[1] * Mf[2], Mc[0] * Mc[1] * Mc[2], D.i, D.j, D.a, O.i, O.j, O.a, P));
    PetscCall(GKQ1BlockCompose_Private(*P, "GKInterpolationArrays", &D));
    if (O.mem) PetscCall(GKQ1BlockCompose_Private(*P, "GKInterpolationArraysOff", &O));
    if (scale) PetscCall(DMCreateInterpolationScale(dmc, dmf, *P, scale));
  }
  PetscFunctionReturn(0);
}

/* DMDA's own creatematrix, read once from a DMDA made for it: PETSc does not export it, and a
   DM's operation may be a user's (DMDASetGetMatrix()), which is left alone */
static PetscErrorCode (*gk_dmda_creatematrix)(DM, Mat *) = NULL;

static PetscErrorCode GKDMDABaseCreateMatrix_Private(PetscErrorCode (**f)(DM, Mat *))
{
  PetscFunctionBegin;
  if (!gk_dmda_creatematrix) {
    DM d;

    PetscCall(DMCreate(PETSC_COMM_SELF, &d));
    PetscCall(DMSetType(d, DMDA));
    gk_dmda_creatematrix = d->ops->creatematrix;
    PetscCall(DMDestroy(&d));
  }
  *f = gk_dmda_creatematrix;
  PetscFunctionReturn(0);
}

/* Whether DMDA's matrix is one this file fills: see the top of the file */
static PetscErrorCode GKDMDAPatternFits_Private(DM dm, PetscBool *fits)
{
  DM_DA         *dd = (DM_DA *)dm->data;
  PetscInt       dim;
  DMBoundaryType b[3];
  PetscBool      ours;

  PetscFunctionBegin;
  *fits = PETSC_FALSE;
  PetscCall(GKDMHasDeviceMatType_Private(dm, &ours));
  if (!ours || dm->prealloc_only || dm->prealloc_skip || dm->structure_only || dd->ofill || dd->dfill) PetscFunctionReturn(0);
  PetscCall(DMDAGetInfo(dm, &dim, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &b[0], &b[1], &b[2], NULL));
  if (dim != 2 && dim != 3) PetscFunctionReturn(0);
  for (PetscInt d = 0; d < dim; d++)
    if (b[d] != DM_BOUNDARY_NONE) PetscFunctionReturn(0);
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* the most neighbours of the interior's stencil kept as slot offsets (a 3D box of width 2) */
#define GK_DM_OFF_MAX 125

/* A DMDA's owned points and the stencil around each, read once for the fills below */
typedef struct {
  PetscInt               dim, M[3], dof, s, xs[3], xm[3], gs[3], gm[3], width;
  DMDAStencilType        st;
  ISLocalToGlobalMapping ltog;
  const PetscInt        *g;                  /* the mapping's array: dof numbers a point, in order */
  PetscInt               noff;               /* a point of the interior's neighbours (0: none kept) */
  PetscInt               off[GK_DM_OFF_MAX]; /* their slots less the point's, in GKDMDAPointColumns()'s order */
} GKDMDAStencil;

static PetscErrorCode GKDMDAStencilGet_Private(DM dm, GKDMDAStencil *p)
{
  PetscFunctionBegin;
  PetscCall(PetscMemzero(p, sizeof(*p)));
  for (PetscInt d = 0; d < 3; d++) p->M[d] = p->xm[d] = p->gm[d] = 1;
  PetscCall(DMDAGetInfo(dm, &p->dim, &p->M[0], &p->M[1], &p->M[2], NULL, NULL, NULL, &p->dof, &p->s, NULL, NULL, NULL, &p->st));
  PetscCall(DMDAGetCorners(dm, &p->xs[0], &p->xs[1], p->dim == 3 ? &p->xs[2] : NULL, &p->xm[0], &p->xm[1], p->dim == 3 ? &p->xm[2] : NULL));
  PetscCall(DMDAGetGhostCorners(dm, &p->gs[0], &p->gs[1], p->dim == 3 ? &p->gs[2] : NULL, &p->gm[0], &p->gm[1], p->dim == 3 ? &p->gm[2] : NULL));
  if (p->dim == 2) p->M[2] = 1;
  p->width = (2 * p->s + 1) * (2 * p->s + 1) * (p->dim == 3 ? 2 * p->s + 1 : 1);
  if (p->width <= GK_DM_OFF_MAX) { /* a point whose stencil the grid's edges do not cut */
    const PetscInt s = p->s, rs = p->dim == 3 ? s : 0;

    for (PetscInt r = -rs; r <= rs; r++)
      for (PetscInt q = -s; q <= s; q++)
        for (PetscInt o = -s; o <= s; o++)
          if (p->st == DMDA_STENCIL_BOX || (!o && !q) || (!q && !r) || (!o && !r)) p->off[p->noff++] = o + p->gm[0] * (q + p->gm[1] * r);
  }
  PetscCall(DMGetLocalToGlobalMapping(dm, &p->ltog));
  PetscCall(ISLocalToGlobalMappingGetIndices(p->ltog, &p->g));
  PetscFunctionReturn(0);
}

/* Owned point (i, j, k): its neighbours' first global numbers, sorted, in nb (their count
   returned), and its own first global number in *row; PETSc not called (the fill's threads run it) */
static inline PetscInt GKDMDAPointColumns(const GKDMDAStencil *p, PetscInt i, PetscInt j, PetscInt k, PetscInt *nb, PetscInt *row)
{
  const PetscInt  s = p->s, slot = (i - p->gs[0]) + p->gm[0] * ((j - p->gs[1]) + p->gm[1] * (k - p->gs[2]));
  const PetscInt  plo = PetscMax(-s, -i), phi = PetscMin(s, p->M[0] - 1 - i), qlo = PetscMax(-s, -j), qhi = PetscMin(s, p->M[1] - 1 - j),
                  rlo = PetscMax(-s, -k), rhi = PetscMin(s, p->M[2] - 1 - k);
  const PetscBool box = p->st == DMDA_STENCIL_BOX;
  PetscInt        c   = 0;

  if (p->noff && plo == -s && phi == s && qlo == -s && qhi == s && (p->dim == 2 || (rlo == -s && rhi == s)))
    for (; c < p->noff; c++) nb[c] = p->g[p->dof * (slot + p->off[c])]; /* the interior: the same neighbours, in the same order */
  else
    for (PetscInt r = rlo; r <= rhi; r++)
      for (PetscInt q = qlo; q <= qhi; q++)
        for (PetscInt o = plo; o <= phi; o++)
          if (box || (!o && !q) || (!q && !r) || (!o && !r)) nb[c++] = p->g[p->dof * (slot + o + p->gm[0] * (q + p->gm[1] * r))];
  /* ascending already where the numbering follows the grid (one process); else an insertion
     sort, a stencil being short */
  for (PetscInt t = 1; t < c; t++) {
    const PetscInt v = nb[t];
    PetscInt       u = t;

    for (; u > 0 && nb[u - 1] > v; u--) nb[u] = nb[u - 1];
    nb[u] = v;
  }
  *row = p->g[p->dof * slot];
  return c;
}

/* every owned point (i, j, k) in PETSc's order, while go holds */
#define GKDMDAForOwned(p, i, j, k, go) \
  for (PetscInt k = (p)->xs[2]; (go) && k < (p)->xs[2] + (p)->xm[2]; k++) \
    for (PetscInt j = (p)->xs[1]; (go) && j < (p)->xs[1] + (p)->xm[1]; j++) \
      for (PetscInt i = (p)->xs[0]; (go) && i < (p)->xs[0] + (p)->xm[0]; i++)

/* The stencil's pattern of every owned row as zeros, one MatSetValues() a point: each neighbour's
   first number followed by its other components. Works with any preallocation. */
static PetscErrorCode GKDMDAFillRows_Private(const GKDMDAStencil *p, Mat J)
{
  PetscInt *nb, *cols, *rows, cnt, first;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(p->width, &nb, p->width * p->dof, &cols, p->dof, &rows));
  GKDMDAForOwned(p, i, j, k, PETSC_TRUE)
  {
    cnt = GKDMDAPointColumns(p, i, j, k, nb, &first);
    for (PetscInt c = 0; c < cnt; c++)
      for (PetscInt d = 0; d < p->dof; d++) cols[c * p->dof + d] = nb[c] + d;
    for (PetscInt d = 0; d < p->dof; d++) rows[d] = first + d;
    PetscCall(MatSetValues(J, p->dof, rows, cnt * p->dof, cols, NULL, INSERT_VALUES));
  }
  PetscCall(PetscFree3(nb, cols, rows));
  PetscFunctionReturn(0);
}

/* The same pattern written as each block's whole column array at once
   (MatSeqAIJSetColumnIndices(): the diagonal block's columns local, the off-diagonal block's global
   until the assembly compacts them, as MatSetValues() leaves them), the values zeroed. PETSc's
   preallocation of a DMDA holds exactly the stencil's columns in each row; each row's columns are
   checked against the rows' starts it made (ia, from MatGetRowIJ() of the unassembled blocks)
   before anything is set; where they differ *done is false and nothing is set: the rows'
   lengths stay 0, so the fill row by row starts from empty rows (jj, the blocks' column arrays
   or copies of them, holds what was written so far, which that fill overwrites). The lines of
   owned points (a j and k each) are spread over the host's threads (gkthreads.c), each writing
   its rows' columns where the starts say: the first touch of the pattern's arrays, most of the
   fill's time, is then spread too. */
typedef struct {
  const GKDMDAStencil *p;
  PetscInt             m, rstart, cstart, cend;
  Mat                 *blk;
  const PetscInt     **ia;
  PetscInt           **jj;
  PetscInt            *nb; /* a part's stride entries, of which it uses the first width */
  PetscInt             stride;
  PetscInt            *rows; /* rows written, a part */
  PetscBool           *ok;   /* a part */
  PetscScalar         *v[2]; /* the values zeroed, a block */
} GKDMDAColumnsCtx;

static void GKDMDASetColumnsPart(void *arg, PetscInt part, PetscInt lo, PetscInt hi)
{
  GKDMDAColumnsCtx    *x  = (GKDMDAColumnsCtx *)arg;
  const GKDMDAStencil *p  = x->p;
  PetscInt            *nb = x->nb + part * x->stride, rows = 0;
  PetscBool            ok = PETSC_TRUE;

  for (PetscInt line = lo; line < hi && ok; line++) {
    const PetscInt j = p->xs[1] + line % p->xm[1], k = p->xs[2] + line / p->xm[1];

    for (PetscInt i = p->xs[0]; i < p->xs[0] + p->xm[0] && ok; i++) {
      PetscInt first, cnt = GKDMDAPointColumns(p, i, j, k, nb, &first);

      for (PetscInt d = 0; d < p->dof && ok; d++) {
        const PetscInt r = first + d - x->rstart;
        PetscInt       at[2];

        if (r < 0 || r >= x->m) {
          ok = PETSC_FALSE;
          break;
        }
        for (PetscInt b = 0; b < 2; b++) at[b] = x->blk[b] ? x->ia[b][r] : 0;
        for (PetscInt c = 0; c < cnt && ok; c++) {
          for (PetscInt e = 0; e < p->dof && ok; e++) {
            const PetscInt col = nb[c] + e, b = col >= x->cstart && col < x->cend ? 0 : 1;

            if (!x->blk[b] || at[b] == x->ia[b][r + 1]) ok = PETSC_FALSE;
            else x->jj[b][at[b]++] = b ? col : col - x->cstart;
          }
        }
        for (PetscInt b = 0; b < 2; b++)
          if (x->blk[b] && at[b] != x->ia[b][r + 1]) ok = PETSC_FALSE;
        rows++;
      }
    }
  }
  x->rows[part] = rows;
  x->ok[part]   = ok;
}

/* the values of rows lo to hi - 1 zeroed, in both blocks */
static void GKDMDAZeroPart(void *arg, PetscInt part, PetscInt lo, PetscInt hi)
{
  GKDMDAColumnsCtx *x = (GKDMDAColumnsCtx *)arg;

  (void)part;
  for (PetscInt b = 0; b < 2; b++)
    if (x->v[b]) memset(x->v[b] + x->ia[b][lo], 0, sizeof(PetscScalar) * (size_t)(x->ia[b][hi] - x->ia[b][lo]));
}

static PetscErrorCode GKDMDASetColumns_Private(const GKDMDAStencil *p, Mat J, Mat blk[2], const PetscInt *ia[2], PetscInt *jj[2], PetscBool *done)
{
  GKDMDAColumnsCtx x;
  PetscInt         nt, lines = p->xm[1] * p->xm[2], rows = 0;

  PetscFunctionBegin;
  x.p      = p;
  x.m      = J->rmap->n;
  x.rstart = J->rmap->rstart;
  x.cstart = J->cmap->rstart;
  x.cend   = J->cmap->rend;
  x.blk    = blk;
  x.ia     = ia;
  x.jj     = jj;
  x.v[0] = x.v[1] = NULL;
  PetscCall(GKHostThreads_Private(lines * p->xm[0], GK_DM_GRAIN, &nt));
  nt = PetscMin(nt, PetscMax(lines, 1));
  /* each thread's neighbours at least 128 bytes from the next thread's: threads that write
     one cache line take it from each other at every write, and ran no faster than one */
  x.stride = (p->width + 2 * GK_LINE_INTS - 1) / GK_LINE_INTS * GK_LINE_INTS;
  PetscCall(PetscMalloc3(nt * x.stride, &x.nb, nt, &x.rows, nt, &x.ok));
  for (PetscInt b = 0; b < 2; b++)
    if (blk[b]) GKHostAdviseHuge_Private(jj[b], sizeof(PetscInt) * (size_t)ia[b][x.m]);
  PetscCall(GKParallelFor_Private(lines, nt, GKDMDASetColumnsPart, &x));
  *done = PETSC_TRUE;
  for (PetscInt t = 0; t < nt; t++) {
    rows += x.rows[t];
    if (!x.ok[t]) *done = PETSC_FALSE;
  }
  if (rows != x.m) *done = PETSC_FALSE; /* every row once: DMDA's mapping numbers each owned point's components once */
  PetscCall(PetscInfo(J, "DMDA's pattern: %" PetscInt_FMT " rows' columns written by %" PetscInt_FMT " thread%s%s\n", x.m, nt, nt > 1 ? "s" : "",
                      *done ? "" : ", which found PETSc's preallocation another"));
  if (*done) {
    for (PetscInt b = 0; b < 2; b++) {
      if (!blk[b]) continue;
      PetscCall(MatSeqAIJSetColumnIndices(blk[b], jj[b]));
      PetscCall(MatSeqAIJGetArrayWrite(blk[b], &x.v[b]));
      GKHostAdviseHuge_Private(x.v[b], sizeof(PetscScalar) * (size_t)ia[b][x.m]);
    }
    PetscCall(GKHostThreads_Private(x.m, GK_DM_GRAIN, &nt));
    PetscCall(GKParallelFor_Private(x.m, nt, GKDMDAZeroPart, &x));
    for (PetscInt b = 0; b < 2; b++)
      if (blk[b]) PetscCall(MatSeqAIJRestoreArrayWrite(blk[b], &x.v[b]));
  }
  PetscCall(PetscFree3(x.nb, x.rows, x.ok));
  PetscFunctionReturn(0);
}

/* The blocks' rows' starts as PETSc's preallocation made them, then the columns above */
static PetscErrorCode GKDMDAFillColumns_Private(const GKDMDAStencil *p, Mat J, PetscBool mpi, PetscBool *done)
{
  Mat             blk[2] = {J, NULL};
  const PetscInt *ia[2] = {NULL, NULL}, *ja[2] = {NULL, NULL};
  PetscInt        n;
  PetscBool       got[2] = {PETSC_FALSE, PETSC_FALSE}, ok = PETSC_TRUE;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (mpi) PetscCall(MatMPIGKGetBlocks_Private(J, &blk[0], &blk[1], NULL));
  for (PetscInt b = 0; b < 2; b++)
    if (blk[b]) {
      PetscCall(MatGetRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[b], &ja[b], &got[b]));
      ok = (PetscBool)(ok && got[b] && n == J->rmap->n);
    }
  /* the columns written into the array MatGetRowIJ() gave, the block's own (then
     MatSeqAIJSetColumnIndices() copies it onto itself) or a copy: no second array of the size of
     the pattern, whose first touch would cost as much as the writes */
  if (ok) PetscCall(GKDMDASetColumns_Private(p, J, blk, ia, (PetscInt **)ja, done));
  for (PetscInt b = 0; b < 2; b++)
    if (got[b]) PetscCall(MatRestoreRowIJ(blk[b], 0, PETSC_FALSE, PETSC_FALSE, &n, &ia[b], &ja[b], &got[b]));
  PetscFunctionReturn(0);
}

/* The stencil's pattern of every owned row, as zeros, in PETSc's numbering: as whole column
   arrays where PETSc's preallocation is the stencil's, else (or with -gpukit_dm_fill_rows, the
   DM's prefix) row by row */
static PetscErrorCode GKDMDAFillPattern_Private(DM dm, Mat J, PetscBool mpi)
{
  GKDMDAStencil p;
  PetscBool     done = PETSC_FALSE, rows = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(((PetscObject)dm)->options, ((PetscObject)dm)->prefix, "-gpukit_dm_fill_rows", &rows, NULL));
  PetscCall(GKDMDAStencilGet_Private(dm, &p));
  if (!rows) PetscCall(GKDMDAFillColumns_Private(&p, J, mpi, &done));
  if (!done) {
    PetscCall(PetscInfo(dm, "DMDA's pattern set row by row (%s)\n", rows ? "-gpukit_dm_fill_rows" : "the preallocation is not the stencil's"));
    PetscCall(GKDMDAFillRows_Private(&p, J));
  }
  PetscCall(ISLocalToGlobalMappingRestoreIndices(p.ltog, &p.g));
  PetscFunctionReturn(0);
}

/* The rows' lengths of the owned points of lines lo to hi - 1 (a j and a k each), in the rows'
   order of the mapping; PETSc not called (the threads run it) */
typedef struct {
  const GKDMDAStencil *p;
  PetscInt            *len;
} GKDMDALenCtx;

static void GKDMDALenPart(void *arg, PetscInt part, PetscInt lo, PetscInt hi)
{
  const GKDMDALenCtx  *x = (const GKDMDALenCtx *)arg;
  const GKDMDAStencil *p = x->p;
  const PetscInt       s = p->s;

  (void)part;
  for (PetscInt line = lo; line < hi; line++) {
    const PetscInt j = p->xs[1] + line % p->xm[1], k = p->xs[2] + line / p->xm[1];

    for (PetscInt i = p->xs[0]; i < p->xs[0] + p->xm[0]; i++) {
      const PetscInt slot = (i - p->gs[0]) + p->gm[0] * ((j - p->gs[1]) + p->gm[1] * (k - p->gs[2]));
      const PetscInt wx = PetscMin(s, i) + PetscMin(s, p->M[0] - 1 - i), wy = PetscMin(s, j) + PetscMin(s, p->M[1] - 1 - j),
                     wz  = PetscMin(s, k) + PetscMin(s, p->M[2] - 1 - k);
      const PetscInt cnt = p->st == DMDA_STENCIL_BOX ? (wx + 1) * (wy + 1) * (wz + 1) : wx + wy + wz + 1;

      for (PetscInt d = 0; d < p->dof; d++) x->len[p->g[p->dof * slot] + d] = cnt * p->dof;
    }
  }
}

/* On one process, the matrix made here as DMDA's creatematrix makes it (DMCreateMatrix_DA() and
   its 2D and 3D AIJ preallocations, fdda.c: created, sized, typed, set from the options, bound to
   the CPU below the DM's threshold, given its DM, block size, mapping and stencil), its rows'
   lengths counted from the stencil here instead of by PETSc's preallocation, which maps every
   row's columns through the local-to-global mapping; left as it is, unpreallocated, where the
   options made its type another than the library's (the caller then runs PETSc's creatematrix) */
static PetscErrorCode GKDMDACreateMatrixSeq_Private(DM dm, Mat *J)
{
  GKDMDAStencil p;
  MatType       mtype;
  Mat           A;
  PetscInt      n, *len;
  PetscBool     seq;

  PetscFunctionBegin;
  PetscCall(GKDMDAStencilGet_Private(dm, &p));
  n = p.dof * p.xm[0] * p.xm[1] * p.xm[2];
  PetscCall(DMGetMatType(dm, &mtype));
  PetscCall(MatCreate(PetscObjectComm((PetscObject)dm), &A));
  PetscCall(MatSetSizes(A, n, n, n, n));
  PetscCall(MatSetType(A, mtype));
  PetscCall(MatSetFromOptions(A));
  if (n < dm->bind_below) {
    PetscCall(MatSetBindingPropagates(A, PETSC_TRUE));
    PetscCall(MatBindToCPU(A, PETSC_TRUE));
  }
  PetscCall(MatSetDM(A, dm));
  PetscCall(GKMatIsDevice_Private(A, &seq, NULL));
  *J = A;
  if (!seq) {
    PetscCall(ISLocalToGlobalMappingRestoreIndices(p.ltog, &p.g));
    PetscFunctionReturn(0);
  }
  PetscCall(MatSetBlockSize(A, p.dof));
  PetscCall(MatSetOption(A, MAT_SORTED_FULL, PETSC_TRUE));
  /* a point's rows: its stencil's points in the grid (a box, or a star's arms), each dof columns;
     the lines of points spread over the host's threads, as the columns are */
  PetscCall(PetscMalloc1(n, &len));
  {
    GKDMDALenCtx   x     = {&p, len};
    const PetscInt lines = p.xm[1] * p.xm[2];
    PetscInt       nt;

    PetscCall(GKHostThreads_Private(n, GK_DM_GRAIN, &nt));
    PetscCall(GKParallelFor_Private(lines, PetscMin(nt, PetscMax(lines, 1)), GKDMDALenPart, &x));
  }
  PetscCall(MatSeqAIJSetPreallocation(A, 0, len));
  PetscCall(PetscFree(len));
  PetscCall(MatSetLocalToGlobalMapping(A, p.ltog, p.ltog));
  PetscCall(MatSetStencil(A, p.dim, p.gm, p.gs, p.dof));
  PetscCall(ISLocalToGlobalMappingRestoreIndices(p.ltog, &p.g));
  PetscFunctionReturn(0);
}

/* DMDA's creatematrix with the pattern filled here (see the top of the file), else PETSc's */
static PetscErrorCode GKDMCreateMatrixFill_Private(DM dm, Mat *J)
{
  PetscErrorCode (*base)(DM, Mat *);
  PetscErrorCode ierr;
  PetscBool      fits, seq, mpi, bound;
  PetscInt       dim;
  PetscMPIInt    size;

  PetscFunctionBegin;
  PetscCall(GKDMDABaseCreateMatrix_Private(&base));
  PetscCall(GKDMDAPatternFits_Private(dm, &fits));
  if (!fits) {
    PetscCall((*base)(dm, J));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)dm), &size));
  if (size == 1) PetscCall(GKDMDACreateMatrixSeq_Private(dm, J));
  else {
    dm->prealloc_only = PETSC_TRUE;
    ierr              = (*base)(dm, J);
    dm->prealloc_only = PETSC_FALSE;
    PetscCall(ierr);
  }
  /* an option may have made it another type (-mat_type): then PETSc's own fill */
  PetscCall(GKMatIsDevice_Private(*J, &seq, &mpi));
  if (!seq && !mpi) {
    PetscCall(PetscInfo(dm, "DMDA's matrix made a %s by an option: PETSc's creatematrix again, with its fill\n", ((PetscObject)*J)->type_name));
    PetscCall(MatDestroy(J));
    PetscCall((*base)(dm, J));
    PetscFunctionReturn(0);
  }
  PetscCall(GKDMDAFillPattern_Private(dm, *J, mpi));
  /* then what PETSc's 2D and 3D fills do after theirs (fdda.c), in their order */
  PetscCall(DMGetDimension(dm, &dim));
  PetscCall(MatBoundToCPU(*J, &bound));
  PetscCall(MatBindToCPU(*J, PETSC_TRUE));
  PetscCall(MatAssemblyBegin(*J, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*J, MAT_FINAL_ASSEMBLY));
  if (dim == 3) PetscCall(MatSetOption(*J, MAT_SORTED_FULL, PETSC_FALSE));
  if (dim == 3 || !bound) PetscCall(MatBindToCPU(*J, PETSC_FALSE));
  PetscCall(MatSetOption(*J, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  if (dim == 2) PetscCall(MatSetOption(*J, MAT_SORTED_FULL, PETSC_FALSE));
  PetscCall(PetscInfo(dm, "DMDA's matrix pattern filled by the library: %" PetscInt_FMT " local rows\n", (*J)->rmap->n));
  PetscFunctionReturn(0);
}

/* DMDA's creatematrix while it is PETSc's own: the fill above, and a coarsened level's storage */
static PetscErrorCode GKDMCreateMatrix_Private(DM dm, Mat *J)
{
  PetscFunctionBegin;
  PetscCall(GKDMCreateMatrixFill_Private(dm, J));
  PetscCall(GKDMLevelStorage_Private(dm, *J));
  PetscFunctionReturn(0);
}

/* The DM's own interpolation (DMDA's Q1 built here instead, see above), then,
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
    PetscCall(GKDMDAInterpolationQ1_Private(dmc, dmf, dim, ratio, P, scale));
  } else PetscCall((*base)(dmc, dmf, P, scale));
  if (!ours || !*P) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompareAny((PetscObject)*P, &ismaij, MATSEQMAIJ, MATMPIMAIJ, ""));
  if (ismaij) PetscCall(MatConvert(*P, MATAIJ, MAT_INPLACE_MATRIX, P));
  PetscCall(PetscObjectTypeCompare((PetscObject)*P, MATSEQAIJ, &isseqaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)*P, MATMPIAIJ, &ismpiaij));
  if (isseqaij) PetscCall(MatConvert_SeqAIJ_SeqGK_Private(*P, GKFormatDefault, MAT_INPLACE_MATRIX, P));
  else if (ismpiaij) PetscCall(MatConvert(*P, GKFormatDefault->mpitype, MAT_INPLACE_MATRIX, P));
  PetscCall(GKDMLevelStorage_Private(dmc, *P)); /* before its device copies */
  /* both device copies now, in the PC's setup: PCMG interpolates with P and restricts with P^T
     from its first V-cycle on */
  PetscCall(MatGKPrepareInterpolation_Private(*P));
  PetscFunctionReturn(0);
}

/* Whether the matrices made for dm get single-precision storage (the top of the file) */
static PetscErrorCode GKDMLevelSingle_Private(DM dm, PetscBool *single)
{
  PetscObject c;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)dm, GK_DM_LEVEL_STORAGE, &c));
  *single = c ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* A matrix made for dm given single-precision storage where dm's matrices get it (other types
   are left alone by MatGPUKitSetStorage()) */
static PetscErrorCode GKDMLevelStorage_Private(DM dm, Mat A)
{
  PetscBool single = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(GKDMLevelSingle_Private(dm, &single));
  if (single) PetscCall(MatGPUKitSetStorage(A, PETSCGPUKIT_STORAGE_SINGLE));
  PetscFunctionReturn(0);
}

/* The coarse DM wrapped as the fine one, and its matrices' storage chosen: single where the fine
   DM's are (a coarsened level), or where -pc_mg_gpukit_storage under the fine DM's prefix says so */
static PetscErrorCode GKDMCoarsenHook_Private(DM fine, DM coarse, void *ctx)
{
  PetscGPUKitStorage st     = PETSCGPUKIT_STORAGE_DOUBLE;
  PetscBool          single = PETSC_FALSE, set;

  PetscFunctionBegin;
  PetscCall(GKDMAttach_Private(coarse));
  PetscCall(GKDMLevelSingle_Private(fine, &single));
  PetscCall(PetscOptionsGetEnum(((PetscObject)fine)->options, ((PetscObject)fine)->prefix, "-pc_mg_gpukit_storage", PetscGPUKitStorages,
                                (PetscEnum *)&st, &set));
  if (set) single = st == PETSCGPUKIT_STORAGE_SINGLE ? PETSC_TRUE : PETSC_FALSE;
  if (single) {
    PetscContainer c;

    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)coarse), &c)); /* a flag: it holds nothing */
    PetscCall(PetscObjectCompose((PetscObject)coarse, GK_DM_LEVEL_STORAGE, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  } else PetscCall(PetscObjectCompose((PetscObject)coarse, GK_DM_LEVEL_STORAGE, NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKDMRefineHook_Private(DM coarse, DM fine, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(GKDMAttach_Private(fine));
  PetscFunctionReturn(0);
}

/* Wraps the DM's createinterpolation (once) and hooks the DMs coarsened or refined from it; a
   DMDA's creatematrix too, while it is PETSc's own (DMCoarsen() and DMRefine() copy it) */
static PetscErrorCode GKDMAttach_Private(DM dm)
{
  GKDMInterpFn base = NULL;
  PetscBool    isda;

  PetscFunctionBegin;
  if (!dm) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) {
    PetscErrorCode (*own)(DM, Mat *);

    PetscCall(GKDMDABaseCreateMatrix_Private(&own));
    if (dm->ops->creatematrix == own) dm->ops->creatematrix = GKDMCreateMatrix_Private;
  }
  if (!dm->ops->createinterpolation || dm->ops->createinterpolation == GKDMCreateInterpolation_Private) PetscFunctionReturn(0);
  PetscCall(PetscObjectQueryFunction((PetscObject)dm, GK_DM_INTERP_BASE_C, &base));
  PetscCheck(!base, PetscObjectComm((PetscObject)dm), PETSC_ERR_PLIB, "The DM's createinterpolation was replaced after the library wrapped it");
  PetscCall(PetscObjectComposeFunction((PetscObject)dm, GK_DM_INTERP_BASE_C, dm->ops->createinterpolation));
  dm->ops->createinterpolation = GKDMCreateInterpolation_Private;
  PetscCall(DMCoarsenHookAdd(dm, GKDMCoarsenHook_Private, NULL, NULL));
  PetscCall(DMRefineHookAdd(dm, GKDMRefineHook_Private, NULL, NULL));
  PetscFunctionReturn(0);
}

/* Called when a device vector is given its local-to-global mapping (DMCreateGlobalVector()
   does it right after VecSetDM()): its DMDA wrapped, before the DM's first DMCreateMatrix() */
PetscErrorCode DMGKAttachVecDM_Private(DM dm)
{
  PetscBool isda;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)dm, DMDA, &isda));
  if (isda) PetscCall(GKDMAttach_Private(dm));
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

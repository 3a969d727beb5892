/*
   PCGAMGAGGGPU, "agggpu": PETSc's smoothed aggregation (PCGAMGAGG), its strength graph, its
   coarsening and its tentative prolongator made on the device for the library's matrices.

   The type is PETSc's AGG with three of its operations replaced (PCGAMGSetType() makes the AGG
   instance, whose options, setters, smoothing of the prolongator, view and destroy all stay
   PETSc's): creategraph, coarsen and prolongator. On a level whose matrix is a sequential device
   matrix, on one process, they run the backend's strength, aggregate and tentative (device.h):
   the graph PETSc's MatCreateGraph() and filter would make, kept on the device as a MATSHELL
   holding its pattern; the aggregates of a maximal independent set (MIS-2 on PETSc's aggressive
   levels, MIS elsewhere), kept on the device between the two operations; the tentative
   prolongator of the near null space's vector, made a device matrix of the level's type. Where
   they do not apply (several processes, a host matrix, block size above 1 or several null space
   vectors, another coarsening type, PCASM's aggregates), the level runs PETSc's three operations,
   and -pc_view and -info say which ran and why.

   The library sets -pc_gamg_type agggpu as the default where the options name no type, so that
   PCGAMG without a prefix picks it; -pc_gamg_type agg gives PETSc's host aggregation back.
*/
#include "../../include/gpukitimpl.h"
#include "../../mat/impls/gk/gkmat.h"
#include "agggpu.h"
#include <petsc/private/pcgamgimpl.h>

#define GK_AGGGPU "GKAggGPU"

typedef struct {
  /* PETSc's AGG's operations, run where the device's do not apply */
  PetscErrorCode (*creategraph)(PC, Mat, Mat *);
  PetscErrorCode (*coarsen)(PC, Mat *, PetscCoarsenData **);
  PetscErrorCode (*prolongator)(GK_GAMG_PROL_ARGS);
  PetscErrorCode (*view)(PC, PetscViewer);
  PetscErrorCode (*destroy)(PC);
  /* the level being set up: on the device or not; its aggregates (device memory) */
  PetscBool device;
  PetscInt  dist, nagg, *agg; /* agg: each row's aggregate, then the roots */
  /* the last setup: coarsenings on the device and on the host, and the last host one's reason */
  PetscInt ndevice, nhost;
  char     why[160];
} PC_GAMG_AGGGPU;

static PetscErrorCode PCGAMGAggGPUGet(PC pc, PC_GAMG **pc_gamg, PC_GAMG_AGGGPU **ctx)
{
  PetscContainer c;

  PetscFunctionBegin;
  *pc_gamg = (PC_GAMG *)((PC_MG *)pc->data)->innerctx;
  PetscCall(PetscObjectQuery((PetscObject)pc, GK_AGGGPU, (PetscObject *)&c));
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PCGAMG of type agggpu without its data");
  PetscCall(PetscContainerGetPointer(c, (void **)ctx));
  PetscFunctionReturn(0);
}

/* The graph's device CSR, the MATSHELL's context */
static PetscErrorCode GKGraphShellDestroy(void *arg)
{
  GKCsr *g = (GKCsr *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GKFree(g->i));
  PetscCall(GKFree(g->j));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

/* why the level with matrix A cannot be aggregated on the device (why[0] = 0: it can) */
static PetscErrorCode PCGAMGAggGPUWhyNot(PC pc, PC_GAMG *pc_gamg, Mat A, char *why, size_t len)
{
  GKGAMGAgg  *agg = (GKGAMGAgg *)pc_gamg->subctx;
  PetscMPIInt size;
  PetscBool   seq, ok;
  PetscInt    bs;
  MatCoarsen  crs;
  const char *prefix;

  PetscFunctionBegin;
  why[0] = 0;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(GKMatIsDevice_Private(A, &seq, NULL));
  PetscCall(MatGetBlockSize(A, &bs));
  if (size > 1) PetscCall(PetscSNPrintf(why, len, "%d processes (the device's aggregation takes one)", (int)size));
  else if (!seq) PetscCall(PetscSNPrintf(why, len, "the matrix is %s, not one of petsc-gpukit's device types", ((PetscObject)A)->type_name));
  else if (bs > 1) PetscCall(PetscSNPrintf(why, len, "block size %" PetscInt_FMT " (the device's aggregation takes block size 1)", bs));
  else if (pc_gamg->data_cell_cols != 1) PetscCall(PetscSNPrintf(why, len, "a near null space of %" PetscInt_FMT " vectors (the device's aggregation takes one)", pc_gamg->data_cell_cols));
  else if (pc_gamg->use_aggs_in_asm || GKGAMGAsmHem(pc_gamg)) PetscCall(PetscSNPrintf(why, len, "PCASM's subdomains are made from the aggregates"));
  else if (pc_gamg->current_level < agg->aggressive_levels && GKGAMGAggMISk(agg) > 2) PetscCall(PetscSNPrintf(why, len, "MIS-%" PetscInt_FMT " (the device's aggregation takes MIS and MIS-2)", GKGAMGAggMISk(agg)));
  if (why[0]) PetscFunctionReturn(0);
  /* the coarsening type the options ask for, read as PETSc's AGG reads it */
  PetscCall(MatCoarsenCreate(PETSC_COMM_SELF, &crs));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)pc, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)crs, prefix));
  if (GK_GAMG_COARSEN_PREFIX) PetscCall(PetscObjectAppendOptionsPrefix((PetscObject)crs, GK_GAMG_COARSEN_PREFIX));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)crs, &ok, MATCOARSENMIS, MATCOARSENMISK, ""));
  if (!ok) PetscCall(PetscSNPrintf(why, len, "coarsening type %s (the device's is MIS)", ((PetscObject)crs)->type_name));
  PetscCall(MatCoarsenDestroy(&crs));
  PetscFunctionReturn(0);
}

/* The strength graph: on the device where the level can be aggregated there, else PETSc's */
static PetscErrorCode PCGAMGCreateGraph_AGGGPU(PC pc, Mat A, Mat *G)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  GKCsr           dA = {0, 0, 0, NULL, NULL, NULL}, *dG;
  PetscBool       sym, set, flg, mirrored;
  char            why[sizeof(ctx->why)];

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (pc_gamg->current_level == 0) {
    ctx->ndevice = ctx->nhost = 0;
    ctx->why[0]               = 0;
  }
  PetscCall(PCGAMGAggGPUWhyNot(pc, pc_gamg, A, why, sizeof(why)));
  ctx->device = why[0] ? PETSC_FALSE : PETSC_TRUE;
  if (ctx->device) {
    PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
    sym = GKGAMGAggSymmetrize((GKGAMGAgg *)pc_gamg->subctx);
    PetscCall(MatIsSymmetricKnown(A, &set, &flg));
    if (set && flg) sym = PETSC_FALSE; /* PETSc's graph skips the sum with the transpose too */
    PetscCall(PetscNew(&dG));
    PetscCall(MatSeqGKCsrToDevice_Private(A, &dA));
    PetscCall(GKDev->strength(&dA, sym, pc_gamg->threshold[pc_gamg->current_level], dG, &mirrored));
    PetscCall(GKCsrFree_Private(&dA));
    if (mirrored) {
      PetscCall(MatCreateShell(PETSC_COMM_SELF, dG->m, dG->n, dG->m, dG->n, dG, G));
      PetscCall(MatShellSetContextDestroy(*G, GKGraphShellDestroy));
      PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": strength graph on the device, %" PetscInt_FMT " of %" PetscInt_FMT " entries kept, threshold %g\n", pc_gamg->current_level, dG->nnz, dA.nnz, (double)pc_gamg->threshold[pc_gamg->current_level]));
    } else {
      PetscCall(PetscFree(dG));
      PetscCall(PetscSNPrintf(why, sizeof(why), "the matrix's nonzero pattern is not symmetric"));
      ctx->device = PETSC_FALSE;
    }
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
  }
  if (ctx->device) PetscFunctionReturn(0);
  ctx->nhost++;
  PetscCall(PetscStrncpy(ctx->why, why, sizeof(ctx->why)));
  PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": PETSc's host aggregation: %s\n", pc_gamg->current_level, why));
  PetscCall(ctx->creategraph(pc, A, G));
  PetscFunctionReturn(0);
}

/* The aggregates of the device's graph, kept for the prolongator; PETSc's lists left empty
   (nothing else reads them where the device's aggregation runs) */
static PetscErrorCode PCGAMGCoarsen_AGGGPU(PC pc, Mat *G, PetscCoarsenData **lists)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  GKGAMGAgg      *agg;
  GKCsr          *g;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (!ctx->device) {
    PetscCall(ctx->coarsen(pc, G, lists));
    PetscFunctionReturn(0);
  }
  agg = (GKGAMGAgg *)pc_gamg->subctx;
  PetscCall(MatShellGetContext(*G, &g));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  ctx->dist = pc_gamg->current_level < agg->aggressive_levels ? GKGAMGAggMISk(agg) : 1;
  PetscCall(GKFree(ctx->agg));
  PetscCall(GKMalloc(2 * g->m, &ctx->agg));
  PetscCall(GKDev->aggregate(g->m, g->i, g->j, ctx->dist, ctx->agg, ctx->agg + g->m, &ctx->nagg));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  PetscCall(PetscCDCreate(g->m, lists));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": %" PetscInt_FMT " aggregates of %" PetscInt_FMT " rows on the device (MIS%s)\n", pc_gamg->current_level, ctx->nagg, g->m, ctx->dist == 2 ? "-2" : ""));
  ctx->ndevice++;
  PetscFunctionReturn(0);
}

/* The tentative prolongator of the device's aggregates, a device matrix of A's type; the coarse
   level's near null space vector in pc_gamg->data */
static PetscErrorCode PCGAMGProlongator_AGGGPU(GK_GAMG_PROL_ARGS)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  PetscInt        m = A->rmap->n, nagg, *agg, *len, *cols, nnz = 0;
  PetscReal      *db, *dr, *r;
  PetscScalar    *dp, *p, *v;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (!ctx->device) {
    PetscCall(GKGAMGProlCall(ctx->prolongator));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  nagg = ctx->nagg;
  *P   = NULL;
  if (!nagg) PetscCall(PetscInfo(pc, "%s: No selected points on coarse grid\n", ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""));
  else {
    PetscCall(GKMallocH2D(m, pc_gamg->data, &db));
    PetscCall(GKMalloc(m, &dp));
    PetscCall(GKMalloc(nagg, &dr));
    PetscCall(GKDev->tentative(m, ctx->agg, nagg, db, dp, dr));
    PetscCall(PetscMalloc4(m, &agg, m, &p, m, &len, m, &cols));
    PetscCall(PetscMalloc1(nagg, &r));
    PetscCall(GKMemcpyD2H(agg, ctx->agg, sizeof(PetscInt) * (size_t)m));
    PetscCall(GKMemcpyD2H(p, dp, sizeof(PetscScalar) * (size_t)m));
    PetscCall(GKMemcpyD2H(r, dr, sizeof(PetscReal) * (size_t)nagg));
    PetscCall(GKFree(db));
    PetscCall(GKFree(dp));
    PetscCall(GKFree(dr));
    for (PetscInt i = 0; i < m; i++) { /* a row in no aggregate is empty */
      len[i] = agg[i] >= 0;
      if (len[i]) {
        cols[nnz] = agg[i];
        p[nnz++]  = p[i];
      }
    }
    PetscCall(MatCreate(PETSC_COMM_SELF, P));
    PetscCall(MatSetSizes(*P, m, nagg, m, nagg));
    PetscCall(MatSetBlockSizes(*P, 1, 1));
    PetscCall(MatSetType(*P, ((PetscObject)A)->type_name));
    PetscCall(MatSeqAIJSetPreallocation(*P, 0, len));
    PetscCall(MatSeqAIJSetColumnIndices(*P, cols));
    PetscCall(MatSeqAIJGetArrayWrite(*P, &v));
    PetscCall(PetscArraycpy(v, p, nnz));
    PetscCall(MatSeqAIJRestoreArrayWrite(*P, &v));
    PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
    PetscCall(PetscFree(pc_gamg->data));
    pc_gamg->data           = r;
    pc_gamg->data_cell_rows = 1;
    pc_gamg->data_sz        = nagg;
    PetscCall(PetscFree4(agg, p, len, cols));
    PetscCall(MatViewFromOptions(*P, NULL, "-pc_gamg_agg_view_initial_prolongation"));
  }
  PetscCall(GKFree(ctx->agg));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_GAMG_AGGGPU(PC pc, PetscViewer viewer)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  PetscBool       ascii;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  PetscCall(ctx->view(pc, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  if (!ctx->ndevice && !ctx->nhost) PetscCall(PetscViewerASCIIPrintf(viewer, "        Aggregation on the GPU (agggpu) where the matrix is a device matrix on one process\n"));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "        Aggregation on the GPU (agggpu: graph, MIS, tentative prolongator): %" PetscInt_FMT " of %" PetscInt_FMT " coarsenings\n", ctx->ndevice, ctx->ndevice + ctx->nhost));
    if (ctx->nhost) PetscCall(PetscViewerASCIIPrintf(viewer, "        PETSc's host aggregation on the others: %s\n", ctx->why));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_GAMG_AGGGPU(PC pc)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  PetscErrorCode (*destroy)(PC);

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  destroy = ctx->destroy;
  PetscCall(GKFree(ctx->agg));
  PetscCall(PetscObjectCompose((PetscObject)pc, GK_AGGGPU, NULL));
  PetscCall(destroy(pc));
  PetscFunctionReturn(0);
}

/* the type's creator: PETSc's AGG, three of its operations wrapped */
PetscErrorCode PCCreateGAMG_AGGGPU(PC pc)
{
  PC_GAMG        *pc_gamg = (PC_GAMG *)((PC_MG *)pc->data)->innerctx;
  PC_GAMG_AGGGPU *ctx;
  PetscContainer  c;

  PetscFunctionBegin;
  PetscCall(PCGAMGSetType(pc, PCGAMGAGG));
  pc_gamg->type = PCGAMGAGGGPU;
  PetscCall(PetscFree(pc_gamg->gamg_type_name));
  PetscCall(PetscStrallocpy(PCGAMGAGGGPU, &pc_gamg->gamg_type_name));
  PetscCall(PetscNew(&ctx));
  ctx->creategraph          = pc_gamg->ops->creategraph;
  ctx->coarsen              = pc_gamg->ops->coarsen;
  ctx->prolongator          = pc_gamg->ops->prolongator;
  ctx->view                 = pc_gamg->ops->view;
  ctx->destroy              = pc_gamg->ops->destroy;
  pc_gamg->ops->creategraph = PCGAMGCreateGraph_AGGGPU;
  pc_gamg->ops->coarsen     = PCGAMGCoarsen_AGGGPU;
  pc_gamg->ops->prolongator = PCGAMGProlongator_AGGGPU;
  pc_gamg->ops->view        = PCView_GAMG_AGGGPU;
  pc_gamg->ops->destroy     = PCDestroy_GAMG_AGGGPU;
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, ctx));
  PetscCall(GKContainerFreeOnDestroy(c));
  PetscCall(PetscObjectCompose((PetscObject)pc, GK_AGGGPU, (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  PetscFunctionReturn(0);
}

PetscErrorCode PCGAMGAggGPUSetDefault_Private(void)
{
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_gamg_type", &set));
  if (set) PetscFunctionReturn(0);
  PetscCall(PetscOptionsSetValue(NULL, "-pc_gamg_type", PCGAMGAGGGPU));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_gamg_type", &set)); /* marked used: no program need read it */
  PetscFunctionReturn(0);
}

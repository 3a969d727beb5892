/*
   PCGAMGAGGGPU, "agggpu": PETSc's smoothed aggregation (PCGAMGAGG) with its strength graph, its
   coarsening and its prolongator made on the device for the library's matrices.

   The type is PETSc's AGG with five of its operations wrapped (PCGAMGSetType() makes the AGG
   instance, whose options, setters, view and destroy stay PETSc's): creategraph, coarsen,
   prolongator, optprolongator and createlevel. On a level whose matrix is a sequential device
   matrix, on one process, they run the backend's strength, aggregate, tentative and smooth
   (device.h): the graph PETSc's MatCreateGraph() and filter would make, kept on the device as a
   MATSHELL holding its pattern; the aggregates of a maximal independent set (MIS-2 on PETSc's
   aggressive levels, MIS elsewhere), kept on the device between the operations; the tentative
   prolongator of the near null space's vector, kept on the device in a MATSHELL until it is
   smoothed (or made a device matrix of the level's type where no smoothing follows); its one
   smoothing step, after the eigenvalue estimate PETSc's AGG makes (the same KSP, options and
   cached spectra), made a device matrix that keeps its device CSR for the Galerkin product. The
   level's matrix keeps its device CSR from the graph to that product (gkspgemm.c), which then
   keeps the coarse matrix's for the next level: no operand of the setup is copied up twice.
   A block size above 1 or several near-null-space vectors (elasticity's rigid-body modes, as
   ksp ex56 gives them) take the backend's collapse (the graph of the blocks), tentativeblock (a
   Householder QR of each aggregate's rows) and smoothblock, where the backend has them (both
   backends do; a backend without them leaves PETSc's aggregation to run, and says so). On several
   processes (aggmpi.c) each process's rows of the graph are made on its device (block size 1,
   symmetric weights; elsewhere PETSc's graph) and coarsened there with the boundary's states
   exchanged (the same graph and aggregates as on one process), each aggregate's QR is
   made by the backend at its owner, and each process's rows of the prolongator are smoothed by
   the backend's smoothblock with the ghosts' aggregates and values brought from their owners,
   then written into a matrix of the level's type on the host (PETSc's AGG smooths it where the
   rows and columns are laid out differently). Where none of this applies (a host matrix, another coarsening type,
   PCASM's aggregates, more than one smoothing step, the prolongator's filter), the level
   runs PETSc's operations, and -pc_view and -info say which ran and why.

   The library sets -pc_gamg_type agggpu as the default where the options name no type, so that
   PCGAMG without a prefix picks it; -pc_gamg_type agg gives PETSc's host aggregation back.
*/
#include "include/gpukitimpl.h"
#include "mat/impls/gk/gkmat.h"
#include "agggpu.h"
#include "aggmpi.h"
#include "esteig.h"
#include "pc/graph/pcgraph.h"
#include "vec/impls/cuda/gkvec.h"
#include <petsc/private/pcgamgimpl.h>
#include <petsc/private/kspimpl.h> /* KSPSetNoisy_Private() */

#define GK_AGGGPU "GKAggGPU"

/* a level of the last setup made on the device, kept for a re-setup */
typedef struct {
  PetscObjectId    id;          /* the level's matrix, the one the aggregates were made of */
  PetscObjectState nz;          /* its nonzero state then */
  PetscInt        *agg;         /* device: the aggregates as the coarsening left them (nn + nagg) */
  PetscInt         m, nn, nagg; /* the matrix's rows, the graph's nodes, this process's aggregates */
  PetscBool        kept;        /* whether agg holds them (a process's share may be empty) */
  Mat              P, Ac;       /* the prolongator and the Galerkin product made from them (references) */
} GKAggLevel;

typedef struct {
  /* PETSc's AGG's operations, run where the device's do not apply */
  PetscErrorCode (*creategraph)(PC, Mat, Mat *);
  PetscErrorCode (*coarsen)(PC, Mat *, PetscCoarsenData **);
  PetscErrorCode (*prolongator)(GK_GAMG_PROL_ARGS);
  PetscErrorCode (*optprolongator)(PC, Mat, Mat *);
  PetscErrorCode (*createlevel)(PC, Mat, PetscInt, Mat *, Mat *, PetscMPIInt *, IS *, PetscBool);
  PetscErrorCode (*view)(PC, PetscViewer);
  PetscErrorCode (*destroy)(PC);
  /* the level being set up: on the device or not, on several processes or one; its aggregates
     (device memory) */
  PetscBool device, mpi;
  PetscInt  dist, nagg, *agg; /* agg: each row's aggregate, then the roots */
  Mat       tentative;        /* the tentative prolongator's MATSHELL, until it is smoothed */
  /* the last setup: coarsenings on the device (nmpi of them on several processes) and on the
     host, and the first host one's reason */
  PetscInt ndevice, nhost, nmpi, nmpigraph; /* nmpigraph: of the nmpi, those whose graph the devices made */
  PetscInt nmpismooth, nmpiaggsmooth;       /* of the nmpi, those whose prolongator the devices smoothed, PETSc's AGG smoothed */
  PetscInt nmpikept;                        /* of the nmpi, those that kept the last setup's aggregates (no graph) */
  /* -pc_gamg_agggpu_arnoldi: the smoothing's eigenvalue estimates by GMRES's Arnoldi steps on the
     device where they are PETSc's GMRES (esteig.c); of the last setup's nestimates, narnoldi so */
  PetscBool arnoldi;
  PetscInt  nestimates, narnoldi;
  char      why[160];
  /* -pc_gamg_agggpu_reuse_aggregates: each level of the last setup made on the device, kept for
     a new matrix of the same pattern (lev[l]: level l, 0 the finest) */
  PetscErrorCode (*setfromoptions)(PC, GKOptionItems);
  PetscBool reuse;   /* the option */
  PetscBool cached;  /* this setup runs from the levels kept (decided at the finest level) */
  PetscInt  nreused; /* setups run from them since the last full one */
  /* -pc_mg_gpukit_storage: the precision the hierarchy's products read (the prolongators' and
     the coarse operators' values); nsingle: the levels of the last setup stored so; singular:
     single storage declined in the last setup, the operator having a null space */
  PetscGPUKitStorage storage;
  PetscInt           nsingle, nlevels;
  PetscBool          singular;
  GKAggLevel         lev[PETSC_MG_MAXLEVELS];
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

/* The levels kept for a re-setup, released from level l on */
static PetscErrorCode PCGAMGAggGPUForget(PC_GAMG_AGGGPU *ctx, PetscInt l)
{
  PetscFunctionBegin;
  for (PetscInt k = l; k < PETSC_MG_MAXLEVELS; k++) {
    ctx->lev[k].id = 0;
    PetscCall(MatDestroy(&ctx->lev[k].P));
    PetscCall(MatDestroy(&ctx->lev[k].Ac));
    PetscCall(GKFree(ctx->lev[k].agg));
    ctx->lev[k].m = ctx->lev[k].nn = ctx->lev[k].nagg = 0;
    ctx->lev[k].kept                                  = PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* a reference to the matrix mat kept in *keep (NULL: none) */
static PetscErrorCode PCGAMGAggGPUKeepMat(Mat mat, Mat *keep)
{
  PetscFunctionBegin;
  if (mat == *keep) PetscFunctionReturn(0);
  if (mat) PetscCall(PetscObjectReference((PetscObject)mat));
  PetscCall(MatDestroy(keep));
  *keep = mat;
  PetscFunctionReturn(0);
}

/* Whether level l of this setup runs from the levels kept: at the finest level, where the option
   is set, the last setup made every level on the device from this very matrix, and its nonzero
   pattern has not changed; at a coarser level, where the finer ones did and A is the Galerkin
   product they gave again. Else what is kept from level l on is released. On several processes,
   where every process's share says so (collective). */
static PetscErrorCode PCGAMGAggGPUCached(PC_GAMG_AGGGPU *ctx, PetscInt l, Mat A)
{
  GKAggLevel   *lv = &ctx->lev[l];
  PetscObjectId id;
  PetscMPIInt   size;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  if (!l) ctx->cached = ctx->reuse;
  ctx->cached = (PetscBool)(ctx->cached && lv->kept && lv->id == id && lv->nz == A->nonzerostate && lv->m == A->rmap->n);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &ctx->cached, 1, GK_MPI_BOOL, MPI_LAND, PetscObjectComm((PetscObject)A)));
  if (!ctx->cached) PetscCall(PCGAMGAggGPUForget(ctx, l));
  if (!ctx->cached && ctx->reuse) {
    lv->id = id;
    lv->nz = A->nonzerostate;
    lv->m  = A->rmap->n;
  }
  PetscFunctionReturn(0);
}

/* The coarsening's aggregates (nn nodes, then nagg roots: device) kept for a re-setup */
static PetscErrorCode PCGAMGAggGPUKeepAggregates(GKAggLevel *lv, PetscInt nn, PetscInt nagg, const PetscInt *agg)
{
  PetscFunctionBegin;
  PetscCall(GKFree(lv->agg));
  PetscCall(GKMalloc(nn + nagg, &lv->agg));
  PetscCall(GKMemcpyD2D(lv->agg, agg, sizeof(PetscInt) * (size_t)(nn + nagg)));
  lv->nn   = nn;
  lv->nagg = nagg;
  lv->kept = PETSC_TRUE;
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

/* The tentative prolongator until it is smoothed, the MATSHELL's context: each node's aggregate
   and each row's values (device memory) */
typedef struct {
  PetscInt    *agg;    /* device: each node's aggregate */
  PetscScalar *p;      /* device: its values, nv a row */
  PetscInt     bs, nv; /* the rows of a node, the near null space's vectors */
} GKTentative;

/* on several processes: this process's share (aggmpi.h) */
static PetscErrorCode GKTentativeMPIShellDestroy(void *arg)
{
  GKAggMPITentative *t = (GKAggMPITentative *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUTentativeMPIFree_Private(t));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

static PetscErrorCode GKTentativeShellDestroy(void *arg)
{
  GKTentative *t = (GKTentative *)GKContainerCtx(arg);

  PetscFunctionBegin;
  PetscCall(GKFree(t->agg));
  PetscCall(GKFree(t->p));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(0);
}

/* why the level with matrix A cannot be aggregated on the device (why[0] = 0: it can) */
static PetscErrorCode PCGAMGAggGPUWhyNot(PC pc, PC_GAMG *pc_gamg, Mat A, char *why, size_t len)
{
  GKGAMGAgg  *agg = (GKGAMGAgg *)pc_gamg->subctx;
  PetscMPIInt size;
  PetscBool   seq, mpi, ok;
  PetscInt    bs;
  MatCoarsen  crs;
  const char *prefix;

  PetscFunctionBegin;
  why[0] = 0;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(GKMatIsDevice_Private(A, &seq, &mpi));
  PetscCall(MatGetBlockSize(A, &bs));
  if (size > 1 ? !mpi : !seq)
    PetscCall(PetscSNPrintf(why, len, "the matrix is %s, not one of petsc-gpukit's device types", ((PetscObject)A)->type_name));
  else if (size > 1 && (bs > 1 || pc_gamg->data_cell_cols != 1) && !GKDev->tentativeblock)
    PetscCall(PetscSNPrintf(why, len,
                            "block size %" PetscInt_FMT ", %" PetscInt_FMT
                            " near-null-space vectors on %d processes (the %s backend aggregates block size 1, one vector)",
                            bs, pc_gamg->data_cell_cols, (int)size, GKDev->name));
  else if ((bs > 1 || pc_gamg->data_cell_cols != 1) && !(GKDev->collapse && GKDev->tentativeblock && GKDev->smoothblock))
    PetscCall(PetscSNPrintf(why, len,
                            "block size %" PetscInt_FMT ", %" PetscInt_FMT
                            " near-null-space vectors (the %s backend aggregates block size 1, one vector)",
                            bs, pc_gamg->data_cell_cols, GKDev->name));
  else if (pc_gamg->data_cell_rows != bs)
    PetscCall(PetscSNPrintf(why, len, "near-null-space rows of %" PetscInt_FMT " for block size %" PetscInt_FMT, pc_gamg->data_cell_rows, bs));
  else if (pc_gamg->use_aggs_in_asm || GKGAMGAsmHem(pc_gamg)) PetscCall(PetscSNPrintf(why, len, "PCASM's subdomains are made from the aggregates"));
  else if (pc_gamg->current_level < agg->aggressive_levels && GKGAMGAggMISk(agg) > 2)
    PetscCall(PetscSNPrintf(why, len, "MIS-%" PetscInt_FMT " (the device's aggregation takes MIS and MIS-2)", GKGAMGAggMISk(agg)));
  else if (agg->nsmooths > 1)
    PetscCall(PetscSNPrintf(why, len, "%" PetscInt_FMT " smoothing steps (the device smooths the prolongator once)", agg->nsmooths));
  else if (GKGAMGProlFilter(pc_gamg) > 0) PetscCall(PetscSNPrintf(why, len, "the prolongator's filter (-pc_gamg_prolongator_filter)"));
  if (why[0]) PetscFunctionReturn(0);
  /* the coarsening type the options ask for, read as PETSc's AGG reads it */
  PetscCall(MatCoarsenCreate(PETSC_COMM_SELF, &crs));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)pc, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)crs, prefix));
  if (GK_GAMG_COARSEN_PREFIX) PetscCall(PetscObjectAppendOptionsPrefix((PetscObject)crs, GK_GAMG_COARSEN_PREFIX));
  PetscCall(MatCoarsenSetFromOptions(crs));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)crs, &ok, MATCOARSENMIS, MATCOARSENMISK, ""));
  if (!ok) PetscCall(PetscSNPrintf(why, len, "coarsening type %s (the device's is MIS)", ((PetscObject)crs)->type_name));
  if (ok && bs > 1) { /* PETSc 3.21+: the graph of the blocks from some of their rows and columns alone */
    PetscBool set;

    PetscCall(PetscOptionsHasName(((PetscObject)crs)->options, ((PetscObject)crs)->prefix, "-mat_coarsen_strength_index", &set));
    if (set) PetscCall(PetscSNPrintf(why, len, "-mat_coarsen_strength_index (the device's graph of the blocks sums all their entries)"));
  }
  PetscCall(MatCoarsenDestroy(&crs));
  PetscFunctionReturn(0);
}

/* How PETSc's graph of A takes its weights: *sum, with A^T's added (symmetrize asked, A not
   known symmetric); *known, A known symmetric (PETSc's graph skips the sum then). The weights
   are symmetric where either holds. */
static PetscErrorCode PCGAMGAggGPUSymmetrize(PC_GAMG *pc_gamg, Mat A, PetscBool *sum, PetscBool *known)
{
  PetscBool set, flg;

  PetscFunctionBegin;
  PetscCall(MatIsSymmetricKnown(A, &set, &flg));
  *known = (PetscBool)(set && flg);
  *sum   = (PetscBool)(GKGAMGAggSymmetrize((GKGAMGAgg *)pc_gamg->subctx) && !*known);
  PetscFunctionReturn(0);
}

/* Whether PETSc's graph G of A (MPIAIJ) is symmetric, as the coarsening's rounds need: made so
   (symmetric weights), or found so (gkgraph.c: G known symmetric, or each entry's mirror found,
   the off-diagonal ones at their columns' owners). Collective. */
static PetscErrorCode PCGAMGAggGPUGraphSymmetric(PetscBool weights, Mat G, PetscBool *sym)
{
  PetscFunctionBegin;
  *sym = weights;
  if (!*sym) PetscCall(MatGKGraphSum_Private(G, PETSC_FALSE, sym, NULL, NULL));
  PetscFunctionReturn(0);
}

/* The strength graph: on the device where the level can be aggregated there, else PETSc's */
static PetscErrorCode PCGAMGCreateGraph_AGGGPU(PC pc, Mat A, Mat *G)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  GKCsr           dA = {0, 0, 0, NULL, NULL, NULL}, *dG;
  PetscBool       sym, known, flg, mirrored, made = PETSC_FALSE; /* made: PETSc's graph, already */
  PetscInt        annz, bs;
  PetscMPIInt     size;
  char            why[sizeof(ctx->why)];

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (pc_gamg->current_level == 0) {
    ctx->ndevice = ctx->nhost = ctx->nmpi = ctx->nmpigraph = ctx->nmpismooth = ctx->nmpiaggsmooth = ctx->nmpikept = 0;
    ctx->nestimates = ctx->narnoldi = 0;
    ctx->why[0]                     = 0;
  }
  PetscCall(PCGAMGAggGPUWhyNot(pc, pc_gamg, A, why, sizeof(why)));
  ctx->device = why[0] ? PETSC_FALSE : PETSC_TRUE;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  ctx->mpi = (PetscBool)(size > 1);
  if (ctx->device && ctx->mpi) { /* the graph made on the devices, else PETSc's (MPIAIJ) coarsened there where it is symmetric */
    PetscCall(PCGAMGAggGPUCached(ctx, pc_gamg->current_level, A));
    if (ctx->cached) { /* no graph: the coarsening gives the aggregates kept */
      ctx->nmpikept++;
      PetscCall(MatGetBlockSize(A, &bs));
      PetscCall(MatCreateShell(PetscObjectComm((PetscObject)A), A->rmap->n / bs, A->rmap->n / bs, PETSC_DETERMINE, PETSC_DETERMINE, NULL, G));
      PetscFunctionReturn(0);
    }
    PetscCall(PCGAMGAggGPUSymmetrize(pc_gamg, A, &sym, &known));
    *G = NULL;
    if (sym || known) { /* symmetric weights: the graph the devices make is symmetric */
      PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
      PetscCall(PCGAMGAggGPUGraphMPI_Private(A, sym, pc_gamg->threshold[pc_gamg->current_level], G));
      PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
    }
    if (*G) {
      ctx->nmpigraph++;
      PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": strength graph on the devices of %d processes, threshold %g\n", pc_gamg->current_level,
                          (int)size, (double)pc_gamg->threshold[pc_gamg->current_level]));
      PetscFunctionReturn(0);
    }
    PetscCall(ctx->creategraph(pc, A, G));
    PetscCall(PCGAMGAggGPUGraphSymmetric((PetscBool)(sym || known), *G, &flg));
    if (flg) {
      PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": PETSc's strength graph, coarsened on the device of each of %d processes\n",
                          pc_gamg->current_level, (int)size));
      PetscFunctionReturn(0);
    }
    ctx->device = PETSC_FALSE; /* PETSc's host aggregation below, on the graph made */
    made        = PETSC_TRUE;
    PetscCall(PetscSNPrintf(why, sizeof(why), "the strength graph's pattern is not symmetric"));
  }
  if (ctx->device) PetscCall(PCGAMGAggGPUCached(ctx, pc_gamg->current_level, A));
  else {
    ctx->cached = PETSC_FALSE;
    PetscCall(PCGAMGAggGPUForget(ctx, pc_gamg->current_level));
  }
  if (ctx->device && ctx->cached) { /* no graph: the coarsening gives the aggregates kept */
    PetscCall(MatGetBlockSize(A, &bs));
    PetscCall(PetscNew(&dG));
    dG->m = dG->n = A->rmap->n / bs; /* its nodes */
    PetscCall(MatCreateShell(PETSC_COMM_SELF, dG->m, dG->n, dG->m, dG->n, dG, G));
    PetscCall(MatShellSetContextDestroy(*G, GKGraphShellDestroy));
    PetscFunctionReturn(0);
  }
  if (ctx->device) {
    PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
    PetscCall(PCGAMGAggGPUSymmetrize(pc_gamg, A, &sym, &known));
    PetscCall(PetscNew(&dG));
    PetscCall(MatSeqGKCsrToDevice_Private(A, &dA));
    PetscCall(MatGetBlockSize(A, &bs));
    if (bs > 1) { /* the graph of the blocks, as PETSc's MatCreateGraph() makes it first */
      GKCsr dC = {0, 0, 0, NULL, NULL, NULL};

      PetscCall(GKDev->collapse(&dA, bs, &dC));
      PetscCall(GKDev->strength(&dC, NULL, sym, pc_gamg->threshold[pc_gamg->current_level], dG, &mirrored));
      PetscCall(GKCsrFree_Private(&dC));
    } else PetscCall(GKDev->strength(&dA, NULL, sym, pc_gamg->threshold[pc_gamg->current_level], dG, &mirrored));
    annz = dA.nnz;
    if (mirrored) PetscCall(MatSeqGKKeepCsr_Private(A, &dA)); /* for the smoothing and the Galerkin product */
    else PetscCall(MatSeqGKReleaseCsr_Private(A, &dA));
    if (mirrored) {
      PetscCall(MatCreateShell(PETSC_COMM_SELF, dG->m, dG->n, dG->m, dG->n, dG, G));
      PetscCall(MatShellSetContextDestroy(*G, GKGraphShellDestroy));
      PetscCall(
        PetscInfo(pc, "level %" PetscInt_FMT ": strength graph on the device, %" PetscInt_FMT " of %" PetscInt_FMT " entries kept, threshold %g\n",
                  pc_gamg->current_level, dG->nnz, annz, (double)pc_gamg->threshold[pc_gamg->current_level]));
    } else {
      PetscCall(PetscFree(dG));
      PetscCall(PetscSNPrintf(why, sizeof(why), "the matrix's nonzero pattern is not symmetric"));
      ctx->device = PETSC_FALSE;
    }
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_GRAPH], 0, 0, 0, 0));
  }
  if (ctx->device) PetscFunctionReturn(0);
  ctx->nhost++;
  if (!ctx->why[0]) PetscCall(PetscStrncpy(ctx->why, why, sizeof(ctx->why))); /* the finest such level's, which -pc_view names */
  PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": PETSc's host aggregation: %s\n", pc_gamg->current_level, why));
  if (!made) PetscCall(ctx->creategraph(pc, A, G));
  PetscFunctionReturn(0);
}

/* The aggregates of the device's graph, kept for the prolongator; PETSc's lists made empty, of
   no nodes (nothing else reads them where the device's aggregation runs) */
static PetscErrorCode PCGAMGCoarsen_AGGGPU(PC pc, Mat *G, PetscCoarsenData **lists)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  GKGAMGAgg      *agg;
  GKCsr          *g;
  GKAggLevel     *lv;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (!ctx->device) {
    PetscCall(ctx->coarsen(pc, G, lists));
    PetscFunctionReturn(0);
  }
  agg = (GKGAMGAgg *)pc_gamg->subctx;
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  ctx->dist = pc_gamg->current_level < agg->aggressive_levels ? GKGAMGAggMISk(agg) : 1;
  PetscCall(GKFree(ctx->agg));
  if (ctx->mpi) { /* each process's rows on its device, the boundary's states exchanged */
    PetscInt m, total;

    PetscCall(MatCoarsenDestroy(&agg->crs)); /* PETSc's creategraph's, which its coarsen would use and destroy */
    lv = &ctx->lev[pc_gamg->current_level];
    if (ctx->cached) { /* the aggregates kept */
      ctx->nagg = lv->nagg;
      PetscCall(GKMalloc(PetscMax(lv->nn + lv->nagg, 1), &ctx->agg));
      PetscCall(GKMemcpyD2D(ctx->agg, lv->agg, sizeof(PetscInt) * (size_t)(lv->nn + lv->nagg)));
    } else {
      PetscCall(PCGAMGAggGPUAggregateMPI_Private(*G, ctx->dist, &ctx->agg, &ctx->nagg));
      PetscCall(MatGetLocalSize(*G, &m, NULL));
      if (ctx->reuse) PetscCall(PCGAMGAggGPUKeepAggregates(lv, m, ctx->nagg, ctx->agg));
    }
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
    PetscCall(PetscCDCreate(0, lists));
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
    PetscCall(MatGetSize(*G, &m, NULL));
    PetscCall(MPIU_Allreduce(&ctx->nagg, &total, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)*G)));
    PetscCall(PetscInfo(pc,
                        "level %" PetscInt_FMT ": %" PetscInt_FMT " aggregates of %" PetscInt_FMT " rows on the devices of several processes (%s)\n",
                        pc_gamg->current_level, total, m,
                        ctx->cached      ? "kept from the last setup"
                        : ctx->dist == 2 ? "MIS-2"
                                         : "MIS"));
    ctx->ndevice++;
    ctx->nmpi++;
    PetscFunctionReturn(0);
  }
  PetscCall(MatShellGetContext(*G, &g));
  PetscCall(GKMalloc(2 * g->m, &ctx->agg));
  lv = &ctx->lev[pc_gamg->current_level];
  if (ctx->cached) { /* the aggregates kept */
    ctx->nagg = lv->nagg;
    PetscCall(GKMemcpyD2D(ctx->agg, lv->agg, sizeof(PetscInt) * (size_t)(lv->nn + lv->nagg)));
  } else {
    PetscCall(GKDev->aggregate(g->m, g->i, g->j, ctx->dist, NULL, ctx->agg, ctx->agg + g->m, &ctx->nagg));
    if (ctx->reuse) PetscCall(PCGAMGAggGPUKeepAggregates(lv, g->m, ctx->nagg, ctx->agg)); /* for a re-setup with a new matrix of the same pattern */
  }
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_MIS], 0, 0, 0, 0));
  PetscCall(PetscCDCreate(0, lists)); /* of no nodes: lists of g->m nodes are a zeroed pointer a node, which nothing reads here */
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_COARSEN], 0, 0, 0, 0));
  PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": %" PetscInt_FMT " aggregates of %" PetscInt_FMT " rows on the device (%s)\n",
                      pc_gamg->current_level, ctx->nagg, g->m,
                      ctx->cached      ? "kept from the last setup"
                      : ctx->dist == 2 ? "MIS-2"
                                       : "MIS"));
  ctx->ndevice++;
  PetscFunctionReturn(0);
}

/* A device matrix of A's type made from the CSR d in device memory (smooth's: each row
   ascending), of block sizes rbs x cbs, which keeps d for the Galerkin product and its own device
   copies; its host matrix made from d only where a host operation asks for it */
static PetscErrorCode GKMatFromDeviceCsr(Mat A, GKCsr *d, PetscInt rbs, PetscInt cbs, Mat *P, PetscBool *sorted_out)
{
  PetscBool sorted, adopted;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, P));
  PetscCall(MatSetSizes(*P, d->m, d->n, d->m, d->n));
  PetscCall(MatSetBlockSizes(*P, rbs, cbs));
  PetscCall(MatSetType(*P, ((PetscObject)A)->type_name));
  PetscCall(MatSeqGKSetFromDeviceCsr_Private(*P, d, PETSC_TRUE, &sorted, &adopted)); /* smooth's rows come ascending */
  PetscCall(MatAssemblyBegin(*P, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*P, MAT_FINAL_ASSEMBLY));
  if (d->i && sorted) PetscCall(MatSeqGKKeepCsr_Private(*P, d)); /* adopted: d is P's already, its arrays NULL here */
  else PetscCall(GKCsrFree_Private(d));
  *sorted_out = sorted;
  PetscFunctionReturn(0);
}

/* Where no smoothing follows: the tentative prolongator's MATSHELL made a device matrix of A's
   type (the rows in no aggregate empty) */
static PetscErrorCode PCGAMGAggGPUUnsmoothed(Mat A, Mat *P)
{
  GKTentative *t;
  PetscInt     m = (*P)->rmap->n, n = (*P)->cmap->n, *agg, *len, *cols, nnz = 0;
  PetscScalar *p, *v;
  Mat          Q;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(*P, &t));
  PetscCall(PetscMalloc4(m / t->bs, &agg, m * t->nv, &p, m, &len, m * t->nv, &cols));
  PetscCall(GKMemcpyD2H(agg, t->agg, sizeof(PetscInt) * (size_t)(m / t->bs)));
  PetscCall(GKMemcpyD2H(p, t->p, sizeof(PetscScalar) * (size_t)(m * t->nv)));
  for (PetscInt i = 0; i < m; i++) { /* a row's nv entries, in its node's aggregate's columns */
    const PetscInt a = agg[i / t->bs];

    len[i] = a >= 0 ? t->nv : 0;
    for (PetscInt k = 0; k < len[i]; k++) {
      cols[nnz] = a * t->nv + k;
      p[nnz++]  = p[i * t->nv + k];
    }
  }
  PetscCall(MatCreate(PETSC_COMM_SELF, &Q));
  PetscCall(MatSetSizes(Q, m, n, m, n));
  PetscCall(MatSetBlockSizes(Q, t->bs, t->nv));
  PetscCall(MatSetType(Q, ((PetscObject)A)->type_name));
  PetscCall(MatSeqAIJSetPreallocation(Q, 0, len));
  PetscCall(MatSeqAIJSetColumnIndices(Q, cols));
  PetscCall(MatSeqAIJGetArrayWrite(Q, &v));
  PetscCall(PetscArraycpy(v, p, nnz));
  PetscCall(MatSeqAIJRestoreArrayWrite(Q, &v));
  PetscCall(MatSetOption(Q, MAT_USE_INODES, PETSC_FALSE));
  PetscCall(MatAssemblyBegin(Q, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Q, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree4(agg, p, len, cols));
  PetscCall(MatDestroy(P));
  *P = Q;
  PetscCall(MatViewFromOptions(*P, NULL, "-pc_gamg_agg_view_initial_prolongation"));
  PetscFunctionReturn(0);
}

/* The tentative prolongator of the device's aggregates: a MATSHELL holding them and its values
   on the device where a smoothing step follows (optprolongator), else a device matrix of A's
   type; the coarse level's near null space vector in pc_gamg->data */
static PetscErrorCode PCGAMGProlongator_AGGGPU(GK_GAMG_PROL_ARGS)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  PetscInt        m = A->rmap->n, nagg, bs, nv;
  PetscReal      *db, *dr, *r;
  PetscScalar    *dp;
  GKTentative    *t;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (!ctx->device) {
    PetscCall(GKGAMGProlCall(ctx->prolongator));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  nagg = ctx->nagg;
  *P   = NULL;
  if (ctx->mpi) { /* a MATSHELL of this process's share until the devices smooth it, else a matrix of A's type */
    MPI_Comm           comm = PetscObjectComm((PetscObject)A);
    PetscInt           total;
    PetscMPIInt        square = A->rmap->rstart == A->cmap->rstart && m == A->cmap->n;
    GKAggMPITentative *mt;

    PetscCall(MatGetBlockSize(A, &bs));
    nv = pc_gamg->data_cell_cols;
    PetscCall(MPIU_Allreduce(&nagg, &total, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &square, 1, MPI_INT, MPI_MIN, comm));
    if (!total) PetscCall(PetscInfo(pc, "%s: No selected points on coarse grid\n", ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""));
    else {
      PetscCall(PetscNew(&mt));
      PetscCall(PCGAMGAggGPUTentativeMPI_Private(A, bs, nv, ctx->agg, nagg, pc_gamg->data, mt, &r));
      PetscCall(PetscFree(pc_gamg->data));
      pc_gamg->data           = r; /* the coarse level's nv vectors: this process's aggregates' nagg nv rows */
      pc_gamg->data_cell_rows = nv;
      pc_gamg->data_sz        = nagg * nv * nv;
      if (((GKGAMGAgg *)pc_gamg->subctx)->nsmooths && square) { /* each process's rows smoothed on its device (optprolongator) */
        PetscCall(MatCreateShell(comm, m, nagg * nv, PETSC_DETERMINE, PETSC_DETERMINE, mt, P));
        PetscCall(MatShellSetContextDestroy(*P, GKTentativeMPIShellDestroy));
        PetscCall(MatSetBlockSizes(*P, bs, nv));
        ctx->tentative = *P;
      } else { /* no smoothing, or PETSc's AGG's (A's rows and columns laid out differently) */
        GKAggLevel *lv = &ctx->lev[pc_gamg->current_level];

        ctx->nmpiaggsmooth += ((GKGAMGAgg *)pc_gamg->subctx)->nsmooths ? 1 : 0;
        if (ctx->cached && lv->P && !((GKGAMGAgg *)pc_gamg->subctx)->nsmooths) { /* the same aggregates, the same prolongator */
          *P = lv->P;
          PetscCall(PetscObjectReference((PetscObject)*P));
        } else {
          PetscCall(PCGAMGAggGPUTentativeMatMPI_Private(A, mt, P));
          if (ctx->reuse && !((GKGAMGAgg *)pc_gamg->subctx)->nsmooths) PetscCall(PCGAMGAggGPUKeepMat(*P, &lv->P));
        }
        PetscCall(PCGAMGAggGPUTentativeMPIFree_Private(mt));
        PetscCall(PetscFree(mt));
      }
    }
  } else if (!nagg) {
    PetscCall(PetscInfo(pc, "%s: No selected points on coarse grid\n", ((PetscObject)pc)->prefix ? ((PetscObject)pc)->prefix : ""));
    PetscCall(MatSeqGKDropCsr_Private(A)); /* no Galerkin product follows */
  } else {
    PetscCall(MatGetBlockSize(A, &bs));
    nv = pc_gamg->data_cell_cols; /* the near null space's vectors: m x nv, by columns */
    PetscCall(GKMallocH2D(m * nv, pc_gamg->data, &db));
    PetscCall(GKMalloc(m * nv, &dp));
    PetscCall(GKMalloc(nagg * nv * nv, &dr));
    if (bs == 1 && nv == 1) PetscCall(GKDev->tentative(m, ctx->agg, nagg, db, dp, dr));
    else PetscCall(GKDev->tentativeblock(m / bs, bs, nv, ctx->agg, nagg, db, dp, dr));
    PetscCall(PetscMalloc1(nagg * nv * nv, &r));
    PetscCall(GKMemcpyD2H(r, dr, sizeof(PetscReal) * (size_t)(nagg * nv * nv)));
    PetscCall(GKFree(db));
    PetscCall(GKFree(dr));
    PetscCall(PetscFree(pc_gamg->data));
    pc_gamg->data           = r; /* the coarse level's nv vectors, nagg nv rows */
    pc_gamg->data_cell_rows = nv;
    pc_gamg->data_sz        = nagg * nv * nv;
    PetscCall(PetscNew(&t));
    t->agg   = ctx->agg;
    t->p     = dp;
    t->bs    = bs;
    t->nv    = nv;
    ctx->agg = NULL;
    PetscCall(MatCreateShell(PETSC_COMM_SELF, m, nagg * nv, m, nagg * nv, t, P));
    PetscCall(MatShellSetContextDestroy(*P, GKTentativeShellDestroy));
    PetscCall(MatSetBlockSizes(*P, bs, nv));
    if (((GKGAMGAgg *)pc_gamg->subctx)->nsmooths) ctx->tentative = *P;
    else if (ctx->cached && ctx->lev[pc_gamg->current_level].P) { /* the same aggregates, the same prolongator */ PetscCall(MatDestroy(P));
      *P = ctx->lev[pc_gamg->current_level].P;
      PetscCall(PetscObjectReference((PetscObject)*P));
    } else {
      PetscCall(PCGAMGAggGPUUnsmoothed(A, P));
      if (ctx->reuse) PetscCall(PCGAMGAggGPUKeepMat(*P, &ctx->lev[pc_gamg->current_level].P));
    }
  }
  PetscCall(GKFree(ctx->agg));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_PROL], 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* PETSc's noisy right-hand side for the estimate (KSPSetNoisy_Private, A's null space removed
   where the release removes it), its hash computed where the vector lives: no host array, no
   copy up */
static PetscErrorCode PCGAMGAggGPUNoisy(Mat A, Vec v)
{
  PetscScalar *a;
  PetscInt     n, start;

  PetscFunctionBegin;
  if (!VecIsGK(v)) {
    PetscCall(GKKSPSetNoisy(A, v));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetOwnershipRange(v, &start, NULL));
  PetscCall(VecGetLocalSize(v, &n));
  PetscCall(VecGPUKitGetDeviceArrayWrite(v, &a));
  PetscCall(GKDev->noisy(n, start, a));
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(v, &a));
  PetscCall(GKNoisyRemoveNullSpace(A, v));
  PetscFunctionReturn(0);
}

/* PETSc's AGG's eigenvalue estimate for the smoothing, as it makes it: the largest of D^-1 A by
   the esteig KSP (prefix -pc_gamg_esteig_; CG where A is known SPD, else the KSP's default) from
   a noisy right-hand side, with Jacobi, 10 iterations; or the user's (-pc_gamg_eigenvalues); the
   spectrum cached for the levels' Chebyshev smoothers where PETSc would */
static PetscErrorCode PCGAMGAggGPUEstimate(PC pc, PC_GAMG *pc_gamg, PC_GAMG_AGGGPU *ctx, Mat A, PetscReal *emax)
{
  PC_MG    *mg = (PC_MG *)pc->data;
  PetscReal emin;

  PetscFunctionBegin;
  if (pc_gamg->emax > 0) {
    emin  = pc_gamg->emin;
    *emax = pc_gamg->emax;
  } else {
    KSP            eksp;
    PC             epc;
    Vec            bb, xx = NULL;
    const char    *prefix;
    PetscBool      isset, spd, noop, arnoldi = PETSC_FALSE;
    PetscErrorCode ierr;

    PetscCall(MatCreateVecs(A, &bb, NULL));
    PetscCall(PCGAMGAggGPUNoisy(A, bb));
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &eksp));
    PetscCall(GKKSPSetNestLevel(eksp, pc));
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(KSPSetOptionsPrefix(eksp, prefix));
    PetscCall(KSPAppendOptionsPrefix(eksp, "pc_gamg_esteig_"));
    PetscCall(MatIsSPDKnown(A, &isset, &spd));
    if (isset && spd) PetscCall(KSPSetType(eksp, KSPCG));
    PetscCall(KSPSetErrorIfNotConverged(eksp, pc->erroriffailure));
    PetscCall(KSPSetNormType(eksp, KSP_NORM_NONE));
    PetscCall(KSPSetInitialGuessNonzero(eksp, PETSC_FALSE));
    PetscCall(KSPSetOperators(eksp, A, A));
    PetscCall(KSPGetPC(eksp, &epc));
    PetscCall(PCSetType(epc, PCJACOBI));
    PetscCall(KSPSetTolerances(eksp, GK_CURRENT, GK_CURRENT, GK_CURRENT, 10));
    PetscCall(KSPSetFromOptions(eksp));
    PetscCall(KSPSetComputeSingularValues(eksp, PETSC_TRUE));
    PetscCall(KSPGetPC(eksp, &epc)); /* the options may have changed it */
    PetscCall(PCGKJacobiFixIsNoop_Private(epc, &noop));
    /* PCJacobi's fix of zero entries off where it would change nothing (pcgraph.c); GMRES's steps
       on the device where the estimate is PETSc's GMRES (esteig.c), else PETSc's KSPSolve() */
    if (noop) PetscCall(PCJacobiSetFixDiagonal(epc, PETSC_FALSE));
    ierr = ctx->arnoldi ? PCGAMGAggGPUArnoldi_Private(eksp, bb, emax, &emin, &arnoldi) : 0;
    if (!ierr && !arnoldi) { /* the solution vector only here: the device's steps need none */
      ierr = MatCreateVecs(A, &xx, NULL);
      if (!ierr) ierr = KSPSolve(eksp, bb, xx);
    }
    if (noop) PetscCall(PCJacobiSetFixDiagonal(epc, PETSC_TRUE));
    PetscCall(ierr);
    if (!arnoldi) {
      PetscCall(KSPCheckSolve(eksp, pc, xx));
      PetscCall(KSPComputeExtremeSingularValues(eksp, emax, &emin));
    }
    ctx->nestimates++;
    ctx->narnoldi += arnoldi;
    PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": smoothing the prolongator: max eigen=%e min=%e PC=%s\n", pc_gamg->current_level, (double)*emax,
                        (double)emin, PCJACOBI));
    PetscCall(VecDestroy(&xx));
    PetscCall(VecDestroy(&bb));
    PetscCall(KSPDestroy(&eksp));
  }
  mg->min_eigen_DinvA[pc_gamg->current_level] = pc_gamg->use_sa_esteig ? emin : 0;
  mg->max_eigen_DinvA[pc_gamg->current_level] = pc_gamg->use_sa_esteig ? *emax : 0;
  PetscCheck(*emax != 0.0, PetscObjectComm((PetscObject)pc), PETSC_ERR_PLIB, "Computed maximum singular value as zero");
  PetscFunctionReturn(0);
}

/* The tentative prolongator smoothed once on the device, P = (I - 1.4 / emax D^-1 A) P0 (PETSc's
   AGG's step), made a device matrix of A's type */
static PetscErrorCode PCGAMGOptProlongator_AGGGPU(PC pc, Mat A, Mat *P)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  GKTentative    *t;
  GKCsr           dA = {0, 0, 0, NULL, NULL, NULL}, dP = dA;
  PetscReal       emax;
  GKAggLevel     *lv;
  PetscBool       sorted = PETSC_FALSE;
  PetscInt        bs, nv;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  if (!ctx->device || !ctx->tentative || *P != ctx->tentative) {
    PetscCall(ctx->optprolongator(pc, A, P));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_OPT], 0, 0, 0, 0));
  PetscCall(PCGAMGAggGPUEstimate(pc, pc_gamg, ctx, A, &emax));
  PetscCall(PetscLogEventBegin(petsc_gamg_setup_events[GAMG_OPTSM], 0, 0, 0, 0));
  if (ctx->mpi) { /* each process's rows on its device, the ghosts' aggregates and values from their owners */
    GKAggMPITentative *mt;
    Mat                Ps = NULL;

    lv = &ctx->lev[pc_gamg->current_level];
    if (ctx->cached && lv->P) { /* the last setup's prolongator, of the same pattern, given the new values */
      Ps = lv->P;
      PetscCall(PetscObjectReference((PetscObject)Ps));
    }
    PetscCall(MatShellGetContext(*P, &mt));
    PetscCall(PCGAMGAggGPUSmoothMPI_Private(A, mt, -1.4 / emax, &Ps));
    if (ctx->reuse) PetscCall(PCGAMGAggGPUKeepMat(Ps, &lv->P));
    PetscCall(MatDestroy(P));
    ctx->tentative = NULL;
    *P             = Ps;
    ctx->nmpismooth++;
    PetscCall(PetscInfo(pc, "level %" PetscInt_FMT ": the prolongator smoothed on the devices of several processes\n", pc_gamg->current_level));
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_OPTSM], 0, 0, 0, 0));
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_OPT], 0, 0, 0, 0));
    PetscCall(MatViewFromOptions(*P, NULL, "-pc_gamg_agg_view_prolongation"));
    PetscFunctionReturn(0);
  }
  PetscCall(MatShellGetContext(*P, &t));
  PetscCall(MatSeqGKCsrToDevice_Private(A, &dA));
  if (t->bs == 1 && t->nv == 1) PetscCall(GKDev->smooth(&dA, t->agg, t->p, (*P)->cmap->n, -1.4 / emax, &dP));
  else PetscCall(GKDev->smoothblock(&dA, t->bs, t->nv, t->agg, t->p, (*P)->cmap->n / t->nv, -1.4 / emax, &dP));
  bs = t->bs;
  nv = t->nv;
  PetscCall(MatSeqGKReleaseCsr_Private(A, &dA));
  PetscCall(MatDestroy(P));
  ctx->tentative = NULL;
  lv             = &ctx->lev[pc_gamg->current_level];
  if (ctx->cached && lv->P) { /* the last setup's prolongator, of the same pattern, given the new values */
    PetscCall(MatSeqGKSetValuesFromDevice_Private(lv->P, &dP));
    *P = lv->P;
    PetscCall(PetscObjectReference((PetscObject)*P));
  } else {
    PetscCall(GKMatFromDeviceCsr(A, &dP, bs, nv, P, &sorted));
    /* kept where its rows come from the device in its host order: new values go in place */
    PetscCall(PCGAMGAggGPUKeepMat(ctx->reuse && sorted ? *P : NULL, &lv->P));
  }
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_OPTSM], 0, 0, 0, 0));
  PetscCall(PetscLogEventEnd(petsc_gamg_setup_events[GAMG_OPT], 0, 0, 0, 0));
  PetscCall(MatViewFromOptions(*P, NULL, "-pc_gamg_agg_view_prolongation"));
  PetscFunctionReturn(0);
}

/* -pc_mg_gpukit_storage single: M in single-precision storage for its products, its device
   copies made so from the device CSR it keeps (MatGPUKitSetStorage() leaves other types alone);
   *single whether it took it. Not where the operator has a null space (ctx->singular): the
   rounded prolongators no longer map the coarse null space onto the fine one, so a restricted
   residual keeps a component of the coarse operators' null space, which the coarsest level's
   solve of a singular operator (its last pivot shifted) magnifies: the preconditioner loses its
   definiteness (ksp ex50 unsmoothed, or on several processes with few levels, breaks down in
   CG's first iterations) */
static PetscErrorCode PCGAMGAggGPUStorage(PC_GAMG_AGGGPU *ctx, Mat M, PetscBool *single)
{
  PetscGPUKitStorage st = PETSCGPUKIT_STORAGE_DOUBLE;

  PetscFunctionBegin;
  if (ctx->storage == PETSCGPUKIT_STORAGE_SINGLE && !ctx->singular) {
    PetscCall(MatGPUKitSetStorage(M, PETSCGPUKIT_STORAGE_SINGLE));
    PetscCall(MatGPUKitGetStorage(M, &st));
  }
  if (single) *single = st == PETSCGPUKIT_STORAGE_SINGLE ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The Galerkin product (PETSc's createlevel); then the level's matrix and its prolongator drop
   the device CSR they kept for it (the coarse matrix keeps its own for the next level) */
static PetscErrorCode PCGAMGCreateLevel_AGGGPU(PC pc, Mat A, PetscInt bs, Mat *P, Mat *Ac, PetscMPIInt *nactive, IS *perm, PetscBool last)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;
  PetscBool       seq;
  GKAggLevel     *lv;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  lv = &ctx->lev[pc_gamg->current_level];
  if (ctx->device && ctx->cached && lv->Ac && lv->P == *P) { /* the last setup's product, its numeric step alone */
    PetscCall(PetscLogEventBegin(petsc_gamg_setup_matmat_events[pc_gamg->current_level][1], 0, 0, 0, 0));
    PetscCall(MatPtAP(A, *P, MAT_REUSE_MATRIX, 2.0, &lv->Ac));
    PetscCall(PetscLogEventEnd(petsc_gamg_setup_matmat_events[pc_gamg->current_level][1], 0, 0, 0, 0));
    *Ac = lv->Ac;
    PetscCall(PetscObjectReference((PetscObject)*Ac));
    *nactive = 1;
    ctx->nreused += !pc_gamg->current_level;
  } else {
    PetscBool single;

    if (!pc_gamg->current_level) {
      MatNullSpace nsp = NULL;

      ctx->nsingle = ctx->nlevels = 0;
      if (ctx->storage == PETSCGPUKIT_STORAGE_SINGLE) PetscCall(MatGetNullSpace(A, &nsp));
      if (!nsp && ctx->storage == PETSCGPUKIT_STORAGE_SINGLE) PetscCall(MatGetNullSpace(pc->mat, &nsp));
      ctx->singular = nsp ? PETSC_TRUE : PETSC_FALSE;
      if (nsp) PetscCall(PetscInfo(pc, "-pc_mg_gpukit_storage single declined: the operator has a null space; the hierarchy stays in double\n"));
    }
    PetscCall(PCGAMGAggGPUStorage(ctx, *P, &single)); /* before the product, which makes P's device copies */
    ctx->nlevels++;
    ctx->nsingle += single;
    PetscCall(ctx->createlevel(pc, A, bs, P, Ac, nactive, perm, last));
    if (ctx->device && ctx->reuse && lv->P == *P) PetscCall(PCGAMGAggGPUKeepMat(*Ac, &lv->Ac));
    else PetscCall(PCGAMGAggGPUForget(ctx, pc_gamg->current_level));
    if (!pc_gamg->current_level) ctx->nreused = 0;
    if (*Ac) PetscCall(PCGAMGAggGPUStorage(ctx, *Ac, NULL));
  }
  /* the device CSR kept for this product dropped, unless it holds the values a matrix's host
     arrays are behind; the prolongator's kept where PETSc's setup for a new matrix of the same
     pattern keeps the prolongators (-pc_gamg_reuse_interpolation, its default): each such setup
     is this product's numeric step, which reads it */
  PetscCall(GKMatIsDevice_Private(A, &seq, NULL));
  if (seq) PetscCall(MatSeqGKTrimCsr_Private(A));
  PetscCall(GKMatIsDevice_Private(*P, &seq, NULL));
  if (seq && !pc_gamg->reuse_prol) PetscCall(MatSeqGKTrimCsr_Private(*P));
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
  if (!ctx->ndevice && !ctx->nhost)
    PetscCall(PetscViewerASCIIPrintf(viewer, "        Aggregation on the GPU (agggpu) where the matrix is a device matrix\n"));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "        Aggregation on the GPU (agggpu: graph, MIS, prolongator): %" PetscInt_FMT " of %" PetscInt_FMT
                                     " coarsenings\n",
                                     ctx->ndevice, ctx->ndevice + ctx->nhost));
    if (ctx->nmpi) {
      char   graph[128], smooth[96] = "the prolongators not smoothed";
      size_t len;

      PetscCall(PetscSNPrintf(graph, sizeof(graph), "the strength graph on the devices in %" PetscInt_FMT ", PETSc's in %" PetscInt_FMT,
                              ctx->nmpigraph, ctx->nmpi - ctx->nmpigraph - ctx->nmpikept));
      PetscCall(PetscStrlen(graph, &len));
      if (ctx->nmpikept)
        PetscCall(PetscSNPrintf(graph + len, sizeof(graph) - len, ", none in %" PetscInt_FMT " (the last setup's aggregates kept)", ctx->nmpikept));
      if (ctx->nmpismooth + ctx->nmpiaggsmooth)
        PetscCall(PetscSNPrintf(smooth, sizeof(smooth),
                                "the prolongator smoothed on the devices in %" PetscInt_FMT ", by PETSc's AGG in %" PetscInt_FMT, ctx->nmpismooth,
                                ctx->nmpiaggsmooth));
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "        on several processes: %" PetscInt_FMT
                                       " of them (%s; the MIS on each process's device, exchanging the "
                                       "boundary's states; each aggregate's QR on the device at its owner; %s; the rows written into the level's "
                                       "matrices on the host)\n",
                                       ctx->nmpi, graph, smooth));
    }
    if (ctx->nhost) PetscCall(PetscViewerASCIIPrintf(viewer, "        PETSc's host aggregation on the others: %s\n", ctx->why));
    if (ctx->nestimates)
      PetscCall(PetscViewerASCIIPrintf(viewer,
                                       "        Smoothing's eigenvalue estimates by GMRES's Arnoldi steps on the device (-pc_gamg_agggpu_arnoldi): "
                                       "%" PetscInt_FMT " of %" PetscInt_FMT "%s\n",
                                       ctx->narnoldi, ctx->nestimates, ctx->narnoldi < ctx->nestimates ? " (the others PETSc's KSPSolve())" : ""));
  }
  if (ctx->storage == PETSCGPUKIT_STORAGE_SINGLE && ctx->singular)
    PetscCall(
      PetscViewerASCIIPrintf(viewer,
                             "        Hierarchy kept in double-precision storage (-pc_mg_gpukit_storage single declined): the operator has a null "
                             "space (MatSetNullSpace()), whose components single storage's rounding would let into the singular "
                             "coarse solve\n"));
  else if (ctx->storage == PETSCGPUKIT_STORAGE_SINGLE)
    PetscCall(
      PetscViewerASCIIPrintf(viewer,
                             "        Hierarchy in single-precision storage (-pc_mg_gpukit_storage single): the prolongators and coarse operators "
                             "of %" PetscInt_FMT " of %" PetscInt_FMT " coarse levels, their products summing in double\n",
                             ctx->nsingle, ctx->nlevels));
  if (ctx->reuse)
    PetscCall(
      PetscViewerASCIIPrintf(viewer,
                             "        A new matrix of the same pattern keeps the aggregates (-pc_gamg_agggpu_reuse_aggregates): %" PetscInt_FMT
                             " setups of the last %" PetscInt_FMT " made the prolongators' values and the Galerkin products alone\n",
                             ctx->nreused, ctx->nreused + 1));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetFromOptions_GAMG_AGGGPU(PC pc, GKOptionItems PetscOptionsObject)
{
  PC_GAMG        *pc_gamg;
  PC_GAMG_AGGGPU *ctx;

  PetscFunctionBegin;
  PetscCall(PCGAMGAggGPUGet(pc, &pc_gamg, &ctx));
  PetscCall(ctx->setfromoptions(pc, PetscOptionsObject));
  PetscOptionsHeadBegin(PetscOptionsObject, "GAMG aggregation on the GPU (agggpu) options");
  PetscCall(PetscOptionsBool("-pc_gamg_agggpu_reuse_aggregates",
                             "A new matrix of the same nonzero pattern keeps the aggregates: only the prolongators' values and the Galerkin products "
                             "are made again, on the device",
                             "PCGAMGAGGGPU", ctx->reuse, &ctx->reuse, NULL));
  PetscCall(PetscOptionsBool("-pc_gamg_agggpu_arnoldi",
                             "The smoothing's eigenvalue estimates by GMRES's Arnoldi steps on the device, one wait each (false: PETSc's KSPSolve() "
                             "of the esteig KSP)",
                             "PCGAMGAGGGPU", ctx->arnoldi, &ctx->arnoldi, NULL));
  PetscCall(PetscOptionsEnum("-pc_mg_gpukit_storage",
                             "Precision the hierarchy's prolongators and coarse operators store their values in for their products (the finest "
                             "operator keeps its own)",
                             "MatGPUKitSetStorage", PetscGPUKitStorages, (PetscEnum)ctx->storage, (PetscEnum *)&ctx->storage, NULL));
  PetscOptionsHeadEnd();
  if (!ctx->reuse) PetscCall(PCGAMGAggGPUForget(ctx, 0));
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
  PetscCall(PCGAMGAggGPUForget(ctx, 0));
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
  ctx->arnoldi                 = PETSC_TRUE;
  ctx->creategraph             = pc_gamg->ops->creategraph;
  ctx->coarsen                 = pc_gamg->ops->coarsen;
  ctx->prolongator             = pc_gamg->ops->prolongator;
  ctx->optprolongator          = pc_gamg->ops->optprolongator;
  ctx->createlevel             = pc_gamg->ops->createlevel;
  ctx->view                    = pc_gamg->ops->view;
  ctx->destroy                 = pc_gamg->ops->destroy;
  ctx->setfromoptions          = pc_gamg->ops->setfromoptions;
  pc_gamg->ops->setfromoptions = PCSetFromOptions_GAMG_AGGGPU;
  pc_gamg->ops->creategraph    = PCGAMGCreateGraph_AGGGPU;
  pc_gamg->ops->coarsen        = PCGAMGCoarsen_AGGGPU;
  pc_gamg->ops->prolongator    = PCGAMGProlongator_AGGGPU;
  pc_gamg->ops->optprolongator = PCGAMGOptProlongator_AGGGPU;
  pc_gamg->ops->createlevel    = PCGAMGCreateLevel_AGGGPU;
  pc_gamg->ops->view           = PCView_GAMG_AGGGPU;
  pc_gamg->ops->destroy        = PCDestroy_GAMG_AGGGPU;
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

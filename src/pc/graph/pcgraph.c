/*
   A PC's application replayed as a CUDA graph (PCGPUKitSetGraph(); cggpu and bicggpu set it on a
   multigrid PC for their solves, -ksp_cggpu_graph). A V-cycle is many launches whose coarse
   levels cost their launches, not their bytes; replayed from a
   graph they cost the device's own scheduling, not the host's.

   The PC's own apply runs as it is until one run has been seen to need nothing but the device's
   work: no wait for the device, no copy between host and device, no device allocation or free
   (counted by the backend and the copy wrappers; the host backend counts what the CUDA one would).
   The next application is recorded (the backend's graphbegin/graphend) and run from the graph,
   and every later one with the same key only launches the graph: the same PC, set up from the
   same operators in the same states, applied to the same two vectors, whose device arrays are
   those recorded. Anything else in the key, and anything the PC's host code would do apart from
   the device's work, is not replayed: the counts of launches and bytes and the flops are added
   as recorded, but no log event of the levels runs again, so -log_view counts the levels' events
   of the applications that ran, not of the replays. The first application may do one-time work
   (a Chebyshev smoother's eigenvalue estimates), so a second is looked at; after two in a row that
   are not the device's work alone, the PC is applied as it is for that key.
*/
#include "include/gpukitimpl.h"
#include "vec/impls/cuda/gkvec.h"
#include "pcgraph.h"
#include <petsc/private/pcimpl.h>
#include <petsc/private/kspimpl.h>
#include <petsc/private/pcmgimpl.h>
#include <petsc/private/matimpl.h>
#include "mat/impls/gk/gkmat.h"

#define GK_GRAPH_KEY "PCGPUKitGraph"

static PetscBool gk_recording = PETSC_FALSE; /* a PC's application is being recorded */

typedef enum {
  GK_GRAPH_UNSEEN, /* no application seen for this key */
  GK_GRAPH_DEVICE, /* one ran on the device alone: the next is recorded */
  GK_GRAPH_REPLAY, /* exec replays it */
  GK_GRAPH_NEVER   /* it waits, copies or allocates: run as it is */
} GKGraphStage;

typedef struct {
  PetscErrorCode (*apply)(PC, Vec, Vec); /* the PC's own */
  void        *exec;                     /* the last recording, or NULL */
  GKGraphStage stage;
  /* the key: the vectors and their device arrays, the operators and their states, the setup */
  Vec                x, y;
  const PetscScalar *dx;
  PetscScalar       *dy;
  PetscObjectId      aid, pid;
  PetscObjectState   astate, pstate;
  PetscInt           setupcalled;
  /* what one application counts, added at each replay */
  PetscLogDouble launches, bytes, flops;
  PetscInt       replays;
  PetscInt       unclean; /* applications seen to wait, copy or allocate for this key */
  /* the levels' matrices whose null space is swapped while an application runs, and theirs */
  Mat          *swapped;
  MatNullSpace *own;
  PetscInt      nswapped, maxswapped;
  PC           *unfixed; /* the levels' Jacobi PCs whose fix of zero diagonal entries is off while it runs */
  PetscInt      nunfixed, maxunfixed;
} PC_GKGraph;

static PetscErrorCode PCGKGraphDestroy_Private(void *arg)
{
  PC_GKGraph *g = (PC_GKGraph *)GKContainerCtx(arg);

  PetscFunctionBegin;
  if (g->exec && GKDev && GKDev->graphdestroy) PetscCall(GKDev->graphdestroy(g->exec));
  PetscCall(PetscFree2(g->swapped, g->own));
  PetscCall(PetscFree(g->unfixed));
  PetscCall(PetscFree(g));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCGKGraphGet_Private(PC pc, PC_GKGraph **g)
{
  PetscContainer c;

  PetscFunctionBegin;
  *g = NULL;
  PetscCall(PetscObjectQuery((PetscObject)pc, GK_GRAPH_KEY, (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)g));
  PetscFunctionReturn(0);
}

/* the copies, waits, allocations and frees so far: an application that adds none is the device's
   work alone */
static PetscErrorCode PCGKGraphHostCounts_Private(PetscLogDouble *n)
{
  PetscGPUKitTransferCounts t;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitGetTransferCounts(&t));
  *n = t.h2d_count + t.d2h_count + GKCounts.syncs + GKMemOps;
  PetscFunctionReturn(0);
}

/* PETSc's PCJacobi makes its inverted diagonal at its first application after a setup and, with
   -pc_jacobi_fixdiagonal (the default) unless the matrix is known SPD, replaces each zero in it
   by one on the host: the diagonal copied down, and up again. Where the matrix is a device
   matrix whose diagonal entries are all nonzero and finite, that inverse has no zero, and the
   pass changes nothing: found here on the device, once a state of the matrix (kept as composed
   data of its state), so that the callers may turn the pass off while the PC sets itself up */
PetscErrorCode PCGKJacobiFixIsNoop_Private(PC pc, PetscBool *noop)
{
  static PetscInt id = -1;
  PetscBool       isjac, fix, seq, mpi, known;
  PCJacobiType    type;
  PetscInt        none = 0;
  Mat             P    = pc->pmat;
  PetscMPIInt     size;

  PetscFunctionBegin;
  *noop = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCJACOBI, &isjac));
  if (!isjac || !P) PetscFunctionReturn(0);
  /* one process: the answer kept by a state of the matrix, which several processes need not all
     hold, would leave some of them in the collective VecMin() below */
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  if (size > 1) PetscFunctionReturn(0);
  PetscCall(GKMatIsDevice_Private(P, &seq, &mpi));
  if (!seq && !mpi) PetscFunctionReturn(0);
  PetscCall(PCJacobiGetFixDiagonal(pc, &fix)); /* composed functions: asked last, in every application */
  PetscCall(PCJacobiGetType(pc, &type));
  if (!fix || type != PC_JACOBI_DIAGONAL) PetscFunctionReturn(0);
  if (id < 0) PetscCall(PetscObjectComposedDataRegister(&id));
  PetscCall(PetscObjectComposedDataGetInt((PetscObject)P, id, none, known));
  if (!known) {
    Vec       d;
    PetscReal m;

    PetscCall(MatCreateVecs(P, &d, NULL));
    PetscCall(MatGetDiagonal(P, d));
    PetscCall(VecReciprocal(d)); /* as PCJacobi: a zero stays zero, an infinite entry becomes one */
    PetscCall(VecAbs(d));
    PetscCall(VecMin(d, NULL, &m));
    PetscCall(VecDestroy(&d));
    none = m > 0.0; /* false for a NaN as well */
    PetscCall(PetscObjectComposedDataSetInt((PetscObject)P, id, none));
    PetscCall(PetscInfo(pc, "The inverted diagonal of its %s matrix has %s zero: PCJacobi's fix of zero entries %s\n", ((PetscObject)P)->type_name,
                        none ? "no" : "a", none ? "turned off while it sets itself up" : "kept"));
  }
  *noop = (PetscBool)(none != 0);
  PetscFunctionReturn(0);
}

/* The constants removed on the device with no wait (the null space swapped in below) */
static PetscErrorCode PCGKGraphRemoveConstant_Private(MatNullSpace sp, Vec v, void *ctx)
{
  PetscFunctionBegin;
  (void)sp;
  (void)ctx;
  PetscCall(VecGKRemoveConstant_Private(v));
  PetscFunctionReturn(0);
}

/* A multigrid PC's own application with its levels' Jacobi smoothers' fix of zero diagonal
   entries off where it would change nothing (PCGKJacobiFixIsNoop_Private()), on again after */
static PetscErrorCode PCGKGraphApplyUnfixed_Private(PC pc, PC_GKGraph *g, Vec x, Vec y)
{
  PetscBool      ismg, noop;
  PetscInt       nlev = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &ismg, PCMG, PCGAMG, ""));
  if (ismg && pc->setupcalled) PetscCall(PCMGGetLevels(pc, &nlev));
  if (2 * nlev > g->maxunfixed) {
    PetscCall(PetscFree(g->unfixed));
    PetscCall(PetscMalloc1(2 * nlev, &g->unfixed));
    g->maxunfixed = 2 * nlev;
  }
  g->nunfixed = 0;
  for (PetscInt l = 0; l < nlev; l++) {
    PC_MG_Levels *lev    = ((PC_MG *)pc->data)->levels[l];
    KSP           ksp[2] = {lev->smoothd, lev->smoothu};

    for (PetscInt k = 0; k < 2; k++) {
      if (!ksp[k] || !ksp[k]->pc || (k == 1 && ksp[1] == ksp[0])) continue;
      PetscCall(PCGKJacobiFixIsNoop_Private(ksp[k]->pc, &noop));
      if (!noop) continue;
      PetscCall(PCJacobiSetFixDiagonal(ksp[k]->pc, PETSC_FALSE));
      g->unfixed[g->nunfixed++] = ksp[k]->pc;
    }
  }
  ierr = (*g->apply)(pc, x, y);
  for (PetscInt k = 0; k < g->nunfixed; k++) PetscCall(PCJacobiSetFixDiagonal(g->unfixed[k], PETSC_TRUE));
  g->nunfixed = 0;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

/* A multigrid PC's application with the null spaces of its levels' matrices that are the
   constants alone swapped, while it runs, for one whose removal (MatNullSpaceRemove(), in every
   step of a smoother: KSP_PCApply()) keeps the sum on the device: PETSc's sums the vector on the
   host's side, a wait that would keep the application from being recorded. The same arithmetic,
   the same bits; the swap is undone however the application ends. The one swapped in is made
   once and kept on the matrix's own (composed) */
static PetscErrorCode PCGKGraphApply_Private(PC pc, PC_GKGraph *g, Vec x, Vec y)
{
  PetscBool      ismg;
  PetscInt       nlev = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  g->nswapped = 0;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &ismg, PCMG, PCGAMG, ""));
  if (ismg && pc->setupcalled) PetscCall(PCMGGetLevels(pc, &nlev));
  if (2 * nlev > g->maxswapped) { /* two smoothers a level at the most */
    PetscCall(PetscFree2(g->swapped, g->own));
    PetscCall(PetscMalloc2(2 * nlev, &g->swapped, 2 * nlev, &g->own));
    g->maxswapped = 2 * nlev;
  }
  for (PetscInt l = 0; l < nlev; l++) {
    PC_MG_Levels *lev    = ((PC_MG *)pc->data)->levels[l];
    KSP           ksp[2] = {lev->smoothd, lev->smoothu};

    for (PetscInt k = 0; k < 2; k++) {
      Mat          A  = ksp[k] && ksp[k]->pc ? ksp[k]->pc->mat : NULL;
      MatNullSpace sp = A ? A->nullsp : NULL, dev;

      if (!sp || !sp->has_cnst || sp->n || sp->remove) continue; /* none, or not the constants alone (the one swapped in: no constants) */
      PetscCall(PetscObjectQuery((PetscObject)sp, "GKNullSpaceOnDevice", (PetscObject *)&dev));
      if (!dev) {
        PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)sp), PETSC_FALSE, 0, NULL, &dev));
        PetscCall(MatNullSpaceSetFunction(dev, PCGKGraphRemoveConstant_Private, NULL));
        PetscCall(PetscObjectCompose((PetscObject)sp, "GKNullSpaceOnDevice", (PetscObject)dev));
        PetscCall(PetscObjectDereference((PetscObject)dev)); /* held by sp */
      }
      g->swapped[g->nswapped] = A;
      g->own[g->nswapped++]   = sp;
      A->nullsp               = dev;
    }
  }
  /* while recorded, nothing but the device's work: the Jacobi PCs were set up by an earlier application */
  ierr = gk_recording ? (*g->apply)(pc, x, y) : PCGKGraphApplyUnfixed_Private(pc, g, x, y);
  for (PetscInt k = g->nswapped - 1; k >= 0; k--) g->swapped[k]->nullsp = g->own[k];
  g->nswapped = 0;
  PetscCall(ierr);
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_GKGraph(PC pc, Vec x, Vec y)
{
  PC_GKGraph        *g;
  const PetscScalar *dx;
  PetscScalar       *dy;
  PetscObjectState   astate, pstate;
  PetscMPIInt        size;
  PetscLogDouble     h0, h1, l0, b0, f0;
  PetscErrorCode     ierr;
  void              *exec;

  PetscFunctionBegin;
  PetscCall(PCGKGraphGet_Private(pc, &g));
  PetscCheck(g, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The PC's graph is gone");
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  /* in a PETSc built with CUDA, PETSc's own device work would not be seen, nor recorded: none */
  if (PetscDefined(HAVE_CUDA) || !GKDev || !GKDev->graphbegin || size > 1 || !VecIsGK(x) || !VecIsGK(y) || x == y ||
      gk_recording) { /* inside another PC's recording: part of that one */
    if (gk_recording) PetscCall((*g->apply)(pc, x, y));
    else PetscCall(PCGKGraphApplyUnfixed_Private(pc, g, x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(VecGPUKitGetDeviceArrayRead(x, &dx));
  PetscCall(VecGPUKitRestoreDeviceArrayRead(x, &dx));
  PetscCall(VecGPUKitGetDeviceArrayWrite(y, &dy)); /* y is written whole: marked current on the device */
  PetscCall(VecGPUKitRestoreDeviceArrayWrite(y, &dy));
  PetscCall(PetscObjectStateGet((PetscObject)pc->mat, &astate));
  PetscCall(PetscObjectStateGet((PetscObject)pc->pmat, &pstate));
  if (g->x != x || g->y != y || g->dx != dx || g->dy != dy || g->aid != ((PetscObject)pc->mat)->id || g->pid != ((PetscObject)pc->pmat)->id ||
      g->astate != astate || g->pstate != pstate || g->setupcalled != pc->setupcalled) {
    g->x           = x;
    g->y           = y;
    g->dx          = dx;
    g->dy          = dy;
    g->aid         = ((PetscObject)pc->mat)->id;
    g->pid         = ((PetscObject)pc->pmat)->id;
    g->astate      = astate;
    g->pstate      = pstate;
    g->setupcalled = pc->setupcalled;
    g->stage       = GK_GRAPH_UNSEEN;
    g->unclean     = 0;
  }
  switch (g->stage) {
  case GK_GRAPH_REPLAY:
    PetscCall(GKDev->graphlaunch(g->exec));
    GKCounts.launches += g->launches;
    GKCounts.bytes += g->bytes;
    PetscCall(PetscLogFlops(g->flops / PETSC_FLOPS_PER_OP));
    g->replays++;
    break;
  case GK_GRAPH_UNSEEN:
    PetscCall(PCGKGraphHostCounts_Private(&h0));
    PetscCall(PCGKGraphApply_Private(pc, g, x, y));
    PetscCall(PCGKGraphHostCounts_Private(&h1));
    /* the first application may do what later ones do not (a Chebyshev smoother's eigenvalue
       estimates, made at its first solve): a second one is looked at before giving up */
    if (h1 == h0) g->stage = GK_GRAPH_DEVICE;
    else if (++g->unclean >= 2) {
      g->stage = GK_GRAPH_NEVER;
      PetscCall(PetscInfo(pc,
                          "Not replayed as a graph: an application waits for the device, copies between host and device or allocates (%g times)\n",
                          h1 - h0));
    }
    break;
  case GK_GRAPH_DEVICE:
    PetscCall(PCGKGraphHostCounts_Private(&h0));
    l0 = GKCounts.launches;
    b0 = GKCounts.bytes;
    f0 = petsc_TotalFlops;
    PetscCall(GKDev->graphbegin());
    gk_recording = PETSC_TRUE;
    ierr         = PCGKGraphApply_Private(pc, g, x, y);
    gk_recording = PETSC_FALSE;
    exec         = g->exec; /* updated in place by the new recording where it can be */
    g->exec      = NULL;
    PetscCall(GKDev->graphend(&exec));
    g->exec = exec;
    PetscCall(ierr);
    PetscCall(PCGKGraphHostCounts_Private(&h1));
    if (!exec || h1 != h0) { /* nothing ran: run it as it is */
      PetscCall(PetscInfo(pc, "Not replayed as a graph: the recording failed\n"));
      g->stage = GK_GRAPH_NEVER;
      PetscCall(PCGKGraphApply_Private(pc, g, x, y));
      break;
    }
    g->launches = GKCounts.launches - l0;
    g->bytes    = GKCounts.bytes - b0;
    g->flops    = petsc_TotalFlops - f0;
    g->stage    = GK_GRAPH_REPLAY;
    PetscCall(GKDev->graphlaunch(g->exec)); /* the recorded application runs now */
    PetscCall(PetscInfo(pc, "Application recorded as a graph of %g launches\n", g->launches));
    break;
  case GK_GRAPH_NEVER:
    PetscCall(PCGKGraphApply_Private(pc, g, x, y));
    break;
  }
  PetscFunctionReturn(0);
}

/*@
   PCGPUKitSetGraph - Replays a preconditioner's application from a CUDA graph when it is applied
   again to the same vectors with nothing changed

   Logically Collective

   Input Parameters:
+  pc - the preconditioner, its type set
-  flg - `PETSC_TRUE` to replay, `PETSC_FALSE` to apply it as it is again

   Notes:
   After one application that is the device's work alone (no wait for the device, no copy between
   host and device, no device allocation), the next is recorded, and later applications to the same
   two vectors, with the PC's operators in the same states and not set up since, launch the
   recording. It serves a PC whose application does the same device work each time, as PCMG's and
   PCGAMG's V-cycles with Chebyshev or Richardson smoothers and the library's coarse solve do; a PC
   whose host code does more than launch that work (prints, counts, decides from a value it read)
   must not be replayed. On one process of the CUDA backend only, with the library's vectors; a
   no-op elsewhere. The levels' log events run only in the applications that are not replays.
   `cggpu` and `bicggpu` set it for a multigrid PC during their solves (`-ksp_cggpu_graph`).

   Level: advanced

.seealso: `PCApply()`, `KSPCGGPU`
@*/
PetscErrorCode PCGPUKitSetGraph(PC pc, PetscBool flg)
{
  PC_GKGraph    *g;
  PetscContainer c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscCall(PCGKGraphGet_Private(pc, &g));
  if (flg) {
    PetscCheck(pc->ops->apply, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "Set the PC's type before PCGPUKitSetGraph()");
    if (pc->ops->apply == PCApply_GKGraph) PetscFunctionReturn(0);
    if (!g) {
      PetscCall(PetscNew(&g));
      PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
      PetscCall(PetscContainerSetPointer(c, g));
      PetscCall(GKContainerSetDestroy(c, PCGKGraphDestroy_Private));
      PetscCall(PetscObjectCompose((PetscObject)pc, GK_GRAPH_KEY, (PetscObject)c));
      PetscCall(PetscContainerDestroy(&c));
    }
    g->apply       = pc->ops->apply;
    g->stage       = GK_GRAPH_UNSEEN;
    g->x           = NULL;
    pc->ops->apply = PCApply_GKGraph;
  } else if (pc->ops->apply == PCApply_GKGraph) {
    pc->ops->apply = g->apply;
  }
  PetscFunctionReturn(0);
}

/*@
   PCGPUKitGetGraphReplays - The applications of a PC replayed from a CUDA graph since
   `PCGPUKitSetGraph()` was first called on it

   Not Collective

   Input Parameter:
.  pc - the preconditioner

   Output Parameter:
.  n - the number of replays (0 where none was, or the graph was never set)

   Level: advanced

.seealso: `PCGPUKitSetGraph()`
@*/
PetscErrorCode PCGPUKitGetGraphReplays(PC pc, PetscInt *n)
{
  PC_GKGraph *g;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(pc, PC_CLASSID, 1);
  PetscAssertPointer(n, 2);
  PetscCall(PCGKGraphGet_Private(pc, &g));
  *n = g ? g->replays : 0;
  PetscFunctionReturn(0);
}

/* Whether a level's KSP and PC do the same device work at each application, with no host output:
   PETSc's fixed-iteration smoothers and the PCs the library applies on the device, or block Jacobi
   of one block with such a KSP and PC */
static PetscErrorCode PCGKGraphLevelOK_Private(KSP ksp, PetscBool *ok)
{
  PC        pc;
  PetscBool kok, pok, bj;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)ksp, &kok, KSPCHEBYSHEV, KSPRICHARDSON, KSPPREONLY, ""));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &pok, PCJACOBI, PCPBJACOBI, PCSOR, PCNONE, PCLU, PCCHOLESKY, PCSSORGPU, ""));
  *ok = (PetscBool)(kok && pok && !ksp->numbermonitors);
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &bj));
  if (kok && bj && !ksp->numbermonitors && pc->setupcalled) { /* one block, as GAMG's coarsest solve on one process */
    KSP     *sub;
    PetscInt nsub;

    PetscCall(PCBJacobiGetSubKSP(pc, &nsub, NULL, &sub));
    if (nsub == 1) PetscCall(PCGKGraphLevelOK_Private(sub[0], ok));
  }
  PetscFunctionReturn(0);
}

/* Whether cggpu and bicggpu replay pc (set up) as a graph: PCMG or PCGAMG whose every level
   smooths with a fixed-iteration method, no monitor, and a PC of those above */
PetscErrorCode PCGKGraphable_Private(PC pc, PetscBool *ok)
{
  PC_MG    *mg = (PC_MG *)pc->data;
  PetscInt  nlev, l;
  PetscBool ismg;

  PetscFunctionBegin;
  *ok = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &ismg, PCMG, PCGAMG, ""));
  if (!ismg || !pc->setupcalled || pc->ops->apply == PCApply_GKGraph) PetscFunctionReturn(0); /* set by the program: left to it */
  PetscCall(PCMGGetLevels(pc, &nlev));
  if (nlev < 1) PetscFunctionReturn(0);
  *ok = PETSC_TRUE;
  /* the levels' KSPs read from PCMG's struct: PCMGGetSmootherUp() would make an up smoother */
  for (l = 0; l < nlev && *ok; l++) {
    PetscCall(PCGKGraphLevelOK_Private(mg->levels[l]->smoothd, ok));
    if (*ok && mg->levels[l]->smoothu != mg->levels[l]->smoothd) PetscCall(PCGKGraphLevelOK_Private(mg->levels[l]->smoothu, ok));
  }
  PetscFunctionReturn(0);
}

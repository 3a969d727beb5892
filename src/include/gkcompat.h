/*
   The differences between the PETSc releases petsc-gpukit builds against (3.18 to 3.26), in one
   place. The library is written against the newest interface; where an older release lacks a
   name, it is defined here from what that release has. Nothing else in the tree tests
   PETSC_VERSION.
*/
#pragma once

#include <petscversion.h>
#include <petsc/private/petscimpl.h>
#include <petscvec.h>
#include <petscpc.h>
#include <petscksp.h>
#include <petsc/private/matimpl.h>

/* The options object handed to the setfromoptions operations: a pointer since 3.23
   (PetscOptionItems became the pointer type), the address of a struct before */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *GKOptionItems;
#else
typedef PetscOptionItems GKOptionItems;
#endif

/* MatTranspose's record of the matrix it came from: MatParentState until 3.25, MatState since */
#if PETSC_VERSION_LT(3, 26, 0)
typedef MatParentState MatState;
#endif

/* A container's destructor f(arg): given the pointer until 3.22, its address since 3.23, when
   PetscContainerSetCtxDestroy and PetscCtxDestroyDefault replace PetscContainerSetUserDestroy and
   PetscContainerUserDestroyDefault (GKContainerCtx(arg) is the pointer in both);
   GKContainerFreeOnDestroy: PETSc's destructor that frees the pointer */
#if PETSC_VERSION_LT(3, 23, 0)
  #define GKContainerSetDestroy(c, f) PetscContainerSetUserDestroy((c), (f))
  #define GKContainerCtx(arg)         (arg)
  #define GKContainerFreeOnDestroy(c) GKContainerSetDestroy((c), PetscContainerUserDestroyDefault)
#else
  #define GKContainerSetDestroy(c, f) PetscContainerSetCtxDestroy((c), (f))
  #define GKContainerCtx(arg)         (*(void **)(arg))
  #define GKContainerFreeOnDestroy(c) GKContainerSetDestroy((c), PetscCtxDestroyDefault)
#endif

/* PetscBool in MPI: MPIU_BOOL (an int) until 3.23; PetscBool is C's bool, MPI_C_BOOL, since 3.24 */
#if PETSC_VERSION_LT(3, 24, 0)
  #define GK_MPI_BOOL MPIU_BOOL
#else
  #define GK_MPI_BOOL MPI_C_BOOL
#endif

/* Every entry Inf, as a failed PC leaves its output: VecFlag(v, 1) since 3.22 */
#if PETSC_VERSION_LT(3, 22, 0)
  #define VecFlag(v, flg) VecSetInf(v)
#endif

/* VecSetType(v, "cuda") of a vector already "seqcuda" or "mpicuda": 3.18 returns early only in a
   PETSc with CUDA, and otherwise destroys the vector's data and makes it anew, its values lost;
   from 3.20 on any "seq"/"mpi" + type returns early. The library keeps the values across it. */
#define GK_VECSETTYPE_REMAKES PETSC_VERSION_LT(3, 20, 0)

/* MatCreateMPIAIJWithSeqAIJ(): since 3.24 given the global sizes, and garray (PetscMalloc1()'d)
   becomes the matrix's as it is, in the order given; before, garray is copied (freed here) and
   the off-diagonal block's columns renumbered in ascending order */
#if PETSC_VERSION_LT(3, 24, 0)
static inline PetscErrorCode GKCreateMPIAIJWithSeqAIJ(MPI_Comm comm, PetscInt M, PetscInt N, Mat A, Mat B, PetscInt *garray, Mat *C)
{
  PetscFunctionBegin;
  (void)M;
  (void)N;
  PetscCall(MatCreateMPIAIJWithSeqAIJ(comm, A, B, garray, C));
  PetscCall(PetscFree(garray));
  PetscFunctionReturn(0);
}
#else
  #define GKCreateMPIAIJWithSeqAIJ(comm, M, N, A, B, garray, C) MatCreateMPIAIJWithSeqAIJ((comm), (M), (N), (A), (B), (garray), (C))
#endif

/* PetscAssertPointer since 3.20 */
#if PETSC_VERSION_LT(3, 20, 0)
  #define PetscAssertPointer(p, arg) PetscValidPointer(p, arg)
#endif

/* Diagonal scaling of the PC (PCSetDiagonalScale), which PETSc's own CG and BiCG refuse, and of
   the KSP (KSPSetDiagonalScale): removed in 3.26, so never set there */
#if PETSC_VERSION_LT(3, 26, 0)
  #define GKPCGetDiagonalScale(pc, flg) PCGetDiagonalScale((pc), (flg))
  #define GKKSPDiagonalScaled(ksp)      ((ksp)->dscale)
#else
  #define GKPCGetDiagonalScale(pc, flg) ((*(flg) = PETSC_FALSE), PETSC_SUCCESS)
  #define GKKSPDiagonalScaled(ksp)      ((void)(ksp), PETSC_FALSE)
#endif

/* After a PC fails at setup, PETSc's KSPs leave x as it was through 3.21 and fill it with Inf
   (VecFlag: not a solution) from 3.22 on; the fused solvers do what PETSc's do */
#define GK_KSP_FLAGS_SOLUTION_ON_PC_FAILURE PETSC_VERSION_GE(3, 22, 0)

/* MatCreateGraph() (PCGAMG's strength graph, the operation MATOP_CREATE_GRAPH) took the
   vertices' index list from 3.21 on: GK_CREATEGRAPH_ARGS declares an implementation's arguments,
   GKCreateGraphCall(B) passes them on to MatCreateGraph() of another matrix B */
#if PETSC_VERSION_LT(3, 21, 0)
  #define GK_CREATEGRAPH_ARGS  Mat A, PetscBool sym, PetscBool scale, PetscReal filter, Mat *G
  #define GKCreateGraphCall(B) MatCreateGraph(B, sym, scale, filter, G)
  #define GKCreateGraphArgs    A, sym, scale, filter, G
#else
  #define GK_CREATEGRAPH_ARGS  Mat A, PetscBool sym, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G
  #define GKCreateGraphCall(B) MatCreateGraph(B, sym, scale, filter, index_size, index, G)
  #define GKCreateGraphArgs    A, sym, scale, filter, index_size, index, G
#endif

/* PCGAMG's aggregation, as each release has it (src/pc/gamg/agggpu.c):
   - the prolongator operation took the graph until 3.20 (GK_GAMG_PROL_ARGS declares one,
     GKGAMGProlCall(f) passes them on);
   - AGG's private struct (PC_GAMG_AGG, agg.c) begins as GKGAMGAgg lays it out; the fields read:
     the number of aggressive levels, the k of MIS-k there (3.20 on; MIS-2 before, and where the
     square graph is used: MIS on it), whether the graph is symmetrized (3.22 on; always before),
     the MatCoarsen its creategraph makes (which a coarsening in its place destroys);
   - the aggregates of heavy-edge matching for PCASM (3.21 on);
   - the MatCoarsen's options prefix after the PC's ("pc_gamg_" from 3.22 on) */
#if PETSC_VERSION_LT(3, 21, 0)
  #define GK_GAMG_PROL_ARGS PC pc, Mat A, Mat G, PetscCoarsenData *agg_lists, Mat *P
  #define GKGAMGProlCall(f) (f)(pc, A, G, agg_lists, P)
#else
  #define GK_GAMG_PROL_ARGS PC pc, Mat A, PetscCoarsenData *agg_lists, Mat *P
  #define GKGAMGProlCall(f) (f)(pc, A, agg_lists, P)
#endif
typedef struct {
  PetscInt nsmooths;
  PetscInt aggressive_levels;
#if PETSC_VERSION_GE(3, 20, 0)
  PetscInt  mis_k;
  PetscBool square_graph;
  PetscBool min_degree_ordering;
#endif
#if PETSC_VERSION_GE(3, 21, 0)
  PetscBool low_mem_filter;
#endif
#if PETSC_VERSION_GE(3, 22, 0)
  PetscBool symmetrize;
#endif
  MatCoarsen crs; /* made by AGG's creategraph; destroyed by its coarsen until 3.21, by the next creategraph or the PC's destroy after */
} GKGAMGAgg;
#if PETSC_VERSION_LT(3, 20, 0)
  #define GKGAMGAggMISk(a) ((void)(a), (PetscInt)2)
#else
  #define GKGAMGAggMISk(a) ((a)->square_graph ? (PetscInt)2 : (a)->mis_k)
#endif
#if PETSC_VERSION_LT(3, 22, 0)
  #define GKGAMGAggSymmetrize(a) ((void)(a), PETSC_TRUE)
  #define GK_GAMG_COARSEN_PREFIX NULL
#else
  #define GKGAMGAggSymmetrize(a) ((a)->symmetrize)
  #define GK_GAMG_COARSEN_PREFIX "pc_gamg_"
#endif
#if PETSC_VERSION_LT(3, 21, 0)
  #define GKGAMGAsmHem(g) ((void)(g), (PetscInt)0)
#else
  #define GKGAMGAsmHem(g) ((g)->asm_hem_aggs)
#endif
/* the prolongator's filter, 3.26 on (0: none); the eigenvalue estimate of the smoothing as AGG
   makes it: the noisy right-hand side (its null space removed from 3.23 on), the KSP's nesting
   (3.20 on), tolerances left as they are (PETSC_CURRENT from 3.22 on) */
#if PETSC_VERSION_LT(3, 26, 0)
  #define GKGAMGProlFilter(g) ((void)(g), (PetscReal)0)
#else
  #define GKGAMGProlFilter(g) ((g)->prolongator_filter)
#endif
#if PETSC_VERSION_LT(3, 23, 0)
  #define GKKSPSetNoisy(A, v)          KSPSetNoisy_Private(v)
  #define GKNoisyRemoveNullSpace(A, v) ((void)(A), (void)(v), (PetscErrorCode)0)
#else
  #define GKKSPSetNoisy(A, v) KSPSetNoisy_Private((A), (v))
static inline PetscErrorCode GKNoisyRemoveNullSpace(Mat A, Vec v)
{
  MatNullSpace nullsp;

  PetscFunctionBegin;
  PetscCall(MatGetNullSpace(A, &nullsp));
  if (nullsp) PetscCall(MatNullSpaceRemove(nullsp, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif
/* Whether a GMRES orthogonalizes by classical Gram-Schmidt without refinement (its default): the
   orthogonalization became KSP's own in 3.26 (KSPOrthogonalizationGet(), the refinement types
   KSP_ORTHOGONALIZATION_CGS_REFINE_*), GMRES's before */
static inline PetscErrorCode GKKSPOrthogonalizationIsClassical(KSP ksp, PetscBool *classical)
{
#if PETSC_VERSION_LT(3, 26, 0)
  PetscErrorCode (*orthog)(KSP, PetscInt);
  KSPGMRESCGSRefinementType refine;

  PetscFunctionBegin;
  PetscCall(KSPGMRESGetOrthogonalization(ksp, &orthog));
  PetscCall(KSPGMRESGetCGSRefinementType(ksp, &refine));
  *classical = (PetscBool)(orthog == KSPGMRESClassicalGramSchmidtOrthogonalization && refine == KSP_GMRES_CGS_REFINE_NEVER);
#else
  KSPOrthogonalizationFn               *orthog;
  KSPOrthogonalizationCGSRefinementType refine;

  PetscFunctionBegin;
  PetscCall(KSPOrthogonalizationGet(ksp, &orthog));
  PetscCall(KSPOrthogonalizationGetCGSRefinementType(ksp, &refine));
  *classical = (PetscBool)(orthog == KSPOrthogonalizationClassicalGramSchmidt && refine == KSP_ORTHOGONALIZATION_CGS_REFINE_NEVER);
#endif
  PetscFunctionReturn(0);
}
#if PETSC_VERSION_LT(3, 20, 0)
  #define GKKSPSetNestLevel(ksp, pc) ((void)(ksp), (void)(pc), (PetscErrorCode)0)
#else
  #define GKKSPSetNestLevel(ksp, pc) KSPSetNestLevel((ksp), (pc)->kspnestlevel)
#endif
#if PETSC_VERSION_LT(3, 22, 0)
  #define GK_CURRENT PETSC_DEFAULT
#else
  #define GK_CURRENT PETSC_CURRENT
#endif

/* A PETSc built with CUDA: its device contexts, and whether a stream type is one that does not
   wait for CUDA's legacy default stream (renamed in 3.21: GLOBAL_BLOCKING, DEFAULT_BLOCKING and
   GLOBAL_NONBLOCKING became DEFAULT, NONBLOCKING and their _WITH_BARRIER kinds) */
#if defined(PETSC_HAVE_CUDA)
  #include <petscdevice.h>
  #if PETSC_VERSION_LT(3, 21, 0)
    #define GKStreamIsNonBlocking(t) ((t) == PETSC_STREAM_GLOBAL_NONBLOCKING)
  #else
    #define GKStreamIsNonBlocking(t) ((t) == PETSC_STREAM_NONBLOCKING || (t) == PETSC_STREAM_NONBLOCKING_WITH_BARRIER)
  #endif
#endif

/*
   The one file that knows every type of the library: it registers them with PETSc, on top of the
   sys layer's set-up. Nothing includes it; it includes the layers' headers.
*/
#include "include/gpukitimpl.h"
#include "vec/impls/cuda/gkvec.h"
#include "mat/impls/gk/gkmat.h"
#include "ksp/impls/gk/gkksp.h"

/* the formats, each defined by its own file, named here alone to be added to the registry */
PETSC_INTERN const GKMatFormat GKFormatELLR;
PETSC_INTERN const GKMatFormat GKFormatDIA;
#include "pc/ssor_gpu/ssorgpu.h"
#include "pc/gamg/agggpu.h"

/*@C
   PetscGPUKitInitializePackage - Registers the library's types, options and log events.

   Collective on PETSC_COMM_WORLD (it finds each process's rank on its node, which picks the
   default device).

   Level: beginner

   Note:
   Loading the library with -dll_append calls this; a program linked with the library calls it
   after PetscInitialize().

.seealso: `PetscGPUKitFinalizePackage()`, `MATELLRCUDA`, `MATDIACUDA`
@*/
PetscErrorCode PetscGPUKitInitializePackage(void)
{
  PetscBool first;

  PetscFunctionBegin;
  PetscCall(PetscGPUKitSysInitialize_Private(&first));
  if (!first) PetscFunctionReturn(0);
  /* "cuda", "seqcuda", "mpicuda"; "gkcuda"... where PETSc has CUDA and those names are its own */
  PetscCall(VecRegister(VECSEQGKCUDA, VecCreate_SeqGKCUDA));
  PetscCall(VecRegister(VECMPIGKCUDA, VecCreate_MPIGKCUDA));
  PetscCall(VecRegister(VECGKCUDA, VecCreate_GKCUDA));
  PetscCall(KSPRegister(KSPCGGPU, KSPCreate_CGGPU));
  PetscCall(KSPRegister(KSPBICGGPU, KSPCreate_BiCGGPU));
  PetscCall(PCRegister(PCSSORGPU, PCCreate_SSORGPU));
  PetscCall(PCGAMGRegister(PCGAMGAGGGPU, PCCreateGAMG_AGGGPU));
  PetscCall(PCGAMGAggGPUSetDefault_Private());

  PetscCall(MatGKFormatAdd_Private(&GKFormatELLR, PETSC_TRUE)); /* the default format */
  PetscCall(MatGKFormatAdd_Private(&GKFormatDIA, PETSC_FALSE));
  PetscCall(MatGKRegisterFactors_Private());
  VecGKDMHook_Private = DMGKAttachVecDM_Private; /* a DMDA's matrices made by gkdm.c */
  PetscFunctionReturn(0);
}

/* The entry point -dll_append looks for: PetscDLLibraryRegister_ + the library's base name */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petscgpukit(void)
{
  PetscFunctionBegin;
  PetscCall(PetscGPUKitInitializePackage());
  PetscFunctionReturn(0);
}

/*
   The format registry: the device formats, each described once by the GKMatFormat its own file
   fills (names, creators, options, operations), listed here; every other file asks here for a
   format by a type name, walks the formats, or takes the default one. Adding a format is its
   files, its kernels (device and host), a line below, and its tests (docs/ARCHITECTURE.md).
*/
#include "gkmat.h"

/* defined by the formats' own files, named nowhere else */
PETSC_INTERN const GKMatFormat GKFormatELLR;
PETSC_INTERN const GKMatFormat GKFormatDIA;

static const GKMatFormat *const GKFormats[] = {&GKFormatELLR, &GKFormatDIA};

/* ELLPACK-R: its layouts (sliced, sorted, one row a slice) always keep to its fill limit */
const GKMatFormat *const GKFormatDefault = &GKFormatELLR;

const GKMatFormat *MatGKFormatAt_Private(size_t i)
{
  return i < PETSC_STATIC_ARRAY_LENGTH(GKFormats) ? GKFormats[i] : NULL;
}

PetscErrorCode MatGKFormatFind_Private(const char type[], const GKMatFormat **fmt)
{
  PetscFunctionBegin;
  *fmt = NULL;
  for (size_t i = 0; type && i < PETSC_STATIC_ARRAY_LENGTH(GKFormats) && !*fmt; i++) {
    const char *names[] = {GKFormats[i]->type, GKFormats[i]->mpitype, GKFormats[i]->roottype};

    for (int k = 0; k < 3 && !*fmt; k++) {
      PetscBool match;

      PetscCall(PetscStrcmp(type, names[k], &match));
      if (match) *fmt = GKFormats[i];
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKRegisterFormats_Private(void)
{
  PetscFunctionBegin;
  PetscCheck(!GKFormatDefault->fits, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The default format %s must hold every pattern", GKFormatDefault->name);
  for (size_t i = 0; i < PETSC_STATIC_ARRAY_LENGTH(GKFormats); i++) {
    const GKMatFormat *f = GKFormats[i];

    PetscCall(MatRegister(f->type, f->createseq));
    PetscCall(MatRegister(f->mpitype, f->creatempi));
    PetscCall(MatRegister(f->roottype, f->createroot));
    PetscCall(MatRegisterRootName(f->roottype, f->type, f->mpitype));
    PetscCall(GKMatRegisterDeviceTypes_Private(f->type, f->mpitype));
  }
  PetscFunctionReturn(0);
}

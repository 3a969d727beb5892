/*
   The format registry: the device formats, each described once by the GKMatFormat its own file
   fills (names, creators, options, operations), added here by the registration file
   (src/gpukitreg.c); every other file asks here for a format by a type name, walks the formats,
   or takes the default one, and none names a format. Adding a format is its files, its kernels
   (device and host), a line in the registration, and its tests (docs/ARCHITECTURE.md).
*/
#include "gkmat.h"

#define GK_MAX_FORMATS 8
static const GKMatFormat *GKFormats[GK_MAX_FORMATS];
static size_t             GKNumFormats;

const GKMatFormat *GKFormatDefault;

const GKMatFormat *MatGKFormatAt_Private(size_t i)
{
  return i < GKNumFormats ? GKFormats[i] : NULL;
}

PetscErrorCode MatGKFormatFind_Private(const char type[], const GKMatFormat **fmt)
{
  PetscFunctionBegin;
  *fmt = NULL;
  for (size_t i = 0; type && i < GKNumFormats && !*fmt; i++) {
    const char *names[] = {GKFormats[i]->type, GKFormats[i]->mpitype, GKFormats[i]->roottype};

    for (int k = 0; k < 3 && !*fmt; k++) {
      PetscBool match;

      PetscCall(PetscStrcmp(type, names[k], &match));
      if (match) *fmt = GKFormats[i];
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MatGKFormatAdd_Private(const GKMatFormat *f, PetscBool isdefault)
{
  PetscFunctionBegin;
  for (size_t i = 0; i < GKNumFormats; i++)
    if (GKFormats[i] == f) PetscFunctionReturn(0); /* added already (the package initialized again) */
  PetscCheck(GKNumFormats < GK_MAX_FORMATS, PETSC_COMM_SELF, PETSC_ERR_PLIB, "More than %d device formats: raise GK_MAX_FORMATS", GK_MAX_FORMATS);
  PetscCheck(!isdefault || !f->fits, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The default format %s must hold every pattern", f->name);
  PetscCheck(!isdefault || f->offdiag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The default format %s must set up off-diagonal blocks", f->name);
  GKFormats[GKNumFormats++] = f;
  if (isdefault) GKFormatDefault = f;
  PetscCall(MatRegister(f->type, f->createseq));
  PetscCall(MatRegister(f->mpitype, f->creatempi));
  PetscCall(MatRegister(f->roottype, f->createroot));
  PetscCall(MatRegisterRootName(f->roottype, f->type, f->mpitype));
  PetscFunctionReturn(0);
}

PetscErrorCode GKMatIsDevice_Private(Mat A, PetscBool *seq, PetscBool *mpi)
{
  PetscBool *flg[2] = {seq, mpi};

  PetscFunctionBegin;
  for (int k = 0; k < 2; k++) {
    if (!flg[k]) continue;
    *flg[k] = PETSC_FALSE;
    for (size_t i = 0; i < GKNumFormats && !*flg[k]; i++)
      PetscCall(PetscObjectTypeCompare((PetscObject)A, k ? GKFormats[i]->mpitype : GKFormats[i]->type, flg[k]));
  }
  PetscFunctionReturn(0);
}
